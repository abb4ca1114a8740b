//! The age side of the commands (docs/age.md): `identity export --age` and
//! `--age-plugin-identity`, `identity show --age`, `encrypt` to age recipients, and `decrypt`
//! of age files with the vault or with `-i` identity files. The format is `format::age`.

use super::Context;
use super::error::{Error, Result};
use super::pipeline;
use nexusq_core::format::age::{self, AgeError, ErrorClass, recipient};
use nexusq_core::fs::{Access, atomic};
use nexusq_core::identity::{PublicIdentity, peer};
use nexusq_core::suite::hybrid_kem::KemLevel;
use serde_json::json;
use std::path::Path;

pub(super) fn key_error(what: &str, e: &recipient::KeyError) -> Error {
    let hint = match e {
        recipient::KeyError::ClassicRecipient
        | recipient::KeyError::SshKey
        | recipient::KeyError::PluginRecipient(_) => {
            "ask for their post-quantum recipient (`age-keygen -pq`, or `nexusq identity export \
             --age`); nexusq does not mix post-quantum and classic recipients"
        }
        _ => "check the recipient: it should be one age1pq1… line, copied whole",
    };
    Error::usage(format!("{what} {e}"), hint)
}

/// Print or write one line (a recipient or an identity line), with `--json` as an object.
fn emit_line(
    ctx: &Context,
    line: &str,
    output: Option<(&Path, Access)>,
    json: serde_json::Value,
) -> Result<()> {
    match output {
        Some((o, access)) if o != Path::new("-") => {
            atomic::replace(o, format!("{line}\n").as_bytes(), access)?;
            let mut j = json;
            j["output"] = json!(o.display().to_string());
            super::output::path_bytes(&mut j, &[("output", o)]);
            ctx.out.json(&j);
            ctx.out.note(&format!("wrote {}", o.display()));
        }
        _ => {
            if ctx.global.json {
                ctx.out.json(&json);
            } else {
                ctx.out.raw(&format!("{line}\n"))?;
            }
        }
    }
    Ok(())
}

/// `identity export --age`: the newest generation's X-Wing key as `age1pq1…`.
pub fn export_recipient(
    ctx: &Context,
    public: &PublicIdentity,
    output: Option<&Path>,
) -> Result<()> {
    let cert = public.newest();
    let line = recipient::encode_recipient(&cert.keys.xwing);
    let fp = public.root_id().fingerprint().to_string();
    let json = json!({
        "age_recipient": line,
        "generation": cert.generation,
        "fingerprint": fp,
    });
    emit_line(ctx, &line, output.map(|o| (o, Access::Public)), json)
}

/// `identity show FILE --age`: someone's export as an age recipient, refusing what `encrypt`
/// refuses (a revoked identity, an expired newest generation).
pub fn show_recipient(ctx: &Context, file: &Path) -> Result<()> {
    let resolved = super::recipients::read_identity(ctx, file)?;
    let identity = &resolved.identity;
    let (cert, pk) = peer::encryption_key(
        identity,
        KemLevel::MlKem768,
        nexusq_core::time::now(),
        false,
    )
    .map_err(|e| e.context(resolved.source()))?;
    let line = recipient::encode_recipient(pk);
    let json = json!({
        "age_recipient": line,
        "generation": cert.generation,
        "fingerprint": identity.root_id().fingerprint().to_string(),
    });
    emit_line(ctx, &line, None, json)
}

/// `identity export --age-plugin-identity`: the identity line naming the vault (the path
/// given with --vault, made absolute; else the default one, resolved when age runs the
/// plugin).
pub fn export_plugin_identity(ctx: &Context, output: Option<&Path>) -> Result<()> {
    let path = ctx.vault_path()?;
    // Refuse a vault that does not exist: a typo would only show when decrypting.
    nexusq_core::vault::open(&path)?;
    let named = ctx
        .global
        .vault
        .as_ref()
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()));
    let id = recipient::PluginIdentity {
        vault: named
            .as_ref()
            .map(|p| p.as_os_str().as_encoded_bytes().to_vec()),
    };
    let line = id.encode();
    let mut json = json!({
        "age_plugin_identity": line,
        "vault": named.as_ref().map(|p| p.display().to_string()),
    });
    if let Some(p) = &named {
        super::output::path_bytes(&mut json, &[("vault", p)]);
    }
    ctx.out.note(&format!(
        "put this line in an age identity file; `age -d -i FILE` then decrypts with {} through \
         age-plugin-nexusq (it must be on PATH)",
        match &named {
            Some(p) => p.display().to_string(),
            None => "the default vault".into(),
        }
    ));
    // The line names the vault's path: not something to leave readable by others.
    emit_line(ctx, &line, output.map(|o| (o, Access::Private)), json)
}

// ---------------------------------------------------------------------------------------------
// encrypt

// ---------------------------------------------------------------------------------------------
// decrypt

/// The user-facing error for an age failure; `with_vault` picks the "no match" hint.
pub(super) fn decrypt_error(
    e: AgeError,
    input: &str,
    output: Option<&Path>,
    with_vault: bool,
) -> Error {
    let damaged = "the file was damaged or tampered with; ask the sender for a new copy";
    match e.class() {
        ErrorClass::Other => match e {
            AgeError::Write(e) => pipeline::write_error(&e, output),
            other => Error::io(
                format!("cannot read {input}: {other}"),
                "check the input and try again",
            ),
        },
        ErrorClass::NoMatch => Error::check(
            format!("{input} {e}"),
            if with_vault {
                "it was encrypted to someone else, or to a generation this vault has retired; \
                 give the sender your `nexusq identity export --age` recipient"
            } else {
                "pass the identity file it was encrypted to (-i), or drop -i to use the vault"
            },
        ),
        ErrorClass::Unsupported => Error::check(
            format!("{input} {e}"),
            "decrypt it with age itself (`age -d`), which asks for the passphrase",
        ),
        ErrorClass::Armor => Error::check(
            format!("{input} {e}"),
            "pass the file exactly as it was written (armor is strict)",
        ),
        ErrorClass::Header | ErrorClass::Hmac => Error::check(format!("{input} {e}"), damaged),
        ErrorClass::Payload => match e {
            AgeError::Payload(age::PayloadError::Truncated { .. }) => Error::check(
                format!("{input} {e}"),
                "the file is incomplete; copy or download it again",
            ),
            _ => Error::check(format!("{input} {e}"), damaged),
        },
    }
}

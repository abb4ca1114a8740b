//! The age side of the commands (docs/age.md): `identity export --age` and
//! `--age-plugin-identity`, `identity show --age`, `encrypt` to age recipients, and `decrypt`
//! of age files with the vault or with `-i` identity files. The format is `format::age`.

use super::Context;
use super::args::EncryptArgs;
use super::error::{Error, Result};
use super::io as cio;
use super::{pipeline, recipients};
use nexusq_core::format::age::{self, AgeError, ErrorClass, recipient};
use nexusq_core::format::armor::Profile;
use nexusq_core::fs::{Access, atomic};
use nexusq_core::identity::{PublicIdentity, peer};
use nexusq_core::suite::hybrid_kem::KemLevel;
use serde_json::json;
use std::path::Path;

/// Does this `encrypt` write age v1?
pub fn wants_age(args: &EncryptArgs) -> bool {
    args.age
        || !args.recipients_file.is_empty()
        || args.to.iter().any(|t| recipients::is_key_string(t))
}

fn key_error(what: &str, e: &recipient::KeyError) -> Error {
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
    let (cert, pk) = peer::encryption_key(identity, KemLevel::MlKem768, super::now(), false)
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

/// `encrypt` to age recipients; `to` are the `--to` values, each already resolved once.
pub(super) fn encrypt(
    ctx: &Context,
    args: &EncryptArgs,
    to: Vec<recipients::To<'_>>,
) -> Result<()> {
    if args.suite != super::args::KemSuiteArg::MlKem768X25519 {
        return Err(Error::usage(
            "age files use ML-KEM-768 + X25519 (X-Wing) only",
            "drop --suite, or drop --age and the age recipients",
        ));
    }
    let stdin_used = args
        .recipients_file
        .iter()
        .filter(|p| *p == Path::new("-"))
        .count();
    if stdin_used > 1 || (stdin_used == 1 && cio::is_stdio(args.input.as_deref())) {
        return Err(Error::usage(
            "stdin cannot carry both the data and a recipients file (or two recipients files)",
            "pass the data or the recipients as a file",
        ));
    }
    let backend = ctx.backend()?;
    let now = super::now();
    let mut keys: Vec<(Vec<u8>, String)> = Vec::new();
    let mut exports: Vec<recipients::To<'_>> = Vec::new();
    // An age1pq1 key that is one of a contact's certified keys is that contact, with what the
    // book knows about it (docs/contacts.md, "The book is the source of truth").
    let known = |pk: Vec<u8>, what: String| -> Result<(Vec<u8>, String)> {
        Ok(
            super::recipients::known_age_key(ctx, &pk, now, args.peer.allow_expired)?
                .unwrap_or((pk, what)),
        )
    };
    for t in to {
        if recipients::is_key_string(&t.value) {
            let s = t.value.to_string_lossy();
            let pk = recipient::parse_recipient(&s).map_err(|e| key_error("--to recipient", &e))?;
            keys.push(known(pk, "an age1pq1 recipient".into())?);
        } else if let Some(key) = super::recipients::age_contact_key(ctx, &t.named) {
            keys.push(key);
        } else {
            exports.push(t);
        }
    }
    for file in &args.recipients_file {
        let text = cio::read_text(file, "an age recipients file")?;
        let pks = recipient::parse_recipients_file(&text)
            .map_err(|e| key_error(&format!("{}, line {}:", file.display(), e.line), &e.error))?;
        if pks.is_empty() {
            return Err(Error::usage(
                format!("{} holds no recipient", file.display()),
                "add one age1pq1… line per recipient",
            ));
        }
        for pk in pks {
            keys.push(known(pk, file.display().to_string())?);
        }
    }
    if !keys.is_empty() && !args.peer.expect_fingerprint.is_empty() {
        return Err(Error::usage(
            "--expect-fingerprint cannot check an age1pq1 recipient: it carries no nexusq identity",
            "compare the age1pq1 line with its owner out of band, or encrypt to their nexusq export",
        ));
    }
    // nexusq exports: checked, collapsed and with their expiry and revocation as for
    // nexusq's own format; the newest valid generation's X-Wing key.
    let peers =
        recipients::read_recipients(ctx, &exports, &args.peer.expect_fingerprint, args.to_self)?;
    let mut summary = Vec::new();
    for p in &peers {
        let (cert, pk) = peer::encryption_key(
            p.identity(),
            KemLevel::MlKem768,
            now,
            args.peer.allow_expired,
        )
        .map_err(|e| e.context(p.resolved.source()))?;
        let fp = p.identity().root_id().fingerprint().to_string();
        ctx.out.note(&recipients::recipient_line(
            "encrypting",
            &p.resolved,
            cert.generation,
            "age mlkem768x25519",
        ));
        let mut row = json!({"fingerprint": fp, "generation": cert.generation});
        recipients::json_into(&p.resolved, &mut row);
        summary.push(row);
        keys.push((pk.to_vec(), p.resolved.source()));
    }
    // The same key twice would only make the header longer.
    let mut unique: Vec<(Vec<u8>, String)> = Vec::new();
    for k in keys {
        if !unique.iter().any(|u| u.0 == k.0) {
            unique.push(k);
        }
    }
    nexusq_core::recipients::check_cap(unique.len())?;
    let pks: Vec<&[u8]> = unique.iter().map(|k| k.0.as_slice()).collect();

    let output = args.output.as_deref();
    let armor = args.armor.then(Profile::age);
    let written = pipeline::encrypt(
        args.input.as_deref(),
        output,
        armor.as_ref(),
        |input, out, input_name| {
            age::encrypt(backend, &pks, input, out).map_err(|e| match e {
                AgeError::Read(e) => Error::io(
                    format!("cannot read {input_name}: {e}"),
                    "check the input; nothing was written",
                ),
                AgeError::Write(e) => pipeline::write_error(&e, output),
                AgeError::InvalidRecipient { index, error } => Error::check(
                    format!("recipient from {}: {error}", unique[index].1),
                    "the recipient is unusable; ask its owner for a fresh one",
                ),
                other => Error::usage(format!("cannot encrypt: {other}"), "check the recipients"),
            })
        },
    )?;
    if let Some(out) = written.file {
        ctx.out.note(&format!(
            "encrypted {} bytes from {} to {} age recipient(s): {}",
            written.bytes,
            written.input_name,
            pks.len(),
            super::output::untrusted_path(out)
        ));
    }
    written.json(
        ctx,
        json!({
            "format": "age",
            "armor": args.armor,
            "recipients": pks.len(),
            "identities": summary,
        }),
    );
    Ok(())
}

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

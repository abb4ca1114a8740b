//! `nexusq sign` and `nexusq verify`: detached ML-DSA-65 + Ed25519 signatures, streaming the
//! data through SHA-512 (docs/signature-format.md).

use super::Context;
use super::args::{SignArgs, VerifyArgs};
use super::io::{create_output, input_name, is_stdio, open_input, read_small};
use crate::error::{Error, Exit, Result};
use crate::identity::peer;
use crate::identity::signature::{self, DetachedSignature, Trust};
use crate::secret::random_array;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use zeroize::Zeroizing;

/// SHA-512 of FILE or stdin, in constant memory.
fn hash_input(input: Option<&Path>, reader: Box<dyn std::io::Read>) -> Result<[u8; 64]> {
    signature::digest_reader(reader).map_err(|e| match input {
        Some(p) if !is_stdio(Some(p)) => Error::io_at("read", p, &e),
        _ => Error::io(
            format!("cannot read the data from stdin: {e}"),
            "check what is piped into nexusq",
        ),
    })
}

pub fn sign(ctx: &Context, args: &SignArgs) -> Result<()> {
    let input = args.input.as_deref();
    ctx.check_vault()?;
    super::password::check_source(&ctx.password_source(), is_stdio(input), "the data to sign")?;
    let backend = ctx.backend()?;
    // Open the data first, so a missing FILE fails before the password is asked for.
    let reader = open_input(input)?;
    let unlocked = ctx.unlock()?;
    super::identity_cmd::refuse_if_revoked(&unlocked.file.public, "its signatures", args.force)?;
    let digest = hash_input(input, reader)?;
    let signed_at = super::now();
    let rnd = Zeroizing::new(random_array::<32>());
    let public = &unlocked.file.public;
    let sig = signature::sign_newest(backend, public, &unlocked.secrets, &digest, signed_at, &rnd)?;
    drop(unlocked);
    let text = sig.to_armor();
    let fp = sig.root_id().fingerprint().to_string();
    let generation = sig.generation();
    let output = args.output.as_deref().filter(|p| *p != Path::new("-"));
    match output {
        Some(path) => {
            let mut out = create_output(Some(path), false)?;
            out.write_all(text.as_bytes())
                .map_err(|e| Error::io_at("write", path, &e))?;
            out.commit()?;
            ctx.out.json(&json!({
                "fingerprint": fp,
                "generation": generation,
                "signed_at": crate::time::rfc3339(signed_at),
                "output": path.display().to_string(),
            }));
            ctx.out.note(&format!(
                "signed {} as {fp}, generation {generation}; signature written to {}",
                input_name(input),
                super::output::untrusted_path(path)
            ));
        }
        None if ctx.global.json => ctx.out.json(&json!({
            "fingerprint": fp,
            "generation": generation,
            "signed_at": crate::time::rfc3339(signed_at),
            "output": "-",
            "armor": true,
            "signature": text,
        })),
        None => {
            let mut out = create_output(None, false)?;
            out.write_all(text.as_bytes()).map_err(|e| {
                Error::stdout_write(&e, "check where the output goes, or pass -o SIG")
            })?;
            out.commit()?;
        }
    }
    Ok(())
}

pub fn verify(ctx: &Context, args: &VerifyArgs) -> Result<()> {
    // A failed check is `{"valid": false, "error": {...}}` under --json (docs/cli.md).
    verify_inner(ctx, args).map_err(|e| {
        if e.exit() == Exit::CheckFailed {
            e.with_json("valid", json!(false))
        } else {
            e
        }
    })
}

fn verify_inner(ctx: &Context, args: &VerifyArgs) -> Result<()> {
    let backend = ctx.backend()?;
    let input = args.input.as_deref();
    let expected = match &args.expect_fingerprint {
        Some(fp) => Some(peer::parse_fingerprints(std::slice::from_ref(fp))?[0]),
        None => None,
    };
    // The signature first: a defective one fails before anything else is read.
    let sig_name = super::output::untrusted_path(&args.sig);
    let sig = DetachedSignature::parse(&read_small(&args.sig, "a signature")?, &sig_name)?;

    // The trusted root: an identity file, else --expect-fingerprint alone, else the vault.
    let identity;
    let (trust, source) = match (&args.identity, expected) {
        (Some(path), _) => {
            let what = super::output::untrusted_path(path);
            identity = peer::parse_export(&read_small(path, "a public identity")?, &what, backend)?;
            (
                Trust::Identity {
                    identity: &identity,
                    expected,
                },
                format!("from {what}"),
            )
        }
        (None, Some(fp)) => (
            Trust::Fingerprint(fp),
            "carried by the signature, accepted because it matches --expect-fingerprint".into(),
        ),
        (None, None) => {
            let path = ctx.vault_path()?;
            if !path.exists() {
                return Err(Error::vault(
                    format!(
                        "no vault at {}, so no identity to verify against",
                        super::output::untrusted_path(&path)
                    ),
                    "pass the signer's export with --identity FILE (or --expect-fingerprint FP), \
                     or point --vault at your vault",
                ));
            }
            identity = crate::vault::open(&path)?.public;
            identity.verify_signatures(backend).map_err(|e| {
                Error::vault(
                    format!("the vault's public identity does not verify: {}", e.0),
                    "the vault is damaged or was tampered with; restore it from a backup",
                )
            })?;
            (
                Trust::Identity {
                    identity: &identity,
                    expected: None,
                },
                format!("this vault's own, {}", super::output::untrusted_path(&path)),
            )
        }
    };
    let trusted_fp = match trust {
        Trust::Identity { identity, .. } => identity.root_id().fingerprint(),
        Trust::Fingerprint(fp) => fp,
    };
    // Cheap refusals (wrong signer, wrong fingerprint) before reading the data, and before
    // the note: a fingerprint that does not match must not first be called "accepted".
    signature::check_signer(trust, &sig)?;
    ctx.out
        .note(&format!("verifying with identity {trusted_fp} ({source})"));
    let reader = open_input(input)?;
    let digest = hash_input(input, reader)?;
    let ok = signature::verify(backend, trust, &sig, &digest)?;

    let fp = ok.fingerprint().to_string();
    let signed = crate::time::rfc3339(ok.signed_at);
    let not_after = crate::time::rfc3339(ok.not_after);
    let expired = ok.not_after < super::now();
    ctx.out.json(&json!({
        "valid": true,
        "fingerprint": fp,
        "generation": ok.generation,
        "signed_at": signed,
        "signed_at_claimed": true,
        "superseded": ok.superseded,
        "newest_generation": ok.newest_known,
        "not_after": not_after,
        "expired": expired,
        "input": input_name(input),
    }));
    let mut line = format!(
        "good signature from {fp}, generation {}, signed at {signed} (claimed)",
        ok.generation
    );
    if ok.superseded {
        line.push_str(&format!(
            "; superseded: generation {} is newer",
            ok.newest_known
        ));
    }
    ctx.out.data(&line);
    if expired {
        ctx.out.note(&format!(
            "note: the certificate of generation {} expired on {not_after} (signatures stay valid)",
            ok.generation
        ));
    }
    Ok(())
}

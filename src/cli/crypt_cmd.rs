//! `nexusq encrypt` and `nexusq decrypt` (docs/file-encryption.md, section 4).
//!
//! Both stream: memory use does not depend on the size of the input.
//!
//! This module is the entry of both commands: it tells the format (an age recipient or
//! `--age` for encrypt, `format::sniff` for decrypt), hands age files to `age_cmd`, and for
//! nexusq's own format picks the keys; `recipients` reads the `--to` values and `pipeline`
//! moves the data for both formats.

use super::Context;
use super::args::{DecryptArgs, EncryptArgs};
use super::error::{Error, Result};
use super::io as cio;
use super::{pipeline, recipients};
use nexusq_core::format::armor::{self, ENCRYPTED_FILE_KIND, Profile};
use nexusq_core::format::nexusq::{self as fe, FileError};
use nexusq_core::identity::peer;
use nexusq_core::{DecryptError, Decryptor, Format, Opened, Policy};
use serde_json::json;
use std::path::Path;

// ---------------------------------------------------------------------------------------------
// encrypt

pub fn encrypt(ctx: &Context, args: &EncryptArgs) -> Result<()> {
    pipeline::refuse_json_to_stdout(ctx, args.output.as_deref(), "encrypt")?;
    // Each --to value is resolved once, here, for whichever format it leads to.
    let to = recipients::name_all(ctx, &args.to)?;
    if args.openpgp || to.iter().any(super::openpgp_cmd::is_cert) {
        return super::openpgp_cmd::encrypt(ctx, args, to);
    }
    if super::age_cmd::wants_age(args)
        || to
            .iter()
            .any(|t| super::recipients::is_age_contact(&t.named))
    {
        return super::age_cmd::encrypt(ctx, args, to);
    }
    let backend = ctx.backend()?;
    let level = args.suite.level();
    let peers = recipients::read_recipients(ctx, &to, &args.peer.expect_fingerprint, args.to_self)?;
    nexusq_core::recipients::check_cap(peers.len())?;
    let now = nexusq_core::time::now();
    let mut keys: Vec<fe::Recipient<'_>> = Vec::with_capacity(peers.len());
    let mut summary = Vec::with_capacity(peers.len());
    for p in &peers {
        let (cert, pk) = peer::encryption_key(p.identity(), level, now, args.peer.allow_expired)
            .map_err(|e| e.context(p.resolved.source()))?;
        let fp = p.identity().root_id().fingerprint().to_string();
        if cert.is_expired(now) {
            ctx.out.warn(&format!(
                "generation {} of {fp} expired on {}; encrypting to it anyway (--allow-expired)",
                cert.generation,
                nexusq_core::time::rfc3339(cert.not_after)
            ));
        }
        ctx.out.note(&recipients::recipient_line(
            "encrypting",
            &p.resolved,
            cert.generation,
            level.suite().name(),
        ));
        let mut row = json!({
            "fingerprint": fp,
            "generation": cert.generation,
            "expired": cert.is_expired(now),
        });
        recipients::json_into(&p.resolved, &mut row);
        summary.push(row);
        keys.push((level, pk));
    }

    let output = args.output.as_deref();
    let armor = args.armor.then(|| Profile::nexusq(ENCRYPTED_FILE_KIND));
    let written = pipeline::encrypt(
        args.input.as_deref(),
        output,
        armor.as_ref(),
        |input, out, input_name| {
            fe::encrypt(backend, &keys, input, out).map_err(|e| match e {
                FileError::Read(e) => Error::io(
                    format!("cannot read {input_name}: {e}"),
                    "check the input; nothing was written",
                ),
                FileError::Write(e) => pipeline::write_error(&e, output),
                FileError::InvalidRecipient { index, error } => Error::check(
                    format!("{}: {error}", peers[index].resolved.source()),
                    "the export is unusable; ask its owner for a fresh one",
                ),
                other => Error::usage(format!("cannot encrypt: {other}"), "check the recipients"),
            })
        },
    )?;
    if let Some(out) = written.file {
        ctx.out.note(&format!(
            "encrypted {} bytes from {} to {} recipient(s): {}",
            written.bytes,
            written.input_name,
            keys.len(),
            super::output::untrusted_path(out)
        ));
    }
    written.json(
        ctx,
        json!({
            "armor": args.armor,
            "suite": level.suite().name(),
            "recipients": summary,
        }),
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// decrypt

/// Map a decryption failure to an error for the user (the pipeline adds how much plaintext
/// already went out, when some did).
fn decrypt_error(e: FileError, input: &str, output: Option<&Path>) -> Error {
    let damaged = "the file was damaged or tampered with; ask the sender for a new copy";
    match e {
        FileError::Read(e) => match armor::armor_error(&e) {
            Some(a) => Error::check(
                format!("{input} is not a valid armored encrypted file: it {}", a.0),
                "pass the file exactly as `nexusq encrypt --armor` wrote it (not another kind of nexusq file)",
            ),
            None => Error::io(
                format!("cannot read {input}: {e}"),
                "check the input and try again",
            ),
        },
        FileError::Write(e) => pipeline::write_error(&e, output),
        FileError::Empty | FileError::NotEncryptedFile => Error::check(
            format!("{input} {e}"),
            "pass a file made by `nexusq encrypt` (binary, or armored text)",
        ),
        FileError::UnknownVersion(_) | FileError::UnknownSuite(_) => Error::check(
            format!("{input} {e}"),
            "upgrade nexusq, or ask the sender to encrypt with this version",
        ),
        FileError::NotARecipient => Error::check(
            format!("{input} {e}"),
            "it was encrypted to someone else, or to a generation this vault has retired; \
             ask the sender to encrypt to your current export",
        ),
        FileError::HeaderTampered => Error::check(format!("{input} {e}"), damaged),
        FileError::TruncatedHeader | FileError::Truncated { .. } => Error::check(
            format!("{input} {e}"),
            "the file is incomplete; copy or download it again",
        ),
        FileError::ChunkNotAuthentic { .. }
        | FileError::TrailingData
        | FileError::Malformed(_)
        | FileError::CounterOverflow => Error::check(format!("{input} {e}"), damaged),
        FileError::NoRecipients
        | FileError::TooManyRecipients(_)
        | FileError::InvalidRecipient { .. } => {
            Error::check(format!("{input}: {e}"), "this is a bug in nexusq")
        }
    }
}

/// What a failed decryption says, in the command line's words for each format.
fn decrypt_failure(e: DecryptError, input: &str, output: Option<&Path>, with_vault: bool) -> Error {
    match e {
        DecryptError::Keys(e) => e.into(),
        DecryptError::Nexusq(e) => decrypt_error(e, input, output),
        DecryptError::Age(e) => super::age_cmd::decrypt_error(e, input, output, with_vault),
        DecryptError::OpenPgp(e) => Error::from(e).context(input),
        DecryptError::NeedsTheVault(Format::OpenPgp) => Error::usage(
            format!("{input} is an OpenPGP message, and -i identity files decrypt only age files"),
            "drop -i to decrypt it with the vault",
        ),
        DecryptError::NeedsTheVault(_) => Error::usage(
            format!("{input} is not an age file, and -i identity files decrypt only age files"),
            "drop -i to decrypt a nexusq file with the vault",
        ),
        DecryptError::NotAllowed(format) => Error::usage(
            format!("{input} is a {format} file, which this command does not decrypt"),
            "decrypt it with `nexusq decrypt`",
        ),
    }
}

/// The note a superseded generation gets, in each format's words for what the sender has.
fn superseded_note(opened: &Opened, generation: u32) -> String {
    let (old, fresh) = match opened.format {
        Format::Nexusq => ("export", "give them a fresh one".to_string()),
        Format::Age => (
            "recipient",
            "give them your current `nexusq identity export --age`".to_string(),
        ),
        Format::OpenPgp => (
            "certificate",
            "give them a fresh one (nexusq identity export --openpgp)".to_string(),
        ),
    };
    format!(
        "encrypted to generation {generation} of this identity (superseded): the sender has an \
         old {old}; {fresh}"
    )
}

pub fn decrypt(ctx: &Context, args: &DecryptArgs) -> Result<()> {
    let output = args.output.as_deref();
    pipeline::refuse_json_to_stdout(ctx, output, "decrypt")?;
    let data_on_stdin = cio::is_stdio(args.input.as_deref());
    // The vault's keys will be needed (unless -i identity files decrypt an age file): a
    // missing or damaged vault is said first (exit 4), and without an agent an unusable
    // password source is refused, before any data is read.
    let key = if args.identity_file.is_empty() {
        let key = ctx.key_source(args.no_agent)?;
        if !key.has_agent() {
            ctx.check_password_source(data_on_stdin, "the encrypted data")?;
        }
        Some(key)
    } else {
        None
    };
    let input_name = cio::input_name(args.input.as_deref());
    let input = cio::open_input(args.input.as_deref())?;
    let identities = cio::read_age_identities(&args.identity_file, data_on_stdin)?;
    let decryptor = Decryptor::new(input).map_err(|e| {
        Error::io(
            format!("cannot read {input_name}: {e}"),
            "check the input and try again",
        )
    })?;
    let format = decryptor.format();
    let with_vault = key.is_some();
    let fail = |e: DecryptError| decrypt_failure(e, &input_name, output, with_vault);
    let policy = Policy::default();
    // A file that is not one is refused before the password is asked for; the vault's keys
    // go once the header is open (the key source is given away).
    let mut plaintext = match key {
        Some(key) => decryptor.decrypt(key, ctx, &policy, super::now()),
        None => decryptor.decrypt_with_identities(&identities, ctx.backend()?, &policy),
    }
    .map_err(fail)?;
    let opened = plaintext.opened().clone();
    let stanza_type = opened.identity.map(|i| match identities[i] {
        nexusq_core::format::age::Identity::Hybrid(_) => "mlkem768x25519",
        nexusq_core::format::age::Identity::X25519(_) => "X25519",
    });
    drop(identities);
    // OpenPGP's notes come after its payload, as they always have.
    let notes = |ctx: &Context| {
        if opened.classical_too {
            ctx.out.warn(&format!(
                "{input_name} was also encrypted to a classical key or a password: it is only \
                 as safe as that, not post-quantum only"
            ));
        }
        if let (true, Some(g)) = (opened.superseded, opened.generation) {
            ctx.out.note(&superseded_note(&opened, g));
        }
    };
    if format != Format::OpenPgp {
        notes(ctx);
    }
    let written = pipeline::decrypt(ctx, &input_name, output, |out| {
        pipeline::copy_plaintext(&mut plaintext, out, output, |e| {
            fail(DecryptError::from_read(format, e))
        })
    })?;
    if format == Format::OpenPgp {
        notes(ctx);
    }
    let generation = opened.generation.unwrap_or(0);
    let suite = opened.level.map(|l| l.suite().name());
    let (said, fields) = match format {
        Format::Nexusq => (
            format!(
                "decrypted {} bytes from {input_name} to {} (generation {generation}, {}); the \
                 file is authentic but its sender is not authenticated",
                written.bytes,
                written.output_name(),
                suite.unwrap_or_default()
            ),
            json!({"generation": generation, "suite": suite, "armor": opened.armored}),
        ),
        Format::Age => (
            format!(
                "decrypted {} bytes of an age file from {input_name} to {}; the file is \
                 authentic but its sender is not authenticated",
                written.bytes,
                written.output_name()
            ),
            match opened.identity {
                None => json!({"format": "age", "armor": opened.armored, "generation": generation}),
                Some(i) => json!({
                    "format": "age",
                    "armor": opened.armored,
                    "identity": i + 1,
                    "stanza_type": stanza_type,
                }),
            },
        ),
        Format::OpenPgp => (
            format!(
                "decrypted {} bytes from {input_name} to {} (OpenPGP, generation {generation}, \
                 ML-KEM-768+X25519); the message is authentic but its sender is not \
                 authenticated",
                written.bytes,
                written.output_name()
            ),
            json!({
                "format": "openpgp",
                "generation": generation,
                "suite": "ML-KEM-768+X25519",
                "armor": opened.armored,
                "post_quantum_only": !opened.classical_too,
            }),
        ),
    };
    ctx.out.note(&said);
    written.json(ctx, fields);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_partial_output_is_mentioned() {
        let truncated = |chunks| decrypt_error(FileError::Truncated { chunks }, "stdin", None);
        let e = pipeline::partial_stdout(truncated(3), 3 * 65536, None);
        assert_eq!(e.exit(), crate::cli::error::Exit::CheckFailed);
        assert!(e.message().contains("196608 bytes"), "{}", e.message());
        assert!(e.message().contains("truncated"), "{}", e.message());
        let e = pipeline::partial_stdout(truncated(0), 0, None);
        assert!(!e.message().contains("bytes of authentic"));
    }

    #[test]
    fn armor_defects_are_check_failures_and_device_errors_io() {
        let armor_err = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            armor::ArmorError("has invalid base64".into()),
        );
        let e = decrypt_error(FileError::Read(armor_err), "x.asc", None);
        assert_eq!(e.exit(), crate::cli::error::Exit::CheckFailed);
        let e = decrypt_error(FileError::Read(std::io::Error::other("EIO")), "x", None);
        assert_eq!(e.exit(), crate::cli::error::Exit::Io);
    }
}

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
use nexusq_core::format::{self, Envelope};
use nexusq_core::identity::peer;
use nexusq_core::suite::hybrid_kem::KemLevel;
use serde_json::json;
use std::path::Path;

// ---------------------------------------------------------------------------------------------
// encrypt

pub fn encrypt(ctx: &Context, args: &EncryptArgs) -> Result<()> {
    pipeline::refuse_json_to_stdout(ctx, args.output.as_deref(), "encrypt")?;
    // Each --to value is resolved once, here, for whichever format it leads to.
    let to = recipients::name_all(ctx, &args.to)?;
    if super::age_cmd::wants_age(args)
        || to
            .iter()
            .any(|t| super::contacts_cmd::is_age_contact(&t.named))
    {
        return super::age_cmd::encrypt(ctx, args, to);
    }
    let backend = ctx.backend()?;
    let level = args.suite.level();
    let mut peers = recipients::read_recipients(ctx, &to, &args.peer.expect_fingerprint)?;
    if args.to_self {
        recipients::add_own_identity(ctx, &mut peers)?;
    }
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
        p.resolved.json_into(&mut row);
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

/// Open a file header with the agent's keys: `None` when the agent failed on the way (then
/// the password is used); a file for nobody it holds a key of is that error, as with the vault.
#[allow(clippy::type_complexity)]
fn open_with_agent(
    ctx: &Context,
    agent: &nexusq_core::agent::client::Agent,
    header: &fe::Header,
) -> std::result::Result<Option<(fe::OpenedHeader, KemLevel, u32, bool)>, FileError> {
    let remote = agent.remote_keys(None);
    let candidates: Vec<fe::Candidate<'_>> =
        remote.iter().map(|k| k as fe::Candidate<'_>).collect();
    match header.open(&candidates) {
        Ok(opened) => {
            let k = &remote[opened.candidate];
            let superseded = k.generation < agent.status().signing_generation;
            Ok(Some((opened, k.level, k.generation, superseded)))
        }
        Err(_) if remote.iter().any(|k| k.failed()) => {
            super::agent_cmd::fallback_note(ctx, "it stopped answering while opening the file");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

pub fn decrypt(ctx: &Context, args: &DecryptArgs) -> Result<()> {
    let output = args.output.as_deref();
    pipeline::refuse_json_to_stdout(ctx, output, "decrypt")?;
    let data_on_stdin = cio::is_stdio(args.input.as_deref());
    // The vault's password will be needed (unless -i identity files decrypt an age file):
    // refuse an unusable password source before reading any data.
    let agent = if args.identity_file.is_empty() {
        super::agent_cmd::for_command(ctx, args.no_agent)
    } else {
        None
    };
    if args.identity_file.is_empty() && agent.is_none() {
        // A missing or damaged vault is said first (exit 4), before any password question.
        ctx.check_vault()?;
        ctx.check_password_source(data_on_stdin, "the encrypted data")?;
    }
    let input_name = cio::input_name(args.input.as_deref());
    let input = cio::open_input(args.input.as_deref())?;
    let read_error = |e: std::io::Error| {
        Error::io(
            format!("cannot read {input_name}: {e}"),
            "check the input and try again",
        )
    };

    // nexusq's own format (binary "NXQF", or its armor), else age v1 (binary, or armor after
    // optional whitespace): enough is looked at to see past that whitespace.
    let (peeked, input) = armor::peek(input, format::SNIFF_LEN).map_err(read_error)?;
    if let Some(Envelope::Age { armored }) = format::sniff(&peeked) {
        let age_format = if armored {
            nexusq_core::format::age::Format::Armored
        } else {
            nexusq_core::format::age::Format::Binary
        };
        return super::age_cmd::decrypt(ctx, args, agent, Box::new(input), age_format, &input_name);
    }
    if !args.identity_file.is_empty() {
        return Err(Error::usage(
            format!(
                "{input_name} is not an age file, and -i identity files decrypt only age files"
            ),
            "drop -i to decrypt a nexusq file with the vault",
        ));
    }
    let mut reader = armor::maybe_armored(input, ENCRYPTED_FILE_KIND).map_err(read_error)?;
    let armored = reader.is_armored();
    let fail = |e: FileError| decrypt_error(e, &input_name, output);

    // A file that is not one is refused before the password is asked for.
    let header = fe::Header::read(&mut reader).map_err(fail)?;
    // Only the decapsulation keys are kept; the seeds go at once, and the keys once the
    // header is open: the payload key is all that is needed from there on.
    let by_agent = match &agent {
        Some(a) => open_with_agent(ctx, a, &header).map_err(fail)?,
        None => None,
    };
    let (opened, level, generation, superseded) = match by_agent {
        Some(found) => found,
        None => {
            if agent.is_some() {
                ctx.check_password_source(false, "")?;
            }
            let keys = ctx.unlock()?.into_decryption_keys();
            let (opened, key) = keys.open_file_header(&header).map_err(fail)?;
            let (level, generation) = (key.level(), key.generation());
            let superseded = keys.is_superseded(generation);
            (opened, level, generation, superseded)
        }
    };
    if superseded {
        ctx.out.note(&format!(
            "encrypted to generation {generation} of this identity (superseded): the sender \
             has an old export; give them a fresh one"
        ));
    }
    let written = pipeline::decrypt(ctx, &input_name, output, |out| {
        opened.decrypt_payload(&mut reader, out).map_err(fail)
    })?;
    ctx.out.note(&format!(
        "decrypted {} bytes from {input_name} to {} (generation {generation}, {}); the file is \
         authentic but its sender is not authenticated",
        written.bytes,
        written.output_name(),
        level.suite().name()
    ));
    written.json(
        ctx,
        json!({
            "generation": generation,
            "suite": level.suite().name(),
            "armor": armored,
        }),
    );
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

//! `nexusq encrypt` and `nexusq decrypt` (docs/file-encryption.md, section 4).
//!
//! Both stream: memory use does not depend on the size of the input.
//!
//! Recipients: every `--to` export is read and verified; with `--expect-fingerprint`, each one
//! must be among the expected fingerprints, and each expected fingerprint must be a recipient. Several exports of the same identity collapse into
//! one recipient (the newest generation among them is used, and a note says so); two different
//! certificates for the same generation of one identity are a fork and are refused.

use super::Context;
use super::args::{DecryptArgs, EncryptArgs};
use super::contacts_cmd::Resolved;
use super::io as cio;
use super::output::TerminalGuard;
use nexusq_core::error::{Error, Result};
use nexusq_core::format::armor::{self, ArmorWriter, ENCRYPTED_FILE_KIND, Profile};
use nexusq_core::format::nexusq::{self as fe, FileError};
use nexusq_core::format::{self, Envelope};
use nexusq_core::fs::Access;
use nexusq_core::fs::paths::folder_is_shared_storage;
use nexusq_core::identity::{Certificate, PublicIdentity, peer};
use nexusq_core::suite::hybrid_kem::KemLevel;
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// `--json` prints one object on stdout, which is impossible when the data goes there.
pub(super) fn refuse_json_to_stdout(
    ctx: &Context,
    output: Option<&Path>,
    command: &str,
) -> Result<()> {
    if ctx.global.json && cio::is_stdio(output) {
        return Err(Error::usage(
            format!("`{command} --json` needs -o FILE: stdout carries the data"),
            "pass -o FILE to get the JSON summary, or drop --json",
        ));
    }
    Ok(())
}

/// Anyone who can encrypt to us chooses the plaintext: to a terminal (stdout, or an `-o` path
/// such as /dev/tty) it goes only as plain text, checked chunk by chunk before each is written.
/// `-o -` forces it through. For nexusq's own files and age files alike.
pub(super) fn terminal_guard(sink: cio::Sink, output: Option<&Path>) -> TerminalGuard<cio::Sink> {
    let on_terminal = match (&sink, output) {
        (cio::Sink::Stdout(_), None) => std::io::stdout().is_terminal(),
        (cio::Sink::Stdout(_), Some(_)) => false,
        (cio::Sink::File { out, .. }, _) => out.is_terminal(),
    };
    TerminalGuard::new(sink, on_terminal)
}

pub(super) fn write_error(e: &std::io::Error, output: Option<&Path>) -> Error {
    if let Some(found) = super::output::refused_on_terminal(e) {
        return Error::usage(
            format!(
                "refusing to show the decrypted data on the terminal: it holds {} (at byte {}), \
                 which could make the terminal show something else or act on it",
                found.what, found.offset
            ),
            "pass -o FILE to save it, or -o - to print it anyway",
        );
    }
    match output {
        Some(p) if !cio::is_stdio(Some(p)) => Error::io_at("write", p, e),
        _ => Error::stdout_write(e, "check where the output goes"),
    }
}

// ---------------------------------------------------------------------------------------------
// encrypt

/// One recipient after reading, checking and collapsing the exports.
pub(super) struct Peer {
    /// The identity whose newest generation is used, and where it came from.
    pub(super) resolved: Resolved,
    /// Every certificate seen for this identity, in any of its exports, with where (to detect
    /// forks).
    certificates: Vec<(Certificate, String)>,
}

impl Peer {
    pub(super) fn identity(&self) -> &PublicIdentity {
        &self.resolved.identity
    }
}

/// "encrypting to alice (FP, generation 3) with SUITE, from file x.asc": who, and where from.
pub(super) fn recipient_line(verb: &str, r: &Resolved, generation: u32, suite: &str) -> String {
    let who = r.who(generation);
    let from = match r.file_label() {
        _ if r.own => " (your own identity)".to_string(),
        Some(file) => format!(", from {file}"),
        None => String::new(),
    };
    format!("{verb} to {who} with {suite}{from}")
}

/// Read every export in `paths` and collapse repeats of one identity.
pub(super) fn read_recipients(
    ctx: &Context,
    paths: &[PathBuf],
    expect_fingerprint: &[String],
) -> Result<Vec<Peer>> {
    let expected = peer::parse_fingerprints(expect_fingerprint)?;
    let mut peers: Vec<Peer> = Vec::new();
    for path in paths {
        // A file (which may hold several concatenated exports: a team's keys in one file), or
        // a contact by name (docs/contacts.md); either way with what the book knows applied.
        for resolved in super::contacts_cmd::read_identities(ctx, path)? {
            let name = resolved.source();
            let root_id = resolved.identity.root_id();
            peer::check_expected(&root_id, &expected).map_err(|e| e.context(&name))?;
            let certificates: Vec<(Certificate, String)> = resolved
                .identity
                .certificates
                .iter()
                .map(|c| (c.clone(), name.clone()))
                .collect();
            let Some(seen) = peers.iter_mut().find(|p| p.identity().root_id() == root_id) else {
                peers.push(Peer {
                    resolved,
                    certificates,
                });
                continue;
            };
            for (cert, _) in &certificates {
                if let Some((_, other)) = seen
                    .certificates
                    .iter()
                    .find(|(c, _)| c.generation == cert.generation && c != cert)
                {
                    return Err(Error::check(
                        format!(
                            "{other} and {name} hold two different certificates for generation \
                             {} of identity {}: a fork, which may mean its root key was \
                             compromised",
                            cert.generation,
                            root_id.fingerprint()
                        ),
                        "do not encrypt to it; compare the exports with their owner out of band",
                    ));
                }
            }
            seen.certificates.extend(certificates);
            ctx.out.note(&format!(
                "{name} is the same identity ({}) as {}; encrypting to it once",
                root_id.fingerprint(),
                seen.resolved.source()
            ));
            // The newest generation known wins, and so does a revocation seen in any export.
            let newer = resolved.identity.newest().generation > seen.identity().newest().generation;
            if peer::is_revoked(&resolved.identity) || (newer && !peer::is_revoked(seen.identity()))
            {
                seen.resolved = resolved;
            }
        }
    }
    let ids: Vec<_> = peers.iter().map(|p| p.identity().root_id()).collect();
    peer::check_all_expected_present(&ids, &expected)?;
    if peers.len() > fe::MAX_RECIPIENTS {
        return Err(Error::usage(
            format!(
                "{} recipients; a file can be encrypted to at most {}",
                peers.len(),
                fe::MAX_RECIPIENTS
            ),
            "split the recipients over several files",
        ));
    }
    Ok(peers)
}

/// `encrypt --to-self`: the vault's own identity (its public part, checked against the root)
/// as one more recipient, unless a `--to` export already names it.
pub(super) fn add_own_identity(ctx: &Context, peers: &mut Vec<Peer>) -> Result<()> {
    let path = ctx.vault_path()?;
    let identity = nexusq_core::vault::open(&path)?.public;
    identity.verify_signatures(ctx.backend()?).map_err(|e| {
        Error::vault(
            format!("the vault's public identity does not verify: {}", e.0),
            "the vault is damaged or was tampered with; restore it from a backup",
        )
    })?;
    if peers
        .iter()
        .any(|p| p.identity().root_id() == identity.root_id())
    {
        return Ok(());
    }
    let certificates = identity
        .certificates
        .iter()
        .map(|c| (c.clone(), "your own identity".to_string()))
        .collect();
    peers.push(Peer {
        resolved: Resolved {
            identity,
            contact: None,
            file: Some(path),
            own: true,
        },
        certificates,
    });
    if peers.len() > fe::MAX_RECIPIENTS {
        return Err(Error::usage(
            format!(
                "{} recipients with --to-self; at most {}",
                peers.len(),
                fe::MAX_RECIPIENTS
            ),
            "split the recipients over several files",
        ));
    }
    Ok(())
}

pub fn encrypt(ctx: &Context, args: &EncryptArgs) -> Result<()> {
    refuse_json_to_stdout(ctx, args.output.as_deref(), "encrypt")?;
    if super::age_cmd::wants_age(args) || super::contacts_cmd::names_age_contact(ctx, &args.to)? {
        return super::age_cmd::encrypt(ctx, args);
    }
    let backend = ctx.backend()?;
    let level = args.suite.level();
    let mut peers = read_recipients(ctx, &args.to, &args.peer.expect_fingerprint)?;
    if args.to_self {
        add_own_identity(ctx, &mut peers)?;
    }
    let now = nexusq_core::time::now();
    let mut recipients: Vec<fe::Recipient<'_>> = Vec::with_capacity(peers.len());
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
        ctx.out.note(&recipient_line(
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
        recipients.push((level, pk));
    }

    let input_name = cio::input_name(args.input.as_deref());
    let mut input = cio::open_input(args.input.as_deref())?;
    let output = args.output.as_deref();
    let sink = cio::create_output(output, !args.armor, Access::Private)?;
    let map = |e: FileError| match e {
        FileError::Read(e) => Error::io(
            format!("cannot read {input_name}: {e}"),
            "check the input; nothing was written",
        ),
        FileError::Write(e) => write_error(&e, output),
        FileError::InvalidRecipient { index, error } => Error::check(
            format!("{}: {error}", peers[index].resolved.source()),
            "the export is unusable; ask its owner for a fresh one",
        ),
        other => Error::usage(format!("cannot encrypt: {other}"), "check the recipients"),
    };
    let (bytes, sink) = if args.armor {
        let mut w = ArmorWriter::new(sink, &Profile::nexusq(ENCRYPTED_FILE_KIND))
            .map_err(|e| write_error(&e, output))?;
        let n = fe::encrypt(backend, &recipients, &mut input, &mut w).map_err(map)?;
        (n, w.finish().map_err(|e| write_error(&e, output))?)
    } else {
        let mut sink = sink;
        let n = fe::encrypt(backend, &recipients, &mut input, &mut sink).map_err(map)?;
        (n, sink)
    };
    let to_file = sink.is_file();
    sink.commit()?;
    if to_file {
        let out = output.expect("a file sink has a path");
        ctx.out.note(&format!(
            "encrypted {bytes} bytes from {input_name} to {} recipient(s): {}",
            recipients.len(),
            super::output::untrusted_path(out)
        ));
        let mut j = json!({
            "output": out.display().to_string(),
            "armor": args.armor,
            "suite": level.suite().name(),
            "bytes": bytes,
            "recipients": summary,
        });
        super::output::path_bytes(&mut j, &[("output", out)]);
        ctx.out.json(&j);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// decrypt

/// Counts what reached the output, to say how much of it a late failure concerns.
pub(super) struct Counted<W: Write> {
    pub(super) inner: W,
    pub(super) written: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Map a decryption failure to an error for the user. `stdout_written` is how many plaintext
/// bytes already went to stdout, or to the device or FIFO `output` names (`None` when the
/// output is a file, which is then discarded).
fn decrypt_error(
    e: FileError,
    input: &str,
    output: Option<&Path>,
    stdout_written: Option<u64>,
) -> Error {
    let damaged = "the file was damaged or tampered with; ask the sender for a new copy";
    let mut err = match e {
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
        FileError::Write(e) => write_error(&e, output),
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
    };
    if let Some(n) = stdout_written {
        err = partial_stdout(err, n, output);
    }
    err
}

/// Say that `n` authentic bytes already went out (to stdout, or to an output that is not a
/// regular file) before the error, when there were any.
pub(super) fn partial_stdout(err: Error, n: u64, output: Option<&Path>) -> Error {
    if n == 0 || err.is_broken_pipe() {
        return err;
    }
    let to = match output {
        Some(p) if !cio::is_stdio(Some(p)) => p.display().to_string(),
        _ => "stdout".into(),
    };
    Error::new(
        err.exit(),
        format!(
            "{}; {n} bytes of authentic plaintext before the problem were already written to \
             {to}: they are not the whole file",
            err.message()
        ),
        format!(
            "{}; use -o FILE (a regular file) to get all or nothing",
            err.hint()
        ),
    )
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
    refuse_json_to_stdout(ctx, output, "decrypt")?;
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
        return super::age_cmd::decrypt(ctx, args, Box::new(input), age_format, &input_name);
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
    let fail = |e: FileError| decrypt_error(e, &input_name, output, None);

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
    if let Some(p) = output.filter(|p| !cio::is_stdio(Some(p)))
        && folder_is_shared_storage(p)
    {
        ctx.out.warn(&format!(
            "{} is in Android shared storage, where other apps can read the plaintext",
            super::output::untrusted_path(p)
        ));
    }

    let sink = cio::create_output(output, false, Access::Private)?;
    let to_file = sink.is_file();
    let all_or_nothing = sink.is_all_or_nothing();
    let mut out = Counted {
        inner: terminal_guard(sink, output),
        written: 0,
    };
    match opened.decrypt_payload(&mut reader, &mut out) {
        Ok(bytes) => {
            out.inner.into_inner().commit()?;
            let out_name = match output {
                Some(p) if to_file => p.display().to_string(),
                _ => "stdout".into(),
            };
            ctx.out.note(&format!(
                "decrypted {bytes} bytes from {input_name} to {out_name} \
                 (generation {generation}, {}); the file is authentic but its sender is not \
                 authenticated",
                level.suite().name()
            ));
            if to_file {
                let mut j = json!({
                    "output": out_name,
                    "bytes": bytes,
                    "generation": generation,
                    "suite": level.suite().name(),
                    "armor": armored,
                });
                if let Some(p) = output {
                    super::output::path_bytes(&mut j, &[("output", p)]);
                }
                ctx.out.json(&j);
            }
            Ok(())
        }
        Err(e) => {
            let written = if all_or_nothing {
                None
            } else {
                // Whatever authenticated is out; make the count true.
                let _ = out.flush();
                Some(out.written)
            };
            // A file output is dropped uncommitted: its temporary file is removed.
            drop(out);
            Err(decrypt_error(e, &input_name, output, written))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_partial_output_is_mentioned() {
        let e = decrypt_error(
            FileError::Truncated { chunks: 3 },
            "stdin",
            None,
            Some(3 * 65536),
        );
        assert_eq!(e.exit(), nexusq_core::error::Exit::CheckFailed);
        assert!(e.message().contains("196608 bytes"), "{}", e.message());
        assert!(e.message().contains("truncated"), "{}", e.message());
        let e = decrypt_error(FileError::Truncated { chunks: 0 }, "f", None, Some(0));
        assert!(!e.message().contains("bytes of authentic"));
    }

    #[test]
    fn armor_defects_are_check_failures_and_device_errors_io() {
        let armor_err = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            armor::ArmorError("has invalid base64".into()),
        );
        let e = decrypt_error(FileError::Read(armor_err), "x.asc", None, None);
        assert_eq!(e.exit(), nexusq_core::error::Exit::CheckFailed);
        let e = decrypt_error(
            FileError::Read(std::io::Error::other("EIO")),
            "x",
            None,
            None,
        );
        assert_eq!(e.exit(), nexusq_core::error::Exit::Io);
    }
}

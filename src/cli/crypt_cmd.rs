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
use super::output::untrusted;
use super::recipients::To;
use super::{pipeline, recipients};
use nexusq_core::contacts::ContactKey;
use nexusq_core::contacts::naming::Named;
use nexusq_core::encryptor;
use nexusq_core::format::age::recipient;
use nexusq_core::format::armor;
use nexusq_core::format::nexusq::FileError;
use nexusq_core::format::openpgp::keys;
use nexusq_core::identity::peer;
use nexusq_core::recipients::{
    AgeRecipient, CertRecipient, Gathered, Key, RecipientKind, Recipients,
};
use nexusq_core::{DecryptError, Decryptor, EncryptError, Encryptor, Format, Opened, Policy};
use serde_json::json;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// encrypt

pub fn encrypt(ctx: &Context, args: &EncryptArgs) -> Result<()> {
    pipeline::refuse_json_to_stdout(ctx, args.output.as_deref(), "encrypt")?;
    // Each --to value is resolved once, here, for whichever format it leads to.
    let to = recipients::name_all(ctx, &args.to)?;
    let kinds: Vec<RecipientKind> = to.iter().map(kind_of).collect();
    let wants_age = args.age || !args.recipients_file.is_empty();
    let certs = args.openpgp || kinds.contains(&RecipientKind::Certificate);
    if certs && wants_age {
        return Err(Error::usage(
            "--age / -R and OpenPGP recipients do not mix",
            "encrypt to OpenPGP certificates and age recipients in separate runs",
        ));
    }
    let asked = if args.openpgp {
        Some(Format::OpenPgp)
    } else if wants_age {
        Some(Format::Age)
    } else {
        None
    };
    let format = encryptor::format_for(&kinds, asked).map_err(|e| refused(e, &to, None))?;
    let level = args.suite.level();
    encryptor::check_level(format, level).map_err(|e| refused(e, &to, None))?;
    if format == Format::Age {
        check_recipients_files(args)?;
    }
    let now = nexusq_core::time::now();
    let policy = Policy {
        allow_expired: args.peer.allow_expired,
        ..Policy::default()
    };
    let (gathered, cert_values) = gather(ctx, args, to, format, &policy, now)?;
    let all = gathered.all();
    let encryptor = Encryptor::new(&all, Some(format), level, now, &policy)
        .map_err(|e| refused(e, &[], Some(&gathered)))?;

    let summary = announce(ctx, &gathered, &cert_values, &encryptor, now);
    let output = args.output.as_deref();
    let backend = ctx.backend()?;
    let written = pipeline::encrypt(
        args.input.as_deref(),
        output,
        !args.armor,
        |input, out, input_name| {
            encryptor
                .encrypt(backend, input, out, args.armor)
                .map_err(|e| match e {
                    EncryptError::Read(e) => Error::io(
                        format!("cannot read {input_name}: {e}"),
                        "check the input; nothing was written",
                    ),
                    EncryptError::Write(e) => pipeline::write_error(&e, output),
                    EncryptError::Other(e) if format == Format::OpenPgp => {
                        Error::from(e).context(input_name)
                    }
                    e => refused(e, &[], Some(&gathered)),
                })
        },
    )?;
    let count = encryptor.key_count();
    if let Some(out) = written.file {
        let what = match format {
            Format::Nexusq => format!("to {count} recipient(s)"),
            Format::Age => format!("to {count} age recipient(s)"),
            Format::OpenPgp => format!("as an OpenPGP message to {count} key(s)"),
        };
        ctx.out.note(&format!(
            "encrypted {} bytes from {} {what}: {}",
            written.bytes,
            written.input_name,
            super::output::untrusted_path(out)
        ));
    }
    written.json(
        ctx,
        match format {
            Format::Nexusq => json!({
                "armor": args.armor,
                "suite": level.suite().name(),
                "recipients": summary,
            }),
            Format::Age => json!({
                "format": "age",
                "armor": args.armor,
                "recipients": count,
                "identities": summary,
            }),
            Format::OpenPgp => json!({
                "format": "openpgp",
                "armor": args.armor,
                "suite": "ML-KEM-768+X25519",
                "recipients": summary,
            }),
        },
    );
    Ok(())
}

/// What a `--to` value is, for the format rule: a file that starts like an OpenPGP
/// certificate or a contact holding one, an age key or age contact, else a nexusq identity.
fn kind_of(to: &To<'_>) -> RecipientKind {
    match &to.named {
        Named::AgeKey => RecipientKind::AgeKey,
        Named::File(path) if super::openpgp_cmd::is_cert_file(path) => RecipientKind::Certificate,
        Named::File(_) => RecipientKind::Identity { own: false },
        Named::Contact(c) => match c.key {
            ContactKey::Age(_) => RecipientKind::AgeKey,
            ContactKey::OpenPgp(_) => RecipientKind::Certificate,
            ContactKey::Identity(_) => RecipientKind::Identity { own: false },
        },
    }
}

/// stdin carries the data or one recipients file, not both.
fn check_recipients_files(args: &EncryptArgs) -> Result<()> {
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
    Ok(())
}

/// Read every recipient the options name, for a file of `format` (which every one fits):
/// exports and identity contacts through the library's `Recipients` (repeats collapsed,
/// forks refused, `--expect-fingerprint` checked both ways), age keys with what the book
/// knows of them, certificates, and the vault's own identity with `--to-self`. Returns them
/// with the `--to` value each certificate was named by, in order.
fn gather(
    ctx: &Context,
    args: &EncryptArgs,
    to: Vec<To<'_>>,
    format: Format,
    policy: &Policy,
    now: u64,
) -> Result<(Gathered, Vec<PathBuf>)> {
    let mut cert_values = Vec::new();
    let mut all = Recipients::new(peer::parse_fingerprints(&args.peer.expect_fingerprint)?);
    // An age1pq1 key that is one of a contact's certified keys is that contact, with what the
    // book knows about it (docs/contacts.md, "The book is the source of truth").
    let known = |pk: Vec<u8>, what: String| -> Result<(AgeRecipient, String)> {
        let (public_key, label) =
            recipients::known_age_key(ctx, &pk, now, policy.allow_expired)?.unwrap_or((pk, what));
        Ok((AgeRecipient { public_key }, label))
    };
    let mut age_keys = 0;
    for t in &to {
        match &t.named {
            Named::AgeKey => {
                let s = t.value.to_string_lossy();
                let pk = recipient::parse_recipient(&s)
                    .map_err(|e| super::age_cmd::key_error("--to recipient", &e))?;
                let (r, label) = known(pk, "an age1pq1 recipient".into())?;
                all.add_age(r, label);
                age_keys += 1;
            }
            Named::File(path) if format == Format::OpenPgp => {
                let source = super::output::untrusted_path(path);
                let cert = super::openpgp_cmd::read_cert(path, now)?;
                all.add_cert(CertRecipient { cert, source });
                cert_values.push(t.value.clone());
            }
            Named::Contact(c) if !matches!(c.key, ContactKey::Identity(_)) => {
                age_keys += usize::from(matches!(c.key, ContactKey::Age(_)));
                if matches!(c.key, ContactKey::OpenPgp(_)) {
                    cert_values.push(t.value.clone());
                }
                all.add_contact(c, now, ctx)?;
            }
            // A file (which may hold several concatenated exports: a team's keys in one
            // file), or a contact by name (docs/contacts.md); either way with what the book
            // knows applied.
            _ => {
                for resolved in recipients::identities_named(ctx, &t.value, &t.named)? {
                    all.add(resolved, ctx)?;
                }
            }
        }
    }
    for file in &args.recipients_file {
        let text = cio::read_text(file, "an age recipients file")?;
        let pks = recipient::parse_recipients_file(&text).map_err(|e| {
            super::age_cmd::key_error(&format!("{}, line {}:", file.display(), e.line), &e.error)
        })?;
        if pks.is_empty() {
            return Err(Error::usage(
                format!("{} holds no recipient", file.display()),
                "add one age1pq1… line per recipient",
            ));
        }
        for pk in pks {
            let (r, label) = known(pk, file.display().to_string())?;
            all.add_age(r, label);
            age_keys += 1;
        }
    }
    if age_keys > 0 && !args.peer.expect_fingerprint.is_empty() {
        return Err(Error::usage(
            "--expect-fingerprint cannot check an age1pq1 recipient: it carries no nexusq identity",
            "compare the age1pq1 line with its owner out of band, or encrypt to their nexusq export",
        ));
    }
    if args.to_self {
        let path = ctx.vault_path()?;
        let identity = nexusq_core::vault::open(&path)?.public;
        all.add_own(identity, &path, ctx.backend()?)?;
    }
    Ok((all.finish_all()?, cert_values))
}

/// Tell people whom the file is for, one line per recipient, and give `--json`'s rows.
fn announce(
    ctx: &Context,
    gathered: &Gathered,
    cert_values: &[PathBuf],
    encryptor: &Encryptor,
    now: u64,
) -> Vec<serde_json::Value> {
    let format = encryptor.format();
    let mut summary = Vec::new();
    let (age, certs) = (gathered.age.len(), gathered.certs.len());
    for (index, key) in encryptor.keys().iter().enumerate() {
        if index < age {
            continue;
        }
        if index < age + certs {
            let cert = &gathered.certs[index - age];
            let Key::OpenPgp { keys: found } = key else {
                continue;
            };
            let fp = keys::display(&cert.cert.fingerprint());
            let who = match cert.cert.user_id(now) {
                Some(uid) => format!("{} ({fp})", untrusted(&uid)),
                None => fp.clone(),
            };
            ctx.out.note(&format!(
                "encrypting to {who} with ML-KEM-768+X25519 ({} subkey(s)), from {}",
                found.len(),
                super::output::untrusted_path(&cert_values[index - age])
            ));
            summary.push(json!({
                "openpgp_fingerprint": cert.cert.fingerprint().to_hex(),
                "subkeys": found.iter().map(|k| k.fingerprint().to_hex()).collect::<Vec<_>>(),
                "identity": cert_values[index - age].display().to_string(),
            }));
            continue;
        }
        let p = &gathered.peers[index - age - certs];
        let fp = p.identity().root_id().fingerprint().to_string();
        match key {
            Key::OpenPgp { keys: own } => {
                let public = p.identity();
                ctx.out.note(&format!(
                    "encrypting to your own identity ({}), generation {}",
                    super::openpgp_cmd::fingerprint(public),
                    public.newest().generation
                ));
                summary.push(json!({
                    "openpgp_fingerprint": keys::fingerprint(public).to_hex(),
                    "subkeys": own.iter().map(|k| k.fingerprint().to_hex()).collect::<Vec<_>>(),
                    "own": true,
                }));
            }
            Key::Age { generation, .. } => {
                let generation = generation.unwrap_or(0);
                ctx.out.note(&recipients::recipient_line(
                    "encrypting",
                    &p.resolved,
                    generation,
                    "age mlkem768x25519",
                ));
                let mut row = json!({"fingerprint": fp, "generation": generation});
                recipients::json_into(&p.resolved, &mut row);
                summary.push(row);
            }
            Key::Nexusq {
                level,
                generation,
                not_after,
                ..
            } => {
                let expired = *not_after < now;
                if expired {
                    ctx.out.warn(&format!(
                        "generation {generation} of {fp} expired on {}; encrypting to it anyway \
                         (--allow-expired)",
                        nexusq_core::time::rfc3339(*not_after)
                    ));
                }
                ctx.out.note(&recipients::recipient_line(
                    "encrypting",
                    &p.resolved,
                    *generation,
                    level.suite().name(),
                ));
                let mut row = json!({
                    "fingerprint": fp,
                    "generation": generation,
                    "expired": expired,
                });
                recipients::json_into(&p.resolved, &mut row);
                summary.push(row);
            }
        }
    }
    if format == Format::OpenPgp {
        // Certificates as given first, then the own identity: the order they were named.
        let own = summary.iter().position(|r| r.get("own").is_some());
        if let Some(i) = own {
            let row = summary.remove(i);
            summary.push(row);
        }
    }
    summary
}

/// An encryption refused, in the command line's words: `to` names the values for a format
/// mix, `gathered` the recipients for a key or recipient error.
fn refused(e: EncryptError, to: &[To<'_>], gathered: Option<&Gathered>) -> Error {
    let label = |index: usize| gathered.map(|g| g.label(index)).unwrap_or_default();
    match e {
        EncryptError::Mixed { index, kind, .. } => {
            let t = &to[index];
            let shown = super::output::untrusted_path(&t.value);
            let what = match (&t.named, kind) {
                (Named::AgeKey, _) => format!("the age recipient {shown}"),
                (Named::Contact(c), _) => {
                    format!("contact {} (not an OpenPGP certificate)", c.name)
                }
                (_, _) => format!("{shown} (not an OpenPGP certificate)"),
            };
            Error::usage(
                format!("{what} cannot be a recipient of an OpenPGP message"),
                "encrypt OpenPGP certificates and nexusq exports (or age recipients) in separate \
                 runs; every --to of one run is the same format",
            )
        }
        EncryptError::Level(Format::OpenPgp) => Error::usage(
            "OpenPGP has no ML-KEM-1024 + X25519 algorithm (RFC 9980 pairs ML-KEM-1024 with X448)",
            "drop --suite: OpenPGP messages use ML-KEM-768 + X25519",
        ),
        EncryptError::Level(_) => Error::usage(
            "age files use ML-KEM-768 + X25519 (X-Wing) only",
            "drop --suite, or drop --age and the age recipients",
        ),
        EncryptError::NoRecipient(Format::OpenPgp) => Error::usage(
            "no recipient for the OpenPGP message",
            "name a certificate with --to CERT.asc, or pass --to-self",
        ),
        EncryptError::Key { index, error } => {
            let is_peer = gathered.is_some_and(|g| index >= g.age.len() + g.certs.len());
            if is_peer {
                Error::from(error.context(label(index)))
            } else {
                Error::from(error)
            }
        }
        EncryptError::InvalidRecipient { index, error } => {
            let is_age = gathered.is_some_and(|g| index < g.age.len());
            if is_age {
                Error::check(
                    format!("recipient from {}: {error}", label(index)),
                    "the recipient is unusable; ask its owner for a fresh one",
                )
            } else {
                Error::check(
                    format!("{}: {error}", label(index)),
                    "the export is unusable; ask its owner for a fresh one",
                )
            }
        }
        other => Error::from(nexusq_core::Error::from(other)),
    }
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
        Some(key) => decryptor.decrypt(key, ctx, &policy, nexusq_core::time::now()),
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

//! `nexusq sign` and `nexusq verify`: detached ML-DSA-65 + Ed25519 signatures, full or compact,
//! of one input, of many files with one unlock, or of a `sha256sum` manifest, streaming the
//! data through SHA-512 (docs/signature-format.md).

use super::args::{SignArgs, VerifyArgs};
use super::error::{Error, Exit, Result};
use super::io::{create_output, input_name, is_stdio, open_input, read_small};
use super::output::untrusted_path;
use super::{Context, pipeline};
use nexusq_core::fs::Access;
use nexusq_core::identity::Fingerprint;
use nexusq_core::identity::signature::{self, Signature};
use nexusq_core::identity::{PublicIdentity, peer};
use nexusq_core::manifest;
use nexusq_core::session::KeySource;
use nexusq_core::suite::Backend;
use nexusq_core::verifier::{self, MissingGeneration, Origin};
use nexusq_core::{Policy, Signer, Verifier};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

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

fn hash_file(path: &Path) -> Result<[u8; 64]> {
    hash_input(Some(path), open_input(Some(path))?)
}

/// Before any input is read: the signing key of this vault, for every input of the command
/// (a missing or damaged vault is said first, exit 4). Without an agent to serve it, the
/// password source must be usable (`stdin_is_data`: the data comes on stdin, so the password
/// cannot).
fn key_source(ctx: &Context, no_agent: bool, stdin_is_data: bool, what: &str) -> Result<KeySource> {
    let key = ctx.key_source(no_agent)?;
    if !key.has_agent() {
        ctx.check_password_source(stdin_is_data, what)?;
    }
    Ok(key)
}

/// What signing allows: a revoked identity signs only with `--force`.
fn policy(force: bool) -> Policy {
    Policy {
        allow_revoked: force,
        ..Policy::default()
    }
}

/// Sign the data whose SHA-512 is `digest`, now: full, or compact.
fn sign_digest(
    ctx: &Context,
    key: &mut KeySource,
    digest: &[u8; 64],
    compact: bool,
    policy: &Policy,
) -> Result<Signature> {
    Ok(Signer::new(key, policy.clone())
        .compact(compact)
        .sign_digest(digest, nexusq_core::time::now(), ctx)?)
}

/// `DIR/<name>.sig`, or `FILE.sig` beside FILE.
fn sig_path_for(file: &Path, dir: Option<&Path>) -> Result<PathBuf> {
    let name = file.file_name().ok_or_else(|| {
        Error::usage(
            format!("{} names no file", untrusted_path(file)),
            "pass the files themselves, not folders or `..`",
        )
    })?;
    let mut sig_name = name.to_os_string();
    sig_name.push(".sig");
    Ok(match dir {
        Some(d) => d.join(sig_name),
        None => file.with_file_name(sig_name),
    })
}

fn write_signature(path: &Path, text: &str) -> Result<()> {
    let mut out = create_output(Some(path), false, Access::Public)?;
    out.write_all(text.as_bytes())
        .map_err(|e| Error::io_at("write", path, &e))?;
    out.commit()
}

pub fn sign(ctx: &Context, args: &SignArgs) -> Result<()> {
    if args.openpgp {
        return super::openpgp_cmd::sign(ctx, args);
    }
    if let Some(m) = &args.manifest {
        return sign_manifest(ctx, args, m);
    }
    match args.inputs.as_slice() {
        // One rule for any number of files at a terminal: FILE.sig beside each.
        [one] if pipeline::unasked_terminal_output(ctx, args.output.as_deref(), Some(one))? => {
            sign_files(ctx, args, std::slice::from_ref(one))
        }
        [] if args.output_dir.is_none() => {
            pipeline::unasked_terminal_output(ctx, args.output.as_deref(), None)?;
            sign_one(ctx, args, None)
        }
        [one] if args.output_dir.is_none() => sign_one(ctx, args, Some(one)),
        many => sign_files(ctx, args, many),
    }
}

/// One input (a file or stdin) to `-o SIG` or stdout, as before many files existed.
fn sign_one(ctx: &Context, args: &SignArgs, input: Option<&PathBuf>) -> Result<()> {
    let input = input.map(PathBuf::as_path);
    let mut key = key_source(ctx, args.no_agent, is_stdio(input), "the data to sign")?;
    // Open the data first, so a missing FILE fails before the password is asked for.
    let reader = open_input(input)?;
    key.may_sign(&policy(args.force))?;
    let digest = hash_input(input, reader)?;
    let sig = sign_digest(ctx, &mut key, &digest, args.compact, &policy(args.force))?;
    drop(key);
    let text = sig.to_armor();
    let fp = sig.root_id().fingerprint().to_string();
    let generation = sig.generation();
    let signed_at = sig.signed_at();
    let output = args.output.as_deref().filter(|p| *p != Path::new("-"));
    match output {
        Some(path) => {
            write_signature(path, &text)?;
            let mut j = json!({
                "fingerprint": fp,
                "generation": generation,
                "signed_at": nexusq_core::time::rfc3339(signed_at),
                "compact": args.compact,
                "output": path.display().to_string(),
            });
            super::output::path_bytes(&mut j, &[("output", path)]);
            ctx.out.json(&j);
            ctx.out.note(&format!(
                "signed {} as {fp}, generation {generation}; signature written to {}",
                untrusted_path(Path::new(&input_name(input))),
                untrusted_path(path)
            ));
        }
        None if ctx.global.json => ctx.out.json(&json!({
            "fingerprint": fp,
            "generation": generation,
            "signed_at": nexusq_core::time::rfc3339(signed_at),
            "compact": args.compact,
            "output": "-",
            "armor": true,
            "signature": text,
        })),
        None => {
            let mut out = create_output(None, false, Access::Public)?;
            out.write_all(text.as_bytes()).map_err(|e| {
                Error::io(
                    format!("cannot write the signature to stdout: {e}"),
                    "check where the output goes, or pass -o SIG",
                )
            })?;
            out.commit()?;
        }
    }
    Ok(())
}

/// Several files (or one with --output-dir): FILE.sig for each, one unlock for all.
fn sign_files(ctx: &Context, args: &SignArgs, files: &[PathBuf]) -> Result<()> {
    if args.output.is_some() {
        return Err(Error::usage(
            "-o names one signature, but several files are to be signed",
            "drop -o: each FILE gets FILE.sig beside it, or DIR/FILE.sig with --output-dir DIR",
        ));
    }
    if files.iter().any(|f| is_stdio(Some(f))) {
        return Err(Error::usage(
            "stdin (`-`) cannot be one of several files to sign",
            "sign stdin on its own: `nexusq sign -o SIG < data`",
        ));
    }
    // Every name and output is checked before the password is asked for.
    let mut targets: Vec<PathBuf> = Vec::with_capacity(files.len());
    for f in files {
        let meta = std::fs::metadata(f).map_err(|e| Error::io_at("read", f, &e))?;
        if meta.is_dir() {
            return Err(Error::usage(
                format!("{} is a folder", untrusted_path(f)),
                "pass the files in it",
            ));
        }
        let target = sig_path_for(f, args.output_dir.as_deref())?;
        if targets.contains(&target) {
            return Err(Error::usage(
                format!(
                    "two files would both get the signature {}",
                    untrusted_path(&target)
                ),
                "sign files with the same name into different --output-dir folders",
            ));
        }
        targets.push(target);
    }
    if let Some(d) = &args.output_dir
        && !d.is_dir()
    {
        return Err(Error::usage(
            format!("--output-dir {} is not a folder", untrusted_path(d)),
            "create it first (mkdir), or pass an existing folder",
        ));
    }
    let mut key = key_source(ctx, args.no_agent, false, "the files to sign")?;
    key.may_sign(&policy(args.force))?;
    let mut done = Vec::new();
    let mut last = None;
    for (file, target) in files.iter().zip(&targets) {
        let sig = sign_digest(
            ctx,
            &mut key,
            &hash_file(file)?,
            args.compact,
            &policy(args.force),
        )?;
        write_signature(target, &sig.to_armor())?;
        ctx.out.note(&format!(
            "signed {} -> {}",
            untrusted_path(file),
            untrusted_path(target)
        ));
        let mut row = json!({
            "input": file.display().to_string(),
            "output": target.display().to_string(),
            "signed_at": nexusq_core::time::rfc3339(sig.signed_at()),
        });
        super::output::path_bytes(&mut row, &[("input", file), ("output", target)]);
        done.push(row);
        last = Some(sig);
    }
    drop(key);
    let sig = last.expect("at least one file");
    let fp = sig.root_id().fingerprint().to_string();
    ctx.out.note(&format!(
        "{} signed as {fp}, generation {}",
        files_count(done.len()),
        sig.generation()
    ));
    ctx.out.json(&json!({
        "fingerprint": fp,
        "generation": sig.generation(),
        "compact": args.compact,
        "files": done,
    }));
    Ok(())
}

/// "1 file", "2 files".
fn files_count(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

/// A manifest read from `path` refused: exit 1 naming the line.
fn manifest_error(path: &Path, e: manifest::ManifestError) -> Error {
    Error::check(
        format!(
            "{} is not a sha256sum manifest: line {}: {}",
            untrusted_path(path),
            e.line,
            e.why
        ),
        "make it with `sha256sum FILE... > SHA256SUMS` in the folder of the files",
    )
}

/// Check the whole manifest read from `path` before any listed file is read (a defect is exit
/// 1 naming the line); the number of files it lists.
fn parse_manifest(path: &Path, text: &[u8]) -> Result<usize> {
    manifest::validate(text).map_err(|e| manifest_error(path, e))
}

/// Check each listed file in turn (missing, unreadable, not a regular file, through a link
/// out of the manifest's folder, another hash) and hand it to `each` with its problem, if
/// any, at once: nothing is kept (docs/robustness.md).
fn check_manifest_files(
    path: &Path,
    text: &[u8],
    mut each: impl FnMut(&Path, Option<Error>),
) -> Result<()> {
    let folder =
        manifest::Folder::of(path).map_err(|e| Error::io_at("open the folder of", path, &e))?;
    for entry in manifest::entries(text) {
        let entry = entry.map_err(|e| manifest_error(path, e))?;
        let file = manifest::path_of(path, &entry);
        let problem = folder.check(&entry).err().map(|p| match p {
            manifest::FileProblem::Open(nexusq_core::fs::input::OpenError::Io(e))
            | manifest::FileProblem::Read(e) => Error::io_at("read", &file, &e),
            manifest::FileProblem::Open(refused) => Error::check(
                format!("{}: {refused}: refused", untrusted_path(&file)),
                "a manifest lists regular files inside its own folder; check what is at that \
                 path (a link must stay inside the folder)",
            ),
            manifest::FileProblem::Modified => Error::check(
                format!(
                    "{}: its SHA-256 is not the one the manifest lists (modified)",
                    untrusted_path(&file)
                ),
                "do not use this file; get it again from its source",
            ),
        });
        each(&file, problem);
    }
    Ok(())
}

/// What checking a manifest's files found, in memory that does not grow with the failures:
/// counts, the first failure and a few names for the summary, and (under --json) the rows as
/// JSON text.
struct ManifestTally {
    total: usize,
    failed: usize,
    /// The first failure.
    first: Option<(String, Error)>,
    /// The exit of the first failure that is not a failed check (a missing file is exit 5).
    other_exit: Option<Exit>,
    /// The names of the first [`ManifestTally::NAMES`] failures.
    names: Vec<String>,
    /// `[{"file": …, "ok": …, "error": …}, …]` without its closing `]`; None without --json.
    rows: Option<String>,
}

impl ManifestTally {
    const NAMES: usize = 10;

    fn new(json: bool) -> Self {
        ManifestTally {
            total: 0,
            failed: 0,
            first: None,
            other_exit: None,
            names: Vec::new(),
            rows: json.then(|| String::from("[")),
        }
    }

    fn add(&mut self, file: &Path, problem: Option<Error>) {
        self.total += 1;
        if let Some(rows) = &mut self.rows {
            let mut row = json!({"file": file.display().to_string(), "ok": problem.is_none()});
            if let Some(e) = &problem {
                row["error"] = json!(e.message());
            }
            super::output::path_bytes(&mut row, &[("file", file)]);
            if rows.len() > 1 {
                rows.push(',');
            }
            rows.push_str(&row.to_string());
        }
        let Some(e) = problem else { return };
        self.failed += 1;
        let shown = untrusted_path(file);
        if e.exit() != Exit::CheckFailed {
            self.other_exit.get_or_insert(e.exit());
        }
        if self.names.len() < Self::NAMES {
            self.names.push(shown.clone());
        }
        if self.first.is_none() {
            self.first = Some((shown, e));
        }
    }

    /// The rows as one JSON text field (`files`), if kept.
    fn rows(&mut self) -> Vec<(String, String)> {
        match self.rows.take() {
            Some(mut rows) => {
                rows.push(']');
                vec![("files".into(), rows)]
            }
            None => Vec::new(),
        }
    }
}

/// `sign --manifest SHA256SUMS`: refuse a manifest that does not match its files, then sign
/// it to SHA256SUMS.sig (or -o, or --output-dir).
fn sign_manifest(ctx: &Context, args: &SignArgs, path: &Path) -> Result<()> {
    let text = read_small(path, "a manifest")?;
    let count = parse_manifest(path, &text)?;
    let mut tally = ManifestTally::new(ctx.global.json);
    check_manifest_files(path, &text, |file, problem| {
        if let Some(e) = &problem {
            // One line each on stderr; under --json they join the one error object below.
            ctx.out.note(&format!("FAILED: {}", e.message()));
        }
        tally.add(file, problem);
    })?;
    if let Some((_, first)) = &tally.first {
        let mut err = Error::check(
            format!(
                "{} of the {} files in {} do not match it (first: {})",
                tally.failed,
                count,
                untrusted_path(path),
                first.message()
            ),
            "regenerate the manifest with sha256sum, then sign it",
        );
        for (k, rows) in tally.rows() {
            err = err.with_json_text(&k, rows);
        }
        return Err(err);
    }
    drop(tally);
    let target = match (&args.output, &args.output_dir) {
        (Some(o), _) => o.clone(),
        (None, dir) => sig_path_for(path, dir.as_deref())?,
    };
    let mut key = key_source(ctx, args.no_agent, false, "the manifest")?;
    key.may_sign(&policy(args.force))?;
    let sig = sign_digest(
        ctx,
        &mut key,
        &signature::digest(&text),
        args.compact,
        &policy(args.force),
    )?;
    drop(key);
    write_signature(&target, &sig.to_armor())?;
    let fp = sig.root_id().fingerprint().to_string();
    ctx.out.note(&format!(
        "checked {} and signed {} as {fp}, generation {}; signature written to {}",
        files_count(count),
        untrusted_path(path),
        sig.generation(),
        untrusted_path(&target)
    ));
    let mut j = json!({
        "fingerprint": fp,
        "generation": sig.generation(),
        "signed_at": nexusq_core::time::rfc3339(sig.signed_at()),
        "compact": args.compact,
        "manifest": path.display().to_string(),
        "file_count": count,
        "output": target.display().to_string(),
    });
    super::output::path_bytes(&mut j, &[("manifest", path), ("output", &target)]);
    ctx.out.json(&j);
    Ok(())
}

/// The vault's own public identity, its root signatures checked (no password).
pub fn own_identity(path: &Path, backend: &dyn Backend) -> Result<PublicIdentity> {
    verifier::own_identity(path, backend).map_err(|e| {
        if path.exists() {
            return Error::from(e);
        }
        Error::from(e.reworded_hint(
            "pass the signer's export with --identity FILE (or --expect-fingerprint FP), or \
             point --vault at your vault",
        ))
    })
}

/// The identity a signature is checked against (`nexusq_core::Verifier` chose it), and how
/// people are told where it came from.
#[derive(Clone)]
pub struct Trusted {
    trusted: nexusq_core::Trusted,
    /// For people: "this vault's own, PATH", "contact alice", "from file x.asc", ...
    said: String,
}

impl Trusted {
    /// As the verifier found it: this vault's own identity or a contact.
    fn found(trusted: nexusq_core::Trusted) -> Trusted {
        let said = match (&trusted.origin, &trusted.contact) {
            (Origin::Vault(path), _) => format!("this vault's own, {}", untrusted_path(path)),
            (_, Some(c)) => c.label(),
            _ => String::new(),
        };
        Trusted { trusted, said }
    }

    fn announce(&self, ctx: &Context) {
        ctx.out.note(&format!(
            "verifying with identity {} ({})",
            self.trusted.fingerprint(),
            self.said
        ));
    }
}

/// What `verify` trusts: an identity it was given (`--identity`), one chosen by
/// `--expect-fingerprint` alone, or, with neither, the one the signature names when that is
/// this vault's own or a contact's (docs/contacts.md, "The book is the source of truth").
enum TrustChoice {
    Fixed(Trusted),
    BySigner,
}

fn trust_choice(ctx: &Context, args: &VerifyArgs, backend: &dyn Backend) -> Result<TrustChoice> {
    let expected = match &args.expect_fingerprint {
        Some(fp) => Some(peer::parse_fingerprints(std::slice::from_ref(fp))?[0]),
        None => None,
    };
    let trusted = match (&args.identity, expected) {
        (Some(value), _) => {
            let resolved = super::recipients::read_identity(ctx, value)?;
            let said = format!("from {}", resolved.source());
            let origin = match &resolved.file {
                Some(file) => Origin::File(file.clone()),
                None => Origin::Contact,
            };
            let trusted = nexusq_core::Trusted::identity(
                resolved.identity,
                expected,
                resolved.contact,
                origin,
            );
            Trusted { trusted, said }
        }
        (None, Some(fp)) => match known_by_fingerprint(ctx, &fp, backend)? {
            Some(trusted) => {
                let mut known = Trusted::found(trusted);
                known.said.push_str(", which --expect-fingerprint names");
                known
            }
            None => Trusted {
                trusted: nexusq_core::Trusted::fingerprint_only(fp),
                said: "carried by the signature, accepted because it matches \
                       --expect-fingerprint"
                    .into(),
            },
        },
        (None, None) => return Ok(TrustChoice::BySigner),
    };
    trusted.announce(ctx);
    Ok(TrustChoice::Fixed(trusted))
}

/// This vault's identity, or a contact's, when its fingerprint is `fp`: then what the vault or
/// the book knows (revocations, newer generations) applies to `--expect-fingerprint` too. The
/// book is read only when the vault's own identity is not the one.
fn known_by_fingerprint(
    ctx: &Context,
    fp: &Fingerprint,
    backend: &dyn Backend,
) -> Result<Option<nexusq_core::Trusted>> {
    let path = ctx.vault_path()?;
    if !path.exists() {
        return Ok(None);
    }
    let verifier = Verifier::new().with_own(own_identity(&path, backend)?, &path);
    if let Some(own) = verifier.by_fingerprint(fp) {
        return Ok(Some(own));
    }
    Ok(verifier.with_book(&ctx.book()?.book).by_fingerprint(fp))
}

/// Without `--identity` or `--expect-fingerprint`: the identity the signature names, if it is
/// this vault's own or a contact's; anyone else's signature cannot be checked here.
fn signer_trust(ctx: &Context, sig: &Signature, backend: &dyn Backend) -> Result<Trusted> {
    let path = ctx.vault_path()?;
    let mut verifier = Verifier::new().with_own(own_identity(&path, backend)?, &path);
    if verifier.known(&sig.root_id()).is_none() {
        verifier = verifier.with_book(&ctx.book()?.book);
    }
    match verifier.signer_of(sig) {
        Ok(trusted) => Ok(Trusted::found(trusted)),
        Err(unknown) => Err(Error::check(
            unknown.to_string(),
            "if you trust that identity, add it after comparing its fingerprint with its owner \
             (`nexusq contacts add NAME THEIR-EXPORT.asc`), or pass its export with --identity \
             FILE",
        )),
    }
}

impl TrustChoice {
    /// The identity to check `sig` against. `said` remembers the last one announced, so each
    /// new one is said once.
    fn for_signature<'a>(
        &'a self,
        ctx: &Context,
        sig: &Signature,
        backend: &dyn Backend,
        said: &mut Option<Fingerprint>,
    ) -> Result<std::borrow::Cow<'a, Trusted>> {
        match self {
            TrustChoice::Fixed(t) => Ok(std::borrow::Cow::Borrowed(t)),
            TrustChoice::BySigner => {
                let t = signer_trust(ctx, sig, backend)?;
                let fp = t.trusted.fingerprint();
                if *said != Some(fp) {
                    t.announce(ctx);
                    *said = Some(fp);
                }
                Ok(std::borrow::Cow::Owned(t))
            }
        }
    }
}

/// The signature at `path`: named on the command line (`--sig`, which may be a pipe), or found
/// beside the file it signs (`FILE.sig`, a regular file only, never waited on).
fn read_signature(path: &Path, named: bool) -> Result<Signature> {
    let bytes = if named {
        read_small(path, "a signature")?
    } else {
        super::io::read_small_beside(path, "a signature")?
    };
    Ok(Signature::parse(&bytes, &untrusted_path(path))?)
}

pub fn verify(ctx: &Context, args: &VerifyArgs) -> Result<()> {
    if args.manifest.is_some() {
        return verify_manifest(ctx, args);
    }
    if args.sig.is_none() {
        return verify_files(ctx, args);
    }
    // A failed check is `{"valid": false, "error": {...}}` under --json (docs/cli.md).
    verify_one(ctx, args).map_err(|e| {
        if e.exit() == Exit::CheckFailed {
            e.with_json("valid", json!(false))
        } else {
            e
        }
    })
}

/// What a good signature says, for people: the contact's name beside the fingerprint where
/// the book knows the signer, and whether that contact is verified.
fn good_line(ok: &signature::Verified, trusted: &Trusted) -> String {
    let mut line = format!(
        "good signature from {}, signed at {} (claimed)",
        nexusq_core::recipients::who(&ok.root_id, ok.generation, trusted.trusted.contact.as_ref()),
        nexusq_core::time::rfc3339(ok.signed_at)
    );
    if ok.superseded {
        line.push_str(&format!(
            "; superseded: generation {} is newer",
            ok.newest_known
        ));
    }
    line
}

fn verified_json(ok: &signature::Verified, trusted: &Trusted) -> serde_json::Map<String, Value> {
    let v = json!({
        "valid": true,
        "fingerprint": ok.fingerprint().to_string(),
        "generation": ok.generation,
        "signed_at": nexusq_core::time::rfc3339(ok.signed_at),
        "signed_at_claimed": true,
        "superseded": ok.superseded,
        "newest_generation": ok.newest_known,
        "not_after": nexusq_core::time::rfc3339(ok.not_after),
        "expired": ok.not_after < nexusq_core::time::now(),
        "contact": trusted.trusted.contact.as_ref().map(|c| c.name.clone()),
        "contact_verified": trusted.trusted.contact.as_ref().map(|c| c.verified),
        "trusted_from": trusted.trusted.origin.name(),
    });
    match v {
        Value::Object(m) => m,
        _ => unreachable!("json! of an object"),
    }
}

/// Verify one signature over one input, the cheap refusals before the data is read.
fn check_one(
    ctx: &Context,
    backend: &dyn Backend,
    trusted: &Trusted,
    sig: &Signature,
    input: Option<&Path>,
) -> Result<signature::Verified> {
    precheck(trusted, sig)?;
    let reader = open_input(input)?;
    let digest = hash_input(input, reader)?;
    let checked = trusted.trusted.verify_digest(backend, sig, &digest)?;
    if let (true, Some(c)) = (checked.newer_than_book, &trusted.trusted.contact) {
        ctx.out.note(&format!(
            "{} signed with generation {}, newer than the contacts book knows; `nexusq contacts \
             update {} FILE` with their newest export records it",
            c.name, checked.verified.generation, c.name
        ));
    }
    Ok(checked.verified)
}

/// The refusals that need no data, in the command line's words.
fn precheck(trusted: &Trusted, sig: &Signature) -> Result<()> {
    if let Some(missing) = trusted.trusted.missing_generation(sig) {
        return Err(missing_generation(&missing));
    }
    Ok(trusted.trusted.precheck(sig)?)
}

/// A compact signature by a generation of a contact that the book does not hold: the way out
/// is `contacts update` (the book is where the contact's certificates live), not `--identity`.
fn missing_generation(missing: &MissingGeneration) -> Error {
    let name = &missing.contact;
    Error::check(
        missing.to_string(),
        if missing.is_newer() {
            format!(
                "{name} has rotated since the book last heard: get their newest export (`nexusq \
                 identity export`) and run `nexusq contacts update {name} FILE`"
            )
        } else {
            format!(
                "get an export of {name} that holds the older generations (`nexusq identity \
                 export --full-history`) and run `nexusq contacts update {name} FILE`"
            )
        },
    )
}

/// `verify [FILE|-] --sig SIG`: one input, one signature.
fn verify_one(ctx: &Context, args: &VerifyArgs) -> Result<()> {
    let backend = ctx.backend()?;
    let input = match args.inputs.as_slice() {
        [] => None,
        [one] => Some(one.as_path()),
        _ => {
            return Err(Error::usage(
                "--sig names one signature, but several files were given",
                "drop --sig: each FILE is then checked against FILE.sig",
            ));
        }
    };
    // The signature first: a defective one fails before anything else is read.
    let sig_path = args.sig.as_deref().expect("--sig given");
    let sig_bytes = read_small(sig_path, "a signature")?;
    if nexusq_core::format::openpgp::looks_like_signature(&sig_bytes) {
        return super::openpgp_cmd::verify(
            ctx,
            input,
            &sig_bytes,
            &untrusted_path(sig_path),
            args.identity.as_deref(),
        );
    }
    let sig = Signature::parse(&sig_bytes, &untrusted_path(sig_path))?;
    let choice = trust_choice(ctx, args, backend)?;
    let trusted = choice.for_signature(ctx, &sig, backend, &mut None)?;
    let ok = check_one(ctx, backend, &trusted, &sig, input)?;
    let mut obj = verified_json(&ok, &trusted);
    obj.insert("input".into(), input_name(input).into());
    ctx.out.json(&Value::Object(obj));
    ctx.out.data(&good_line(&ok, &trusted));
    if ok.not_after < nexusq_core::time::now() {
        ctx.out.note(&format!(
            "note: the certificate of generation {} expired on {} (signatures stay valid)",
            ok.generation,
            nexusq_core::time::rfc3339(ok.not_after)
        ));
    }
    Ok(())
}

/// `verify FILE...`: each FILE against FILE.sig (or DIR/FILE.sig), each reported; exit 1 when
/// any is not good. Without `--identity`, each signature is checked against the identity it
/// names when that is this vault's or a contact's.
fn verify_files(ctx: &Context, args: &VerifyArgs) -> Result<()> {
    let backend = ctx.backend()?;
    if args.inputs.is_empty() || args.inputs.iter().any(|f| is_stdio(Some(f))) {
        return Err(Error::usage(
            "nothing to verify: stdin needs its signature named with --sig",
            "pass `--sig SIG` for stdin, or the files themselves (each FILE with its FILE.sig)",
        ));
    }
    let choice = trust_choice(ctx, args, backend)?;
    let mut said = None;
    let mut reports = Vec::new();
    let mut failed: Vec<(String, Error)> = Vec::new();
    for file in &args.inputs {
        let shown = untrusted_path(file);
        // The data file first: when it is missing, its signature is not what is wrong. The
        // reasons leave out the file's name, which the report puts in front of them.
        let result = missing_data(file).and_then(|()| {
            let sig_path = sig_path_for(file, args.sig_dir.as_deref())?;
            if !sig_path.exists() && std::fs::symlink_metadata(&sig_path).is_err() {
                return Err(Error::check(
                    format!("no signature {} beside it", untrusted_path(&sig_path)),
                    "ask the signer for it, or name it with --sig SIG (one file) or --sig-dir DIR",
                ));
            }
            let sig = read_signature(&sig_path, false)?;
            let trusted = choice.for_signature(ctx, &sig, backend, &mut said)?;
            let ok = check_one(ctx, backend, &trusted, &sig, Some(file.as_path()))?;
            Ok((ok, trusted.into_owned()))
        });
        match result {
            Ok((ok, trusted)) => {
                ctx.out
                    .data(&format!("{shown}: {}", good_line(&ok, &trusted)));
                let mut obj = verified_json(&ok, &trusted);
                obj.insert("input".into(), file.display().to_string().into());
                let mut row = Value::Object(obj);
                super::output::path_bytes(&mut row, &[("input", file)]);
                reports.push(row);
            }
            Err(e) => {
                // One file: the error below says it all.
                if args.inputs.len() > 1 {
                    ctx.out.note(&format!("{shown}: FAILED: {}", e.message()));
                }
                let mut row = json!({
                    "input": file.display().to_string(),
                    "valid": false,
                    "error": e.message(),
                });
                super::output::path_bytes(&mut row, &[("input", file)]);
                reports.push(row);
                failed.push((shown, e));
            }
        }
    }
    let mut obj = serde_json::Map::new();
    obj.insert("valid".into(), failed.is_empty().into());
    obj.insert("files".into(), reports.into());
    summarize(ctx, obj, failed, args.inputs.len(), "files")
}

/// A data file that is not there: a missing input (exit 5, docs/cli.md "Inputs"), said
/// without its name.
fn missing_data(file: &Path) -> Result<()> {
    match std::fs::symlink_metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(nexusq_core::error::Error::io(
            "there is no such file",
            "check the path, or give the folder the files are in",
        )
        .caused_by(e.kind())
        .into()),
        _ => Ok(()),
    }
}

/// Nothing failed: `report` on stdout (--json), Ok. Else one error naming the failures, with
/// `report`'s fields beside its "error" (one JSON object either way): exit 1 when every
/// failure is a failed check, else the exit of the first other failure (a missing data file
/// is exit 5).
fn summarize(
    ctx: &Context,
    report: serde_json::Map<String, Value>,
    failed: Vec<(String, Error)>,
    total: usize,
    what: &str,
) -> Result<()> {
    let Some((first_name, first)) = failed.first() else {
        ctx.out.json(&Value::Object(report));
        return Ok(());
    };
    let exit = failed
        .iter()
        .map(|(_, e)| e.exit())
        .find(|x| *x != Exit::CheckFailed)
        .unwrap_or(Exit::CheckFailed);
    let names: Vec<&str> = failed.iter().map(|(n, _)| n.as_str()).collect();
    let message = if failed.len() == 1 {
        format!("{first_name} did not verify: {}", first.message())
    } else {
        format!(
            "{} of {total} {what} did not verify: {}",
            failed.len(),
            names.join(", ")
        )
    };
    let mut err = Error::new(exit, message, first.hint().to_string());
    for (k, v) in report {
        err = err.with_json(&k, v);
    }
    Err(err)
}

/// `verify --manifest SHA256SUMS`: its signature (SHA256SUMS.sig or --sig), then every listed
/// file's SHA-256, each reported as it is checked. Exit 1 when every failure is a failed
/// check, else the exit of the first other failure (a missing file is exit 5).
fn verify_manifest(ctx: &Context, args: &VerifyArgs) -> Result<()> {
    let backend = ctx.backend()?;
    let path = args.manifest.as_deref().expect("--manifest given");
    let sig_path = match &args.sig {
        Some(s) => s.clone(),
        None => sig_path_for(path, None)?,
    };
    let sig = read_signature(&sig_path, args.sig.is_some())?;
    let choice = trust_choice(ctx, args, backend)?;
    let trusted = choice.for_signature(ctx, &sig, backend, &mut None)?;
    precheck(&trusted, &sig)?;
    // The bytes that are verified are the bytes that are parsed.
    let text = read_small(path, "a manifest")?;
    let ok = match trusted
        .trusted
        .verify_digest(backend, &sig, &signature::digest(&text))
    {
        Ok(checked) => checked.verified,
        Err(e) => return Err(Error::from(e).with_json("valid", json!(false))),
    };
    let count = parse_manifest(path, &text)?;
    ctx.out.data(&format!(
        "{}: {}",
        untrusted_path(path),
        good_line(&ok, &trusted)
    ));
    let mut tally = ManifestTally::new(ctx.global.json);
    check_manifest_files(path, &text, |file, problem| {
        let shown = untrusted_path(file);
        match &problem {
            None => ctx.out.data(&format!("{shown}: OK")),
            Some(e) => ctx.out.note(&format!("{shown}: FAILED: {}", e.message())),
        }
        tally.add(file, problem);
    })?;
    let mut obj = verified_json(&ok, &trusted);
    obj.insert("valid".into(), (tally.failed == 0).into());
    obj.insert("manifest".into(), path.display().to_string().into());
    super::output::path_bytes_in(&mut obj, &[("manifest", path)]);
    let rows = tally.rows();
    let Some((first_name, first)) = tally.first else {
        ctx.out.json_with_text(&obj, &rows);
        return Ok(());
    };
    let message = if tally.failed == 1 {
        format!("{first_name} did not verify: {}", first.message())
    } else {
        let more = tally.failed - tally.names.len();
        format!(
            "{} of {count} listed files did not verify: {}{}",
            tally.failed,
            tally.names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    };
    let exit = tally.other_exit.unwrap_or(Exit::CheckFailed);
    let mut err = Error::new(exit, message, first.hint().to_string());
    for (k, v) in obj {
        err = err.with_json(&k, v);
    }
    for (k, text) in rows {
        err = err.with_json_text(&k, text);
    }
    Err(err)
}

//! Files and streams for the commands: bounded reads of small inputs, FILE-or-stdin inputs,
//! and `-o` outputs (through `nexusq_core::fs`: a file appears only when complete; devices, FIFOs
//! and `/dev/stdout` are written into directly; a vault is never overwritten).

use super::error::{Error, Result};
use nexusq_core::format::age::{Identity, recipient};
use nexusq_core::fs::Access;
use nexusq_core::fs::input::{Kind, OpenError};
use nexusq_core::fs::output::{self, OutputFile, OutputKind};
use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// Largest export, signature or envelope nexusq reads (they are tens of KiB).
pub const SMALL_FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// Refuse an output that is already there (a file, a link, anything), before anything is
/// asked: files nexusq creates new are never overwritten. `hint` says what to do instead.
pub fn refuse_existing(path: &Path, hint: &str) -> Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(Error::usage(
            format!(
                "{} already exists; it was left untouched",
                nexusq_core::untrusted::path(path)
            ),
            hint,
        ));
    }
    Ok(())
}

/// Read a small input (an export, signature, envelope, statement) whole: FILE, or stdin for
/// `-`. Every option that reads one comes here, so each kind of problem gets one exit code and
/// one wording whatever the option (docs/cli.md): missing or unreadable, a socket or a block
/// device, exit 5; a folder, exit 2; empty or larger than `SMALL_FILE_LIMIT`, exit 1 (not
/// `what`). A pipe or a character device is read as `cat` reads it (`--to <(curl …)`); a pipe
/// read earlier to tell its format ([`peek_small`]) gives the bytes read then. The caller adds
/// the "wrong kind" check (exit 1) when it decodes the bytes.
pub fn read_small(path: &Path, what: &str) -> Result<Vec<u8>> {
    let name = if path == Path::new("-") {
        "stdin".to_string()
    } else {
        nexusq_core::untrusted::path(path)
    };
    let read = match take_peeked(path) {
        Some(kept) => kept,
        None if path == Path::new("-") => {
            take_stdin(what)?;
            read_capped(std::io::stdin().lock(), path, what)?
        }
        None => read_capped(open_small(path, what)?, path, what)?,
    };
    whole(read, &name, what)
}

/// What was read, refused (exit 1) when there was too much (`None`) or nothing.
fn whole(read: Option<Vec<u8>>, name: &str, what: &str) -> Result<Vec<u8>> {
    match read {
        Some(bytes) if !bytes.is_empty() => Ok(bytes),
        Some(_) => Err(Error::check(
            format!("{name} is empty, not {what}"),
            "check that you passed the right file, and that it was copied whole",
        )),
        None => Err(Error::check(
            format!("{name} is too large to be {what}"),
            "check that you passed the right file",
        )),
    }
}

/// [`read_small`] of a file nexusq found rather than one the user named (`FILE.sig` beside
/// `FILE`): a regular file only, refused at once when it is a pipe or device, never waited on.
pub fn read_small_beside(path: &Path, what: &str) -> Result<Vec<u8>> {
    let file = nexusq_core::fs::input::open_regular(path)
        .map_err(|e| Error::from(e.reading(path, what)))?;
    whole(
        read_capped(file, path, what)?,
        &nexusq_core::untrusted::path(path),
        what,
    )
}

/// At most `SMALL_FILE_LIMIT` bytes of `reader`, or `None` when it holds more.
fn read_capped(reader: impl Read, path: &Path, what: &str) -> Result<Option<Vec<u8>>> {
    nexusq_core::fs::input::read_capped(reader, SMALL_FILE_LIMIT)
        .map_err(|e| Error::io_at(&format!("read {what} from"), path, &e))
}

/// Public inputs read from a pipe or device to tell their format, kept for [`read_small`] (a
/// pipe can be read only once): the bytes, or `None` when there were too many.
type Peeked = (PathBuf, Option<Vec<u8>>);
static PEEKED: std::sync::Mutex<Vec<Peeked>> = std::sync::Mutex::new(Vec::new());

fn take_peeked(path: &Path) -> Option<Option<Vec<u8>>> {
    let mut peeked = PEEKED.lock().unwrap_or_else(|e| e.into_inner());
    let i = peeked.iter().position(|(p, _)| p == path)?;
    Some(peeked.swap_remove(i).1)
}

/// The first bytes of a public small input named on the command line (a `--to` or
/// `--identity` FILE), to tell its format before it is read: up to 64 bytes of a regular
/// file; a pipe or character device is read whole here and kept for the [`read_small`] that
/// follows. `None` when it cannot be read: reading it again says why. Never for secrets (what
/// is kept is not zeroized).
pub fn peek_small(path: &Path, what: &str) -> Option<Vec<u8>> {
    const HEAD: usize = 64;
    if path == Path::new("-") {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        let mut prefix = [0u8; HEAD];
        let n = File::open(path)
            .and_then(|mut f| f.read(&mut prefix))
            .ok()?;
        return Some(prefix[..n].to_vec());
    }
    if !meta.file_type().is_fifo() && !meta.file_type().is_char_device() {
        return None;
    }
    let mut kept = PEEKED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, read)) = kept.iter().find(|(p, _)| p == path) {
        return read.as_ref().map(|b| b[..b.len().min(HEAD)].to_vec());
    }
    let read = read_capped(open_small(path, what).ok()?, path, what).ok()?;
    let head = read.as_ref().map(|b| b[..b.len().min(HEAD)].to_vec());
    kept.push((path.to_path_buf(), read));
    head
}

/// Open an input FILE: a missing or unreadable one is an I/O error (exit 5), a folder a usage
/// error (exit 2), with the same words for every option.
fn open_file(path: &Path, what: &str) -> Result<File> {
    let file =
        File::open(path).map_err(|e| Error::io_at(&format!("read {what} from"), path, &e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let folder = OpenError::NotRegular(Kind::Folder);
        return Err(folder.reading(path, what).into());
    }
    Ok(file)
}

/// Open a small input FILE named on the command line as [`open_file`] does: a regular file, a
/// pipe or a character device (docs/cli.md, "Inputs"); a socket or block device is an I/O
/// problem with the input, exit 5.
fn open_small(path: &Path, what: &str) -> Result<File> {
    Ok(nexusq_core::fs::input::open_named(path).map_err(|e| e.reading(path, what))?)
}

/// Stdin can be read once: a second input that is also `-` is refused (exit 2).
fn take_stdin(what: &str) -> Result<()> {
    use std::sync::atomic::{AtomicBool, Ordering};
    static TAKEN: AtomicBool = AtomicBool::new(false);
    if TAKEN.swap(true, Ordering::SeqCst) {
        return Err(Error::usage(
            format!("{what} cannot come from stdin too: another input already reads it"),
            "pass at most one input as `-` (or nothing); give the others as files",
        ));
    }
    Ok(())
}

/// `-`, or no path at all, means stdin (or stdout for an output).
pub fn is_stdio(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p == Path::new("-"))
}

/// How messages name an input: its path, or "stdin".
pub fn input_name(path: Option<&Path>) -> String {
    match path {
        Some(p) if !is_stdio(Some(p)) => p.display().to_string(),
        _ => "stdin".into(),
    }
}

/// `FILE`, or stdin for `-` / nothing (the data of sign, verify, encrypt, decrypt).
pub fn open_input(path: Option<&Path>) -> Result<Box<dyn Read + Send + Sync>> {
    match path {
        Some(p) if p != Path::new("-") => Ok(Box::new(open_file(p, "the data")?)),
        _ => {
            take_stdin("the data")?;
            // `Stdin` rather than its lock, which cannot cross threads: OpenPGP's parser
            // wants a reader that could (docs/openpgp.md).
            Ok(Box::new(std::io::stdin()))
        }
    }
}

/// Where a command's output goes: stdout, or an `-o` path as `nexusq_core::fs::output` decides (a
/// file replaced whole on [`Sink::commit`], or a device, FIFO or descriptor written directly).
pub enum Sink {
    Stdout(std::io::Stdout),
    File { out: OutputFile, path: PathBuf },
}

/// `-o FILE`, `-o -` (stdout, even a terminal) or nothing (stdout). Binary output to a
/// terminal is refused unless forced with `-o -`; an existing vault is never overwritten. A
/// file created gets `access`'s mode (public 0644, private 0600).
pub fn create_output(path: Option<&Path>, binary: bool, access: Access) -> Result<Sink> {
    let refuse_terminal = || {
        Error::usage(
            "refusing to write binary data to the terminal",
            "redirect it, pass -o FILE, use --armor for text, or -o - to force it",
        )
    };
    match path {
        Some(p) if p == Path::new("-") => Ok(Sink::Stdout(std::io::stdout())),
        None => {
            if binary && std::io::stdout().is_terminal() {
                return Err(refuse_terminal());
            }
            Ok(Sink::Stdout(std::io::stdout()))
        }
        Some(p) => {
            let kind = output::classify(p)?;
            if let OutputKind::Replace(target) = &kind {
                refuse_vault(p, target)?;
            }
            let out = OutputFile::create(&kind, p, access)?;
            if binary && out.is_terminal() {
                return Err(refuse_terminal());
            }
            Ok(Sink::File {
                out,
                path: p.to_path_buf(),
            })
        }
    }
}

/// Write a small output whole: `-o FILE` as [`create_output`] does, or stdout.
pub fn write_output(path: Option<&Path>, bytes: &[u8], access: Access) -> Result<()> {
    let mut sink = create_output(path, false, access)?;
    sink.write_all(bytes).map_err(|e| match &sink {
        Sink::File { path, .. } => Error::io_at("write", path, &e),
        Sink::Stdout(_) => Error::stdout_write(&e, "check where the output goes"),
    })?;
    sink.commit()
}

/// Vaults and encrypted files are both `.nxq`: an output never replaces a vault.
fn refuse_vault(given: &Path, target: &Path) -> Result<()> {
    let mut magic = [0u8; 4];
    let is_vault = File::open(target)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == nexusq_core::vault::format::MAGIC;
    if is_vault {
        let shown = if given == target {
            given.display().to_string()
        } else {
            format!("{} (-> {})", given.display(), target.display())
        };
        return Err(Error::usage(
            format!("refusing to write over {shown}: it is a nexusq vault"),
            "choose another -o path; to replace the vault on purpose, move it away first",
        ));
    }
    Ok(())
}

impl Sink {
    /// An `-o` path (a file, device or descriptor), not stdout.
    pub fn is_file(&self) -> bool {
        matches!(self, Sink::File { .. })
    }

    /// Whether a failure leaves no partial output (stdout and devices keep what was written).
    pub fn is_all_or_nothing(&self) -> bool {
        matches!(self, Sink::File { out, .. } if out.is_all_or_nothing())
    }

    /// Make the output final: flush stdout, or rename the file into place.
    pub fn commit(self) -> Result<()> {
        match self {
            Sink::Stdout(mut s) => s
                .flush()
                .map_err(|e| Error::stdout_write(&e, "check where the output goes")),
            Sink::File { out, .. } => Ok(out.commit()?),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::File { out, .. } => out.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::File { out, .. } => out.flush(),
        }
    }
}

/// Read a small text input (`-` is stdin); zeroized after use (identity files hold keys).
pub fn read_text(path: &Path, what: &str) -> Result<zeroize::Zeroizing<String>> {
    let bytes = read_small(path, what)?;
    String::from_utf8(bytes)
        .map(zeroize::Zeroizing::new)
        .map_err(|e| {
            zeroize::Zeroize::zeroize(&mut e.into_bytes());
            Error::usage(
                format!(
                    "{} is not text (invalid UTF-8), so not {what}",
                    path.display()
                ),
                "pass the right file",
            )
        })
}

/// Read age identity files (`decrypt -i`); `data_on_stdin`: the encrypted data comes on stdin,
/// so no identity file can.
pub fn read_age_identities(files: &[PathBuf], data_on_stdin: bool) -> Result<Vec<Identity>> {
    let mut all = Vec::new();
    for file in files {
        if file == Path::new("-") && data_on_stdin {
            return Err(Error::usage(
                "stdin cannot carry both the encrypted data and the identity file",
                "pass one of them as a file",
            ));
        }
        let text = read_text(file, "an age identity file")?;
        let ids = recipient::parse_identity_file(&text).map_err(|e| {
            let hint = match e.error {
                recipient::KeyError::OtherPlugin(_) => {
                    "plugin identities are for age itself; for the vault, drop -i"
                }
                _ => "an identity file holds AGE-SECRET-KEY-PQ-1… or AGE-SECRET-KEY-1… lines",
            };
            Error::usage(
                format!("{}, line {}: {}", file.display(), e.line, e.error),
                hint,
            )
        })?;
        if ids.is_empty() {
            return Err(Error::usage(
                format!("{} holds no identity", file.display()),
                "pass an age identity file (age-keygen -pq writes one)",
            ));
        }
        all.extend(ids);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_sink_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        let mut sink = create_output(Some(&target), true, Access::Private).unwrap();
        assert!(sink.is_all_or_nothing());
        sink.write_all(b"partial").unwrap();
        assert!(!target.exists());
        drop(sink);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "temp file left behind"
        );
        let mut sink = create_output(Some(&target), true, Access::Private).unwrap();
        sink.write_all(b"whole").unwrap();
        sink.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"whole");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_vault_is_never_an_output() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("v.nxq");
        std::fs::write(&vault, b"NXQV and the rest of a vault").unwrap();
        let link = dir.path().join("link.nxq");
        std::os::unix::fs::symlink(&vault, &link).unwrap();
        for p in [&vault, &link] {
            let e = create_output(Some(p), true, Access::Private)
                .err()
                .expect("refused");
            assert_eq!(e.exit(), crate::cli::error::Exit::Usage);
            assert!(e.message().contains("nexusq vault"), "{}", e.message());
        }
        assert_eq!(
            std::fs::read(&vault).unwrap(),
            b"NXQV and the rest of a vault"
        );
        // An encrypted file (or anything else) is replaced as usual.
        let other = dir.path().join("f.nxq");
        std::fs::write(&other, b"NXQF...").unwrap();
        write_output(Some(&other), b"new", Access::Private).unwrap();
        assert_eq!(std::fs::read(&other).unwrap(), b"new");
    }
}

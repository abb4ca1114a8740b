//! Where an `-o PATH` writes, decided on what PATH is (docs/file-encryption.md, "Outputs"):
//!
//! - a regular file, or nothing yet: replaced whole or not at all ([`AtomicFile`]);
//! - a symbolic link: followed to its end, and that file is replaced in its own folder, so the
//!   link stays a link (a dangling link names the file to create);
//! - a character device or a FIFO (`/dev/null`, a terminal, a named pipe): written into
//!   directly, as any Unix tool does; there is nothing to make atomic and nothing to rename;
//! - one of this process's descriptors (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
//!   `/proc/self/fd/N`): written into through a duplicate of the descriptor, at its offset,
//!   so `>> log` still appends and a redirected file is not replaced behind the shell's back;
//! - a folder, a block device or a socket: refused.

use super::Access;
use super::atomic::AtomicFile;
use super::paths::parent_folder;
use super::save_io::{self, SaveIo};
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// What an output path turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A regular file, or none yet, at this path (links resolved): replaced atomically.
    Replace(PathBuf),
    /// A character device or FIFO (or another process's descriptor): written into directly.
    Device(PathBuf),
    /// One of this process's open descriptors: written into directly.
    Descriptor(i32),
}

/// Most links followed before giving up (Linux's limit).
const MAX_LINKS: usize = 40;

/// Decide what `path` is, following symbolic links hop by hop.
pub fn classify(path: &Path) -> Result<OutputKind> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match proc_descriptor(&p) {
            Some((true, fd)) => return Ok(OutputKind::Descriptor(fd)),
            Some((false, _)) => return Ok(OutputKind::Device(p)),
            None => {}
        }
        let meta = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(OutputKind::Replace(p)),
            Err(e) => return Err(Error::io_at("inspect", &p, &e)),
        };
        let t = meta.file_type();
        if t.is_symlink() {
            let next = std::fs::read_link(&p).map_err(|e| Error::io_at("read the link", &p, &e))?;
            p = if next.is_absolute() {
                next
            } else {
                parent_folder(&p).join(next)
            };
            continue;
        }
        if t.is_file() {
            return Ok(OutputKind::Replace(p));
        }
        if t.is_char_device() || t.is_fifo() {
            return Ok(OutputKind::Device(p));
        }
        let what = if t.is_dir() {
            "a folder"
        } else if t.is_block_device() {
            "a block device"
        } else {
            "a socket"
        };
        return Err(Error::usage(
            format!(
                "cannot write the output to {}: it is {what}",
                shown(path, &p)
            ),
            "pass -o with a file name (or a character device or FIFO)",
        ));
    }
    Err(Error::usage(
        format!(
            "cannot write the output to {}: too many symbolic links",
            path.display()
        ),
        "check the links (a loop?) or pass another -o path",
    ))
}

fn shown(given: &Path, resolved: &Path) -> String {
    if given == resolved {
        given.display().to_string()
    } else {
        format!("{} (-> {})", given.display(), resolved.display())
    }
}

/// `/dev/stdout`-style paths: `Some((ours, fd))` for a descriptor under `/proc/<pid>/fd` (or
/// `/proc/<pid>/task/<tid>/fd`), `ours` when `<pid>` is this process. Decided on the folder's
/// realpath, so `/dev/fd/1`, `/proc/self/fd/1` and `/proc/thread-self/fd/1` are all seen.
fn proc_descriptor(p: &Path) -> Option<(bool, i32)> {
    let lexical = match p.to_str() {
        Some("/dev/stdin") => Some(0),
        Some("/dev/stdout") => Some(1),
        Some("/dev/stderr") => Some(2),
        _ => None,
    };
    if let Some(fd) = lexical {
        return Some((true, fd));
    }
    let fd: i32 = p.file_name()?.to_str()?.parse().ok()?;
    let folder = std::fs::canonicalize(parent_folder(p)).ok()?;
    let parts: Vec<Component<'_>> = folder.components().collect();
    let name = |i: usize| match parts.get(i) {
        Some(Component::Normal(s)) => s.to_str(),
        _ => None,
    };
    let pid = match (parts.len(), name(1), name(3), name(5)) {
        (4, Some("proc"), Some("fd"), _) => name(2)?,
        (6, Some("proc"), Some("task"), Some("fd")) => name(2)?,
        _ => return None,
    };
    let pid: u32 = pid.parse().ok()?;
    Some((pid == std::process::id(), fd))
}

/// An `-o` output being written.
pub enum OutputFile {
    /// A regular file, replaced whole or not at all.
    Atomic(AtomicFile),
    /// A character device, a FIFO or one of this process's descriptors, written into as it is.
    Direct {
        /// The open device or descriptor duplicate.
        file: File,
        /// The path as given, for messages.
        path: PathBuf,
        /// The save steps, so tests can fail them.
        io: Rc<dyn SaveIo>,
    },
}

impl OutputFile {
    /// Open the output for `kind`; a file it creates gets `access`'s mode. `shown` names it
    /// in errors.
    pub fn create(kind: &OutputKind, shown: &Path, access: Access) -> Result<Self> {
        match kind {
            OutputKind::Replace(p) => Ok(OutputFile::Atomic(AtomicFile::create(p, access)?)),
            OutputKind::Device(p) => {
                let io = save_io::current();
                let file = io
                    .open_existing(p)
                    .map_err(|e| Error::io_at("open", shown, &e))?;
                Ok(OutputFile::Direct {
                    file,
                    path: shown.to_path_buf(),
                    io,
                })
            }
            OutputKind::Descriptor(fd) => Ok(OutputFile::Direct {
                file: dup_descriptor(*fd).map_err(|e| Error::io_at("write to", shown, &e))?,
                path: shown.to_path_buf(),
                io: save_io::current(),
            }),
        }
    }

    /// Whether a failure leaves nothing (an atomic replacement) rather than what was written.
    pub fn is_all_or_nothing(&self) -> bool {
        matches!(self, OutputFile::Atomic(_))
    }

    /// Does the output go to a terminal? (An atomic file never does.)
    pub fn is_terminal(&self) -> bool {
        match self {
            OutputFile::Atomic(_) => false,
            OutputFile::Direct { file, .. } => file.is_terminal(),
        }
    }

    /// Make the output final: rename it into place, or (written directly) nothing to do.
    pub fn commit(self) -> Result<()> {
        match self {
            OutputFile::Atomic(f) => f.commit(),
            OutputFile::Direct { .. } => Ok(()),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            OutputFile::Atomic(f) => f.write(buf),
            OutputFile::Direct { file, path, io } => io.write(file, path, buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A duplicate of our descriptor `fd`, sharing its offset and flags (O_APPEND included).
fn dup_descriptor(fd: i32) -> io::Result<File> {
    // SAFETY: the borrowed descriptor is only passed to fcntl(F_DUPFD_CLOEXEC), which checks it
    // and fails with EBADF when it is not open; no I/O is done on it.
    let borrowed = unsafe { rustix::fd::BorrowedFd::borrow_raw(fd) };
    let owned = rustix::io::fcntl_dupfd_cloexec(borrowed, 3)?;
    Ok(File::from(owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn kinds_of_paths() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("file"), b"x").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        symlink("file", d.join("link")).unwrap();
        symlink("sub/new", d.join("dangling")).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            d.join("fifo"),
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        assert_eq!(
            classify(&d.join("file")).unwrap(),
            OutputKind::Replace(d.join("file"))
        );
        assert_eq!(
            classify(&d.join("new")).unwrap(),
            OutputKind::Replace(d.join("new"))
        );
        assert_eq!(
            classify(&d.join("link")).unwrap(),
            OutputKind::Replace(d.join("file"))
        );
        assert_eq!(
            classify(&d.join("dangling")).unwrap(),
            OutputKind::Replace(d.join("sub/new"))
        );
        assert_eq!(
            classify(&d.join("fifo")).unwrap(),
            OutputKind::Device(d.join("fifo"))
        );
        assert_eq!(
            classify(Path::new("/dev/null")).unwrap(),
            OutputKind::Device("/dev/null".into())
        );
        let e = classify(&d.join("sub")).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Usage);
        assert!(e.message().contains("a folder"), "{}", e.message());
        assert_eq!(
            classify(Path::new("/dev/stdout")).unwrap(),
            OutputKind::Descriptor(1)
        );
        assert_eq!(
            classify(Path::new("/dev/fd/1")).unwrap(),
            OutputKind::Descriptor(1)
        );
        assert_eq!(
            classify(Path::new("/proc/self/fd/2")).unwrap(),
            OutputKind::Descriptor(2)
        );
        symlink("/proc/self/fd/1", d.join("out-link")).unwrap();
        assert_eq!(
            classify(&d.join("out-link")).unwrap(),
            OutputKind::Descriptor(1)
        );
        symlink("loop", d.join("loop")).unwrap();
        assert_eq!(
            classify(&d.join("loop")).unwrap_err().kind(),
            crate::error::ErrorKind::Usage
        );
    }

    #[test]
    fn a_descriptor_is_written_at_its_offset() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("log");
        std::fs::write(&p, b"before\n").unwrap();
        let log = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        let kind = classify(&PathBuf::from(format!("/proc/self/fd/{}", log.as_raw_fd()))).unwrap();
        assert_eq!(kind, OutputKind::Descriptor(log.as_raw_fd()));
        let mut out = OutputFile::create(&kind, &p, super::super::Access::Private).unwrap();
        assert!(!out.is_all_or_nothing());
        out.write_all(b"after\n").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"before\nafter\n");
    }
}

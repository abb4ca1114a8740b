//! Opening the files nexusq reads whole (a vault, an export, a signature, a manifest and the
//! files it lists) without surprises (docs/cli.md, "Inputs").
//!
//! Two rules, by who named the file:
//!
//! - **What nexusq itself keeps or another file names** (the vault, the contacts book, the files
//!   a manifest lists) must be a regular file, and is never waited on: [`open_regular`] and
//!   [`open_beneath`]. A FIFO opened for reading waits for a writer, and reading a device may
//!   never end, so the kind is looked at first through an `O_PATH` descriptor (which opens
//!   nothing: a device's driver is not woken, a FIFO not joined), and only a regular file is
//!   then opened for reading, with `O_NONBLOCK | O_NOCTTY`; `fstat` on that descriptor decides
//!   again, so a file swapped in between is still caught.
//! - **What the user names on the command line** (`--to <(curl …)`, `--sig`, `identity show`)
//!   may also be a pipe or a character device, read as `cat` reads it: [`open_named`]. A FIFO
//!   nobody writes to then waits for a writer, as `cat` would. A pipe has no size to check
//!   first, so whoever reads one whole caps it: [`read_capped`].
//!
//! Data that streams (the FILE of `sign`, `encrypt`…) does not come here: any readable file is
//! a fine source of data.
//!
//! [`open_beneath`] opens a name below a folder without leaving it (the files a manifest
//! lists, docs/signature-format.md §7): `openat2(RESOLVE_BENEATH)` where the kernel has it and
//! may be asked, else [`open_beneath_walk`], which refuses every symbolic link.

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path};

/// What a path names when it is not a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A folder.
    Folder,
    /// A named pipe.
    Fifo,
    /// A character device, such as a terminal.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A Unix socket.
    Socket,
    /// Anything else the file system reports.
    Other,
}

impl Kind {
    fn of(t: FileType) -> Option<Kind> {
        Some(match t {
            FileType::RegularFile => return None,
            FileType::Directory => Kind::Folder,
            FileType::Fifo => Kind::Fifo,
            FileType::CharacterDevice => Kind::CharDevice,
            FileType::BlockDevice => Kind::BlockDevice,
            FileType::Socket => Kind::Socket,
            FileType::Symlink | FileType::Unknown => Kind::Other,
        })
    }

    /// "a named pipe (FIFO)", for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Folder => "a folder",
            Kind::Fifo => "a named pipe (FIFO)",
            Kind::CharDevice => "a character device",
            Kind::BlockDevice => "a block device",
            Kind::Socket => "a socket",
            Kind::Other => "not a file",
        }
    }
}

/// Why a file was not opened.
#[derive(Debug)]
pub enum OpenError {
    /// The system refused (missing, unreadable…).
    Io(io::Error),
    /// It is there, but not a regular file; nothing was read from it.
    NotRegular(Kind),
    /// [`open_beneath`]: a symbolic link on the way leads out of the folder.
    Outside,
    /// [`open_beneath_walk`]: a symbolic link on the way, which it does not follow.
    Link,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(e) => write!(f, "{e}"),
            OpenError::NotRegular(k) => write!(f, "it is {}, not a regular file", k.describe()),
            OpenError::Outside => f.write_str("a symbolic link on its way leads out of the folder"),
            OpenError::Link => f.write_str(
                "a symbolic link is on its way, and links are not followed on this system",
            ),
        }
    }
}

impl OpenError {
    /// This failure as the error of reading `what` ("an age identity file") from `path`: a
    /// folder is a usage error; anything else that is not a regular file (a FIFO, a device, a
    /// socket, which could block forever) and any refusal of the system, an I/O error.
    pub fn reading(self, path: &Path, what: &str) -> crate::Error {
        match self {
            OpenError::Io(e) => crate::Error::io_at(&format!("read {what} from"), path, &e),
            OpenError::NotRegular(Kind::Folder) => crate::Error::usage(
                format!("{} is a folder, not {what}", crate::untrusted::path(path)),
                "pass a file",
            ),
            other => crate::Error::io(
                format!(
                    "cannot read {what} from {}: {other}",
                    crate::untrusted::path(path)
                ),
                "save it to a file first, or pass it on stdin as `-`",
            ),
        }
    }
}

impl From<io::Error> for OpenError {
    fn from(e: io::Error) -> Self {
        OpenError::Io(e)
    }
}

impl From<rustix::io::Errno> for OpenError {
    fn from(e: rustix::io::Errno) -> Self {
        OpenError::Io(e.into())
    }
}

/// The flags of the descriptor that is read: never blocks on a FIFO, never becomes the
/// controlling terminal.
fn read_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

/// The kind `fd` is, or None for a regular file.
fn kind(fd: impl AsFd) -> Result<Option<Kind>, OpenError> {
    Ok(Kind::of(FileType::from_raw_mode(
        rustix::fs::fstat(fd)?.st_mode,
    )))
}

/// `probe` (an `O_PATH` descriptor of the same name) is a regular file: open the name with
/// `open` for reading, check it again on the descriptor, and make reads blocking again (for a
/// regular file `O_NONBLOCK` changes nothing, except on some network and FUSE file systems).
fn finish(
    probe: OwnedFd,
    open: impl FnOnce() -> Result<OwnedFd, OpenError>,
) -> Result<File, OpenError> {
    if let Some(k) = kind(&probe)? {
        return Err(OpenError::NotRegular(k));
    }
    drop(probe);
    let fd = open()?;
    if let Some(k) = kind(&fd)? {
        return Err(OpenError::NotRegular(k));
    }
    let flags = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK)?;
    Ok(File::from(fd))
}

/// Open `path` (its symbolic links followed) for reading if it is a regular file.
pub fn open_regular(path: &Path) -> Result<File, OpenError> {
    let probe = rustix::fs::open(path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty())?;
    finish(probe, || {
        Ok(rustix::fs::open(path, read_flags(), Mode::empty())?)
    })
}

/// Open `path`, named by the user on the command line, for reading it whole: a regular file
/// as [`open_regular`] opens it, or a pipe or character device (`<(curl …)`, `/dev/stdin`),
/// opened as `cat` opens it, so a FIFO nobody writes to waits for a writer. A folder, a socket
/// or a block device is refused without being opened. Read it with [`read_capped`].
pub fn open_named(path: &Path) -> Result<File, OpenError> {
    let probe = rustix::fs::open(path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty())?;
    match kind(&probe)? {
        None => finish(probe, || {
            Ok(rustix::fs::open(path, read_flags(), Mode::empty())?)
        }),
        Some(Kind::Fifo | Kind::CharDevice) => {
            drop(probe);
            let flags = OFlags::RDONLY | OFlags::NOCTTY | OFlags::CLOEXEC;
            let fd = rustix::fs::open(path, flags, Mode::empty())?;
            // Decided again on what was opened: it may have been swapped since the probe.
            match kind(&fd)? {
                None | Some(Kind::Fifo | Kind::CharDevice) => Ok(File::from(fd)),
                Some(k) => Err(OpenError::NotRegular(k)),
            }
        }
        Some(k) => Err(OpenError::NotRegular(k)),
    }
}

/// `reader` to its end, or `None` as soon as it holds more than `limit` bytes (never more than
/// `limit + 1` are read or held): how every input read whole is capped, a pipe included.
pub fn read_capped(reader: impl Read, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// A folder to open names beneath ([`open_beneath`]); its own path may go through links.
pub(crate) fn open_folder(path: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Open `name` (relative) below `folder` for reading, if it is a regular file there: symbolic
/// links may be followed only while they stay below `folder` (`openat2` with
/// `RESOLVE_BENEATH`); where `openat2` cannot be used, [`open_beneath_walk`], which follows
/// none.
pub fn open_beneath(folder: BorrowedFd<'_>, name: &Path) -> Result<File, OpenError> {
    if !openat2_usable() {
        return open_beneath_walk(folder, name);
    }
    let how = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    let open = |flags: OFlags| loop {
        match rustix::fs::openat2(folder, name, flags, Mode::empty(), how) {
            // A rename elsewhere raced with the lookup: the kernel asks to try again.
            Err(rustix::io::Errno::AGAIN) => continue,
            other => return other,
        }
    };
    let probe = match open(OFlags::PATH | OFlags::CLOEXEC) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::XDEV) => return Err(OpenError::Outside),
        // No openat2 (Linux before 5.6), or a sandbox's filter refusing it.
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
            OPENAT2.store(NO, std::sync::atomic::Ordering::Relaxed);
            return open_beneath_walk(folder, name);
        }
        Err(e) => return Err(e.into()),
    };
    finish(probe, || match open(read_flags()) {
        Ok(fd) => Ok(fd),
        // The name became a link out since the probe.
        Err(rustix::io::Errno::XDEV) => Err(OpenError::Outside),
        Err(e) => Err(e.into()),
    })
}

/// [`open_beneath`] without `openat2`: one folder at a time, each opened without following a
/// symbolic link, so no link is followed at all (one that would stay inside is refused too).
pub fn open_beneath_walk(folder: BorrowedFd<'_>, name: &Path) -> Result<File, OpenError> {
    let parts: Vec<&std::ffi::OsStr> = name
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(Ok(p)),
            Component::CurDir => None,
            // Manifests refuse these names before any file is opened; refuse them here too.
            _ => Some(Err(OpenError::Outside)),
        })
        .collect::<Result<_, _>>()?;
    let Some((last, dirs)) = parts.split_last() else {
        return Err(OpenError::NotRegular(Kind::Folder));
    };
    let mut held: Option<OwnedFd> = None;
    for dir in dirs {
        let at = held.as_ref().map_or(folder, |fd| fd.as_fd());
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat(at, *dir, flags, Mode::empty()) {
            Ok(fd) => held = Some(fd),
            // O_DIRECTORY | O_NOFOLLOW says ENOTDIR for a link too: tell them apart.
            Err(rustix::io::Errno::NOTDIR) if is_link(at, dir) => return Err(OpenError::Link),
            Err(e) => return Err(e.into()),
        }
    }
    let at = held.as_ref().map_or(folder, |fd| fd.as_fd());
    // O_PATH | O_NOFOLLOW opens a link itself: the probe's fstat then sees it.
    let probe = rustix::fs::openat(
        at,
        *last,
        OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    if FileType::from_raw_mode(rustix::fs::fstat(&probe)?.st_mode) == FileType::Symlink {
        return Err(OpenError::Link);
    }
    finish(probe, || {
        match rustix::fs::openat(at, *last, read_flags() | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => Ok(fd),
            // It became a link since the probe.
            Err(rustix::io::Errno::LOOP) => Err(OpenError::Link),
            Err(e) => Err(e.into()),
        }
    })
}

fn is_link(at: BorrowedFd<'_>, name: &std::ffi::OsStr) -> bool {
    rustix::fs::statat(at, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Symlink)
}

const UNKNOWN: u8 = 0;
const YES: u8 = 1;
const NO: u8 = 2;
static OPENAT2: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(UNKNOWN);

/// May `openat2` be called? Not on Android: its app sandbox kills a process that makes a
/// system call outside its list (SIGSYS) instead of failing it with ENOSYS, and `openat2` is
/// outside it on many releases. So not in a Linux build running on Android either (Termux
/// sets `ANDROID_ROOT` and `ANDROID_DATA`; `/system/build.prop` is there for everyone).
/// Elsewhere ENOSYS or EPERM from the first call turns it off.
fn openat2_usable() -> bool {
    use std::sync::atomic::Ordering;
    match OPENAT2.load(Ordering::Relaxed) {
        YES => return true,
        NO => return false,
        _ => {}
    }
    let android = cfg!(target_os = "android")
        || std::env::var_os("ANDROID_ROOT").is_some()
        || std::env::var_os("ANDROID_DATA").is_some()
        || Path::new("/system/build.prop").exists();
    OPENAT2.store(if android { NO } else { YES }, Ordering::Relaxed);
    !android
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn fifo(path: &Path) {
        rustix::fs::mkfifoat(rustix::fs::CWD, path, Mode::RUSR | Mode::WUSR).unwrap();
    }

    #[test]
    fn regular_files_open_and_nothing_else_does() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("f"), b"bytes").unwrap();
        symlink(d.join("f"), d.join("link")).unwrap();
        for name in ["f", "link"] {
            let mut s = String::new();
            open_regular(&d.join(name))
                .unwrap()
                .read_to_string(&mut s)
                .unwrap();
            assert_eq!(s, "bytes");
        }
        // A FIFO with no writer: refused at once (a plain open would wait for a writer).
        fifo(&d.join("p"));
        assert!(matches!(
            open_regular(&d.join("p")),
            Err(OpenError::NotRegular(Kind::Fifo))
        ));
        assert!(matches!(
            open_regular(d),
            Err(OpenError::NotRegular(Kind::Folder))
        ));
        let sock = std::os::unix::net::UnixListener::bind(d.join("s")).unwrap();
        assert!(matches!(
            open_regular(&d.join("s")),
            Err(OpenError::NotRegular(Kind::Socket))
        ));
        drop(sock);
        match open_regular(&d.join("missing")) {
            Err(OpenError::Io(e)) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn named_inputs_may_be_pipes_and_devices_read_as_cat_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("f"), b"bytes").unwrap();
        let mut s = String::new();
        open_named(&d.join("f"))
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        assert_eq!(s, "bytes");
        // A FIFO: the open waits for the writer, as cat's would, then reads what it wrote.
        let p = d.join("p");
        fifo(&p);
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || std::fs::write(p, b"through a pipe").unwrap())
        };
        let got = read_capped(open_named(&p).unwrap(), 100).unwrap().unwrap();
        writer.join().unwrap();
        assert_eq!(got, b"through a pipe");
        // An anonymous pipe named by /proc/self/fd/N, as `<(...)` names one.
        let (r, mut w) = std::io::pipe().unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&r);
        let named = Path::new("/proc/self/fd").join(fd.to_string());
        std::io::Write::write_all(&mut w, b"substituted").unwrap();
        drop(w);
        let got = read_capped(open_named(&named).unwrap(), 100)
            .unwrap()
            .unwrap();
        assert_eq!(got, b"substituted");
        // A character device with /dev/null's numbers (root only): read, empty.
        let node = d.join("null");
        if rustix::fs::mknodat(
            rustix::fs::CWD,
            &node,
            FileType::CharacterDevice,
            Mode::RUSR | Mode::WUSR,
            rustix::fs::makedev(1, 3),
        )
        .is_ok()
        {
            let got = read_capped(open_named(&node).unwrap(), 100)
                .unwrap()
                .unwrap();
            assert!(got.is_empty());
        }
        assert!(matches!(
            open_named(d),
            Err(OpenError::NotRegular(Kind::Folder))
        ));
        let sock = std::os::unix::net::UnixListener::bind(d.join("s")).unwrap();
        assert!(matches!(
            open_named(&d.join("s")),
            Err(OpenError::NotRegular(Kind::Socket))
        ));
        drop(sock);
    }

    #[test]
    fn reads_are_capped_one_byte_past_the_limit() {
        let data = vec![7u8; 10];
        assert_eq!(read_capped(&data[..], 10).unwrap().unwrap(), data);
        assert!(read_capped(&data[..], 9).unwrap().is_none());
        assert!(read_capped(std::io::repeat(0), 1 << 20).unwrap().is_none());
    }

    /// A folder with `in/f`, `in/sub/g`, links that stay inside and links that leave, and a
    /// FIFO: what both ways of opening beneath it say.
    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("in/sub")).unwrap();
        std::fs::write(d.join("in/f"), b"f").unwrap();
        std::fs::write(d.join("in/sub/g"), b"g").unwrap();
        std::fs::write(d.join("secret"), b"outside").unwrap();
        symlink("f", d.join("in/to-f")).unwrap();
        symlink("sub", d.join("in/to-sub")).unwrap();
        symlink("../secret", d.join("in/up")).unwrap();
        symlink(d.join("in/f"), d.join("in/absolute")).unwrap();
        symlink("..", d.join("in/parent")).unwrap();
        fifo(&d.join("in/p"));
        dir
    }

    fn read(r: Result<File, OpenError>) -> Result<String, OpenError> {
        let mut s = String::new();
        r?.read_to_string(&mut s).unwrap();
        Ok(s)
    }

    #[test]
    fn the_walk_follows_no_link_and_opens_only_regular_files() {
        let dir = tree();
        let folder = open_folder(&dir.path().join("in")).unwrap();
        let open = |n: &str| read(open_beneath_walk(folder.as_fd(), Path::new(n)));
        assert_eq!(open("f").unwrap(), "f");
        assert_eq!(open("./sub/g").unwrap(), "g");
        for link in ["to-f", "to-sub/g", "up", "absolute", "parent/secret"] {
            assert!(matches!(open(link), Err(OpenError::Link)), "{link}");
        }
        assert!(matches!(open("p"), Err(OpenError::NotRegular(Kind::Fifo))));
        assert!(matches!(
            open("sub"),
            Err(OpenError::NotRegular(Kind::Folder))
        ));
        assert!(matches!(open("../secret"), Err(OpenError::Outside)));
        assert!(matches!(open("missing"), Err(OpenError::Io(_))));
        assert!(matches!(open("f/x"), Err(OpenError::Io(_))));
    }

    #[test]
    fn openat2_follows_links_only_while_they_stay_inside() {
        if !openat2_usable() {
            eprintln!("skipped: openat2 is not used on this system (Android)");
            return;
        }
        let dir = tree();
        let folder = open_folder(&dir.path().join("in")).unwrap();
        let open = |n: &str| read(open_beneath(folder.as_fd(), Path::new(n)));
        assert_eq!(open("f").unwrap(), "f");
        if OPENAT2.load(std::sync::atomic::Ordering::Relaxed) == NO {
            eprintln!("skipped: this kernel has no openat2 (the walk was used)");
            return;
        }
        assert_eq!(open("to-f").unwrap(), "f");
        assert_eq!(open("to-sub/g").unwrap(), "g");
        for link in ["up", "absolute", "parent/secret"] {
            assert!(matches!(open(link), Err(OpenError::Outside)), "{link}");
        }
        assert!(matches!(open("p"), Err(OpenError::NotRegular(Kind::Fifo))));
    }
}

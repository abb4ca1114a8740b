//! Crash-safe replacement of a file: write `<file>.tmp.<random>` (create-new, 0600) in the same
//! folder, fsync it, rename it over the target, fsync the folder. A process killed at any
//! instant leaves the old file or the new one, whole. The caller holds the vault lock.
//!
//! Every file-system step goes through [`SaveIo`] so that tests can fail or stop any one of them
//! (tests/fault_injection.rs). Production always uses [`RealIo`]; the only cost of the seam is
//! one thread-local read per save.

use crate::error::{Error, Result};
use crate::secret::random_array;
use crate::vault::storage::parent_folder;
use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The file-system steps of a save. The provided methods are the real ones; a test
/// implementation overrides them to return an error or to stop the save (see
/// [`with_save_io`]).
pub trait SaveIo {
    /// Create `path` with mode 0600, failing if it exists.
    fn create_new(&self, path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
    }

    /// One `write(2)`: may accept fewer bytes than given.
    fn write(&self, file: &mut File, _path: &Path, buf: &[u8]) -> io::Result<usize> {
        file.write(buf)
    }

    /// fsync the file's data and metadata.
    fn sync_file(&self, file: &File, _path: &Path) -> io::Result<()> {
        file.sync_all()
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    /// fsync a folder, so a rename or a new name in it survives a power loss.
    fn sync_folder(&self, folder: &Path) -> io::Result<()> {
        File::open(folder)?.sync_all()
    }
}

/// The real file system.
pub struct RealIo;

impl SaveIo for RealIo {}

thread_local! {
    // Per thread, so a test's fault injector never reaches saves made by other test threads.
    static TEST_IO: RefCell<Option<Rc<dyn SaveIo>>> = const { RefCell::new(None) };
}

/// Test hook: run `f` with every save on this thread ([`replace`], [`create_new_private`])
/// going through `io` instead of [`RealIo`]. Public only because integration tests drive the
/// real commands (`vault::create`, `change_password`, `rotate`, `cli::run`), which have no I/O
/// parameter; not for production use.
#[doc(hidden)]
pub fn with_save_io<R>(io: Rc<dyn SaveIo>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Rc<dyn SaveIo>>);
    impl Drop for Restore {
        // Also on unwinding: tests simulate a killed process by unwinding out of a step.
        fn drop(&mut self) {
            let previous = self.0.take();
            TEST_IO.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = TEST_IO.with(|c| c.borrow_mut().replace(io));
    let _restore = Restore(previous);
    f()
}

/// The I/O layer for a save on this thread: the test hook's, else the real one.
fn save_io() -> Option<Rc<dyn SaveIo>> {
    TEST_IO.with(|c| c.borrow().clone())
}

/// `<target>.tmp.<16 random hex digits>`, beside the target.
pub fn temp_path(target: &Path) -> PathBuf {
    let suffix: [u8; 8] = random_array();
    let hex: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let mut name = target.as_os_str().to_os_string();
    name.push(format!(".tmp.{hex}"));
    PathBuf::from(name)
}

/// Removes `<target>.tmp.<16 hex digits>` files beside `target`: what a save killed between
/// creating its temporary file and the rename leaves behind. Call it only while holding the
/// vault lock (every vault writer holds it, so such a file belongs to a writer that died).
/// A leftover is a whole or partial vault sealed under the password of its time: after
/// `vault passwd` it would still open with the old one. Best effort; errors are ignored.
pub fn remove_stale_temps(target: &Path) {
    let (Some(folder), Some(name)) = (target.parent(), target.file_name()) else {
        return;
    };
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut prefix = name.to_os_string();
    prefix.push(".tmp.");
    let prefix = prefix.as_encoded_bytes();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let bytes = file_name.as_encoded_bytes();
        let is_temp = bytes.len() == prefix.len() + 16
            && bytes.starts_with(prefix)
            && bytes[prefix.len()..].iter().all(|b| b.is_ascii_hexdigit());
        if is_temp && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `write_all` over [`SaveIo::write`], so a test sees (and can cut short) every `write(2)`.
fn write_all(io: &dyn SaveIo, file: &mut File, path: &Path, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match io.write(file, path, buf) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Create `path` with mode 0600, failing if it exists; for files that must never replace
/// another (the revocation statement written by init). On error nothing is left at `path`.
pub fn create_new_private(path: &Path, bytes: &[u8]) -> Result<()> {
    match save_io() {
        Some(io) => create_new_private_with(&*io, path, bytes),
        None => create_new_private_with(&RealIo, path, bytes),
    }
}

/// [`create_new_private`] through `io`.
pub fn create_new_private_with(io: &dyn SaveIo, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = io
        .create_new(path)
        .map_err(|e| Error::io_at("create", path, &e))?;
    let written = write_all(io, &mut f, path, bytes)
        .map_err(|e| Error::io_at("write", path, &e))
        .and_then(|()| {
            io.sync_file(&f, path)
                .map_err(|e| Error::io_at("sync", path, &e))
        });
    drop(f);
    // The folder too: without it a power loss can take the new name away even though the
    // file's data was synced (e.g. `--revocation-out` in another folder than the vault).
    let folder = parent_folder(path);
    let result = written.and_then(|()| {
        io.sync_folder(folder)
            .map_err(|e| Error::io_at("sync the folder", folder, &e))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(path);
    }
    result
}

/// Atomically replace (or create) `target` with `bytes`: the vault, and exports with `-o`
/// (scripts re-export to the same file).
pub fn replace(target: &Path, bytes: &[u8]) -> Result<()> {
    match save_io() {
        Some(io) => replace_with(&*io, target, bytes),
        None => replace_with(&RealIo, target, bytes),
    }
}

/// [`replace`] through `io`.
pub fn replace_with(io: &dyn SaveIo, target: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(target);
    if let Err(e) = write_temp(io, &tmp, bytes) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if let Err(e) = io.rename(&tmp, target) {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io_at("replace", target, &e));
    }
    // From here the new file is in place: an error must not say the save failed outright,
    // only that it may not survive a power loss.
    let folder = parent_folder(target);
    io.sync_folder(folder).map_err(|e| {
        Error::io(
            format!(
                "the new {} is in place, but cannot sync its folder {}: {e}; the change may not \
                 survive a power loss",
                target.display(),
                folder.display()
            ),
            "check the device; if the power fails before it syncs, the previous version may \
             come back",
        )
    })
}

fn write_temp(io: &dyn SaveIo, tmp: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = io
        .create_new(tmp)
        .map_err(|e| Error::io_at("create the temporary file", tmp, &e))?;
    write_all(io, &mut f, tmp, bytes).map_err(|e| Error::io_at("write", tmp, &e))?;
    io.sync_file(&f, tmp)
        .map_err(|e| Error::io_at("sync", tmp, &e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_whole_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("v.nxq");
        replace(&target, b"one").unwrap();
        replace(&target, b"two").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn failure_removes_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        // Renaming a file over a non-empty directory fails after the temp file was written.
        let target = dir.path().join("occupied");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("x"), b"x").unwrap();
        assert!(replace(&target, b"data").is_err());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("occupied")]);
    }

    #[test]
    fn create_new_refuses_existing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.asc");
        create_new_private(&p, b"a").unwrap();
        assert!(create_new_private(&p, b"b").is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"a");
    }

    #[test]
    fn stale_temps_of_the_target_only_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("v.nxq");
        std::fs::write(&target, b"vault").unwrap();
        let stale = temp_path(&target);
        std::fs::write(&stale, b"half a vault").unwrap();
        let keep = [
            "v.nxq.tmp.notes",
            "v.nxq.tmp.0123456789abcdef0",
            "w.nxq.tmp.0123456789abcdef",
        ];
        for k in keep {
            std::fs::write(dir.path().join(k), b"x").unwrap();
        }
        remove_stale_temps(&target);
        assert!(!stale.exists());
        assert!(target.exists());
        for k in keep {
            assert!(dir.path().join(k).exists(), "{k}");
        }
    }
}

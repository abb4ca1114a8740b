//! Files that appear whole or not at all.
//!
//! [`AtomicFile`]: write `<file>.tmp.<16 hex digits>` (create-new, 0600) in the file's folder,
//! fsync it, rename it over the file, fsync the folder. A process killed at any instant leaves
//! the old file or the new one, whole. Used for vault saves and `-o` outputs; the caller
//! resolves symbolic links first (the file is replaced where it really lives).
//!
//! One policy for every caller: any failure before the rename removes the temporary file and
//! reports an error; a failure to sync the folder after the rename reports that the new file
//! is in place but may not survive a power loss (exit 5), except where the file system cannot
//! sync folders at all (EINVAL, ENOTSUP), which is not an error. While the temporary file
//! exists it is registered with [`super::cleanup`], so SIGINT, SIGTERM and SIGHUP remove it.

use super::Access;
use super::cleanup::{self, Kind, Registration};
use super::paths::parent_folder;
use super::save_io::{self, SaveIo};
use crate::error::{Error, Result};
use crate::secret::random_array;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// `<target>.tmp.<16 random hex digits>`, beside the target.
pub fn temp_path(target: &Path) -> PathBuf {
    let suffix: [u8; 8] = random_array();
    let hex: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let mut name = target.as_os_str().to_os_string();
    name.push(format!(".tmp.{hex}"));
    PathBuf::from(name)
}

/// A file being written beside its target; [`AtomicFile::commit`] puts it in place. Dropped
/// uncommitted (an error, a panic), it removes its temporary file.
pub struct AtomicFile {
    io: Rc<dyn SaveIo>,
    tmp: PathBuf,
    target: PathBuf,
    file: Option<File>,
    registration: Registration,
    /// Renamed into place: nothing left to remove.
    committed: bool,
}

impl AtomicFile {
    /// Create the temporary file for `target` (whose links the caller has resolved), with the
    /// mode `target` gets.
    pub fn create(target: &Path, access: Access) -> Result<Self> {
        let io = save_io::current();
        let tmp = temp_path(target);
        let (file, registration) =
            cleanup::register(&tmp, Kind::File, || io.create_new(&tmp, access.mode()))
            .map_err(|e| {
                // The user named `target`, not the temporary file: a missing folder is theirs.
                if e.kind() == std::io::ErrorKind::NotFound {
                    Error::io_at("create", target, &e)
                        .reworded_hint("the folder of this path does not exist; create it first or choose another path")
                } else {
                    Error::io_at("create the temporary file", &tmp, &e)
                }
            })?;
        Ok(AtomicFile {
            io,
            tmp,
            target: target.to_path_buf(),
            file: Some(file),
            registration,
            committed: false,
        })
    }

    /// The file this one replaces on commit.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary file being written.
    pub fn temp(&self) -> &Path {
        &self.tmp
    }

    /// Write all of `bytes`; an error names the temporary file.
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let file = self.file.as_mut().expect("open until commit");
        save_io::write_all(&*self.io, file, &self.tmp, bytes)
            .map_err(|e| Error::io_at("write", &self.tmp, &e))
    }

    /// fsync, rename over the target, fsync the folder.
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take().expect("committed once");
        self.io
            .sync_file(&file, &self.tmp)
            .map_err(|e| Error::io_at("sync", &self.tmp, &e))?;
        drop(file);
        let (io, tmp, target) = (&self.io, &self.tmp, &self.target);
        self.registration
            .release_with(|| io.rename(tmp, target))
            .map_err(|e| Error::io_at("replace", target, &e))?;
        self.committed = true;
        sync_folder_after_rename(&*self.io, &self.target)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let file = self.file.as_mut().expect("open until commit");
        self.io.write(file, &self.tmp, buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        // Writes go straight to the file; commit syncs it.
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            drop(self.file.take());
            let _ = self.io.remove_file(&self.tmp);
        }
    }
}

/// The new name is in place; make it durable. From here an error must not say the write
/// failed outright, only that it may not survive a power loss.
fn sync_folder_after_rename(io: &dyn SaveIo, target: &Path) -> Result<()> {
    let folder = parent_folder(target);
    match io.sync_folder(folder) {
        Ok(()) => Ok(()),
        // File systems that cannot sync a folder (some FUSE mounts): nothing more to do.
        Err(e) if folder_sync_unsupported(&e) => Ok(()),
        Err(e) => Err(Error::io(
            format!(
                "the new {} is in place, but cannot sync its folder {}: {e}; the change may not \
                 survive a power loss",
                target.display(),
                folder.display()
            ),
            "check the device; if the power fails before it syncs, the previous version may \
             come back",
        )),
    }
}

fn folder_sync_unsupported(e: &io::Error) -> bool {
    use rustix::io::Errno;
    let raw = e.raw_os_error();
    [Errno::INVAL, Errno::NOTSUP, Errno::OPNOTSUPP]
        .iter()
        .any(|errno| raw == Some(errno.raw_os_error()))
}

/// Atomically replace (or create) `target` with `bytes`.
pub fn replace(target: &Path, bytes: &[u8], access: Access) -> Result<()> {
    let mut f = AtomicFile::create(target, access)?;
    f.write_bytes(bytes)?;
    f.commit()
}

/// Create `path` with `bytes`, failing if it exists: for files that must never replace another
/// (init's revocation statement). On error, or on a signal while it is being written, nothing
/// is left at `path`.
pub fn create_new(path: &Path, bytes: &[u8], access: Access) -> Result<()> {
    let io = save_io::current();
    let (mut f, mut registration) =
        cleanup::register(path, Kind::File, || io.create_new(path, access.mode()))
            .map_err(|e| Error::io_at("create", path, &e))?;
    let written = save_io::write_all(&*io, &mut f, path, bytes)
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
        registration
            .release_with(|| match io.sync_folder(folder) {
                Err(e) if folder_sync_unsupported(&e) => Ok(()),
                other => other,
            })
            .map_err(|e| Error::io_at("sync the folder", folder, &e))
    });
    if result.is_err() {
        let _ = io.remove_file(path);
    }
    result
}

/// Removes `<target>.tmp.<16 hex digits>` files beside `target`: what a save killed between
/// creating its temporary file and the rename leaves behind (SIGKILL, power loss). Call it only
/// while holding the vault lock (every vault writer holds it, so such a file belongs to a
/// writer that died). A leftover is a whole or partial vault sealed under the password of its
/// time: after `vault passwd` it would still open with the old one. Best effort.
pub fn remove_stale_temps(target: &Path) {
    let Some(name) = target.file_name() else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(parent_folder(target)) else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};

    fn names(dir: &Path) -> Vec<std::ffi::OsString> {
        let mut n: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn replaces_whole_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("v.nxq");
        replace(&target, b"one", Access::Private).unwrap();
        replace(&target, b"two", Access::Private).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(names(dir.path()), vec![std::ffi::OsString::from("v.nxq")]);
    }

    #[test]
    fn failure_removes_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        // Renaming a file over a non-empty directory fails after the temp file was written.
        let target = dir.path().join("occupied");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("x"), b"x").unwrap();
        assert!(replace(&target, b"data", Access::Private).is_err());
        assert_eq!(
            names(dir.path()),
            vec![std::ffi::OsString::from("occupied")]
        );
    }

    #[test]
    fn streamed_file_appears_only_on_commit_and_is_registered_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        let mut f = AtomicFile::create(&target, Access::Private).unwrap();
        f.write_all(b"partial").unwrap();
        assert!(!target.exists());
        assert!(cleanup::is_registered(f.temp()));
        let tmp = f.temp().to_path_buf();
        drop(f);
        assert!(!cleanup::is_registered(&tmp));
        assert!(names(dir.path()).is_empty(), "temp file left behind");
        let mut f = AtomicFile::create(&target, Access::Private).unwrap();
        f.write_all(b"whole").unwrap();
        let tmp = f.temp().to_path_buf();
        f.commit().unwrap();
        assert!(!cleanup::is_registered(&tmp));
        assert_eq!(std::fs::read(&target).unwrap(), b"whole");
        assert_eq!(names(dir.path()).len(), 1);
    }

    #[test]
    fn create_new_refuses_existing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.asc");
        create_new(&p, b"a", Access::Public).unwrap();
        assert!(!cleanup::is_registered(&p));
        assert!(create_new(&p, b"b", Access::Public).is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"a");
    }

    /// Public files get 0644 less the umask; the process umask is not changed here (tests run
    /// in threads), so compare with what open(2) gives a fresh 0644 file in the same folder.
    #[test]
    fn public_files_are_readable_by_others_private_ones_not() {
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let reference = dir.path().join("reference");
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&reference)
            .unwrap();
        let public = dir.path().join("export.asc");
        replace(&public, b"x", Access::Public).unwrap();
        assert_eq!(mode(&public), mode(&reference));
        let private = dir.path().join("secret");
        replace(&private, b"x", Access::Private).unwrap();
        assert_eq!(mode(&private), 0o600);
        // A private file replacing a public one does not inherit its mode.
        replace(&public, b"y", Access::Private).unwrap();
        assert_eq!(mode(&public), 0o600);
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

    #[test]
    fn unsupported_folder_sync_is_not_an_error() {
        assert!(folder_sync_unsupported(&rustix::io::Errno::INVAL.into()));
        assert!(!folder_sync_unsupported(&rustix::io::Errno::IO.into()));
    }
}

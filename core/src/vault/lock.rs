//! The writers' lock: `<vault>.lock`, mode 0600, never renamed or deleted. Locking the vault file
//! itself would be wrong: a rename leaves a waiter holding the old, dead inode.

use crate::error::{Error, Result, Setting};
use rustix::fs::{FlockOperation, OFlags, flock};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long writers wait for the lock unless `--lock-timeout` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(25);

/// Held while a writer reads, changes and replaces the vault; released on drop.
#[derive(Debug)]
pub(crate) struct VaultLock {
    _file: File,
}

/// The lock file of a vault: its path with `.lock` appended.
pub fn lock_path(vault: &Path) -> PathBuf {
    let mut name = vault.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

impl VaultLock {
    /// Wait up to `timeout` for the exclusive lock, then fail with exit 5 "vault is busy".
    pub fn acquire(vault: &Path, timeout: Duration) -> Result<Self> {
        let path = lock_path(vault);
        let file = open_lock_file(&path)?;
        let deadline = Instant::now() + timeout;
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(VaultLock { _file: file }),
                Err(e)
                    if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted =>
                {
                    if Instant::now() >= deadline {
                        return Err(Error::io(
                            format!(
                                "vault is busy: another nexusq process has held {} for {} s",
                                path.display(),
                                timeout.as_secs_f32()
                            ),
                            "wait for it to finish and try again, or wait longer for the lock",
                        )
                        .about(Setting::LockTimeout));
                    }
                    std::thread::sleep(POLL);
                }
                Err(e) => {
                    return Err(Error::io_at("lock", &path, &std::io::Error::from(e)));
                }
            }
        }
    }
}

/// Open or create the lock file without following a symbolic link (a planted link would make
/// the chmod below change any file of the user's), and accept only a regular file.
fn open_lock_file(path: &Path) -> Result<File> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let refuse = |what: &str| {
        Error::io(
            format!(
                "the lock file {} is {what}, not a regular file; nexusq does not use it",
                path.display()
            ),
            "remove it (nexusq creates a new one), then try again",
        )
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        // NONBLOCK: opening a FIFO planted there must not hang; it is refused below.
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
                refuse("a symbolic link")
            } else {
                Error::io_at("open the lock file", path, &e)
            }
        })?;
    let meta = file
        .metadata()
        .map_err(|e| Error::io_at("inspect the lock file", path, &e))?;
    if !meta.file_type().is_file() {
        return Err(refuse("a device, FIFO or socket"));
    }
    // A lock file made by someone else may be looser; it holds nothing secret, but keep the
    // promise of mode 0600. Best effort (it may belong to another user), and only for a file
    // with no other name, which could be another file of the user's.
    if meta.permissions().mode() & 0o777 != 0o600 && meta.nlink() == 1 {
        let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_locker_times_out_then_succeeds_after_release() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("v.nxq");
        let first = VaultLock::acquire(&vault, DEFAULT_TIMEOUT).unwrap();
        let start = Instant::now();
        let err = VaultLock::acquire(&vault, Duration::from_millis(200)).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Io);
        assert!(err.message().contains("vault is busy"));
        assert!(start.elapsed() >= Duration::from_millis(200));
        drop(first);
        VaultLock::acquire(&vault, Duration::from_millis(200)).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(lock_path(&vault))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[cfg(test)]
mod lock_file_tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_symlinked_lock_file_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("v.nxq");
        let precious = dir.path().join("precious");
        std::fs::write(&precious, b"mine").unwrap();
        std::fs::set_permissions(&precious, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(&precious, lock_path(&vault)).unwrap();
        let err = VaultLock::acquire(&vault, Duration::from_millis(50)).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::Io);
        assert!(err.message().contains("symbolic link"), "{}", err.message());
        assert!(err.hint().contains("remove it"), "{}", err.hint());
        let mode = std::fs::metadata(&precious).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "the link's target was chmod-ed");
    }

    #[test]
    fn a_fifo_or_folder_lock_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("v.nxq");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            lock_path(&vault),
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let err = VaultLock::acquire(&vault, Duration::from_millis(50)).unwrap_err();
        assert!(
            err.message().contains("not a regular file"),
            "{}",
            err.message()
        );
        let other = dir.path().join("w.nxq");
        std::fs::create_dir(lock_path(&other)).unwrap();
        assert_eq!(
            VaultLock::acquire(&other, Duration::from_millis(50))
                .unwrap_err()
                .kind(),
            crate::error::ErrorKind::Io
        );
    }

    #[test]
    fn a_hard_linked_lock_file_is_not_chmod_ed() {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("v.nxq");
        let precious = dir.path().join("precious");
        std::fs::write(&precious, b"mine").unwrap();
        std::fs::set_permissions(&precious, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::hard_link(&precious, lock_path(&vault)).unwrap();
        drop(VaultLock::acquire(&vault, Duration::from_millis(50)).unwrap());
        let mode = std::fs::metadata(&precious).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644);
    }
}

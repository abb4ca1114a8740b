//! The writers' lock: `<vault>.lock`, mode 0600, never renamed or deleted. Locking the vault file
//! itself would be wrong: a rename leaves a waiter holding the old, dead inode.

use crate::error::{Error, Result};
use rustix::fs::{FlockOperation, flock};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(25);

/// Held while a writer reads, changes and replaces the vault; released on drop.
#[derive(Debug)]
pub struct VaultLock {
    _file: File,
}

pub fn lock_path(vault: &Path) -> PathBuf {
    let mut name = vault.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

impl VaultLock {
    /// Wait up to `timeout` for the exclusive lock, then fail with exit 5 "vault is busy".
    pub fn acquire(vault: &Path, timeout: Duration) -> Result<Self> {
        let path = lock_path(vault);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Error::io_at("open the lock file", &path, &e))?;
        // A lock file made by someone else may be looser; it holds nothing secret, but keep
        // the promise of mode 0600. Best effort: it may belong to another user.
        {
            use std::os::unix::fs::PermissionsExt;
            if file
                .metadata()
                .is_ok_and(|m| m.permissions().mode() & 0o777 != 0o600)
            {
                let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
            }
        }
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
                            "wait for it to finish and try again, or raise --lock-timeout",
                        ));
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
        assert_eq!(err.exit(), crate::error::Exit::Io);
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

//! The throwaway vault benchmarks measure: a new 0700 folder under `std::env::temp_dir()`
//! (`$TMPDIR`, as Termux needs), a vault in it with a fixed password, and removal of the
//! folder when done, on error, and on SIGINT / SIGTERM / SIGHUP. The user's vault is never touched.

use crate::error::{Error, Result};
use crate::fs::cleanup;
use crate::secret::{Password, random_array};
use crate::suite::Backend;
use crate::vault::{self, KdfParams, SaveOptions};
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// The throwaway vault's password. Not a secret: the vault holds nothing of the user's.
pub const PASSWORD: &str = "nexusq benchmark throwaway vault";

/// Prefix of the folders this module makes, so stray ones are recognisable.
pub(crate) const FOLDER_PREFIX: &str = "nexusq-bench-";

/// A new private folder, removed with everything in it on drop.
#[derive(Debug)]
pub(crate) struct ScratchDir {
    path: PathBuf,
    // Registered with the signal handler, which removes the folder on SIGINT/SIGTERM/SIGHUP.
    _registration: cleanup::Registration,
}

impl ScratchDir {
    /// `<temp dir>/nexusq-bench-<pid>-<random>`, mode 0700, created new (never an existing one).
    pub fn new() -> Result<Self> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        let base = std::env::temp_dir();
        let suffix: [u8; 6] = random_array();
        let hex: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
        let path = base.join(format!("{FOLDER_PREFIX}{}-{hex}", std::process::id()));
        // Created and registered as one step for the signal handler: no folder can appear
        // after its sweep.
        let made = cleanup::register(&path, cleanup::Kind::Folder, || {
            std::fs::DirBuilder::new().mode(0o700).create(&path)?;
            // The umask can only remove bits; make sure of exactly 0700.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).inspect_err(
                |_| {
                    let _ = std::fs::remove_dir(&path);
                },
            )
        });
        match made {
            Ok(((), registration)) => Ok(ScratchDir {
                path,
                _registration: registration,
            }),
            Err(e) => Err(Error::io(
                format!(
                    "cannot create a temporary folder in {}: {e}",
                    base.display()
                ),
                "set TMPDIR to a writable folder (on Termux it is $PREFIX/tmp)",
            )),
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        remove_folder(&self.path);
    }
}

/// Remove a folder and its contents; retried, because a save may be creating a file in it at
/// the same instant (after the folder is gone nothing can recreate it).
fn remove_folder(path: &Path) {
    for _ in 0..5 {
        match std::fs::remove_dir_all(path) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
}

/// On SIGINT, SIGTERM or SIGHUP: the handler of `crate::fs::cleanup` removes the scratch
/// folders (and any temporary file), then calls `before_exit` (the command line uses it to
/// tidy the terminal) and exits with status 128 + the signal number.
pub fn install_interrupt_handler(before_exit: impl Fn() + Send + 'static) -> Result<()> {
    cleanup::on_interrupt(before_exit).map_err(|e| {
        Error::io(
            format!("cannot install the Ctrl-C handler: {e}"),
            "the throwaway vault would be left behind if interrupted; try again",
        )
    })
}

/// Whether the signal handler has started cleaning up.
pub fn interrupted() -> bool {
    cleanup::interrupted()
}

/// If the signal handler is cleaning up, wait for it to end the process: whatever failed
/// meanwhile failed because its folder was removed under it, and must not be reported (or
/// exit with another status). Returns at once otherwise.
pub fn wait_if_interrupted() {
    cleanup::wait_if_interrupted()
}

/// A vault made for measuring, in its own scratch folder; removed on drop.
pub struct ThrowawayVault {
    path: PathBuf,
    password: Password,
    params: KdfParams,
    // Dropped last: the folder goes after everything in it is closed.
    dir: ScratchDir,
}

impl ThrowawayVault {
    /// Create the folder and a fresh vault in it with `params` and the fixed password.
    pub fn create(params: KdfParams, backend: &dyn Backend) -> Result<Self> {
        let dir = ScratchDir::new()?;
        let path = dir.path().join("bench.nxq");
        let password = Password::new(Zeroizing::new(PASSWORD.to_string()));
        let opts = SaveOptions {
            // The vault and its password are throwaway; where $TMPDIR points is the user's call.
            allow_shared_storage: true,
            ..SaveOptions::default()
        };
        vault::create(
            &path,
            &password,
            params,
            &opts,
            backend,
            crate::time::now(),
            |_| Ok(()),
        )?;
        Ok(ThrowawayVault {
            path,
            password,
            params,
            dir,
        })
    }

    /// The vault file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The scratch folder that holds it.
    pub fn folder(&self) -> &Path {
        self.dir.path()
    }

    /// The fixed password that opens it.
    pub fn password(&self) -> &Password {
        &self.password
    }

    /// The Argon2id parameters it was made with.
    pub fn params(&self) -> KdfParams {
        self.params
    }

    /// Options for saving it: shared storage allowed, since the vault is throwaway.
    pub fn save_options(&self) -> SaveOptions {
        SaveOptions {
            allow_shared_storage: true,
            ..SaveOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn scratch_folder_is_private_and_removed() {
        let dir = ScratchDir::new().unwrap();
        let path = dir.path().to_path_buf();
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(FOLDER_PREFIX)
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::write(path.join("f"), b"x").unwrap();
        assert!(cleanup::is_registered(&path));
        drop(dir);
        assert!(!path.exists());
        assert!(!cleanup::is_registered(&path));
    }
}

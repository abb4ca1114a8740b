//! The throwaway vault benchmarks measure: a new 0700 folder under `std::env::temp_dir()`
//! (`$TMPDIR`, as Termux needs), a vault in it with a fixed password, and removal of the
//! folder when done, on error, and on SIGINT / SIGTERM. The user's vault is never touched.

use crate::error::{Error, Result};
use crate::secret::{Password, random_array};
use crate::suite::Backend;
use crate::vault::{self, KdfParams, SaveOptions};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use zeroize::Zeroizing;

/// The throwaway vault's password. Not a secret: the vault holds nothing of the user's.
pub const PASSWORD: &str = "nexusq benchmark throwaway vault";

/// Prefix of the folders this module makes, so stray ones are recognisable.
pub const FOLDER_PREFIX: &str = "nexusq-bench-";

/// Folders that exist right now, for the signal handler.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Set by the signal handler before it removes anything.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A new private folder, removed with everything in it on drop.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// `<temp dir>/nexusq-bench-<pid>-<random>`, mode 0700, created new (never an existing one).
    pub fn new() -> Result<Self> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        let base = std::env::temp_dir();
        let suffix: [u8; 6] = random_array();
        let hex: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
        let path = base.join(format!("{FOLDER_PREFIX}{}-{hex}", std::process::id()));
        // Created and registered under the lock the signal handler holds from before it
        // removes anything until the process ends: no folder can appear after its sweep.
        let mut live = live();
        let made = std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .and_then(|()| {
                // The umask can only remove bits; make sure of exactly 0700.
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))
            });
        if let Err(e) = made {
            let _ = std::fs::remove_dir(&path);
            return Err(Error::io(
                format!(
                    "cannot create a temporary folder in {}: {e}",
                    base.display()
                ),
                "set TMPDIR to a writable folder (on Termux it is $PREFIX/tmp)",
            ));
        }
        live.push(path.clone());
        Ok(ScratchDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let mut live = live();
        remove_folder(&self.path);
        live.retain(|p| p != &self.path);
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

/// On SIGINT or SIGTERM: remove the scratch folders, call `before_exit` (the command line
/// uses it to tidy the terminal) and exit with status 130. Installed once per process; a
/// second call keeps the first handler.
pub fn install_interrupt_handler(before_exit: impl Fn() + Send + 'static) -> Result<()> {
    match ctrlc::set_handler(move || {
        INTERRUPTED.store(true, Ordering::SeqCst);
        // Held until the process ends, so no scratch folder is made or forgotten meanwhile.
        let live = live();
        for p in live.iter() {
            remove_folder(p);
        }
        before_exit();
        std::process::exit(130);
    }) {
        Ok(()) | Err(ctrlc::Error::MultipleHandlers) => Ok(()),
        Err(e) => Err(Error::io(
            format!("cannot install the Ctrl-C handler: {e}"),
            "the throwaway vault would be left behind if interrupted; try again",
        )),
    }
}

/// Whether a signal handler installed here has started cleaning up.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// If the signal handler is cleaning up, wait for it to end the process with status 130:
/// whatever failed meanwhile failed because its folder was removed under it, and must not
/// be reported (or exit with another status). Returns at once otherwise.
pub fn wait_if_interrupted() {
    while interrupted() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
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

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn folder(&self) -> &Path {
        self.dir.path()
    }

    pub fn password(&self) -> &Password {
        &self.password
    }

    pub fn params(&self) -> KdfParams {
        self.params
    }

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
        assert!(live().contains(&path));
        drop(dir);
        assert!(!path.exists());
        assert!(!live().contains(&path));
    }
}

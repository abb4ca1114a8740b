//! Files and folders that must not outlive an interrupted process: temporary outputs (which may
//! hold decrypted plaintext or a vault under an old password), half-written create-new files,
//! and the benchmarks' throwaway folders.
//!
//! On SIGINT, SIGTERM or SIGHUP a thread removes every registered path and ends the process
//! with status 128 + the signal number, the shells' convention. The registry's lock is held
//! while a path is created and registered, and while a temporary file is renamed into place,
//! and the handler takes it before it removes anything and keeps it until the process ends:
//! so it sees each path either not yet made, or made and registered, or renamed away, never
//! half-way, and nothing new can be made after its sweep.
//!
//! A SIGKILL or a power loss cannot be caught: then a `<file>.tmp.<hex>` may stay behind (the
//! next save of a vault removes its own, see [`super::remove_stale_temps`]).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// What a registered path is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file, removed by its path (whatever file is there by then).
    File,
    /// A folder, removed with everything in it.
    Folder,
    /// A file removed only while it is still the one registered (the same device and inode):
    /// one that another process may replace, such as the key agent's socket and pid file
    /// (docs/agent.md).
    OwnFile,
}

/// A file's device and inode.
pub(crate) type FileId = (u64, u64);

fn file_id(path: &Path) -> io::Result<FileId> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path)?;
    Ok((m.dev(), m.ino()))
}

/// Remove `path` if it is still the file `id` names; whether it was removed. Another file in
/// its place (or none) is left alone.
pub(crate) fn remove_own(path: &Path, id: FileId) -> io::Result<bool> {
    match file_id(path) {
        Ok(now) if now == id => match std::fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        },
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

struct Entry {
    id: u64,
    path: PathBuf,
    kind: Kind,
    /// For [`Kind::OwnFile`]: the file as it was registered.
    file: Option<FileId>,
}

static LIVE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
type Hook = Box<dyn Fn() + Send>;
static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<Entry>> {
    // A test that unwinds out of a rename poisons the lock; the list itself stays consistent.
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Install the signal handler (once per process; later calls return the first outcome).
pub fn install() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| spawn_handler().map_err(|e| e.to_string()))
        .clone()
        .map_err(|e| io::Error::other(format!("cannot install the signal handler: {e}")))
}

fn spawn_handler() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("nexusq-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                // Held until the process ends: nothing is made or renamed after the sweep.
                let live = live();
                for e in live.iter() {
                    remove(&e.path, e.kind, e.file);
                }
                for hook in HOOKS.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                    hook();
                }
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

fn remove(path: &Path, kind: Kind, file: Option<FileId>) {
    match kind {
        Kind::File => {
            let _ = std::fs::remove_file(path);
        }
        Kind::OwnFile => {
            if let Some(id) = file {
                let _ = remove_own(path, id);
            }
        }
        // Retried: a save may be creating a file in it at the same instant (after the folder
        // is gone nothing can recreate it).
        Kind::Folder => {
            for _ in 0..5 {
                match std::fs::remove_dir_all(path) {
                    Ok(()) => return,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return,
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
                }
            }
        }
    }
}

/// Run `hook` after the sweep, before the process exits (the benchmarks tidy the terminal).
pub fn on_interrupt(hook: impl Fn() + Send + 'static) -> io::Result<()> {
    install()?;
    HOOKS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Box::new(hook));
    Ok(())
}

/// Whether the handler has started cleaning up (the process is about to exit).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// If the handler is cleaning up, wait for it to end the process: whatever failed meanwhile
/// failed because its file was removed under it, and must not be reported (or exit with
/// another status). Returns at once otherwise.
pub fn wait_if_interrupted() {
    while interrupted() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// After a signal this process raised itself (the password prompt turns Ctrl-C into SIGINT):
/// give the handler up to `limit` to start, then wait while it ends the process. Returns only
/// if no handler acted in time.
pub fn wait_for_handler(limit: std::time::Duration) {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if interrupted() {
            wait_if_interrupted();
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A registered path; dropping it unregisters the path (it does not remove it: the owner does,
/// or renames it away).
#[derive(Debug)]
pub struct Registration {
    id: u64,
    file: Option<FileId>,
}

/// Make `path` with `create` and register it, as one step for the signal handler. `create`
/// must make the path new (never take over an existing one), since the handler removes it;
/// a [`Kind::OwnFile`] may replace one, since only the file made is removed.
pub fn register<T>(
    path: &Path,
    kind: Kind,
    create: impl FnOnce() -> io::Result<T>,
) -> io::Result<(T, Registration)> {
    install()?;
    let mut live = live();
    let made = create()?;
    let file = match kind {
        Kind::OwnFile => Some(file_id(path)?),
        Kind::File | Kind::Folder => None,
    };
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    live.push(Entry {
        id,
        path: path.to_path_buf(),
        kind,
        file,
    });
    Ok((made, Registration { id, file }))
}

impl Registration {
    /// For a [`Kind::OwnFile`]: the file registered (device, inode).
    pub fn file(&self) -> Option<FileId> {
        self.file
    }

    /// Run `f` (a rename away, or the last step that makes the file final) so the handler sees
    /// it done or not done; once `f` succeeds the path is no longer the handler's to remove.
    pub(crate) fn release_with<T>(&mut self, f: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        let mut live = live();
        let r = f()?;
        live.retain(|e| e.id != self.id);
        self.id = 0;
        Ok(r)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if self.id != 0 {
            live().retain(|e| e.id != self.id);
        }
    }
}

/// Is `path` registered right now? (For tests.)
pub fn is_registered(path: &Path) -> bool {
    live().iter().any(|e| e.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_lasts_until_released_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let (_, mut reg) = register(&a, Kind::File, || std::fs::write(&a, b"x")).unwrap();
        assert!(is_registered(&a));
        reg.release_with(|| Ok(())).unwrap();
        assert!(!is_registered(&a));
        let b = dir.path().join("b");
        let (_, reg) = register(&b, Kind::File, || std::fs::write(&b, b"x")).unwrap();
        assert!(is_registered(&b));
        drop(reg);
        assert!(!is_registered(&b));
        // A failed creation registers nothing.
        let c = dir.path().join("missing/c");
        assert!(register(&c, Kind::File, || std::fs::write(&c, b"x")).is_err());
        assert!(!is_registered(&c));
    }

    #[test]
    fn an_own_file_is_removed_only_while_it_is_the_one_registered() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let (_, reg) = register(&a, Kind::OwnFile, || std::fs::write(&a, b"mine")).unwrap();
        let mine = reg.file().unwrap();
        // Replaced by another file (renamed over it): left alone.
        let b = dir.path().join("b");
        std::fs::write(&b, b"theirs").unwrap();
        std::fs::rename(&b, &a).unwrap();
        assert!(!remove_own(&a, mine).unwrap());
        remove(&a, Kind::OwnFile, Some(mine));
        assert_eq!(std::fs::read(&a).unwrap(), b"theirs");
        // Its own file is removed; a missing one is no error.
        let theirs = file_id(&a).unwrap();
        assert!(remove_own(&a, theirs).unwrap());
        assert!(!remove_own(&a, theirs).unwrap());
    }

    #[test]
    fn a_failed_release_keeps_the_path_registered() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let (_, mut reg) = register(&a, Kind::File, || std::fs::write(&a, b"x")).unwrap();
        assert!(
            reg.release_with(|| Err::<(), _>(io::Error::other("no")))
                .is_err()
        );
        assert!(is_registered(&a));
    }
}

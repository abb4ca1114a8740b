//! The file-system steps of a save, behind one trait so that tests can fail or stop any one of
//! them (tests/system/faults.rs). Production always uses [`RealIo`]; the cost of the seam is
//! one thread-local read per file written.

use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::rc::Rc;

/// The steps. The provided methods are the real ones; a test implementation overrides them to
/// return an error or to stop the save (see [`with_save_io`]).
pub trait SaveIo {
    /// Create `path` with `mode` (less the umask), failing if it exists.
    fn create_new(&self, path: &Path, mode: u32) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(path)
    }

    /// Open an existing device or FIFO for writing (no create, no rename).
    fn open_existing(&self, path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .truncate(true)
            .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
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

    /// rename(2) `from` over `to`, in one folder.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    /// fsync a folder, so a rename or a new name in it survives a power loss.
    fn sync_folder(&self, folder: &Path) -> io::Result<()> {
        File::open(folder)?.sync_all()
    }

    /// Remove a file this process made (cleanup after a failure). A test standing in for a
    /// killed process removes nothing.
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }
}

/// The real file system.
pub struct RealIo;

impl SaveIo for RealIo {}

thread_local! {
    // Per thread, so a test's fault injector never reaches files written by other test threads.
    static TEST_IO: RefCell<Option<Rc<dyn SaveIo>>> = const { RefCell::new(None) };
}

/// Test hook: run `f` with every file written on this thread going through `io` instead of
/// [`RealIo`]. Public only because integration tests drive the real commands (`cli::run`),
/// which have no I/O parameter; not for production use.
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

/// The I/O layer for this thread: the test hook's, else the real one.
pub fn current() -> Rc<dyn SaveIo> {
    TEST_IO
        .with(|c| c.borrow().clone())
        .unwrap_or_else(|| Rc::new(RealIo))
}

/// `write_all` over [`SaveIo::write`], so a test sees (and can cut short) every `write(2)`.
pub fn write_all(io: &dyn SaveIo, file: &mut File, path: &Path, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match io.write(file, path, buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

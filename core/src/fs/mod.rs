//! Files in general, for everything that writes them: the vault's saves, `-o` outputs, init's
//! revocation statement and exports (docs/vault-format.md section 9, docs/file-encryption.md);
//! and for the files read whole.
//!
//! - [`atomic`]: a file that appears whole or not at all (temporary file, fsync, rename, folder
//!   fsync), and create-new files.
//! - [`input`]: opening a file that is read whole: regular files only, never blocking; and names
//!   below a folder without leaving it.
//! - [`output`]: what an `-o PATH` is (a file to replace, a device or FIFO to write into, one of
//!   our own descriptors) and the writer for it.
//! - [`cleanup`]: the temporary files that exist right now, removed on SIGINT, SIGTERM, SIGHUP.
//! - [`paths`]: parent folders, symbolic links, Android shared storage.
//! - [`save_io`]: the seam every file-system step goes through, so tests can fail any one.
//!
//! A leaf: it knows nothing of vaults, identities or the command line.

pub mod atomic;
pub mod cleanup;
pub mod input;
pub mod output;
pub mod paths;
pub mod save_io;

/// Who may read a file nexusq writes (docs/cli.md, "Files and modes"). Modes are given to
/// `open(2)`, so the umask still narrows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Vaults, decrypted files, shared secrets, the contacts book: 0600.
    Private,
    /// Made to be handed on (exports, signatures, revocation statements, ciphertexts): 0644.
    Public,
}

impl Access {
    /// The permission bits a new file gets (before the umask).
    pub fn mode(self) -> u32 {
        match self {
            Access::Private => 0o600,
            Access::Public => 0o644,
        }
    }
}

pub use atomic::{AtomicFile, create_new, remove_stale_temps, replace, temp_path};
pub use output::{OutputFile, OutputKind};
pub use paths::{folder_is_shared_storage, is_shared_storage, parent_folder, resolve_links};
pub use save_io::{RealIo, SaveIo, with_save_io};

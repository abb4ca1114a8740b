//! `contacts.nxq` on disk: where it is, reading it (checked against the vault), and changing
//! it under the lock `<book>.lock` (taken before the read, held through the atomic replace and
//! the folder fsync, as for the vault).

use super::book::Book;
use super::{format, seal};
use crate::error::{Error, Result};
use crate::identity::{PublicIdentity, SecretSection};
use crate::suite::Backend;
use crate::vault::SaveOptions;
use crate::vault::lock::VaultLock;
use std::io::Read;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "contacts.nxq";

/// The book beside the vault: `contacts.nxq` in the vault's folder (the folder of the file a
/// linked vault points to).
pub fn beside(vault: &Path) -> PathBuf {
    let real = crate::fs::resolve_links(vault).unwrap_or_else(|_| vault.to_path_buf());
    crate::fs::parent_folder(&real).join(FILE_NAME)
}

/// The book of `vault` when no `--contacts` is given: `$NEXUSQ_CONTACTS` (when set and not
/// empty), else [`beside`] the vault.
pub fn default_path(vault: &Path) -> PathBuf {
    match std::env::var_os("NEXUSQ_CONTACTS").filter(|p| !p.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => beside(vault),
    }
}

fn damaged(path: &Path, why: &str) -> Error {
    Error::vault(
        format!(
            "the contacts book {} cannot be trusted: {why}",
            crate::untrusted::path(path)
        ),
        "nexusq will neither use nor replace it; restore it from a backup, or move it away \
         (a missing book is an empty one) and add the contacts again",
    )
}

/// The file's bytes, or None when there is no book. Refuses folders, devices and FIFOs
/// (opened without blocking) and anything over the size bound.
fn read_file(path: &Path) -> Result<Option<Vec<u8>>> {
    use crate::fs::input::OpenError;
    let file = match crate::fs::input::open_regular(path) {
        Ok(f) => f,
        Err(OpenError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(OpenError::Io(e)) => return Err(Error::io_at("open the contacts book", path, &e)),
        Err(_) => return Err(damaged(path, "it is not a regular file")),
    };
    let meta = file
        .metadata()
        .map_err(|e| Error::io_at("inspect the contacts book", path, &e))?;
    if meta.len() > format::MAX_FILE_LEN {
        return Err(damaged(path, "it is larger than any book nexusq writes"));
    }
    let mut bytes = Vec::new();
    file.take(format::MAX_FILE_LEN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io_at("read the contacts book", path, &e))?;
    Ok(Some(bytes))
}

/// A book as read: the contents, and when and by which generation it was saved.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub book: Book,
    pub saved_at: u64,
    pub signed_by: u32,
}

/// Read and authenticate the book against the vault's public identity. A missing file is an
/// empty book; `vault` is needed only when there is a file (None: no vault to check against).
pub fn load(path: &Path, vault: Option<&PublicIdentity>, backend: &dyn Backend) -> Result<Loaded> {
    let Some(bytes) = read_file(path)? else {
        return Ok(Loaded {
            book: Book::default(),
            saved_at: 0,
            signed_by: 0,
        });
    };
    let Some(vault) = vault else {
        return Err(damaged(
            path,
            "there is no vault to check it against (point --vault at the vault that saved it)",
        ));
    };
    let parsed = format::split(&bytes).map_err(|e| damaged(path, &e.0))?;
    seal::verify(backend, vault, &parsed.owner, parsed.body, &parsed.seal)
        .map_err(|why| damaged(path, &why))?;
    let (book, saved_at) = format::decode_body(parsed.body)
        .map_err(|e| damaged(path, &format!("it is signed but malformed: {}", e.0)))?;
    Ok(Loaded {
        book,
        saved_at,
        signed_by: parsed.seal.generation,
    })
}

/// Change the book: lock, read and check, apply `change`, and when it changed anything save
/// the new version (seq + 1, signed with the vault's newest key) atomically.
#[allow(clippy::too_many_arguments)]
pub fn modify<T>(
    path: &Path,
    opts: &SaveOptions,
    vault: &PublicIdentity,
    secrets: &SecretSection,
    backend: &dyn Backend,
    now: u64,
    change: impl FnOnce(&mut Book) -> Result<T>,
) -> Result<T> {
    let path = &crate::vault::resolve(path)?;
    crate::vault::check_save_location(path, opts)?;
    let _lock = VaultLock::acquire(path, opts.lock_timeout)?;
    let before = load(path, Some(vault), backend)?.book;
    let mut book = before.clone();
    let result = change(&mut book)?;
    if book != before {
        book.seq = before.seq + 1;
        save(path, &book, vault, secrets, backend, now)?;
    }
    Ok(result)
}

fn save(
    path: &Path,
    book: &Book,
    vault: &PublicIdentity,
    secrets: &SecretSection,
    backend: &dyn Backend,
    now: u64,
) -> Result<()> {
    let body = format::encode_body(book, &vault.root_id(), now);
    let rnd = zeroize::Zeroizing::new(crate::secret::random_array::<32>());
    let block = seal::sign(backend, vault, secrets, &body, now, &rnd)?;
    let mut bytes = body;
    bytes.extend_from_slice(&format::encode_seal(&block));
    crate::fs::replace(path, &bytes, crate::fs::Access::Private)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contacts::ContactKey;
    use crate::identity::NewIdentity;
    use crate::suite::rustcrypto::RustCrypto;

    #[test]
    fn save_load_and_tamper() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let me = NewIdentity::generate(&RustCrypto, 1_000);
        let alice = NewIdentity::generate(&RustCrypto, 1_000).public;
        let opts = SaveOptions::default();
        assert!(
            load(&path, None, &RustCrypto)
                .unwrap()
                .book
                .contacts
                .is_empty()
        );
        modify(
            &path,
            &opts,
            &me.public,
            &me.secrets,
            &RustCrypto,
            2_000,
            |b| b.add("alice", ContactKey::Identity(alice.clone()), true, 2_000),
        )
        .unwrap();
        let loaded = load(&path, Some(&me.public), &RustCrypto).unwrap();
        assert_eq!(loaded.book.seq, 1);
        assert_eq!(loaded.book.contacts[0].name, "alice");
        assert_eq!(loaded.signed_by, 1);
        // Every byte matters.
        let good = std::fs::read(&path).unwrap();
        for i in (0..good.len()).step_by(good.len() / 97) {
            let mut b = good.clone();
            b[i] ^= 0x01;
            std::fs::write(&path, &b).unwrap();
            let e = load(&path, Some(&me.public), &RustCrypto).unwrap_err();
            assert_eq!(e.exit(), crate::error::Exit::Vault, "flip at {i}");
        }
        // Another vault's identity does not verify it.
        std::fs::write(&path, &good).unwrap();
        let other = NewIdentity::generate(&RustCrypto, 1_000).public;
        let e = load(&path, Some(&other), &RustCrypto).unwrap_err();
        assert!(e.message().contains("belongs to identity"), "{e:?}");
        assert!(load(&path, None, &RustCrypto).is_err());
    }
}

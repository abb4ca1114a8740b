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
use sha2::Digest;
use std::io::Read;
use std::path::{Path, PathBuf};

/// File name of the book, beside the vault.
pub(crate) const FILE_NAME: &str = "contacts.nxq";

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

/// Refused because of its seal: what the fault means for the user.
fn seal_error(path: &Path, fault: &seal::SealFault) -> Error {
    match fault {
        seal::SealFault::Revoked { .. } => Error::vault(
            format!(
                "the contacts book {} cannot be trusted as it is: {fault}",
                crate::untrusted::path(path)
            ),
            "recover the contacts: with your password that shows the contacts the book holds \
             and, once you agree, signs it again with your current key",
        )
        .suggests(crate::error::Step::RecoverContacts),
        seal::SealFault::Untrusted(why) => damaged(path, why),
    }
}

/// A book as read: the contents, and when and by which generation it was saved.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The contents.
    pub book: Book,
    /// When it was saved (Unix seconds; 0 when there is no book yet).
    pub saved_at: u64,
    /// The generation whose key signed it (0 when there is no book yet).
    pub signed_by: u32,
}

fn empty() -> Loaded {
    Loaded {
        book: Book::default(),
        saved_at: 0,
        signed_by: 0,
    }
}

/// Split, check the seal against `vault` and decode.
fn authenticate(
    path: &Path,
    bytes: &[u8],
    vault: &PublicIdentity,
    backend: &dyn Backend,
) -> Result<std::result::Result<Loaded, (seal::SealFault, Loaded, u64)>> {
    let parsed = format::split(bytes).map_err(|e| damaged(path, &e.0))?;
    let verdict = seal::verify(backend, vault, &parsed.owner, parsed.body, &parsed.seal);
    if let Err(seal::SealFault::Untrusted(why)) = &verdict {
        return Err(damaged(path, why));
    }
    let (book, saved_at) = format::decode_body(parsed.body)
        .map_err(|e| damaged(path, &format!("it is signed but malformed: {}", e.0)))?;
    let loaded = Loaded {
        book,
        saved_at,
        signed_by: parsed.seal.generation,
    };
    Ok(match verdict {
        Ok(()) => Ok(loaded),
        Err(fault) => Err((fault, loaded, parsed.seal.signed_at)),
    })
}

/// Read and authenticate the book against the vault's public identity. A missing file is an
/// empty book; `vault` is needed only when there is a file (None: no vault to check against).
pub fn load(path: &Path, vault: Option<&PublicIdentity>, backend: &dyn Backend) -> Result<Loaded> {
    let Some(bytes) = read_file(path)? else {
        return Ok(empty());
    };
    let Some(vault) = vault else {
        return Err(damaged(
            path,
            "there is no vault to check it against (give the path of the vault that saved it)",
        )
        .about(crate::error::Setting::VaultPath));
    };
    authenticate(path, &bytes, vault, backend)?.map_err(|(fault, _, _)| seal_error(path, &fault))
}

/// The vault whose newest signing key signs the book: its file (read again under the book's
/// lock) and its unlocked identity.
pub struct Owner<'a> {
    /// The vault file.
    pub vault: &'a Path,
    /// Its public identity, as unlocked.
    pub public: &'a PublicIdentity,
    /// Its secrets, for the newest generation's signing key.
    pub secrets: &'a SecretSection,
}

/// The vault must still be the one that was unlocked: a book signed with a key that a rotation
/// has just revoked would be refused by every later read.
fn check_owner_current(owner: &Owner<'_>) -> Result<()> {
    if crate::vault::open(owner.vault)?.public != *owner.public {
        return Err(Error::io(
            "the vault changed while this command waited for the contacts book (rotated, or \
             its identity revoked); the book was not changed",
            "run the command again",
        ));
    }
    Ok(())
}

/// Change the book: lock, read and check, apply `change`, and when it changed anything save
/// the new version (seq + 1, signed with the vault's newest key) atomically.
pub fn modify<T>(
    path: &Path,
    opts: &SaveOptions,
    owner: &Owner<'_>,
    backend: &dyn Backend,
    now: u64,
    change: impl FnOnce(&mut Book) -> Result<T>,
) -> Result<T> {
    let path = &crate::vault::resolve(path)?;
    crate::vault::check_save_location(path, opts)?;
    let _lock = VaultLock::acquire(path, opts.lock_timeout)?;
    check_owner_current(owner)?;
    let before = load(path, Some(owner.public), backend)?.book;
    let mut book = before.clone();
    let result = change(&mut book)?;
    if book != before {
        book.seq = before.seq + 1;
        save(path, &book, owner.public, owner.secrets, backend, now)?;
    }
    Ok(result)
}

/// What [`carry_over`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Carried {
    /// There is no book.
    NoBook,
    /// The book, checked with the key that signed it, now carries the newest key's signature.
    Resealed {
        /// How many contacts the book holds.
        contacts: usize,
        /// The generation that had signed it.
        from: u32,
        /// The generation that signs it now.
        to: u32,
    },
}

/// After a rotation, while the caller still holds the vault's lock: check the book against the
/// identity as it was before (`before`, in which the key that signed it is not yet revoked)
/// and sign it again with the new generation, so that `rotate --compromised` leaves a book
/// that later reads trust (docs/contacts.md, "After a compromise"). An error leaves the book
/// as it was; the rotation stands either way.
pub fn carry_over(
    path: &Path,
    opts: &SaveOptions,
    before: &PublicIdentity,
    after: &PublicIdentity,
    secrets: &SecretSection,
    backend: &dyn Backend,
    now: u64,
) -> Result<Carried> {
    let path = &crate::vault::resolve(path)?;
    if read_file(path)?.is_none() {
        return Ok(Carried::NoBook);
    }
    crate::vault::check_save_location(path, opts)?;
    let _lock = VaultLock::acquire(path, opts.lock_timeout)?;
    let Some(bytes) = read_file(path)? else {
        return Ok(Carried::NoBook);
    };
    let loaded = authenticate(path, &bytes, before, backend)?
        .map_err(|(fault, _, _)| seal_error(path, &fault))?;
    let mut book = loaded.book;
    book.seq += 1;
    save(path, &book, after, secrets, backend, now)?;
    Ok(Carried::Resealed {
        contacts: book.contacts.len(),
        from: loaded.signed_by,
        to: after.newest().generation,
    })
}

/// A book refused only because the key that signed it was revoked since: its contents (their
/// signature holds), for the user to look at before `contacts recover` trusts them.
#[derive(Clone, Debug)]
pub struct RevokedSeal {
    /// The book's contents, whose signature holds under the revoked key.
    pub loaded: Loaded,
    /// When the book claims it was signed (the thief of the key could set any time).
    pub signed_at: u64,
    /// The first generation whose signing key is still trusted.
    pub revoked_before: u32,
    /// SHA-256 of the file as inspected: recovery re-signs exactly these bytes' contents.
    digest: [u8; 32],
}

/// What a book's seal says, for `contacts recover`.
#[derive(Clone, Debug)]
pub enum Inspection {
    /// There is no book.
    Missing,
    /// The seal holds under a trusted key: the book as [`load`] reads it.
    Trusted(Loaded),
    /// Sealed by a key revoked since: the contents, for the user to check.
    Revoked(RevokedSeal),
}

/// Read the book as [`load`] does, except that a seal by a revoked signing key is reported
/// with the contents instead of refused. Any other fault is the same error as [`load`]'s.
pub fn inspect(path: &Path, vault: &PublicIdentity, backend: &dyn Backend) -> Result<Inspection> {
    let Some(bytes) = read_file(path)? else {
        return Ok(Inspection::Missing);
    };
    Ok(match authenticate(path, &bytes, vault, backend)? {
        Ok(loaded) => Inspection::Trusted(loaded),
        Err((seal::SealFault::Revoked { revoked_before, .. }, loaded, signed_at)) => {
            Inspection::Revoked(RevokedSeal {
                loaded,
                signed_at,
                revoked_before,
                digest: sha2::Sha256::digest(&bytes).into(),
            })
        }
        Err((fault, _, _)) => return Err(seal_error(path, &fault)),
    })
}

/// `contacts recover`: sign again, with the vault's newest key, the book the user looked at
/// (`seen`), once they agreed to trust it. Refused when the file changed since it was shown.
pub fn recover(
    path: &Path,
    opts: &SaveOptions,
    owner: &Owner<'_>,
    seen: &RevokedSeal,
    backend: &dyn Backend,
    now: u64,
) -> Result<Loaded> {
    let path = &crate::vault::resolve(path)?;
    crate::vault::check_save_location(path, opts)?;
    let _lock = VaultLock::acquire(path, opts.lock_timeout)?;
    check_owner_current(owner)?;
    let bytes = read_file(path)?.unwrap_or_default();
    let digest: [u8; 32] = sha2::Sha256::digest(&bytes).into();
    if digest != seen.digest {
        return Err(Error::io(
            "the contacts book changed after it was shown; nothing was changed",
            "recover the contacts again and check what is listed",
        )
        .suggests(crate::error::Step::RecoverContacts));
    }
    let mut book = seen.loaded.book.clone();
    book.seq += 1;
    save(path, &book, owner.public, owner.secrets, backend, now)?;
    Ok(Loaded {
        book,
        saved_at: now,
        signed_by: owner.public.newest().generation,
    })
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
    use crate::identity::rotation::{self, RotateOptions};
    use crate::suite::rustcrypto::RustCrypto;
    use crate::vault::KdfParams;

    /// `me`'s vault file in `dir` (no password is ever tried on it: only its public part is
    /// read back).
    fn write_vault(dir: &Path, me: &NewIdentity) -> PathBuf {
        let path = dir.join("vault.nxq");
        let params = KdfParams {
            memory_kib: crate::vault::kdf::MIN_MEMORY_KIB,
            iterations: 1,
            parallelism: 1,
        };
        let key = crate::secret::SecretBytes::<32>::random();
        let bytes = crate::vault::seal_vault(
            params,
            [7; 32],
            &key,
            &crate::vault::Facts {
                version: crate::vault::format::FORMAT_VERSION,
                created: 1_000,
                backups: Default::default(),
            },
            &me.public,
            &me.secrets,
            &me.keys,
        );
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn rotate(me: &mut NewIdentity, compromised: bool, now: u64) {
        let opts = RotateOptions {
            validity_days: 30,
            compromised,
            ..Default::default()
        };
        rotation::rotate(
            &mut me.public,
            &mut me.secrets,
            &me.keys,
            &RustCrypto,
            now,
            &opts,
        )
        .unwrap();
    }

    #[test]
    fn save_load_and_tamper() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let me = NewIdentity::generate(&RustCrypto, 1_000);
        let vault = write_vault(dir.path(), &me);
        let owner = Owner {
            vault: &vault,
            public: &me.public,
            secrets: &me.secrets,
        };
        let alice = NewIdentity::generate(&RustCrypto, 1_000).public;
        let opts = SaveOptions::default();
        assert!(
            load(&path, None, &RustCrypto)
                .unwrap()
                .book
                .contacts
                .is_empty()
        );
        modify(&path, &opts, &owner, &RustCrypto, 2_000, |b| {
            b.add("alice", ContactKey::Identity(alice.clone()), true, 2_000)
        })
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
            assert_eq!(e.kind(), crate::error::ErrorKind::Vault, "flip at {i}");
        }
        // Another vault's identity does not verify it.
        std::fs::write(&path, &good).unwrap();
        let other = NewIdentity::generate(&RustCrypto, 1_000).public;
        let e = load(&path, Some(&other), &RustCrypto).unwrap_err();
        assert!(e.message().contains("belongs to identity"), "{e:?}");
        assert!(load(&path, None, &RustCrypto).is_err());
    }

    #[test]
    fn a_writer_whose_vault_rotated_meanwhile_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut me = NewIdentity::generate(&RustCrypto, 1_000);
        let vault = write_vault(dir.path(), &me);
        let stale = me.public.clone();
        let stale_secrets = SecretSection::decode(&me.secrets.encode()).unwrap();
        rotate(&mut me, true, 2_000);
        write_vault(dir.path(), &me);
        let owner = Owner {
            vault: &vault,
            public: &stale,
            secrets: &stale_secrets,
        };
        let alice = NewIdentity::generate(&RustCrypto, 1_000).public;
        let e = modify(
            &path,
            &SaveOptions::default(),
            &owner,
            &RustCrypto,
            3_000,
            |b| b.add("alice", ContactKey::Identity(alice), true, 3_000),
        )
        .unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Io);
        assert!(e.message().contains("the vault changed"), "{e:?}");
        assert!(!path.exists());
    }

    #[test]
    fn compromise_carries_the_book_over_and_a_dead_book_is_recovered() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let mut me = NewIdentity::generate(&RustCrypto, 1_000);
        let vault = write_vault(dir.path(), &me);
        let opts = SaveOptions::default();
        let alice = NewIdentity::generate(&RustCrypto, 1_000).public;
        let owner = Owner {
            vault: &vault,
            public: &me.public,
            secrets: &me.secrets,
        };
        modify(&path, &opts, &owner, &RustCrypto, 1_500, |b| {
            b.add("alice", ContactKey::Identity(alice.clone()), true, 1_500)
        })
        .unwrap();

        // No book: nothing to carry.
        let none = dir.path().join("none.nxq");
        let before = me.public.clone();
        rotate(&mut me, true, 2_000);
        assert_eq!(
            carry_over(
                &none,
                &opts,
                &before,
                &me.public,
                &me.secrets,
                &RustCrypto,
                2_000
            )
            .unwrap(),
            Carried::NoBook
        );
        // Signed by generation 1, now revoked: refused, with the way out named.
        let e = load(&path, Some(&me.public), &RustCrypto).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Vault);
        assert!(e.hint().contains("recover the contacts"), "{e:?}");
        assert_eq!(e.step(), Some(&crate::error::Step::RecoverContacts));
        // Carried over with the identity as it was before: checked with generation 1's key,
        // signed with generation 2's.
        let carried = carry_over(
            &path,
            &opts,
            &before,
            &me.public,
            &me.secrets,
            &RustCrypto,
            2_000,
        )
        .unwrap();
        assert_eq!(
            carried,
            Carried::Resealed {
                contacts: 1,
                from: 1,
                to: 2
            }
        );
        let loaded = load(&path, Some(&me.public), &RustCrypto).unwrap();
        assert_eq!((loaded.signed_by, loaded.book.seq), (2, 2));
        assert_eq!(loaded.book.contacts[0].name, "alice");

        // A book left dead (a rotation by an older nexusq, or one killed between its two
        // saves): inspected, then recovered with the owner's key.
        let dead = std::fs::read(&path).unwrap();
        let before = me.public.clone();
        rotate(&mut me, true, 3_000);
        write_vault(dir.path(), &me);
        let Inspection::Revoked(seen) = inspect(&path, &me.public, &RustCrypto).unwrap() else {
            panic!("a book signed by a revoked key");
        };
        assert_eq!((seen.loaded.signed_by, seen.revoked_before), (2, 3));
        assert_eq!(seen.loaded.book.contacts[0].name, "alice");
        // The file changed after it was shown: nothing is done.
        let owner = Owner {
            vault: &vault,
            public: &me.public,
            secrets: &me.secrets,
        };
        carry_over(
            &path,
            &opts,
            &before,
            &me.public,
            &me.secrets,
            &RustCrypto,
            3_000,
        )
        .unwrap();
        let e = recover(&path, &opts, &owner, &seen, &RustCrypto, 3_000).unwrap_err();
        assert!(e.message().contains("changed after it was shown"), "{e:?}");
        std::fs::write(&path, &dead).unwrap();
        let Inspection::Revoked(seen) = inspect(&path, &me.public, &RustCrypto).unwrap() else {
            panic!("dead again");
        };
        let back = recover(&path, &opts, &owner, &seen, &RustCrypto, 3_000).unwrap();
        assert_eq!(back.signed_by, 3);
        let loaded = load(&path, Some(&me.public), &RustCrypto).unwrap();
        assert_eq!(loaded.book.contacts[0].name, "alice");
        assert!(matches!(
            inspect(&path, &me.public, &RustCrypto).unwrap(),
            Inspection::Trusted(_)
        ));
        // A tampered book is not recoverable: the same refusal as a read.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[40] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let e = inspect(&path, &me.public, &RustCrypto).unwrap_err();
        assert!(!e.hint().contains("recover"), "{e:?}");
    }
}

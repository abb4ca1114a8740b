//! The vault: one password-protected file holding the identity (docs/vault-format.md).
//!
//! Reading needs no lock (saves are atomic renames). Writers take `<vault>.lock` before they
//! read and keep it until the new file is renamed into place and the folder synced.
//!
//! A vault path that is a symbolic link (a dotfiles-style link) is resolved once by every
//! writer: the lock, the shared-storage check and the save all apply to the file it points to,
//! which is replaced in its own folder, so the link stays a link.
pub mod format;
pub mod kdf;
pub mod lock;
pub mod seal;
pub mod seen;
pub mod storage;
pub mod strength;

use crate::error::{Error, Result, Setting, Step};
use crate::identity::{
    DecryptionKeys, MasterSecret, NewIdentity, PublicIdentity, RootKeys, SecretSection,
};
use crate::secret::{Password, SecretBytes, random_array};
use crate::suite::Backend;
use crate::suite::root_sig::{self, RootSecret};
pub use format::{BackupRecord, Facts, Header, VaultFile};
pub use kdf::{Argon2id, KdfParams, KeyDerivation};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;
use zeroize::Zeroizing;

/// How writers behave: lock wait, and whether shared storage is acceptable.
#[derive(Clone, Debug)]
pub struct SaveOptions {
    /// How long a writer waits for `<vault>.lock` before failing with "vault is busy" (exit 5).
    pub lock_timeout: Duration,
    /// Allow saving into Android shared storage (`--allow-shared-storage`), which other apps can
    /// read (docs/vault-format.md, "Shared storage").
    pub allow_shared_storage: bool,
}

impl Default for SaveOptions {
    fn default() -> Self {
        SaveOptions {
            lock_timeout: lock::DEFAULT_TIMEOUT,
            allow_shared_storage: false,
        }
    }
}

/// Read the vault file, refusing anything over the size bound before reading it, and
/// anything but a regular file without waiting on it (a FIFO, a device: docs/cli.md).
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    use crate::fs::input::{Kind, OpenError};
    let file = crate::fs::input::open_regular(path).map_err(|e| match e {
        OpenError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => Error::vault(
            format!("no vault at {}", path.display()),
            "create one, or give the path of yours",
        )
        .suggests(Step::CreateVault)
        .about(Setting::VaultPath),
        OpenError::Io(e) => Error::io_at("open the vault", path, &e),
        OpenError::NotRegular(Kind::Folder) => Error::vault(
            format!("{} is a folder, not a vault file", path.display()),
            "give the path of the vault file itself",
        )
        .about(Setting::VaultPath),
        other => Error::vault(
            format!(
                "{} is not a vault file: {other}",
                crate::untrusted::path(path)
            ),
            "give the path of the vault file itself; save a vault that comes through a pipe \
             to a file first",
        )
        .about(Setting::VaultPath),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| Error::io_at("inspect", path, &e))?;
    if meta.len() > format::MAX_FILE_LEN {
        return Err(Error::vault(
            format!(
                "{} is larger than the 64 MiB a vault may be",
                path.display()
            ),
            "this is not a nexusq vault or it is corrupted; check the vault's path",
        )
        .about(Setting::VaultPath));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(format::MAX_FILE_LEN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io_at("read the vault", path, &e))?;
    Ok(bytes)
}

/// Read and parse the vault: no password (`vault open`).
pub fn open(path: &Path) -> Result<VaultFile> {
    format::parse(&read_bytes(path)?, kdf::device_ram_bytes())
}

/// A vault whose secret section has been decrypted and checked against its public section.
pub struct Unlocked {
    /// The parsed file the secrets came from; its public identity is what exports are made of.
    pub file: VaultFile,
    /// K = Argon2id(password, salt, params); kept so a re-save need not run Argon2 again.
    key: SecretBytes<32>,
    /// The decrypted secret section: the seeds of every kept generation (docs/vault-format.md,
    /// section 4).
    pub secrets: SecretSection,
    /// The kept generations' decapsulation keys, expanded once by the unlock check.
    decryption: DecryptionKeys,
}

impl VaultFile {
    /// Derive K, open the secret section, and check that every kept seed gives the public keys
    /// of the public section.
    pub fn unlock(
        self,
        password: &Password,
        kdf: &dyn KeyDerivation,
        backend: &dyn Backend,
    ) -> Result<Unlocked> {
        let key = kdf.derive(password, &self.header.salt, &self.header.kdf)?;
        self.unlock_with_key(key, backend)
    }

    /// [`VaultFile::unlock`] with K already derived (a re-read under the lock).
    fn unlock_with_key(self, key: SecretBytes<32>, backend: &dyn Backend) -> Result<Unlocked> {
        let aead_key = seal::derive_key(&key, &self.header.seal_salt, seal::SECRET_LABEL);
        let plain = seal::open(
            &aead_key,
            &self.header.secret_nonce,
            self.secret_aad(),
            &self.secret_ciphertext,
        )
        .ok_or_else(Error::wrong_password)?;
        let secrets = SecretSection::decode(&plain)?;
        if secrets.has_uncertified() && self.version < format::FORMAT_V3 {
            return Err(Error::from(crate::wire::DecodeError(format!(
                "a format {} vault holds a generation without a certificate",
                self.version
            ))));
        }
        let decryption = secrets
            .check_against(&self.public.certificates, backend)
            .map_err(|e| {
                Error::vault(
                    format!(
                        "the vault's secret keys do not match its public keys: {}",
                        e.0
                    ),
                    "the vault is damaged; restore it from a backup copy",
                )
            })?;
        Ok(Unlocked {
            file: self,
            key,
            secrets,
            decryption,
        })
    }
}

impl Unlocked {
    /// The decapsulation keys of every generation that still decrypts, newest first, as they
    /// were when the vault was unlocked (a rotation of this value does not change them).
    pub fn decryption_keys(&self) -> &DecryptionKeys {
        &self.decryption
    }

    /// Keep only the decapsulation keys (everything else, seeds included, is zeroized now).
    pub fn into_decryption_keys(self) -> DecryptionKeys {
        self.decryption
    }

    /// Decrypt the root section (only for init, rotate, passwd, revoke and the recovery
    /// backups) and check that it gives the root public key: the master secret and the root
    /// derived from it (version 2), or the root seed (version 1).
    pub fn root(&self, backend: &dyn Backend) -> Result<RootKeys> {
        let h = &self.file.header;
        let aead_key = seal::derive_key(&self.key, &h.seal_salt, seal::ROOT_LABEL);
        let plain = seal::open(
            &aead_key,
            &h.root_nonce,
            self.file.header_bytes(),
            self.file.root_ciphertext(),
        )
        .ok_or_else(Error::wrong_password)?;
        let wrong_length = || {
            Error::vault(
                "the root section has the wrong length",
                "restore the vault from a backup copy",
            )
        };
        let root = if self.file.has_master() {
            let master = SecretBytes::from_slice(&plain).ok_or_else(wrong_length)?;
            RootKeys::derived(MasterSecret::from_bytes(master))
        } else {
            let seeds = SecretBytes::<{ root_sig::SEED_LEN }>::from_slice(&plain)
                .ok_or_else(wrong_length)?;
            RootKeys::random(RootSecret::from_seeds(seeds))
        };
        if root.root().public_key(backend) != self.file.public.root_pk {
            return Err(Error::vault(
                "the vault's root secret does not match its root public key",
                "the vault is damaged; restore it from a backup copy",
            ));
        }
        Ok(root)
    }

    /// Encode this vault for saving, with fresh seal salt and nonces, under the same K.
    pub fn encode(&self, root: &RootKeys) -> Vec<u8> {
        seal_vault(
            self.file.header.kdf,
            self.file.header.salt,
            &self.key,
            &self.file.facts(),
            &self.file.public,
            &self.secrets,
            root,
        )
    }

    /// Encode this vault under a new password: new Argon2 salt and parameters, new seal salt
    /// and nonces.
    pub fn reseal(
        &self,
        root: &RootKeys,
        password: &Password,
        params: KdfParams,
    ) -> Result<Vec<u8>> {
        let salt = random_array();
        let key = Argon2id.derive(password, &salt, &params)?;
        Ok(seal_vault(
            params,
            salt,
            &key,
            &self.file.facts(),
            &self.file.public,
            &self.secrets,
            root,
        ))
    }

    /// The vault's Argon2id parameters, as its header gives them.
    pub fn params(&self) -> KdfParams {
        self.file.header.kdf
    }
}

/// Build a complete vault file. Every call draws a fresh seal salt and fresh nonces, so no
/// (key, nonce) pair is ever reused, and re-encodes the header from scratch.
pub fn seal_vault(
    kdf: KdfParams,
    salt: [u8; kdf::SALT_LEN],
    key: &SecretBytes<32>,
    facts: &Facts,
    public: &PublicIdentity,
    secrets: &SecretSection,
    root: &RootKeys,
) -> Vec<u8> {
    let header = Header {
        kdf,
        salt,
        seal_salt: random_array(),
        secret_nonce: random_array(),
        root_nonce: random_array(),
    };
    let secret_plain: Zeroizing<Vec<u8>> = secrets.encode();
    let secret_len = secret_plain.len() + seal::TAG_LEN;
    // Generations without a certificate need format 3 (docs/vault-format.md, section 10).
    let facts = &Facts {
        version: format::version_for(facts.version, secrets),
        ..*facts
    };
    let header_bytes = format::encode_header(facts, &header, public, secret_len);
    // Version 2 seals the master secret (the root is derived from it), version 1 the root seed.
    debug_assert_eq!(facts.version >= 2, root.master().is_some());
    let root_plain: &[u8] = match root.master() {
        Some(master) => master.expose(),
        None => root.root().seeds().expose(),
    };
    let root_ct = seal::seal(
        &seal::derive_key(key, &header.seal_salt, seal::ROOT_LABEL),
        &header.root_nonce,
        &header_bytes,
        root_plain,
    );
    // The secret section's associated data covers the root ciphertext too, so everyday unlock
    // detects a changed root section without decrypting it.
    let mut secret_aad = header_bytes.clone();
    secret_aad.extend_from_slice(&root_ct);
    let secret_ct = seal::seal(
        &seal::derive_key(key, &header.seal_salt, seal::SECRET_LABEL),
        &header.secret_nonce,
        &secret_aad,
        &secret_plain,
    );
    format::assemble(&header_bytes, &root_ct, &secret_ct)
}

/// Where the vault file really is: `path` with its symbolic links followed (itself if it is
/// no link). Writers lock and save this path.
pub fn resolve(path: &Path) -> Result<PathBuf> {
    crate::fs::resolve_links(path).map_err(|e| Error::io_at("follow the link", path, &e))
}

/// Refuse to write into Android shared storage unless explicitly allowed. Decided on where
/// `path` really is (its links and its folder's resolved).
pub fn check_save_location(path: &Path, opts: &SaveOptions) -> Result<()> {
    if !opts.allow_shared_storage && crate::fs::folder_is_shared_storage(path) {
        let real = resolve(path)?;
        return Err(Error::usage(
            format!(
                "refusing to save the vault in Android shared storage ({}): other apps can read \
                 files there",
                crate::fs::parent_folder(&real).display()
            ),
            "keep the vault in Termux's home (the default path), or allow shared storage if \
             you accept the risk",
        )
        .about(Setting::AllowSharedStorage));
    }
    Ok(())
}

/// What `init` made.
pub struct Created {
    /// The path as the caller gave it (a symbolic link stays a link; the file went where it
    /// points).
    pub path: PathBuf,
    /// The new identity's public half, as `identity export` would give it.
    pub public: PublicIdentity,
    /// The Argon2id parameters the vault was sealed under.
    pub params: KdfParams,
    /// Creation time (Unix seconds), stored in the public section.
    pub created: u64,
}

/// Create a new vault at `path`; never overwrites. The revocation statement is handed to
/// `write_revocation` (which writes it to its own file) before the vault is put in place.
pub fn create(
    path: &Path,
    password: &Password,
    params: KdfParams,
    opts: &SaveOptions,
    backend: &dyn Backend,
    now: u64,
    write_revocation: impl FnOnce(&crate::identity::Revocation) -> Result<()>,
) -> Result<Created> {
    create_with(path, password, params, opts, now, || {
        let identity = NewIdentity::generate(backend, now);
        write_revocation(&identity.revocation)?;
        Ok(Sealable {
            keys: identity.keys,
            public: identity.public,
            secrets: identity.secrets,
        })
    })
}

/// What a new vault file holds: its root keys, public identity and secret section.
pub struct Sealable {
    /// The master secret (and root), sealed in the root section.
    pub keys: RootKeys,
    /// The public identity of the public section.
    pub public: PublicIdentity,
    /// The seeds of the secret section, one generation per certificate.
    pub secrets: SecretSection,
}

/// Create a new vault at `path` holding what `identity` makes (called under the lock, once
/// no file is there); never overwrites. `init` and `recover` both come here.
pub fn create_with(
    path: &Path,
    password: &Password,
    params: KdfParams,
    opts: &SaveOptions,
    now: u64,
    identity: impl FnOnce() -> Result<Sealable>,
) -> Result<Created> {
    params
        .check_bounds(kdf::device_ram_bytes())
        .map_err(|m| Error::usage(m, "choose other Argon2id costs").about(Setting::KdfCosts))?;
    let given = path;
    let path = &resolve(given)?;
    check_save_location(path, opts)?;
    let refuse_existing = || {
        Error::usage(
            format!(
                "a vault already exists at {}; it was left untouched",
                path.display()
            ),
            "use it, or create another one at another path",
        )
        .suggests(Step::OpenVault)
        .about(Setting::VaultPath)
    };
    if path.exists() {
        return Err(refuse_existing());
    }
    let _lock = lock::VaultLock::acquire(path, opts.lock_timeout)?;
    // Re-check under the lock: another init may have won the race.
    if path.exists() {
        return Err(refuse_existing());
    }
    let made = identity()?;
    let salt = random_array();
    let key = Argon2id.derive(password, &salt, &params)?;
    let facts = Facts {
        version: if made.keys.master().is_some() {
            format::FORMAT_VERSION
        } else {
            format::FORMAT_V1
        },
        created: now,
        backups: BackupRecord::default(),
    };
    let bytes = seal_vault(
        params,
        salt,
        &key,
        &facts,
        &made.public,
        &made.secrets,
        &made.keys,
    );
    save(path, &bytes)?;
    Ok(Created {
        path: given.to_path_buf(),
        public: made.public,
        params,
        created: now,
    })
}

/// Replaces the vault file at its resolved path (the caller holds the vault lock), then
/// removes temporary files that killed saves left beside it.
fn save(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::fs::replace(path, bytes, crate::fs::Access::Private)?;
    crate::fs::remove_stale_temps(path);
    Ok(())
}

/// Change the vault's password: new Argon2 salt, new seal salt and nonces.
/// `new_params` defaults to max(current, default). `based_on` is what the caller read (before
/// the lock) and derived `new_params` from (`--kdf-*` changes only some of them): if the vault
/// holds other parameters under the lock, another `passwd` came in between, and nothing is
/// changed.
pub fn change_password(
    path: &Path,
    old: &Password,
    new: &Password,
    new_params: Option<KdfParams>,
    based_on: Option<KdfParams>,
    opts: &SaveOptions,
    backend: &dyn Backend,
) -> Result<KdfParams> {
    let path = &resolve(path)?;
    check_save_location(path, opts)?;
    let _lock = lock::VaultLock::acquire(path, opts.lock_timeout)?;
    // The password first: a writer that came in between may have changed it too, and then
    // "wrong password" (exit 3) is what the user needs to know.
    let unlocked = open(path)?.unlock(old, &Argon2id, backend)?;
    let current = unlocked.params();
    if let Some(base) = based_on
        && base != current
    {
        return Err(Error::io(
            format!(
                "the vault's password hashing changed while this command waited for it (now {}, \
                 read as {}); nothing was changed",
                current.describe(),
                base.describe()
            ),
            "change the password again, so the new parameters start from the current ones",
        )
        .suggests(Step::ChangePassword));
    }
    let root = unlocked.root(backend)?;
    let params = new_params.unwrap_or_else(|| unlocked.params().at_least_default());
    params
        .check_bounds(kdf::device_ram_bytes())
        .map_err(|m| Error::usage(m, "choose other Argon2id costs").about(Setting::KdfCosts))?;
    let bytes = unlocked.reseal(&root, new, params)?;
    save(path, &bytes)?;
    Ok(params)
}

/// Rotate the identity's working keys: lock, read, unlock (with the root), add a generation,
/// save. The lock serialises concurrent rotations and each sees the previous one's result.
pub fn rotate(
    path: &Path,
    password: &Password,
    opts: &SaveOptions,
    rotation: &crate::identity::rotation::RotateOptions,
    backend: &dyn Backend,
    now: u64,
) -> Result<(crate::identity::rotation::Rotated, PublicIdentity)> {
    rotate_with(path, password, opts, rotation, backend, now, |_, _| ())
        .map(|(report, public, ())| (report, public))
}

/// [`rotate`], then `after_save` runs once the new vault is in place, still under the lock,
/// with the identity as it was before and the rotated vault: what depends on the vault's
/// signing key (the contacts book) moves to the new key there. Its result is returned beside
/// the rotation's; the rotation stands whatever it says.
pub fn rotate_with<R>(
    path: &Path,
    password: &Password,
    opts: &SaveOptions,
    rotation: &crate::identity::rotation::RotateOptions,
    backend: &dyn Backend,
    now: u64,
    after_save: impl FnOnce(&PublicIdentity, &Unlocked) -> R,
) -> Result<(crate::identity::rotation::Rotated, PublicIdentity, R)> {
    rotation.check()?;
    let path = &resolve(path)?;
    check_save_location(path, opts)?;
    let _lock = lock::VaultLock::acquire(path, opts.lock_timeout)?;
    let mut unlocked = open(path)?.unlock(password, &Argon2id, backend)?;
    let root = unlocked.root(backend)?;
    let before = unlocked.file.public.clone();
    let Unlocked { file, secrets, .. } = &mut unlocked;
    let report = crate::identity::rotation::rotate(
        &mut file.public,
        secrets,
        &root,
        backend,
        now,
        rotation,
    )?;
    save(path, &unlocked.encode(&root))?;
    drop(root);
    let after = after_save(&before, &unlocked);
    Ok((report, unlocked.file.public, after))
}

/// Record a recovery backup in the vault (`backup phrase`, `backup shares`, `backup kit`):
/// under the lock, the vault as it is now, opened with the key `unlocked` was opened with (a
/// password changed meanwhile is "wrong password"), gets `update` applied to its record and
/// is saved. The phrase itself never changes, so a rotation in between does not matter.
pub fn record_backup(
    path: &Path,
    unlocked: &Unlocked,
    opts: &SaveOptions,
    backend: &dyn Backend,
    update: impl FnOnce(&mut BackupRecord),
) -> Result<BackupRecord> {
    let path = &resolve(path)?;
    check_save_location(path, opts)?;
    let _lock = lock::VaultLock::acquire(path, opts.lock_timeout)?;
    let file = open(path)?;
    if file.header.salt != unlocked.file.header.salt || file.header.kdf != unlocked.file.header.kdf
    {
        return Err(Error::wrong_password().reworded(
            "the vault's password changed while this command ran; the backup was not recorded",
            "the words stay valid; run the command again to record the backup",
        ));
    }
    let mut now = file.unlock_with_key(unlocked.key.clone(), backend)?;
    if now.file.public.root_pk != unlocked.file.public.root_pk {
        return Err(Error::vault(
            "the vault now holds another identity; the backup was not recorded",
            "check the vault's path",
        ));
    }
    let root = now.root(backend)?;
    update(&mut now.file.backups);
    save(path, &now.encode(&root))?;
    Ok(now.file.backups)
}

/// Every certificate and revocation of a vault's public identity carries its root's
/// signature: anything else means the vault was damaged or altered (checked without the
/// password, before a vault's own identity is trusted or encrypted to).
pub fn check_public(public: &PublicIdentity, backend: &dyn Backend) -> Result<()> {
    public.verify_signatures(backend).map_err(|e| {
        Error::vault(
            format!("the vault's public identity does not verify: {}", e.0),
            "the vault is damaged or was tampered with; restore it from a backup",
        )
    })
}

/// Add a root-signed revocation statement to the vault so it travels in exports.
/// Returns the updated public identity and whether the statement was new.
pub fn publish_revocation(
    path: &Path,
    password: &Password,
    opts: &SaveOptions,
    revocation: crate::identity::Revocation,
    backend: &dyn Backend,
) -> Result<(PublicIdentity, bool)> {
    let path = &resolve(path)?;
    check_save_location(path, opts)?;
    let _lock = lock::VaultLock::acquire(path, opts.lock_timeout)?;
    let mut unlocked = open(path)?.unlock(password, &Argon2id, backend)?;
    let root = unlocked.root(backend)?;
    let added = crate::identity::rotation::publish_revocation(
        &mut unlocked.file.public,
        revocation,
        backend,
    )?;
    if added {
        save(path, &unlocked.encode(&root))?;
    }
    Ok((unlocked.file.public, added))
}

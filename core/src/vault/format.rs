//! The vault file's byte layout (docs/vault-format.md). Parsing is defensive: every length is
//! bounded by the bytes that remain, and the KDF parameters by section 4, before anything is
//! allocated or derived.

use super::kdf::{self, KdfParams, SALT_LEN};
use super::seal::{NONCE_LEN, TAG_LEN};
use crate::error::{Error, Result, Setting};
use crate::identity::PublicIdentity;
use crate::suite::root_sig;
use crate::wire::{DecodeError, Reader, Writer};
use sha2::{Digest, Sha256};

/// The file's first four bytes, `"NXQV"`.
pub const MAGIC: &[u8; 4] = b"NXQV";
/// The format version this library writes for a new identity (docs/vault-format.md, section
/// 10): version 2 seals a master secret in the root section.
pub const FORMAT_VERSION: u16 = 2;
/// The first format: a random root seed in the root section, no master secret. Still read,
/// and kept when such a vault is saved.
pub const FORMAT_V1: u16 = 1;
/// Format 2 whose secret section may hold generations without a certificate (recovered for
/// decryption only); written only for such a vault, so others stay readable by older builds.
pub const FORMAT_V3: u16 = 3;
/// The newest format this library reads.
pub const NEWEST_READ: u16 = FORMAT_V3;

/// The version a vault of `version` is saved as, holding `secrets`: format 3 once it holds a
/// generation without a certificate, else as it was.
pub(crate) fn version_for(version: u16, secrets: &crate::identity::SecretSection) -> u16 {
    if version >= 2 && secrets.has_uncertified() {
        version.max(FORMAT_V3)
    } else {
        version
    }
}
/// Length of [`BackupRecord`] in a version 2 public section.
pub const BACKUP_RECORD_LEN: usize = 8 + 8 + 8 + 1 + 1;
/// `kdf_alg` for Argon2id, the only password hash a vault may name.
pub(crate) const KDF_ARGON2ID: u8 = 1;
/// Length of the trailing SHA-256 checksum.
pub const CHECKSUM_LEN: usize = 32;
/// The largest vault file read or written: 64 MiB.
pub(crate) const MAX_FILE_LEN: u64 = 64 * 1024 * 1024;
/// `root_len` of version 1, exactly: the sealed 48-byte root seed plus its AES-GCM tag.
pub(crate) const ROOT_CIPHERTEXT_LEN: usize = root_sig::SEED_LEN + TAG_LEN;
/// `root_len` of version 2, exactly: the sealed 32-byte master secret plus its tag.
pub(crate) const MASTER_CIPHERTEXT_LEN: usize = crate::identity::master::MASTER_LEN + TAG_LEN;

/// The root section's length in a vault of `version`.
pub(crate) fn root_ciphertext_len(version: u16) -> usize {
    if version == FORMAT_V1 {
        ROOT_CIPHERTEXT_LEN
    } else {
        MASTER_CIPHERTEXT_LEN
    }
}
/// Smallest possible file: fixed header fields, empty sections, tags, checksum.
pub(crate) const MIN_FILE_LEN: usize = 4
    + 2
    + 1
    + 4 * 4
    + 1
    + SALT_LEN
    + 32
    + 2 * NONCE_LEN
    + 4
    + 4
    + 4
    + TAG_LEN
    + MASTER_CIPHERTEXT_LEN
    + CHECKSUM_LEN;

/// What the vault remembers of its recovery backups (version 2, public section): dates only,
/// never the words. Unix seconds; 0 = never. `doctor` reports it and `rotate
/// --retire-older-than` warns from it (docs/recovery.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BackupRecord {
    /// When the phrase was last shown at a terminal or written to a file.
    pub phrase_shown: u64,
    /// When the user last typed words of the phrase back correctly at a terminal.
    pub phrase_confirmed: u64,
    /// When shares were last written.
    pub shares_written: u64,
    /// The threshold of the shares last written (0 if none).
    pub shares_threshold: u8,
    /// How many shares were last written (0 if none).
    pub shares_count: u8,
}

impl BackupRecord {
    /// Was the master secret ever handed out, as a phrase or as shares?
    pub fn handed_out(&self) -> bool {
        self.phrase_shown != 0 || self.shares_written != 0
    }

    fn encode(&self, w: &mut Writer) {
        w.u64(self.phrase_shown)
            .u64(self.phrase_confirmed)
            .u64(self.shares_written)
            .u8(self.shares_threshold)
            .u8(self.shares_count);
    }

    fn decode(r: &mut Reader<'_>) -> crate::wire::DecodeResult<Self> {
        let record = BackupRecord {
            phrase_shown: r.u64("phrase date")?,
            phrase_confirmed: r.u64("phrase confirmation date")?,
            shares_written: r.u64("shares date")?,
            shares_threshold: r.u8("shares threshold")?,
            shares_count: r.u8("shares count")?,
        };
        let no_shares =
            record.shares_written == 0 && record.shares_threshold == 0 && record.shares_count == 0;
        let shares = record.shares_written != 0
            && record.shares_threshold >= 2
            && record.shares_threshold <= record.shares_count;
        if !(no_shares || shares) {
            return Err(DecodeError(
                "the backup record's shares are inconsistent".into(),
            ));
        }
        Ok(record)
    }
}

/// Everything the header says besides the public section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Argon2id cost parameters (`m`, `t`, `p`).
    pub kdf: KdfParams,
    /// Argon2id salt; new on `init` and `vault passwd`.
    pub salt: [u8; SALT_LEN],
    /// HKDF salt for the section keys; new on every save.
    pub seal_salt: [u8; 32],
    /// AES-GCM nonce of the secret section; new on every save.
    pub secret_nonce: [u8; NONCE_LEN],
    /// AES-GCM nonce of the root section; new on every save.
    pub root_nonce: [u8; NONCE_LEN],
}

/// A parsed vault file: public facts plus the two sealed sections.
#[derive(Clone, Debug)]
pub struct VaultFile {
    /// The format version: [`FORMAT_V1`] (random root), [`FORMAT_VERSION`] (master secret) or
    /// [`FORMAT_V3`] (and generations without a certificate).
    pub version: u16,
    /// The header fields outside the public section.
    pub header: Header,
    /// The recovery backups made of a version 2 vault (all zero for version 1).
    pub backups: BackupRecord,
    /// When the vault was created (Unix seconds).
    pub created: u64,
    /// The public identity held in the public section (not yet checked against root signatures).
    pub public: PublicIdentity,
    /// The header and the root ciphertext, as in the file. The header (`prefix[..header_len]`)
    /// is the associated data of the root section; the whole prefix is the associated data of
    /// the secret section, so everyday unlock also authenticates the root ciphertext without
    /// decrypting it.
    pub prefix: Vec<u8>,
    /// Length of the header within [`prefix`](Self::prefix).
    pub header_len: usize,
    /// The secret section's AES-GCM ciphertext, tag included.
    pub secret_ciphertext: Vec<u8>,
}

impl VaultFile {
    /// Associated data of the root section: every byte before the ciphertexts.
    pub fn header_bytes(&self) -> &[u8] {
        &self.prefix[..self.header_len]
    }

    /// Associated data of the secret section: the header and the root ciphertext.
    pub(crate) fn secret_aad(&self) -> &[u8] {
        &self.prefix
    }

    /// Does the root section hold a master secret (version 2), so the identity has a
    /// recovery phrase?
    pub fn has_master(&self) -> bool {
        self.version >= 2
    }

    /// The sealed root seed or master secret with its tag: the bytes of `prefix` after the
    /// header.
    pub fn root_ciphertext(&self) -> &[u8] {
        &self.prefix[self.header_len..]
    }
}

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::vault(
        format!("the vault file is corrupted: {what}"),
        "restore the vault from a backup copy",
    )
}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Self {
        corrupt(e.0)
    }
}

/// The public section's facts besides the identity.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// [`FORMAT_V1`], [`FORMAT_VERSION`] or [`FORMAT_V3`].
    pub version: u16,
    /// When the vault was created.
    pub created: u64,
    /// Its recovery backups (written in version 2 only).
    pub backups: BackupRecord,
}

impl VaultFile {
    /// The facts of this file, to save it again as it is.
    pub fn facts(&self) -> Facts {
        Facts {
            version: self.version,
            created: self.created,
            backups: self.backups,
        }
    }
}

/// Encode the header (the AEAD associated data) for the given sections' lengths.
pub fn encode_header(
    facts: &Facts,
    header: &Header,
    public: &PublicIdentity,
    secret_ciphertext_len: usize,
) -> Vec<u8> {
    let mut public_section = Writer::new();
    public_section.u64(facts.created);
    if facts.version >= 2 {
        facts.backups.encode(&mut public_section);
    }
    public_section.bytes(&public.encode());
    let mut w = Writer::new();
    w.bytes(MAGIC)
        .u16(facts.version)
        .u8(KDF_ARGON2ID)
        .u32(kdf::ARGON2_VERSION)
        .u32(header.kdf.memory_kib)
        .u32(header.kdf.iterations)
        .u32(header.kdf.parallelism)
        .u8(SALT_LEN as u8)
        .bytes(&header.salt)
        .bytes(&header.seal_salt)
        .bytes(&header.secret_nonce)
        .bytes(&header.root_nonce)
        .bytes_u32(&public_section.into_inner())
        .u32(root_ciphertext_len(facts.version) as u32)
        .u32(secret_ciphertext_len as u32);
    w.into_inner()
}

/// Header, root ciphertext, secret ciphertext, then SHA-256 of everything before the checksum.
pub fn assemble(header: &[u8], root_ciphertext: &[u8], secret_ciphertext: &[u8]) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(header.len() + secret_ciphertext.len() + root_ciphertext.len() + 32);
    out.extend_from_slice(header);
    out.extend_from_slice(root_ciphertext);
    out.extend_from_slice(secret_ciphertext);
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// The plain checksum: detects accidents, not attacks (anyone can recompute it).
pub(crate) fn checksum_ok(bytes: &[u8]) -> bool {
    if bytes.len() < CHECKSUM_LEN {
        return false;
    }
    let (body, sum) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
    Sha256::digest(body).as_slice() == sum
}

/// Parse a whole vault file. `device_ram` bounds the Argon2 memory a file may ask for.
pub fn parse(bytes: &[u8], device_ram: Option<u64>) -> Result<VaultFile> {
    if bytes.len() < 4 || &bytes[..4] != MAGIC {
        return Err(Error::vault(
            "this is not a nexusq vault (wrong magic bytes)",
            "check the vault's path; a vault file starts with \"NXQV\"",
        )
        .about(Setting::VaultPath));
    }
    if bytes.len() as u64 > MAX_FILE_LEN {
        return Err(corrupt("larger than the 64 MiB a vault may be"));
    }
    if bytes.len() < MIN_FILE_LEN {
        return Err(corrupt(format!(
            "only {} bytes, too short to be a vault (truncated?)",
            bytes.len()
        )));
    }
    let version = u16::from_be_bytes([bytes[4], bytes[5]]);
    if version > NEWEST_READ {
        // A newer format may lay out its checksum differently, so a mismatch here cannot tell
        // "newer" from "corrupted"; say both when the checksum does not hold.
        return Err(if checksum_ok(bytes) {
            Error::vault(
                format!("vault format version {version} was made by a newer nexusq"),
                "upgrade nexusq to open this vault",
            )
        } else {
            Error::vault(
                format!(
                    "vault format version {version} is unknown: made by a newer nexusq, or the \
                     file is corrupted"
                ),
                "upgrade nexusq; if this is the newest nexusq, restore the vault from a backup",
            )
        });
    }
    if version == 0 {
        return Err(corrupt("format version 0 does not exist"));
    }
    if !checksum_ok(bytes) {
        return Err(corrupt(
            "checksum mismatch (the file was truncated or changed on disk)",
        ));
    }
    let body = &bytes[..bytes.len() - CHECKSUM_LEN];
    let mut r = Reader::new(body);
    r.take(6, "magic and version")?;
    if r.u8("KDF algorithm")? != KDF_ARGON2ID {
        return Err(corrupt(
            "unknown password hashing algorithm (only Argon2id is supported)",
        ));
    }
    if r.u32("Argon2 version")? != kdf::ARGON2_VERSION {
        return Err(corrupt(
            "unsupported Argon2 version (only v1.3, 0x13, is supported)",
        ));
    }
    let params = KdfParams {
        memory_kib: r.u32("Argon2 memory")?,
        iterations: r.u32("Argon2 iterations")?,
        parallelism: r.u32("Argon2 parallelism")?,
    };
    params.check_bounds(device_ram).map_err(|m| {
        Error::vault(
            format!("the vault's KDF parameters are refused: {m}"),
            "the file is corrupted or was crafted; restore the vault from a backup",
        )
    })?;
    if r.u8("salt length")? as usize != SALT_LEN {
        return Err(corrupt("the Argon2 salt must be exactly 32 bytes"));
    }
    let header = Header {
        kdf: params,
        salt: r.array("salt")?,
        seal_salt: r.array("seal salt")?,
        secret_nonce: r.array("secret nonce")?,
        root_nonce: r.array("root nonce")?,
    };
    let public_section = r.bytes_u32("public section")?;
    let root_len = r.u32("root ciphertext length")? as usize;
    let secret_len = r.u32("secret ciphertext length")? as usize;
    let header_len = r.position();
    if root_len != root_ciphertext_len(version) {
        return Err(corrupt("the root section has the wrong length"));
    }
    if secret_len < TAG_LEN + 4 {
        return Err(corrupt("the secret section is too short"));
    }
    r.take(root_len, "root section")?;
    let prefix = body[..r.position()].to_vec();
    let secret_ciphertext = r.take(secret_len, "secret section")?.to_vec();
    r.finish("the secret section")?;

    let mut p = Reader::new(public_section);
    let created = p.u64("creation time")?;
    let backups = if version >= 2 {
        BackupRecord::decode(&mut p)?
    } else {
        BackupRecord::default()
    };
    let public = PublicIdentity::decode(&public_section[p.position()..])?;
    Ok(VaultFile {
        version,
        backups,
        header,
        created,
        public,
        prefix,
        header_len,
        secret_ciphertext,
    })
}

/// Recompute the trailing checksum (for tests that tamper past the checksum).
pub fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= CHECKSUM_LEN {
        let n = bytes.len() - CHECKSUM_LEN;
        let sum = Sha256::digest(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum);
    }
}

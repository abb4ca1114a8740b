//! Streaming file encryption to one or more hybrid-KEM recipients (the
//! byte layout is in docs/file-encryption.md).
//!
//! ```text
//! header  = "NXQF" || u8 version (1) || payload_salt (16) || u8 n (1..=64)
//!           || n x stanza || mac (32)
//! stanza  = u16 suite || KEM ciphertext (fixed length for the suite)
//!           || AES-256-GCM(wrap_key, nonce = 12 zero bytes, file_key) (32 + 16)
//! payload = chunk_0 || ... || chunk_last,  chunk_i = AES-256-GCM(payload_key, nonce_i, p_i)
//! ```
//!
//! Keys: `file_key` is 32 random bytes;
//! `wrap_key = HKDF-SHA-256(ikm = ss, salt = KEM ciphertext, info = "nexusq/stanza/v1" || u16be(suite))`;
//! `mac = HMAC-SHA-256(HKDF-SHA-256(ikm = file_key, no salt, "nexusq/header/v1"), header before mac)`;
//! `payload_key = HKDF-SHA-256(ikm = file_key, salt = payload_salt, "nexusq/payload/v1")`.
//! Plaintext is cut into 64 KiB chunks; `nonce_i = u88be(i) || (0x01 on the last chunk, else
//! 0x00)`. Only the last chunk may be short, and it is empty only when it is the only one.
//!
//! Both directions stream in constant memory: one chunk buffer, a one-byte lookahead to tell
//! the last chunk, and the header (at most [`MAX_HEADER_LEN`] bytes). Nothing here touches
//! files: callers pass any `Read` and `Write`.

use crate::secret::{SecretBytes, random_array};
use crate::suite::SuiteId;
use crate::suite::backend::Backend;
use crate::suite::hybrid_kem::{self, KemError, KemLevel};
use crate::wire::{ChunkReader, Chunks, read_chunk, read_full};
use aes_gcm::aead::{AeadInOut, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce, Tag};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::fmt;
use std::io::{self, Read, Write};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// The file's first four bytes, `"NXQF"`.
pub const MAGIC: [u8; 4] = *b"NXQF";
/// The format version this library writes and reads.
pub const VERSION: u8 = 1;
/// Length of the random payload salt in the header.
pub(crate) const PAYLOAD_SALT_LEN: usize = 16;
/// Most recipients (stanzas) one file may have.
pub const MAX_RECIPIENTS: usize = 64;
/// Length of the random file key each stanza wraps.
pub(crate) const FILE_KEY_LEN: usize = 32;
/// AES-GCM tag length, after each wrapped key and each chunk.
pub(crate) const TAG_LEN: usize = 16;
/// The AES-256-GCM encryption of the file key in a stanza: 32 bytes and a 16-byte tag.
pub(crate) const WRAPPED_KEY_LEN: usize = FILE_KEY_LEN + TAG_LEN;
/// Length of the header MAC (HMAC-SHA-256), which commits the header to the file key
/// (docs/file-encryption.md, section 2).
pub(crate) const MAC_LEN: usize = 32;
/// Plaintext bytes per chunk.
pub const CHUNK_LEN: usize = 64 * 1024;
/// A full chunk on the wire: ciphertext and tag.
pub(crate) const SEALED_CHUNK_LEN: usize = CHUNK_LEN + TAG_LEN;
/// Bytes before the first stanza: magic, version, payload salt, recipient count.
pub(crate) const FIXED_HEADER_LEN: usize = 4 + 1 + PAYLOAD_SALT_LEN + 1;
/// The largest header: 64 ML-KEM-1024 + X25519 stanzas.
pub const MAX_HEADER_LEN: usize =
    FIXED_HEADER_LEN + MAX_RECIPIENTS * (2 + 1568 + 32 + WRAPPED_KEY_LEN) + MAC_LEN;
/// The chunk counter is 88 bits.
const COUNTER_LIMIT: u128 = 1 << 88;

const STANZA_LABEL: &[u8] = b"nexusq/stanza/v1";
const HEADER_LABEL: &[u8] = b"nexusq/header/v1";
const PAYLOAD_LABEL: &[u8] = b"nexusq/payload/v1";

/// Why encrypting or decrypting failed. Messages name no secret; the caller adds which input.
#[derive(Debug)]
pub enum FileError {
    /// Encrypting to nobody.
    NoRecipients,
    /// More than [`MAX_RECIPIENTS`].
    TooManyRecipients(usize),
    /// A recipient's public key was refused by the KEM (index into the recipient list).
    InvalidRecipient {
        /// Position of the recipient in the list given to [`encrypt`], from 0.
        index: usize,
        /// Why the KEM refused its public key.
        error: KemError,
    },
    /// The input is empty.
    Empty,
    /// The input does not start with "NXQF".
    NotEncryptedFile,
    /// A format version this nexusq does not know.
    UnknownVersion(u8),
    /// A stanza names a suite that is not a hybrid KEM this nexusq knows.
    UnknownSuite(u16),
    /// A structural defect (recipient count, an empty final chunk after others).
    Malformed(&'static str),
    /// The input ended inside the header.
    TruncatedHeader,
    /// No stanza opens with any of the candidate keys.
    NotARecipient,
    /// A stanza opened, but the header MAC does not match: the header was altered.
    HeaderTampered,
    /// Chunk `chunk` (from 0) does not authenticate: altered, reordered, cut, or not part of this file.
    ChunkNotAuthentic {
        /// Index of the failing chunk, from 0.
        chunk: u128,
    },
    /// The input ended after `chunks` authentic chunks, none of them marked last.
    Truncated {
        /// How many chunks authenticated before the input ended.
        chunks: u128,
    },
    /// Bytes follow the chunk marked last.
    TrailingData,
    /// More than 2^88 chunks.
    CounterOverflow,
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::NoRecipients => f.write_str("no recipients"),
            FileError::TooManyRecipients(n) => {
                write!(f, "{n} recipients; at most {MAX_RECIPIENTS} are allowed")
            }
            FileError::InvalidRecipient { index, error } => {
                write!(f, "recipient {}: {error}", index + 1)
            }
            FileError::Empty => f.write_str("is empty, not a nexusq encrypted file"),
            FileError::NotEncryptedFile => f.write_str(
                "is not a nexusq encrypted file (it does not start with \"NXQF\")",
            ),
            FileError::UnknownVersion(v) => write!(
                f,
                "is a nexusq encrypted file of format version {v}, made by a newer nexusq \
                 (this one reads version {VERSION})"
            ),
            FileError::UnknownSuite(s) => write!(
                f,
                "names an unknown KEM suite 0x{s:04x} in its header (damaged, or made by a newer nexusq)"
            ),
            FileError::Malformed(why) => write!(f, "is malformed: {why}"),
            FileError::TruncatedHeader => f.write_str("is truncated: it ends inside the header"),
            FileError::NotARecipient => f.write_str(
                "is not encrypted to any key this vault holds (or its header is damaged)",
            ),
            FileError::HeaderTampered => f.write_str(
                "has an altered header: a recipient stanza opened but the header MAC does not match",
            ),
            FileError::ChunkNotAuthentic { chunk } => write!(
                f,
                "fails authentication at chunk {chunk}: it was altered, reordered or cut"
            ),
            FileError::Truncated { chunks } => write!(
                f,
                "is truncated: it ends after {chunks} authentic chunk(s) without the final one"
            ),
            FileError::TrailingData => f.write_str("has data after its final chunk"),
            FileError::CounterOverflow => f.write_str("is too long: the chunk counter overflowed"),
            FileError::Read(e) => write!(f, "read error: {e}"),
            FileError::Write(e) => write!(f, "write error: {e}"),
        }
    }
}

impl std::error::Error for FileError {}

/// One recipient: which hybrid KEM, and that KEM's public key.
pub type Recipient<'a> = (KemLevel, &'a [u8]);

/// One key to try when decrypting: an expanded hybrid decapsulation key, or the agent's (it
/// knows its suite).
pub(crate) type Candidate<'a> = &'a dyn crate::suite::hybrid_kem::Decapsulate;

// ---------------------------------------------------------------------------------------------
// Key schedule

fn hkdf(salt: Option<&[u8]>, ikm: &[u8], info: &[&[u8]]) -> SecretBytes<32> {
    let mut out = SecretBytes::<32>::zero();
    Hkdf::<Sha256>::new(salt, ikm)
        .expand_multi_info(info, out.expose_mut())
        .expect("32 bytes is a valid HKDF-SHA-256 output length");
    out
}

fn wrap_key(level: KemLevel, ss: &SecretBytes<32>, kem_ct: &[u8]) -> SecretBytes<32> {
    let suite = level.suite().to_u16().to_be_bytes();
    hkdf(Some(kem_ct), ss.expose(), &[STANZA_LABEL, &suite])
}

fn header_mac(file_key: &SecretBytes<32>, header: &[u8]) -> [u8; MAC_LEN] {
    let mac_key = hkdf(None, file_key.expose(), &[HEADER_LABEL]);
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(mac_key.expose()).expect("HMAC takes any key");
    mac.update(header);
    mac.finalize().into_bytes().into()
}

fn payload_key(
    file_key: &SecretBytes<32>,
    payload_salt: &[u8; PAYLOAD_SALT_LEN],
) -> SecretBytes<32> {
    hkdf(Some(payload_salt), file_key.expose(), &[PAYLOAD_LABEL])
}

fn cipher(key: &SecretBytes<32>) -> Aes256Gcm {
    Aes256Gcm::new_from_slice(key.expose()).expect("32-byte key")
}

/// The nonce of chunk `counter`: 88-bit big-endian counter, then 0x01 on the last chunk.
fn chunk_nonce(counter: u128, last: bool) -> Result<[u8; 12], FileError> {
    if counter >= COUNTER_LIMIT {
        return Err(FileError::CounterOverflow);
    }
    let mut nonce = [0u8; 12];
    nonce[..11].copy_from_slice(&counter.to_be_bytes()[5..]);
    nonce[11] = u8::from(last);
    Ok(nonce)
}

// ---------------------------------------------------------------------------------------------
// Encryption

/// The header (mac included) for `recipients`, wrapping `file_key`.
fn build_header(
    backend: &dyn Backend,
    recipients: &[Recipient<'_>],
    file_key: &SecretBytes<32>,
    payload_salt: &[u8; PAYLOAD_SALT_LEN],
) -> Result<Vec<u8>, FileError> {
    if recipients.is_empty() {
        return Err(FileError::NoRecipients);
    }
    if recipients.len() > MAX_RECIPIENTS {
        return Err(FileError::TooManyRecipients(recipients.len()));
    }
    let mut header = Vec::with_capacity(MAX_HEADER_LEN);
    header.extend_from_slice(&MAGIC);
    header.push(VERSION);
    header.extend_from_slice(payload_salt);
    header.push(u8::try_from(recipients.len()).expect("at most 64"));
    for (index, &(level, pk)) in recipients.iter().enumerate() {
        let (kem_ct, ss) = hybrid_kem::encapsulate(backend, level, pk)
            .map_err(|error| FileError::InvalidRecipient { index, error })?;
        let key = wrap_key(level, &ss, &kem_ct);
        // The wrapped key is not secret; encrypt a copy in place.
        let mut wrapped = [0u8; WRAPPED_KEY_LEN];
        wrapped[..FILE_KEY_LEN].copy_from_slice(file_key.expose());
        let tag = cipher(&key)
            .encrypt_inout_detached(
                &Nonce::from([0u8; 12]),
                &[],
                (&mut wrapped[..FILE_KEY_LEN]).into(),
            )
            .expect("AES-GCM of 32 bytes cannot fail");
        wrapped[FILE_KEY_LEN..].copy_from_slice(&tag);
        header.extend_from_slice(&level.suite().to_u16().to_be_bytes());
        header.extend_from_slice(&kem_ct);
        header.extend_from_slice(&wrapped);
    }
    let mac = header_mac(file_key, &header);
    header.extend_from_slice(&mac);
    Ok(header)
}

/// Seal chunk `counter` in place: `buf[..len]` is the plaintext, the tag goes to
/// `buf[len..len + 16]`. Returns the sealed length.
fn seal_chunk(
    cipher: &Aes256Gcm,
    counter: u128,
    last: bool,
    buf: &mut [u8],
    len: usize,
) -> Result<usize, FileError> {
    let nonce = Nonce::from(chunk_nonce(counter, last)?);
    let tag = cipher
        .encrypt_inout_detached(&nonce, &[], (&mut buf[..len]).into())
        .expect("a 64 KiB chunk is far below the AES-GCM limit");
    buf[len..len + TAG_LEN].copy_from_slice(&tag);
    Ok(len + TAG_LEN)
}

/// Encrypt the payload: 64 KiB chunks, the last one flagged. Returns the plaintext length.
fn encrypt_payload<R: Read + ?Sized, W: Write + ?Sized>(
    key: &SecretBytes<32>,
    input: &mut R,
    output: &mut W,
) -> Result<u64, FileError> {
    let cipher = cipher(key);
    let mut buf = Zeroizing::new(vec![0u8; SEALED_CHUNK_LEN]);
    let mut carry: Option<u8> = None;
    let mut counter: u128 = 0;
    let mut total: u64 = 0;
    loop {
        let (filled, last) =
            read_chunk(input, &mut buf[..CHUNK_LEN], &mut carry).map_err(FileError::Read)?;
        let sealed = seal_chunk(&cipher, counter, last, &mut buf, filled)?;
        output.write_all(&buf[..sealed]).map_err(FileError::Write)?;
        total += filled as u64;
        if last {
            return Ok(total);
        }
        counter += 1;
    }
}

/// Encrypt everything `input` yields to `recipients`, writing the header and the payload to
/// `output` as it goes. Returns the number of plaintext bytes. Memory use does not depend on
/// the input's length. On error, `output` holds an incomplete file: discard it.
pub fn encrypt<R: Read + ?Sized, W: Write + ?Sized>(
    backend: &dyn Backend,
    recipients: &[Recipient<'_>],
    input: &mut R,
    output: &mut W,
) -> Result<u64, FileError> {
    let file_key = SecretBytes::<32>::random();
    let payload_salt: [u8; PAYLOAD_SALT_LEN] = random_array();
    let header = build_header(backend, recipients, &file_key, &payload_salt)?;
    output.write_all(&header).map_err(FileError::Write)?;
    let key = payload_key(&file_key, &payload_salt);
    drop(file_key);
    encrypt_payload(&key, input, output)
}

// ---------------------------------------------------------------------------------------------
// Decryption

struct Stanza {
    level: KemLevel,
    kem_ct: Vec<u8>,
    wrapped: [u8; WRAPPED_KEY_LEN],
}

/// A parsed, not yet authenticated header.
pub struct Header {
    /// Every header byte before the mac.
    bytes: Vec<u8>,
    payload_salt: [u8; PAYLOAD_SALT_LEN],
    stanzas: Vec<Stanza>,
    mac: [u8; MAC_LEN],
}

impl fmt::Debug for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Header {{ len: {}, suites: {:?} }}",
            self.len(),
            self.suites()
        )
    }
}

/// Read exactly `buf.len()` header bytes; running out is a truncated header.
fn read_header_part<R: Read + ?Sized>(
    input: &mut R,
    header: &mut Vec<u8>,
    len: usize,
) -> Result<usize, FileError> {
    let start = header.len();
    header.resize(start + len, 0);
    let got = read_full(input, &mut header[start..]).map_err(FileError::Read)?;
    if got < len {
        return Err(FileError::TruncatedHeader);
    }
    Ok(start)
}

impl Header {
    /// Read and parse the header from the start of `input`, leaving `input` at the first chunk.
    /// Reads at most [`MAX_HEADER_LEN`] bytes; nothing is authenticated yet.
    pub fn read<R: Read + ?Sized>(input: &mut R) -> Result<Header, FileError> {
        let mut magic = [0u8; 4];
        let got = read_full(input, &mut magic).map_err(FileError::Read)?;
        if got == 0 {
            return Err(FileError::Empty);
        }
        if magic[..got] != MAGIC[..got] {
            return Err(FileError::NotEncryptedFile);
        }
        if got < magic.len() {
            return Err(FileError::TruncatedHeader);
        }
        let mut bytes = Vec::with_capacity(FIXED_HEADER_LEN + 2 + 1120 + WRAPPED_KEY_LEN);
        bytes.extend_from_slice(&magic);
        let at = read_header_part(input, &mut bytes, 1)?;
        if bytes[at] != VERSION {
            return Err(FileError::UnknownVersion(bytes[at]));
        }
        let at = read_header_part(input, &mut bytes, PAYLOAD_SALT_LEN + 1)?;
        let payload_salt: [u8; PAYLOAD_SALT_LEN] = bytes[at..at + PAYLOAD_SALT_LEN]
            .try_into()
            .expect("16 bytes");
        let n = usize::from(bytes[at + PAYLOAD_SALT_LEN]);
        if !(1..=MAX_RECIPIENTS).contains(&n) {
            return Err(FileError::Malformed(
                "the recipient count is not between 1 and 64",
            ));
        }
        let mut stanzas = Vec::with_capacity(n);
        for _ in 0..n {
            let at = read_header_part(input, &mut bytes, 2)?;
            let suite = u16::from_be_bytes([bytes[at], bytes[at + 1]]);
            let level = SuiteId::from_u16(suite)
                .and_then(KemLevel::from_suite)
                .ok_or(FileError::UnknownSuite(suite))?;
            let ct_len = level.hybrid_ciphertext_len();
            let at = read_header_part(input, &mut bytes, ct_len + WRAPPED_KEY_LEN)?;
            stanzas.push(Stanza {
                level,
                kem_ct: bytes[at..at + ct_len].to_vec(),
                wrapped: bytes[at + ct_len..at + ct_len + WRAPPED_KEY_LEN]
                    .try_into()
                    .expect("48 bytes"),
            });
        }
        let mut mac = [0u8; MAC_LEN];
        if read_full(input, &mut mac).map_err(FileError::Read)? < MAC_LEN {
            return Err(FileError::TruncatedHeader);
        }
        Ok(Header {
            bytes,
            payload_salt,
            stanzas,
            mac,
        })
    }

    /// The suite of each stanza, in order.
    pub fn suites(&self) -> Vec<SuiteId> {
        self.stanzas.iter().map(|s| s.level.suite()).collect()
    }

    /// The header's length on the wire, mac included.
    pub fn len(&self) -> usize {
        self.bytes.len() + MAC_LEN
    }

    /// Never true: a header has at least one stanza.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Find a stanza that one of `candidates` opens, then check the header MAC in constant time.
    /// Each stanza is tried with every candidate of its suite (ML-KEM's implicit rejection makes
    /// a wrong key fail at the AEAD). Nothing of the payload has been read yet.
    pub fn open(&self, candidates: &[Candidate<'_>]) -> Result<OpenedHeader, FileError> {
        for (stanza_index, stanza) in self.stanzas.iter().enumerate() {
            for (candidate, key) in candidates.iter().enumerate() {
                let level = key.kem_level();
                if level != stanza.level {
                    continue;
                }
                let Ok(ss) = key.decapsulate_ct(&stanza.kem_ct) else {
                    // A low-order X25519 ephemeral key: this stanza is for nobody.
                    continue;
                };
                let key = wrap_key(level, &ss, &stanza.kem_ct);
                let mut file_key = SecretBytes::<32>::from_slice(&stanza.wrapped[..FILE_KEY_LEN])
                    .expect("32 bytes");
                let tag = Tag::try_from(&stanza.wrapped[FILE_KEY_LEN..]).expect("16 bytes");
                let opened = cipher(&key).decrypt_inout_detached(
                    &Nonce::from([0u8; 12]),
                    &[],
                    (&mut file_key.expose_mut()[..]).into(),
                    &tag,
                );
                if opened.is_err() {
                    continue;
                }
                let mac = header_mac(&file_key, &self.bytes);
                if !bool::from(mac.ct_eq(&self.mac)) {
                    return Err(FileError::HeaderTampered);
                }
                return Ok(OpenedHeader {
                    payload_key: payload_key(&file_key, &self.payload_salt),
                    candidate,
                    stanza: stanza_index,
                });
            }
        }
        Err(FileError::NotARecipient)
    }
}

/// An authenticated header: the payload key, and which candidate opened which stanza.
pub struct OpenedHeader {
    payload_key: SecretBytes<32>,
    /// Index into the candidate list.
    pub candidate: usize,
    /// Index of the stanza (0-based) that opened.
    pub stanza: usize,
}

impl fmt::Debug for OpenedHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "OpenedHeader {{ candidate: {}, stanza: {}, payload_key: redacted }}",
            self.candidate, self.stanza
        )
    }
}

impl OpenedHeader {
    /// The plaintext of the payload that follows the header in `input`, as a reader that
    /// gives out each chunk only once it has authenticated (see [`Payload`]).
    pub fn payload<R: Read>(&self, input: R) -> ChunkReader<Payload<R>> {
        ChunkReader::new(self.chunks(input))
    }

    fn chunks<R: Read>(&self, input: R) -> Payload<R> {
        Payload {
            cipher: cipher(&self.payload_key),
            input,
            buf: Zeroizing::new(vec![0u8; SEALED_CHUNK_LEN]),
            carry: None,
            counter: 0,
            done: false,
            total: 0,
        }
    }

    /// Decrypt the chunks that follow the header, writing each to `output` only once it has
    /// authenticated. Returns the plaintext length. On error, `output` may already hold the
    /// authentic chunks before the failing one: a caller writing to a file discards it, a
    /// caller writing to a stream must say so.
    pub fn decrypt_payload<R: Read + ?Sized, W: Write + ?Sized>(
        &self,
        input: &mut R,
        output: &mut W,
    ) -> Result<u64, FileError> {
        let mut payload = self.chunks(input);
        while let Some(n) = payload.open_next()? {
            output
                .write_all(&payload.opened()[..n])
                .map_err(FileError::Write)?;
        }
        Ok(payload.total)
    }
}

/// An opened file's payload, chunk by chunk: a chunk is opened only once it has
/// authenticated, and the end only once the final chunk has. Read through
/// [`ChunkReader`], a failure is an `io::Error` carrying the [`FileError`] ([`FileError::of`]
/// takes it back out); the bytes read before it were authentic, but the file is not whole.
pub struct Payload<R> {
    cipher: Aes256Gcm,
    input: R,
    buf: Zeroizing<Vec<u8>>,
    carry: Option<u8>,
    counter: u128,
    done: bool,
    total: u64,
}

impl<R: Read> Chunks for Payload<R> {
    type Error = FileError;

    fn open_next(&mut self) -> Result<Option<usize>, FileError> {
        if self.done {
            return Ok(None);
        }
        let counter = self.counter;
        let (filled, last) = read_chunk(&mut self.input, &mut self.buf[..], &mut self.carry)
            .map_err(FileError::Read)?;
        if filled < TAG_LEN {
            // Every chunk has a tag; the input ended inside one, or before the first.
            return Err(FileError::Truncated { chunks: counter });
        }
        let cipher = &self.cipher;
        let (ct, tag) = self.buf[..filled].split_at_mut(filled - TAG_LEN);
        let tag = Tag::try_from(&tag[..]).expect("16 bytes");
        let try_open = |ct: &mut [u8], last: bool| -> Result<bool, FileError> {
            let nonce = Nonce::from(chunk_nonce(counter, last)?);
            Ok(cipher
                .decrypt_inout_detached(&nonce, &[], ct.into(), &tag)
                .is_ok())
        };
        if !try_open(ct, last)? {
            // Not authentic as read. Tell a cut or an append from damage: AES-GCM leaves the
            // buffer untouched when the tag does not match, so it can be tried again.
            return Err(if try_open(ct, !last)? {
                if last {
                    FileError::Truncated {
                        chunks: counter + 1,
                    }
                } else {
                    FileError::TrailingData
                }
            } else {
                FileError::ChunkNotAuthentic { chunk: counter }
            });
        }
        if last && ct.is_empty() && counter > 0 {
            return Err(FileError::Malformed(
                "an empty final chunk follows other chunks (not made by nexusq)",
            ));
        }
        let len = ct.len();
        self.total += len as u64;
        self.done = last;
        self.counter += 1;
        Ok(Some(len))
    }

    fn opened(&self) -> &[u8] {
        &self.buf
    }
}

impl<R> fmt::Debug for Payload<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Payload {{ chunks: {}, bytes: {}, done: {}, key: redacted }}",
            self.counter, self.total, self.done
        )
    }
}

impl FileError {
    /// The [`FileError`] a [`Payload`] read failed with, if `e` is one.
    pub fn of(e: &io::Error) -> Option<&FileError> {
        e.get_ref()?.downcast_ref::<FileError>()
    }
}

/// What a successful decryption found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decrypted {
    /// Plaintext bytes written.
    pub bytes: u64,
    /// Index into the candidate list of the key that opened the file.
    pub candidate: usize,
    /// Index of the stanza it opened.
    pub stanza: usize,
}

/// Read the header, open it with one of `candidates`, check its MAC, then stream the payload
/// to `output`. See [`OpenedHeader::decrypt_payload`] for what `output` holds on error.
pub fn decrypt<R: Read + ?Sized, W: Write + ?Sized>(
    candidates: &[Candidate<'_>],
    input: &mut R,
    output: &mut W,
) -> Result<Decrypted, FileError> {
    let header = Header::read(input)?;
    let opened = header.open(candidates)?;
    let bytes = opened.decrypt_payload(input, output)?;
    Ok(Decrypted {
        bytes,
        candidate: opened.candidate,
        stanza: opened.stanza,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{GenerationSecrets, SecretSection};
    use crate::suite::hybrid_kem::DecapsulationKey;
    use crate::suite::rustcrypto::RustCrypto;

    const BACKEND: &RustCrypto = &RustCrypto;

    /// A recipient's seeds, expanded keys and public keys for both suites.
    struct Keys {
        xwing: SecretBytes<32>,
        dk768: DecapsulationKey,
        dk1024: DecapsulationKey,
        pk768: Vec<u8>,
        pk1024: Vec<u8>,
    }

    impl Keys {
        fn new() -> Keys {
            Keys::from_seeds(SecretBytes::random(), SecretBytes::random())
        }

        fn from_seeds(xwing: SecretBytes<32>, mlkem1024: SecretBytes<32>) -> Keys {
            let dk768 = DecapsulationKey::from_seed(BACKEND, KemLevel::MlKem768, &xwing);
            let dk1024 = DecapsulationKey::from_seed(BACKEND, KemLevel::MlKem1024, &mlkem1024);
            Keys {
                pk768: hybrid_kem::public_key(BACKEND, KemLevel::MlKem768, &xwing),
                pk1024: hybrid_kem::public_key(BACKEND, KemLevel::MlKem1024, &mlkem1024),
                xwing,
                dk768,
                dk1024,
            }
        }

        fn recipient(&self, level: KemLevel) -> Recipient<'_> {
            match level {
                KemLevel::MlKem768 => (level, &self.pk768),
                KemLevel::MlKem1024 => (level, &self.pk1024),
            }
        }

        fn candidates(&self) -> Vec<Candidate<'_>> {
            vec![&self.dk768, &self.dk1024]
        }

        /// `seed` expanded as a key of `level`, whatever suite it was made for.
        fn key(seed: &SecretBytes<32>, level: KemLevel) -> DecapsulationKey {
            DecapsulationKey::from_seed(BACKEND, level, seed)
        }
    }

    /// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
    fn data(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    fn enc(recipients: &[Recipient<'_>], plain: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let n = encrypt(BACKEND, recipients, &mut &plain[..], &mut out).unwrap();
        assert_eq!(n, plain.len() as u64);
        out
    }

    fn dec(candidates: &[Candidate<'_>], file: &[u8]) -> Result<(Vec<u8>, Decrypted), FileError> {
        let mut out = Vec::new();
        let d = decrypt(candidates, &mut &file[..], &mut out)?;
        assert_eq!(d.bytes, out.len() as u64);
        Ok((out, d))
    }

    fn header_len(level: KemLevel, n: usize) -> usize {
        FIXED_HEADER_LEN + n * (2 + level.hybrid_ciphertext_len() + WRAPPED_KEY_LEN) + MAC_LEN
    }

    /// Expected ciphertext length for a plaintext of `len` bytes.
    fn payload_len(len: usize) -> usize {
        let chunks = if len == 0 { 1 } else { len.div_ceil(CHUNK_LEN) };
        len + chunks * TAG_LEN
    }

    const SIZES: [usize; 6] = [0, 1, 65535, 65536, 65537, 3 * 65536];

    #[test]
    fn round_trips_every_size_both_suites() {
        let k = Keys::new();
        for level in [KemLevel::MlKem768, KemLevel::MlKem1024] {
            for (i, &size) in SIZES.iter().enumerate() {
                let plain = data(size, i as u64 + 1);
                let file = enc(&[k.recipient(level)], &plain);
                assert_eq!(
                    file.len(),
                    header_len(level, 1) + payload_len(size),
                    "{size}"
                );
                assert_eq!(&file[..4], b"NXQF");
                assert_eq!(file[4], 1);
                assert_eq!(file[21], 1);
                assert_eq!(&file[22..24], &level.suite().to_u16().to_be_bytes());
                let (out, d) = dec(&k.candidates(), &file).unwrap();
                assert_eq!(out, plain, "{level:?} {size}");
                assert_eq!(d.stanza, 0);
                assert_eq!(k.candidates()[d.candidate].kem_level(), level);
            }
        }
    }

    #[test]
    fn several_recipients_each_decrypt_and_64_is_the_limit() {
        let keys: Vec<Keys> = (0..MAX_RECIPIENTS).map(|_| Keys::new()).collect();
        let plain = data(70_000, 9);
        // Mixed suites among three recipients.
        let three = [
            keys[0].recipient(KemLevel::MlKem768),
            keys[1].recipient(KemLevel::MlKem1024),
            keys[2].recipient(KemLevel::MlKem768),
        ];
        let file = enc(&three, &plain);
        for (i, k) in keys[..3].iter().enumerate() {
            let (out, d) = dec(&k.candidates(), &file).unwrap();
            assert_eq!(out, plain);
            assert_eq!(d.stanza, i);
        }
        assert!(matches!(
            dec(&keys[3].candidates(), &file),
            Err(FileError::NotARecipient)
        ));
        // 64 recipients: the first and the last can decrypt.
        let all: Vec<Recipient<'_>> = keys
            .iter()
            .map(|k| k.recipient(KemLevel::MlKem768))
            .collect();
        let file = enc(&all, &plain);
        assert_eq!(file[21], 64);
        assert_eq!(dec(&keys[0].candidates(), &file).unwrap().0, plain);
        let (out, d) = dec(&keys[63].candidates(), &file).unwrap();
        assert_eq!((out, d.stanza), (plain.clone(), 63));
        // 65 and 0 are refused before anything is written.
        let mut too_many = all.clone();
        too_many.push(keys[0].recipient(KemLevel::MlKem1024));
        let mut out = Vec::new();
        assert!(matches!(
            encrypt(BACKEND, &too_many, &mut &plain[..], &mut out),
            Err(FileError::TooManyRecipients(65))
        ));
        assert!(matches!(
            encrypt(BACKEND, &[], &mut &plain[..], &mut out),
            Err(FileError::NoRecipients)
        ));
        assert!(out.is_empty());
    }

    #[test]
    fn the_largest_header_is_max_header_len() {
        let k = Keys::new();
        let all = vec![k.recipient(KemLevel::MlKem1024); MAX_RECIPIENTS];
        let file = enc(&all, b"");
        assert_eq!(file.len(), MAX_HEADER_LEN + TAG_LEN);
        let h = Header::read(&mut &file[..]).unwrap();
        assert_eq!(h.len(), MAX_HEADER_LEN);
    }

    #[test]
    fn wrong_recipient_and_wrong_suite_are_not_recipients() {
        let (a, b) = (Keys::new(), Keys::new());
        let file = enc(&[a.recipient(KemLevel::MlKem768)], b"secret");
        assert!(matches!(
            dec(&b.candidates(), &file),
            Err(FileError::NotARecipient)
        ));
        // a's ML-KEM-1024 key alone does not open an X-Wing stanza.
        assert!(matches!(
            dec(&[&a.dk1024], &file),
            Err(FileError::NotARecipient)
        ));
        // The right seed under the wrong suite is not even tried.
        assert!(matches!(
            dec(&[&Keys::key(&a.xwing, KemLevel::MlKem1024)], &file),
            Err(FileError::NotARecipient)
        ));
        assert!(matches!(dec(&[], &file), Err(FileError::NotARecipient)));
    }

    #[test]
    fn a_superseded_generations_kept_key_decrypts() {
        let gen1 = GenerationSecrets::generate(1);
        let gen2 = GenerationSecrets::generate(2);
        let old_pk = gen1.public_keys(BACKEND).unwrap();
        let plain = data(100_000, 3);
        let file = enc(&[(KemLevel::MlKem768, &old_pk.xwing)], &plain);
        let file1024 = enc(&[(KemLevel::MlKem1024, &old_pk.mlkem1024_x25519)], &plain);
        // Newest first, as the identity hands them out.
        let vault = SecretSection {
            generations: vec![gen1, gen2],
        };
        let keys = vault.decryption_keys(BACKEND);
        let candidates: Vec<Candidate<'_>> =
            keys.iter().map(|k| k.key() as Candidate<'_>).collect();
        let (out, d) = dec(&candidates, &file).unwrap();
        assert_eq!(out, plain);
        assert_eq!(d.candidate, 2, "generation 1's X-Wing key");
        let (out, d) = dec(&candidates, &file1024).unwrap();
        assert_eq!(out, plain);
        assert_eq!(d.candidate, 3);
        // The identity names the generation that opened the header.
        let header = Header::read(&mut &file[..]).unwrap();
        let (_, key) = keys.open_file_header(&header).unwrap();
        assert_eq!((key.generation(), key.level()), (1, KemLevel::MlKem768));
        // Once generation 1 is retired, the file is for nobody here.
        let only_new = &candidates[..2];
        assert!(matches!(
            dec(only_new, &file),
            Err(FileError::NotARecipient)
        ));
    }

    // -----------------------------------------------------------------------------------------
    // Hand-built files: a known file key and chunks with chosen counters and flags.

    struct Forge {
        file_key: SecretBytes<32>,
        salt: [u8; PAYLOAD_SALT_LEN],
        header: Vec<u8>,
    }

    impl Forge {
        fn new(k: &Keys) -> Forge {
            let file_key = SecretBytes::random();
            let salt = random_array();
            let header = build_header(
                BACKEND,
                &[k.recipient(KemLevel::MlKem768)],
                &file_key,
                &salt,
            )
            .unwrap();
            Forge {
                file_key,
                salt,
                header,
            }
        }

        /// Chunk `counter` of `plain` sealed with the given flag.
        fn chunk(&self, counter: u128, last: bool, plain: &[u8]) -> Vec<u8> {
            let c = cipher(&payload_key(&self.file_key, &self.salt));
            let mut buf = plain.to_vec();
            buf.resize(plain.len() + TAG_LEN, 0);
            let n = seal_chunk(&c, counter, last, &mut buf, plain.len()).unwrap();
            buf.truncate(n);
            buf
        }

        fn file(&self, chunks: &[Vec<u8>]) -> Vec<u8> {
            let mut f = self.header.clone();
            for c in chunks {
                f.extend_from_slice(c);
            }
            f
        }
    }

    #[test]
    fn hand_built_files_match_the_encryptor_and_check_every_rule() {
        let k = Keys::new();
        let f = Forge::new(&k);
        let full = |i: u8| vec![i; CHUNK_LEN];
        let good = f.file(&[
            f.chunk(0, false, &full(1)),
            f.chunk(1, false, &full(2)),
            f.chunk(2, true, &[3; 10]),
        ]);
        let (out, _) = dec(&k.candidates(), &good).unwrap();
        assert_eq!(out.len(), 2 * CHUNK_LEN + 10);

        let cases: Vec<(&str, Vec<u8>)> = vec![
            (
                "reordered chunks",
                f.file(&[
                    f.chunk(1, false, &full(2)),
                    f.chunk(0, false, &full(1)),
                    f.chunk(2, true, &[3; 10]),
                ]),
            ),
            (
                "missing last chunk",
                f.file(&[f.chunk(0, false, &full(1)), f.chunk(1, false, &full(2))]),
            ),
            (
                "final flag on a middle chunk, then more",
                f.file(&[
                    f.chunk(0, true, &full(1)),
                    f.chunk(1, false, &full(2)),
                    f.chunk(2, true, &[3; 10]),
                ]),
            ),
            (
                "a short chunk that is not last",
                f.file(&[f.chunk(0, false, &[1; 100]), f.chunk(1, true, &[2; 10])]),
            ),
            (
                "last chunk without the final flag",
                f.file(&[f.chunk(0, false, &[1; 10])]),
            ),
            (
                "an empty final chunk after a full one",
                f.file(&[f.chunk(0, false, &full(1)), f.chunk(1, true, &[])]),
            ),
            ("no chunk at all", f.file(&[])),
            (
                "a skipped counter",
                f.file(&[f.chunk(0, false, &full(1)), f.chunk(2, true, &[3; 10])]),
            ),
        ];
        let expected = |name: &str, e: &FileError| match name {
            "reordered chunks" => matches!(e, FileError::ChunkNotAuthentic { chunk: 0 }),
            "missing last chunk" => matches!(e, FileError::Truncated { chunks: 2 }),
            "final flag on a middle chunk, then more" => matches!(e, FileError::TrailingData),
            "a short chunk that is not last" => {
                matches!(e, FileError::ChunkNotAuthentic { chunk: 0 })
            }
            "last chunk without the final flag" => matches!(e, FileError::Truncated { chunks: 1 }),
            "an empty final chunk after a full one" => matches!(e, FileError::Malformed(_)),
            "no chunk at all" => matches!(e, FileError::Truncated { chunks: 0 }),
            "a skipped counter" => matches!(e, FileError::ChunkNotAuthentic { chunk: 1 }),
            _ => false,
        };
        for (name, file) in cases {
            let mut out = Vec::new();
            let err = decrypt(&k.candidates(), &mut &file[..], &mut out).unwrap_err();
            assert!(expected(name, &err), "{name}: got {err:?}");
        }
        // The encryptor's own 3-chunk file cut after chunk 1: chunk 0 is already out, chunk 1
        // authenticates only as a middle chunk, so it is held back and the file is "truncated".
        let plain = data(2 * CHUNK_LEN + 5, 4);
        let file = enc(&[k.recipient(KemLevel::MlKem768)], &plain);
        let cut = header_len(KemLevel::MlKem768, 1) + 2 * SEALED_CHUNK_LEN;
        let mut out = Vec::new();
        let err = decrypt(&k.candidates(), &mut &file[..cut], &mut out).unwrap_err();
        assert!(matches!(err, FileError::Truncated { chunks: 2 }), "{err:?}");
        assert!(out == plain[..CHUNK_LEN], "only chunk 0 is out");
    }

    #[test]
    fn trailing_bytes_are_refused() {
        let k = Keys::new();
        for size in [0, 10, CHUNK_LEN, 2 * CHUNK_LEN] {
            let plain = data(size, 5);
            let mut file = enc(&[k.recipient(KemLevel::MlKem768)], &plain);
            file.push(0);
            let err = dec(&k.candidates(), &file).unwrap_err();
            // A full final chunk followed by data is recognised as such; after a short one
            // the extra byte makes the chunk itself unauthentic.
            if size % CHUNK_LEN == 0 && size > 0 {
                assert!(matches!(err, FileError::TrailingData), "{size}: {err:?}");
            } else {
                assert!(
                    matches!(err, FileError::ChunkNotAuthentic { .. }),
                    "{size}: {err:?}"
                );
            }
            file.extend_from_slice(&[0; SEALED_CHUNK_LEN + 3]);
            assert!(dec(&k.candidates(), &file).is_err());
        }
    }

    #[test]
    fn every_truncation_of_a_small_file_is_refused() {
        let k = Keys::new();
        for level in [KemLevel::MlKem768, KemLevel::MlKem1024] {
            let file = enc(&[k.recipient(level)], b"a small file");
            for cut in 0..file.len() {
                let mut out = Vec::new();
                let r = decrypt(&k.candidates(), &mut &file[..cut], &mut out);
                let err = r.expect_err("a truncated file decrypted");
                let header = header_len(level, 1);
                match cut {
                    0 => assert!(matches!(err, FileError::Empty)),
                    c if c < header => {
                        assert!(matches!(err, FileError::TruncatedHeader), "{c}: {err:?}")
                    }
                    c => assert!(
                        matches!(
                            err,
                            FileError::Truncated { chunks: 0 }
                                | FileError::ChunkNotAuthentic { chunk: 0 }
                        ),
                        "{c}: {err:?}"
                    ),
                }
                assert!(out.is_empty());
            }
        }
    }

    #[test]
    fn every_byte_flip_of_a_small_file_is_refused() {
        let k = Keys::new();
        let plain = data(CHUNK_LEN + 300, 6);
        let file = enc(
            &[
                Keys::new().recipient(KemLevel::MlKem1024),
                k.recipient(KemLevel::MlKem768),
            ],
            &plain,
        );
        let header = header_len(KemLevel::MlKem1024, 1) + header_len(KemLevel::MlKem768, 1)
            - FIXED_HEADER_LEN
            - MAC_LEN;
        assert_eq!(file.len(), header + payload_len(plain.len()));
        // Every header byte and a stride through the payload, flipping a different bit each time.
        let positions: Vec<usize> = (0..header)
            .chain((header..file.len()).step_by(97))
            .collect();
        for &pos in &positions {
            let bit = 1u8 << (pos % 8);
            let mut bad = file.clone();
            bad[pos] ^= bit;
            let mut out = Vec::new();
            let err = decrypt(&k.candidates(), &mut &bad[..], &mut out)
                .expect_err("a flipped file decrypted");
            let ok = match pos {
                0..4 => matches!(err, FileError::NotEncryptedFile),
                4 => matches!(err, FileError::UnknownVersion(_)),
                // payload salt: the MAC covers it.
                5..21 => matches!(err, FileError::HeaderTampered),
                21 => matches!(
                    err,
                    FileError::Malformed(_)
                        | FileError::TruncatedHeader
                        | FileError::HeaderTampered
                        | FileError::UnknownSuite(_)
                ),
                p if p < header - MAC_LEN => matches!(
                    err,
                    FileError::HeaderTampered
                        | FileError::NotARecipient
                        | FileError::UnknownSuite(_)
                        | FileError::TruncatedHeader
                ),
                p if p < header => matches!(err, FileError::HeaderTampered),
                _ => matches!(err, FileError::ChunkNotAuthentic { .. }),
            };
            assert!(ok, "flip {bit:#x} at {pos}: {err:?}");
            if pos < header {
                assert!(out.is_empty(), "output before the header authenticated");
            }
        }
    }

    #[test]
    fn header_parsing_refuses_hostile_values() {
        let k = Keys::new();
        let file = enc(&[k.recipient(KemLevel::MlKem768)], b"x");
        type Case = (usize, u8, fn(&FileError) -> bool);
        let cases: [Case; 5] = [
            (21, 0, |e| matches!(e, FileError::Malformed(_))),
            (21, 65, |e| matches!(e, FileError::Malformed(_))),
            (21, 255, |e| matches!(e, FileError::Malformed(_))),
            (4, 2, |e| matches!(e, FileError::UnknownVersion(2))),
            (23, 0x11, |e| matches!(e, FileError::UnknownSuite(0x0011))),
        ];
        for (pos, value, ok) in cases {
            let mut bad = file.clone();
            bad[pos] = value;
            let err = Header::read(&mut &bad[..]).unwrap_err();
            assert!(ok(&err), "byte {pos} = {value}: {err:?}");
        }
        assert!(matches!(
            Header::read(&mut &b"NXQ"[..]),
            Err(FileError::TruncatedHeader)
        ));
        assert!(matches!(
            Header::read(&mut &b"PK\x03\x04rest"[..]),
            Err(FileError::NotEncryptedFile)
        ));
        assert!(matches!(
            Header::read(&mut &b"N"[..]),
            Err(FileError::TruncatedHeader)
        ));
        assert!(matches!(
            Header::read(&mut &b"X"[..]),
            Err(FileError::NotEncryptedFile)
        ));
    }

    #[test]
    fn a_stanza_swapped_in_from_another_file_fails_the_mac() {
        // Same recipient, two files: the stanzas open, but the other file's key fails the MAC of
        // this header... and a whole header swap breaks the first chunk.
        let k = Keys::new();
        let a = enc(&[k.recipient(KemLevel::MlKem768)], b"file a");
        let b = enc(&[k.recipient(KemLevel::MlKem768)], b"file b");
        let h = header_len(KemLevel::MlKem768, 1);
        let mut mixed = a[..22].to_vec();
        mixed.extend_from_slice(&b[22..h - MAC_LEN]);
        mixed.extend_from_slice(&a[h - MAC_LEN..]);
        assert!(matches!(
            dec(&k.candidates(), &mixed),
            Err(FileError::HeaderTampered)
        ));
        let mut swapped = b[..h].to_vec();
        swapped.extend_from_slice(&a[h..]);
        assert!(matches!(
            dec(&k.candidates(), &swapped),
            Err(FileError::ChunkNotAuthentic { chunk: 0 })
        ));
    }

    #[test]
    fn nonces_and_counter_limit() {
        assert_eq!(chunk_nonce(0, false).unwrap(), [0; 12]);
        let n = chunk_nonce(0x0102, true).unwrap();
        assert_eq!(n, [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1]);
        let max = chunk_nonce(COUNTER_LIMIT - 1, false).unwrap();
        assert_eq!(
            max,
            [
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0
            ]
        );
        assert!(matches!(
            chunk_nonce(COUNTER_LIMIT, false),
            Err(FileError::CounterOverflow)
        ));
    }

    #[test]
    fn invalid_recipient_keys_are_refused() {
        let k = Keys::new();
        let mut out = Vec::new();
        let short = &k.pk768[..100];
        let r = encrypt(
            BACKEND,
            &[(KemLevel::MlKem768, short)],
            &mut &b""[..],
            &mut out,
        );
        assert!(matches!(
            r,
            Err(FileError::InvalidRecipient { index: 0, .. })
        ));
        // A 1024 key passed as X-Wing is the wrong length.
        let r = encrypt(
            BACKEND,
            &[
                k.recipient(KemLevel::MlKem768),
                (KemLevel::MlKem768, &k.pk1024),
            ],
            &mut &b""[..],
            &mut out,
        );
        assert!(matches!(
            r,
            Err(FileError::InvalidRecipient { index: 1, .. })
        ));
        assert!(out.is_empty());
    }

    /// A reader that hands out one byte per call, and a writer that takes a few bytes per call:
    /// short reads and writes must not change the result.
    #[test]
    fn short_reads_and_writes() {
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() || buf.is_empty() {
                    return Ok(0);
                }
                buf[0] = self.0[0];
                self.0 = &self.0[1..];
                Ok(1)
            }
        }
        let k = Keys::new();
        let plain = data(CHUNK_LEN + 7, 8);
        let mut file = Vec::new();
        encrypt(
            BACKEND,
            &[k.recipient(KemLevel::MlKem768)],
            &mut Trickle(&plain),
            &mut file,
        )
        .unwrap();
        let mut out = Vec::new();
        decrypt(&k.candidates(), &mut Trickle(&file), &mut out).unwrap();
        assert_eq!(out, plain);
    }

    #[test]
    fn io_errors_are_reported_as_such() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let k = Keys::new();
        let r = encrypt(
            BACKEND,
            &[k.recipient(KemLevel::MlKem768)],
            &mut Broken,
            &mut Vec::new(),
        );
        assert!(matches!(r, Err(FileError::Read(_))));
        let r = encrypt(
            BACKEND,
            &[k.recipient(KemLevel::MlKem768)],
            &mut &b"x"[..],
            &mut Broken,
        );
        assert!(matches!(r, Err(FileError::Write(_))));
        let file = enc(&[k.recipient(KemLevel::MlKem768)], b"x");
        let r = decrypt(&k.candidates(), &mut &file[..], &mut Broken);
        assert!(matches!(r, Err(FileError::Write(_))));
        let r = decrypt(&k.candidates(), &mut Broken, &mut Vec::new());
        assert!(matches!(r, Err(FileError::Read(_))));
    }

    #[test]
    fn debug_output_holds_no_keys() {
        let k = Keys::new();
        let file = enc(&[k.recipient(KemLevel::MlKem768)], b"x");
        let h = Header::read(&mut &file[..]).unwrap();
        let opened = h.open(&k.candidates()).unwrap();
        let text = format!("{h:?} {opened:?}");
        assert!(text.contains("redacted"), "{text}");
        assert!(!text.contains(&format!("{:?}", opened.payload_key.expose())));
    }
}

//! The age payload (C2SP age.md, "Payload"): STREAM with ChaCha20-Poly1305 in 64 KiB chunks.
//!
//! payload key = HKDF-SHA-256(ikm = file key, salt = nonce, info = "payload"); chunk i is
//! sealed with nonce = u88be(i) || (0x01 on the last chunk, else 0x00). The last chunk may be
//! short, and is empty only when the whole payload is. Both directions stream in constant
//! memory (one chunk buffer and a one-byte lookahead); a chunk reaches the output only once it
//! has authenticated.

use super::FileKey;
use super::error::{AgeError, PayloadError};
use super::header::NONCE_LEN;
use crate::secret::SecretBytes;
use crate::wire::{Chunks, read_chunk};
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Nonce, Tag};
use hkdf::Hkdf;
use sha2::Sha256;
use std::io::{Read, Write};
use zeroize::Zeroizing;

/// Plaintext bytes per chunk.
pub const CHUNK_LEN: usize = 64 * 1024;
/// ChaCha20-Poly1305 tag length.
pub(crate) const TAG_LEN: usize = 16;
/// A full chunk on the wire: ciphertext and tag.
pub(crate) const SEALED_CHUNK_LEN: usize = CHUNK_LEN + TAG_LEN;
const COUNTER_LIMIT: u128 = 1 << 88;

/// HKDF-SHA-256(ikm = file key, salt = nonce, info = "payload") (module docs).
pub(crate) fn payload_key(file_key: &FileKey, nonce: &[u8; NONCE_LEN]) -> SecretBytes<32> {
    let mut k = SecretBytes::<32>::zero();
    Hkdf::<Sha256>::new(Some(nonce), file_key.0.expose())
        .expand(b"payload", k.expose_mut())
        .expect("32 bytes");
    k
}

fn chunk_nonce(counter: u128, last: bool) -> Result<Nonce, AgeError> {
    if counter >= COUNTER_LIMIT {
        return Err(AgeError::Payload(PayloadError::CounterOverflow));
    }
    let mut nonce = [0u8; 12];
    nonce[..11].copy_from_slice(&counter.to_be_bytes()[5..]);
    nonce[11] = u8::from(last);
    Ok(Nonce::from(nonce))
}

fn cipher(key: &SecretBytes<32>) -> ChaCha20Poly1305 {
    ChaCha20Poly1305::new_from_slice(key.expose()).expect("32-byte key")
}

/// Encrypt everything `input` yields. Returns the plaintext length.
pub fn encrypt<R: Read + ?Sized, W: Write + ?Sized>(
    key: &SecretBytes<32>,
    input: &mut R,
    output: &mut W,
) -> Result<u64, AgeError> {
    let cipher = cipher(key);
    let mut buf = Zeroizing::new(vec![0u8; SEALED_CHUNK_LEN]);
    let mut carry = None;
    let mut counter: u128 = 0;
    let mut total = 0u64;
    loop {
        let (filled, last) =
            read_chunk(input, &mut buf[..CHUNK_LEN], &mut carry).map_err(AgeError::Read)?;
        let tag = cipher
            .encrypt_inout_detached(
                &chunk_nonce(counter, last)?,
                &[],
                (&mut buf[..filled]).into(),
            )
            .expect("a 64 KiB chunk is within ChaCha20-Poly1305's limit");
        buf[filled..filled + TAG_LEN].copy_from_slice(&tag);
        output
            .write_all(&buf[..filled + TAG_LEN])
            .map_err(AgeError::Write)?;
        total += filled as u64;
        if last {
            return Ok(total);
        }
        counter += 1;
    }
}

/// Decrypt the chunks, writing each to `output` once it authenticates. On error, `output`
/// holds exactly the authentic chunks before the failing one.
pub fn decrypt<R: Read + ?Sized, W: Write + ?Sized>(
    key: &SecretBytes<32>,
    input: &mut R,
    output: &mut W,
) -> Result<u64, AgeError> {
    let mut payload = Payload::new(key, input);
    while let Some(n) = payload.open_next()? {
        output
            .write_all(&payload.opened()[..n])
            .map_err(AgeError::Write)?;
    }
    Ok(payload.total)
}

/// An age payload, chunk by chunk, each opened once it authenticates. Read through
/// [`ChunkReader`](crate::wire::ChunkReader), a failure is an `io::Error` carrying the
/// [`AgeError`] ([`AgeError::of`]).
pub struct Payload<R> {
    cipher: ChaCha20Poly1305,
    input: R,
    buf: Zeroizing<Vec<u8>>,
    carry: Option<u8>,
    counter: u128,
    done: bool,
    /// The error to give once the chunk released before it has been read.
    pending: Option<AgeError>,
    total: u64,
}

impl<R: Read> Payload<R> {
    /// The payload sealed under `key` in `input`.
    pub fn new(key: &SecretBytes<32>, input: R) -> Payload<R> {
        Payload {
            cipher: cipher(key),
            input,
            buf: Zeroizing::new(vec![0u8; SEALED_CHUNK_LEN]),
            carry: None,
            counter: 0,
            done: false,
            pending: None,
            total: 0,
        }
    }
}

impl<R: Read> Chunks for Payload<R> {
    type Error = AgeError;

    fn open_next(&mut self) -> Result<Option<usize>, AgeError> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.done {
            return Ok(None);
        }
        let counter = self.counter;
        let (filled, last) = read_chunk(&mut self.input, &mut self.buf[..], &mut self.carry)
            .map_err(AgeError::from_read)?;
        let chunks = counter as u64;
        let fail = |p| Err(AgeError::Payload(p));
        if filled < TAG_LEN {
            // The input ended inside a tag, or before the first chunk.
            return fail(if filled == 0 && counter > 0 {
                PayloadError::Truncated { chunks }
            } else {
                PayloadError::NotAuthentic { chunk: chunks }
            });
        }
        let cipher = &self.cipher;
        let (ct, tag) = self.buf[..filled].split_at_mut(filled - TAG_LEN);
        let tag = Tag::try_from(&tag[..]).expect("16 bytes");
        let open = |ct: &mut [u8], last: bool| -> Result<bool, AgeError> {
            Ok(cipher
                .decrypt_inout_detached(&chunk_nonce(counter, last)?, &[], ct.into(), &tag)
                .is_ok())
        };
        if !open(ct, last)? {
            // ChaCha20-Poly1305 leaves the buffer as it was when the tag fails: try the other
            // flag to tell a cut or an append from damage.
            if !open(ct, !last)? {
                return fail(PayloadError::NotAuthentic { chunk: chunks });
            }
            let error = AgeError::Payload(if last {
                PayloadError::Truncated { chunks: chunks + 1 }
            } else {
                PayloadError::TrailingData
            });
            // A full-size chunk could have been either; when it authenticates under the other
            // flag it is released before the error (the testkit's rule: what decrypted is
            // output). A short chunk is always the last: sealed as non-final it is refused.
            if ct.len() != CHUNK_LEN {
                return Err(error);
            }
            self.pending = Some(error);
            self.done = true;
            return Ok(Some(CHUNK_LEN));
        }
        if last && ct.is_empty() && counter > 0 {
            return fail(PayloadError::EmptyLastChunk);
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

impl<R> std::fmt::Debug for Payload<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Payload {{ chunks: {}, bytes: {}, done: {}, key: redacted }}",
            self.counter, self.total, self.done
        )
    }
}

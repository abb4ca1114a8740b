//! age v1 (C2SP age.md; docs/age.md): the one implementation of the format that `nexusq
//! encrypt`/`decrypt` and the `age-plugin-nexusq` plugin share.
//!
//! nexusq writes files to `mlkem768x25519` (X-Wing) recipients only, and reads files with
//! `mlkem768x25519` and classic `X25519` stanzas (mixed headers included). Passphrase
//! (`scrypt`) files are recognised and refused as unsupported. The X-Wing operations go through
//! the [`Backend`], so `--backend native` applies.
//!
//! Reading is strict (the CCTV testkit's rules): see [`header`], [`stanza`], [`stream`] and
//! age's profile of [`crate::format::armor`]. Nothing here touches files: callers pass any
//! `Read` and `Write`.

mod error;
pub mod header;
pub(crate) mod hpke;
pub mod mlkem768x25519;
pub mod plugin;
pub mod recipient;
pub mod stanza;
pub mod stream;
pub mod x25519;

pub use error::{AgeError, ErrorClass, PayloadError};
pub use header::Header;
pub use recipient::{Identity, Key};

use crate::format::armor::{self, ArmorReader, Profile};
use crate::secret::{SecretBytes, random_array};
use crate::suite::backend::Backend;
use std::io::{BufRead, Read, Write};

/// Length of age's file key: 128 bits.
pub(crate) const FILE_KEY_LEN: usize = 16;
/// How many leading bytes [`sniff`] needs to recognise armor after leading whitespace.
pub const SNIFF_LEN: usize = armor::AGE_MAX_WHITESPACE + armor::AGE_BEGIN.len();

/// The 128-bit file key.
pub struct FileKey(pub(crate) SecretBytes<FILE_KEY_LEN>);

impl FileKey {
    /// A fresh key from the OS's random source.
    pub fn random() -> FileKey {
        FileKey(SecretBytes::random())
    }
}

impl std::fmt::Debug for FileKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileKey(redacted)")
    }
}

/// A key to decrypt with, borrowed from wherever it lives (a vault generation, an identity
/// file).
#[derive(Clone, Copy)]
pub enum IdentityRef<'a> {
    /// An MLKEM768-X25519 identity: its X-Wing key, expanded once (see [`Identity::expand`]),
    /// or held by the key agent.
    Hybrid(&'a dyn crate::suite::hybrid_kem::Decapsulate),
    /// A classic X25519 identity.
    X25519(&'a SecretBytes<32>),
}

/// What the first bytes of an input say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A binary file, starting with `age-encryption.org/`.
    Binary,
    /// age's ASCII armor (`-----BEGIN AGE ENCRYPTED FILE-----`), possibly after whitespace.
    Armored,
}

/// Recognise an age file from its first bytes (up to [`SNIFF_LEN`] of them).
pub fn sniff(prefix: &[u8]) -> Option<Format> {
    if prefix.starts_with(b"age-encryption.org/") {
        Some(Format::Binary)
    } else if armor::looks_like_age(prefix) {
        Some(Format::Armored)
    } else {
        None
    }
}

/// Encrypt everything `input` yields to the X-Wing public keys `recipients`, writing the
/// binary age file to `output` (wrap it in an [`armor::ArmorWriter`] of age's
/// [`Profile`] for armor). Returns the
/// plaintext length. On error, `output` holds an incomplete file: discard it.
pub fn encrypt<R: Read + ?Sized, W: Write + ?Sized>(
    backend: &dyn Backend,
    recipients: &[&[u8]],
    input: &mut R,
    output: &mut W,
) -> Result<u64, AgeError> {
    if recipients.is_empty() {
        return Err(AgeError::NoRecipients);
    }
    let file_key = FileKey::random();
    let stanzas = recipients
        .iter()
        .enumerate()
        .map(|(index, pk)| {
            mlkem768x25519::wrap(backend, pk, &file_key)
                .map_err(|error| AgeError::InvalidRecipient { index, error })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let nonce: [u8; header::NONCE_LEN] = random_array();
    let header = Header::encode(&stanzas, &file_key, &nonce);
    output.write_all(&header).map_err(AgeError::Write)?;
    let key = stream::payload_key(&file_key, &nonce);
    drop(file_key);
    stream::encrypt(&key, input, output)
}

/// An opened header: the payload key, and which identity opened which stanza.
pub struct Opened {
    payload_key: SecretBytes<32>,
    /// Index into the identity list.
    pub identity: usize,
    /// Index of the stanza.
    pub stanza: usize,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Opened {{ identity: {}, stanza: {}, payload_key: redacted }}",
            self.identity, self.stanza
        )
    }
}

/// Try `identity` on `stanza`: `Ok(None)` when the stanza is not of its type or not for it.
pub(crate) fn unwrap_stanza(
    identity: IdentityRef<'_>,
    stanza: &stanza::Stanza,
) -> Result<Option<FileKey>, AgeError> {
    match (identity, stanza.tag.as_str()) {
        (IdentityRef::Hybrid(key), mlkem768x25519::TAG) => mlkem768x25519::unwrap(key, stanza),
        (IdentityRef::X25519(sk), x25519::TAG) => x25519::unwrap(sk, stanza),
        _ => Ok(None),
    }
}

impl Header {
    /// Find a stanza that one of `identities` opens (each stanza in order, each identity in
    /// order), then check the header MAC. Nothing of the payload has been read.
    pub fn open(&self, identities: &[IdentityRef<'_>]) -> Result<Opened, AgeError> {
        for (stanza_index, s) in self.stanzas.iter().enumerate() {
            for (identity, &id) in identities.iter().enumerate() {
                if let Some(file_key) = unwrap_stanza(id, s)? {
                    self.verify_mac(&file_key)?;
                    return Ok(Opened {
                        payload_key: stream::payload_key(&file_key, &self.nonce),
                        identity,
                        stanza: stanza_index,
                    });
                }
            }
        }
        Err(AgeError::NoMatch)
    }
}

impl Opened {
    /// The plaintext of the payload that follows the header in `input`, as a reader that gives
    /// out each chunk once it has authenticated.
    pub fn payload<R: Read>(&self, input: R) -> crate::wire::ChunkReader<stream::Payload<R>> {
        crate::wire::ChunkReader::new(stream::Payload::new(&self.payload_key, input))
    }

    /// Decrypt the payload that follows the header. On error, `output` holds exactly the
    /// authentic chunks before the failing one.
    pub fn decrypt_payload<R: Read + ?Sized, W: Write + ?Sized>(
        &self,
        input: &mut R,
        output: &mut W,
    ) -> Result<u64, AgeError> {
        stream::decrypt(&self.payload_key, input, output)
    }
}

/// What a successful decryption found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decrypted {
    /// Plaintext bytes written.
    pub bytes: u64,
    /// Index of the identity that opened the file, in the list given.
    pub identity: usize,
    /// Index of the stanza it opened (0-based).
    pub stanza: usize,
}

/// Decrypt a binary age file from a buffered reader (wrap armor in an [`ArmorReader`] and
/// a `BufReader` first; [`reader`] does both).
pub fn decrypt<R: BufRead + ?Sized, W: Write + ?Sized>(
    identities: &[IdentityRef<'_>],
    input: &mut R,
    output: &mut W,
) -> Result<Decrypted, AgeError> {
    let header = Header::read(input)?;
    let opened = header.open(identities)?;
    let bytes = opened.decrypt_payload(input, output)?;
    Ok(Decrypted {
        bytes,
        identity: opened.identity,
        stanza: opened.stanza,
    })
}

/// A buffered reader of the binary file inside `input`, de-armoring when `format` says so.
pub fn reader<'a, R: Read + 'a>(input: R, format: Format) -> Box<dyn BufRead + 'a> {
    match format {
        Format::Binary => Box::new(std::io::BufReader::with_capacity(
            stream::SEALED_CHUNK_LEN,
            input,
        )),
        Format::Armored => Box::new(std::io::BufReader::with_capacity(
            stream::SEALED_CHUNK_LEN,
            ArmorReader::new(input, Profile::age()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::hybrid_kem::{DecapsulationKey, KemLevel};
    use crate::suite::native::Native;
    use crate::suite::rustcrypto::RustCrypto;
    use proptest::prelude::*;

    fn key() -> (DecapsulationKey, Vec<u8>) {
        let key =
            DecapsulationKey::from_seed(&RustCrypto, KemLevel::MlKem768, &SecretBytes::random());
        let pk = key.public_key().to_vec();
        (key, pk)
    }

    fn enc(backend: &dyn Backend, pks: &[&[u8]], plain: &[u8], armored: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if armored {
            let mut w = armor::ArmorWriter::new(&mut out, &Profile::age()).unwrap();
            encrypt(backend, pks, &mut &plain[..], &mut w).unwrap();
            w.finish().unwrap();
        } else {
            encrypt(backend, pks, &mut &plain[..], &mut out).unwrap();
        }
        out
    }

    fn dec(ids: &[IdentityRef<'_>], file: &[u8]) -> Result<(Vec<u8>, Decrypted), AgeError> {
        let format = sniff(file).ok_or(AgeError::NotAge)?;
        let mut r = reader(file, format);
        let mut out = Vec::new();
        let d = decrypt(ids, &mut r, &mut out)?;
        Ok((out, d))
    }

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

    #[test]
    fn round_trips_at_chunk_boundaries_both_backends_armored_and_not() {
        let (seed, pk) = key();
        const K: usize = stream::CHUNK_LEN;
        for (i, size) in [0, 1, K - 1, K, K + 1, 3 * K, 3 * K + 5]
            .into_iter()
            .enumerate()
        {
            let plain = data(size, i as u64 + 3);
            for armored in [false, true] {
                let backend: &dyn Backend = if i % 2 == 0 { &RustCrypto } else { &Native };
                let file = enc(backend, &[&pk], &plain, armored);
                let (out, d) = dec(&[IdentityRef::Hybrid(&seed)], &file).unwrap();
                assert_eq!(out, plain, "{size} {armored}");
                assert_eq!(d.bytes, size as u64);
            }
        }
    }

    #[test]
    fn several_recipients_and_the_layout() {
        let keys: Vec<_> = (0..3).map(|_| key()).collect();
        let pks: Vec<&[u8]> = keys.iter().map(|k| k.1.as_slice()).collect();
        let file = enc(&RustCrypto, &pks, b"hello", false);
        let text = String::from_utf8_lossy(&file);
        assert!(text.starts_with("age-encryption.org/v1\n-> mlkem768x25519 "));
        assert_eq!(text.matches("\n-> mlkem768x25519 ").count(), 3);
        for (i, (seed, _)) in keys.iter().enumerate() {
            let (out, d) = dec(&[IdentityRef::Hybrid(seed)], &file).unwrap();
            assert_eq!((out.as_slice(), d.stanza), (&b"hello"[..], i));
        }
        let (other, _) = key();
        assert!(matches!(
            dec(
                &[
                    IdentityRef::Hybrid(&other),
                    IdentityRef::X25519(&SecretBytes::random())
                ],
                &file
            ),
            Err(AgeError::NoMatch)
        ));
        // Header length: version line, 3 stanzas ("-> mlkem768x25519 " 18 + 1494 + LF, body line 44),
        // MAC line 48, nonce 16; then one 16-byte tag and 5 bytes.
        assert_eq!(file.len(), 22 + 3 * (18 + 1494 + 1 + 44) + 48 + 16 + 5 + 16);
        let mut out = Vec::new();
        assert!(matches!(
            encrypt(&RustCrypto, &[], &mut &b""[..], &mut out),
            Err(AgeError::NoRecipients)
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Round trip for random sizes around the chunk boundaries, armored or not.
        #[test]
        fn round_trip_random_sizes(
            chunks in 0usize..3,
            delta in -2i64..=2,
            armored in any::<bool>(),
        ) {
            let size = (chunks as i64 * stream::CHUNK_LEN as i64 + delta).max(0) as usize;
            let (seed, pk) = key();
            let plain = data(size, size as u64);
            let file = enc(&RustCrypto, &[&pk], &plain, armored);
            let (out, _) = dec(&[IdentityRef::Hybrid(&seed)], &file).unwrap();
            prop_assert_eq!(out, plain);
        }
    }

    /// Every single-byte change of a small age file is rejected, binary and armored; and
    /// nothing is released when the change is in the header.
    #[test]
    fn every_single_byte_flip_is_rejected() {
        let (seed, pk) = key();
        let ids = [IdentityRef::Hybrid(&seed)];
        for armored in [false, true] {
            let file = enc(&RustCrypto, &[&pk], b"small secret file", armored);
            assert!(dec(&ids, &file).is_ok());
            for i in 0..file.len() {
                for bit in [0x01u8, 0x80, 0xff] {
                    let mut f = file.clone();
                    f[i] ^= bit;
                    match dec(&ids, &f) {
                        Ok(_) => {
                            panic!("flip of bit {bit:#x} at byte {i} (armored {armored}) accepted")
                        }
                        Err(e) => assert_ne!(e.class(), ErrorClass::Other, "{e}"),
                    }
                }
            }
        }
    }
}

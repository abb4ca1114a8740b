//! The KEM envelope of `encapsulate -o` (docs/kem.md):
//! `"NXQK" || u8 version=1 || u16 suite || root_id (32) || u32 g || KEM ciphertext || tag`,
//! tag = HMAC-SHA-256(key = SHA3-256("nexusq/kem-confirm/v1" || ss), all preceding bytes).
//!
//! The tag lets the recipient tell a ciphertext made for one of its keys from any other:
//! ML-KEM's implicit rejection would otherwise turn a wrong ciphertext into a random secret.

use super::root_id::RootId;
use crate::secret::SecretBytes;
use crate::suite::SuiteId;
use crate::suite::hybrid_kem::KemLevel;
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use sha3::{Digest, Sha3_256};

const MAGIC: &[u8; 4] = b"NXQK";
const VERSION: u8 = 1;
const CONFIRM_LABEL: &[u8] = b"nexusq/kem-confirm/v1";
/// Length of the confirmation tag (HMAC-SHA-256).
pub(crate) const TAG_LEN: usize = 32;

/// A decoded KEM envelope (docs/kem.md, "The KEM envelope"). Nothing in it is trusted until
/// [`confirms`](Self::confirms) holds for the decapsulated secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// The hybrid KEM the ciphertext is for.
    pub level: KemLevel,
    /// The recipient identity.
    pub root_id: RootId,
    /// The recipient's generation whose key was used.
    pub generation: u32,
    /// The hybrid KEM ciphertext (1120 or 1600 bytes, fixed by `level`).
    pub ciphertext: Vec<u8>,
    /// HMAC-SHA-256 confirmation tag over every preceding byte.
    pub tag: [u8; TAG_LEN],
}

fn body(level: KemLevel, root_id: &RootId, generation: u32, ciphertext: &[u8]) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(MAGIC)
        .u8(VERSION)
        .u16(level.suite().to_u16())
        .bytes(&root_id.0)
        .u32(generation)
        .bytes(ciphertext);
    w.into_inner()
}

fn mac(ss: &SecretBytes<32>, body: &[u8]) -> Hmac<Sha256> {
    let mut key = SecretBytes::<32>::zero();
    let mut h = Sha3_256::new();
    h.update(CONFIRM_LABEL);
    h.update(ss.expose());
    key.expose_mut().copy_from_slice(&h.finalize());
    let mut m =
        <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose()).expect("HMAC takes any key length");
    m.update(body);
    m
}

/// Encode an envelope for `ciphertext`, tagged with the shared secret it encapsulates.
pub fn seal(
    level: KemLevel,
    root_id: RootId,
    generation: u32,
    ciphertext: &[u8],
    ss: &SecretBytes<32>,
) -> Vec<u8> {
    let mut out = body(level, &root_id, generation, ciphertext);
    let tag = mac(ss, &out).finalize().into_bytes();
    out.extend_from_slice(&tag);
    out
}

impl Envelope {
    /// Decode an envelope that must fill `bytes` exactly; any defect is an error.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        r.expect_tag(MAGIC, "KEM envelope")?;
        r.version(VERSION, "envelope version")?;
        let suite = r.u16("envelope suite")?;
        let level = SuiteId::from_u16(suite)
            .and_then(KemLevel::from_suite)
            .ok_or_else(|| DecodeError(format!("unknown KEM suite {suite:#06x}")))?;
        let root_id = RootId(r.array("envelope root_id")?);
        let generation = r.u32("envelope generation")?;
        let ciphertext = r
            .take(level.hybrid_ciphertext_len(), "KEM ciphertext")?
            .to_vec();
        let tag = r.array("confirmation tag")?;
        r.finish("KEM envelope")?;
        Ok(Envelope {
            level,
            root_id,
            generation,
            ciphertext,
            tag,
        })
    }

    /// Does the tag confirm this shared secret? Constant time.
    pub fn confirms(&self, ss: &SecretBytes<32>) -> bool {
        let body = body(self.level, &self.root_id, self.generation, &self.ciphertext);
        mac(ss, &body).verify_slice(&self.tag).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::hybrid_kem;
    use crate::suite::rustcrypto::RustCrypto;

    #[test]
    fn round_trip_confirm_and_reject() {
        for level in [KemLevel::MlKem768, KemLevel::MlKem1024] {
            let seed = SecretBytes::<32>::random();
            let pk = hybrid_kem::public_key(&RustCrypto, level, &seed);
            let (ct, ss) = hybrid_kem::encapsulate(&RustCrypto, level, &pk).unwrap();
            let id = RootId([7; 32]);
            let bytes = seal(level, id, 3, &ct, &ss);
            let env = Envelope::decode(&bytes).unwrap();
            assert_eq!((env.level, env.root_id, env.generation), (level, id, 3));
            let ss2 = hybrid_kem::decapsulate(&RustCrypto, level, &seed, &env.ciphertext).unwrap();
            assert!(env.confirms(&ss2));
            // Any other key gives ML-KEM's implicit-rejection secret: the tag catches it.
            let other = SecretBytes::<32>::random();
            let wrong =
                hybrid_kem::decapsulate(&RustCrypto, level, &other, &env.ciphertext).unwrap();
            assert!(!env.confirms(&wrong));
            // Every truncation and a flip in every byte is refused, by decoding or by the tag.
            for cut in 0..bytes.len() {
                assert!(Envelope::decode(&bytes[..cut]).is_err());
            }
            for i in 0..bytes.len() {
                let mut b = bytes.clone();
                b[i] ^= 0x01;
                if let Ok(e) = Envelope::decode(&b) {
                    let ss3 = hybrid_kem::decapsulate(&RustCrypto, e.level, &seed, &e.ciphertext);
                    assert!(
                        ss3.is_err() || !e.confirms(&ss3.unwrap()),
                        "flip at {i} accepted"
                    );
                }
            }
        }
    }
}

//! Generation certificates (DESIGN.md section 3.1), signed directly by the root.
//!
//! Encoding (big-endian; docs/identity-format.md):
//! `"NXQC" || u8 version=1 || root_id(32) || u32 g || u64 created || u64 not_after ||
//!  u8 key_count=3 || 3 x (u16 suite || u16 len || public key) || prev_hash(32) ||
//!  u16 reason_len || reason (UTF-8, at most 200 bytes) || signature (17088)`.
//! The root signs everything before the signature with SLH-DSA, context "nexusq/cert/v1".
//! prev_hash is SHA3-256 of the whole encoded certificate g-1 (zeros for g = 1).

use super::root_id::RootId;
use crate::suite::root_sig::{self, RootSecret};
use crate::suite::{Backend, SuiteId};
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};
use sha3::{Digest, Sha3_256};

const MAGIC: &[u8; 4] = b"NXQC";
const VERSION: u8 = 1;
pub const CONTEXT: &[u8] = b"nexusq/cert/v1";
pub const MAX_REASON_LEN: usize = 200;

/// The three public keys of one generation, in their fixed order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerationKeys {
    /// X-Wing (ML-KEM-768 + X25519), 1216 bytes.
    pub xwing: Vec<u8>,
    /// ML-KEM-1024 + X25519, 1600 bytes.
    pub mlkem1024_x25519: Vec<u8>,
    /// ML-DSA-65 + Ed25519, 1984 bytes.
    pub mldsa65_ed25519: Vec<u8>,
}

impl GenerationKeys {
    fn entries(&self) -> [(SuiteId, &Vec<u8>); 3] {
        [
            (SuiteId::MlKem768X25519, &self.xwing),
            (SuiteId::MlKem1024X25519, &self.mlkem1024_x25519),
            (SuiteId::MlDsa65Ed25519, &self.mldsa65_ed25519),
        ]
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    pub root_id: RootId,
    pub generation: u32,
    pub created: u64,
    pub not_after: u64,
    pub keys: GenerationKeys,
    pub prev_hash: [u8; 32],
    pub reason: String,
    pub signature: Vec<u8>,
}

impl Certificate {
    #[allow(clippy::too_many_arguments)]
    pub fn issue(
        root: &RootSecret,
        backend: &dyn Backend,
        root_id: RootId,
        generation: u32,
        created: u64,
        not_after: u64,
        keys: GenerationKeys,
        prev_hash: [u8; 32],
        reason: String,
    ) -> Self {
        assert!(
            reason.len() <= MAX_REASON_LEN,
            "callers check the reason length"
        );
        let mut cert = Certificate {
            root_id,
            generation,
            created,
            not_after,
            keys,
            prev_hash,
            reason,
            signature: Vec::new(),
        };
        cert.signature = root.sign(backend, &cert.to_be_signed(), CONTEXT);
        cert
    }

    /// The bytes the root signs.
    pub fn to_be_signed(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(VERSION)
            .bytes(&self.root_id.0)
            .u32(self.generation)
            .u64(self.created)
            .u64(self.not_after)
            .u8(3);
        for (suite, pk) in self.keys.entries() {
            w.u16(suite.to_u16()).bytes_u16(pk);
        }
        w.bytes(&self.prev_hash).bytes_u16(self.reason.as_bytes());
        w.into_inner()
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.to_be_signed();
        out.extend_from_slice(&self.signature);
        out
    }

    /// SHA3-256 of the encoded certificate: the next generation's prev_hash.
    pub fn hash(&self) -> [u8; 32] {
        Sha3_256::digest(self.encode()).into()
    }

    /// Decode one certificate that must fill `bytes` exactly. Checks structure only; call
    /// [`Certificate::verify`] for the root signature.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        r.expect_tag(MAGIC, "certificate")?;
        r.version(VERSION, "certificate version")?;
        let root_id = RootId(r.array("certificate root_id")?);
        let generation = r.u32("certificate generation")?;
        if generation == 0 {
            return Err(DecodeError("certificate for generation 0".into()));
        }
        let created = r.u64("certificate created")?;
        let not_after = r.u64("certificate not_after")?;
        if not_after < created {
            return Err(DecodeError(
                "certificate expires before it was created".into(),
            ));
        }
        if r.u8("certificate key count")? != 3 {
            return Err(DecodeError(
                "certificate must hold exactly three keys".into(),
            ));
        }
        let mut keys = Vec::with_capacity(3);
        for expected in [
            SuiteId::MlKem768X25519,
            SuiteId::MlKem1024X25519,
            SuiteId::MlDsa65Ed25519,
        ] {
            let suite = r.u16("certificate key suite")?;
            if suite != expected.to_u16() {
                return Err(DecodeError(format!(
                    "certificate key suite {suite:#06x} where {} was expected",
                    expected.name()
                )));
            }
            let pk = r.bytes_u16("certificate public key")?;
            if pk.len() != expected.public_key_len() {
                return Err(DecodeError(format!(
                    "{} public key has the wrong length",
                    expected.name()
                )));
            }
            keys.push(pk.to_vec());
        }
        let prev_hash = r.array("certificate prev_hash")?;
        let reason = r.bytes_u16("certificate reason")?;
        if reason.len() > MAX_REASON_LEN {
            return Err(DecodeError(
                "certificate reason is longer than 200 bytes".into(),
            ));
        }
        let reason = String::from_utf8(reason.to_vec())
            .map_err(|_| DecodeError("certificate reason is not UTF-8".into()))?;
        let signature = r
            .take(root_sig::SIGNATURE_LEN, "certificate signature")?
            .to_vec();
        r.finish("certificate")?;
        let mut keys = keys.into_iter();
        Ok(Certificate {
            root_id,
            generation,
            created,
            not_after,
            keys: GenerationKeys {
                xwing: keys.next().expect("three keys"),
                mlkem1024_x25519: keys.next().expect("three keys"),
                mldsa65_ed25519: keys.next().expect("three keys"),
            },
            prev_hash,
            reason,
            signature,
        })
    }

    /// Valid iff root_id matches the trusted root key and the root's signature verifies.
    pub fn verify(&self, backend: &dyn Backend, root_pk: &[u8]) -> bool {
        RootId::of(root_pk) == self.root_id
            && root_sig::verify(
                backend,
                root_pk,
                &self.to_be_signed(),
                CONTEXT,
                &self.signature,
            )
    }

    pub fn is_expired(&self, now: u64) -> bool {
        now > self.not_after
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::suite::rustcrypto::RustCrypto;

    pub(crate) fn sample_keys() -> GenerationKeys {
        GenerationKeys {
            xwing: vec![1; 1216],
            mlkem1024_x25519: vec![2; 1600],
            mldsa65_ed25519: vec![3; 1984],
        }
    }

    #[test]
    fn round_trip_and_verify() {
        let root = RootSecret::generate();
        let pk = root.public_key(&RustCrypto);
        let id = RootId::of(&pk);
        let cert = Certificate::issue(
            &root,
            &RustCrypto,
            id,
            1,
            10,
            20,
            sample_keys(),
            [0; 32],
            "first".into(),
        );
        let bytes = cert.encode();
        let back = Certificate::decode(&bytes).unwrap();
        assert_eq!(back, cert);
        assert!(back.verify(&RustCrypto, &pk));
        let other = RootSecret::generate().public_key(&RustCrypto);
        assert!(
            !back.verify(&RustCrypto, &other),
            "another root must not validate it"
        );
        let mut tampered = back.clone();
        tampered.reason = "firsT".into();
        assert!(!tampered.verify(&RustCrypto, &pk));
        for cut in [0, 5, bytes.len() / 2, bytes.len() - 1] {
            assert!(Certificate::decode(&bytes[..cut]).is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Certificate::decode(&longer).is_err());
    }
}

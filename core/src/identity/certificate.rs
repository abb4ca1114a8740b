//! Generation certificates (docs/identity-format.md, section 5), signed directly by the root.
//!
//! Encoding (big-endian; docs/identity-format.md):
//! `"NXQC" || u8 version || root_id(32) || u32 g || u64 created || u64 not_after ||
//!  u8 key_count=3 || 3 x (u16 suite || u16 len || public key) || prev_hash(32) ||
//!  [version 2: u32 signing_revoked_before] || u16 reason_len || reason (UTF-8, at most 200
//!  bytes) || signature (17088)`.
//! The root signs everything before the signature with SLH-DSA, context "nexusq/cert/v1".
//! prev_hash is SHA3-256 of the whole encoded certificate g-1 (zeros for g = 1).
//!
//! Version 2 (the one nexusq writes) carries `signing_revoked_before`: 0, or n in 2..=g,
//! meaning "the signing keys of every generation before n are revoked" (`rotate
//! --compromised`, carried forward by every later certificate). Because the root signs it, a
//! relay cannot strip it the way it can drop a separate revocation statement. A version 2
//! reason holds no control or bidi character (see `crate::untrusted`); version 1 certificates
//! are still read and verified as they were, and their reasons are escaped when shown.

use super::root_id::RootId;
use crate::suite::root_sig::{self, RootSecret};
use crate::suite::{Backend, SuiteId};
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};
use sha3::{Digest, Sha3_256};

const MAGIC: &[u8; 4] = b"NXQC";
/// The version nexusq writes.
pub const VERSION: u8 = 2;
/// The first version, still read and verified.
pub const VERSION_1: u8 = 1;
/// SLH-DSA context of the root's signature on a certificate.
pub const CONTEXT: &[u8] = b"nexusq/cert/v1";
/// Longest reason a certificate or revocation may carry, in bytes of UTF-8.
pub(crate) const MAX_REASON_LEN: usize = 200;

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

/// One generation's certificate: its three public keys and validity, signed by the root
/// (docs/identity-format.md, section 5; layout in the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// 1 or 2 ([`VERSION`]); version 1 has no `signing_revoked_before` field.
    pub version: u8,
    /// The identity this certificate belongs to.
    pub root_id: RootId,
    /// Generation number, from 1, one more at each rotation.
    pub generation: u32,
    /// Start of validity (Unix seconds).
    pub created: u64,
    /// End of validity (Unix seconds), inclusive.
    pub not_after: u64,
    /// The generation's public keys.
    pub keys: GenerationKeys,
    /// SHA3-256 of the previous generation's encoded certificate; zeros for generation 1.
    pub prev_hash: [u8; 32],
    /// The signing keys of every generation before this one are revoked (0: none). Always 0
    /// in version 1.
    pub signing_revoked_before: u32,
    /// Why this generation was made (`rotate --reason`); public, possibly empty.
    pub reason: String,
    /// The root's SLH-DSA signature over [`to_be_signed`](Self::to_be_signed), 17 088 bytes.
    pub signature: Vec<u8>,
}

/// Why a reason is refused, for [`Certificate`] and revocation statements alike: too long, or
/// holding a character that a terminal would act on. `None` when it is fine.
pub fn reason_defect(reason: &str) -> Option<String> {
    if reason.len() > MAX_REASON_LEN {
        return Some(format!(
            "is {} bytes; at most {MAX_REASON_LEN} are allowed",
            reason.len()
        ));
    }
    crate::untrusted::forbidden_in_reason(reason).map(|c| {
        format!(
            "holds the control character {}; a reason is one line of visible text",
            crate::untrusted::describe(c)
        )
    })
}

impl Certificate {
    /// A version 2 certificate that revokes nothing. See [`Certificate::sign`] for the rest.
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
        Self::sign(
            root,
            backend,
            Certificate {
                version: VERSION,
                root_id,
                generation,
                created,
                not_after,
                keys,
                prev_hash,
                signing_revoked_before: 0,
                reason,
                signature: Vec::new(),
            },
        )
    }

    /// Sign `body` with the root (its `signature` field is replaced). Callers check the
    /// reason ([`reason_defect`]) and the revocation field first.
    pub fn sign(root: &RootSecret, backend: &dyn Backend, mut body: Certificate) -> Self {
        assert!(
            reason_defect(&body.reason).is_none(),
            "callers check the reason"
        );
        assert!(
            body.version == VERSION || body.signing_revoked_before == 0,
            "version 1 has no revocation field"
        );
        assert!(
            body.signing_revoked_before == 0
                || (2..=body.generation).contains(&body.signing_revoked_before),
            "callers check the revocation field"
        );
        body.signature = root.sign(backend, &body.to_be_signed(), CONTEXT);
        body
    }

    /// The bytes the root signs.
    pub fn to_be_signed(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(self.version)
            .bytes(&self.root_id.0)
            .u32(self.generation)
            .u64(self.created)
            .u64(self.not_after)
            .u8(3);
        for (suite, pk) in self.keys.entries() {
            w.u16(suite.to_u16()).bytes_u16(pk);
        }
        w.bytes(&self.prev_hash);
        if self.version >= VERSION {
            w.u32(self.signing_revoked_before);
        }
        w.bytes_u16(self.reason.as_bytes());
        w.into_inner()
    }

    /// The full encoding: the signed bytes followed by the signature.
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
        let version = r.u8("certificate version")?;
        if version != VERSION && version != VERSION_1 {
            return Err(DecodeError(format!(
                "certificate version {version} is not supported (made by a newer nexusq?)"
            )));
        }
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
        let signing_revoked_before = if version >= VERSION {
            let n = r.u32("certificate signing_revoked_before")?;
            if n == 1 || n > generation {
                return Err(DecodeError(format!(
                    "the certificate for generation {generation} revokes the signing keys \
                     before generation {n}, which is not 0 or 2..={generation}"
                )));
            }
            n
        } else {
            0
        };
        let reason = r.bytes_u16("certificate reason")?;
        if reason.len() > MAX_REASON_LEN {
            return Err(DecodeError(
                "certificate reason is longer than 200 bytes".into(),
            ));
        }
        let reason = String::from_utf8(reason.to_vec())
            .map_err(|_| DecodeError("certificate reason is not UTF-8".into()))?;
        // Version 1 was written before reasons were checked: read it as it is, show it escaped.
        if version >= VERSION
            && let Some(c) = crate::untrusted::forbidden_in_reason(&reason)
        {
            return Err(DecodeError(format!(
                "the certificate reason of generation {generation} holds the control \
                 character {} (nexusq never writes one)",
                crate::untrusted::describe(c)
            )));
        }
        let signature = r
            .take(root_sig::SIGNATURE_LEN, "certificate signature")?
            .to_vec();
        r.finish("certificate")?;
        let mut keys = keys.into_iter();
        Ok(Certificate {
            version,
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
            signing_revoked_before,
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

    /// Is `now` (Unix seconds) past `not_after`?
    pub fn is_expired(&self, now: u64) -> bool {
        now > self.not_after
    }

    /// May a signature claim to be made at `t` with this generation? Inside created..=not_after,
    /// widened by [`CLOCK_SKEW_SECS`] on both sides.
    pub(crate) fn covers_signing_time(&self, t: u64) -> bool {
        t >= self.created.saturating_sub(CLOCK_SKEW_SECS)
            && t <= self.not_after.saturating_add(CLOCK_SKEW_SECS)
    }
}

/// How far a signing time may lie outside its certificate's validity (clocks that disagree a
/// little, a clock corrected after a rotation): five minutes.
pub const CLOCK_SKEW_SECS: u64 = 300;

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

    /// Sign a body as it is, bypassing `sign`'s checks: what a hostile or older root can make.
    fn signed_raw(root: &RootSecret, mut c: Certificate) -> Certificate {
        c.signature = root.sign(&RustCrypto, &c.to_be_signed(), CONTEXT);
        c
    }

    #[test]
    fn version_2_layout_and_revocation_field() {
        let root = RootSecret::generate();
        let pk = root.public_key(&RustCrypto);
        let id = RootId::of(&pk);
        let mut body = Certificate::issue(
            &root,
            &RustCrypto,
            id,
            5,
            10,
            20,
            sample_keys(),
            [7; 32],
            "r".into(),
        );
        body.signing_revoked_before = 5;
        let cert = Certificate::sign(&root, &RustCrypto, body);
        let bytes = cert.encode();
        assert_eq!(bytes[4], 2, "version byte");
        // prev_hash at 4870, then the u32 field, then the reason (docs/identity-format.md).
        assert_eq!(&bytes[4870..4902], &[7; 32]);
        assert_eq!(&bytes[4902..4906], &5u32.to_be_bytes());
        assert_eq!(&bytes[4906..4909], &[0, 1, b'r']);
        assert_eq!(bytes.len(), 21_996 + 1);
        let back = Certificate::decode(&bytes).unwrap();
        assert_eq!(back, cert);
        assert!(back.verify(&RustCrypto, &pk));
        // The field is signed: changing it breaks the root's signature.
        let mut stripped = back.clone();
        stripped.signing_revoked_before = 0;
        assert!(!stripped.verify(&RustCrypto, &pk));
        // Out of range: 1 (revokes nothing, never written) and beyond the own generation.
        for bad in [1u32, 6, u32::MAX] {
            let mut b = bytes.clone();
            b[4902..4906].copy_from_slice(&bad.to_be_bytes());
            let e = Certificate::decode(&b).unwrap_err();
            assert!(e.0.contains("revokes the signing keys"), "{bad}: {e:?}");
        }
    }

    #[test]
    fn version_1_certificates_still_decode_and_verify() {
        let root = RootSecret::generate();
        let pk = root.public_key(&RustCrypto);
        let id = RootId::of(&pk);
        let mut v1 = Certificate::issue(
            &root,
            &RustCrypto,
            id,
            1,
            10,
            20,
            sample_keys(),
            [0; 32],
            String::new(),
        );
        v1.version = VERSION_1;
        // Written before reasons were checked: a v1 reason may hold anything UTF-8.
        v1.reason = "old\x1b[2K".into();
        let v1 = signed_raw(&root, v1);
        let bytes = v1.encode();
        assert_eq!(bytes[4], 1);
        assert_eq!(bytes.len(), 21_992 + v1.reason.len());
        let back = Certificate::decode(&bytes).unwrap();
        assert_eq!((back.version, back.signing_revoked_before), (1, 0));
        assert_eq!(back, v1);
        assert!(back.verify(&RustCrypto, &pk));
        // Version 3 is a newer nexusq's.
        let mut b = bytes.clone();
        b[4] = 3;
        assert!(
            Certificate::decode(&b)
                .unwrap_err()
                .0
                .contains("newer nexusq")
        );
    }

    #[test]
    fn version_2_reasons_hold_no_control_characters() {
        let root = RootSecret::generate();
        let id = RootId::of(&root.public_key(&RustCrypto));
        for hostile in ["\r\x1b[3Afingerprint: x", "a\nb", "\u{9b}", "x\u{202e}y"] {
            assert!(reason_defect(hostile).is_some(), "{hostile:?}");
            let mut c = Certificate::issue(
                &root,
                &RustCrypto,
                id,
                1,
                10,
                20,
                sample_keys(),
                [0; 32],
                String::new(),
            );
            c.reason = hostile.into();
            let c = signed_raw(&root, c);
            let e = Certificate::decode(&c.encode()).unwrap_err();
            assert!(e.0.contains("control character"), "{e:?}");
        }
        assert!(reason_defect("phone lost on 3 May — rotated").is_none());
        assert!(
            reason_defect(&"x".repeat(201))
                .unwrap()
                .contains("201 bytes")
        );
    }

    #[test]
    fn signing_time_window_allows_a_few_minutes_of_skew() {
        let root = RootSecret::generate();
        let id = RootId::of(&root.public_key(&RustCrypto));
        let c = Certificate::issue(
            &root,
            &RustCrypto,
            id,
            1,
            1_000,
            5_000,
            sample_keys(),
            [0; 32],
            String::new(),
        );
        assert!(c.covers_signing_time(1_000) && c.covers_signing_time(5_000));
        assert!(c.covers_signing_time(1_000 - CLOCK_SKEW_SECS));
        assert!(!c.covers_signing_time(1_000 - CLOCK_SKEW_SECS - 1));
        assert!(c.covers_signing_time(5_000 + CLOCK_SKEW_SECS));
        assert!(!c.covers_signing_time(5_000 + CLOCK_SKEW_SECS + 1));
        let early = Certificate::issue(
            &root,
            &RustCrypto,
            id,
            1,
            10,
            u64::MAX,
            sample_keys(),
            [0; 32],
            String::new(),
        );
        assert!(early.covers_signing_time(0) && early.covers_signing_time(u64::MAX));
    }
}

//! Root-signed revocation statements (docs/identity-format.md, section 6).
//!
//! Encoding: `"NXQR" || u8 version=1 || root_id(32) || u8 scope || u32 generation ||
//! u64 created || u16 reason_len || reason (UTF-8, at most 200 bytes) || signature (17088)`,
//! signed by the root over everything before the signature, context "nexusq/revoke/v1".
//! Scope 1 revokes the whole identity (generation field 0); scope 2 revokes the signing keys of
//! every generation before `generation` (`rotate --compromised`). Since certificate version 2
//! the scope 2 fact also travels inside certificate `generation` and every later one, where it
//! cannot be stripped; the statement is still written, for verifiers that know only version 1.
//! A reason nexusq writes holds no control or bidi character; older statements are read as
//! they are and their reasons escaped when shown.

use super::certificate::{MAX_REASON_LEN, reason_defect};
use super::root_id::RootId;
use crate::suite::Backend;
use crate::suite::root_sig::{self, RootSecret};
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};

const MAGIC: &[u8; 4] = b"NXQR";
const VERSION: u8 = 1;
/// SLH-DSA context of the root's signature on a revocation.
pub const CONTEXT: &[u8] = b"nexusq/revoke/v1";
/// Armor label of a revocation statement file, `-----BEGIN NEXUSQ REVOCATION-----`.
pub const ARMOR_KIND: &str = "REVOCATION";

/// What a revocation statement revokes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevocationScope {
    /// The whole identity (scope 1): nothing of it may be trusted any more.
    Identity,
    /// The signing keys of every generation before this one (scope 2, `rotate --compromised`).
    SigningKeysBefore(u32),
}

/// A root-signed revocation statement (docs/identity-format.md, section 6; layout in the module
/// docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Revocation {
    /// The identity the statement is about.
    pub root_id: RootId,
    /// What it revokes.
    pub scope: RevocationScope,
    /// When it was made (Unix seconds).
    pub created: u64,
    /// Why, in at most 200 bytes of UTF-8; public.
    pub reason: String,
    /// The root's SLH-DSA signature over [`to_be_signed`](Self::to_be_signed).
    pub signature: Vec<u8>,
}

impl Revocation {
    /// Sign a statement with the root. Panics on a reason that [`reason_defect`] refuses: callers
    /// check it first.
    pub fn issue(
        root: &RootSecret,
        backend: &dyn Backend,
        root_id: RootId,
        scope: RevocationScope,
        created: u64,
        reason: String,
    ) -> Self {
        assert!(reason_defect(&reason).is_none(), "callers check the reason");
        let mut r = Revocation {
            root_id,
            scope,
            created,
            reason,
            signature: Vec::new(),
        };
        r.signature = root.sign(backend, &r.to_be_signed(), CONTEXT);
        r
    }

    /// The bytes the root signs: everything before the signature.
    pub fn to_be_signed(&self) -> Vec<u8> {
        let (scope, g) = match self.scope {
            RevocationScope::Identity => (1u8, 0u32),
            RevocationScope::SigningKeysBefore(g) => (2u8, g),
        };
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(VERSION)
            .bytes(&self.root_id.0)
            .u8(scope)
            .u32(g)
            .u64(self.created)
            .bytes_u16(self.reason.as_bytes());
        w.into_inner()
    }

    /// The full encoding: the signed bytes followed by the signature.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.to_be_signed();
        out.extend_from_slice(&self.signature);
        out
    }

    /// Decode one statement that must fill `bytes` exactly; checks structure, not the signature.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        r.expect_tag(MAGIC, "revocation")?;
        r.version(VERSION, "revocation version")?;
        let root_id = RootId(r.array("revocation root_id")?);
        let scope = match (r.u8("revocation scope")?, r.u32("revocation generation")?) {
            (1, 0) => RevocationScope::Identity,
            (2, g) if g >= 2 => RevocationScope::SigningKeysBefore(g),
            _ => return Err(DecodeError("revocation has an unknown scope".into())),
        };
        let created = r.u64("revocation created")?;
        let reason = r.bytes_u16("revocation reason")?;
        if reason.len() > MAX_REASON_LEN {
            return Err(DecodeError(
                "revocation reason is longer than 200 bytes".into(),
            ));
        }
        let reason = String::from_utf8(reason.to_vec())
            .map_err(|_| DecodeError("revocation reason is not UTF-8".into()))?;
        let signature = r
            .take(root_sig::SIGNATURE_LEN, "revocation signature")?
            .to_vec();
        r.finish("revocation")?;
        Ok(Revocation {
            root_id,
            scope,
            created,
            reason,
            signature,
        })
    }

    /// Does the statement name the identity of `root_pk`, and does that root's signature verify?
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::native::Native;
    use crate::suite::rustcrypto::RustCrypto;

    /// Issued by one backend, verified by both.
    #[test]
    fn round_trip_and_verify() {
        let root = RootSecret::generate();
        let pk = root.public_key(&RustCrypto);
        let id = RootId::of(&pk);
        for (scope, issuer) in [
            (RevocationScope::Identity, &Native as &dyn Backend),
            (RevocationScope::SigningKeysBefore(4), &RustCrypto),
        ] {
            let rev = Revocation::issue(&root, issuer, id, scope, 99, "lost phone".into());
            let back = Revocation::decode(&rev.encode()).unwrap();
            assert_eq!(back, rev);
            let other = RootSecret::generate().public_key(&Native);
            for verifier in [&Native as &dyn Backend, &RustCrypto] {
                assert!(back.verify(verifier, &pk));
                assert!(!back.verify(verifier, &other));
            }
        }
    }
}

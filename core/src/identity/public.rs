//! The public identity: root public key, certificates, revocations. It is what an export
//! carries and what the vault's public section holds.
//!
//! Encoding: `"NXQI" || u8 version=1 || u16 root suite || u16 len || root_pk ||
//! u32 cert_count || cert_count x (u32 len || certificate) ||
//! u32 revocation_count || revocation_count x (u32 len || revocation)`.

use super::certificate::Certificate;
use super::revocation::Revocation;
use super::root_id::RootId;
use crate::suite::root_sig;
use crate::suite::{Backend, SuiteId};
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};
use std::collections::BTreeMap;

const MAGIC: &[u8; 4] = b"NXQI";
const VERSION: u8 = 1;
/// Armor label of an export: `-----BEGIN NEXUSQ PUBLIC IDENTITY-----` (docs/identity-format.md,
/// section 8).
pub const ARMOR_KIND: &str = "PUBLIC IDENTITY";
/// Smallest encoded certificate, used to bound counts before allocating.
const MIN_CERT_LEN: usize = 4 + root_sig::SIGNATURE_LEN;

/// Someone's public identity (docs/identity-format.md, section 7): what `identity export` writes,
/// what `--to` reads and what the vault's public section holds.
///
/// Decoding checks only the structure; read other people's exports with
/// [`peer::parse_export`](super::peer::parse_export), which also verifies every root signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicIdentity {
    /// The SLH-DSA-SHAKE-128f root public key; it never changes and names the identity.
    pub root_pk: [u8; root_sig::PUBLIC_KEY_LEN],
    /// Ordered by generation, oldest first.
    pub certificates: Vec<Certificate>,
    /// Root-signed revocation statements the identity carries.
    pub revocations: Vec<Revocation>,
}

impl PublicIdentity {
    /// SHA3-256 of the root key: the identity's name (docs/identity-format.md, section 3).
    pub fn root_id(&self) -> RootId {
        RootId::of(&self.root_pk)
    }

    /// The certificate of the newest generation, the one in use.
    pub fn newest(&self) -> &Certificate {
        self.certificates
            .last()
            .expect("a public identity holds at least one certificate")
    }

    /// The binary `NXQI` encoding (the module's layout), as the vault and exports hold it.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(VERSION)
            .u16(SuiteId::SlhDsaShake128f.to_u16())
            .bytes_u16(&self.root_pk)
            .u32(self.certificates.len() as u32);
        for c in &self.certificates {
            w.bytes_u32(&c.encode());
        }
        w.u32(self.revocations.len() as u32);
        for r in &self.revocations {
            w.bytes_u32(&r.encode());
        }
        w.into_inner()
    }

    /// Decode and check the structure (see [`PublicIdentity::check_structure`]); signatures are
    /// checked separately by [`PublicIdentity::verify_signatures`].
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        r.expect_tag(MAGIC, "public identity")?;
        r.version(VERSION, "public identity version")?;
        if r.u16("root key suite")? != SuiteId::SlhDsaShake128f.to_u16() {
            return Err(DecodeError("the root key is not SLH-DSA-SHAKE-128f".into()));
        }
        let root_pk: [u8; root_sig::PUBLIC_KEY_LEN] = r
            .bytes_u16("root public key")?
            .try_into()
            .map_err(|_| DecodeError("the root public key has the wrong length".into()))?;
        let n = r.count_u32(MIN_CERT_LEN, "certificate count")?;
        let mut certificates = Vec::with_capacity(n);
        for _ in 0..n {
            certificates.push(Certificate::decode(r.bytes_u32("certificate")?)?);
        }
        let n = r.count_u32(MIN_CERT_LEN, "revocation count")?;
        let mut revocations = Vec::with_capacity(n);
        for _ in 0..n {
            revocations.push(Revocation::decode(r.bytes_u32("revocation")?)?);
        }
        r.finish("public identity")?;
        let id = PublicIdentity {
            root_pk,
            certificates,
            revocations,
        };
        id.check_structure()?;
        Ok(id)
    }

    /// Cheap checks that need no signature verification: at least one certificate, every
    /// certificate and revocation names this root, generations increase, no fork, and the
    /// prev_hash chain holds wherever consecutive generations are both present.
    pub fn check_structure(&self) -> DecodeResult<()> {
        let root_id = self.root_id();
        if self.certificates.is_empty() {
            return Err(DecodeError("holds no certificate".into()));
        }
        let mut by_generation: BTreeMap<u32, &Certificate> = BTreeMap::new();
        for c in &self.certificates {
            if c.root_id != root_id {
                return Err(DecodeError(format!(
                    "certificate for generation {} names another root",
                    c.generation
                )));
            }
            if let Some(prev) = by_generation.insert(c.generation, c) {
                if prev != c {
                    return Err(DecodeError(format!(
                        "two different certificates for generation {} (a fork: the root key may \
                         have been compromised)",
                        c.generation
                    )));
                }
                return Err(DecodeError(format!(
                    "generation {} appears twice",
                    c.generation
                )));
            }
        }
        if !self
            .certificates
            .windows(2)
            .all(|w| w[0].generation < w[1].generation)
        {
            return Err(DecodeError(
                "certificates are not in generation order".into(),
            ));
        }
        for w in self.certificates.windows(2) {
            if w[1].generation == w[0].generation + 1 && w[1].prev_hash != w[0].hash() {
                return Err(DecodeError(format!(
                    "the certificate chain is broken between generations {} and {}",
                    w[0].generation, w[1].generation
                )));
            }
        }
        // Every certificate nexusq writes carries forward the revocation of the one before.
        for w in self.certificates.windows(2) {
            if w[1].version >= 2 && w[1].signing_revoked_before < w[0].signing_revoked_before {
                return Err(DecodeError(format!(
                    "the certificate for generation {} drops the revocation of signing keys \
                     before generation {} that generation {} carries",
                    w[1].generation, w[0].signing_revoked_before, w[0].generation
                )));
            }
        }
        if self.certificates[0].generation == 1 && self.certificates[0].prev_hash != [0u8; 32] {
            return Err(DecodeError(
                "generation 1 must have an all-zero prev_hash".into(),
            ));
        }
        if self.revocations.iter().any(|r| r.root_id != root_id) {
            return Err(DecodeError("a revocation names another root".into()));
        }
        Ok(())
    }

    /// Every certificate and revocation is signed by this root (slow: SLH-DSA verification).
    pub fn verify_signatures(&self, backend: &dyn Backend) -> DecodeResult<()> {
        for c in &self.certificates {
            if !c.verify(backend, &self.root_pk) {
                return Err(DecodeError(format!(
                    "the root's signature on the certificate for generation {} does not verify",
                    c.generation
                )));
            }
        }
        if self
            .revocations
            .iter()
            .any(|r| !r.verify(backend, &self.root_pk))
        {
            return Err(DecodeError(
                "a revocation's root signature does not verify".into(),
            ));
        }
        Ok(())
    }

    /// Full history is a chain from generation 1 with no gaps.
    pub fn check_full_history(&self) -> DecodeResult<()> {
        self.check_history_from(1)
    }

    /// A chain with no gaps from generation `first` (a vault recovered from an export that
    /// began there holds no older certificate; docs/recovery.md).
    pub fn check_history_from(&self, first: u32) -> DecodeResult<()> {
        for (want, c) in (u64::from(first)..).zip(&self.certificates) {
            if u64::from(c.generation) != want {
                return Err(DecodeError(format!(
                    "the history skips from generation {} to {}",
                    want - 1,
                    c.generation
                )));
            }
        }
        Ok(())
    }

    /// What `identity export` hands out: the root key, the newest certificate (or all with
    /// `full_history`) and the revocations.
    pub fn export(&self, full_history: bool) -> PublicIdentity {
        PublicIdentity {
            root_pk: self.root_pk,
            certificates: if full_history {
                self.certificates.clone()
            } else {
                vec![self.newest().clone()]
            },
            revocations: self.revocations.clone(),
        }
    }

    /// The encoding in nexusq's armor, as `identity export` writes it.
    pub fn to_armor(&self) -> String {
        crate::format::armor::encode(ARMOR_KIND, &self.encode())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::certificate::tests::sample_keys;
    use crate::suite::root_sig::RootSecret;
    use crate::suite::rustcrypto::RustCrypto;

    fn chain(n: u32) -> (RootSecret, PublicIdentity) {
        let root = RootSecret::generate();
        let root_pk = root.public_key(&RustCrypto);
        let id = RootId::of(&root_pk);
        let mut certs: Vec<Certificate> = Vec::new();
        for g in 1..=n {
            let prev = certs.last().map(|c| c.hash()).unwrap_or([0; 32]);
            certs.push(Certificate::issue(
                &root,
                &RustCrypto,
                id,
                g,
                1,
                2,
                sample_keys(),
                prev,
                String::new(),
            ));
        }
        (
            root,
            PublicIdentity {
                root_pk,
                certificates: certs,
                revocations: vec![],
            },
        )
    }

    #[test]
    fn round_trip_and_checks() {
        let (_, p) = chain(3);
        let back = PublicIdentity::decode(&p.encode()).unwrap();
        assert_eq!(back, p);
        back.verify_signatures(&RustCrypto).unwrap();
        back.check_full_history().unwrap();
        let exported = PublicIdentity::decode(&p.export(false).encode()).unwrap();
        assert_eq!(exported.certificates.len(), 1);
        assert_eq!(exported.newest().generation, 3);
    }

    #[test]
    fn broken_chain_fork_and_foreign_root_are_refused() {
        let (root, p) = chain(3);
        let mut broken = p.clone();
        broken.certificates[2].prev_hash = [9; 32];
        assert!(
            broken
                .check_structure()
                .unwrap_err()
                .0
                .contains("chain is broken")
        );

        let mut fork = p.clone();
        let mut c = p.certificates[1].clone();
        c.reason = "fork".into();
        c.signature = root.sign(
            &RustCrypto,
            &c.to_be_signed(),
            crate::identity::certificate::CONTEXT,
        );
        fork.certificates.insert(2, c);
        assert!(fork.check_structure().unwrap_err().0.contains("fork"));

        let (_, other) = chain(1);
        let mut foreign = p.clone();
        foreign.certificates.push({
            let mut c = other.certificates[0].clone();
            c.generation = 4;
            c
        });
        assert!(
            foreign
                .check_structure()
                .unwrap_err()
                .0
                .contains("another root")
        );

        // A later certificate that forgets an earlier one's revocation.
        let mut forgets = p.clone();
        forgets.certificates[1].signing_revoked_before = 2;
        forgets.certificates[2].prev_hash = forgets.certificates[1].hash();
        assert!(
            forgets
                .check_structure()
                .unwrap_err()
                .0
                .contains("drops the revocation")
        );
        forgets.certificates[2].signing_revoked_before = 2;
        forgets.check_structure().unwrap();

        let mut skipped = p.clone();
        skipped.certificates.remove(1);
        skipped.check_structure().unwrap();
        assert!(skipped.check_full_history().is_err());

        // A tampered reason: the root's signature no longer verifies, and the next
        // generation's prev_hash no longer links to it.
        let mut tampered = p.clone();
        tampered.certificates[2].reason = "nothing to see".into();
        assert!(
            tampered
                .verify_signatures(&RustCrypto)
                .unwrap_err()
                .0
                .contains("generation 3")
        );
        let mut tampered = p.clone();
        tampered.certificates[1].reason = "nothing to see".into();
        assert!(
            tampered
                .check_structure()
                .unwrap_err()
                .0
                .contains("chain is broken")
        );
    }
}

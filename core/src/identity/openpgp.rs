//! The identity as OpenPGP sees it: its key bytes, times and revocations handed to
//! [`crate::format::openpgp`] through that format's traits, so the format reads an identity
//! without knowing its model (docs/openpgp.md, "The certificate").

use super::certificate::Certificate;
use super::generation::SecretSection;
use super::public::PublicIdentity;
use super::revocation::RevocationScope;
use crate::format::openpgp::keys::{OpenPgpGeneration, OpenPgpIdentity, OpenPgpSecrets};
use crate::secret::SecretBytes;

impl OpenPgpIdentity for PublicIdentity {
    type Generation = Certificate;

    fn root_public(&self) -> [u8; 32] {
        self.root_pk
    }

    fn generations(&self) -> &[Certificate] {
        &self.certificates
    }

    fn current(&self) -> &Certificate {
        self.newest()
    }

    fn identity_revocations(&self) -> Vec<(u64, &str)> {
        self.revocations
            .iter()
            .filter(|r| r.scope == RevocationScope::Identity)
            .map(|r| (r.created, r.reason.as_str()))
            .collect()
    }

    /// The widest cutoff wins, from a certificate (`rotate --compromised`) or a revocation
    /// statement, with the time and reason of the one that set it.
    fn signing_revoked(&self) -> Option<(u32, u64, &str)> {
        let from_certificates = self
            .certificates
            .iter()
            .map(|c| (c.signing_revoked_before, c.created, c.reason.as_str()));
        let from_statements = self.revocations.iter().filter_map(|r| match r.scope {
            RevocationScope::SigningKeysBefore(n) => Some((n, r.created, r.reason.as_str())),
            _ => None,
        });
        // The first of equal cutoffs counts, certificates before statements.
        from_certificates.chain(from_statements).fold(
            None,
            |widest: Option<(u32, u64, &str)>, next| {
                (next.0 > widest.map_or(0, |w| w.0))
                    .then_some(next)
                    .or(widest)
            },
        )
    }
}

impl OpenPgpGeneration for Certificate {
    fn number(&self) -> u32 {
        self.generation
    }

    fn created(&self) -> u64 {
        self.created
    }

    fn not_after(&self) -> u64 {
        self.not_after
    }

    fn xwing(&self) -> &[u8] {
        &self.keys.xwing
    }

    fn mldsa65_ed25519(&self) -> &[u8] {
        &self.keys.mldsa65_ed25519
    }
}

impl OpenPgpSecrets for SecretSection {
    fn decrypting(&self) -> Vec<u32> {
        self.generations
            .iter()
            .filter(|g| g.kem.is_some())
            .map(|g| g.generation)
            .collect()
    }

    fn signing_seeds(&self, number: u32) -> Option<(&SecretBytes<32>, &SecretBytes<32>)> {
        self.generations
            .iter()
            .find(|g| g.generation == number)
            .and_then(|g| g.sig.as_ref())
            .map(|s| (&s.mldsa_xi, &s.ed25519))
    }
}

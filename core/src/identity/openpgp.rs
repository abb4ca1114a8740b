//! The identity as OpenPGP sees it: its key bytes, times and revocations handed to
//! [`crate::format::openpgp`] through that format's traits, so the format reads an identity
//! without knowing its model (docs/openpgp.md, "The certificate").

use super::certificate::Certificate;
use super::generation::SecretSection;
use super::public::PublicIdentity;
use super::revocation::RevocationScope;
use super::rotation;
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

    /// The cutoff is the identity's own ([`rotation::signing_revoked_before`]); its time and
    /// reason are those of the first certificate (`rotate --compromised`), else statement,
    /// that set it.
    fn signing_revoked(&self) -> Option<(u32, u64, &str)> {
        let before = rotation::signing_revoked_before(self);
        if before == 0 {
            return None;
        }
        let by_certificate = self
            .certificates
            .iter()
            .find(|c| c.signing_revoked_before == before)
            .map(|c| (c.created, c.reason.as_str()));
        let by_statement = || {
            self.revocations
                .iter()
                .find(|r| r.scope == RevocationScope::SigningKeysBefore(before))
                .map(|r| (r.created, r.reason.as_str()))
        };
        by_certificate
            .or_else(by_statement)
            .map(|(at, why)| (before, at, why))
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

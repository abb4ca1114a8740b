//! What the agent holds: every kept generation's decapsulation keys (expanded once) and the
//! newest generation's signing seeds with its certificate. Never the root seed. Everything
//! secret is zeroized on drop.

use crate::error::{Error, Result};
use crate::identity::generation::SigSeeds;
use crate::identity::signature;
use crate::identity::{Certificate, DecryptionKeys, PublicIdentity, SecretSection};
use crate::secret::SecretBytes;
use crate::suite::hybrid_kem::KemLevel;
use crate::suite::{Backend, SuiteId};
use sha2::{Digest, Sha256};

/// What a running agent holds for one vault (module docs); zeroized on drop.
pub struct AgentKeys {
    root_pk: [u8; crate::suite::root_sig::PUBLIC_KEY_LEN],
    certificate: Certificate,
    signing: SigSeeds,
    decryption: DecryptionKeys,
    /// SHA-256 of the public section they belong to: a vault whose public part differs is
    /// another vault (swapped, rotated, revoked) and these keys are stale for it.
    public_hash: [u8; 32],
    /// The public section carries a revocation of the whole identity: it signs nothing, and
    /// still decapsulates (its owner must open what was sent to it before).
    revoked: bool,
}

/// The hash that ties keys to a vault's public section.
pub fn public_hash(public: &PublicIdentity) -> [u8; 32] {
    Sha256::digest(public.encode()).into()
}

impl AgentKeys {
    /// Take the working secrets out of a decrypted secret section, checked against the vault's
    /// public section (every kept seed must give its certified key).
    pub fn new(
        public: &PublicIdentity,
        mut secrets: SecretSection,
        backend: &dyn Backend,
    ) -> Result<AgentKeys> {
        let damaged = |m: String| {
            Error::vault(
                format!("the working secrets do not match the vault: {m}"),
                "the vault changed while the agent started; run `nexusq agent start` again",
            )
        };
        let decryption = secrets
            .check_against(&public.certificates, backend)
            .map_err(|e| damaged(e.0))?;
        let (certificate, _) = signature::signing_key(public, &secrets)?;
        let certificate = certificate.clone();
        let signing = secrets
            .generations
            .last_mut()
            .and_then(|g| g.sig.take())
            .ok_or_else(|| damaged("no signing key for the newest generation".into()))?;
        // The remaining seeds (decapsulation seeds of every generation) are dropped here, and
        // zeroized: the expanded keys in `decryption` are all the agent needs.
        drop(secrets);
        Ok(AgentKeys {
            root_pk: public.root_pk,
            certificate,
            signing,
            decryption,
            public_hash: public_hash(public),
            revoked: crate::identity::peer::is_revoked(public),
        })
    }

    /// [`public_hash`] of the public section these keys belong to.
    pub fn public_hash(&self) -> &[u8; 32] {
        &self.public_hash
    }

    /// The identity these keys belong to.
    pub fn root_id(&self) -> crate::identity::RootId {
        crate::identity::RootId::of(&self.root_pk)
    }

    /// The generation whose key signs: the newest.
    pub fn signing_generation(&self) -> u32 {
        self.certificate.generation
    }

    /// (generation, suite id) of every decapsulation key, newest first.
    pub fn key_list(&self) -> Vec<(u32, u16)> {
        self.decryption
            .iter()
            .map(|k| (k.generation(), k.level().suite().to_u16()))
            .collect()
    }

    /// Sign `digest` under nexusq's signature context for `signed_at` with the newest
    /// generation: the composite signature. A revoked identity is refused, with the words
    /// `nexusq sign` uses.
    pub fn sign(
        &self,
        backend: &dyn Backend,
        digest: &[u8; 64],
        signed_at: u64,
    ) -> Result<Vec<u8>> {
        if self.revoked {
            return Err(crate::identity::peer::revoked_owner(
                &self.root_id(),
                "its signatures",
            ));
        }
        let rnd = zeroize::Zeroizing::new(crate::secret::random_array::<32>());
        let sig = signature::sign(
            backend,
            &self.root_pk,
            &self.certificate,
            &self.signing,
            digest,
            signed_at,
            &rnd,
        )?;
        Ok(sig.signature)
    }

    /// Decapsulate `ct` with `generation`'s key of `suite`.
    pub fn decapsulate(
        &self,
        generation: u32,
        suite: u16,
        ct: &[u8],
    ) -> std::result::Result<SecretBytes<32>, String> {
        let level = SuiteId::from_u16(suite)
            .and_then(KemLevel::from_suite)
            .ok_or_else(|| format!("suite {suite:#06x} is not a hybrid KEM"))?;
        let key = self
            .decryption
            .find(generation, level)
            .map_err(|_| format!("no key of generation {generation} for that suite"))?;
        key.key().decapsulate(ct).map_err(|e| e.to_string())
    }
}

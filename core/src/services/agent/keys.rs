//! What the agent holds: every kept generation's decapsulation keys and the newest
//! generation's signing key with its certificate, all expanded once. Never the root seed.
//! Everything secret is zeroized on drop.

use crate::error::{Error, Result};
use crate::identity::signature;
use crate::identity::{DecryptionKeys, PublicIdentity, SecretSection};
use crate::secret::SecretBytes;
use crate::suite::hybrid_kem::KemLevel;
use crate::suite::{Backend, SuiteId};
use sha2::{Digest, Sha256};

/// What a running agent holds for one vault (module docs); zeroized on drop.
pub struct AgentKeys {
    root_pk: [u8; crate::suite::root_sig::PUBLIC_KEY_LEN],
    /// The newest generation's, checked against its certificate and expanded.
    signing: signature::SigningKey,
    decryption: DecryptionKeys,
    /// SHA-256 of the public section they belong to: a vault whose public part differs is
    /// another vault (swapped, rotated, revoked) and these keys are stale for it.
    public_hash: [u8; 32],
    /// The public section carries a revocation of the whole identity: it signs nothing, and
    /// still decapsulates (its owner must open what was sent to it before).
    revoked: bool,
}

/// The hash that ties keys to a vault's public section.
pub(crate) fn public_hash(public: &PublicIdentity) -> [u8; 32] {
    Sha256::digest(public.encode()).into()
}

impl AgentKeys {
    /// Take the working secrets out of a decrypted secret section, checked against the vault's
    /// public section (every kept seed must give its certified key).
    pub fn new(
        public: &PublicIdentity,
        secrets: SecretSection,
        backend: &dyn Backend,
    ) -> Result<AgentKeys> {
        let damaged = |m: String| {
            Error::vault(
                format!("the working secrets do not match the vault: {m}"),
                "the vault changed while the agent started; start the agent again",
            )
            .suggests(crate::error::Step::StartAgent)
        };
        let decryption = secrets
            .check_against(&public.certificates, backend)
            .map_err(|e| damaged(e.0))?;
        let signing = signature::SigningKey::newest(backend, public, &secrets)?;
        // The seeds (of every generation) are dropped here, and zeroized: the expanded keys in
        // `decryption` and `signing` are all the agent needs.
        drop(secrets);
        Ok(AgentKeys {
            root_pk: public.root_pk,
            signing,
            decryption,
            public_hash: public_hash(public),
            revoked: crate::identity::peer::is_revoked(public),
        })
    }

    /// [`public_hash`] of the public section these keys belong to.
    pub(crate) fn public_hash(&self) -> &[u8; 32] {
        &self.public_hash
    }

    /// The identity these keys belong to.
    pub fn root_id(&self) -> crate::identity::RootId {
        crate::identity::RootId::of(&self.root_pk)
    }

    /// The generation whose key signs: the newest.
    pub fn signing_generation(&self) -> u32 {
        self.signing.certificate().generation
    }

    /// (generation, suite id) of every decapsulation key, newest first.
    pub(crate) fn key_list(&self) -> Vec<(u32, u16)> {
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
        let sig = self.signing.sign(backend, digest, signed_at, &rnd)?;
        Ok(sig.signature)
    }

    /// RFC 9980's composite signature (algorithm 30) of an OpenPGP signature's `digest` by the
    /// newest generation, made at `signed_at` (which its certificate must cover, as for
    /// [`AgentKeys::sign`]). A revoked identity is refused in the same words.
    pub fn sign_openpgp(
        &self,
        backend: &dyn Backend,
        digest: &[u8],
        signed_at: u64,
    ) -> Result<Vec<u8>> {
        if self.revoked {
            return Err(crate::identity::peer::revoked_owner(
                &self.root_id(),
                "its signatures",
            ));
        }
        let rnd = zeroize::Zeroizing::new(crate::secret::random_array::<32>());
        self.signing.sign_openpgp(backend, digest, signed_at, &rnd)
    }

    /// Decapsulate `ct` with `generation`'s key of `suite`: a hybrid KEM's, or with
    /// [`SUITE_OPENPGP_MLKEM768_X25519`](super::protocol::SUITE_OPENPGP_MLKEM768_X25519) the
    /// X-Wing key's RFC 9980 key-encryption key.
    pub fn decapsulate(
        &self,
        generation: u32,
        suite: u16,
        ct: &[u8],
    ) -> std::result::Result<SecretBytes<32>, String> {
        let openpgp = suite == super::protocol::SUITE_OPENPGP_MLKEM768_X25519;
        let level = if openpgp {
            KemLevel::MlKem768
        } else {
            SuiteId::from_u16(suite)
                .and_then(KemLevel::from_suite)
                .ok_or_else(|| format!("suite {suite:#06x} is not a hybrid KEM"))?
        };
        let key = self
            .decryption
            .find(generation, level)
            .map_err(|_| format!("no key of generation {generation} for that suite"))?;
        let ss = if openpgp {
            key.key().decapsulate_openpgp(ct)
        } else {
            key.key().decapsulate(ct)
        };
        ss.map_err(|e| e.to_string())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::agent::protocol::SUITE_OPENPGP_MLKEM768_X25519;
    use crate::identity::NewIdentity;
    use crate::identity::certificate::CLOCK_SKEW_SECS;
    use crate::suite::hybrid_kem::{self, DecapsulationKey};
    use crate::suite::hybrid_sig;
    use crate::suite::rustcrypto::RustCrypto;

    /// Created at this time (Unix seconds).
    pub(crate) const CREATED: u64 = 1_000;

    /// A new identity's agent keys, its public section, and its generation 1 X-Wing key as
    /// the vault expands it; `revoked` adds the identity's own revocation to the public section.
    pub fn agent_keys(revoked: bool) -> (AgentKeys, PublicIdentity, DecapsulationKey) {
        let id = NewIdentity::generate(&RustCrypto, CREATED);
        let seeds = id.secrets.generations[0].kem.as_ref().unwrap();
        let xwing = DecapsulationKey::from_seed(&RustCrypto, KemLevel::MlKem768, &seeds.xwing);
        let mut public = id.public;
        if revoked {
            public.revocations.push(id.revocation);
        }
        let keys = AgentKeys::new(&public, id.secrets, &RustCrypto).unwrap();
        (keys, public, xwing)
    }

    #[test]
    fn the_openpgp_kek_is_the_x_wing_key_s_rfc_9980_combiner() {
        let (keys, public, xwing) = agent_keys(false);
        let pk = &public.newest().keys.xwing;
        let (ct, ss) = hybrid_kem::encapsulate(&RustCrypto, KemLevel::MlKem768, pk).unwrap();
        let kek = keys
            .decapsulate(1, SUITE_OPENPGP_MLKEM768_X25519, &ct)
            .unwrap();
        assert_eq!(
            kek.expose(),
            xwing.decapsulate_openpgp(&ct).unwrap().expose()
        );
        // The same ciphertext under X-Wing's own suite gives X-Wing's secret, not the KEK.
        let x = keys.decapsulate(1, 0x0001, &ct).unwrap();
        assert_eq!(x.expose(), ss.expose());
        assert_ne!(x.expose(), kek.expose());
        // Another generation, a wrong length, an ML-KEM-1024 ciphertext, an unknown suite.
        let e = keys
            .decapsulate(2, SUITE_OPENPGP_MLKEM768_X25519, &ct)
            .unwrap_err();
        assert!(e.contains("no key of generation 2"), "{e}");
        assert!(
            keys.decapsulate(1, SUITE_OPENPGP_MLKEM768_X25519, &ct[1..])
                .is_err()
        );
        let pk1024 = &public.newest().keys.mlkem1024_x25519;
        let (ct1024, _) =
            hybrid_kem::encapsulate(&RustCrypto, KemLevel::MlKem1024, pk1024).unwrap();
        assert!(
            keys.decapsulate(1, SUITE_OPENPGP_MLKEM768_X25519, &ct1024)
                .is_err()
        );
        let e = keys.decapsulate(1, 0x8024, &ct).unwrap_err();
        assert!(e.contains("not a hybrid KEM"), "{e}");
    }

    #[test]
    fn openpgp_signatures_verify_under_the_certificate_inside_its_validity_only() {
        let (keys, public, _) = agent_keys(false);
        let cert = public.newest();
        assert_eq!(keys.signing_generation(), cert.generation);
        for n in [32, 48, 64] {
            let digest = vec![0x42; n];
            let sig = keys.sign_openpgp(&RustCrypto, &digest, CREATED).unwrap();
            assert!(hybrid_sig::verify_openpgp(
                &RustCrypto,
                &cert.keys.mldsa65_ed25519,
                &digest,
                &sig
            ));
        }
        for t in [
            CREATED - CLOCK_SKEW_SECS - 1,
            cert.not_after + CLOCK_SKEW_SECS + 1,
        ] {
            let e = keys.sign_openpgp(&RustCrypto, &[1; 32], t).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Usage, "{t}");
            // Exactly as the nexusq signature is refused.
            let n = keys.sign(&RustCrypto, &[1; 64], t).unwrap_err();
            assert_eq!(e.message(), n.message());
        }
        for n in [0, 31, 65, 200] {
            assert!(
                keys.sign_openpgp(&RustCrypto, &vec![1; n], CREATED)
                    .is_err()
            );
        }
    }

    #[test]
    fn a_revoked_identity_makes_no_openpgp_signature_and_still_decapsulates() {
        let (keys, public, xwing) = agent_keys(true);
        let e = keys
            .sign_openpgp(&RustCrypto, &[1; 32], CREATED)
            .unwrap_err();
        let n = keys.sign(&RustCrypto, &[1; 64], CREATED).unwrap_err();
        assert_eq!(e.message(), n.message());
        assert!(e.message().contains("revoked"), "{}", e.message());
        let pk = &public.newest().keys.xwing;
        let (ct, _) = hybrid_kem::encapsulate(&RustCrypto, KemLevel::MlKem768, pk).unwrap();
        let kek = keys
            .decapsulate(1, SUITE_OPENPGP_MLKEM768_X25519, &ct)
            .unwrap();
        assert_eq!(
            kek.expose(),
            xwing.decapsulate_openpgp(&ct).unwrap().expose()
        );
    }
}

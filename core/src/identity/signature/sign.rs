//! Signing: the newest generation's key, and a signature that verifies before it is returned,
//! made only inside the generation's validity.

use super::{DIGEST_LEN, DetachedSignature, context};
use crate::error::{Error, Result, Setting};
use crate::identity::certificate::Certificate;
use crate::identity::generation::{SecretSection, SigSeeds};
use crate::identity::public::PublicIdentity;
use crate::identity::root_id::RootId;
use crate::suite::root_sig;
use crate::suite::{Backend, hybrid_sig};

/// The newest generation's certificate and signing seeds (superseded generations have none).
pub fn signing_key<'a>(
    public: &'a PublicIdentity,
    secrets: &'a SecretSection,
) -> Result<(&'a Certificate, &'a SigSeeds)> {
    let cert = public.newest();
    secrets
        .generations
        .iter()
        .find(|g| g.generation == cert.generation && !g.uncertified)
        .and_then(|g| g.sig.as_ref())
        .map(|seeds| (cert, seeds))
        .ok_or_else(|| {
            Error::vault(
                format!(
                    "the vault holds no signing key for its newest generation {}",
                    cert.generation
                ),
                "the vault is damaged; restore it from a backup copy",
            )
        })
}

fn damaged(what: &str) -> Error {
    Error::vault(
        format!("cannot sign: {what}"),
        "the vault is damaged; restore it from a backup copy",
    )
}

/// A generation's signing key, checked against its certificate and expanded once: what an
/// unlocked vault and the agent keep for as long as they are unlocked, so that each signature
/// runs only the signing (and the check of its result). Its secrets are zeroized on drop.
pub struct SigningKey {
    root_pk: [u8; root_sig::PUBLIC_KEY_LEN],
    certificate: Certificate,
    key: hybrid_sig::SigningKey,
}

impl SigningKey {
    /// The key of `seeds`, expanded on `backend`, once its certificate is checked: it is the
    /// root's and certifies these seeds' key.
    pub fn new(
        backend: &dyn Backend,
        root_pk: &[u8; root_sig::PUBLIC_KEY_LEN],
        certificate: &Certificate,
        seeds: &SigSeeds,
    ) -> Result<SigningKey> {
        if certificate.root_id != RootId::of(root_pk) {
            return Err(damaged("the certificate names another root"));
        }
        let key = hybrid_sig::SigningKey::new(backend, &seeds.mldsa_xi, &seeds.ed25519);
        if key.public_key() != certificate.keys.mldsa65_ed25519.as_slice() {
            return Err(damaged(
                "the signing key does not match its certificate's public key",
            ));
        }
        Ok(SigningKey {
            root_pk: *root_pk,
            certificate: certificate.clone(),
            key,
        })
    }

    /// The newest generation's key of an unlocked identity ([`signing_key`]).
    pub fn newest(
        backend: &dyn Backend,
        public: &PublicIdentity,
        secrets: &SecretSection,
    ) -> Result<SigningKey> {
        let (cert, seeds) = signing_key(public, secrets)?;
        SigningKey::new(backend, &public.root_pk, cert, seeds)
    }

    /// The certificate of the generation this key signs for.
    pub fn certificate(&self) -> &Certificate {
        &self.certificate
    }

    /// Sign the data whose SHA-512 is `digest`, made at `signed_at` (which the certificate
    /// must cover). `rnd` is ML-DSA's randomness (draw it from the OS; tests pin it). The
    /// result is checked before it is returned.
    pub fn sign(
        &self,
        backend: &dyn Backend,
        digest: &[u8; DIGEST_LEN],
        signed_at: u64,
        rnd: &[u8; 32],
    ) -> Result<DetachedSignature> {
        covers(&self.certificate, signed_at)?;
        let ctx = context(
            &self.certificate.root_id,
            self.certificate.generation,
            signed_at,
        );
        let signature = self
            .key
            .sign_prehashed(digest, &ctx, rnd)
            .map_err(|_| damaged("the signature context is too long"))?;
        // A fault or a backend bug must not leave the house as a signature.
        if !hybrid_sig::verify_prehashed(backend, self.key.public_key(), digest, &ctx, &signature) {
            return Err(fault());
        }
        Ok(DetachedSignature {
            root_pk: self.root_pk,
            signed_at,
            certificate: self.certificate.clone(),
            signature,
        })
    }

    /// RFC 9980's composite signature (algorithm 30: Ed25519 || ML-DSA-65, the digest itself
    /// signed with no context) of an OpenPGP signature's `digest` (32 to 64 bytes), for a
    /// signature packet made at `signed_at`: the same checks as [`SigningKey::sign`], and the
    /// result verifies before it is returned.
    pub fn sign_openpgp(
        &self,
        backend: &dyn Backend,
        digest: &[u8],
        signed_at: u64,
        rnd: &[u8; 32],
    ) -> Result<Vec<u8>> {
        let lengths = hybrid_sig::OPENPGP_DIGEST_MIN..=hybrid_sig::OPENPGP_DIGEST_MAX;
        if !lengths.contains(&digest.len()) {
            return Err(Error::usage(
                format!(
                    "an OpenPGP digest of {} bytes cannot be signed: it must be {} to {} bytes long",
                    digest.len(),
                    lengths.start(),
                    lengths.end()
                ),
                "hash the signed data with SHA-256, SHA-512, SHA3-256 or SHA3-512",
            ));
        }
        covers(&self.certificate, signed_at)?;
        let signature = self.key.sign_openpgp(digest, rnd).map_err(|_| fault())?;
        if !hybrid_sig::verify_openpgp(backend, self.key.public_key(), digest, &signature) {
            return Err(fault());
        }
        Ok(signature)
    }
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SigningKey(generation {}, redacted)",
            self.certificate.generation
        )
    }
}

/// The certificate covers `signed_at`, else the usage error saying why.
fn covers(certificate: &Certificate, signed_at: u64) -> Result<()> {
    if certificate.covers_signing_time(signed_at) {
        return Ok(());
    }
    let g = certificate.generation;
    Err(if signed_at > certificate.not_after {
        Error::usage(
            format!(
                "generation {g} expired on {}: verifiers refuse signatures made after that",
                crate::time::rfc3339(certificate.not_after)
            ),
            "make a new generation (rotate), then sign again",
        )
        .suggests(crate::error::Step::Rotate)
    } else {
        Error::usage(
            format!(
                "this device's clock ({}) is before generation {g} was certified ({})",
                crate::time::rfc3339(signed_at),
                crate::time::rfc3339(certificate.created)
            ),
            "set the clock right, then sign again",
        )
    })
}

/// A signature just made that does not verify: it must not leave the house.
fn fault() -> Error {
    Error::new(
        crate::error::ErrorKind::Io,
        "the signature just made does not verify (a hardware or software fault)",
        "try again; if it persists, report a bug and use the RustCrypto backend",
    )
    .about(Setting::Backend)
}

/// Sign the data whose SHA-512 is `digest` with the given generation's key ([`SigningKey`],
/// expanded for this one signature).
pub fn sign(
    backend: &dyn Backend,
    root_pk: &[u8; root_sig::PUBLIC_KEY_LEN],
    certificate: &Certificate,
    seeds: &SigSeeds,
    digest: &[u8; DIGEST_LEN],
    signed_at: u64,
    rnd: &[u8; 32],
) -> Result<DetachedSignature> {
    SigningKey::new(backend, root_pk, certificate, seeds)?.sign(backend, digest, signed_at, rnd)
}

/// [`SigningKey::sign_openpgp`] with the given generation's key, expanded for this one
/// signature.
pub fn sign_openpgp(
    backend: &dyn Backend,
    root_pk: &[u8; root_sig::PUBLIC_KEY_LEN],
    certificate: &Certificate,
    seeds: &SigSeeds,
    digest: &[u8],
    signed_at: u64,
    rnd: &[u8; 32],
) -> Result<Vec<u8>> {
    SigningKey::new(backend, root_pk, certificate, seeds)?
        .sign_openpgp(backend, digest, signed_at, rnd)
}

/// Sign with the newest generation of an unlocked identity.
pub fn sign_newest(
    backend: &dyn Backend,
    public: &PublicIdentity,
    secrets: &SecretSection,
    digest: &[u8; DIGEST_LEN],
    signed_at: u64,
    rnd: &[u8; 32],
) -> Result<DetachedSignature> {
    SigningKey::newest(backend, public, secrets)?.sign(backend, digest, signed_at, rnd)
}

#[cfg(test)]
mod tests {
    use super::super::tests::fixture;
    use super::*;
    use crate::identity::GenerationSecrets;
    use crate::identity::signature::digest;
    use crate::suite::rustcrypto::RustCrypto;

    #[test]
    fn signing_refuses_a_key_that_is_not_the_certificate_s() {
        let (id, _) = fixture();
        let stranger = GenerationSecrets::generate(1);
        let e = sign(
            &RustCrypto,
            &id.public.root_pk,
            id.public.newest(),
            stranger.sig.as_ref().unwrap(),
            &digest(b""),
            0,
            &[0; 32],
        )
        .unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Vault);
        // A vault whose newest generation lost its signing seeds cannot sign.
        let mut secrets = SecretSection {
            generations: vec![GenerationSecrets::generate(1)],
        };
        secrets.generations[0].sig = None;
        assert!(signing_key(&id.public, &secrets).is_err());
        let e = SigningKey::newest(&RustCrypto, &id.public, &secrets).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Vault);
    }

    /// OpenPGP signatures get the checks nexusq signatures get, in the same words, and verify
    /// as RFC 9980's under the newest certificate.
    #[test]
    fn openpgp_signatures_are_checked_as_nexusq_signatures_are() {
        let (id, _) = fixture();
        let cert = id.public.newest();
        let key = SigningKey::newest(&RustCrypto, &id.public, &id.secrets).unwrap();
        assert_eq!(key.certificate().generation, cert.generation);
        assert!(format!("{key:?}").contains("redacted"));
        let sig = key
            .sign_openpgp(&RustCrypto, &[5; 32], 2_000, &[1; 32])
            .unwrap();
        // The kept key signs what a key expanded for one signature signs.
        let once = sign_openpgp(
            &RustCrypto,
            &id.public.root_pk,
            cert,
            id.secrets.generations[0].sig.as_ref().unwrap(),
            &[5; 32],
            2_000,
            &[1; 32],
        )
        .unwrap();
        assert_eq!(sig, once);
        assert!(hybrid_sig::verify_openpgp(
            &RustCrypto,
            &cert.keys.mldsa65_ed25519,
            &[5; 32],
            &sig
        ));
        let stranger = GenerationSecrets::generate(1);
        let seeds = stranger.sig.as_ref().unwrap();
        for (seeds, t) in [
            (seeds, 2_000),
            (id.secrets.generations[0].sig.as_ref().unwrap(), 0),
            (id.secrets.generations[0].sig.as_ref().unwrap(), u64::MAX),
        ] {
            let ours = sign(
                &RustCrypto,
                &id.public.root_pk,
                cert,
                seeds,
                &digest(b""),
                t,
                &[0; 32],
            )
            .unwrap_err();
            let theirs = sign_openpgp(
                &RustCrypto,
                &id.public.root_pk,
                cert,
                seeds,
                &[5; 32],
                t,
                &[0; 32],
            )
            .unwrap_err();
            assert_eq!(
                (ours.kind(), ours.message()),
                (theirs.kind(), theirs.message())
            );
        }
        for n in [0, 31, 65] {
            let e = key
                .sign_openpgp(&RustCrypto, &vec![5; n], 2_000, &[1; 32])
                .unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Usage, "{n}");
        }
    }
}

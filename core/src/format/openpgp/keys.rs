//! The key packets of an identity, and the signers Sequoia is handed.
//!
//! - Primary: the root, SLH-DSA-SHAKE-128f (algorithm 33), created when the oldest
//!   certificate the vault holds was made.
//! - Encryption subkey of generation g: ML-KEM-768 + X25519 (algorithm 35), the two public
//!   halves of g's X-Wing key (X25519 first, as RFC 9980 orders them), created at g's
//!   certificate.
//! - Signing subkey of generation g: ML-DSA-65 + Ed25519 (algorithm 30), Ed25519 first,
//!   created at g's certificate.
//!
//! The packets hold public bytes only, so the OpenPGP fingerprint is computed without a
//! password ([`fingerprint`]).
//!
//! The format reads an identity through [`OpenPgpIdentity`], [`OpenPgpGeneration`] and
//! [`OpenPgpSecrets`]: key bytes, times and what the root revoked, nothing of the identity
//! model itself. The identity implements them beside itself (`identity/openpgp.rs`), so
//! the format never imports the model back.

use super::system_time;
use crate::secret::SecretBytes;
use crate::suite::Backend;
use crate::suite::backend::MLDSA65_VERIFYING_KEY_LEN;
use crate::suite::root_sig::RootSecret;
use pgp::Fingerprint;
use pgp::crypto::mpi;
use pgp::packet::Key;
use pgp::packet::key::{Key6, PrimaryRole, PublicParts, SubordinateRole, UnspecifiedRole};
use pgp::types::{HashAlgorithm, PublicKeyAlgorithm};
use sequoia_openpgp as pgp;

/// ML-KEM-768 encapsulation key length, the first part of an X-Wing public key.
const MLKEM768_EK_LEN: usize = 1184;

/// What an OpenPGP certificate shows of an identity.
pub trait OpenPgpIdentity {
    /// One generation's keys.
    type Generation: OpenPgpGeneration;
    /// The root's SLH-DSA-SHAKE-128f public key.
    fn root_public(&self) -> [u8; 32];
    /// Every generation the identity has certified, oldest first (never empty).
    fn generations(&self) -> &[Self::Generation];
    /// The current generation: the one that signs.
    fn current(&self) -> &Self::Generation;
    /// The root's revocations of the whole identity: when, and why.
    fn identity_revocations(&self) -> Vec<(u64, &str)>;
    /// Signing keys revoked as compromised: the generations below the number, revoked at the
    /// time given, for the reason given; `None` when no signing key is.
    fn signing_revoked(&self) -> Option<(u32, u64, &str)>;
}

/// What an OpenPGP certificate shows of one generation.
pub trait OpenPgpGeneration {
    /// Its number.
    fn number(&self) -> u32;
    /// When its certificate was made (Unix seconds): every subkey's creation time.
    fn created(&self) -> u64;
    /// The last second it is valid.
    fn not_after(&self) -> u64;
    /// Its X-Wing public key (ML-KEM-768 || X25519).
    fn xwing(&self) -> &[u8];
    /// Its ML-DSA-65 || Ed25519 verifying key.
    fn mldsa65_ed25519(&self) -> &[u8];
}

/// The secrets our own certificate needs: which generations still decrypt, and the signing
/// seeds of the current one for its back-signature.
pub trait OpenPgpSecrets {
    /// The generations whose decapsulation seeds are kept.
    fn decrypting(&self) -> Vec<u32>;
    /// Generation `number`'s ML-DSA-65 seed ξ and Ed25519 seed, if kept.
    fn signing_seeds(&self, number: u32) -> Option<(&SecretBytes<32>, &SecretBytes<32>)>;
}

/// The primary key: the root's SLH-DSA-SHAKE-128f public key, created with the oldest
/// generation.
pub fn primary(public: &impl OpenPgpIdentity) -> Key<PublicParts, PrimaryRole> {
    let created = public
        .generations()
        .iter()
        .map(|c| c.created())
        .min()
        .unwrap_or(0);
    let key = Key6::new(
        system_time(created),
        PublicKeyAlgorithm::SLHDSA128f,
        mpi::PublicKey::SLHDSA128f {
            public: public.root_public(),
        },
    )
    .expect("a fixed-size SLH-DSA key");
    key.into()
}

/// Generation `cert`'s encryption subkey: its X-Wing key as RFC 9980's algorithm 35.
pub fn encryption_subkey(cert: &impl OpenPgpGeneration) -> Key<PublicParts, SubordinateRole> {
    let (mlkem, ecdh) = cert.xwing().split_at(MLKEM768_EK_LEN);
    let key = Key6::new(
        system_time(cert.created()),
        PublicKeyAlgorithm::MLKEM768_X25519,
        mpi::PublicKey::MLKEM768_X25519 {
            ecdh: Box::new(
                ecdh.try_into()
                    .expect("an X-Wing key ends in 32 X25519 bytes"),
            ),
            mlkem: Box::new(
                mlkem
                    .try_into()
                    .expect("an X-Wing key starts with ML-KEM-768's"),
            ),
        },
    )
    .expect("fixed-size keys");
    key.into()
}

/// Generation `cert`'s signing subkey: its composite key as RFC 9980's algorithm 30.
pub(crate) fn signing_subkey(cert: &impl OpenPgpGeneration) -> Key<PublicParts, SubordinateRole> {
    let (mldsa, eddsa) = cert.mldsa65_ed25519().split_at(MLDSA65_VERIFYING_KEY_LEN);
    let key = Key6::new(
        system_time(cert.created()),
        PublicKeyAlgorithm::MLDSA65_Ed25519,
        mpi::PublicKey::MLDSA65_Ed25519 {
            eddsa: Box::new(eddsa.try_into().expect("32 Ed25519 bytes")),
            mldsa: Box::new(mldsa.try_into().expect("1952 ML-DSA-65 bytes")),
        },
    )
    .expect("fixed-size keys");
    key.into()
}

/// The identity's OpenPGP fingerprint (v6: SHA-256 of the primary key packet).
pub fn fingerprint(public: &impl OpenPgpIdentity) -> Fingerprint {
    primary(public).fingerprint()
}

/// The fingerprint as people compare it: upper-case hex in groups of four.
pub fn display(fp: &Fingerprint) -> String {
    let hex = fp.to_hex();
    hex.as_bytes()
        .chunks(8)
        .map(|c| std::str::from_utf8(c).expect("hex"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The root signing for the certificate: hedged SLH-DSA of each digest, empty context
/// ([`RootSecret::sign_openpgp`]), SHA3-256 digests as RFC 9980's own vectors use.
pub(crate) struct RootSigner<'a> {
    key: Key<PublicParts, UnspecifiedRole>,
    root: &'a RootSecret,
    backend: &'a dyn Backend,
}

impl<'a> RootSigner<'a> {
    /// The signer for `public`'s primary key.
    pub fn new(
        public: &impl OpenPgpIdentity,
        root: &'a RootSecret,
        backend: &'a dyn Backend,
    ) -> Self {
        RootSigner {
            key: primary(public).role_into_unspecified(),
            root,
            backend,
        }
    }
}

impl pgp::crypto::Signer for RootSigner<'_> {
    fn public(&self) -> &Key<PublicParts, UnspecifiedRole> {
        &self.key
    }

    fn acceptable_hashes(&self) -> &[HashAlgorithm] {
        &[HashAlgorithm::SHA3_256]
    }

    fn sign(&mut self, _hash: HashAlgorithm, digest: &[u8]) -> pgp::Result<mpi::Signature> {
        let sig = self.root.sign_openpgp(self.backend, digest);
        Ok(mpi::Signature::SLHDSA128f {
            sig: Box::new(sig.try_into().map_err(|_| {
                pgp::Error::InvalidOperation("an SLH-DSA signature of the wrong length".into())
            })?),
        })
    }
}

/// A generation's composite key signing: `sign` gets each digest and returns Ed25519 (64) ||
/// ML-DSA-65 (3309), from the agent or the unlocked vault.
pub(crate) struct SubkeySigner<F> {
    key: Key<PublicParts, UnspecifiedRole>,
    sign: F,
}

impl<F> SubkeySigner<F>
where
    F: FnMut(&[u8]) -> crate::Result<Vec<u8>>,
{
    /// The signer for generation `cert`'s signing subkey.
    pub fn new(cert: &impl OpenPgpGeneration, sign: F) -> Self {
        SubkeySigner {
            key: signing_subkey(cert).role_into_unspecified(),
            sign,
        }
    }
}

impl<F> pgp::crypto::Signer for SubkeySigner<F>
where
    F: FnMut(&[u8]) -> crate::Result<Vec<u8>>,
{
    fn public(&self) -> &Key<PublicParts, UnspecifiedRole> {
        &self.key
    }

    fn acceptable_hashes(&self) -> &[HashAlgorithm] {
        &[HashAlgorithm::SHA512, HashAlgorithm::SHA3_256]
    }

    fn sign(&mut self, _hash: HashAlgorithm, digest: &[u8]) -> pgp::Result<mpi::Signature> {
        let sig = (self.sign)(digest)
            .map_err(|e| pgp::Error::InvalidOperation(format!("{} ({})", e.message(), e.hint())))?;
        if sig.len() != 64 + 3309 {
            return Err(pgp::Error::InvalidOperation(
                "a composite signature of the wrong length".into(),
            )
            .into());
        }
        let (eddsa, mldsa) = sig.split_at(64);
        Ok(mpi::Signature::MLDSA65_Ed25519 {
            eddsa: Box::new(eddsa.try_into().expect("64 bytes")),
            mldsa: Box::new(mldsa.try_into().expect("3309 bytes")),
        })
    }
}

//! Certificates: ours built from the identity (docs/openpgp.md, "The certificate"), other
//! people's read and checked before anything is encrypted to them or verified with them.

use super::keys::{
    self, OpenPgpGeneration, OpenPgpIdentity, OpenPgpSecrets, RootSigner, SubkeySigner,
};
use super::{MAX_CERT_LEN, pgp_error, system_time};
use crate::error::{Error, Result};
use crate::secret::random_array;
use crate::suite::Backend;
use crate::suite::hybrid_sig;
use crate::suite::root_sig::RootSecret;
use pgp::cert::prelude::*;
use pgp::packet::UserID;
use pgp::packet::signature::SignatureBuilder;
use pgp::parse::Parse;
use pgp::policy::StandardPolicy;
use pgp::serialize::SerializeInto;
use pgp::types::{
    AEADAlgorithm, Features, HashAlgorithm, KeyFlags, PublicKeyAlgorithm, ReasonForRevocation,
    RevocationStatus, SignatureType, SymmetricAlgorithm,
};
use pgp::{Cert, Packet};
use sequoia_openpgp as pgp;
use std::time::Duration;
use zeroize::Zeroizing;

/// What goes into our certificate besides the keys: which generations still decrypt, and the
/// user ID, if one is given.
pub struct Contents<'a, P> {
    /// The vault's whole public identity (every certificate, every revocation).
    pub public: &'a P,
    /// The generations whose decapsulation keys the vault still holds, oldest first.
    pub decrypting: &'a [u32],
    /// A user ID (`"Name <address>"`), bound by the root; `None` leaves the direct-key signature
    /// alone, as v6 allows.
    pub user_id: Option<&'a str>,
}

/// Build the certificate: the root signs every binding (RootSigner), the newest generation
/// signs its subkey's back-signature (`sign_newest`, Ed25519 || ML-DSA-65 of a digest).
pub fn build<P: OpenPgpIdentity>(
    contents: &Contents<P>,
    root: &RootSecret,
    backend: &dyn Backend,
    sign_newest: impl FnMut(&[u8]) -> Result<Vec<u8>>,
) -> Result<Cert> {
    let failed = |e: anyhow::Error| {
        pgp_error(
            "could not make the OpenPGP certificate",
            &e,
            "this is a bug in nexusq; please report it",
        )
    };
    let public = contents.public;
    let primary = keys::primary(public);
    let primary_created = primary.creation_time();
    let mut root_signer = RootSigner::new(public, root, backend);
    let mut packets: Vec<Packet> = vec![primary.clone().into()];

    let direct = SignatureBuilder::new(SignatureType::DirectKey)
        .set_hash_algo(HashAlgorithm::SHA3_256)
        .set_signature_creation_time(primary_created)
        .and_then(|b| b.set_key_flags(KeyFlags::empty().set_certification()))
        .and_then(|b| b.set_features(Features::empty().set_seipdv2()))
        .and_then(|b| b.set_preferred_symmetric_algorithms(vec![SymmetricAlgorithm::AES256]))
        .and_then(|b| {
            b.set_preferred_aead_ciphersuites(vec![
                (SymmetricAlgorithm::AES256, AEADAlgorithm::OCB),
                (SymmetricAlgorithm::AES256, AEADAlgorithm::GCM),
            ])
        })
        .and_then(|b| {
            b.set_preferred_hash_algorithms(vec![
                HashAlgorithm::SHA512,
                HashAlgorithm::SHA3_512,
                HashAlgorithm::SHA3_256,
            ])
        })
        .and_then(|b| b.sign_direct_key(&mut root_signer, Some(&primary)))
        .map_err(failed)?;
    packets.push(direct.into());

    for (created, reason) in public.identity_revocations() {
        let sig = SignatureBuilder::new(SignatureType::KeyRevocation)
            .set_hash_algo(HashAlgorithm::SHA3_256)
            .set_signature_creation_time(system_time(created))
            .and_then(|b| {
                b.set_reason_for_revocation(ReasonForRevocation::KeyCompromised, reason.as_bytes())
            })
            .and_then(|b| b.sign_direct_key(&mut root_signer, Some(&primary)))
            .map_err(failed)?;
        packets.push(sig.into());
    }

    if let Some(uid) = contents.user_id {
        let uid = UserID::from(uid);
        let sig = SignatureBuilder::new(SignatureType::PositiveCertification)
            .set_hash_algo(HashAlgorithm::SHA3_256)
            .set_signature_creation_time(primary_created)
            .and_then(|b| b.set_primary_userid(true))
            .and_then(|b| b.sign_userid_binding(&mut root_signer, Some(&primary), &uid))
            .map_err(failed)?;
        packets.push(uid.into());
        packets.push(sig.into());
    }

    for c in public.generations() {
        if !contents.decrypting.contains(&c.number()) {
            continue;
        }
        let subkey = keys::encryption_subkey(c);
        let sig = SignatureBuilder::new(SignatureType::SubkeyBinding)
            .set_hash_algo(HashAlgorithm::SHA3_256)
            .set_signature_creation_time(system_time(c.created()))
            .and_then(|b| {
                b.set_key_flags(
                    KeyFlags::empty()
                        .set_transport_encryption()
                        .set_storage_encryption(),
                )
            })
            .and_then(|b| b.set_key_validity_period(validity(c.created(), c.not_after())))
            .and_then(|b| b.sign_subkey_binding(&mut root_signer, Some(&primary), &subkey))
            .map_err(failed)?;
        packets.push(subkey.into());
        packets.push(sig.into());
    }

    // Signing keys revoked as compromised (`rotate --compromised`): their subkeys with the
    // root's revocation, so that a copy of an older certificate learns it when merged.
    if let Some((before, at, reason)) = public.signing_revoked() {
        for c in public.generations().iter().filter(|c| c.number() < before) {
            let subkey = keys::signing_subkey(c);
            let sig = SignatureBuilder::new(SignatureType::SubkeyRevocation)
                .set_hash_algo(HashAlgorithm::SHA3_256)
                .set_signature_creation_time(system_time(at.max(c.created())))
                .and_then(|b| {
                    b.set_reason_for_revocation(
                        ReasonForRevocation::KeyCompromised,
                        reason.as_bytes(),
                    )
                })
                .and_then(|b| b.sign_subkey_binding(&mut root_signer, Some(&primary), &subkey))
                .map_err(failed)?;
            packets.push(subkey.into());
            packets.push(sig.into());
        }
    }

    // The current generation's signing subkey, with its back-signature.
    let newest = public.current();
    let subkey = keys::signing_subkey(newest);
    let mut subkey_signer = SubkeySigner::new(newest, sign_newest);
    let backsig = SignatureBuilder::new(SignatureType::PrimaryKeyBinding)
        .set_hash_algo(HashAlgorithm::SHA512)
        .set_signature_creation_time(system_time(newest.created()))
        .and_then(|b| b.sign_primary_key_binding(&mut subkey_signer, &primary, &subkey))
        .map_err(failed)?;
    let sig = SignatureBuilder::new(SignatureType::SubkeyBinding)
        .set_hash_algo(HashAlgorithm::SHA3_256)
        .set_signature_creation_time(system_time(newest.created()))
        .and_then(|b| b.set_key_flags(KeyFlags::empty().set_signing()))
        .and_then(|b| b.set_key_validity_period(validity(newest.created(), newest.not_after())))
        .and_then(|b| b.set_embedded_signature(backsig))
        .and_then(|b| b.sign_subkey_binding(&mut root_signer, Some(&primary), &subkey))
        .map_err(failed)?;
    packets.push(subkey.into());
    packets.push(sig.into());

    Cert::from_packets(packets.into_iter()).map_err(failed)
}

/// Our certificate from the vault's public identity and secrets (`identity export
/// --openpgp`): an encryption subkey for every generation whose decapsulation seeds are kept,
/// and the newest generation's signing seeds for the back-signature.
pub fn of_vault<P: OpenPgpIdentity>(
    public: &P,
    secrets: &impl OpenPgpSecrets,
    root: &RootSecret,
    backend: &dyn Backend,
    user_id: Option<&str>,
) -> Result<Cert> {
    let decrypting = secrets.decrypting();
    let newest = public.current().number();
    let (mldsa_xi, ed25519) = secrets.signing_seeds(newest).ok_or_else(|| {
        Error::vault(
            format!("the vault holds no signing key for generation {newest}"),
            "run nexusq doctor; the vault does not match its certificates",
        )
    })?;
    let contents = Contents {
        public,
        decrypting: &decrypting,
        user_id,
    };
    build(&contents, root, backend, |digest| {
        let rnd = Zeroizing::new(random_array::<32>());
        hybrid_sig::sign_openpgp(backend, mldsa_xi, ed25519, digest, &rnd).map_err(|e| {
            Error::check(
                format!("could not sign: {e:?}"),
                "check the vault with nexusq doctor",
            )
        })
    })
}

/// A certificate's validity `created..=not_after` as OpenPGP's key validity period.
fn validity(created: u64, not_after: u64) -> Option<Duration> {
    Some(Duration::from_secs(
        not_after.saturating_sub(created).saturating_add(1),
    ))
}

/// The certificate in OpenPGP armor (`-----BEGIN PGP PUBLIC KEY BLOCK-----`).
pub fn to_armor(cert: &Cert) -> Result<String> {
    let bytes = cert.armored().to_vec().map_err(|e| {
        pgp_error(
            "could not write the OpenPGP certificate",
            &e,
            "this is a bug in nexusq; please report it",
        )
    })?;
    String::from_utf8(bytes).map_err(|_| Error::check("armor that is not UTF-8", "a bug"))
}

/// Someone's OpenPGP certificate, read and checked (docs/openpgp.md, "Their certificates").
#[derive(Clone, Debug)]
pub struct PeerCert {
    /// The certificate as parsed (its public parts only).
    pub cert: Cert,
}

/// Read one OpenPGP certificate (armored or binary) from `what`: exactly one certificate,
/// public parts only (a secret key is refused, so it is never copied around by mistake),
/// valid under Sequoia's standard policy now, and not revoked.
pub fn parse(bytes: &[u8], what: &str, now: u64) -> Result<PeerCert> {
    let cert = read_one(bytes, what)?;
    let policy = StandardPolicy::new();
    let valid = cert.with_policy(&policy, system_time(now)).map_err(|e| {
        pgp_error(
            &format!("{what}: the OpenPGP certificate is not valid now"),
            &e,
            "ask its owner for a current certificate",
        )
    })?;
    if let RevocationStatus::Revoked(_) = valid.revocation_status() {
        return Err(Error::check(
            format!("{what}: the OpenPGP certificate is revoked by its owner"),
            "ask its owner how to reach them now",
        ));
    }
    valid.alive().map_err(|e| {
        pgp_error(
            &format!("{what}: the OpenPGP certificate has expired"),
            &e,
            "ask its owner for a current certificate",
        )
    })?;
    Ok(PeerCert { cert })
}

/// Exactly one OpenPGP certificate (armored or binary) from `what`, at most
/// [`MAX_CERT_LEN`] bytes, public parts only (a secret key is refused, so it is never copied
/// around by mistake). Nothing about its validity is checked: [`parse`] does that, and a
/// contact's update takes expired and revoked copies too.
pub(crate) fn read_one(bytes: &[u8], what: &str) -> Result<Cert> {
    if bytes.len() > MAX_CERT_LEN {
        return Err(Error::check(
            format!("{what}: larger than {} KiB", MAX_CERT_LEN / 1024),
            "an OpenPGP certificate is far smaller; check the file",
        ));
    }
    let mut certs = CertParser::from_bytes(bytes)
        .map_err(|e| pgp_error(what, &e, "give an OpenPGP certificate (sq cert export)"))?;
    let cert = match certs.next() {
        Some(Ok(cert)) => cert,
        Some(Err(e)) => {
            return Err(pgp_error(
                &format!("{what}: not a readable OpenPGP certificate"),
                &e,
                "give an OpenPGP certificate (sq cert export, gpg --export --armor)",
            ));
        }
        None => {
            return Err(Error::check(
                format!("{what}: no OpenPGP certificate in it"),
                "give an OpenPGP certificate (sq cert export, gpg --export --armor)",
            ));
        }
    };
    if certs.next().is_some() {
        return Err(Error::check(
            format!("{what}: holds more than one OpenPGP certificate"),
            "give one certificate per file",
        ));
    }
    if cert.is_tsk() {
        return Err(Error::check(
            format!("{what}: is a secret key, not a certificate"),
            "give the certificate only (sq key delete --cert-file, or gpg --export)",
        ));
    }
    Ok(cert)
}

impl PeerCert {
    /// The primary key's fingerprint.
    pub fn fingerprint(&self) -> pgp::Fingerprint {
        self.cert.fingerprint()
    }

    /// The primary user ID, if any (text from someone else: escape before printing).
    pub fn user_id(&self, now: u64) -> Option<String> {
        let policy = StandardPolicy::new();
        let valid = self.cert.with_policy(&policy, system_time(now)).ok()?;
        let uid = valid.primary_userid().ok()?;
        Some(String::from_utf8_lossy(uid.userid().value()).into_owned())
    }

    /// The keys a message to this certificate is encrypted to: every ML-KEM-768 + X25519
    /// subkey alive, unrevoked and flagged for encryption now. None is an error that says
    /// what the certificate has instead (nexusq never encrypts to a classical key alone).
    pub fn encryption_keys(
        &self,
        what: &str,
        now: u64,
    ) -> Result<
        Vec<pgp::packet::Key<pgp::packet::key::PublicParts, pgp::packet::key::UnspecifiedRole>>,
    > {
        let policy = StandardPolicy::new();
        let valid = self
            .cert
            .with_policy(&policy, system_time(now))
            .map_err(|e| pgp_error(what, &e, "ask its owner for a current certificate"))?;
        let mut pq = Vec::new();
        let mut classical = Vec::new();
        for ka in valid
            .keys()
            .alive()
            .revoked(false)
            .for_transport_encryption()
            .for_storage_encryption()
        {
            let algo = ka.key().pk_algo();
            if algo == PublicKeyAlgorithm::MLKEM768_X25519 {
                pq.push(ka.key().clone().role_into_unspecified());
            } else {
                classical.push(algo.to_string());
            }
        }
        if pq.is_empty() {
            let has = if classical.is_empty() {
                "no encryption key alive".to_string()
            } else {
                format!("only classical encryption keys ({})", classical.join(", "))
            };
            return Err(Error::check(
                format!("{what}: the OpenPGP certificate has {has}"),
                "nexusq encrypts only to ML-KEM-768+X25519 keys (RFC 9980); ask its owner \
                 for a post-quantum certificate (sq key generate --profile rfc9580 --cipher-suite mldsa65)",
            ));
        }
        Ok(pq)
    }
}

/// One key of a certificate as `identity show` lists it.
#[derive(Clone, Debug)]
pub struct KeySummary {
    /// The key's fingerprint.
    pub fingerprint: pgp::Fingerprint,
    /// Its algorithm's name.
    pub algorithm: String,
    /// An RFC 9980 algorithm.
    pub post_quantum: bool,
    /// The primary key.
    pub primary: bool,
    /// Creation time (Unix seconds).
    pub created: u64,
    /// Expiry (Unix seconds), if any.
    pub expires: Option<u64>,
    /// What it is for: "certify", "sign", "encrypt", combined with "+".
    pub usage: String,
}

/// The keys of a certificate that are valid now, primary first.
pub fn key_summaries(peer: &PeerCert, now: u64) -> Vec<KeySummary> {
    let policy = StandardPolicy::new();
    let Ok(valid) = peer.cert.with_policy(&policy, system_time(now)) else {
        return Vec::new();
    };
    valid
        .keys()
        .map(|ka| {
            let algo = ka.key().pk_algo();
            let mut usage = Vec::new();
            if ka.for_certification() {
                usage.push("certify");
            }
            if ka.for_signing() {
                usage.push("sign");
            }
            if ka.for_transport_encryption() || ka.for_storage_encryption() {
                usage.push("encrypt");
            }
            KeySummary {
                fingerprint: ka.key().fingerprint(),
                algorithm: algo.to_string(),
                post_quantum: super::is_post_quantum(algo)
                    || algo == PublicKeyAlgorithm::MLKEM768_X25519
                    || algo == PublicKeyAlgorithm::MLKEM1024_X448,
                primary: ka.primary(),
                created: super::unix_time(ka.key().creation_time()),
                expires: ka.key_expiration_time().map(super::unix_time),
                usage: if usage.is_empty() {
                    "none".into()
                } else {
                    usage.join("+")
                },
            }
        })
        .collect()
}

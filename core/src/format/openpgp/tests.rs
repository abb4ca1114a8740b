//! The certificate, messages and signatures against Sequoia and RFC 9980's Appendix A vectors
//! (`../shared/vectors/openpgp-pqc/`), on both backends.

use super::message::{self, SessionKeys, Unwrap, Unwrapped};
use super::{cert, keys, signature};
use crate::error::Result;
use crate::identity::NewIdentity;
use crate::secret::SecretBytes;
use crate::suite::Backend;
use crate::suite::hybrid_kem::{Decapsulate, DecapsulationKey, ExpandedSeed, KemLevel};
use crate::suite::native::Native;
use crate::suite::rustcrypto::RustCrypto;
use pgp::crypto::mpi;
use pgp::parse::Parse;
use pgp::policy::StandardPolicy;
use pgp::types::PublicKeyAlgorithm;
use sequoia_openpgp as pgp;

const BACKENDS: [&dyn Backend; 2] = [&RustCrypto, &Native];
const NOW: u64 = 1_780_000_000;

/// RFC 9980's Appendix A file `name`, from the known-answer vectors folder (docs/vectors.md).
fn vector(name: &str) -> Vec<u8> {
    let path = nexusq_testkit::vector_path(&format!("openpgp-pqc/{name}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Decapsulation keys held in this process, as the vault holds them.
struct Held(Vec<(u32, DecapsulationKey)>);

impl SessionKeys for Held {
    fn open(&mut self, unwrap: &Unwrap) -> Result<Option<(Unwrapped, u32)>> {
        let keys: Vec<&dyn Decapsulate> = self.0.iter().map(|(_, k)| k as _).collect();
        Ok(unwrap(&keys).map(|(u, i)| (u, self.0[i].0)))
    }
}

fn identity(backend: &dyn Backend) -> NewIdentity {
    NewIdentity::generate(backend, NOW - 100)
}

fn held(backend: &dyn Backend, id: &NewIdentity) -> Held {
    Held(
        id.secrets
            .generations
            .iter()
            .filter_map(|g| {
                let seed = g.kem.as_ref()?.seed(KemLevel::MlKem768);
                Some((
                    g.generation,
                    DecapsulationKey::from_seed(backend, KemLevel::MlKem768, seed),
                ))
            })
            .collect(),
    )
}

fn our_cert(backend: &dyn Backend, id: &NewIdentity, uid: Option<&str>) -> pgp::Cert {
    cert::of_vault(&id.public, &id.secrets, id.keys.root(), backend, uid).unwrap()
}

#[test]
fn certificate_is_the_identity_and_sequoia_accepts_it() {
    for backend in BACKENDS {
        let id = identity(backend);
        let c = our_cert(backend, &id, Some("Alice <alice@example.org>"));
        let armor = cert::to_armor(&c).unwrap();
        assert!(armor.starts_with(super::CERT_ARMOR));
        let peer = cert::parse(armor.as_bytes(), "our export", NOW).unwrap();
        assert_eq!(peer.fingerprint(), keys::fingerprint(&id.public));
        let mpi::PublicKey::SLHDSA128f { public } = c.primary_key().key().mpis() else {
            panic!("the primary is not SLH-DSA-SHAKE-128f");
        };
        assert_eq!(public, &id.public.root_pk);
        assert_eq!(
            peer.user_id(NOW).as_deref(),
            Some("Alice <alice@example.org>")
        );
        let policy = StandardPolicy::new();
        let valid = c.with_policy(&policy, super::system_time(NOW)).unwrap();
        let mut algos: Vec<_> = valid.keys().subkeys().map(|k| k.key().pk_algo()).collect();
        algos.sort();
        let mut want = [
            PublicKeyAlgorithm::MLKEM768_X25519,
            PublicKeyAlgorithm::MLDSA65_Ed25519,
        ];
        want.sort();
        assert_eq!(algos, want);
        assert_eq!(valid.keys().for_signing().count(), 1);
        assert_eq!(valid.keys().for_transport_encryption().count(), 1);
        // The X-Wing key's halves, swapped into RFC 9980's order.
        let enc = valid.keys().for_transport_encryption().next().unwrap();
        let mpi::PublicKey::MLKEM768_X25519 { ecdh, mlkem } = enc.key().mpis() else {
            panic!("not algorithm 35");
        };
        let xwing = &id.public.newest().keys.xwing;
        assert_eq!(&mlkem[..], &xwing[..1184]);
        assert_eq!(&ecdh[..], &xwing[1184..]);
        // No user ID: a direct-key signature alone, still valid.
        let bare = our_cert(backend, &id, None);
        assert_eq!(bare.fingerprint(), c.fingerprint());
        cert::parse(cert::to_armor(&bare).unwrap().as_bytes(), "bare", NOW).unwrap();
    }
}

#[test]
fn messages_round_trip_through_sequoia() {
    for backend in BACKENDS {
        let id = identity(backend);
        let armor = cert::to_armor(&our_cert(backend, &id, None)).unwrap();
        let peer = cert::parse(armor.as_bytes(), "our export", NOW).unwrap();
        for armored in [false, true] {
            let plain = b"post-quantum OpenPGP\n".repeat(5000);
            let mut ct = Vec::new();
            let to = peer.encryption_keys("us", NOW).unwrap();
            message::encrypt(&to, armored, &mut &plain[..], &mut ct).unwrap();
            assert!(super::looks_like_message(&ct));
            let mut out = Vec::new();
            let d = message::decrypt(&ct[..], &mut out, &mut held(backend, &id), NOW).unwrap();
            assert_eq!(out, plain);
            assert_eq!(d.generation, 1);
            assert!(!d.classical_too);
            // Any flipped byte of the binary message is refused before its end is released.
            if !armored {
                for at in [ct.len() / 2, ct.len() - 5] {
                    let mut bad = ct.clone();
                    bad[at] ^= 1;
                    let mut out = Vec::new();
                    let r = message::decrypt(&bad[..], &mut out, &mut held(backend, &id), NOW);
                    assert!(r.is_err(), "a flipped byte at {at} was accepted");
                    assert_ne!(out, plain);
                }
            }
        }
        // Someone else's keys cannot open it.
        let other = identity(backend);
        let mut ct = Vec::new();
        let to = peer.encryption_keys("us", NOW).unwrap();
        message::encrypt(&to, false, &mut &b"x"[..], &mut ct).unwrap();
        let err = message::decrypt(&ct[..], &mut Vec::new(), &mut held(backend, &other), NOW)
            .unwrap_err();
        assert!(
            err.message().contains("not for this identity"),
            "{}",
            err.message()
        );
    }
}

#[test]
fn detached_signatures_verify_and_tampering_is_caught() {
    for backend in BACKENDS {
        let id = identity(backend);
        let armor = cert::to_armor(&our_cert(backend, &id, None)).unwrap();
        let peer = cert::parse(armor.as_bytes(), "our export", NOW).unwrap();
        let seeds = id.secrets.generations[0].sig.as_ref().unwrap();
        let data = b"signed by a post-quantum OpenPGP key".to_vec();
        let sig = signature::sign(&mut &data[..], id.public.newest(), NOW, |d| {
            Ok(crate::suite::hybrid_sig::sign_openpgp(
                backend,
                &seeds.mldsa_xi,
                &seeds.ed25519,
                d,
                &[0; 32],
            )
            .unwrap())
        })
        .unwrap();
        assert!(super::looks_like_signature(sig.as_bytes()));
        let v = signature::verify(&data[..], sig.as_bytes(), &peer, "sig", NOW).unwrap();
        assert_eq!(v.fingerprint, peer.fingerprint());
        assert_eq!(v.algorithm, PublicKeyAlgorithm::MLDSA65_Ed25519);
        assert_eq!(v.signed_at, NOW);
        let mut changed = data.clone();
        changed[0] ^= 1;
        assert!(signature::verify(&changed[..], sig.as_bytes(), &peer, "sig", NOW).is_err());
        // Another identity's certificate does not vouch for it.
        let other = identity(backend);
        let other = cert::to_armor(&our_cert(backend, &other, None)).unwrap();
        let other = cert::parse(other.as_bytes(), "other", NOW).unwrap();
        assert!(signature::verify(&data[..], sig.as_bytes(), &other, "sig", NOW).is_err());
    }
}

/// RFC 9980 Appendix A: the secret key's ML-KEM-768 + X25519 subkey, rebuilt as one of our
/// decapsulation keys, opens the sample messages through our decryptor.
#[test]
fn rfc9980_sample_messages_open_with_our_decapsulation() {
    nexusq_testkit::skip_without_vectors!();
    for backend in BACKENDS {
        for (sk, msg, want) in [
            (
                "v6-eddsa-sample-sk.asc",
                "v6-eddsa-sample-message.asc",
                true,
            ),
            (
                "v4-eddsa-sample-sk.asc",
                "v4-eddsa-sample-message-v2.asc",
                true,
            ),
            (
                "v6-mldsa-65-sample-sk.asc",
                "v6-mldsa-65-sample-message.asc",
                true,
            ),
            (
                "v4-eddsa-sample-sk.asc",
                "v4-eddsa-sample-message-v1.asc",
                false,
            ),
        ] {
            let tsk = pgp::Cert::from_bytes(&vector(sk)).unwrap();
            let mut held = Held(Vec::new());
            for k in tsk.keys().subkeys().secret() {
                let key = k.key().clone().parts_into_secret().unwrap();
                let Some(mpi::PublicKey::MLKEM768_X25519 { .. }) = Some(key.mpis()) else {
                    continue;
                };
                let material = key.optional_secret().unwrap();
                let pgp::packet::key::SecretKeyMaterial::Unencrypted(u) = material else {
                    panic!("{sk}: the sample key is not encrypted");
                };
                u.map(|m| {
                    let mpi::SecretKeyMaterial::MLKEM768_X25519 { ecdh, mlkem } = m else {
                        panic!("not algorithm 35");
                    };
                    let mut e = ExpandedSeed {
                        d: SecretBytes::zero(),
                        z: SecretBytes::zero(),
                        x25519: SecretBytes::zero(),
                    };
                    e.x25519.expose_mut().copy_from_slice(&ecdh[..]);
                    e.d.expose_mut().copy_from_slice(&mlkem[..32]);
                    e.z.expose_mut().copy_from_slice(&mlkem[32..]);
                    let dk = DecapsulationKey::from_expanded(backend, KemLevel::MlKem768, e);
                    let mpi::PublicKey::MLKEM768_X25519 { ecdh, mlkem } = key.mpis() else {
                        unreachable!()
                    };
                    // Our expansion gives the vector's public key.
                    assert_eq!(&dk.public_key()[..1184], &mlkem[..]);
                    assert_eq!(&dk.public_key()[1184..], &ecdh[..]);
                    held.0.push((1, dk));
                });
            }
            assert_eq!(held.0.len(), 1, "{sk}");
            let mut out = Vec::new();
            let r = message::decrypt(&vector(msg)[..], &mut out, &mut held, NOW);
            if want {
                r.unwrap_or_else(|e| panic!("{msg}: {}", e.message()));
                assert_eq!(out, b"Testing\n", "{msg}");
            } else {
                let e = r.unwrap_err();
                assert!(e.message().contains("SEIPD v1"), "{msg}: {}", e.message());
                assert!(out.is_empty());
            }
        }
    }
}

/// RFC 9980 Appendix A certificates parse, and their detached signatures verify (ML-DSA-65 +
/// Ed25519 and SLH-DSA-SHAKE-128f), through our verifier.
#[test]
fn rfc9980_sample_signatures_verify() {
    nexusq_testkit::skip_without_vectors!();
    for (pk, sig) in [
        (
            "v6-mldsa-65-sample-pk.asc",
            "v6-mldsa-65-sample-signature.asc",
        ),
        (
            "v6-slhdsa-128f-sample-pk.asc",
            "v6-slhdsa-128f-sample-signature.asc",
        ),
    ] {
        let peer = cert::parse(&vector(pk), pk, NOW).unwrap();
        let v = signature::verify(&b"Testing\n"[..], &vector(sig), &peer, sig, NOW);
        let v = v.unwrap_or_else(|e| panic!("{sig}: {}", e.message()));
        assert!(super::is_post_quantum(v.algorithm));
        assert!(signature::verify(&b"Testing!\n"[..], &vector(sig), &peer, sig, NOW).is_err());
    }
}

/// A certificate without an ML-KEM-768 + X25519 subkey gets a refusal that says what to ask
/// for.
#[test]
fn classical_only_certificates_are_refused_for_encryption() {
    nexusq_testkit::skip_without_vectors!();
    let c = cert::parse(&vector("v4-eddsa-sample-pk.asc"), "v4", NOW).unwrap();
    // The v4 sample has an ML-KEM subkey; strip it to leave the classical primary.
    let stripped = c
        .cert
        .clone()
        .retain_subkeys(|k| k.key().pk_algo() != PublicKeyAlgorithm::MLKEM768_X25519);
    let peer = cert::PeerCert { cert: stripped };
    let e = peer.encryption_keys("v4", NOW).unwrap_err();
    assert!(e.message().contains("no encryption key"), "{}", e.message());
    assert!(e.hint().contains("ML-KEM-768+X25519"), "{}", e.hint());
}

/// An identity revocation becomes the certificate's key revocation: Sequoia sees the whole
/// certificate revoked, and nexusq refuses it as a recipient.
#[test]
fn an_identity_revocation_revokes_the_certificate() {
    let backend: &dyn Backend = &RustCrypto;
    let mut id = identity(backend);
    id.public.revocations.push(id.revocation.clone());
    let c = our_cert(backend, &id, None);
    let policy = StandardPolicy::new();
    assert!(matches!(
        c.revocation_status(&policy, super::system_time(NOW)),
        pgp::types::RevocationStatus::Revoked(_)
    ));
    let armor = cert::to_armor(&c).unwrap();
    let e = cert::parse(armor.as_bytes(), "revoked", NOW).unwrap_err();
    assert!(e.message().contains("revoked"), "{}", e.message());
    // The fingerprint is the identity's still.
    assert_eq!(c.fingerprint(), keys::fingerprint(&id.public));
}

//! OpenPGP certificates as the contacts book keeps them (docs/contacts.md, "OpenPGP certificates"): what is
//! stored, how a stored one is read back, how an update merges into it, and what `contacts
//! show` reports about it.
//!
//! A contact is pinned to the certificate's primary key fingerprint. Updates go through
//! Sequoia's [`Cert::merge_public`]: every subkey, binding and revocation the book has seen is
//! kept, so an older or stripped copy cannot roll the contact back or lift a revocation. There
//! are no generations: whether a key is valid now is Sequoia's standard policy's call, made
//! when the certificate is used ([`crate::format::openpgp::cert::parse`]), never when the book
//! is read, so a stored certificate stays readable after it expires or is revoked.

use super::cert::PeerCert;
use super::is_post_quantum;
use super::{MAX_CERT_LEN, packet_tag, pgp_error, system_time, unix_time};
use crate::error::{Error, Result};
use crate::wire::{DecodeError, DecodeResult};
use pgp::cert::prelude::*;
use pgp::packet::Signature;
use pgp::packet::signature::subpacket::SubpacketTag;
use pgp::parse::{PacketParser, PacketParserResult, Parse};
use pgp::policy::StandardPolicy;
use pgp::serialize::SerializeInto;
use pgp::types::{PublicKeyAlgorithm, RevocationStatus};
use pgp::{Cert, Fingerprint, Packet};
use sequoia_openpgp as pgp;
use std::collections::BTreeSet;

/// Armor header of an OpenPGP secret key.
const SECRET_KEY_ARMOR: &str = "-----BEGIN PGP PRIVATE KEY BLOCK-----";

/// Does this input start an OpenPGP certificate, or an OpenPGP secret key (armored, or a
/// secret-key packet) given where a certificate is expected? Both go to
/// [`crate::format::openpgp::cert::parse`], which refuses the secret key in plain words.
pub fn looks_like_openpgp_key(prefix: &[u8]) -> bool {
    crate::format::openpgp::looks_like_cert(prefix) || looks_like_secret_key(prefix)
}

/// Does this input start an OpenPGP secret key (armored, or a secret-key packet)?
pub fn looks_like_secret_key(prefix: &[u8]) -> bool {
    crate::format::openpgp::starts_armor(prefix, SECRET_KEY_ARMOR)
        || prefix.first().and_then(|b| packet_tag(*b)) == Some(5)
}

/// The bytes the book stores for `cert`: its public parts, as Sequoia serializes them.
pub fn encode(cert: &Cert) -> Result<Vec<u8>> {
    let bytes = cert
        .clone()
        .strip_secret_key_material()
        .to_vec()
        .map_err(|e| {
            pgp_error(
                "could not encode the OpenPGP certificate",
                &e,
                "this is a bug in nexusq; please report it",
            )
        })?;
    if bytes.len() > MAX_CERT_LEN {
        return Err(Error::check(
            format!(
                "the OpenPGP certificate is larger than {} KiB",
                MAX_CERT_LEN / 1024
            ),
            "the contacts book keeps certificates up to that size; ask its owner for a \
             smaller one (sq cert export, without third-party certifications)",
        ));
    }
    Ok(bytes)
}

/// A stored certificate read back (kind 3 of the book's layout): binary, at most
/// [`MAX_CERT_LEN`] bytes, exactly one certificate, no secret key material. Structure only:
/// no policy, no expiry, no revocation is checked here, so that a certificate that expired or
/// was revoked since stays in the book (and keeps its revocation).
pub fn decode(payload: &[u8]) -> DecodeResult<Cert> {
    if payload.len() > MAX_CERT_LEN {
        return Err(DecodeError(format!(
            "an OpenPGP certificate is larger than {} KiB",
            MAX_CERT_LEN / 1024
        )));
    }
    if payload.first().and_then(|b| packet_tag(*b)) != Some(6) {
        return Err(DecodeError(
            "an OpenPGP contact does not start with a public-key packet".into(),
        ));
    }
    let cert = Cert::from_bytes(payload).map_err(|e| {
        DecodeError(format!(
            "an OpenPGP contact is not a readable certificate: {e}"
        ))
    })?;
    if cert.is_tsk() {
        return Err(DecodeError(
            "an OpenPGP contact holds secret key material".into(),
        ));
    }
    Ok(cert)
}

/// The primary key fingerprint of a stored certificate, read from its first packet (no
/// whole-certificate parse); `None` when the bytes do not start with a public-key packet.
pub fn fingerprint(payload: &[u8]) -> Option<Fingerprint> {
    let PacketParserResult::Some(pp) = PacketParser::from_bytes(payload).ok()? else {
        return None;
    };
    match &pp.packet {
        Packet::PublicKey(k) => Some(k.fingerprint()),
        _ => None,
    }
}

/// A fingerprint as a person types it: hex, any case, spaces allowed; 64 digits (v6) or 40
/// (v4). Anything else is a usage error.
pub fn parse_fingerprint(typed: &str) -> Result<Fingerprint> {
    let hex: String = typed.chars().filter(|c| !c.is_whitespace()).collect();
    let ok = matches!(hex.len(), 40 | 64) && hex.bytes().all(|b| b.is_ascii_hexdigit());
    match ok.then(|| Fingerprint::from_hex(&hex).ok()).flatten() {
        Some(fp @ (Fingerprint::V6(_) | Fingerprint::V4(_))) => Ok(fp),
        _ => Err(Error::usage(
            format!(
                "\"{}\" is not an OpenPGP fingerprint",
                crate::untrusted::escape(typed)
            ),
            "an OpenPGP fingerprint is 64 hex digits (40 for a v4 key), spaces allowed, as a \
             contact's certificate shows it",
        )),
    }
}

/// What an OpenPGP certificate offers nexusq, under Sequoia's standard policy now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offers {
    /// An ML-KEM-768 + X25519 subkey, alive, unrevoked, flagged for encryption: nexusq can
    /// encrypt to it.
    pub encryption: bool,
    /// A key with an RFC 9980 signature algorithm, alive, unrevoked, flagged for signing:
    /// nexusq can accept its signatures.
    pub signing: bool,
}

/// What the (already checked, [`crate::format::openpgp::cert::parse`]) certificate offers: an
/// ML-KEM-768 + X25519 encryption subkey or a post-quantum signing key. One with neither is
/// refused (exit 1), saying which classical keys it has instead.
pub fn offers(peer: &PeerCert, what: &str, now: u64) -> Result<Offers> {
    let policy = StandardPolicy::new();
    let valid = peer
        .cert
        .with_policy(&policy, system_time(now))
        .map_err(|e| pgp_error(what, &e, "ask its owner for a current certificate"))?;
    let encryption = peer.encryption_keys(what, now).is_ok();
    let signing = valid
        .keys()
        .alive()
        .revoked(false)
        .for_signing()
        .any(|ka| is_post_quantum(ka.key().pk_algo()));
    if !encryption && !signing {
        let mut has: Vec<String> = valid
            .keys()
            .map(|ka| algorithm_name(ka.key().pk_algo()))
            .collect();
        has.sort();
        has.dedup();
        return Err(Error::check(
            format!(
                "{what}: the OpenPGP certificate has no post-quantum key in use (it has {})",
                has.join(", ")
            ),
            "nexusq keeps OpenPGP certificates with an ML-KEM-768+X25519 encryption subkey or \
             an RFC 9980 signing key (ML-DSA, SLH-DSA); ask its owner for a post-quantum \
             certificate (sq key generate --profile rfc9580 --cipher-suite mldsa65)",
        ));
    }
    Ok(Offers {
        encryption,
        signing,
    })
}

/// A certificate given to update a contact: one certificate, public parts only, at most
/// [`MAX_CERT_LEN`] bytes (armored or binary). Unlike
/// [`crate::format::openpgp::cert::parse`] it may be expired or revoked, or be a bare
/// revocation certificate: whatever it brings is merged into what the book has, and only
/// what verifies counts when the certificate is used.
pub fn read_update(bytes: &[u8], what: &str) -> Result<Cert> {
    crate::format::openpgp::cert::read_one(bytes, what)
}

/// What merging a certificate into a contact changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenPgpMerge {
    /// Keys (subkeys) the book did not hold before.
    pub keys_added: usize,
    /// User IDs the book did not hold before.
    pub user_ids_added: usize,
    /// Signatures (bindings, revocations, certifications) the book did not hold before.
    pub signatures_added: usize,
    /// Components (the certificate, a subkey, a user ID) revoked, under Sequoia's standard
    /// policy, after the merge but not before.
    pub revocations_added: usize,
    /// The certificate's own revocation, when the merge brought it.
    pub revoked_now: Option<Revocation>,
}

impl OpenPgpMerge {
    /// Did the merge add anything?
    pub fn changed(&self) -> bool {
        self.keys_added + self.user_ids_added + self.signatures_added > 0
    }
}

/// A revocation of the whole certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Revocation {
    /// When it was made (Unix seconds; 0 when it does not say).
    pub created: u64,
    /// The reason it gives, as "code: text" (text from its owner: escape before printing).
    pub reason: String,
}

/// Merge `incoming` into the stored certificate `known`. Another primary key is refused as a
/// fork of the contact (exit 1); the same one is merged with [`Cert::merge_public`], which
/// never drops a key, a user ID or a signature. A self-signature of `incoming` equivalent to
/// one the book holds and that verifies (same component, type, algorithms and hashed
/// subpackets: the same statement signed again, as every new export of a certificate made
/// with randomized signatures is) is not added a second time, so that updates with fresh
/// copies do not grow the contact. Returns the bytes to store.
pub fn merge(known: &[u8], incoming: &Cert, now: u64) -> Result<(Vec<u8>, OpenPgpMerge)> {
    let known = decode(known).map_err(|e| {
        Error::check(
            format!("the contact's OpenPGP certificate is unreadable: {}", e.0),
            "remove the contact and add it again",
        )
    })?;
    let known_fp = known.fingerprint();
    let incoming_fp = incoming.fingerprint();
    if incoming_fp != known_fp {
        return Err(Error::check(
            format!(
                "this is a different OpenPGP certificate: its primary key fingerprint is {}, \
                 the contact's is {}",
                crate::format::openpgp::keys::display(&incoming_fp),
                crate::format::openpgp::keys::display(&known_fp)
            ),
            "a contact's primary key never changes; if this person really has a new \
             certificate, add it under a new name after checking its fingerprint",
        )
        .suggests(crate::error::Step::AddContact));
    }
    let incoming = without_repeats(&known, incoming).map_err(|e| {
        pgp_error(
            "could not merge the OpenPGP certificate",
            &e,
            "the contact was left as it was; check the file",
        )
    })?;
    let merged = known.clone().merge_public(incoming).map_err(|e| {
        pgp_error(
            "could not merge the OpenPGP certificate",
            &e,
            "the contact was left as it was; check the file",
        )
    })?;
    let bytes = encode(&merged)?;

    let key_fps = |c: &Cert| -> BTreeSet<Fingerprint> {
        c.keys().subkeys().map(|k| k.key().fingerprint()).collect()
    };
    let user_ids = |c: &Cert| -> BTreeSet<Vec<u8>> {
        c.userids().map(|u| u.userid().value().to_vec()).collect()
    };
    let before_keys = key_fps(&known);
    let before_uids = user_ids(&known);
    let before_sigs = signatures(&known);
    let keys_added = key_fps(&merged).difference(&before_keys).count();
    let user_ids_added = user_ids(&merged).difference(&before_uids).count();
    let signatures_added = signatures(&merged)
        .iter()
        .filter(|s| !before_sigs.iter().any(|k| k.mpis() == s.mpis()))
        .count();
    let was_revoked = revocation(&known, now);
    let revoked_now = match (&was_revoked, revocation(&merged, now)) {
        (None, Some(r)) => Some(r),
        _ => None,
    };
    let revocations_added = usize::from(revoked_now.is_some())
        + revoked_parts(&merged, now).saturating_sub(revoked_parts(&known, now));
    Ok((
        bytes,
        OpenPgpMerge {
            keys_added,
            user_ids_added,
            signatures_added,
            revocations_added,
            revoked_now,
        },
    ))
}

/// The component a signature packet follows in a certificate's packets.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Primary,
    UserId(Vec<u8>),
    Subkey(Fingerprint),
    Other,
}

/// The certificate's packets, each with the component it is or follows.
fn parts(cert: &Cert) -> Vec<(Part, Packet)> {
    let mut part = Part::Other;
    cert.clone()
        .into_packets()
        .map(|p| {
            match &p {
                Packet::PublicKey(_) => part = Part::Primary,
                Packet::UserID(u) => part = Part::UserId(u.value().to_vec()),
                Packet::PublicSubkey(k) => part = Part::Subkey(k.fingerprint()),
                Packet::Signature(_) => {}
                _ => part = Part::Other,
            }
            (part.clone(), p)
        })
        .collect()
}

/// Do two signatures make the same statement? Only their randomness, salt, unhashed
/// subpackets and embedded signatures (a subkey's back-signature, itself made afresh) may
/// differ.
fn same_statement(a: &Signature, b: &Signature) -> bool {
    let hashed = |s: &Signature| -> Vec<pgp::packet::signature::subpacket::Subpacket> {
        s.hashed_area()
            .iter()
            .filter(|p| p.tag() != SubpacketTag::EmbeddedSignature)
            .cloned()
            .collect()
    };
    a.version() == b.version()
        && a.typ() == b.typ()
        && a.pk_algo() == b.pk_algo()
        && a.hash_algo() == b.hash_algo()
        && hashed(a) == hashed(b)
}

/// Does `sig`, a self-signature over `part` of `cert`, verify?
fn self_signature_verifies(cert: &Cert, part: &Part, sig: &Signature) -> bool {
    use pgp::types::SignatureType::*;
    let pk = cert.primary_key().key();
    match (part, sig.typ()) {
        (Part::Primary, DirectKey) => sig.verify_direct_key(pk, pk).is_ok(),
        (Part::Primary, KeyRevocation) => sig.verify_primary_key_revocation(pk, pk).is_ok(),
        (
            Part::UserId(uid),
            GenericCertification
            | PersonaCertification
            | CasualCertification
            | PositiveCertification,
        ) => sig
            .verify_userid_binding(pk, pk, &pgp::packet::UserID::from(uid.clone()))
            .is_ok(),
        (Part::UserId(uid), CertificationRevocation) => sig
            .verify_userid_revocation(pk, pk, &pgp::packet::UserID::from(uid.clone()))
            .is_ok(),
        (Part::Subkey(fp), SubkeyBinding | SubkeyRevocation) => {
            let Some(ka) = cert.keys().subkeys().find(|k| k.key().fingerprint() == *fp) else {
                return false;
            };
            if sig.typ() == SubkeyBinding {
                sig.verify_subkey_binding(pk, pk, ka.key()).is_ok()
            } else {
                sig.verify_subkey_revocation(pk, pk, ka.key()).is_ok()
            }
        }
        _ => false,
    }
}

/// `incoming` without the self-signatures that repeat, on the same component, a statement of
/// `known` whose signature verifies (see [`merge`]). Everything else is kept.
fn without_repeats(known: &Cert, incoming: &Cert) -> pgp::Result<Cert> {
    let known_sigs: Vec<(Part, Signature)> = parts(known)
        .into_iter()
        .filter_map(|(part, p)| match p {
            Packet::Signature(s) if part != Part::Other => Some((part, s)),
            _ => None,
        })
        .collect();
    let kept = parts(incoming).into_iter().filter_map(|(part, p)| {
        if let Packet::Signature(s) = &p
            && known_sigs.iter().any(|(kp, ks)| {
                *kp == part && same_statement(ks, s) && self_signature_verifies(known, kp, ks)
            })
        {
            return None;
        }
        Some(p)
    });
    Cert::from_packets(kept.collect::<Vec<_>>().into_iter())
}

/// Every signature packet of the certificate (including any Sequoia set aside as not
/// belonging to a component: they are stored too).
fn signatures(cert: &Cert) -> Vec<Signature> {
    cert.clone()
        .into_packets()
        .filter_map(|p| match p {
            Packet::Signature(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// How many subkeys and user IDs are revoked now, under the standard policy.
fn revoked_parts(cert: &Cert, now: u64) -> usize {
    let policy = StandardPolicy::new();
    let t = system_time(now);
    let keys = cert
        .keys()
        .subkeys()
        .filter(|k| {
            matches!(
                k.revocation_status(&policy, t),
                RevocationStatus::Revoked(_)
            )
        })
        .count();
    let uids = cert
        .userids()
        .filter(|u| {
            matches!(
                u.revocation_status(&policy, t),
                RevocationStatus::Revoked(_)
            )
        })
        .count();
    keys + uids
}

/// The certificate's own revocation in force now, under the standard policy.
pub fn revocation(cert: &Cert, now: u64) -> Option<Revocation> {
    let policy = StandardPolicy::new();
    let RevocationStatus::Revoked(sigs) = cert.revocation_status(&policy, system_time(now)) else {
        return None;
    };
    let sig = sigs.first()?;
    let reason = match sig.reason_for_revocation() {
        Some((code, [])) => code.to_string(),
        Some((code, text)) => format!("{code}: {}", String::from_utf8_lossy(text)),
        None => String::new(),
    };
    Some(Revocation {
        created: sig.signature_creation_time().map(unix_time).unwrap_or(0),
        reason,
    })
}

/// A name for a public-key algorithm as RFC 9980 writes it.
pub fn algorithm_name(algo: PublicKeyAlgorithm) -> String {
    match algo {
        PublicKeyAlgorithm::SLHDSA128s => "SLH-DSA-SHAKE-128s".into(),
        PublicKeyAlgorithm::SLHDSA128f => "SLH-DSA-SHAKE-128f".into(),
        PublicKeyAlgorithm::SLHDSA256s => "SLH-DSA-SHAKE-256s".into(),
        other => other.to_string(),
    }
}

/// Is this an RFC 9980 algorithm (a post-quantum KEM or signature)?
pub fn is_post_quantum_algorithm(algo: PublicKeyAlgorithm) -> bool {
    is_post_quantum(algo)
        || matches!(
            algo,
            PublicKeyAlgorithm::MLKEM768_X25519 | PublicKeyAlgorithm::MLKEM1024_X448
        )
}

/// One key of a stored certificate, as `contacts show` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    /// The key's fingerprint.
    pub fingerprint: Fingerprint,
    /// The primary key (else a subkey).
    pub primary: bool,
    /// Its algorithm's name ([`algorithm_name`]).
    pub algorithm: String,
    /// An RFC 9980 algorithm ([`is_post_quantum_algorithm`]).
    pub post_quantum: bool,
    /// What its binding allows: "certify", "sign", "encrypt" (empty when it is not bound
    /// under the policy now).
    pub usage: Vec<&'static str>,
    /// Creation time (Unix seconds).
    pub created: u64,
    /// Expiry (Unix seconds), if its binding sets one.
    pub expires: Option<u64>,
    /// Revoked now.
    pub revoked: bool,
}

/// What the book knows about a stored certificate, for `contacts list` and `show`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The primary key fingerprint (the contact's pin).
    pub fingerprint: Fingerprint,
    /// The primary user ID, if any (text from its owner: escape before printing).
    pub user_id: Option<String>,
    /// The certificate's expiry (its primary key's), if it has one.
    pub expires: Option<u64>,
    /// Expired now.
    pub expired: bool,
    /// Its revocation in force now.
    pub revoked: Option<Revocation>,
    /// The primary key first, then every subkey bound under the policy now (every subkey, when
    /// the certificate is not valid under it).
    pub keys: Vec<KeyInfo>,
    /// Why the certificate is not valid under Sequoia's standard policy now, if it is not.
    pub invalid: Option<String>,
}

/// Describe a stored certificate (bytes the book decoded) as of `now`.
pub fn summary(payload: &[u8], now: u64) -> DecodeResult<Summary> {
    let cert = decode(payload)?;
    let policy = StandardPolicy::new();
    let t = system_time(now);
    let peer = PeerCert { cert: cert.clone() };
    let revoked = revocation(&cert, now);
    let mut keys = Vec::new();
    let (expires, expired, invalid) = match cert.with_policy(&policy, t) {
        Ok(valid) => {
            for ka in valid.keys() {
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
                let algo = ka.key().pk_algo();
                keys.push(KeyInfo {
                    fingerprint: ka.key().fingerprint(),
                    primary: ka.primary(),
                    algorithm: algorithm_name(algo),
                    post_quantum: is_post_quantum_algorithm(algo),
                    usage,
                    created: unix_time(ka.key().creation_time()),
                    expires: ka.key_expiration_time().map(unix_time),
                    revoked: matches!(ka.revocation_status(), RevocationStatus::Revoked(_)),
                });
            }
            let expires = valid.primary_key().key_expiration_time().map(unix_time);
            (expires, expires.is_some_and(|e| e <= now), None)
        }
        Err(e) => {
            for ka in cert.keys() {
                let algo = ka.key().pk_algo();
                keys.push(KeyInfo {
                    fingerprint: ka.key().fingerprint(),
                    primary: ka.primary(),
                    algorithm: algorithm_name(algo),
                    post_quantum: is_post_quantum_algorithm(algo),
                    usage: Vec::new(),
                    created: unix_time(ka.key().creation_time()),
                    expires: None,
                    revoked: false,
                });
            }
            let mut reason = e.to_string();
            for cause in e.chain().skip(1) {
                reason.push_str(": ");
                reason.push_str(&cause.to_string());
            }
            (None, false, Some(reason))
        }
    };
    Ok(Summary {
        fingerprint: cert.fingerprint(),
        user_id: peer.user_id(now),
        expires,
        expired,
        revoked,
        keys,
        invalid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contacts::format::{decode_body, encode_body};
    use crate::contacts::{Book, ContactFingerprint, ContactKey};
    use crate::error::ErrorKind;
    use crate::format::openpgp::cert;
    use crate::identity::rotation::{self, RotateOptions};
    use crate::identity::{NewIdentity, RootId};
    use crate::suite::rustcrypto::RustCrypto;

    const NOW: u64 = 1_780_000_000;

    fn identity() -> NewIdentity {
        NewIdentity::generate(&RustCrypto, NOW - 100)
    }

    /// The identity's OpenPGP certificate, as `identity export --openpgp` makes it.
    fn cert_of(id: &NewIdentity, uid: Option<&str>) -> Cert {
        cert::of_vault(&id.public, &id.secrets, id.keys.root(), &RustCrypto, uid).unwrap()
    }

    fn peer(c: &Cert) -> PeerCert {
        cert::parse(&cert::to_armor(c).unwrap().into_bytes(), "test", NOW).unwrap()
    }

    fn rotate(id: &mut NewIdentity, now: u64) {
        let opts = RotateOptions {
            validity_days: 30,
            ..Default::default()
        };
        rotation::rotate(
            &mut id.public,
            &mut id.secrets,
            &id.keys,
            &RustCrypto,
            now,
            &opts,
        )
        .unwrap();
    }

    #[test]
    fn a_book_with_an_openpgp_contact_round_trips_and_garbage_is_refused() {
        let id = identity();
        let c = cert_of(&id, Some("Bob <bob@example.org>"));
        let stored = encode(&c).unwrap();
        let mut book = Book::default();
        book.add("bob", ContactKey::OpenPgp(stored.clone()), true, NOW)
            .unwrap();
        book.add("carol", ContactKey::Age(vec![7; 1216]), false, NOW)
            .unwrap();
        // Bytes the book could not read back are refused when added.
        let e = book
            .clone()
            .add("eve", ContactKey::OpenPgp(b"junk".to_vec()), true, NOW)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed);
        let owner = RootId([9; 32]);
        let body = encode_body(&book, &owner, NOW);
        let (again, saved_at) = decode_body(&body).unwrap();
        assert_eq!(saved_at, NOW);
        assert_eq!(again, book);
        let bob = again.get("bob").unwrap();
        assert_eq!(
            bob.fingerprint(),
            ContactFingerprint::OpenPgp(c.fingerprint())
        );
        assert_eq!(bob.identity(), None);
        assert_eq!(bob.key.kind(), "openpgp");
        assert_eq!(again.by_openpgp(&c.fingerprint()).unwrap().name, "bob");
        // Decoding takes the certificate back whole.
        assert_eq!(decode(&stored).unwrap().fingerprint(), c.fingerprint());

        // Kind 3 with garbage, an armored certificate, a secret key or a truncated one: a
        // decode error, never a contact.
        let armored = cert::to_armor(&c).unwrap().into_bytes();
        let mut truncated = stored.clone();
        truncated.truncate(stored.len() / 2);
        let secret = {
            let (k, _) = CertBuilder::new()
                .set_cipher_suite(CipherSuite::Cv25519)
                .generate()
                .unwrap();
            k.as_tsk().to_vec().unwrap()
        };
        for (what, payload) in [
            ("garbage", vec![0xC6, 1, 2, 3]),
            ("not a packet", b"hello".to_vec()),
            ("armored", armored),
            ("truncated", truncated),
            ("secret", secret),
            ("too large", vec![0xC6; MAX_CERT_LEN + 1]),
        ] {
            let mut bad = book.clone();
            bad.contacts[0].key = ContactKey::OpenPgp(payload);
            let body = encode_body(&bad, &owner, NOW);
            assert!(decode_body(&body).is_err(), "{what} was read as a contact");
        }
    }

    #[test]
    fn a_stored_certificate_stays_readable_after_it_expires_or_is_revoked() {
        let mut id = identity();
        let stored = encode(&cert_of(&id, None)).unwrap();
        // Long after generation 1's subkeys expired: still decoded, and show says so.
        let later = NOW + 10 * 365 * 86_400;
        let s = summary(&stored, later).unwrap();
        assert!(
            s.keys
                .iter()
                .filter(|k| !k.primary)
                .all(|k| k.expires < Some(later))
        );
        // Revoked: refused for use, read and shown as revoked.
        id.public.revocations.push(id.revocation.clone());
        let revoked = cert_of(&id, None);
        let e = cert::parse(&cert::to_armor(&revoked).unwrap().into_bytes(), "r", NOW).unwrap_err();
        assert!(e.message().contains("revoked"), "{}", e.message());
        let stored = encode(&revoked).unwrap();
        decode(&stored).unwrap();
        assert!(summary(&stored, NOW).unwrap().revoked.is_some());
    }

    #[test]
    fn updates_merge_keep_every_subkey_and_refuse_another_primary() {
        let mut id = identity();
        let g1 = cert_of(&id, Some("Bob <bob@example.org>"));
        // The same certificate exported again: every signature made afresh.
        let g1_again = cert_of(&id, Some("Bob <bob@example.org>"));
        assert_ne!(
            g1.clone().to_vec().unwrap(),
            g1_again.clone().to_vec().unwrap()
        );
        rotate(&mut id, NOW - 50);
        let g2 = cert_of(&id, Some("Bob <bob@example.org>"));
        let subkeys = |c: &Cert| c.keys().subkeys().count();
        // Generation 2's certificate lacks generation 1's signing subkey.
        assert_eq!((subkeys(&g1), subkeys(&g2)), (2, 3));
        let mut book = Book::default();
        book.add("bob", ContactKey::OpenPgp(encode(&g1).unwrap()), true, NOW)
            .unwrap();
        let m = book.update_openpgp("bob", &g2, NOW + 1).unwrap();
        assert!(m.changed());
        assert_eq!(m.keys_added, 2);
        assert_eq!((m.revocations_added, m.revoked_now.clone()), (0, None));
        let ContactKey::OpenPgp(merged) = &book.get("bob").unwrap().key else {
            panic!("not an OpenPGP contact");
        };
        let merged = decode(merged).unwrap();
        assert_eq!(subkeys(&merged), 4, "every subkey seen is kept");
        assert_eq!(book.get("bob").unwrap().updated, NOW + 1);
        // The older copy again, or a fresh export of it: nothing new, nothing dropped, the
        // book does not grow.
        let size = |b: &Book| match &b.get("bob").unwrap().key {
            ContactKey::OpenPgp(c) => c.len(),
            _ => unreachable!(),
        };
        let before = size(&book);
        for again in [&g1, &g1_again, &g2] {
            let m = book.update_openpgp("bob", again, NOW + 2).unwrap();
            assert!(!m.changed(), "{m:?}");
        }
        assert_eq!(size(&book), before);
        assert_eq!(book.get("bob").unwrap().updated, NOW + 1);

        // Another primary key: a fork, exit 1, the contact as it was.
        let before = book.clone();
        let mallory = cert_of(&identity(), Some("Bob <bob@example.org>"));
        let e = book.update_openpgp("bob", &mallory, NOW + 3).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed);
        assert!(
            e.message().contains("different OpenPGP certificate"),
            "{e:?}"
        );
        assert_eq!(book, before);
        // A name holding another kind never turns into an OpenPGP contact, nor the reverse.
        book.add("carol", ContactKey::Age(vec![7; 1216]), true, NOW)
            .unwrap();
        let e = book.update_openpgp("carol", &g2, NOW).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        let e = book
            .add(
                "carol",
                ContactKey::OpenPgp(encode(&g2).unwrap()),
                true,
                NOW,
            )
            .unwrap_err();
        assert!(e.hint().contains("cannot turn into"), "{e:?}");
        let e = book.update("bob", &id.public, NOW).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        // The same certificate under a second name: refused.
        let e = book
            .add("bob2", ContactKey::OpenPgp(encode(&g1).unwrap()), true, NOW)
            .unwrap_err();
        assert!(e.message().contains("already in the book as bob"), "{e:?}");

        // The owner's revocation arrives: kept, reported, and it stays through older copies.
        id.public.revocations.push(id.revocation.clone());
        let revoked = cert_of(&id, None);
        let m = book.update_openpgp("bob", &revoked, NOW + 4).unwrap();
        assert!(m.revoked_now.is_some() && m.revocations_added >= 1, "{m:?}");
        let m = book.update_openpgp("bob", &g2, NOW + 5).unwrap();
        assert!(!m.changed());
        let ContactKey::OpenPgp(stored) = &book.get("bob").unwrap().key else {
            panic!("not an OpenPGP contact");
        };
        assert!(summary(stored, NOW + 5).unwrap().revoked.is_some());
    }

    #[test]
    fn what_a_certificate_offers_and_classical_ones_are_refused() {
        let c = cert_of(&identity(), None);
        assert_eq!(
            offers(&peer(&c), "ours", NOW).unwrap(),
            Offers {
                encryption: true,
                signing: true
            }
        );
        // Signing only: the primary and the signing subkey.
        let signing = c
            .clone()
            .retain_subkeys(|k| k.key().pk_algo() != PublicKeyAlgorithm::MLKEM768_X25519);
        assert_eq!(
            offers(&peer(&signing), "signing", NOW).unwrap(),
            Offers {
                encryption: false,
                signing: true
            }
        );
        // Classical keys only (Ed25519, X25519): refused with a hint.
        let (classical, _) = CertBuilder::new()
            .add_userid("Eve <eve@example.org>")
            .set_cipher_suite(CipherSuite::Cv25519)
            .set_creation_time(system_time(NOW - 1_000))
            .add_signing_subkey()
            .add_transport_encryption_subkey()
            .generate()
            .unwrap();
        let classical = peer(&classical.strip_secret_key_material());
        let e = offers(&classical, "eve.asc", NOW).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed);
        assert!(e.message().contains("no post-quantum key"), "{e:?}");
        assert!(e.message().contains("EdDSA"), "{e:?}");
        assert!(e.hint().contains("ML-KEM-768+X25519"), "{e:?}");
    }

    #[test]
    fn summaries_and_typed_fingerprints() {
        let id = identity();
        let c = cert_of(&id, Some("Bob \u{1b}[2J <bob@example.org>"));
        let s = summary(&encode(&c).unwrap(), NOW).unwrap();
        assert_eq!(s.fingerprint, c.fingerprint());
        assert_eq!(
            s.user_id.as_deref(),
            Some("Bob \u{1b}[2J <bob@example.org>")
        );
        assert!(s.revoked.is_none() && !s.expired && s.invalid.is_none());
        let primary = &s.keys[0];
        assert!(primary.primary && primary.post_quantum);
        assert_eq!(primary.algorithm, "SLH-DSA-SHAKE-128f");
        let mut algos: Vec<&str> = s.keys[1..].iter().map(|k| k.algorithm.as_str()).collect();
        algos.sort();
        assert_eq!(algos, ["ML-DSA-65+Ed25519", "ML-KEM-768+X25519"]);
        assert!(s.keys.iter().all(|k| k.created == NOW - 100));
        assert!(s.keys[1..].iter().all(|k| k.expires.is_some()));
        // Certificates and secret keys are told from nexusq exports.
        let armor = cert::to_armor(&c).unwrap();
        assert!(looks_like_openpgp_key(armor.as_bytes()));
        assert!(looks_like_openpgp_key(&encode(&c).unwrap()));
        assert!(looks_like_openpgp_key(
            b"\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n"
        ));
        assert!(looks_like_openpgp_key(&[0xC5, 0x01]));
        assert!(!looks_like_openpgp_key(
            b"-----BEGIN NEXUSQ PUBLIC IDENTITY-----\n"
        ));
        // Typed: grouped or not, any case; v4 is 40 digits; anything else a usage error.
        let hex = c.fingerprint().to_hex();
        let grouped = crate::format::openpgp::keys::display(&c.fingerprint());
        assert_eq!(parse_fingerprint(&grouped).unwrap(), c.fingerprint());
        assert_eq!(
            parse_fingerprint(&hex.to_lowercase()).unwrap(),
            c.fingerprint()
        );
        parse_fingerprint(&"AB".repeat(20)).unwrap();
        for bad in [
            "",
            "abcd",
            &hex[..62],
            &format!("{hex}00"),
            &"zz".repeat(32),
        ] {
            let e = parse_fingerprint(bad).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Usage);
        }
        // The contact's fingerprint is shown grouped, and plain in --json.
        let fp = ContactFingerprint::OpenPgp(c.fingerprint());
        assert_eq!(fp.to_string(), grouped);
        assert_eq!(fp.plain(), hex);
    }
}

//! OpenPGP (docs/openpgp.md): the identity as an RFC 9980 post-quantum certificate on a v6 key
//! (RFC 9580), messages encrypted to it and detached signatures made with it.
//!
//! The certificate is a view of the identity, never a second one: its primary key is the
//! SLH-DSA-SHAKE-128f root (the same 32 public bytes), each generation that still decrypts
//! gives an ML-KEM-768 + X25519 encryption subkey (algorithm 35) made of its X-Wing key's two
//! halves, and the current generation an ML-DSA-65 + Ed25519 signing subkey (algorithm 30).
//! ML-KEM-1024 + X25519 has no OpenPGP code point and is not exported. Every key's creation
//! time comes from the certificates the vault holds, so the fingerprints never change.
//!
//! Sequoia parses and writes the packets, checks signatures and runs SEIPD v2; our keys sign
//! and decapsulate through the suite (the agent's or the vault's), with RFC 9980's combiner
//! ([`crate::suite::hybrid_kem::OPENPGP_LABEL`]) and signature forms
//! ([`crate::suite::hybrid_sig::sign_openpgp`]). Why no nexusq signature or key-encryption key
//! can be taken for an OpenPGP one, or the reverse: docs/security.md, "OpenPGP".
//!
//! - [`keys`]: the key packets of an identity, and the signers the library hands Sequoia.
//! - [`cert`]: our certificate built and exported; other people's read and checked.
//! - [`message`]: encrypt to certificates, decrypt with our keys (streaming, authenticated).
//! - [`signature`]: detached signatures made and verified.

pub mod book;
pub mod cert;
pub mod keys;
pub mod message;
pub mod signature;

pub use sequoia_openpgp::Fingerprint;

use crate::error::Error;
use sequoia_openpgp::types::PublicKeyAlgorithm;

/// Longest OpenPGP certificate or signature file read whole (a certificate with sixteen
/// generations and its revocations is under 100 KiB).
pub const MAX_CERT_LEN: usize = 1 << 20;

/// Armor header of an OpenPGP message.
pub(crate) const MESSAGE_ARMOR: &str = "-----BEGIN PGP MESSAGE-----";
/// Armor header of an OpenPGP certificate.
pub(crate) const CERT_ARMOR: &str = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
/// Armor header of an OpenPGP signature.
pub(crate) const SIGNATURE_ARMOR: &str = "-----BEGIN PGP SIGNATURE-----";

/// Does `prefix` start an armored block with this header (after leading whitespace)?
pub(crate) fn starts_armor(prefix: &[u8], header: &str) -> bool {
    let start = prefix
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(prefix.len());
    prefix[start..].starts_with(header.as_bytes())
}

/// The packet tag of a binary OpenPGP packet header's first byte (RFC 9580 section 4.2), old
/// or new format; `None` when the byte cannot start a packet.
pub(crate) fn packet_tag(first: u8) -> Option<u8> {
    if first & 0x80 == 0 {
        None
    } else if first & 0x40 != 0 {
        Some(first & 0x3f)
    } else {
        Some((first >> 2) & 0x0f)
    }
}

/// Does this input start an OpenPGP message, armored or binary: a PKESK (1), SKESK (3), a
/// marker (10) or an encrypted-data packet (18, 20)?
pub(crate) fn looks_like_message(prefix: &[u8]) -> bool {
    starts_armor(prefix, MESSAGE_ARMOR)
        || prefix
            .first()
            .and_then(|b| packet_tag(*b))
            .is_some_and(|t| matches!(t, 1 | 3 | 10 | 18 | 20))
}

/// Does this input start an OpenPGP certificate, armored or binary (a public-key packet)?
pub fn looks_like_cert(prefix: &[u8]) -> bool {
    starts_armor(prefix, CERT_ARMOR)
        || prefix
            .first()
            .and_then(|b| packet_tag(*b))
            .is_some_and(|t| t == 6)
}

/// Does this input start an OpenPGP signature, armored or binary (a signature packet)?
pub fn looks_like_signature(prefix: &[u8]) -> bool {
    starts_armor(prefix, SIGNATURE_ARMOR)
        || prefix
            .first()
            .and_then(|b| packet_tag(*b))
            .is_some_and(|t| t == 2)
}

/// Sequoia's error as ours: what failed in `what`, with Sequoia's reason and its causes on
/// one line (escaped by the caller before it reaches a terminal: it may quote the input).
pub(crate) fn pgp_error(what: &str, e: &anyhow::Error, hint: &str) -> Error {
    let mut reason = e.to_string();
    for cause in e.chain().skip(1) {
        reason.push_str(": ");
        reason.push_str(&cause.to_string());
    }
    Error::check(format!("{what}: {reason}"), hint)
}

/// Seconds since the epoch as the `SystemTime` Sequoia takes.
pub(crate) fn system_time(unix: u64) -> std::time::SystemTime {
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix)
}

/// A `SystemTime` as seconds since the epoch (0 before it).
pub(crate) fn unix_time(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The algorithms RFC 9980 defines for signatures: the only ones `verify` accepts, and
/// what makes a certificate post-quantum.
pub(crate) fn is_post_quantum(algo: PublicKeyAlgorithm) -> bool {
    matches!(
        algo,
        PublicKeyAlgorithm::MLDSA65_Ed25519
            | PublicKeyAlgorithm::MLDSA87_Ed448
            | PublicKeyAlgorithm::SLHDSA128s
            | PublicKeyAlgorithm::SLHDSA128f
            | PublicKeyAlgorithm::SLHDSA256s
    )
}

#[cfg(test)]
mod tests;

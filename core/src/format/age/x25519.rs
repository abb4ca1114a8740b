//! The classic `X25519` recipient stanza, decrypt-only (nexusq encrypts post-quantum only):
//!
//! ```text
//! -> X25519 <base64 ephemeral share, 32 bytes>
//! <base64 body: ChaCha20-Poly1305(wrap key, nonce 0, file key), 32 bytes>
//! ```
//!
//! wrap key = HKDF-SHA-256(ikm = X25519(identity, share), salt = share || recipient,
//! info = "age-encryption.org/v1/X25519").

use super::error::AgeError;
use super::stanza::{Stanza, decode_b64};
use super::{FILE_KEY_LEN, FileKey};
use crate::secret::SecretBytes;
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Nonce, Tag};
use hkdf::Hkdf;
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// The stanza tag of a classic X25519 recipient.
pub(crate) const TAG: &str = "X25519";
const INFO: &[u8] = b"age-encryption.org/v1/X25519";
const BODY_LEN: usize = FILE_KEY_LEN + 16;

/// The structural rules: one argument, canonical base64 of 32 bytes; a 32-byte body.
pub fn check(stanza: &Stanza) -> Result<[u8; 32], AgeError> {
    let [share] = stanza.args.as_slice() else {
        return Err(AgeError::Header(
            "an X25519 stanza must have exactly one argument after its type",
        ));
    };
    let share: [u8; 32] = decode_b64(share.as_bytes())
        .and_then(|s| s.try_into().ok())
        .ok_or(AgeError::Header(
            "an X25519 stanza's share is not canonical base64 of 32 bytes",
        ))?;
    if stanza.body.len() != BODY_LEN {
        return Err(AgeError::Header("an X25519 stanza's body is not 32 bytes"));
    }
    Ok(share)
}

/// The recipient (public key) of an X25519 identity.
pub fn public_key(identity: &SecretBytes<32>) -> [u8; 32] {
    x25519_dalek::x25519(*identity.expose(), x25519_dalek::X25519_BASEPOINT_BYTES)
}

/// Try to unwrap with the X25519 identity. `Ok(None)`: not for this key.
pub fn unwrap(identity: &SecretBytes<32>, stanza: &Stanza) -> Result<Option<FileKey>, AgeError> {
    let share = check(stanza)?;
    let mut ss = SecretBytes::<32>::zero();
    *ss.expose_mut() = x25519_dalek::x25519(*identity.expose(), share);
    if bool::from(ss.expose().ct_eq(&[0u8; 32])) {
        return Err(AgeError::Header(
            "an X25519 stanza's share gives the all-zero secret (low-order point)",
        ));
    }
    let mut salt = [0u8; 64];
    salt[..32].copy_from_slice(&share);
    salt[32..].copy_from_slice(&public_key(identity));
    let mut key = SecretBytes::<32>::zero();
    Hkdf::<Sha256>::new(Some(&salt), ss.expose())
        .expand(INFO, key.expose_mut())
        .expect("32 bytes");
    let mut file_key = FileKey(SecretBytes::zero());
    file_key
        .0
        .expose_mut()
        .copy_from_slice(&stanza.body[..FILE_KEY_LEN]);
    let tag = Tag::try_from(&stanza.body[FILE_KEY_LEN..]).expect("16 bytes");
    let opened = ChaCha20Poly1305::new_from_slice(key.expose())
        .expect("32-byte key")
        .decrypt_inout_detached(
            &Nonce::from([0u8; 12]),
            &[],
            (&mut file_key.0.expose_mut()[..]).into(),
            &tag,
        );
    Ok(opened.is_ok().then_some(file_key))
}

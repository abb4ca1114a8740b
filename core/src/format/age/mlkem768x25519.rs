//! The `mlkem768x25519` recipient stanza (C2SP age.md, "The MLKEM768-X25519 (i.e. X-Wing)
//! hybrid post-quantum recipient type"):
//!
//! ```text
//! -> mlkem768x25519 <base64 enc, 1120 bytes>
//! <base64 body: HPKE ciphertext of the 16-byte file key, 32 bytes>
//! ```
//!
//! The file key is sealed with HPKE base mode, KEM X-Wing, HKDF-SHA256, ChaCha20Poly1305,
//! info `age-encryption.org/mlkem768x25519`, empty aad.

use super::error::AgeError;
use super::hpke;
use super::stanza::{Stanza, decode_b64, encode_b64};
use super::{FILE_KEY_LEN, FileKey};
use crate::secret::SecretBytes;
use crate::suite::backend::Backend;
use crate::suite::hybrid_kem::{Decapsulate, KemError};

/// The stanza tag.
pub(crate) const TAG: &str = "mlkem768x25519";
/// HPKE `info` of the stanza's seal.
pub(crate) const INFO: &[u8] = b"age-encryption.org/mlkem768x25519";
/// The body: the sealed file key and its tag.
pub(crate) const BODY_LEN: usize = FILE_KEY_LEN + hpke::TAG_LEN;

/// Wrap `file_key` to the X-Wing public key `pk` (1216 bytes).
pub fn wrap(backend: &dyn Backend, pk: &[u8], file_key: &FileKey) -> Result<Stanza, KemError> {
    let (enc, body) = hpke::seal_base(backend, pk, INFO, b"", file_key.0.expose())?;
    Ok(Stanza {
        tag: TAG.into(),
        args: vec![encode_b64(&enc)],
        body,
    })
}

/// The structural rules, checked for every stanza with this tag before any key is tried:
/// exactly one argument after the tag, canonical base64 of 1120 bytes; a 32-byte body.
pub fn check(stanza: &Stanza) -> Result<Vec<u8>, AgeError> {
    let [enc] = stanza.args.as_slice() else {
        return Err(AgeError::Header(
            "an mlkem768x25519 stanza must have exactly one argument after its type",
        ));
    };
    let enc = decode_b64(enc.as_bytes())
        .filter(|e| e.len() == hpke::ENC_LEN)
        .ok_or(AgeError::Header(
            "an mlkem768x25519 stanza's enc is not canonical base64 of 1120 bytes",
        ))?;
    if stanza.body.len() != BODY_LEN {
        return Err(AgeError::Header(
            "an mlkem768x25519 stanza's body is not 32 bytes",
        ));
    }
    Ok(enc)
}

/// Try to unwrap with the X-Wing decapsulation key `key`. `Ok(None)`: not for this key. An
/// all-zero X25519 shared secret is a header failure, as the spec requires.
pub fn unwrap(key: &dyn Decapsulate, stanza: &Stanza) -> Result<Option<FileKey>, AgeError> {
    let enc = check(stanza)?;
    match hpke::open_base(key, &enc, INFO, b"", &stanza.body) {
        Ok(Some(pt)) => Ok(Some(FileKey(
            SecretBytes::from_slice(&pt).expect("a 32-byte body opens to 16 bytes"),
        ))),
        Ok(None) => Ok(None),
        Err(KemError::ZeroX25519Secret) => Err(AgeError::Header(
            "an mlkem768x25519 stanza's X25519 share gives the all-zero secret (low-order point)",
        )),
        Err(_) => Err(AgeError::Header(
            "an mlkem768x25519 stanza's enc was refused by the KEM",
        )),
    }
}

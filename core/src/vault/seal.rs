//! Sealing the vault's secret sections: AEAD key = HKDF-SHA-256(K, seal_salt, label),
//! AES-256-GCM with the header bytes as associated data.

use crate::secret::SecretBytes;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

/// AES-GCM nonce length.
pub(crate) const NONCE_LEN: usize = 12;
/// AES-GCM tag length, appended to each ciphertext.
pub(crate) const TAG_LEN: usize = 16;
/// HKDF info of the secret section's key.
pub(crate) const SECRET_LABEL: &[u8] = b"nexusq/vault/v1";
/// HKDF info of the root section's key.
pub(crate) const ROOT_LABEL: &[u8] = b"nexusq/vault-root/v1";

/// HKDF-SHA-256(ikm = K, salt = seal_salt, info = label) -> 32-byte AEAD key.
pub(crate) fn derive_key(
    k: &SecretBytes<32>,
    seal_salt: &[u8; 32],
    label: &[u8],
) -> SecretBytes<32> {
    let mut out = SecretBytes::<32>::zero();
    Hkdf::<Sha256>::new(Some(seal_salt), k.expose())
        .expand(label, out.expose_mut())
        .expect("32 bytes is a valid HKDF-SHA-256 output length");
    out
}

fn cipher(key: &SecretBytes<32>) -> Aes256Gcm {
    Aes256Gcm::new_from_slice(key.expose()).expect("32-byte key")
}

/// AES-256-GCM: `plaintext` sealed under `key` and `nonce` with `aad` as associated data; the
/// 16-byte tag is appended.
pub fn seal(
    key: &SecretBytes<32>,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    plaintext: &[u8],
) -> Vec<u8> {
    cipher(key)
        .encrypt(
            &Nonce::from(*nonce),
            Payload {
                msg: plaintext,
                aad,
            },
        )
        .expect("AES-GCM encryption of a small buffer cannot fail")
}

/// `None` when the tag does not verify: wrong key, or altered ciphertext or header.
pub fn open(
    key: &SecretBytes<32>,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    ciphertext: &[u8],
) -> Option<Zeroizing<Vec<u8>>> {
    cipher(key)
        .decrypt(
            &Nonce::from(*nonce),
            Payload {
                msg: ciphertext,
                aad,
            },
        )
        .ok()
        .map(Zeroizing::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wycheproof AES-256-GCM vectors (12-byte IVs, 16-byte tags) through `seal` / `open`.
    #[test]
    fn wycheproof_aes256_gcm() {
        nexusq_testkit::skip_without_vectors!();
        let path = nexusq_testkit::vector_path("wycheproof/aes_gcm_test.json");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut checked = 0;
        for group in v["testGroups"].as_array().unwrap() {
            if group["ivSize"] != 96 || group["tagSize"] != 128 || group["keySize"] != 256 {
                continue;
            }
            for t in group["tests"].as_array().unwrap() {
                let h = |k: &str| hex::decode(t[k].as_str().unwrap()).unwrap();
                let key = SecretBytes::<32>::from_slice(&h("key")).unwrap();
                let nonce: [u8; 12] = h("iv").try_into().unwrap();
                let mut ct = h("ct");
                ct.extend(h("tag"));
                let opened = open(&key, &nonce, &h("aad"), &ct);
                if t["result"] == "invalid" {
                    assert!(opened.is_none(), "tcId {}", t["tcId"]);
                } else {
                    assert_eq!(
                        opened.as_deref().map(|v| v.as_slice()),
                        Some(&h("msg")[..]),
                        "tcId {}",
                        t["tcId"]
                    );
                    assert_eq!(seal(&key, &nonce, &h("aad"), &h("msg")), ct);
                }
                checked += 1;
            }
        }
        assert!(checked > 50, "only {checked} vectors checked");
    }

    #[test]
    fn labels_give_independent_keys() {
        let k = SecretBytes::<32>::random();
        let salt = [7u8; 32];
        assert_ne!(
            derive_key(&k, &salt, SECRET_LABEL).expose(),
            derive_key(&k, &salt, ROOT_LABEL).expose()
        );
    }
}

//! ML-DSA-65 + Ed25519 composite signature keys (draft-ietf-lamps-pq-composite-sigs,
//! id-MLDSA65-Ed25519-SHA512). Secrets are the ML-DSA seed xi and the 32-byte Ed25519 secret.
//! Public key = ML-DSA-65 verifying key (1952) || Ed25519 public key (32), as the draft encodes it.

use super::backend::Backend;
use crate::secret::SecretBytes;

pub const PUBLIC_KEY_LEN: usize = 1952 + 32;

pub fn public_key(
    backend: &dyn Backend,
    mldsa_xi: &SecretBytes<32>,
    ed25519: &SecretBytes<32>,
) -> Vec<u8> {
    let mut pk = backend.mldsa65_keygen(mldsa_xi.expose());
    let ed = ed25519_dalek::SigningKey::from_bytes(ed25519.expose());
    pk.extend_from_slice(ed.verifying_key().as_bytes());
    pk
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::rustcrypto::RustCrypto;

    #[test]
    fn layout_and_determinism() {
        let xi = SecretBytes::<32>::random();
        let ed = SecretBytes::<32>::random();
        let pk = public_key(&RustCrypto, &xi, &ed);
        assert_eq!(pk.len(), PUBLIC_KEY_LEN);
        assert_eq!(pk, public_key(&RustCrypto, &xi, &ed));
    }
}

//! Hybrid KEM keys (DESIGN.md section 6): X-Wing (ML-KEM-768 + X25519) and the nexusq-specific
//! ML-KEM-1024 + X25519, both kept as one 32-byte seed and expanded the X-Wing way:
//! `SHAKE256(seed, 96)` = ML-KEM d (32) || ML-KEM z (32) || X25519 secret (32).
//! Public key = ML-KEM encapsulation key || X25519 public key.

use super::backend::Backend;
use crate::secret::SecretBytes;
use shake::Shake256;
use shake::{ExtendableOutput, Update, XofReader};

pub const XWING_PUBLIC_KEY_LEN: usize = 1184 + 32;
pub const MLKEM1024_X25519_PUBLIC_KEY_LEN: usize = 1568 + 32;

/// Which ML-KEM parameter set sits under the hybrid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KemLevel {
    MlKem768,
    MlKem1024,
}

/// The three secrets a hybrid KEM seed expands to.
pub struct ExpandedSeed {
    pub d: SecretBytes<32>,
    pub z: SecretBytes<32>,
    pub x25519: SecretBytes<32>,
}

pub fn expand_seed(seed: &SecretBytes<32>) -> ExpandedSeed {
    let mut xof = Shake256::default();
    xof.update(seed.expose());
    let mut reader = xof.finalize_xof();
    let mut out = ExpandedSeed {
        d: SecretBytes::zero(),
        z: SecretBytes::zero(),
        x25519: SecretBytes::zero(),
    };
    reader.read(out.d.expose_mut());
    reader.read(out.z.expose_mut());
    reader.read(out.x25519.expose_mut());
    out
}

/// The hybrid public key for `seed`.
pub fn public_key(backend: &dyn Backend, level: KemLevel, seed: &SecretBytes<32>) -> Vec<u8> {
    let e = expand_seed(seed);
    let mut pk = match level {
        KemLevel::MlKem768 => backend.mlkem768_keygen(e.d.expose(), e.z.expose()),
        KemLevel::MlKem1024 => backend.mlkem1024_keygen(e.d.expose(), e.z.expose()),
    };
    let x_secret = x25519_dalek::StaticSecret::from(*e.x25519.expose());
    pk.extend_from_slice(x25519_dalek::PublicKey::from(&x_secret).as_bytes());
    pk
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::rustcrypto::RustCrypto;

    fn unhex(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// The X-Wing draft's own vectors: our seed expansion and key layout give its public keys.
    #[test]
    fn xwing_public_keys_match_draft_vectors() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/vectors/xwing/test-vectors.json"
        );
        let text =
            std::fs::read_to_string(path).expect("../shared/vectors/xwing/test-vectors.json");
        let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        assert!(!cases.is_empty());
        for case in cases {
            let seed =
                SecretBytes::<32>::from_slice(&unhex(case["seed"].as_str().unwrap())).unwrap();
            let pk = public_key(&RustCrypto, KemLevel::MlKem768, &seed);
            assert_eq!(hex::encode(pk), case["pk"].as_str().unwrap());
        }
    }

    /// The `x-wing` crate as a second oracle, over random seeds.
    #[test]
    fn xwing_public_keys_match_x_wing_crate() {
        use x_wing::{Decapsulator as _, KeyExport as _};
        for _ in 0..20 {
            let seed = SecretBytes::<32>::random();
            let dk = x_wing::DecapsulationKey::from(*seed.expose());
            let ours = public_key(&RustCrypto, KemLevel::MlKem768, &seed);
            assert_eq!(ours, dk.encapsulation_key().to_bytes().to_vec());
        }
    }

    #[test]
    fn mlkem1024_public_key_layout() {
        let seed = SecretBytes::<32>::random();
        let pk = public_key(&RustCrypto, KemLevel::MlKem1024, &seed);
        assert_eq!(pk.len(), MLKEM1024_X25519_PUBLIC_KEY_LEN);
        assert_eq!(pk, public_key(&RustCrypto, KemLevel::MlKem1024, &seed));
    }
}

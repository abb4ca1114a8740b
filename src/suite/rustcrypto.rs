//! The default backend: RustCrypto's `ml-kem` and `ml-dsa`.

use super::backend::Backend;
use ml_dsa::{KeyExport as _, MlDsa65, signature::Keypair as _};
use ml_kem::{DecapsulationKey, MlKem768, MlKem1024, Seed};
use zeroize::Zeroize;

pub struct RustCrypto;

fn seed64(d: &[u8; 32], z: &[u8; 32]) -> Seed {
    let mut seed = Seed::default();
    seed[..32].copy_from_slice(d);
    seed[32..].copy_from_slice(z);
    seed
}

impl Backend for RustCrypto {
    fn name(&self) -> &'static str {
        "rustcrypto"
    }

    fn mlkem768_keygen(&self, d: &[u8; 32], z: &[u8; 32]) -> Vec<u8> {
        let mut seed = seed64(d, z);
        let dk = DecapsulationKey::<MlKem768>::from_seed(seed);
        seed.zeroize();
        dk.encapsulation_key().to_bytes().to_vec()
    }

    fn mlkem1024_keygen(&self, d: &[u8; 32], z: &[u8; 32]) -> Vec<u8> {
        let mut seed = seed64(d, z);
        let dk = DecapsulationKey::<MlKem1024>::from_seed(seed);
        seed.zeroize();
        dk.encapsulation_key().to_bytes().to_vec()
    }

    fn mldsa65_keygen(&self, xi: &[u8; 32]) -> Vec<u8> {
        let sk = ml_dsa::SigningKey::<MlDsa65>::from_seed(&(*xi).into());
        sk.verifying_key().to_bytes().to_vec()
    }
}

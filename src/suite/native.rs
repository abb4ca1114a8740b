//! The opt-in backend: ML-KEM from `nexusq-native` (its SIMD implementation is chosen at run
//! time). ML-DSA-65 is not in `nexusq-native` yet (issue 8), so this backend computes it with
//! RustCrypto's `ml-dsa`, exactly as the default backend does; `name()` says so.

use super::backend::{Backend, BackendError, KemLevel};
use super::rustcrypto::RustCrypto;
use crate::secret::SecretBytes;

pub struct Native;

// nexusq-native has one module per parameter set, so the three operations are stamped out
// per parameter set.
macro_rules! mlkem_ops {
    ($module:ident) => {
        pub(super) mod $module {
            use super::*;

            pub fn keygen(d: &[u8; 32], z: &[u8; 32]) -> Vec<u8> {
                nexusq_native::$module::keygen_internal(d, z)
                    .0
                    .as_bytes()
                    .to_vec()
            }

            pub fn encaps(
                ek: &[u8],
                m: &[u8; 32],
            ) -> Result<(Vec<u8>, SecretBytes<32>), BackendError> {
                let ek = nexusq_native::$module::EncapsulationKey::from_bytes(ek)
                    .map_err(|_| BackendError::InvalidEncapsulationKey)?;
                let (ct, ss) = nexusq_native::$module::encapsulate_internal(&ek, m);
                Ok((
                    ct.as_bytes().to_vec(),
                    SecretBytes::from_slice(ss.as_bytes()).expect("32-byte shared key"),
                ))
            }

            pub fn decaps(
                d: &[u8; 32],
                z: &[u8; 32],
                ct: &[u8],
            ) -> Result<SecretBytes<32>, BackendError> {
                let ct = nexusq_native::$module::Ciphertext::from_bytes(ct)
                    .map_err(|_| BackendError::InvalidCiphertext)?;
                let (_, dk) = nexusq_native::$module::keygen_internal(d, z);
                let ss = nexusq_native::$module::decapsulate(&dk, &ct);
                Ok(SecretBytes::from_slice(ss.as_bytes()).expect("32-byte shared key"))
            }
        }
    };
}

mod ops {
    use super::*;
    mlkem_ops!(mlkem768);
    mlkem_ops!(mlkem1024);
}

impl Backend for Native {
    fn name(&self) -> &'static str {
        "native"
    }

    fn caveat(&self) -> Option<&'static str> {
        Some(
            "the native backend's ML-DSA-65 is still RustCrypto's ml-dsa (nexusq-native has no \
             ML-DSA yet), so its ML-DSA rows compare RustCrypto with itself: their ratios show \
             the noise of this machine.",
        )
    }

    fn mlkem_keygen(&self, level: KemLevel, d: &[u8; 32], z: &[u8; 32]) -> Vec<u8> {
        match level {
            KemLevel::MlKem768 => ops::mlkem768::keygen(d, z),
            KemLevel::MlKem1024 => ops::mlkem1024::keygen(d, z),
        }
    }

    fn mlkem_encaps(
        &self,
        level: KemLevel,
        ek: &[u8],
        m: &[u8; 32],
    ) -> Result<(Vec<u8>, SecretBytes<32>), BackendError> {
        match level {
            KemLevel::MlKem768 => ops::mlkem768::encaps(ek, m),
            KemLevel::MlKem1024 => ops::mlkem1024::encaps(ek, m),
        }
    }

    fn mlkem_decaps(
        &self,
        level: KemLevel,
        d: &[u8; 32],
        z: &[u8; 32],
        ct: &[u8],
    ) -> Result<SecretBytes<32>, BackendError> {
        match level {
            KemLevel::MlKem768 => ops::mlkem768::decaps(d, z, ct),
            KemLevel::MlKem1024 => ops::mlkem1024::decaps(d, z, ct),
        }
    }

    // ML-DSA-65: RustCrypto until nexusq-native has it (issue 8).
    fn mldsa65_keygen(&self, xi: &[u8; 32]) -> Vec<u8> {
        RustCrypto.mldsa65_keygen(xi)
    }

    fn mldsa65_sign(
        &self,
        xi: &[u8; 32],
        msg: &[u8],
        ctx: &[u8],
        rnd: &[u8; 32],
    ) -> Result<Vec<u8>, BackendError> {
        RustCrypto.mldsa65_sign(xi, msg, ctx, rnd)
    }

    fn mldsa65_verify(&self, vk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
        RustCrypto.mldsa65_verify(vk, msg, ctx, sig)
    }
}

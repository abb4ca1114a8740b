//! The opt-in backend: ML-KEM, ML-DSA-65 and SLH-DSA-SHAKE-128f from `nexusq-native`, whose
//! SIMD implementation is chosen at run time. The bytes are the same as the default backend's.

use super::backend::{
    Backend, BackendError, KemLevel, MlDsaSigner, MlDsaSigningKey, MlKemDecapsKey,
    MlKemDecapsulator, SLHDSA_PUBLIC_KEY_LEN, SLHDSA_SEEDS_LEN,
};
use crate::secret::SecretBytes;
use nexusq_native::{mldsa65, slhdsa_shake128f};

/// The `native` backend (`--backend native`), over `nexusq-native`.
pub struct Native;

// nexusq-native has one module per parameter set, so the operations are stamped out per
// parameter set.
macro_rules! mlkem_ops {
    ($module:ident, $level:expr) => {
        pub(super) mod $module {
            use super::*;
            use nexusq_native::$module::{Ciphertext, DecapsulationKey, EncapsulationKey};

            /// nexusq-native's expanded key (dk_PKE || ek || H(ek) || z), zeroized on drop.
            struct Expanded(DecapsulationKey);

            impl MlKemDecapsulator for Expanded {
                fn encapsulation_key(&self) -> Vec<u8> {
                    self.0.encapsulation_key().as_bytes().to_vec()
                }

                fn decapsulate(&self, ct: &[u8]) -> Result<SecretBytes<32>, BackendError> {
                    let ct =
                        Ciphertext::from_bytes(ct).map_err(|_| BackendError::InvalidCiphertext)?;
                    let ss = nexusq_native::$module::decapsulate(&self.0, &ct);
                    Ok(SecretBytes::from_slice(ss.as_bytes()).expect("32-byte shared key"))
                }
            }

            pub fn expand(d: &[u8; 32], z: &[u8; 32]) -> MlKemDecapsKey {
                let (_, dk) = nexusq_native::$module::keygen_internal(d, z);
                MlKemDecapsKey::new($level, Expanded(dk))
            }

            pub fn encaps(
                ek: &[u8],
                m: &[u8; 32],
            ) -> Result<(Vec<u8>, SecretBytes<32>), BackendError> {
                let ek = EncapsulationKey::from_bytes(ek)
                    .map_err(|_| BackendError::InvalidEncapsulationKey)?;
                let (ct, ss) = nexusq_native::$module::encapsulate_internal(&ek, m);
                Ok((
                    ct.as_bytes().to_vec(),
                    SecretBytes::from_slice(ss.as_bytes()).expect("32-byte shared key"),
                ))
            }
        }
    };
}

mod ops {
    use super::*;
    mlkem_ops!(mlkem768, KemLevel::MlKem768);
    mlkem_ops!(mlkem1024, KemLevel::MlKem1024);
}

/// An ML-DSA-65 key expanded once: the native expanded key signs with the implementation that
/// made it (its NTT order), and zeroizes itself.
struct NativeSigner {
    vk: mldsa65::VerifyingKey,
    sk: mldsa65::ExpandedSigningKey,
}

impl MlDsaSigner for NativeSigner {
    fn verifying_key(&self) -> Vec<u8> {
        self.vk.as_bytes().to_vec()
    }

    fn sign(&self, msg: &[u8], ctx: &[u8], rnd: &[u8; 32]) -> Result<Vec<u8>, BackendError> {
        let sig = self
            .sk
            .sign(msg, ctx, rnd)
            .map_err(|_| BackendError::ContextTooLong)?;
        Ok(sig.as_bytes().to_vec())
    }
}

impl Backend for Native {
    fn name(&self) -> &'static str {
        "native"
    }

    fn mlkem_expand(&self, level: KemLevel, d: &[u8; 32], z: &[u8; 32]) -> MlKemDecapsKey {
        match level {
            KemLevel::MlKem768 => ops::mlkem768::expand(d, z),
            KemLevel::MlKem1024 => ops::mlkem1024::expand(d, z),
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

    fn mldsa65_keygen(&self, xi: &[u8; 32]) -> Vec<u8> {
        mldsa65::keygen_internal(xi).0.as_bytes().to_vec()
    }

    fn mldsa65_expand(&self, xi: &[u8; 32]) -> MlDsaSigningKey {
        let (vk, sk) = mldsa65::keygen_internal(xi);
        MlDsaSigningKey::new(NativeSigner {
            vk,
            sk: mldsa65::ExpandedSigningKey::new(&sk),
        })
    }

    fn mldsa65_verify(&self, vk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
        let (Ok(vk), Ok(sig)) = (
            mldsa65::VerifyingKey::from_bytes(vk),
            mldsa65::Signature::from_bytes(sig),
        ) else {
            return false;
        };
        mldsa65::verify(&vk, msg, ctx, &sig)
    }

    fn slhdsa_keygen(&self, seeds: &[u8; SLHDSA_SEEDS_LEN]) -> [u8; SLHDSA_PUBLIC_KEY_LEN] {
        slhdsa_keys(seeds).0.to_bytes()
    }

    fn slhdsa_sign(
        &self,
        seeds: &[u8; SLHDSA_SEEDS_LEN],
        msg: &[u8],
        ctx: &[u8],
        addrnd: Option<&[u8; 16]>,
    ) -> Result<Vec<u8>, BackendError> {
        let (_, sk) = slhdsa_keys(seeds);
        let sig = slhdsa_shake128f::sign(&sk, msg, ctx, addrnd)
            .map_err(|_| BackendError::ContextTooLong)?;
        Ok(sig.as_bytes().to_vec())
    }

    fn slhdsa_verify(&self, pk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
        let (Ok(vk), Ok(sig)) = (
            slhdsa_shake128f::VerifyingKey::from_bytes(pk),
            slhdsa_shake128f::Signature::from_bytes(sig),
        ) else {
            return false;
        };
        slhdsa_shake128f::verify(&vk, msg, ctx, &sig)
    }
}

/// slh_keygen_internal(SK.seed, SK.prf, PK.seed).
fn slhdsa_keys(
    seeds: &[u8; SLHDSA_SEEDS_LEN],
) -> (slhdsa_shake128f::VerifyingKey, slhdsa_shake128f::SigningKey) {
    let seed = |i: usize| seeds[16 * i..16 * (i + 1)].try_into().expect("16 bytes");
    slhdsa_shake128f::keygen_internal(seed(0), seed(1), seed(2))
}

/// The SIMD implementations of nexusq-native on this CPU, by name (for `doctor`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Implementations {
    /// The one chosen at run time.
    pub selected: &'static str,
    /// Every one this CPU can run.
    pub available: Vec<&'static str>,
}

/// The SIMD implementations `nexusq-native` selected and can run on this CPU.
pub fn implementations() -> Implementations {
    Implementations {
        selected: nexusq_native::selected().name(),
        available: nexusq_native::available()
            .into_iter()
            .map(|i| i.name())
            .collect(),
    }
}

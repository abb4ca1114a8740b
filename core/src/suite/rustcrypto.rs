//! The default backend: RustCrypto's `ml-kem`, `ml-dsa` and `slh-dsa`.

use super::backend::{
    Backend, BackendError, KemLevel, MlDsaSigner, MlDsaSigningKey, MlKemDecapsKey,
    MlKemDecapsulator, SLHDSA_PUBLIC_KEY_LEN, SLHDSA_SEEDS_LEN,
};
use crate::secret::SecretBytes;
use ml_dsa::{KeyExport as _, MlDsa65, signature::Keypair as _};
use ml_kem::{Decapsulate as _, DecapsulationKey, EncapsulationKey, MlKem768, MlKem1024, Seed};
use slh_dsa::Shake128f;
use zeroize::Zeroize;

/// The default backend (`--backend rustcrypto`), over the RustCrypto `ml-kem`, `ml-dsa` and
/// `slh-dsa` crates.
pub struct RustCrypto;

// ml-kem's parameter trait is private, so the operations are stamped out per parameter set by
// a macro instead of being generic.
macro_rules! mlkem_ops {
    ($module:ident, $P:ty, $level:expr) => {
        mod $module {
            use super::*;

            /// ml-kem's expanded key, which zeroizes itself on drop (its `zeroize` feature).
            struct Expanded(DecapsulationKey<$P>);

            impl MlKemDecapsulator for Expanded {
                fn encapsulation_key(&self) -> Vec<u8> {
                    self.0.encapsulation_key().to_bytes().to_vec()
                }

                fn decapsulate(&self, ct: &[u8]) -> Result<SecretBytes<32>, BackendError> {
                    let ct = ct.try_into().map_err(|_| BackendError::InvalidCiphertext)?;
                    let mut ss = self.0.decapsulate(&ct);
                    let out = SecretBytes::from_slice(&ss).expect("32-byte shared key");
                    ss.zeroize();
                    Ok(out)
                }
            }

            pub fn expand(d: &[u8; 32], z: &[u8; 32]) -> MlKemDecapsKey {
                let mut seed = Seed::default();
                seed[..32].copy_from_slice(d);
                seed[32..].copy_from_slice(z);
                let dk = DecapsulationKey::<$P>::from_seed(seed);
                seed.zeroize();
                MlKemDecapsKey::new($level, Expanded(dk))
            }

            pub fn encaps(
                ek: &[u8],
                m: &[u8; 32],
            ) -> Result<(Vec<u8>, SecretBytes<32>), BackendError> {
                let key = ek
                    .try_into()
                    .map_err(|_| BackendError::InvalidEncapsulationKey)?;
                let ek = EncapsulationKey::<$P>::new(&key)
                    .map_err(|_| BackendError::InvalidEncapsulationKey)?;
                let (ct, mut ss) = ek.encapsulate_deterministic(&(*m).into());
                let out = SecretBytes::from_slice(&ss).expect("32-byte shared key");
                ss.zeroize();
                Ok((ct.to_vec(), out))
            }
        }
    };
}

mlkem_ops!(mlkem768, MlKem768, KemLevel::MlKem768);
mlkem_ops!(mlkem1024, MlKem1024, KemLevel::MlKem1024);

/// ml-dsa's signing key: it holds the expanded form and zeroizes it on drop.
struct RustCryptoSigner(ml_dsa::SigningKey<MlDsa65>);

impl MlDsaSigner for RustCryptoSigner {
    fn verifying_key(&self) -> Vec<u8> {
        self.0.verifying_key().to_bytes().to_vec()
    }

    fn sign(&self, msg: &[u8], ctx: &[u8], rnd: &[u8; 32]) -> Result<Vec<u8>, BackendError> {
        let ctx_len = u8::try_from(ctx.len()).map_err(|_| BackendError::ContextTooLong)?;
        let sig = self
            .0
            .expanded_key()
            .sign_internal(&[&[0u8], &[ctx_len], ctx, msg], &(*rnd).into());
        Ok(sig.encode().to_vec())
    }
}

impl Backend for RustCrypto {
    fn name(&self) -> &'static str {
        "rustcrypto"
    }

    fn mlkem_expand(&self, level: KemLevel, d: &[u8; 32], z: &[u8; 32]) -> MlKemDecapsKey {
        match level {
            KemLevel::MlKem768 => mlkem768::expand(d, z),
            KemLevel::MlKem1024 => mlkem1024::expand(d, z),
        }
    }

    fn mlkem_encaps(
        &self,
        level: KemLevel,
        ek: &[u8],
        m: &[u8; 32],
    ) -> Result<(Vec<u8>, SecretBytes<32>), BackendError> {
        match level {
            KemLevel::MlKem768 => mlkem768::encaps(ek, m),
            KemLevel::MlKem1024 => mlkem1024::encaps(ek, m),
        }
    }

    fn mldsa65_keygen(&self, xi: &[u8; 32]) -> Vec<u8> {
        let sk = ml_dsa::SigningKey::<MlDsa65>::from_seed(&(*xi).into());
        sk.verifying_key().to_bytes().to_vec()
    }

    fn mldsa65_expand(&self, xi: &[u8; 32]) -> MlDsaSigningKey {
        // ml-dsa's SigningKey keeps Â, ŝ1, ŝ2 and t̂0 (its ExpandedSigningKey) and zeroizes
        // them on drop (the `zeroize` feature in Cargo.toml).
        MlDsaSigningKey::new(RustCryptoSigner(ml_dsa::SigningKey::<MlDsa65>::from_seed(
            &(*xi).into(),
        )))
    }

    fn mldsa65_verify(&self, vk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
        let Ok(enc) = vk.try_into() else {
            return false;
        };
        let vk = ml_dsa::VerifyingKey::<MlDsa65>::decode(&enc);
        let Ok(sig) = ml_dsa::Signature::<MlDsa65>::try_from(sig) else {
            return false;
        };
        vk.verify_with_context(msg, ctx, &sig)
    }

    fn slhdsa_keygen(&self, seeds: &[u8; SLHDSA_SEEDS_LEN]) -> [u8; SLHDSA_PUBLIC_KEY_LEN] {
        let sk = slhdsa_signing_key(seeds);
        let mut out = [0u8; SLHDSA_PUBLIC_KEY_LEN];
        out.copy_from_slice(&sk.as_ref().to_bytes());
        out
    }

    fn slhdsa_sign(
        &self,
        seeds: &[u8; SLHDSA_SEEDS_LEN],
        msg: &[u8],
        ctx: &[u8],
        addrnd: Option<&[u8; 16]>,
    ) -> Result<Vec<u8>, BackendError> {
        slhdsa_signing_key(seeds)
            .try_sign_with_context(msg, ctx, addrnd.map(|r| &r[..]))
            .map(|sig| sig.to_vec())
            .map_err(|_| BackendError::ContextTooLong)
    }

    fn slhdsa_verify(&self, pk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
        let Ok(vk) = slh_dsa::VerifyingKey::<Shake128f>::try_from(pk) else {
            return false;
        };
        let Ok(sig) = slh_dsa::Signature::<Shake128f>::try_from(sig) else {
            return false;
        };
        vk.try_verify_with_context(msg, ctx, &sig).is_ok()
    }
}

/// slh_keygen_internal(SK.seed, SK.prf, PK.seed).
fn slhdsa_signing_key(seeds: &[u8; SLHDSA_SEEDS_LEN]) -> slh_dsa::SigningKey<Shake128f> {
    slh_dsa::SigningKey::slh_keygen_internal(&seeds[..16], &seeds[16..32], &seeds[32..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acvp(path: &str) -> serde_json::Value {
        let p = nexusq_testkit::vector_path(&format!("acvp/{path}"));
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    }

    fn level(name: &str) -> Option<KemLevel> {
        match name {
            "ML-KEM-768" => Some(KemLevel::MlKem768),
            "ML-KEM-1024" => Some(KemLevel::MlKem1024),
            _ => None,
        }
    }

    fn arr(t: &serde_json::Value, k: &str) -> [u8; 32] {
        hex::decode(t[k].as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap()
    }

    fn bytes(t: &serde_json::Value, k: &str) -> Vec<u8> {
        hex::decode(t[k].as_str().unwrap()).unwrap()
    }

    /// NIST ACVP ML-KEM keyGen through the backend interface.
    #[test]
    fn acvp_mlkem_keygen() {
        nexusq_testkit::skip_without_vectors!();
        let v = acvp("v1.1.0.43/ML-KEM-keyGen-FIPS203/internalProjection.json");
        let mut n = 0;
        for g in v["testGroups"].as_array().unwrap() {
            let level = level(g["parameterSet"].as_str().unwrap()).unwrap();
            for t in g["tests"].as_array().unwrap() {
                assert_eq!(
                    RustCrypto.mlkem_keygen(level, &arr(t, "d"), &arr(t, "z")),
                    bytes(t, "ek")
                );
                n += 1;
            }
        }
        assert_eq!(n, 50);
    }

    /// NIST ACVP ML-KEM encapsulation, decapsulation (seed-form keys) and the
    /// encapsulation-key check.
    #[test]
    fn acvp_mlkem_encaps_and_key_check() {
        nexusq_testkit::skip_without_vectors!();
        let v = acvp("v1.1.0.43/ML-KEM-encapDecap-FIPS203/internalProjection.json");
        let (mut enc, mut dec, mut checks) = (0, 0, 0);
        for g in v["testGroups"].as_array().unwrap() {
            let level = level(g["parameterSet"].as_str().unwrap()).unwrap();
            for t in g["tests"].as_array().unwrap() {
                match g["function"].as_str().unwrap_or("") {
                    "encapsulation" => {
                        let (ct, ss) = RustCrypto
                            .mlkem_encaps(level, &bytes(t, "ek"), &arr(t, "m"))
                            .unwrap();
                        assert_eq!(ct, bytes(t, "c"));
                        assert_eq!(ss.expose().to_vec(), bytes(t, "k"));
                        enc += 1;
                    }
                    "decapsulation" if !t["d"].as_str().unwrap_or("").is_empty() => {
                        let ss = RustCrypto
                            .mlkem_decaps(level, &arr(t, "d"), &arr(t, "z"), &bytes(t, "c"))
                            .unwrap();
                        assert_eq!(ss.expose().to_vec(), bytes(t, "k"), "tcId {}", t["tcId"]);
                        dec += 1;
                    }
                    "encapsulationKeyCheck" => {
                        let ok = RustCrypto
                            .mlkem_encaps(level, &bytes(t, "ek"), &[0; 32])
                            .is_ok();
                        assert_eq!(ok, t["testPassed"].as_bool().unwrap(), "tcId {}", t["tcId"]);
                        checks += 1;
                    }
                    _ => {}
                }
            }
        }
        assert_eq!((enc, checks), (50, 20));
        assert!(dec >= 20, "only {dec} seed-form decapsulation vectors");
    }
}

//! The root key: SLH-DSA-SHAKE-128f (FIPS 205), pure signing with a context string.
//! Secrets are the three 16-byte seeds SK.seed || SK.prf || PK.seed (48 bytes).

use crate::secret::{SecretBytes, random_array};
use slh_dsa::{Shake128f, Signature, SigningKey, VerifyingKey};

pub const SEED_LEN: usize = 48;
pub const PUBLIC_KEY_LEN: usize = 32;
pub const SIGNATURE_LEN: usize = 17088;

/// The root's secret seeds, expanded to a signing key only while needed.
pub struct RootSecret {
    seeds: SecretBytes<SEED_LEN>,
}

impl RootSecret {
    pub fn generate() -> Self {
        RootSecret {
            seeds: SecretBytes::random(),
        }
    }

    pub fn from_seeds(seeds: SecretBytes<SEED_LEN>) -> Self {
        RootSecret { seeds }
    }

    pub fn seeds(&self) -> &SecretBytes<SEED_LEN> {
        &self.seeds
    }

    fn signing_key(&self) -> SigningKey<Shake128f> {
        let s = self.seeds.expose();
        SigningKey::slh_keygen_internal(&s[..16], &s[16..32], &s[32..48])
    }

    pub fn public_key(&self) -> [u8; PUBLIC_KEY_LEN] {
        let mut out = [0u8; PUBLIC_KEY_LEN];
        out.copy_from_slice(&self.signing_key().as_ref().to_bytes());
        out
    }

    /// Hedged SLH-DSA signature of `msg` under `ctx` (at most 255 bytes, always a constant here).
    pub fn sign(&self, msg: &[u8], ctx: &[u8]) -> Vec<u8> {
        let opt_rand: [u8; 16] = random_array();
        self.signing_key()
            .try_sign_with_context(msg, ctx, Some(&opt_rand))
            .expect("context strings are short constants")
            .to_vec()
    }
}

impl std::fmt::Debug for RootSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RootSecret(redacted)")
    }
}

/// Verify an SLH-DSA-SHAKE-128f signature; any malformed input is simply "not valid".
pub fn verify(public_key: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool {
    let Ok(vk) = VerifyingKey::<Shake128f>::try_from(public_key) else {
        return false;
    };
    let Ok(sig) = Signature::<Shake128f>::try_from(sig) else {
        return false;
    };
    vk.try_verify_with_context(msg, ctx, &sig).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_verify_and_reject() {
        let root = RootSecret::generate();
        let pk = root.public_key();
        let sig = root.sign(b"message", b"nexusq/test");
        assert_eq!(sig.len(), SIGNATURE_LEN);
        assert!(verify(&pk, b"message", b"nexusq/test", &sig));
        assert!(!verify(&pk, b"messagE", b"nexusq/test", &sig));
        assert!(!verify(&pk, b"message", b"nexusq/other", &sig));
        assert!(!verify(&pk, b"message", b"nexusq/test", &sig[1..]));
        assert!(!verify(&pk[1..], b"message", b"nexusq/test", &sig));
    }

    /// FIPS 205 keygen vectors from NIST ACVP: our seed layout gives the published public keys.
    #[test]
    fn acvp_keygen_vectors() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/vectors/acvp/v1.1.0.43/SLH-DSA-keyGen-FIPS205/internalProjection.json"
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut n = 0;
        for group in v["testGroups"].as_array().unwrap() {
            if group["parameterSet"] != "SLH-DSA-SHAKE-128f" {
                continue;
            }
            for t in group["tests"].as_array().unwrap() {
                let h = |k: &str| hex::decode(t[k].as_str().unwrap()).unwrap();
                let mut seeds = h("skSeed");
                seeds.extend(h("skPrf"));
                seeds.extend(h("pkSeed"));
                let root = RootSecret::from_seeds(SecretBytes::from_slice(&seeds).unwrap());
                assert_eq!(root.public_key().to_vec(), h("pk"));
                n += 1;
            }
        }
        assert_eq!(n, 10);
    }
}

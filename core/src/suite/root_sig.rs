//! The root key: SLH-DSA-SHAKE-128f (FIPS 205), pure signing with a context string, computed
//! by the backend the user chose. Secrets are the three 16-byte seeds SK.seed || SK.prf ||
//! PK.seed (48 bytes).

use super::backend::{Backend, SLHDSA_PUBLIC_KEY_LEN, SLHDSA_SEEDS_LEN, SLHDSA_SIGNATURE_LEN};
use crate::secret::{SecretBytes, random_array};

/// Length of the root secret: three 16-byte seeds.
pub const SEED_LEN: usize = SLHDSA_SEEDS_LEN;
/// Root public key length.
pub(crate) const PUBLIC_KEY_LEN: usize = SLHDSA_PUBLIC_KEY_LEN;
/// Length of a root signature.
pub const SIGNATURE_LEN: usize = SLHDSA_SIGNATURE_LEN;

/// The root's secret seeds; the backend expands them to a signing key only while it signs.
pub struct RootSecret {
    seeds: SecretBytes<SEED_LEN>,
}

impl RootSecret {
    /// Fresh seeds from the OS's random source.
    pub fn generate() -> Self {
        RootSecret {
            seeds: SecretBytes::random(),
        }
    }

    /// The root of stored seeds (the vault's root section).
    pub(crate) fn from_seeds(seeds: SecretBytes<SEED_LEN>) -> Self {
        RootSecret { seeds }
    }

    /// The seeds, for sealing into the vault.
    pub fn seeds(&self) -> &SecretBytes<SEED_LEN> {
        &self.seeds
    }

    /// PK.seed || PK.root (a key generation: about a thirtieth of a signature).
    pub fn public_key(&self, backend: &dyn Backend) -> [u8; PUBLIC_KEY_LEN] {
        backend.slhdsa_keygen(self.seeds.expose())
    }

    /// Hedged SLH-DSA signature of `msg` under `ctx` (at most 255 bytes, always a constant here).
    pub fn sign(&self, backend: &dyn Backend, msg: &[u8], ctx: &[u8]) -> Vec<u8> {
        self.sign_with_randomness(backend, msg, ctx, &random_array())
    }

    /// The root's signature in an OpenPGP certificate (RFC 9980, section 6.1): hedged pure
    /// SLH-DSA of the signature's digest with the empty context. Every nexusq root signature
    /// has a non-empty `nexusq/...` context, so neither verifies as the other.
    pub fn sign_openpgp(&self, backend: &dyn Backend, digest: &[u8]) -> Vec<u8> {
        self.sign(backend, digest, b"")
    }

    /// The same with the optional randomness given, so tests can compare backends.
    pub(crate) fn sign_with_randomness(
        &self,
        backend: &dyn Backend,
        msg: &[u8],
        ctx: &[u8],
        addrnd: &[u8; 16],
    ) -> Vec<u8> {
        backend
            .slhdsa_sign(self.seeds.expose(), msg, ctx, Some(addrnd))
            .expect("context strings are short constants")
    }
}

impl std::fmt::Debug for RootSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RootSecret(redacted)")
    }
}

/// Verify an SLH-DSA-SHAKE-128f signature; any malformed input is simply "not valid".
pub fn verify(
    backend: &dyn Backend,
    public_key: &[u8],
    msg: &[u8],
    ctx: &[u8],
    sig: &[u8],
) -> bool {
    backend.slhdsa_verify(public_key, msg, ctx, sig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::native::Native;
    use crate::suite::rustcrypto::RustCrypto;

    const BACKENDS: [&dyn Backend; 2] = [&RustCrypto, &Native];

    #[test]
    fn sign_verify_and_reject() {
        let root = RootSecret::generate();
        for b in BACKENDS {
            let pk = root.public_key(b);
            let sig = root.sign(b, b"message", b"nexusq/test");
            assert_eq!(sig.len(), SIGNATURE_LEN);
            for v in BACKENDS {
                assert!(verify(v, &pk, b"message", b"nexusq/test", &sig));
                assert!(!verify(v, &pk, b"messagE", b"nexusq/test", &sig));
                assert!(!verify(v, &pk, b"message", b"nexusq/other", &sig));
                assert!(!verify(v, &pk, b"message", b"nexusq/test", &sig[1..]));
                assert!(!verify(v, &pk[1..], b"message", b"nexusq/test", &sig));
            }
        }
    }

    /// Both backends give the same public key and, with the randomness pinned, the same
    /// signature bytes.
    #[test]
    fn backends_agree_byte_for_byte() {
        let root = RootSecret::from_seeds(SecretBytes::from_slice(&[0x5a; SEED_LEN]).unwrap());
        let [rc, native] = BACKENDS;
        assert_eq!(root.public_key(rc), root.public_key(native));
        let addrnd = [0xa5; 16];
        let a = root.sign_with_randomness(rc, b"m", b"nexusq/test", &addrnd);
        let b = root.sign_with_randomness(native, b"m", b"nexusq/test", &addrnd);
        assert!(
            a == b,
            "pinned-randomness signatures differ between backends"
        );
        assert!(
            rc.slhdsa_sign(root.seeds().expose(), b"m", &[0; 256], None)
                .is_err()
        );
        assert!(
            native
                .slhdsa_sign(root.seeds().expose(), b"m", &[0; 256], None)
                .is_err()
        );
    }

    /// FIPS 205 keygen vectors from NIST ACVP: our seed layout gives the published public keys,
    /// on both backends.
    #[test]
    fn acvp_keygen_vectors() {
        nexusq_testkit::skip_without_vectors!();
        let path = nexusq_testkit::vector_path(
            "acvp/v1.1.0.43/SLH-DSA-keyGen-FIPS205/internalProjection.json",
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
                for b in BACKENDS {
                    assert_eq!(root.public_key(b).to_vec(), h("pk"), "{}", b.name());
                }
                n += 1;
            }
        }
        assert_eq!(n, 10);
    }
}

//! The master secret: 32 random bytes from which a vault made since format 2 derives its root
//! key and every generation's keys (docs/identity-format.md, section 10). The recovery phrase
//! and shares carry it (docs/recovery.md), so whoever holds one can rebuild the identity.
//!
//! ```text
//! derive(label, g, L) = SHAKE256("nexusq/derive/v1" || u8(len(label)) || label || u32be(g) || master, L)
//! ```
//!
//! | label | g | L | gives |
//! |---|---|---|---|
//! | `root` | 0 | 48 | SLH-DSA SK.seed ‖ SK.prf ‖ PK.seed |
//! | `xwing` | g | 32 | the X-Wing seed of generation g |
//! | `mlkem1024-x25519` | g | 32 | the ML-KEM-1024 + X25519 seed of generation g |
//! | `mldsa65` | g | 32 | the ML-DSA-65 ξ of generation g |
//! | `ed25519` | g | 32 | the Ed25519 secret key of generation g |

use super::generation::{GenerationSecrets, KemSeeds, SigSeeds};
use crate::secret::SecretBytes;
use crate::suite::root_sig::{self, RootSecret};
use shake::Shake256;
use shake::{ExtendableOutput, Update, XofReader};

/// Length of the master secret: 256 bits, the entropy of a 24-word BIP39 phrase.
pub(crate) const MASTER_LEN: usize = 32;
/// The domain of every derivation; a new derivation scheme gets a new one.
pub(crate) const DOMAIN: &[u8] = b"nexusq/derive/v1";

/// Labels of the derived keys (the module's table).
pub mod label {
    /// The root's 48 bytes of SLH-DSA seeds (generation number 0).
    pub const ROOT: &str = "root";
    /// A generation's X-Wing seed.
    pub(crate) const XWING: &str = "xwing";
    /// A generation's ML-KEM-1024 + X25519 seed.
    pub(crate) const MLKEM1024_X25519: &str = "mlkem1024-x25519";
    /// A generation's ML-DSA-65 ξ.
    pub(crate) const MLDSA65: &str = "mldsa65";
    /// A generation's Ed25519 secret key.
    pub(crate) const ED25519: &str = "ed25519";
}

/// The identity's master secret. Zeroized on drop; `Debug` never shows it.
pub struct MasterSecret {
    bytes: SecretBytes<MASTER_LEN>,
}

impl MasterSecret {
    /// 32 fresh bytes from the OS's random source.
    pub fn generate() -> Self {
        MasterSecret {
            bytes: SecretBytes::random(),
        }
    }

    /// A master secret given back (the vault's root section, a phrase, shares).
    pub fn from_bytes(bytes: SecretBytes<MASTER_LEN>) -> Self {
        MasterSecret { bytes }
    }

    /// The 32 bytes, for sealing into the vault and for the phrase and shares.
    pub fn expose(&self) -> &[u8; MASTER_LEN] {
        self.bytes.expose()
    }

    /// `derive(label, g, N)` of the module docs.
    pub fn derive<const N: usize>(&self, label: &str, generation: u32) -> SecretBytes<N> {
        debug_assert!(label.len() < 256);
        let mut xof = Shake256::default();
        xof.update(DOMAIN);
        xof.update(&[label.len() as u8]);
        xof.update(label.as_bytes());
        xof.update(&generation.to_be_bytes());
        xof.update(self.bytes.expose());
        let mut out = SecretBytes::<N>::zero();
        xof.finalize_xof().read(out.expose_mut());
        out
    }

    /// The root key's seeds.
    pub fn root(&self) -> RootSecret {
        RootSecret::from_seeds(self.derive::<{ root_sig::SEED_LEN }>(label::ROOT, 0))
    }

    /// Generation `generation`'s seeds, every key kept.
    pub fn generation(&self, generation: u32) -> GenerationSecrets {
        GenerationSecrets {
            generation,
            kem: Some(KemSeeds {
                xwing: self.derive(label::XWING, generation),
                mlkem1024_x25519: self.derive(label::MLKEM1024_X25519, generation),
            }),
            sig: Some(SigSeeds {
                mldsa_xi: self.derive(label::MLDSA65, generation),
                ed25519: self.derive(label::ED25519, generation),
            }),
            uncertified: false,
        }
    }
}

impl std::fmt::Debug for MasterSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterSecret(redacted)")
    }
}

/// What certifies and makes generations: the root, and the master secret it was derived from
/// when the vault has one (format 2). A vault of format 1 has a random root and draws every
/// new generation at random.
pub struct RootKeys {
    root: RootSecret,
    master: Option<MasterSecret>,
}

impl RootKeys {
    /// The keys of a master secret: the root derived from it.
    pub fn derived(master: MasterSecret) -> Self {
        RootKeys {
            root: master.root(),
            master: Some(master),
        }
    }

    /// A random root with no master secret (vault format 1).
    pub fn random(root: RootSecret) -> Self {
        RootKeys { root, master: None }
    }

    /// The root key, which signs certificates and revocations.
    pub fn root(&self) -> &RootSecret {
        &self.root
    }

    /// The master secret, when the identity has one.
    pub fn master(&self) -> Option<&MasterSecret> {
        self.master.as_ref()
    }

    /// Seeds for a new generation: derived from the master secret when there is one, else
    /// fresh random ones.
    pub(crate) fn new_generation(&self, generation: u32) -> GenerationSecrets {
        match &self.master {
            Some(m) => m.generation(generation),
            None => GenerationSecrets::generate(generation),
        }
    }
}

impl std::fmt::Debug for RootKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RootKeys {{ root: redacted, master: {} }}",
            if self.master.is_some() {
                "redacted"
            } else {
                "none"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn master(byte: u8) -> MasterSecret {
        MasterSecret::from_bytes(SecretBytes::from_slice(&[byte; 32]).unwrap())
    }

    #[test]
    fn labels_and_generations_give_different_keys() {
        let m = master(7);
        let a: SecretBytes<32> = m.derive(label::XWING, 1);
        let b: SecretBytes<32> = m.derive(label::XWING, 2);
        let c: SecretBytes<32> = m.derive(label::MLKEM1024_X25519, 1);
        assert_ne!(a.expose(), b.expose());
        assert_ne!(a.expose(), c.expose());
        // A shorter output is a prefix of a longer one (an XOF), so lengths are fixed per label.
        let long: SecretBytes<48> = m.derive(label::XWING, 1);
        assert_eq!(&long.expose()[..32], a.expose());
    }

    #[test]
    fn debug_hides_the_secret() {
        let m = master(0xab);
        assert_eq!(format!("{m:?}"), "MasterSecret(redacted)");
        let keys = RootKeys::derived(m);
        assert!(!format!("{keys:?}").contains("ab"));
    }
}

#[cfg(test)]
mod vectors {
    //! docs/vectors/master-derivation.json: every derivation against SHAKE256 outputs computed
    //! independently, and the root and generation 1 public keys they give.
    use super::*;
    use crate::identity::RootId;
    use crate::suite::native::Native;
    use crate::suite::rustcrypto::RustCrypto;
    use sha3::{Digest, Sha3_256};

    const VECTORS: &str = include_str!("../../../docs/vectors/master-derivation.json");

    fn hex32(s: &str) -> Vec<u8> {
        hex::decode(s).expect("hex")
    }

    #[test]
    fn derivations_match_the_published_vectors() {
        let doc: serde_json::Value = serde_json::from_str(VECTORS).unwrap();
        let cases = doc["cases"].as_array().unwrap();
        assert!(!cases.is_empty());
        for case in cases {
            let m = MasterSecret::from_bytes(
                SecretBytes::from_slice(&hex32(case["master"].as_str().unwrap())).unwrap(),
            );
            for d in case["derived"].as_array().unwrap() {
                let label = d["label"].as_str().unwrap();
                let g = d["generation"].as_u64().unwrap() as u32;
                let want = hex32(d["output"].as_str().unwrap());
                let got: Vec<u8> = match d["length"].as_u64().unwrap() {
                    48 => m.derive::<48>(label, g).expose().to_vec(),
                    32 => m.derive::<32>(label, g).expose().to_vec(),
                    n => panic!("unexpected length {n}"),
                };
                assert_eq!(got, want, "{label} g={g}");
            }
            assert_eq!(
                m.root().seeds().expose().to_vec(),
                hex32(case["derived"][0]["output"].as_str().unwrap())
            );
            for backend in [&RustCrypto as &dyn crate::suite::Backend, &Native] {
                let root_pk = m.root().public_key(backend);
                assert_eq!(hex::encode(root_pk), case["root_pk"].as_str().unwrap());
                assert_eq!(
                    RootId::of(&root_pk).fingerprint().to_string(),
                    case["fingerprint"].as_str().unwrap()
                );
                let keys = m.generation(1).public_keys(backend).unwrap();
                let digests = &case["generation1_public_keys_sha3_256"];
                for (name, key) in [
                    ("xwing", &keys.xwing),
                    ("mlkem1024_x25519", &keys.mlkem1024_x25519),
                    ("mldsa65_ed25519", &keys.mldsa65_ed25519),
                ] {
                    assert_eq!(
                        hex::encode(Sha3_256::digest(key)),
                        digests[name].as_str().unwrap(),
                        "{name}"
                    );
                }
            }
        }
    }
}

//! The secret seeds of each key generation and the vault's secret section that holds them.
//!
//! Plaintext encoding (sealed by the vault; docs/vault-format.md):
//! `u32 count || count x (u32 g || u8 flags || [xwing seed(32) || mlkem1024 seed(32)] if
//! flags & 1 || [ML-DSA xi(32) || Ed25519 secret(32)] if flags & 2)`, in generation order.
//! Flag 1: decapsulation seeds kept (not retired). Flag 2: signing seeds kept (newest only).
//! Flag 4 (vault format 3): the generation has no certificate in the vault; its decapsulation
//! seeds were derived again from the master secret at recovery, to open what was sent to it.

use super::certificate::{Certificate, GenerationKeys};
use super::decryption::DecryptionKeys;
use crate::secret::SecretBytes;
use crate::suite::Backend;
use crate::suite::hybrid_kem::{DecapsulationKey, KemLevel};
use crate::suite::hybrid_sig;
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};
use zeroize::Zeroizing;

const FLAG_KEM: u8 = 1;
const FLAG_SIG: u8 = 2;
const FLAG_UNCERTIFIED: u8 = 4;

/// A generation's two decapsulation seeds (docs/kem.md: each expands to a hybrid KEM key).
pub struct KemSeeds {
    /// Seed of the X-Wing key (ML-KEM-768 + X25519).
    pub xwing: SecretBytes<32>,
    /// Seed of the ML-KEM-1024 + X25519 key.
    pub mlkem1024_x25519: SecretBytes<32>,
}

impl KemSeeds {
    /// The seed of the hybrid KEM at `level`.
    pub fn seed(&self, level: KemLevel) -> &SecretBytes<32> {
        match level {
            KemLevel::MlKem768 => &self.xwing,
            KemLevel::MlKem1024 => &self.mlkem1024_x25519,
        }
    }
}

/// The certified public key of the hybrid KEM at `level`.
fn certified_kem_key(keys: &GenerationKeys, level: KemLevel) -> &[u8] {
    match level {
        KemLevel::MlKem768 => &keys.xwing,
        KemLevel::MlKem1024 => &keys.mlkem1024_x25519,
    }
}

/// A generation's signing seeds, for the ML-DSA-65 + Ed25519 composite key.
pub struct SigSeeds {
    /// ML-DSA-65 key generation seed (ξ).
    pub mldsa_xi: SecretBytes<32>,
    /// Ed25519 secret key.
    pub ed25519: SecretBytes<32>,
}

/// The secrets of one generation as the vault keeps them. `Debug` says only which are kept.
pub struct GenerationSecrets {
    /// Generation number, as in its certificate.
    pub generation: u32,
    /// Decapsulation seeds; `None` once retired (`rotate --retire-older-than`).
    pub kem: Option<KemSeeds>,
    /// Signing seeds; kept by the newest generation only, erased when it is superseded.
    pub sig: Option<SigSeeds>,
    /// No certificate of this generation is in the vault: its keys were derived again from the
    /// master secret when the identity was recovered from an export that did not carry it
    /// (docs/recovery.md). It decrypts and never signs.
    pub uncertified: bool,
}

impl GenerationSecrets {
    /// Fresh random seeds for generation `generation`, every key kept.
    pub fn generate(generation: u32) -> Self {
        GenerationSecrets {
            generation,
            kem: Some(KemSeeds {
                xwing: SecretBytes::random(),
                mlkem1024_x25519: SecretBytes::random(),
            }),
            sig: Some(SigSeeds {
                mldsa_xi: SecretBytes::random(),
                ed25519: SecretBytes::random(),
            }),
            uncertified: false,
        }
    }

    /// This generation for decryption only, without a certificate: its signing seeds dropped.
    pub fn decryption_only(mut self) -> Self {
        self.sig = None;
        self.uncertified = true;
        self
    }

    /// This generation's decapsulation keys, expanded, in [`KemLevel::ALL`] order; none once
    /// retired.
    pub(crate) fn decapsulation_keys(&self, backend: &dyn Backend) -> Vec<DecapsulationKey> {
        self.kem.as_ref().map_or_else(Vec::new, |k| {
            KemLevel::ALL
                .iter()
                .map(|&level| DecapsulationKey::from_seed(backend, level, k.seed(level)))
                .collect()
        })
    }

    /// All three public keys, if this generation still holds every seed.
    pub fn public_keys(&self, backend: &dyn Backend) -> Option<GenerationKeys> {
        let sig = self.sig.as_ref()?;
        let [xwing, mlkem1024_x25519]: [DecapsulationKey; 2] =
            self.decapsulation_keys(backend).try_into().ok()?;
        Some(GenerationKeys {
            xwing: xwing.public_key().to_vec(),
            mlkem1024_x25519: mlkem1024_x25519.public_key().to_vec(),
            mldsa65_ed25519: hybrid_sig::public_key(backend, &sig.mldsa_xi, &sig.ed25519),
        })
    }

    /// Expand the seeds this generation still holds and check that they give exactly the
    /// public keys its certificate names: the expanded decapsulation keys, or `None`.
    fn checked_keys(
        &self,
        cert: &Certificate,
        backend: &dyn Backend,
    ) -> Option<Vec<DecapsulationKey>> {
        use subtle::ConstantTimeEq;
        if cert.generation != self.generation {
            return None;
        }
        let eq = |a: &[u8], b: &[u8]| a.len() == b.len() && bool::from(a.ct_eq(b));
        let keys = self.decapsulation_keys(backend);
        let kem_ok = keys
            .iter()
            .all(|k| eq(k.public_key(), certified_kem_key(&cert.keys, k.level())));
        let sig_ok = self.sig.as_ref().is_none_or(|s| {
            eq(
                &hybrid_sig::public_key(backend, &s.mldsa_xi, &s.ed25519),
                &cert.keys.mldsa65_ed25519,
            )
        });
        (kem_ok && sig_ok).then_some(keys)
    }
}

impl std::fmt::Debug for GenerationSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GenerationSecrets {{ generation: {}{}, kem: {}, sig: {} }}",
            self.generation,
            if self.uncertified {
                " (uncertified)"
            } else {
                ""
            },
            if self.kem.is_some() {
                "kept (redacted)"
            } else {
                "erased"
            },
            if self.sig.is_some() {
                "kept (redacted)"
            } else {
                "erased"
            },
        )
    }
}

/// Every generation's seeds, oldest first.
#[derive(Debug)]
pub struct SecretSection {
    /// Oldest first: one per certificate of the public section, and any uncertified
    /// (decryption-only) generations among them.
    pub generations: Vec<GenerationSecrets>,
}

fn seed(r: &mut Reader<'_>, what: &str) -> DecodeResult<SecretBytes<32>> {
    Ok(SecretBytes::from_slice(r.take(32, what)?).expect("took 32 bytes"))
}

impl SecretSection {
    /// The plaintext the vault seals (layout in the module docs); zeroized on drop.
    pub fn encode(&self) -> Zeroizing<Vec<u8>> {
        let mut w = Writer::new();
        w.u32(self.generations.len() as u32);
        for g in &self.generations {
            let flags = if g.kem.is_some() { FLAG_KEM } else { 0 }
                | if g.sig.is_some() { FLAG_SIG } else { 0 }
                | if g.uncertified { FLAG_UNCERTIFIED } else { 0 };
            w.u32(g.generation).u8(flags);
            if let Some(k) = &g.kem {
                w.bytes(k.xwing.expose()).bytes(k.mlkem1024_x25519.expose());
            }
            if let Some(s) = &g.sig {
                w.bytes(s.mldsa_xi.expose()).bytes(s.ed25519.expose());
            }
        }
        Zeroizing::new(w.into_inner())
    }

    /// Decode a secret section that must fill `bytes` exactly.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        let n = r.count_u32(5, "generation count")?;
        let mut generations = Vec::with_capacity(n);
        for _ in 0..n {
            let generation = r.u32("generation number")?;
            let flags = r.u8("generation flags")?;
            if flags & !(FLAG_KEM | FLAG_SIG | FLAG_UNCERTIFIED) != 0 {
                return Err(DecodeError("unknown generation flags".into()));
            }
            if flags & FLAG_UNCERTIFIED != 0 && flags & FLAG_SIG != 0 {
                return Err(DecodeError(
                    "an uncertified generation holds signing keys".into(),
                ));
            }
            let kem = if flags & FLAG_KEM != 0 {
                Some(KemSeeds {
                    xwing: seed(&mut r, "X-Wing seed")?,
                    mlkem1024_x25519: seed(&mut r, "ML-KEM-1024 seed")?,
                })
            } else {
                None
            };
            let sig = if flags & FLAG_SIG != 0 {
                Some(SigSeeds {
                    mldsa_xi: seed(&mut r, "ML-DSA seed")?,
                    ed25519: seed(&mut r, "Ed25519 seed")?,
                })
            } else {
                None
            };
            if generations
                .last()
                .is_some_and(|g: &GenerationSecrets| g.generation >= generation)
            {
                return Err(DecodeError(
                    "the generations are not in increasing order".into(),
                ));
            }
            generations.push(GenerationSecrets {
                generation,
                kem,
                sig,
                uncertified: flags & FLAG_UNCERTIFIED != 0,
            });
        }
        r.finish("secret section")?;
        Ok(SecretSection { generations })
    }

    /// Does it hold a generation without a certificate (vault format 3)?
    pub(crate) fn has_uncertified(&self) -> bool {
        self.generations.iter().any(|g| g.uncertified)
    }

    /// The highest generation number it holds, certified or not.
    pub(crate) fn highest(&self) -> Option<u32> {
        self.generations.iter().map(|g| g.generation).max()
    }

    /// The secrets belong to these certificates: the certified generations are the
    /// certificates' generations in the same order, every kept seed gives the certified public
    /// key, and the newest generation keeps every seed. Uncertified generations (recovered for
    /// decryption only) have no certificate to be checked against: they hold no signing seeds
    /// and no number a certificate holds. Each kept seed is expanded once for the check; the
    /// expanded keys are returned, so decrypting later need not expand them again.
    pub fn check_against(
        &self,
        certs: &[Certificate],
        backend: &dyn Backend,
    ) -> DecodeResult<DecryptionKeys> {
        let certified: Vec<&GenerationSecrets> =
            self.generations.iter().filter(|g| !g.uncertified).collect();
        if certified.len() != certs.len()
            || certified
                .iter()
                .zip(certs)
                .any(|(g, c)| g.generation != c.generation)
        {
            return Err(DecodeError(
                "the secret section and the public section list different generations".into(),
            ));
        }
        let newest = certified.last();
        if newest.is_none_or(|g| g.kem.is_none() || g.sig.is_none()) {
            return Err(DecodeError(
                "the newest generation is missing secret keys".into(),
            ));
        }
        // Superseded generations have their signing secrets erased.
        let older = &certified[..certified.len() - 1];
        if let Some(g) = older.iter().find(|g| g.sig.is_some()) {
            return Err(DecodeError(format!(
                "superseded generation {} still holds signing keys",
                g.generation
            )));
        }
        let mut kept = Vec::with_capacity(self.generations.len());
        for (g, cert) in certified.iter().zip(certs) {
            let keys = g.checked_keys(cert, backend).ok_or_else(|| {
                DecodeError(format!(
                    "the secret keys of generation {} do not match its public keys",
                    cert.generation
                ))
            })?;
            kept.push((g.generation, keys));
        }
        for g in self.generations.iter().filter(|g| g.uncertified) {
            kept.push((g.generation, g.decapsulation_keys(backend)));
        }
        let newest = certs.last().map(|c| c.generation);
        Ok(DecryptionKeys::new(kept, newest))
    }

    /// Every kept generation's decapsulation keys, expanded, without checking them against
    /// certificates (unlock uses [`SecretSection::check_against`]).
    pub fn decryption_keys(&self, backend: &dyn Backend) -> DecryptionKeys {
        let newest = self
            .generations
            .iter()
            .filter(|g| !g.uncertified)
            .map(|g| g.generation)
            .max();
        DecryptionKeys::new(
            self.generations
                .iter()
                .map(|g| (g.generation, g.decapsulation_keys(backend)))
                .collect(),
            newest,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn section(flags: &[u8]) -> SecretSection {
        SecretSection {
            generations: flags
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let mut g = GenerationSecrets::generate(i as u32 + 1);
                    if f & FLAG_KEM == 0 {
                        g.kem = None;
                    }
                    if f & FLAG_SIG == 0 || f & FLAG_UNCERTIFIED != 0 {
                        g.sig = None;
                    }
                    g.uncertified = f & FLAG_UNCERTIFIED != 0;
                    g
                })
                .collect(),
        }
    }

    proptest! {
        #[test]
        fn encode_decode_round_trip(flags in proptest::collection::vec(0u8..8, 0..6)) {
            let s = section(&flags);
            let bytes = s.encode();
            let back = SecretSection::decode(&bytes).unwrap();
            prop_assert_eq!(&back.encode()[..], &bytes[..]);
        }

        #[test]
        fn decode_never_panics(data in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = SecretSection::decode(&data);
        }
    }

    #[test]
    fn debug_shows_no_seed() {
        let s = section(&[3]);
        let d = format!("{s:?}");
        let seed_hex: String = s.generations[0].kem.as_ref().unwrap().xwing.expose()[..4]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(!d.contains(&seed_hex) && d.contains("redacted"), "{d}");
    }

    #[test]
    fn check_against_certificates() {
        use crate::identity::RootId;
        use crate::suite::root_sig::RootSecret;
        use crate::suite::rustcrypto::RustCrypto;
        let root = RootSecret::generate();
        let id = RootId::of(&root.public_key(&RustCrypto));
        let section = section(&[3, 3]);
        let certs: Vec<Certificate> = section
            .generations
            .iter()
            .map(|g| {
                let keys = g.public_keys(&RustCrypto).unwrap();
                Certificate::issue(
                    &root,
                    &RustCrypto,
                    id,
                    g.generation,
                    0,
                    1,
                    keys,
                    [0; 32],
                    String::new(),
                )
            })
            .collect();
        // Generation 1 still has its signing seeds: refused.
        let err = section.check_against(&certs, &RustCrypto).unwrap_err();
        assert!(err.0.contains("superseded generation 1"), "{}", err.0);
        let mut superseded = section;
        superseded.generations[0].sig = None;
        superseded.check_against(&certs, &RustCrypto).unwrap();
        // Keys that do not match their certificate: refused.
        superseded.generations[1].kem.as_mut().unwrap().xwing = SecretBytes::random();
        assert!(superseded.check_against(&certs, &RustCrypto).is_err());
        // Missing generations: refused.
        assert!(superseded.check_against(&certs[..1], &RustCrypto).is_err());

        // Uncertified generations (recovered for decryption only) around the certified ones
        // decrypt; the newest certified generation stays the one in use.
        let certified = [
            GenerationSecrets::generate(2),
            GenerationSecrets::generate(3),
        ];
        let certs: Vec<Certificate> = certified
            .iter()
            .map(|g| {
                let keys = g.public_keys(&RustCrypto).unwrap();
                Certificate::issue(
                    &root,
                    &RustCrypto,
                    id,
                    g.generation,
                    0,
                    1,
                    keys,
                    [0; 32],
                    String::new(),
                )
            })
            .collect();
        let [mut older, newest] = certified;
        older.sig = None;
        let generations = vec![
            GenerationSecrets::generate(1).decryption_only(),
            older,
            newest,
            GenerationSecrets::generate(4).decryption_only(),
        ];
        let with_uncertified = SecretSection { generations };
        let keys = with_uncertified.check_against(&certs, &RustCrypto).unwrap();
        assert_eq!(keys.newest_generation(), Some(3));
        assert!(keys.find(1, KemLevel::MlKem768).is_ok());
        assert!(keys.find(4, KemLevel::MlKem768).is_ok());
        assert!(!keys.is_superseded(3));
        // An uncertified generation is never one a certificate names.
        let mut clash = SecretSection::decode(&with_uncertified.encode()).unwrap();
        clash.generations[1].uncertified = true;
        clash.generations[1].sig = None;
        assert!(clash.check_against(&certs, &RustCrypto).is_err());
        // And it holds no signing keys: refused when decoding.
        let mut bytes = with_uncertified.encode().to_vec();
        bytes[8] |= FLAG_SIG;
        assert!(SecretSection::decode(&bytes).is_err());
    }
}

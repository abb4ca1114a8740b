//! The decapsulation keys an unlocked identity holds: for every generation that still decrypts
//! (the newest and each superseded one not retired), its X-Wing and its ML-KEM-1024 + X25519
//! key, expanded once when the vault is unlocked.
//!
//! This is the one place that knows which generations still decrypt, and in which order to try
//! them (newest first, so files sent to the current export open at the first try). Commands,
//! and whatever else decrypts for the identity, take keys from here and never read the seeds.

use crate::format::nexusq::{self as fe, FileError};
use crate::suite::hybrid_kem::{DecapsulationKey, KemLevel};
use std::fmt;

/// One kept generation's decapsulation key for one hybrid KEM.
pub struct DecryptionKey {
    generation: u32,
    key: DecapsulationKey,
}

impl DecryptionKey {
    /// The generation this key belongs to.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// Which hybrid KEM it is.
    pub fn level(&self) -> KemLevel {
        self.key.level()
    }

    /// The expanded key: decapsulate with it, or read its public key.
    pub fn key(&self) -> &DecapsulationKey {
        &self.key
    }
}

/// Why [`DecryptionKeys::find`] has no key for a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingKey {
    /// The identity has no such generation.
    NoSuchGeneration,
    /// The generation exists, but its decapsulation keys were erased (`rotate --retire-older-than`).
    Retired,
}

/// Every kept generation's decapsulation keys, newest generation first and, within one
/// generation, in [`KemLevel::ALL`] order. The keys are zeroized when this is dropped; `Debug`
/// names generations and suites only.
pub struct DecryptionKeys {
    keys: Vec<DecryptionKey>,
    /// The newest certified generation of the identity.
    newest: Option<u32>,
    /// Generations whose decapsulation keys were erased.
    retired: Vec<u32>,
}

impl DecryptionKeys {
    /// From each generation's expanded keys, in any order (an empty list is a retired
    /// generation), and the newest certified generation, the one in use: an uncertified
    /// generation (recovered for decryption only) may be newer and is still not in use.
    pub fn new(mut generations: Vec<(u32, Vec<DecapsulationKey>)>, newest: Option<u32>) -> Self {
        generations.sort_by_key(|(g, _)| std::cmp::Reverse(*g));
        let retired = generations
            .iter()
            .filter(|(_, keys)| keys.is_empty())
            .map(|(g, _)| *g)
            .collect();
        let keys = generations
            .into_iter()
            .flat_map(|(generation, keys)| {
                keys.into_iter()
                    .map(move |key| DecryptionKey { generation, key })
            })
            .collect();
        DecryptionKeys {
            keys,
            newest,
            retired,
        }
    }

    /// Every key, newest generation first.
    pub fn iter(&self) -> impl Iterator<Item = &DecryptionKey> {
        self.keys.iter()
    }

    /// The keys of one hybrid KEM, newest generation first.
    pub fn of_level(&self, level: KemLevel) -> impl Iterator<Item = &DecryptionKey> {
        self.keys.iter().filter(move |k| k.level() == level)
    }

    /// How many keys (two per kept generation).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when no generation still decrypts.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The newest generation, which is the one in use.
    pub fn newest_generation(&self) -> Option<u32> {
        self.newest
    }

    /// Is `generation` older than the newest one?
    pub(crate) fn is_superseded(&self, generation: u32) -> bool {
        self.newest.is_some_and(|n| generation < n)
    }

    /// The key of `generation` for `level`.
    pub fn find(&self, generation: u32, level: KemLevel) -> Result<&DecryptionKey, MissingKey> {
        if let Some(k) = self
            .keys
            .iter()
            .find(|k| k.generation == generation && k.level() == level)
        {
            return Ok(k);
        }
        if self.retired.contains(&generation) {
            Err(MissingKey::Retired)
        } else {
            Err(MissingKey::NoSuchGeneration)
        }
    }

    /// Open an encrypted file's header with the first of these keys that opens a stanza:
    /// the authenticated header, and the key that opened it.
    pub fn open_file_header(
        &self,
        header: &fe::Header,
    ) -> Result<(fe::OpenedHeader, &DecryptionKey), FileError> {
        let candidates: Vec<fe::Candidate<'_>> = self
            .keys
            .iter()
            .map(|k| &k.key as fe::Candidate<'_>)
            .collect();
        let opened = header.open(&candidates)?;
        let key = &self.keys[opened.candidate];
        Ok((opened, key))
    }
}

impl fmt::Debug for DecryptionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DecryptionKey {{ generation: {}, suite: {}, key: redacted }}",
            self.generation,
            self.level().suite().name()
        )
    }
}

impl fmt::Debug for DecryptionKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecryptionKeys")
            .field("keys", &self.keys)
            .field("retired", &self.retired)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{GenerationSecrets, SecretSection};
    use crate::suite::hybrid_kem;
    use crate::suite::rustcrypto::RustCrypto;

    /// Generations 1..=n; those in `retired` without decapsulation seeds.
    fn section(n: u32, retired: &[u32]) -> SecretSection {
        SecretSection {
            generations: (1..=n)
                .map(|g| {
                    let mut s = GenerationSecrets::generate(g);
                    if retired.contains(&g) {
                        s.kem = None;
                    }
                    s
                })
                .collect(),
        }
    }

    #[test]
    fn newest_first_each_suite_and_lookups() {
        let s = section(3, &[1]);
        let keys = s.decryption_keys(&RustCrypto);
        let order: Vec<(u32, KemLevel)> =
            keys.iter().map(|k| (k.generation(), k.level())).collect();
        assert_eq!(
            order,
            [
                (3, KemLevel::MlKem768),
                (3, KemLevel::MlKem1024),
                (2, KemLevel::MlKem768),
                (2, KemLevel::MlKem1024),
            ]
        );
        assert_eq!(keys.len(), 4);
        assert_eq!(keys.newest_generation(), Some(3));
        assert!(keys.is_superseded(2) && !keys.is_superseded(3));
        let xwing: Vec<u32> = keys
            .of_level(KemLevel::MlKem768)
            .map(|k| k.generation())
            .collect();
        assert_eq!(xwing, [3, 2]);
        // Each key is its seed's key.
        for g in &s.generations[1..] {
            for level in KemLevel::ALL {
                let k = keys.find(g.generation, level).unwrap();
                let seed = g.kem.as_ref().unwrap().seed(level);
                assert_eq!(
                    k.key().public_key(),
                    hybrid_kem::public_key(&RustCrypto, level, seed)
                );
            }
        }
        assert_eq!(
            keys.find(1, KemLevel::MlKem768).unwrap_err(),
            MissingKey::Retired
        );
        assert_eq!(
            keys.find(4, KemLevel::MlKem768).unwrap_err(),
            MissingKey::NoSuchGeneration
        );
    }

    #[test]
    fn debug_names_generations_not_secrets() {
        let s = section(1, &[]);
        let keys = s.decryption_keys(&RustCrypto);
        let d = format!("{keys:?}");
        assert!(d.contains("generation: 1") && d.contains("redacted"), "{d}");
        let seed = s.generations[0].kem.as_ref().unwrap().xwing.expose();
        let seed_hex: String = seed[..4].iter().map(|b| format!("{b:02x}")).collect();
        assert!(!d.contains(&seed_hex), "{d}");
    }
}

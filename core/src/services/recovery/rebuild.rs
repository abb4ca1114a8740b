//! The identity rebuilt from its master secret (docs/recovery.md, "What recovery brings back").
//!
//! With an export, every generation the export certifies is derived again and must give
//! exactly the export's public keys; the export's certificates and revocations are kept, so
//! the rebuilt vault exports the same bytes. Without one, the root and generation 1 come back
//! with a new certificate. Either way the generations the vault cannot certify (older than the
//! export's oldest certificate, or named by [`without_export`]'s count) come back too, for
//! decryption only: their keys derive from the master secret, and opening a file needs no
//! certificate.

use crate::error::{Error, Result};
use crate::identity::{MasterSecret, NewIdentity, PublicIdentity, RootKeys, SecretSection};
use crate::suite::Backend;
use crate::vault::Sealable;

/// A rebuilt identity, ready to seal into a new vault.
pub struct Rebuilt {
    /// The keys, public identity and seeds for the new vault.
    pub identity: Sealable,
    /// Generations whose decryption keys came back without their certificates (an export made
    /// with `--full-history` brings those back too): they decrypt, and never sign.
    pub decryption_only: Vec<u32>,
    /// Rebuilt from an export (true), or a new generation 1 (false).
    pub from_export: bool,
}

/// The identity of `master` with the certificates of `export`, which must be that identity's:
/// same root, and every certified generation's keys equal to the keys derived for it. The
/// generations older than the export's oldest certificate come back for decryption only.
pub fn with_export(
    master: MasterSecret,
    export: &PublicIdentity,
    backend: &dyn Backend,
) -> Result<Rebuilt> {
    let keys = RootKeys::derived(master);
    let root_pk = keys.root().public_key(backend);
    if root_pk != export.root_pk {
        return Err(Error::check(
            format!(
                "the words rebuild identity {}, but the export is of {}",
                crate::identity::RootId::of(&root_pk).fingerprint(),
                export.root_id().fingerprint()
            ),
            "give the export of the identity these words belong to (check the fingerprint), \
             or recover without an export",
        ));
    }
    export.check_structure()?;
    export.verify_signatures(backend)?;
    let newest = export.newest().generation;
    let oldest = export.certificates[0].generation;
    let decryption_only: Vec<u32> = (1..oldest).collect();
    let mut generations = Vec::with_capacity(export.certificates.len() + decryption_only.len());
    for &g in &decryption_only {
        generations.push(keys.new_generation(g).decryption_only());
    }
    for cert in &export.certificates {
        let mut secrets = keys.new_generation(cert.generation);
        let derived = secrets
            .public_keys(backend)
            .expect("a derived generation holds every key");
        if derived != cert.keys {
            return Err(Error::check(
                format!(
                    "generation {} of the export has keys these words do not give: it was not \
                     derived from this identity's master secret",
                    cert.generation
                ),
                "nothing was written; recover without the export, or from an export made \
                 before that generation",
            ));
        }
        // Only the newest generation signs (docs/vault-format.md, section 4).
        if cert.generation != newest {
            secrets.sig = None;
        }
        generations.push(secrets);
    }
    Ok(Rebuilt {
        identity: Sealable {
            keys,
            public: export.clone(),
            secrets: SecretSection { generations },
        },
        decryption_only,
        from_export: true,
    })
}

/// The identity of `master` with its root and generation 1 only, under a new certificate
/// made `now` (the original certificate's bytes are not derivable: signatures are randomized),
/// and generations 2 to `generations` for decryption only: what files sent to a rotated
/// identity need when no export of it is at hand.
pub fn without_export(
    master: MasterSecret,
    backend: &dyn Backend,
    now: u64,
    generations: u32,
) -> Rebuilt {
    let identity = NewIdentity::from_master(master, backend, now);
    let mut rebuilt = Rebuilt {
        identity: Sealable {
            keys: identity.keys,
            public: identity.public,
            secrets: identity.secrets,
        },
        decryption_only: Vec::new(),
        from_export: false,
    };
    rebuilt.extend_to(generations);
    rebuilt
}

impl Rebuilt {
    /// Also bring back every generation up to `newest` that it does not hold yet, for
    /// decryption only (`recover --generations`): newer than its certificates when they are
    /// stale, so later generations' files open.
    pub fn extend_to(&mut self, newest: u32) {
        let held = self.identity.secrets.highest().unwrap_or(0);
        for g in held + 1..=newest {
            let secrets = self.identity.keys.new_generation(g).decryption_only();
            self.identity.secrets.generations.push(secrets);
            self.decryption_only.push(g);
        }
    }
}

/// What the words rebuild of an identity (`backup check`, the drill).
pub struct Checked {
    /// The root the words rebuild.
    pub root_id: crate::identity::RootId,
    /// Is it `public`'s root?
    pub same_root: bool,
    /// The generations of `public` whose certified keys the words derive again.
    pub generations: Vec<u32>,
    /// Do they rebuild the root and every generation of `public`?
    pub recovers: bool,
}

/// Does `master` rebuild `public`: its root, and each certified generation's keys?
pub fn check(master: MasterSecret, public: &PublicIdentity, backend: &dyn Backend) -> Checked {
    let keys = RootKeys::derived(master);
    let root_pk = keys.root().public_key(backend);
    let same_root = root_pk == public.root_pk;
    let generations: Vec<u32> = public
        .certificates
        .iter()
        .filter(|c| {
            keys.new_generation(c.generation)
                .public_keys(backend)
                .is_some_and(|k| k == c.keys)
        })
        .map(|c| c.generation)
        .collect();
    let recovers = same_root && generations.len() == public.certificates.len();
    Checked {
        root_id: crate::identity::RootId::of(&root_pk),
        same_root,
        generations,
        recovers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::rotation::{self, RotateOptions};
    use crate::secret::SecretBytes;
    use crate::suite::rustcrypto::RustCrypto;

    fn master(byte: u8) -> MasterSecret {
        MasterSecret::from_bytes(SecretBytes::from_slice(&[byte; 32]).unwrap())
    }

    fn rotated(byte: u8, times: u32) -> NewIdentity {
        let mut id = NewIdentity::from_master(master(byte), &RustCrypto, 1_000);
        for i in 0..times {
            let opts = RotateOptions {
                validity_days: 30,
                ..Default::default()
            };
            rotation::rotate(
                &mut id.public,
                &mut id.secrets,
                &id.keys,
                &RustCrypto,
                2_000 + u64::from(i),
                &opts,
            )
            .unwrap();
        }
        id
    }

    #[test]
    fn an_export_comes_back_whole_and_its_keys_check() {
        let id = rotated(3, 2);
        let full = id.public.export(true);
        let back = with_export(master(3), &full, &RustCrypto).unwrap();
        assert_eq!(back.identity.public, full);
        assert!(back.decryption_only.is_empty());
        back.identity
            .secrets
            .check_against(&full.certificates, &RustCrypto)
            .expect("the rebuilt seeds are the vault's");
        // A plain export carries the newest certificate only: the older generations come
        // back for decryption, with the original keys.
        let plain = id.public.export(false);
        let back = with_export(master(3), &plain, &RustCrypto).unwrap();
        assert_eq!(back.decryption_only, vec![1, 2]);
        let keys = back
            .identity
            .secrets
            .check_against(&plain.certificates, &RustCrypto)
            .expect("the rebuilt seeds are the vault's");
        let original = id.secrets.decryption_keys(&RustCrypto);
        for g in 1..=3 {
            for level in crate::suite::hybrid_kem::KemLevel::ALL {
                assert_eq!(
                    keys.find(g, level).unwrap().key().public_key(),
                    original.find(g, level).unwrap().key().public_key(),
                    "generation {g}"
                );
            }
        }
        assert_eq!(keys.newest_generation(), Some(3));
        assert!(
            back.identity.secrets.generations[..2]
                .iter()
                .all(|g| g.sig.is_none())
        );
    }

    #[test]
    fn another_identity_or_random_keys_are_refused() {
        let id = rotated(4, 0);
        let e = with_export(master(5), &id.public, &RustCrypto)
            .err()
            .unwrap();
        assert!(e.message().contains("the export is of"), "{e}");
        // Same root, but a generation whose keys are random (as a format 1 rotation makes).
        let mut public = id.public.clone();
        let mut secrets = id.secrets;
        let random = RootKeys::random(master(4).root());
        rotation::rotate(
            &mut public,
            &mut secrets,
            &random,
            &RustCrypto,
            3_000,
            &RotateOptions {
                validity_days: 30,
                ..Default::default()
            },
        )
        .unwrap();
        let e = with_export(master(4), &public, &RustCrypto).err().unwrap();
        assert!(e.message().contains("generation 2"), "{e}");
    }

    #[test]
    fn the_drill_names_what_the_words_rebuild() {
        let id = rotated(7, 1);
        let yes = check(master(7), &id.public, &RustCrypto);
        assert!(yes.recovers && yes.same_root);
        assert_eq!(yes.generations, vec![1, 2]);
        let no = check(master(8), &id.public, &RustCrypto);
        assert!(!no.recovers && !no.same_root && no.generations.is_empty());
    }

    #[test]
    fn without_an_export_the_root_and_generation_1_come_back() {
        let id = rotated(6, 2);
        let back = without_export(master(6), &RustCrypto, 5_000, 1);
        assert_eq!(back.identity.public.root_pk, id.public.root_pk);
        assert_eq!(
            back.identity.public.certificates[0].keys,
            id.public.certificates[0].keys
        );
        assert!(back.decryption_only.is_empty());
        // Told how many generations there were, the later ones come back to decrypt.
        let back = without_export(master(6), &RustCrypto, 5_000, 3);
        assert_eq!(back.decryption_only, vec![2, 3]);
        let keys = back
            .identity
            .secrets
            .check_against(&back.identity.public.certificates, &RustCrypto)
            .unwrap();
        let original = id.secrets.decryption_keys(&RustCrypto);
        for g in 1..=3 {
            let level = crate::suite::hybrid_kem::KemLevel::MlKem768;
            assert_eq!(
                keys.find(g, level).unwrap().key().public_key(),
                original.find(g, level).unwrap().key().public_key()
            );
        }
        // Generation 1 is the one in use; 2 and 3 are not "newer" in use.
        assert_eq!(keys.newest_generation(), Some(1));
    }
}

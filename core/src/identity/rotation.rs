//! Key rotation (docs/security.md, section 2): a new generation certified by the root, the previous
//! one superseded (signing secrets erased, decapsulation keys kept), optionally older ones
//! retired (decapsulation keys erased) and earlier signing keys revoked.

use super::SECONDS_PER_DAY;
use super::certificate::{self, Certificate, reason_defect};
use super::generation::SecretSection;
use super::public::PublicIdentity;
use super::revocation::{Revocation, RevocationScope};
use crate::error::{Error, Result};
use crate::identity::RootKeys;
use crate::suite::Backend;

/// Longest validity `rotate --validity` accepts: ten years.
pub const MAX_VALIDITY_DAYS: u32 = 3650;

/// What `rotate` was asked to do.
#[derive(Clone, Debug, Default)]
pub struct RotateOptions {
    /// The new certificate's reason (`--reason`); public. Checked by [`reason_defect`].
    pub reason: String,
    /// Validity of the new certificate in days, 1..=[`MAX_VALIDITY_DAYS`].
    pub validity_days: u32,
    /// Also issue a root-signed revocation of every earlier generation's signing keys.
    pub compromised: bool,
    /// Erase the decapsulation keys of generations older than the newest N (N >= 1).
    pub retire_older_than: Option<u32>,
    /// The generations the user agreed to retire, as [`retire_set`] listed them from a read
    /// made before the vault was locked. Under the lock the set is computed again; if it
    /// differs (a rotation came in between), nothing is changed. `None`: no confirmation was
    /// asked (`--yes`), so whatever `retire_older_than` means under the lock is done.
    pub confirmed_retire: Option<Vec<u32>>,
}

/// What makes a [`RotateOptions`] unusable, found before anything is unlocked; a caller
/// names the option as its user gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionDefect {
    /// The reason is not a short line of plain text; the text says how ("is longer than ...",
    /// "holds a control character ...").
    Reason(String),
    /// The validity (in days) is outside 1..=[`MAX_VALIDITY_DAYS`].
    Validity(u32),
    /// Retiring all but the newest 0 generations would retire the newest.
    RetireNewest,
}

impl RotateOptions {
    /// The first defect of these options, if any.
    pub fn defect(&self) -> Option<OptionDefect> {
        if let Some(defect) = reason_defect(&self.reason) {
            return Some(OptionDefect::Reason(defect));
        }
        if !(1..=MAX_VALIDITY_DAYS).contains(&self.validity_days) {
            return Some(OptionDefect::Validity(self.validity_days));
        }
        if self.retire_older_than == Some(0) {
            return Some(OptionDefect::RetireNewest);
        }
        None
    }

    /// Usage errors, found before anything is unlocked, in the library's words.
    pub fn check(&self) -> Result<()> {
        match self.defect() {
            None => Ok(()),
            Some(OptionDefect::Reason(defect)) => Err(Error::usage(
                format!("the reason {defect}"),
                "use a short line of plain text as the reason (it is public: it travels in \
                 exports and signatures)",
            )),
            Some(OptionDefect::Validity(days)) => Err(Error::usage(
                format!("a validity of {days} days is outside 1..={MAX_VALIDITY_DAYS} days"),
                format!("give the new generation 1 to {MAX_VALIDITY_DAYS} days, e.g. 180"),
            )),
            Some(OptionDefect::RetireNewest) => Err(Error::usage(
                "retiring all but the newest 0 generations would retire the newest generation",
                "keep at least the newest generation's decapsulation keys",
            )),
        }
    }
}

/// What a rotation did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotated {
    /// The new generation's number.
    pub generation: u32,
    /// End of the new certificate's validity (Unix seconds).
    pub not_after: u64,
    /// Generations whose decapsulation keys were erased by this rotation.
    pub retired: Vec<u32>,
    /// `Some(g)` when this rotation revoked the signing keys of every generation before `g`
    /// (`--compromised`).
    pub revoked_signing_before: Option<u32>,
}

/// Generations that `retire_older_than = n` covers now: all but the newest n, counting the
/// one about to be made, whether or not their keys are still there. Needs only the public part,
/// so it can be shown before the password is asked for.
pub fn retire_set(public: &PublicIdentity, n: u32) -> Vec<u32> {
    let total = public.certificates.len() + 1; // with the generation about to be made
    let keep = (n as usize).min(total);
    public.certificates[..total - keep]
        .iter()
        .map(|c| c.generation)
        .collect()
}

/// The highest "signing keys before n are revoked" this identity knows, from its certificates
/// and its revocation statements (0: none).
pub fn signing_revoked_before(public: &PublicIdentity) -> u32 {
    let from_certs = public.certificates.iter().map(|c| c.signing_revoked_before);
    let from_statements = public.revocations.iter().filter_map(|r| match r.scope {
        RevocationScope::SigningKeysBefore(n) => Some(n),
        RevocationScope::Identity => None,
    });
    from_certs.chain(from_statements).max().unwrap_or(0)
}

/// Add generation g+1 to `public` and `secrets`, in memory.
pub fn rotate(
    public: &mut PublicIdentity,
    secrets: &mut SecretSection,
    keys: &RootKeys,
    backend: &dyn Backend,
    now: u64,
    opts: &RotateOptions,
) -> Result<Rotated> {
    opts.check()?;
    let planned = match opts.retire_older_than {
        Some(n) => retire_set(public, n),
        None => Vec::new(),
    };
    if let Some(confirmed) = &opts.confirmed_retire
        && *confirmed != planned
    {
        let list = |g: &[u32]| {
            if g.is_empty() {
                "none".to_string()
            } else {
                g.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            }
        };
        return Err(Error::io(
            format!(
                "the vault changed after you confirmed (another rotation?): it would now retire \
                 generations {} instead of the confirmed {}; nothing was changed",
                list(&planned),
                list(confirmed)
            ),
            "run the command again and check what it lists",
        ));
    }
    let newest = public.newest();
    // Past every number the vault holds: a generation recovered for decryption only
    // (uncertified) may be newer than the newest certificate, and its number is taken.
    let highest = secrets.highest().unwrap_or(0).max(newest.generation);
    let generation = highest.checked_add(1).ok_or_else(|| {
        Error::vault(
            "this vault has used every generation number",
            "create a new identity",
        )
    })?;
    let prev_hash = newest.hash();
    let root_id = public.root_id();
    let new_secrets = keys.new_generation(generation);
    let root = keys.root();
    let keys = new_secrets
        .public_keys(backend)
        .expect("a new generation holds every key");
    let not_after = now + u64::from(opts.validity_days) * SECONDS_PER_DAY;
    // The new certificate carries the revocation, its own or one an earlier rotation made, so
    // that the newest certificate alone (a plain export) tells verifiers about it.
    let signing_revoked_before = if opts.compromised {
        generation
    } else {
        // A statement may name a later generation than this one (`identity revoke` publishes
        // any statement of this root); the field cannot.
        signing_revoked_before(public).min(generation)
    };
    let cert = Certificate::sign(
        root,
        backend,
        Certificate {
            version: certificate::VERSION,
            root_id,
            generation,
            created: now,
            not_after,
            keys,
            prev_hash,
            signing_revoked_before,
            reason: opts.reason.clone(),
            signature: Vec::new(),
        },
    );
    // Retired: every generation older than the oldest one kept, so with the certified
    // generations `planned` names the uncertified ones below them (docs/recovery.md).
    let oldest_kept = planned.iter().max().map(|&g| {
        public
            .certificates
            .iter()
            .map(|c| c.generation)
            .find(|&c| c > g)
            .unwrap_or(generation)
    });
    let mut retired = Vec::new();
    for g in &mut secrets.generations {
        // Superseded: signing secrets erased (SecretBytes zeroizes on drop).
        g.sig = None;
        if oldest_kept.is_some_and(|kept| g.generation < kept) && g.kem.take().is_some() {
            retired.push(g.generation);
        }
    }
    secrets.generations.push(new_secrets);
    public.certificates.push(cert);
    let revoked_signing_before = opts.compromised.then(|| {
        public.revocations.push(Revocation::issue(
            root,
            backend,
            root_id,
            RevocationScope::SigningKeysBefore(generation),
            now,
            if opts.reason.is_empty() {
                "compromised".to_string()
            } else {
                opts.reason.clone()
            },
        ));
        generation
    });
    Ok(Rotated {
        generation,
        not_after,
        retired,
        revoked_signing_before,
    })
}

/// Add a root-signed revocation statement to the identity, after checking it is this root's.
/// Returns false when it was already there.
pub fn publish_revocation(
    public: &mut PublicIdentity,
    revocation: Revocation,
    backend: &dyn Backend,
) -> Result<bool> {
    if !revocation.verify(backend, &public.root_pk) {
        return Err(Error::check(
            "the revocation statement is not signed by this vault's root key",
            "it belongs to another identity, or was altered; use the one written when this vault was made",
        ));
    }
    if public.revocations.contains(&revocation) {
        return Ok(false);
    }
    public.revocations.push(revocation);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::NewIdentity;
    use crate::suite::native::Native;
    use crate::suite::rustcrypto::RustCrypto;

    fn opts() -> RotateOptions {
        RotateOptions {
            reason: "scheduled".into(),
            validity_days: 30,
            ..Default::default()
        }
    }

    #[test]
    fn rotation_supersedes_retires_and_chains() {
        let NewIdentity {
            keys: root,
            mut public,
            mut secrets,
            ..
        } = NewIdentity::generate(&RustCrypto, 100);
        let fp = public.root_id();
        // Generations 2 and 4 certified by the native backend: every certificate verifies
        // on both.
        for expected in 2..=4 {
            let backend: &dyn Backend = if expected % 2 == 0 {
                &Native
            } else {
                &RustCrypto
            };
            let r = rotate(&mut public, &mut secrets, &root, backend, 200, &opts()).unwrap();
            assert_eq!(r.generation, expected);
            assert_eq!(r.not_after, 200 + 30 * SECONDS_PER_DAY);
        }
        assert_eq!(public.root_id(), fp, "the fingerprint never changes");
        public.check_structure().unwrap();
        public.check_full_history().unwrap();
        public.verify_signatures(&RustCrypto).unwrap();
        public.verify_signatures(&Native).unwrap();
        secrets
            .check_against(&public.certificates, &RustCrypto)
            .unwrap();
        assert!(
            secrets.generations[..3]
                .iter()
                .all(|g| g.sig.is_none() && g.kem.is_some())
        );
        // Retire all but the newest 2 (counting the new generation 5): 1, 2 and 3 go.
        let mut o = opts();
        o.retire_older_than = Some(2);
        o.compromised = true;
        let r = rotate(&mut public, &mut secrets, &root, &RustCrypto, 300, &o).unwrap();
        assert_eq!(r.retired, vec![1, 2, 3]);
        assert_eq!(r.revoked_signing_before, Some(5));
        assert!(secrets.generations[..3].iter().all(|g| g.kem.is_none()));
        assert!(secrets.generations[3].kem.is_some() && secrets.generations[4].sig.is_some());
        secrets
            .check_against(&public.certificates, &RustCrypto)
            .unwrap();
        assert_eq!(public.revocations.len(), 1);
        public.verify_signatures(&RustCrypto).unwrap();
    }

    /// A vault recovered with generations 2 and 3 for decryption only (no export, `recover
    /// --generations 3`): rotation certifies 4, never a number it holds, and retiring counts
    /// certified generations, taking the uncertified ones below the oldest kept.
    #[test]
    fn rotation_goes_past_uncertified_generations_and_retires_them_with_the_rest() {
        let NewIdentity {
            keys: root,
            mut public,
            mut secrets,
            ..
        } = NewIdentity::generate(&RustCrypto, 100);
        for g in 2..=3 {
            secrets
                .generations
                .push(root.new_generation(g).decryption_only());
        }
        let r = rotate(&mut public, &mut secrets, &root, &RustCrypto, 200, &opts()).unwrap();
        assert_eq!(r.generation, 4);
        assert!(r.retired.is_empty());
        let certified: Vec<u32> = public.certificates.iter().map(|c| c.generation).collect();
        assert_eq!(certified, [1, 4]);
        let keys = secrets
            .check_against(&public.certificates, &RustCrypto)
            .unwrap();
        assert_eq!(keys.newest_generation(), Some(4));
        assert_eq!(keys.len(), 8);
        // Keep the newest 2 certified (4 and the new 5): 1, and 2 and 3 below 4, go.
        let mut o = opts();
        o.retire_older_than = Some(2);
        let r = rotate(&mut public, &mut secrets, &root, &RustCrypto, 300, &o).unwrap();
        assert_eq!(r.generation, 5);
        assert_eq!(r.retired, vec![1, 2, 3]);
        secrets
            .check_against(&public.certificates, &RustCrypto)
            .unwrap();
    }

    #[test]
    fn compromise_travels_in_every_later_certificate() {
        let NewIdentity {
            keys: root,
            mut public,
            mut secrets,
            ..
        } = NewIdentity::generate(&RustCrypto, 100);
        let plain = opts();
        rotate(&mut public, &mut secrets, &root, &RustCrypto, 200, &plain).unwrap();
        assert_eq!(public.newest().signing_revoked_before, 0);
        let compromised = RotateOptions {
            compromised: true,
            ..opts()
        };
        rotate(
            &mut public,
            &mut secrets,
            &root,
            &RustCrypto,
            300,
            &compromised,
        )
        .unwrap();
        assert_eq!(public.newest().generation, 3);
        assert_eq!(public.newest().signing_revoked_before, 3);
        for _ in 0..2 {
            rotate(&mut public, &mut secrets, &root, &RustCrypto, 400, &plain).unwrap();
            assert_eq!(public.newest().signing_revoked_before, 3, "carried forward");
        }
        assert!(public.certificates.iter().all(|c| c.version == 2));
        public.check_structure().unwrap();
        public.verify_signatures(&RustCrypto).unwrap();
        // A vault from before version 2 certificates: the fact is only in its statement, and
        // the next certificate picks it up from there.
        let mut old = public.clone();
        for c in &mut old.certificates {
            c.signing_revoked_before = 0;
        }
        assert_eq!(signing_revoked_before(&old), 3);
        old.revocations.clear();
        assert_eq!(signing_revoked_before(&old), 0);
    }

    #[test]
    fn a_confirmed_retire_set_that_no_longer_holds_changes_nothing() {
        let NewIdentity {
            keys: root,
            mut public,
            mut secrets,
            ..
        } = NewIdentity::generate(&RustCrypto, 100);
        rotate(&mut public, &mut secrets, &root, &RustCrypto, 200, &opts()).unwrap();
        // Confirmed with two generations: keep the newest 2 of 3, so generation 1 goes.
        let confirmed = retire_set(&public, 2);
        assert_eq!(confirmed, vec![1]);
        // A rotation comes in between (the weekly job): now 1 and 2 would go.
        rotate(&mut public, &mut secrets, &root, &RustCrypto, 300, &opts()).unwrap();
        let (before_public, before_secrets) = (public.clone(), secrets.encode());
        let o = RotateOptions {
            retire_older_than: Some(2),
            confirmed_retire: Some(confirmed),
            ..opts()
        };
        let e = rotate(&mut public, &mut secrets, &root, &RustCrypto, 400, &o).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Io);
        assert!(
            e.message().contains("1, 2 instead of the confirmed 1")
                && e.message().contains("nothing was changed"),
            "{e:?}"
        );
        assert_eq!(public, before_public);
        assert_eq!(*secrets.encode(), *before_secrets);
        // Confirmed "nothing" while a rotation made something retirable: refused too.
        let o = RotateOptions {
            retire_older_than: Some(3),
            confirmed_retire: Some(vec![]),
            ..opts()
        };
        assert!(rotate(&mut public, &mut secrets, &root, &RustCrypto, 400, &o).is_err());
        // The set as it is now: done.
        let o = RotateOptions {
            retire_older_than: Some(2),
            confirmed_retire: Some(retire_set(&public, 2)),
            ..opts()
        };
        let r = rotate(&mut public, &mut secrets, &root, &RustCrypto, 400, &o).unwrap();
        assert_eq!(r.retired, vec![1, 2]);
    }

    #[test]
    fn option_checks() {
        assert!(
            RotateOptions {
                reason: "x".repeat(201),
                ..opts()
            }
            .check()
            .is_err()
        );
        for hostile in ["\r\x1b[2Kfingerprint: x", "two\nlines", "\u{202e}gnp.exe"] {
            let e = RotateOptions {
                reason: hostile.into(),
                ..opts()
            }
            .check()
            .unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::Usage);
            assert!(e.message().contains("control character"), "{e:?}");
        }
        assert!(
            RotateOptions {
                validity_days: 0,
                ..opts()
            }
            .check()
            .is_err()
        );
        assert!(
            RotateOptions {
                retire_older_than: Some(0),
                ..opts()
            }
            .check()
            .is_err()
        );
        assert!(opts().check().is_ok());
    }

    #[test]
    fn foreign_revocations_are_refused() {
        let a = NewIdentity::generate(&RustCrypto, 1);
        let b = NewIdentity::generate(&RustCrypto, 1);
        let mut public = a.public.clone();
        assert!(publish_revocation(&mut public, b.revocation, &RustCrypto).is_err());
        assert!(publish_revocation(&mut public, a.revocation.clone(), &Native).unwrap());
        assert!(!publish_revocation(&mut public, a.revocation, &RustCrypto).unwrap());
    }
}

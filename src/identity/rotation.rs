//! Key rotation (DESIGN.md section 3): a new generation certified by the root, the previous
//! one superseded (signing secrets erased, decapsulation keys kept), optionally older ones
//! retired (decapsulation keys erased) and earlier signing keys revoked.

use super::SECONDS_PER_DAY;
use super::certificate::{Certificate, MAX_REASON_LEN};
use super::generation::{GenerationSecrets, SecretSection};
use super::public::PublicIdentity;
use super::revocation::{Revocation, RevocationScope};
use crate::error::{Error, Result};
use crate::suite::Backend;
use crate::suite::root_sig::RootSecret;

/// Longest validity `rotate --validity` accepts: ten years.
pub const MAX_VALIDITY_DAYS: u32 = 3650;

#[derive(Clone, Debug, Default)]
pub struct RotateOptions {
    pub reason: String,
    pub validity_days: u32,
    /// Also issue a root-signed revocation of every earlier generation's signing keys.
    pub compromised: bool,
    /// Erase the decapsulation keys of generations older than the newest N (N >= 1).
    pub retire_older_than: Option<u32>,
}

impl RotateOptions {
    /// Usage errors, found before anything is unlocked.
    pub fn check(&self) -> Result<()> {
        if self.reason.len() > MAX_REASON_LEN {
            return Err(Error::usage(
                format!(
                    "the reason is {} bytes; at most {MAX_REASON_LEN} are allowed",
                    self.reason.len()
                ),
                "shorten --reason (it is public: it travels in exports and signatures)",
            ));
        }
        if !(1..=MAX_VALIDITY_DAYS).contains(&self.validity_days) {
            return Err(Error::usage(
                format!(
                    "--validity {} is outside 1..={MAX_VALIDITY_DAYS} days",
                    self.validity_days
                ),
                "pass a number of days, e.g. --validity 180",
            ));
        }
        if self.retire_older_than == Some(0) {
            return Err(Error::usage(
                "--retire-older-than 0 would retire the newest generation",
                "pass N >= 1: the newest N generations keep their decapsulation keys",
            ));
        }
        Ok(())
    }
}

/// What a rotation did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotated {
    pub generation: u32,
    pub not_after: u64,
    /// Generations whose decapsulation keys were erased by this rotation.
    pub retired: Vec<u32>,
    pub revoked_signing_before: Option<u32>,
}

/// Generations that `retire_older_than = n` would retire now, counting the new one.
pub fn would_retire(secrets: &SecretSection, n: u32) -> Vec<u32> {
    let total = secrets.generations.len() + 1; // with the generation about to be made
    let keep = (n as usize).min(total);
    secrets.generations[..total - keep]
        .iter()
        .filter(|g| g.kem.is_some())
        .map(|g| g.generation)
        .collect()
}

/// Add generation g+1 to `public` and `secrets`, in memory.
pub fn rotate(
    public: &mut PublicIdentity,
    secrets: &mut SecretSection,
    root: &RootSecret,
    backend: &dyn Backend,
    now: u64,
    opts: &RotateOptions,
) -> Result<Rotated> {
    opts.check()?;
    let newest = public.newest();
    let generation = newest.generation.checked_add(1).ok_or_else(|| {
        Error::vault(
            "this vault has used every generation number",
            "create a new identity",
        )
    })?;
    let prev_hash = newest.hash();
    let root_id = public.root_id();
    let new_secrets = GenerationSecrets::generate(generation);
    let keys = new_secrets
        .public_keys(backend)
        .expect("a new generation holds every key");
    let not_after = now + u64::from(opts.validity_days) * SECONDS_PER_DAY;
    let cert = Certificate::issue(
        root,
        backend,
        root_id,
        generation,
        now,
        not_after,
        keys,
        prev_hash,
        opts.reason.clone(),
    );
    let retired = match opts.retire_older_than {
        Some(n) => would_retire(secrets, n),
        None => Vec::new(),
    };
    for g in &mut secrets.generations {
        // Superseded: signing secrets erased (SecretBytes zeroizes on drop).
        g.sig = None;
        if retired.contains(&g.generation) {
            g.kem = None;
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
            "it belongs to another identity, or was altered; use the one `nexusq init` wrote for this vault",
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
            root,
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

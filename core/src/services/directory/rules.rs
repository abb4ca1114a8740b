//! What the directory does with an upload of a nexusq export, given what it holds for the same
//! fingerprint. The first upload is taken as it is; after that, the contacts book's rules
//! decide: certificates only along the chain, revocations only ever added. An older export
//! changes nothing, a stripped revocation is never dropped, and another certificate for a
//! generation already held (a fork) is refused, for the server to keep as evidence.

use super::api::Outcome;
use crate::contacts::{ChainRefusal, merge_chain};
use crate::identity::PublicIdentity;

/// The verdict on one upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Accepted: what to hold from now on (`merged`) and what the upload did.
    Accepted {
        /// The identity as the directory serves it after the upload.
        merged: PublicIdentity,
        /// What changed.
        outcome: Outcome,
    },
    /// Another certificate for a generation the directory holds: refused, kept as evidence.
    Fork {
        /// The generation certified twice.
        generation: u32,
    },
    /// The upload does not continue the chain the directory holds (a gap, a broken link).
    Broken(String),
}

/// Judge `incoming` (an export whose signatures were checked) against what is `stored` for
/// its fingerprint.
pub fn judge(stored: Option<&PublicIdentity>, incoming: &PublicIdentity) -> Judgement {
    let Some(stored) = stored else {
        return Judgement::Accepted {
            merged: incoming.clone(),
            outcome: Outcome::First,
        };
    };
    match merge_chain(stored, incoming) {
        Ok((merged, merge)) => {
            let outcome = if merge.certificates_added > 0 {
                Outcome::Extended
            } else if merge.revocations_added > 0 {
                Outcome::Revocations
            } else if incoming.newest().generation < stored.newest().generation
                || incoming.revocations.len() < stored.revocations.len()
            {
                Outcome::Older
            } else {
                Outcome::Unchanged
            };
            Judgement::Accepted { merged, outcome }
        }
        Err(ChainRefusal::Fork { generation }) => Judgement::Fork { generation },
        Err(ChainRefusal::Broken(why)) => Judgement::Broken(why),
        // The directory files an upload under its own root's fingerprint.
        Err(ChainRefusal::OtherRoot) => unreachable_other_root(),
    }
}

/// Uploads are filed by their own fingerprint, so another root never meets a stored one; were
/// it to, treating it as a broken chain refuses it without touching what is held.
fn unreachable_other_root() -> Judgement {
    Judgement::Broken("the upload is of another identity than the one held".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::rotation::{self, RotateOptions};
    use crate::identity::{NewIdentity, SecretSection};
    use crate::suite::rustcrypto::RustCrypto;

    const NOW: u64 = 1_800_000_000;

    /// `public` with one more generation, as `keys` certify it at `at`.
    fn rotated(id: &NewIdentity, public: &PublicIdentity, at: u64) -> PublicIdentity {
        let mut public = public.clone();
        let mut secrets = SecretSection {
            generations: Vec::new(),
        };
        rotation::rotate(
            &mut public,
            &mut secrets,
            &id.keys,
            &RustCrypto,
            at,
            &RotateOptions {
                validity_days: 180,
                ..RotateOptions::default()
            },
        )
        .unwrap();
        public
    }

    #[test]
    fn first_then_extension_then_older_and_a_fork() {
        let alice = NewIdentity::generate(&RustCrypto, NOW);
        let day_one = alice.public.export(true);
        assert!(matches!(
            judge(None, &day_one),
            Judgement::Accepted {
                outcome: Outcome::First,
                ..
            }
        ));
        let two = rotated(&alice, &alice.public, NOW + 10);
        let held = match judge(Some(&day_one), &two.export(false)) {
            Judgement::Accepted { merged, outcome } => {
                assert_eq!(outcome, Outcome::Extended);
                assert_eq!(merged.newest().generation, 2);
                assert_eq!(merged.certificates.len(), 2);
                merged
            }
            other => panic!("{other:?}"),
        };
        // Day one's export again: nothing changes.
        match judge(Some(&held), &day_one) {
            Judgement::Accepted { merged, outcome } => {
                assert_eq!(outcome, Outcome::Older);
                assert_eq!(merged, held);
            }
            other => panic!("{other:?}"),
        }
        // Another generation 2 made with the same root: a fork.
        let other_two = rotated(&alice, &alice.public, NOW + 20);
        assert_eq!(
            judge(Some(&held), &other_two.export(true)),
            Judgement::Fork { generation: 2 }
        );
    }

    #[test]
    fn a_revocation_is_added_and_never_stripped() {
        let alice = NewIdentity::generate(&RustCrypto, NOW);
        let before = alice.public.export(true);
        let mut revoked = alice.public.export(true);
        revoked.revocations.push(alice.revocation.clone());
        let held = match judge(Some(&before), &revoked) {
            Judgement::Accepted { merged, outcome } => {
                assert_eq!(outcome, Outcome::Revocations);
                merged
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(held.revocations.len(), 1);
        match judge(Some(&held), &before) {
            Judgement::Accepted { merged, outcome } => {
                assert_eq!(outcome, Outcome::Older);
                assert_eq!(merged.revocations.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }
}

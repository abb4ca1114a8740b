//! Each generation's state as the identity's owner sees it: expired, signing revoked (after
//! `rotate --compromised` or a statement), retired (its decapsulation keys erased), and whether
//! files made for it can still be opened (docs/identity-format.md).

use super::PublicIdentity;
use super::rotation::signing_revoked_before;

/// One generation's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerationState {
    /// The generation.
    pub generation: u32,
    /// Its certificate has expired.
    pub expired: bool,
    /// Its signing keys were revoked.
    pub signing_revoked: bool,
    /// Its decapsulation keys were erased; `None` when unknown (retirement lives in the
    /// secret section, so without the password it is).
    pub retired: Option<bool>,
}

impl GenerationState {
    /// Files and envelopes made for it can still be opened (`None`: unknown, locked).
    pub fn decrypt_capable(&self) -> Option<bool> {
        self.retired.map(|r| !r)
    }

    /// What is wrong with it, in a few words each ("signing revoked", "expired"): nothing when
    /// it is in good standing. Retirement is not a fault and is not among them.
    pub fn concerns(&self) -> Vec<&'static str> {
        let mut words = Vec::new();
        if self.signing_revoked {
            words.push("signing revoked");
        }
        if self.expired {
            words.push("expired");
        }
        words
    }
}

/// The state of every generation of `public` at `now`, oldest first; `retired(g)` answers
/// for an unlocked vault.
pub fn generations(
    public: &PublicIdentity,
    now: u64,
    retired: Option<&dyn Fn(u32) -> bool>,
) -> Vec<GenerationState> {
    let signing_before = signing_revoked_before(public);
    public
        .certificates
        .iter()
        .map(|c| GenerationState {
            generation: c.generation,
            expired: c.is_expired(now),
            signing_revoked: c.generation < signing_before,
            retired: retired.map(|f| f(c.generation)),
        })
        .collect()
}

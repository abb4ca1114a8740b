//! The vault's own state per generation, as `vault open`, `vault unlock`, `identity history`
//! and `doctor` show it: revoked, signing-revoked, retired, expired, decrypt-capable.
//! Retirement lives in the secret section, so without the password it is unknown (`null`).

use nexusq_core::identity::{PublicIdentity, RevocationScope};
use serde_json::{Value, json};

/// One generation's state.
pub struct GenerationState {
    pub generation: u32,
    pub expired: bool,
    /// Its signing keys were revoked (`rotate --compromised`, or a statement).
    pub signing_revoked: bool,
    /// Its decapsulation keys were erased; `None` without the password.
    pub retired: Option<bool>,
}

impl GenerationState {
    /// Files and envelopes made for it can still be opened (`None`: unknown, locked).
    pub fn decrypt_capable(&self) -> Option<bool> {
        self.retired.map(|r| !r)
    }
}

/// Is the identity as a whole revoked (a statement of scope "identity" was published)?
pub fn identity_revoked(public: &PublicIdentity) -> bool {
    nexusq_core::identity::peer::is_revoked(public)
}

/// The state of every generation; `retired(g)` answers for an unlocked vault.
pub fn generations(
    public: &PublicIdentity,
    now: u64,
    retired: Option<&dyn Fn(u32) -> bool>,
) -> Vec<GenerationState> {
    let signing_before = public
        .certificates
        .iter()
        .map(|c| c.signing_revoked_before)
        .chain(public.revocations.iter().filter_map(|r| match r.scope {
            RevocationScope::SigningKeysBefore(g) => Some(g),
            RevocationScope::Identity => None,
        }))
        .max()
        .unwrap_or(0);
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

/// The JSON fields of one generation's state (merged into its row).
pub fn json_fields(s: &GenerationState, revoked: bool) -> Value {
    json!({
        "revoked": revoked,
        "signing_revoked": s.signing_revoked,
        "retired": s.retired,
        "expired": s.expired,
        "decrypt_capable": s.decrypt_capable(),
    })
}

/// Merge the state into a generation's JSON row.
pub fn merge_into(row: &mut Value, s: &GenerationState, revoked: bool) {
    if let (Some(obj), Value::Object(fields)) = (row.as_object_mut(), json_fields(s, revoked)) {
        obj.extend(fields);
    }
}

/// The words for people: "" when nothing is wrong, else e.g. " [expired, signing revoked]".
pub fn text(s: &GenerationState, revoked: bool) -> String {
    let mut words = Vec::new();
    if revoked {
        words.push("identity revoked");
    }
    if s.signing_revoked {
        words.push("signing revoked");
    }
    if s.expired {
        words.push("expired");
    }
    match s.retired {
        Some(true) => words.push("retired: cannot decrypt"),
        Some(false) => words.push("can decrypt"),
        None => {}
    }
    if words.is_empty() {
        String::new()
    } else {
        format!(" [{}]", words.join(", "))
    }
}

/// Rows for `vault open` / `vault unlock`: generation, dates and state.
pub fn rows(public: &PublicIdentity, states: &[GenerationState]) -> Vec<Value> {
    let revoked = identity_revoked(public);
    public
        .certificates
        .iter()
        .zip(states)
        .map(|(c, s)| {
            let mut row = json!({
                "generation": c.generation,
                "created": super::output::time(c.created),
                "not_after": super::output::time(c.not_after),
            });
            merge_into(&mut row, s, revoked);
            row
        })
        .collect()
}

/// Lines for `vault open` / `vault unlock`.
pub fn lines(public: &PublicIdentity, states: &[GenerationState]) -> String {
    let revoked = identity_revoked(public);
    let mut out = String::new();
    for (c, s) in public.certificates.iter().zip(states) {
        out.push_str(&format!(
            "\n  generation {}: valid until {}{}",
            c.generation,
            super::output::time(c.not_after),
            text(s, revoked)
        ));
    }
    out
}

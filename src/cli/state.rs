//! The vault's own state per generation (`nexusq_core::identity::state`), as `vault open`,
//! `vault unlock`, `identity history` and `doctor` show it: revoked, signing-revoked, retired,
//! expired, decrypt-capable. Retirement lives in the secret section, so without the password it
//! is unknown (`null`).

use nexusq_core::identity::PublicIdentity;
pub use nexusq_core::identity::state::{GenerationState, generations};
use serde_json::{Value, json};

/// Is the identity as a whole revoked (a statement of scope "identity" was published)?
pub fn identity_revoked(public: &PublicIdentity) -> bool {
    nexusq_core::identity::peer::is_revoked(public)
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
    words.extend(s.concerns());
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

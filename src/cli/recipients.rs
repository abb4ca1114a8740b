//! Whom a file is encrypted to, as the command line names them: every `--to` value named once
//! (a contact, a file, or an age key string), the exports read, and the library's
//! `nexusq_core::recipients` gathering them (the book applied, repeats collapsed, forks refused,
//! `--expect-fingerprint` checked both ways, `--to-self`). Shared by both file formats and by
//! `encapsulate`.

use super::Context;
use super::error::Result;
use nexusq_core::contacts::naming::Named;
use nexusq_core::identity::peer;
use nexusq_core::recipients::{Peer, Recipients, Resolved};
use serde_json::json;
use std::path::{Path, PathBuf};

/// "encrypting to alice (FP, generation 3) with SUITE, from file x.asc": who, and where from.
pub(super) fn recipient_line(verb: &str, r: &Resolved, generation: u32, suite: &str) -> String {
    let who = r.who(generation);
    let from = match r.file_label() {
        _ if r.own => " (your own identity)".to_string(),
        Some(file) => format!(", from {file}"),
        None => String::new(),
    };
    format!("{verb} to {who} with {suite}{from}")
}

/// One `--to` value and what it names, resolved once per command.
pub(super) struct To<'c> {
    /// The value as given.
    pub(super) value: PathBuf,
    /// What it names: a contact, a file, or an age key string.
    pub(super) named: Named<'c>,
}

/// Is this `--to` value an age key string rather than a file?
pub(super) fn is_key_string(to: &Path) -> bool {
    to.to_str()
        .is_some_and(|s| s.starts_with("age1") || s.starts_with("ssh-"))
}

/// Name every `--to` value once (docs/contacts.md, "Names where recipients and signers are
/// named"). An age key string is a key, whatever else its text could name, as `encrypt`
/// reads it; it costs no look at the book.
pub(super) fn name_all<'c>(ctx: &'c Context, values: &[PathBuf]) -> Result<Vec<To<'c>>> {
    values
        .iter()
        .map(|value| {
            let named = if is_key_string(value) {
                Named::AgeKey
            } else {
                super::contacts_cmd::resolve(ctx, value)?
            };
            Ok(To {
                value: value.clone(),
                named,
            })
        })
        .collect()
}

/// Where a recipient or signer came from, for `--json`: `contact` (the name, or null),
/// `contact_verified`, and `identity`, the file as given (or `@NAME` for a contact named as
/// such).
pub(super) fn json_into(r: &Resolved, row: &mut serde_json::Value) {
    row["contact"] = json!(r.contact.as_ref().map(|c| c.name.clone()));
    row["contact_verified"] = json!(r.contact.as_ref().map(|c| c.verified));
    match (&r.file, &r.contact) {
        (Some(f), _) => {
            row["identity"] = json!(f.display().to_string());
            super::output::path_bytes(row, &[("identity", f)]);
        }
        (None, Some(c)) => row["identity"] = json!(format!("@{}", c.name)),
        (None, None) => {}
    }
}

/// Read every export the `--to` values name (and the vault's own identity with `to_self`),
/// collapsing repeats of one identity.
pub(super) fn read_recipients(
    ctx: &Context,
    to: &[To<'_>],
    expect_fingerprint: &[String],
    to_self: bool,
) -> Result<Vec<Peer>> {
    let mut all = Recipients::new(peer::parse_fingerprints(expect_fingerprint)?);
    for t in to {
        // A file (which may hold several concatenated exports: a team's keys in one file), or
        // a contact by name (docs/contacts.md); either way with what the book knows applied.
        for resolved in super::contacts_cmd::identities_named(ctx, &t.value, &t.named)? {
            all.add(resolved, ctx)?;
        }
    }
    if to_self {
        let path = ctx.vault_path()?;
        let identity = nexusq_core::vault::open(&path)?.public;
        all.add_own(identity, &path, ctx.backend()?)?;
    }
    Ok(all.finish()?)
}

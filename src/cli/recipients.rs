//! The people named on the command line: the one place where a recipient or signer value
//! (`--to`, `--identity`, `identity show`) is resolved (`nexusq_core::contacts::naming`:
//! `@NAME` always a contact, a word that is both a contact and a file refused, a folder never
//! shadowing a contact; an age key string is a key), its export read, and the book's knowledge
//! applied (docs/contacts.md). For encryption every `--to` value is named once and the library's
//! `nexusq_core::recipients` gathers them (repeats collapsed, forks refused,
//! `--expect-fingerprint` checked both ways, `--to-self`): shared by both file formats and by
//! `encapsulate`.

use super::Context;
use super::error::{Error, Result};
use super::io as cio;
use nexusq_core::contacts::naming::{self, AtPath, Named};
use nexusq_core::identity::peer;
use nexusq_core::recipients::{self, Resolved};
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
                resolve(ctx, value)?
            };
            Ok(To {
                value: value.clone(),
                named,
            })
        })
        .collect()
}

/// What is at the path a value spells (a dangling link counts as a file: opening it says
/// what is wrong).
fn at_path(value: &Path) -> AtPath {
    match std::fs::metadata(value) {
        Ok(m) if m.is_dir() => AtPath::Folder,
        Ok(_) => AtPath::File,
        Err(_) if std::fs::symlink_metadata(value).is_ok() => AtPath::File,
        Err(_) => AtPath::Nothing,
    }
}

/// Resolve a `--to` / `--identity` / `identity show` value (`nexusq_core::contacts::naming`).
pub(super) fn resolve<'c>(ctx: &'c Context, value: &Path) -> Result<Named<'c>> {
    let Some(s) = value.to_str() else {
        return Ok(Named::File(value.to_path_buf()));
    };
    Ok(naming::resolve(s, at_path(value), || {
        Ok(&ctx.book()?.book)
    })?)
}

/// An age1pq1 key that is one of a contact's certified X-Wing keys is that contact, with what
/// the book knows (`nexusq_core::recipients::known_age_key`).
pub(super) fn known_age_key(
    ctx: &Context,
    pk: &[u8],
    now: u64,
    allow_expired: bool,
) -> Result<Option<(Vec<u8>, String)>> {
    Ok(recipients::known_age_key(
        &ctx.book()?.book,
        pk,
        now,
        allow_expired,
        ctx,
    )?)
}

/// Read the identity a `--to` / `--identity` / `identity show` value names: a checked export
/// file (with the book's knowledge of its root applied), or a contact's identity as the book
/// knows it.
pub(super) fn read_identity(ctx: &Context, value: &Path) -> Result<Resolved> {
    identity_named(ctx, value, &resolve(ctx, value)?)
}

/// [`read_identity`] of a value already resolved to `named`.
fn identity_named(ctx: &Context, value: &Path, named: &Named<'_>) -> Result<Resolved> {
    match named {
        Named::File(path) => {
            let what = super::output::untrusted_path(path);
            let bytes = read_export_bytes(path)?;
            let id = peer::parse_export(&bytes, &what, ctx.backend()?)?;
            Ok(recipients::apply_book(&ctx.book()?.book, id, path, ctx)?)
        }
        Named::AgeKey => Err(Error::usage(
            format!(
                "{} is an age key, not a nexusq identity",
                super::output::untrusted_path(value)
            ),
            "pass a nexusq export (`nexusq identity export`) or a contact name",
        )),
        // The library's hint names what an OpenPGP contact is for; an age contact's is said
        // here, with its name.
        Named::Contact(c) if recipients::openpgp_contact(c).is_some() => {
            Ok(recipients::contact_identity(c, ctx)?)
        }
        Named::Contact(c) => recipients::contact_identity(c, ctx).map_err(|e| {
            let hint = format!("encrypt to it with `nexusq encrypt --age --to {}`", c.name);
            Error::from(e.reworded_hint(hint))
        }),
    }
}

/// Like [`read_identity`], for a `--to` value already resolved to `named`: a file may hold
/// several concatenated exports.
pub(super) fn identities_named(
    ctx: &Context,
    value: &Path,
    named: &Named<'_>,
) -> Result<Vec<Resolved>> {
    if let Named::File(path) = named {
        let what = super::output::untrusted_path(path);
        let bytes = read_export_bytes(path)?;
        let book = &ctx.book()?.book;
        return peer::parse_exports(&bytes, &what, ctx.backend()?)?
            .into_iter()
            .map(|id| Ok(recipients::apply_book(book, id, path, ctx)?))
            .collect();
    }
    Ok(vec![identity_named(ctx, value, named)?])
}

/// An export from a file, a pipe, or stdin for `-`.
pub(super) fn read_export_bytes(path: &Path) -> Result<Vec<u8>> {
    cio::read_small(path, "a public identity")
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

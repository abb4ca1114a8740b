//! `nexusq contacts ...`: add, update, verify, remove, list, show, export and recover the
//! contacts book (docs/contacts.md). Names given where recipients and signers are named are
//! resolved in `cli::recipients`.

use super::Context;
use super::args::ContactsCommand;
use super::error::{Error, Result};
use nexusq_core::contacts::book::merge_identity;
use nexusq_core::contacts::store::{self, Inspection, Owner};
use nexusq_core::contacts::{Contact, ContactFingerprint, ContactKey, Merge, check_name};
use nexusq_core::format::age::recipient;
use nexusq_core::format::openpgp::book as pgp_contact;
use nexusq_core::format::openpgp::cert as pgp_cert;
use nexusq_core::identity::{PublicIdentity, peer};
use nexusq_core::suite::hybrid_kem::KemLevel;
use serde_json::json;
use std::io::Write;
use std::path::Path;

// ---------------------------------------------------------------------------------------------
// the commands

pub fn run(ctx: &Context, command: &ContactsCommand) -> Result<()> {
    match command {
        ContactsCommand::Add {
            name,
            source,
            expect_fingerprint,
            yes,
            ..
        } => add(ctx, name, source, expect_fingerprint.as_deref(), *yes),
        ContactsCommand::Verify {
            name, fingerprint, ..
        } => verify(ctx, name, fingerprint),
        ContactsCommand::List { names: false } => list(ctx),
        ContactsCommand::List { names: true } => list_names(ctx),
        ContactsCommand::Show { name } => show(ctx, name),
        ContactsCommand::Remove { name, .. } => remove(ctx, name),
        ContactsCommand::Export { names, all, age } => export(ctx, names, *all, *age),
        ContactsCommand::Update { name, file, .. } => update(ctx, name, file),
        ContactsCommand::Recover { yes, .. } => recover(ctx, *yes),
    }
}

/// Unlock the vault (its signing key signs the new book), then change the book.
fn change<T>(
    ctx: &Context,
    f: impl FnOnce(&mut nexusq_core::contacts::Book) -> nexusq_core::error::Result<T>,
) -> Result<T> {
    let path = ctx.book_path()?;
    let vault = ctx.vault_path()?;
    let unlocked = ctx.unlock()?;
    let owner = Owner {
        vault: &vault,
        public: &unlocked.file.public,
        secrets: &unlocked.secrets,
    };
    Ok(store::modify(
        &path,
        &ctx.save_options()?,
        &owner,
        ctx.backend()?,
        nexusq_core::time::now(),
        f,
    )?)
}

fn describe(c: &Contact, now: u64) -> String {
    match &c.key {
        ContactKey::Identity(id) => {
            let cert = id.newest();
            let mut s = format!(
                "generation {}, valid until {}",
                cert.generation,
                nexusq_core::time::rfc3339(cert.not_after)
            );
            if cert.is_expired(now) {
                s.push_str(" (expired)");
            }
            if peer::is_revoked(id) {
                s.push_str(", REVOKED");
            }
            s
        }
        ContactKey::Age(_) => "age recipient (short hash shown)".into(),
        ContactKey::OpenPgp(cert) => match pgp_contact::summary(cert, now) {
            Ok(s) => {
                let mut d = match s.expires {
                    Some(t) => format!(
                        "openpgp certificate, valid until {}",
                        nexusq_core::time::rfc3339(t)
                    ),
                    None => "openpgp certificate, no expiry".to_string(),
                };
                if s.expired {
                    d.push_str(" (expired)");
                }
                if s.revoked.is_some() {
                    d.push_str(", REVOKED");
                }
                d
            }
            Err(e) => format!("openpgp certificate (unreadable: {})", e.0),
        },
    }
}

fn add(ctx: &Context, name: &str, source: &str, expect: Option<&str>, yes: bool) -> Result<()> {
    check_name(name)?;
    let backend = ctx.backend()?;
    let key = if source.starts_with("age1") {
        let pk = recipient::parse_recipient(source).map_err(|e| {
            Error::usage(
                format!("the recipient {e}"),
                "pass one age1pq1… line, copied whole, or a nexusq export file",
            )
        })?;
        ContactKey::Age(pk)
    } else {
        let path = Path::new(source);
        let what = super::output::untrusted_path(path);
        let bytes = super::recipients::read_export_bytes(path)?;
        if pgp_contact::looks_like_openpgp_key(&bytes) {
            return add_openpgp(ctx, name, &bytes, &what, expect, yes);
        }
        ContactKey::Identity(peer::parse_export(&bytes, &what, backend)?)
    };
    // An identity already under this name: the update rules apply, and its root is pinned.
    if let (Some(existing), ContactKey::Identity(id)) = (ctx.book()?.book.get(name), &key)
        && existing.identity().is_some()
    {
        ctx.out.note(&format!(
            "{name} is already in the book; treating this as `contacts update {name}`"
        ));
        return apply_update(ctx, name, id);
    }
    let fp = key.fingerprint();
    let what = match &key {
        ContactKey::Identity(id) => format!(
            "fingerprint {fp} (nexusq identity, newest generation {})",
            id.newest().generation
        ),
        ContactKey::Age(_) => format!("short hash {fp} (age recipient)"),
        ContactKey::OpenPgp(_) => format!("OpenPGP fingerprint {fp} (OpenPGP certificate)"),
    };
    let kind = key.kind();
    let expected = expect
        .map(|typed| peer::parse_fingerprints(&[typed.to_string()]).map(|f| f[0]))
        .transpose()?
        .map(ContactFingerprint::Nexusq);
    let (verified, merge) = confirm_and_add(ctx, name, key, &fp, &what, expected, yes)?;
    ctx.out.json(&json!({
        "name": name,
        "kind": kind,
        "fingerprint": fp.plain(),
        "verified": verified,
        "generation": merge.newest_after,
        "added": true,
    }));
    Ok(())
}

/// The fingerprint compared (the question at the terminal, `--expect-fingerprint`, or `--yes`
/// for an unverified contact), then `key` added under `name`. Returns whether it is verified.
fn confirm_and_add(
    ctx: &Context,
    name: &str,
    key: ContactKey,
    fp: &ContactFingerprint,
    what: &str,
    expected: Option<ContactFingerprint>,
    yes: bool,
) -> Result<(bool, Merge)> {
    let verified = if let Some(want) = expected {
        if want != *fp {
            return Err(Error::check(
                format!("{name}: the {what} is not the expected {want}"),
                "you may have the wrong file, or someone swapped it; nothing was added",
            ));
        }
        true
    } else if yes {
        false
    } else {
        confirm(&format!(
            "{name}: {what}\ncompare it with its owner; add it? [y/N] "
        ))?
    };
    let now = nexusq_core::time::now();
    let merge = change(ctx, |b| b.add(name, key, verified, now))?;
    let state = if verified { "verified" } else { "unverified" };
    ctx.out.note(&format!("added {name}: {what}, {state}"));
    if !verified {
        ctx.out.note(&format!(
            "compare the fingerprint with its owner, then `nexusq contacts verify {name} {}`",
            fp.plain()
        ));
    }
    Ok((verified, merge))
}

/// `contacts add NAME CERT`: an OpenPGP certificate, checked as encryption and verification
/// check it (Sequoia's standard policy, not expired, not revoked, no secret key) and holding
/// a post-quantum key, pinned to its primary key. A name that already holds an OpenPGP
/// certificate is updated instead; one that holds another kind is refused.
fn add_openpgp(
    ctx: &Context,
    name: &str,
    bytes: &[u8],
    what: &str,
    expect: Option<&str>,
    yes: bool,
) -> Result<()> {
    let now = nexusq_core::time::now();
    let loaded = ctx.book()?;
    if let Some(ContactKey::OpenPgp(_)) = loaded.book.get(name).map(|c| &c.key) {
        ctx.out.note(&format!(
            "{name} is already in the book; treating this as `contacts update {name}`"
        ));
        return update_openpgp(ctx, name, bytes, what);
    }
    let peer = pgp_cert::parse(bytes, what, now)?;
    let offers = pgp_contact::offers(&peer, what, now)?;
    let key = ContactKey::OpenPgp(pgp_contact::encode(&peer.cert)?);
    // A name or a certificate already in the book is refused before any question.
    loaded.book.clone().add(name, key.clone(), false, now)?;
    let pgp_fp = peer.fingerprint();
    let fp = ContactFingerprint::OpenPgp(pgp_fp.clone());
    let user_id = peer.user_id(now);
    let what = match &user_id {
        Some(uid) => format!(
            "OpenPGP fingerprint {fp} (OpenPGP certificate, user ID \"{}\")",
            super::output::untrusted(uid)
        ),
        None => format!("OpenPGP fingerprint {fp} (OpenPGP certificate, no user ID)"),
    };
    let expected = expect
        .map(pgp_contact::parse_fingerprint)
        .transpose()?
        .map(ContactFingerprint::OpenPgp);
    let (verified, merge) = confirm_and_add(ctx, name, key, &fp, &what, expected, yes)?;
    if !offers.encryption {
        ctx.out.note(&format!(
            "{name}'s certificate has no ML-KEM-768+X25519 encryption subkey: nexusq can check \
             its signatures but not encrypt to it"
        ));
    }
    if !offers.signing {
        ctx.out.note(&format!(
            "{name}'s certificate has no post-quantum signing key: nexusq can encrypt to it \
             but will not accept its signatures"
        ));
    }
    ctx.out.json(&json!({
        "name": name,
        "kind": "openpgp",
        "fingerprint": fp.plain(),
        "openpgp_fingerprint": pgp_fp.to_hex(),
        "user_id": user_id,
        "encrypts": offers.encryption,
        "signs": offers.signing,
        "verified": verified,
        "generation": merge.newest_after,
        "added": true,
    }));
    Ok(())
}

/// `contacts update NAME CERT` (or `add` of a name holding an OpenPGP certificate): the
/// certificate merged into the contact's. Another primary key or another kind of contact is
/// refused before the password is asked for; a revocation it brings is kept and said.
fn update_openpgp(ctx: &Context, name: &str, bytes: &[u8], what: &str) -> Result<()> {
    let incoming = pgp_contact::read_update(bytes, what)?;
    let now = nexusq_core::time::now();
    ctx.book()?
        .book
        .clone()
        .update_openpgp(name, &incoming, now)?;
    let merge = change(ctx, |b| b.update_openpgp(name, &incoming, now))?;
    let mut added = Vec::new();
    for (n, one, many) in [
        (merge.keys_added, "key", "keys"),
        (merge.user_ids_added, "user ID", "user IDs"),
        (merge.signatures_added, "signature", "signatures"),
    ] {
        if n > 0 {
            added.push(format!("{n} new {}", if n == 1 { one } else { many }));
        }
    }
    if !added.is_empty() {
        ctx.out
            .note(&format!("updated {name}: {}", added.join(", ")));
    }
    if merge.revocations_added > 0 {
        ctx.out.warn(&format!(
            "{name}: {} new revocation(s) recorded; they stay applied",
            merge.revocations_added
        ));
    }
    if let Some(r) = &merge.revoked_now {
        let on = if r.created == 0 {
            String::new()
        } else {
            format!(" on {}", nexusq_core::time::rfc3339(r.created))
        };
        let why = if r.reason.is_empty() {
            String::new()
        } else {
            format!(" (\"{}\")", super::output::untrusted(&r.reason))
        };
        ctx.out.warn(&format!(
            "{name}'s OpenPGP certificate is now REVOKED: its owner revoked it{on}{why}; \
             nexusq will refuse to encrypt to {name} or to accept {name}'s signatures"
        ));
    }
    if !merge.changed() {
        ctx.out.note(&format!(
            "{name}: nothing new in this certificate; the book is unchanged"
        ));
    }
    ctx.out.json(&json!({
        "name": name,
        "kind": "openpgp",
        "generation_before": 0,
        "generation": 0,
        "certificates_added": 0,
        "keys_added": merge.keys_added,
        "user_ids_added": merge.user_ids_added,
        "signatures_added": merge.signatures_added,
        "revocations_added": merge.revocations_added,
        "revoked_now": merge.revoked_now.is_some(),
        "changed": merge.changed(),
    }));
    Ok(())
}

/// Ask a yes/no question at the terminal (`/dev/tty`); no terminal is a usage error.
fn confirm(question: &str) -> Result<bool> {
    match super::prompt::ask(question) {
        Some(true) => Ok(true),
        Some(false) => Err(Error::check(
            "not confirmed: nothing was added",
            "check the fingerprint with its owner, then run the command again",
        )),
        None => Err(Error::usage(
            "cannot ask to confirm the fingerprint: there is no terminal",
            "pass --expect-fingerprint FP (compared with its owner), or --yes to add it \
             unverified",
        )),
    }
}

fn update(ctx: &Context, name: &str, file: &Path) -> Result<()> {
    let what = super::output::untrusted_path(file);
    let bytes = super::recipients::read_export_bytes(file)?;
    if pgp_contact::looks_like_openpgp_key(&bytes) {
        return update_openpgp(ctx, name, &bytes, &what);
    }
    let id = peer::parse_export(&bytes, &what, ctx.backend()?)?;
    let loaded = ctx.book()?;
    let contact = loaded
        .book
        .get(name)
        .ok_or_else(|| loaded.book.unknown(name))?;
    // Refuse another root, a fork or another kind of contact before asking for the password.
    match &contact.key {
        ContactKey::Identity(known) => {
            merge_identity(known, &id)?;
        }
        ContactKey::Age(_) | ContactKey::OpenPgp(_) => {
            loaded
                .book
                .clone()
                .update(name, &id, nexusq_core::time::now())?;
        }
    }
    apply_update(ctx, name, &id)
}

fn apply_update(ctx: &Context, name: &str, id: &PublicIdentity) -> Result<()> {
    let now = nexusq_core::time::now();
    let (merge, revoked): (Merge, _) = change(ctx, |b| {
        let was_revoked = b
            .get(name)
            .and_then(Contact::identity)
            .is_some_and(peer::is_revoked);
        let merge = b.update(name, id, now)?;
        if was_revoked {
            return Ok((merge, None));
        }
        // The statement that revokes the whole identity, when this update brought it.
        let revoked = b.get(name).and_then(Contact::identity).and_then(|id| {
            id.revocations
                .iter()
                .find(|r| r.scope == nexusq_core::identity::RevocationScope::Identity)
                .cloned()
        });
        Ok((merge, revoked))
    })?;
    let given = id.newest().generation;
    if merge.newest_after > merge.newest_before {
        ctx.out.note(&format!(
            "updated {name}: generation {} -> {}",
            merge.newest_before, merge.newest_after
        ));
    } else if given < merge.newest_before {
        ctx.out.note(&format!(
            "this export's newest generation ({given}) is older than the book's ({}); {name} \
             was not rolled back",
            merge.newest_before
        ));
    }
    if merge.revocations_added > 0 {
        ctx.out.warn(&format!(
            "{name}: {} new revocation statement(s) recorded; they stay applied",
            merge.revocations_added
        ));
    }
    if let Some(r) = revoked {
        let why = if r.reason.is_empty() {
            String::new()
        } else {
            format!(" (\"{}\")", super::output::untrusted(&r.reason))
        };
        ctx.out.warn(&format!(
            "{name}'s identity is now REVOKED: its owner revoked it on {}{why}; nexusq will \
             refuse to encrypt to {name} or to accept {name}'s signatures",
            nexusq_core::time::rfc3339(r.created)
        ));
    }
    if !merge.changed() {
        ctx.out.note(&format!(
            "{name}: nothing new in this export; the book is unchanged"
        ));
    }
    ctx.out.json(&json!({
        "name": name,
        "generation_before": merge.newest_before,
        "generation": merge.newest_after,
        "certificates_added": merge.certificates_added,
        "revocations_added": merge.revocations_added,
        "changed": merge.changed(),
    }));
    Ok(())
}

fn verify(ctx: &Context, name: &str, typed: &str) -> Result<()> {
    let loaded = ctx.book()?;
    let c = loaded
        .book
        .get(name)
        .ok_or_else(|| loaded.book.unknown(name))?;
    let fp = match &c.key {
        ContactKey::OpenPgp(_) => {
            ContactFingerprint::OpenPgp(pgp_contact::parse_fingerprint(typed)?)
        }
        ContactKey::Identity(_) | ContactKey::Age(_) => {
            ContactFingerprint::Nexusq(peer::parse_fingerprints(&[typed.to_string()])?[0])
        }
    };
    if c.fingerprint() != fp {
        // Checked before the password is asked for; `Book::verify` checks again under the lock.
        return Err(Error::check(
            format!("{name}'s fingerprint is {}, not {fp}", c.fingerprint()),
            "you may have the wrong contact or the wrong fingerprint; compare with its owner \
             again, and if the contact is wrong, remove it",
        ));
    }
    change(ctx, |b| b.verify(name, &fp))?;
    ctx.out.note(&format!("{name} ({fp}) is verified"));
    ctx.out
        .json(&json!({"name": name, "fingerprint": fp.plain(), "verified": true}));
    Ok(())
}

fn remove(ctx: &Context, name: &str) -> Result<()> {
    let loaded = ctx.book()?;
    loaded
        .book
        .get(name)
        .ok_or_else(|| loaded.book.unknown(name))?;
    let gone = change(ctx, |b| b.remove(name))?;
    ctx.out
        .note(&format!("removed {name} ({})", gone.fingerprint()));
    ctx.out.json(&json!({"name": name, "removed": true}));
    Ok(())
}

fn contact_json(c: &Contact, now: u64) -> serde_json::Value {
    let mut v = json!({
        "name": c.name,
        "fingerprint": c.fingerprint().plain(),
        "verified": c.verified,
        "added": super::output::time(c.added),
        "updated": super::output::time(c.updated),
    });
    match &c.key {
        ContactKey::Identity(id) => {
            let cert = id.newest();
            v["kind"] = json!("nexusq");
            v["generation"] = json!(cert.generation);
            v["not_after"] = json!(super::output::time(cert.not_after));
            v["expired"] = json!(cert.is_expired(now));
            v["revoked"] = json!(peer::is_revoked(id));
            v["generations_known"] = json!(
                id.certificates
                    .iter()
                    .map(|c| c.generation)
                    .collect::<Vec<_>>()
            );
            v["revocations"] = json!(id.revocations.len());
        }
        ContactKey::Age(pk) => {
            v["kind"] = json!("age");
            v["age_recipient"] = json!(recipient::encode_recipient(pk));
            v["revoked"] = json!(false);
        }
        ContactKey::OpenPgp(cert) => {
            v["kind"] = json!("openpgp");
            v["openpgp_fingerprint"] = json!(c.fingerprint().plain());
            match pgp_contact::summary(cert, now) {
                Ok(s) => {
                    v["user_id"] = json!(s.user_id);
                    if let Some(t) = s.expires {
                        v["not_after"] = json!(super::output::time(t));
                    }
                    v["expired"] = json!(s.expired);
                    v["revoked"] = json!(s.revoked.is_some());
                    if let Some(r) = &s.revoked {
                        v["revocation"] = json!({
                            "created": (r.created > 0).then(|| super::output::time(r.created)),
                            "reason": r.reason,
                        });
                    }
                    if let Some(why) = &s.invalid {
                        v["invalid"] = json!(why);
                    }
                    v["keys"] = json!(
                        s.keys
                            .iter()
                            .map(|k| json!({
                                "fingerprint": k.fingerprint.to_hex(),
                                "primary": k.primary,
                                "algorithm": k.algorithm,
                                "post_quantum": k.post_quantum,
                                "usage": k.usage,
                                "created": super::output::time(k.created),
                                "expires": k.expires.map(super::output::time),
                                "revoked": k.revoked,
                            }))
                            .collect::<Vec<_>>()
                    );
                }
                Err(e) => v["invalid"] = json!(e.0),
            }
        }
    }
    v
}

fn list(ctx: &Context) -> Result<()> {
    let loaded = ctx.book()?;
    let now = nexusq_core::time::now();
    // The save counter and time, so that an older copy put back can be noticed (docs/contacts.md).
    let path = ctx.book_path()?;
    let mut book = json!({
        "path": path.display().to_string(),
        "saves": loaded.book.seq,
        "saved_at": (loaded.book.seq > 0).then(|| super::output::time(loaded.saved_at)),
        "signed_by_generation": loaded.signed_by,
    });
    super::output::path_bytes(&mut book, &[("path", &path)]);
    ctx.out.json(&json!({
        "contacts": loaded.book.contacts.iter().map(|c| contact_json(c, now)).collect::<Vec<_>>(),
        "book": book,
    }));
    if !ctx.global.json {
        if loaded.book.contacts.is_empty() {
            ctx.out
                .note("the contacts book is empty; `nexusq contacts add NAME FILE` adds one");
        }
        for c in &loaded.book.contacts {
            let state = if c.verified { "verified" } else { "UNVERIFIED" };
            ctx.out.data(&format!(
                "{:<20} {}  {state:<10}  {}",
                c.name,
                c.fingerprint(),
                describe(c, now)
            ));
        }
    }
    Ok(())
}

/// `contacts list --names`: the names alone, one per line, for scripts and the shell
/// completions (docs/cli.md, "Shell completion"). Reading the book needs no password, and an
/// empty or missing book prints nothing. A name needs no escaping: the book's decoder refuses
/// any name outside letters, digits, `.`, `-`, `_` and `@` (`check_name`), so one name is
/// always one line and one shell word.
fn list_names(ctx: &Context) -> Result<()> {
    let loaded = ctx.book()?;
    let names: Vec<&str> = loaded
        .book
        .contacts
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    ctx.out.json(&json!({ "names": names }));
    for name in names {
        ctx.out.data(name);
    }
    Ok(())
}

fn show(ctx: &Context, name: &str) -> Result<()> {
    let loaded = ctx.book()?;
    let c = loaded
        .book
        .get(name)
        .ok_or_else(|| loaded.book.unknown(name))?;
    let now = nexusq_core::time::now();
    ctx.out.json(&contact_json(c, now));
    if ctx.global.json {
        return Ok(());
    }
    let mut text = format!(
        "name:        {}\nfingerprint: {}\nverified:    {}\n",
        c.name,
        c.fingerprint(),
        if c.verified {
            "yes"
        } else {
            "NO (contacts verify NAME FP)"
        }
    );
    match &c.key {
        ContactKey::Identity(id) => {
            let cert = id.newest();
            text.push_str(&format!(
                "newest:      generation {}, created {}, valid until {}{}\nknown:       generations {}\nrevoked:     {}\n",
                cert.generation,
                nexusq_core::time::rfc3339(cert.created),
                nexusq_core::time::rfc3339(cert.not_after),
                if cert.is_expired(now) { " (EXPIRED)" } else { "" },
                id.certificates
                    .iter()
                    .map(|c| c.generation.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                if peer::is_revoked(id) { "YES, the whole identity" } else { "no" },
            ));
            for r in &id.revocations {
                text.push_str(&format!(
                    "revocation:  {} on {}: {}\n",
                    match r.scope {
                        nexusq_core::identity::RevocationScope::Identity => "identity".to_string(),
                        nexusq_core::identity::RevocationScope::SigningKeysBefore(g) =>
                            format!("signing keys before generation {g}"),
                    },
                    nexusq_core::time::rfc3339(r.created),
                    super::output::untrusted(&r.reason)
                ));
            }
            if !cert.reason.is_empty() {
                text.push_str(&format!(
                    "reason:      {}\n",
                    super::output::untrusted(&cert.reason)
                ));
            }
        }
        ContactKey::Age(pk) => {
            text.push_str(&format!(
                "age:         {}\n",
                recipient::encode_recipient(pk)
            ));
        }
        ContactKey::OpenPgp(cert) => show_openpgp(&mut text, cert, now),
    }
    text.push_str(&format!(
        "added:       {}\nupdated:     {}",
        nexusq_core::time::rfc3339(c.added),
        nexusq_core::time::rfc3339(c.updated)
    ));
    ctx.out.data(&text);
    Ok(())
}

/// `contacts show`'s lines for an OpenPGP certificate: user ID (escaped: others wrote it),
/// expiry, revocation, and every key with its algorithm, use, creation and expiry.
fn show_openpgp(text: &mut String, cert: &[u8], now: u64) {
    let s = match pgp_contact::summary(cert, now) {
        Ok(s) => s,
        Err(e) => {
            text.push_str(&format!("openpgp:     unreadable ({})\n", e.0));
            return;
        }
    };
    let t = nexusq_core::time::rfc3339;
    text.push_str("kind:        OpenPGP certificate\n");
    text.push_str(&format!(
        "user ID:     {}\n",
        s.user_id
            .as_deref()
            .map(super::output::untrusted)
            .unwrap_or_else(|| "(none)".into())
    ));
    text.push_str(&format!(
        "valid until: {}\n",
        match s.expires {
            Some(e) => format!("{}{}", t(e), if s.expired { " (EXPIRED)" } else { "" }),
            None => "no expiry".into(),
        }
    ));
    text.push_str(&format!(
        "revoked:     {}\n",
        match &s.revoked {
            None => "no".to_string(),
            Some(r) => {
                let mut line = "YES, the whole certificate".to_string();
                if r.created > 0 {
                    line.push_str(&format!(" on {}", t(r.created)));
                }
                if !r.reason.is_empty() {
                    line.push_str(&format!(": {}", super::output::untrusted(&r.reason)));
                }
                line
            }
        }
    ));
    if let Some(why) = &s.invalid {
        text.push_str(&format!(
            "policy:      NOT valid under the standard policy now: {}\n",
            super::output::untrusted(why)
        ));
    }
    for k in &s.keys {
        let mut line = format!(
            "{:<13}{}",
            if k.primary { "primary:" } else { "subkey:" },
            k.algorithm
        );
        if !k.usage.is_empty() {
            line.push_str(&format!(" ({})", k.usage.join(", ")));
        }
        line.push_str(&format!(", created {}", t(k.created)));
        match k.expires {
            Some(e) if e <= now => line.push_str(&format!(", EXPIRED {}", t(e))),
            Some(e) => line.push_str(&format!(", expires {}", t(e))),
            None => line.push_str(", no expiry"),
        }
        if k.revoked {
            line.push_str(", REVOKED");
        }
        if !k.post_quantum {
            line.push_str("; classical, not used by nexusq");
        }
        text.push_str(&line);
        text.push('\n');
    }
}

/// One contact as `contacts export` writes it: the text and its `--json` item.
fn export_one(c: &Contact, age: bool, now: u64) -> Result<(String, serde_json::Value)> {
    match (&c.key, age) {
        (ContactKey::Identity(id), false) => {
            let armor = id.to_armor();
            let item = json!({"name": c.name, "export": armor});
            Ok((armor, item))
        }
        (ContactKey::Identity(id), true) => {
            let (_, pk) = peer::encryption_key(id, KemLevel::MlKem768, now, false)
                .map_err(|e| e.context(format!("contact {}", c.name)))?;
            let line = recipient::encode_recipient(pk);
            let item = json!({"name": c.name, "age_recipient": line});
            Ok((format!("# {}\n{line}\n", c.name), item))
        }
        (ContactKey::Age(pk), true) => {
            let line = recipient::encode_recipient(pk);
            let item = json!({"name": c.name, "age_recipient": line});
            Ok((format!("# {}\n{line}\n", c.name), item))
        }
        (ContactKey::Age(_), false) => Err(Error::usage(
            format!(
                "contact {} is an age recipient, which has no nexusq export",
                c.name
            ),
            "pass --age for an age recipients file",
        )),
        (ContactKey::OpenPgp(cert), false) => {
            let cert = pgp_contact::decode(cert).map_err(|e| {
                Error::check(
                    format!("contact {}'s OpenPGP certificate: {}", c.name, e.0),
                    "remove the contact and add it again",
                )
            })?;
            let armor = pgp_cert::to_armor(&cert)?;
            let item = json!({"name": c.name, "openpgp_certificate": armor});
            Ok((armor, item))
        }
        (ContactKey::OpenPgp(_), true) => Err(Error::usage(
            format!(
                "contact {} is an OpenPGP certificate, which has no age recipient",
                c.name
            ),
            "export it without --age for its OpenPGP certificate",
        )),
    }
}

/// `contacts export NAME...` fails on the first contact it cannot write; `--all` writes every
/// one it can and warns about each it skips (an age recipient without `--age`, a revoked or
/// expired identity with `--age`).
fn export(ctx: &Context, names: &[String], all: bool, age: bool) -> Result<()> {
    let loaded = ctx.book()?;
    let chosen: Vec<&Contact> = if all {
        loaded.book.contacts.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                let n = n.strip_prefix('@').unwrap_or(n);
                loaded.book.get(n).ok_or_else(|| loaded.book.unknown(n))
            })
            .collect::<nexusq_core::error::Result<_>>()?
    };
    let now = nexusq_core::time::now();
    let mut out = String::new();
    let mut json_items = Vec::new();
    let mut skipped = Vec::new();
    for c in &chosen {
        match export_one(c, age, now) {
            Ok((text, item)) => {
                out.push_str(&text);
                json_items.push(item);
            }
            Err(e) if all => {
                ctx.out
                    .warn(&format!("skipped {}: {}", c.name, e.message()));
                skipped.push(json!({"name": c.name, "reason": e.message()}));
            }
            Err(e) => return Err(e),
        }
    }
    if all && json_items.is_empty() && !skipped.is_empty() {
        return Err(Error::check(
            format!(
                "none of the {} contacts could be exported{}",
                skipped.len(),
                if age { " as age recipients" } else { "" }
            ),
            if age {
                "the warnings above say why each was skipped"
            } else {
                "the warnings above say why; age recipients are exported with --age"
            },
        )
        .with_json("skipped", json!(skipped)));
    }
    if !skipped.is_empty() {
        ctx.out.note(&format!(
            "exported {} of {} contacts; {} skipped (see the warnings above)",
            json_items.len(),
            chosen.len(),
            skipped.len()
        ));
    }
    if ctx.global.json {
        ctx.out
            .json(&json!({"contacts": json_items, "skipped": skipped}));
    } else {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| Error::stdout_write(&e, "check where stdout goes"))?;
    }
    Ok(())
}

/// `contacts recover`: a book refused only because the key that signed it was revoked since
/// (a rotation by an older nexusq, or one interrupted between its two saves) is shown, and
/// once the owner agrees, signed again with the vault's newest key (docs/contacts.md, "After a
/// compromise"). Any other fault is refused as every read refuses it.
fn recover(ctx: &Context, yes: bool) -> Result<()> {
    let path = ctx.book_path()?;
    let shown = super::output::untrusted_path(&path);
    let vault_path = ctx.vault_path()?;
    let vault = nexusq_core::vault::open(&vault_path)?.public;
    let backend = ctx.backend()?;
    let seen = match store::inspect(&path, &vault, backend)? {
        Inspection::Missing => {
            ctx.out.note(&format!(
                "there is no contacts book at {shown}; nothing to recover"
            ));
            ctx.out
                .json(&json!({"recovered": false, "reason": "missing"}));
            return Ok(());
        }
        Inspection::Trusted(l) => {
            ctx.out.note(&format!(
                "the contacts book {shown} is trusted as it is (signed by generation {}); \
                 nothing to recover",
                l.signed_by
            ));
            ctx.out
                .json(&json!({"recovered": false, "reason": "trusted"}));
            return Ok(());
        }
        Inspection::Revoked(seen) => seen,
    };
    let now = nexusq_core::time::now();
    let contacts = &seen.loaded.book.contacts;
    let mut listing = format!(
        "The contacts book {shown} was signed at {} (claimed) by generation {}, whose signing \
         key was revoked (every generation before {} is): whoever stole that key could have \
         changed the book. It holds {} contact(s):",
        nexusq_core::time::rfc3339(seen.signed_at),
        seen.loaded.signed_by,
        seen.revoked_before,
        contacts.len()
    );
    for c in contacts {
        let state = if c.verified { "verified" } else { "UNVERIFIED" };
        listing.push_str(&format!(
            "\n  {:<20} {}  {state:<10}  {}",
            c.name,
            c.fingerprint(),
            describe(c, now)
        ));
    }
    ctx.out.note(&listing);
    if !yes {
        super::prompt::confirm(
            "Trust these contacts and sign the book with your current key? [y/N] ",
            "the contacts book was not recovered without confirmation",
        )?;
    }
    let unlocked = ctx.unlock()?;
    let owner = Owner {
        vault: &vault_path,
        public: &unlocked.file.public,
        secrets: &unlocked.secrets,
    };
    let loaded = store::recover(&path, &ctx.save_options()?, &owner, &seen, backend, now)?;
    ctx.out.note(&format!(
        "the contacts book is trusted again: {} contact(s), now signed by generation {}; if \
         in doubt, compare fingerprints with their owners (`nexusq contacts verify NAME FP`)",
        loaded.book.contacts.len(),
        loaded.signed_by
    ));
    ctx.out.json(&json!({
        "recovered": true,
        "contacts": loaded.book.contacts.iter().map(|c| contact_json(c, now)).collect::<Vec<_>>(),
        "signed_by_generation": loaded.signed_by,
        "was_signed_by_generation": seen.loaded.signed_by,
    }));
    Ok(())
}

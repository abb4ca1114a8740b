//! Following people through the directory: fetch an identity by the fingerprint its owner
//! gave, and learn what changed for each contact of the book (`contacts add --fetch`,
//! `contacts refresh`; docs/directory.md). What the directory answers is checked as any
//! export is (every root signature) and judged by the book's own chain rules; nothing here
//! writes the book: the caller applies the updates it is handed, in one save.

use super::client::Directory;
use crate::contacts::{Book, ChainRefusal, ContactKey, merge_chain};
use crate::error::{Error, Result};
use crate::identity::{Fingerprint, PublicIdentity, Revocation, RevocationScope, peer};
use crate::suite::Backend;
use crate::untrusted;

/// The identity with fingerprint `fp`, from the directory: its export, every root signature
/// checked, and its root the one `fp` names. `None` when the directory has no such identity.
pub fn fetch(dir: &Directory, fp: &Fingerprint, backend: &dyn Backend) -> Result<Option<Fetched>> {
    let Some(entry) = dir.lookup(fp)? else {
        return Ok(None);
    };
    let Some(export) = entry.export else {
        return Ok(None);
    };
    let what = format!("the directory's export of {fp}");
    let identity = peer::parse_export(export.as_bytes(), &what, backend)?;
    if !fp.matches(&identity.root_id()) {
        return Err(Error::check(
            format!(
                "the directory {} answered for {fp} with another identity, {}",
                untrusted::escape(dir.url()),
                identity.root_id().fingerprint()
            ),
            "nothing was changed; the directory is broken or lying: tell its operator, and get \
             the export from its owner instead",
        ));
    }
    Ok(Some(Fetched {
        identity,
        forks: entry.forks.len(),
    }))
}

/// An identity fetched from the directory.
#[derive(Clone, Debug)]
pub struct Fetched {
    /// Its public identity, checked.
    pub identity: PublicIdentity,
    /// How many uploads the directory refused for it as forks (kept as evidence).
    pub forks: usize,
}

/// What the directory says about one contact.
#[derive(Clone, Debug)]
pub struct Update {
    /// The contact's name in the book.
    pub name: String,
    /// What changed.
    pub change: Change,
    /// Forks the directory refused for this identity and keeps as evidence.
    pub forks: usize,
}

/// What changed for a contact.
#[derive(Clone, Debug)]
pub enum Change {
    /// Nothing new.
    Unchanged,
    /// The directory has no such identity.
    NotListed,
    /// Newer state along the chain; apply `identity` to the book.
    Newer {
        /// The newest generation before and after.
        from: u32,
        /// The newest generation after.
        to: u32,
        /// The whole-identity revocation this update brings, if any.
        revoked: Option<Revocation>,
        /// The signing keys this update revokes (generations below the number), if any.
        signing_revoked_before: Option<u32>,
        /// What to apply.
        identity: Box<PublicIdentity>,
    },
    /// The directory served another certificate for a generation the book holds: refused.
    Fork {
        /// The generation certified twice.
        generation: u32,
    },
    /// The directory's answer does not continue the chain, or could not be checked; refused.
    Refused(Error),
    /// Not a nexusq identity (an age key or an OpenPGP certificate): not followed.
    NotFollowed,
}

/// Ask the directory about each contact named (every one when `names` is empty) and say
/// what changed, without changing the book. A contact not in the book is an error; one the
/// directory cannot be reached for stops it all (an I/O error).
pub fn updates(
    book: &Book,
    names: &[String],
    dir: &Directory,
    backend: &dyn Backend,
) -> Result<Vec<Update>> {
    let chosen: Vec<&str> = if names.is_empty() {
        book.contacts.iter().map(|c| c.name.as_str()).collect()
    } else {
        for n in names {
            if book.get(n).is_none() {
                return Err(book.unknown(n));
            }
        }
        names.iter().map(String::as_str).collect()
    };
    let mut out = Vec::new();
    for name in chosen {
        let contact = book.get(name).ok_or_else(|| book.unknown(name))?;
        let ContactKey::Identity(known) = &contact.key else {
            out.push(Update {
                name: name.to_string(),
                change: Change::NotFollowed,
                forks: 0,
            });
            continue;
        };
        let fp = known.root_id().fingerprint();
        let (change, forks) = match fetch(dir, &fp, backend) {
            Ok(None) => (Change::NotListed, 0),
            Ok(Some(f)) => (judge(known, &f.identity), f.forks),
            Err(e) if e.kind() == crate::ErrorKind::Io => return Err(e),
            Err(e) => (Change::Refused(e), 0),
        };
        out.push(Update {
            name: name.to_string(),
            change,
            forks,
        });
    }
    Ok(out)
}

/// The book's chain rules on what the directory served for a contact the book knows.
fn judge(known: &PublicIdentity, served: &PublicIdentity) -> Change {
    match merge_chain(known, served) {
        Ok((merged, merge)) if merge.changed() => {
            let new_revocations = || {
                merged
                    .revocations
                    .iter()
                    .filter(|r| !known.revocations.contains(r))
            };
            let revoked = (!peer::is_revoked(known))
                .then(|| {
                    new_revocations()
                        .find(|r| r.scope == RevocationScope::Identity)
                        .cloned()
                })
                .flatten();
            let signing_revoked_before = new_revocations()
                .filter_map(|r| match r.scope {
                    RevocationScope::SigningKeysBefore(n) => Some(n),
                    RevocationScope::Identity => None,
                })
                .chain(
                    merged
                        .certificates
                        .iter()
                        .filter(|c| !known.certificates.contains(c))
                        .map(|c| c.signing_revoked_before)
                        .filter(|&n| n > 0),
                )
                .max();
            Change::Newer {
                from: merge.newest_before,
                to: merge.newest_after,
                revoked,
                signing_revoked_before,
                identity: Box::new(merged),
            }
        }
        Ok(_) => Change::Unchanged,
        Err(ChainRefusal::Fork { generation }) => Change::Fork { generation },
        Err(ChainRefusal::Broken(why)) => Change::Refused(Error::check(
            format!("the directory's export does not continue the book's chain: {why}"),
            "the contact was left as it was; ask its owner for a full-history export",
        )),
        Err(ChainRefusal::OtherRoot) => Change::Refused(Error::check(
            "the directory answered with another identity",
            "the contact was left as it was",
        )),
    }
}

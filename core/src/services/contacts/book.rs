//! The book in memory: contacts by name, and the continuity rules of docs/contacts.md.
//!
//! A contact holds everything the book has ever accepted for one identity: its root key, every
//! certificate seen (any generation, in order) and every revocation statement seen. Updates
//! only add to that, so an older export cannot roll a contact back and an export with its
//! revocations stripped cannot resurrect anything. An OpenPGP contact is held the same way,
//! pinned to its primary key, with every subkey and signature seen ([`crate::format::openpgp::book`]).

use crate::error::{Error, Result, Step};
use crate::format::openpgp::book::{self as openpgp, OpenPgpMerge};
use crate::identity::{Certificate, Fingerprint, PublicIdentity, RootId};
use sequoia_openpgp as pgp;
use sha3::{Digest, Sha3_256};
use std::collections::BTreeMap;

/// Longest contact name, in bytes (see [`check_name`]).
pub(crate) const MAX_NAME_LEN: usize = 64;
/// The book holds at most this many contacts (it is read whole on every use).
pub(crate) const MAX_CONTACTS: usize = 4096;
const AGE_FINGERPRINT_LABEL: &[u8] = b"nexusq/age-recipient/v1";

/// What a contact is known by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContactKey {
    /// A nexusq identity: root key, every certificate and revocation seen.
    Identity(PublicIdentity),
    /// A plain age post-quantum recipient: the X-Wing public key of an `age1pq1…` line.
    Age(Vec<u8>),
    /// An OpenPGP certificate (RFC 9580, with RFC 9980 post-quantum keys): its public parts in
    /// Sequoia's binary encoding, holding every subkey, signature and revocation the book has
    /// seen for its primary key ([`crate::format::openpgp::book`]).
    OpenPgp(Vec<u8>),
}

impl ContactKey {
    /// The kind as people and `--json` name it: "nexusq", "age" or "openpgp".
    pub fn kind(&self) -> &'static str {
        match self {
            ContactKey::Identity(_) => "nexusq",
            ContactKey::Age(_) => "age",
            ContactKey::OpenPgp(_) => "openpgp",
        }
    }

    /// What it is identified by: the root fingerprint, for an age recipient a short hash of
    /// its key ([`age_fingerprint`]), for an OpenPGP certificate its primary key fingerprint
    /// (an empty one for bytes that are no certificate, which a book read or built by
    /// [`Book::add`] never holds).
    pub fn fingerprint(&self) -> ContactFingerprint {
        match self {
            ContactKey::Identity(id) => ContactFingerprint::Nexusq(id.root_id().fingerprint()),
            ContactKey::Age(pk) => ContactFingerprint::Nexusq(age_fingerprint(pk)),
            ContactKey::OpenPgp(cert) => ContactFingerprint::OpenPgp(
                openpgp::fingerprint(cert).unwrap_or(pgp::Fingerprint::Unknown {
                    version: None,
                    bytes: Box::new([]),
                }),
            ),
        }
    }

    /// "a nexusq identity", "an age recipient", "an OpenPGP certificate".
    pub fn described(&self) -> &'static str {
        match self {
            ContactKey::Identity(_) => "a nexusq identity",
            ContactKey::Age(_) => "an age recipient",
            ContactKey::OpenPgp(_) => "an OpenPGP certificate",
        }
    }
}

/// What a contact is identified by, as its owner compares it out of band.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContactFingerprint {
    /// A nexusq identity's root fingerprint, or an age recipient's short hash
    /// ([`age_fingerprint`]).
    Nexusq(Fingerprint),
    /// An OpenPGP certificate's primary key fingerprint.
    OpenPgp(pgp::Fingerprint),
}

impl ContactFingerprint {
    /// The form for `--json` and scripts: a nexusq fingerprint as printed, an OpenPGP one as
    /// upper-case hex without spaces.
    pub fn plain(&self) -> String {
        match self {
            ContactFingerprint::Nexusq(fp) => fp.to_string(),
            ContactFingerprint::OpenPgp(fp) => fp.to_hex(),
        }
    }
}

impl std::fmt::Display for ContactFingerprint {
    /// A nexusq fingerprint as always; an OpenPGP one in groups of 8 hex digits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContactFingerprint::Nexusq(fp) => fp.fmt(f),
            ContactFingerprint::OpenPgp(fp) => {
                f.write_str(&crate::format::openpgp::keys::display(fp))
            }
        }
    }
}

/// One entry of the book: a name and the identity, age recipient or OpenPGP certificate it
/// stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contact {
    /// The name, unique in the book ([`check_name`] rules).
    pub name: String,
    /// The identity, age recipient or OpenPGP certificate.
    pub key: ContactKey,
    /// The fingerprint was compared out of band (interactively, `--expect-fingerprint`, or
    /// `contacts verify`); false after `--yes`.
    pub verified: bool,
    /// Unix seconds.
    pub added: u64,
    /// Unix seconds of the last change to the entry.
    pub updated: u64,
}

/// A contact as messages name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContactRef {
    /// The contact's name in the book.
    pub name: String,
    /// Its fingerprint was compared with its owner.
    pub verified: bool,
}

impl ContactRef {
    /// The contact `c`, as messages name it.
    pub fn of(c: &Contact) -> ContactRef {
        ContactRef {
            name: c.name.clone(),
            verified: c.verified,
        }
    }

    /// "contact alice", or "unverified contact alice".
    pub fn label(&self) -> String {
        if self.verified {
            format!("contact {}", self.name)
        } else {
            format!("unverified contact {}", self.name)
        }
    }
}

impl Contact {
    /// The root fingerprint, for an age recipient a short hash of its key, for an OpenPGP
    /// certificate its primary key fingerprint ([`ContactKey::fingerprint`]).
    pub fn fingerprint(&self) -> ContactFingerprint {
        self.key.fingerprint()
    }

    /// The nexusq identity, or `None` for an age recipient or an OpenPGP certificate.
    pub fn identity(&self) -> Option<&PublicIdentity> {
        match &self.key {
            ContactKey::Identity(id) => Some(id),
            ContactKey::Age(_) | ContactKey::OpenPgp(_) => None,
        }
    }

    /// The OpenPGP certificate's primary key fingerprint, or `None` for another kind (and for
    /// bytes that are no certificate, which a book read or built by `add` never holds).
    pub fn openpgp_fingerprint(&self) -> Option<pgp::Fingerprint> {
        match &self.key {
            ContactKey::OpenPgp(cert) => openpgp::fingerprint(cert),
            _ => None,
        }
    }
}

/// The short hash shown for an age recipient: the first 20 bytes of
/// SHA3-256("nexusq/age-recipient/v1" || X-Wing public key), written like a fingerprint.
pub fn age_fingerprint(pk: &[u8]) -> Fingerprint {
    let mut h = Sha3_256::new();
    h.update(AGE_FINGERPRINT_LABEL);
    h.update(pk);
    let d: [u8; 32] = h.finalize().into();
    Fingerprint(d[..20].try_into().expect("20 of 32 bytes"))
}

/// A name is 1–64 letters, digits, `.`, `-`, `_`, `@`; not `.`/`..`/`-`, and not starting
/// with `age1` or `ssh-` (those are read as age keys where recipients are named).
pub fn check_name(name: &str) -> Result<()> {
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'));
    let reserved =
        matches!(name, "." | ".." | "-") || name.starts_with("age1") || name.starts_with("ssh-");
    if name.is_empty() || name.len() > MAX_NAME_LEN || !ok_chars || reserved {
        return Err(Error::usage(
            format!(
                "\"{}\" is not a contact name",
                crate::untrusted::escape(name)
            ),
            "a name is 1 to 64 letters, digits, '.', '-', '_' or '@' (not '.', '..', '-', and \
             not starting with age1 or ssh-)",
        ));
    }
    Ok(())
}

/// What an add or update changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merge {
    /// Newest generation known before (0 for a new contact or an age recipient).
    pub newest_before: u32,
    /// Newest generation known after.
    pub newest_after: u32,
    /// Certificates the update added.
    pub certificates_added: usize,
    /// Revocation statements the update added.
    pub revocations_added: usize,
}

impl Merge {
    /// Did the update add anything?
    pub fn changed(&self) -> bool {
        self.certificates_added + self.revocations_added > 0
    }
}

/// The contacts, ordered by name; `seq` counts saves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    /// How many times the book was saved; each save adds one.
    pub seq: u64,
    /// The entries, ordered by name.
    pub contacts: Vec<Contact>,
}

impl Book {
    /// The contact of this name.
    pub fn get(&self, name: &str) -> Option<&Contact> {
        self.contacts.iter().find(|c| c.name == name)
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Contact> {
        self.contacts.iter_mut().find(|c| c.name == name)
    }

    /// The contact holding this identity, if any.
    pub(crate) fn by_root(&self, root_id: &RootId) -> Option<&Contact> {
        self.contacts
            .iter()
            .find(|c| c.identity().is_some_and(|id| id.root_id() == *root_id))
    }

    /// The contact holding the OpenPGP certificate with this primary key fingerprint, if any.
    pub(crate) fn by_openpgp(&self, fingerprint: &pgp::Fingerprint) -> Option<&Contact> {
        self.contacts
            .iter()
            .find(|c| c.openpgp_fingerprint().as_ref() == Some(fingerprint))
    }

    /// The certificate of `generation` of the identity `root_id`, with the identity it belongs
    /// to (its root key, other certificates and revocations), when the book knows it: a trusted
    /// source for verifiers that get only a root_id and a generation.
    pub fn certificate(
        &self,
        root_id: &RootId,
        generation: u32,
    ) -> Option<(&PublicIdentity, &Certificate)> {
        let id = self.by_root(root_id)?.identity()?;
        let cert = id
            .certificates
            .iter()
            .find(|c| c.generation == generation)?;
        Some((id, cert))
    }

    /// The names of the book's contacts closest to `typed` (a typo's likely meaning).
    pub fn closest(&self, typed: &str) -> Vec<String> {
        closest_names(typed, self.contacts.iter().map(|c| c.name.as_str()))
    }

    /// The error for a name the book does not hold: exit 2, closest names as the hint.
    pub fn unknown(&self, name: &str) -> Error {
        let near = self.closest(name);
        let hint = if near.is_empty() {
            "list the contacts to see their names, or add this one".to_string()
        } else {
            format!("did you mean {}?", near.join(", "))
        };
        let e = Error::usage(
            format!(
                "no contact (and no file) named \"{}\"",
                crate::untrusted::escape(name)
            ),
            hint,
        );
        if near.is_empty() {
            e.suggests(Step::ListContacts)
        } else {
            e
        }
    }

    /// Add a new contact. A name in use is refused; so is an identity already in the book
    /// under another name (it is updated under that name instead, see `update`). An OpenPGP
    /// certificate must be one the book can read back ([`openpgp::decode`]; the caller
    /// checks it for use first, [`crate::format::openpgp::cert::parse`] and
    /// [`openpgp::offers`]).
    pub fn add(&mut self, name: &str, key: ContactKey, verified: bool, now: u64) -> Result<Merge> {
        check_name(name)?;
        if let ContactKey::OpenPgp(cert) = &key {
            openpgp::decode(cert).map_err(|e| {
                Error::check(
                    format!("not an OpenPGP certificate the book can keep: {}", e.0),
                    "give the certificate as `format::openpgp::book::encode` writes it",
                )
            })?;
        }
        if let Some(existing) = self.get(name) {
            let (hint, step) = if existing.key.kind() != key.kind() {
                let hint = format!(
                    "{name} is {}, which cannot turn into {}: choose another name, or remove \
                     {name} first",
                    existing.key.described(),
                    key.described()
                );
                (hint, Step::RemoveContact(name.to_string()))
            } else if matches!(key, ContactKey::OpenPgp(_)) {
                let hint = format!(
                    "choose another name, or update {name} with a newer copy of the same \
                     certificate"
                );
                (hint, Step::UpdateContact(name.to_string()))
            } else {
                let hint = format!(
                    "choose another name, or update {name} with a newer export of the same \
                     identity"
                );
                (hint, Step::UpdateContact(name.to_string()))
            };
            return Err(Error::usage(
                format!(
                    "the name {name} is already in the book ({})",
                    existing.fingerprint()
                ),
                hint,
            )
            .suggests(step));
        }
        let other = match &key {
            ContactKey::Identity(id) => self.by_root(&id.root_id()),
            ContactKey::Age(pk) => self
                .contacts
                .iter()
                .find(|c| matches!(&c.key, ContactKey::Age(k) if k == pk)),
            ContactKey::OpenPgp(cert) => {
                openpgp::fingerprint(cert).and_then(|fp| self.by_openpgp(&fp))
            }
        };
        if let Some(other) = other {
            return Err(Error::usage(
                format!(
                    "this {} ({}) is already in the book as {}",
                    if matches!(key, ContactKey::OpenPgp(_)) {
                        "certificate"
                    } else {
                        "identity"
                    },
                    other.fingerprint(),
                    other.name
                ),
                format!("update {} to bring it up to date", other.name),
            )
            .suggests(Step::UpdateContact(other.name.clone())));
        }
        if self.contacts.len() >= MAX_CONTACTS {
            return Err(Error::usage(
                format!("the book already holds {MAX_CONTACTS} contacts"),
                "remove some contacts first",
            )
            .suggests(Step::RemoveContact("NAME".into())));
        }
        let merge = Merge {
            newest_before: 0,
            newest_after: match &key {
                ContactKey::Identity(id) => id.newest().generation,
                ContactKey::Age(_) | ContactKey::OpenPgp(_) => 0,
            },
            certificates_added: match &key {
                ContactKey::Identity(id) => id.certificates.len(),
                ContactKey::Age(_) | ContactKey::OpenPgp(_) => 0,
            },
            revocations_added: match &key {
                ContactKey::Identity(id) => id.revocations.len(),
                ContactKey::Age(_) | ContactKey::OpenPgp(_) => 0,
            },
        };
        self.contacts.push(Contact {
            name: name.to_string(),
            key,
            verified,
            added: now,
            updated: now,
        });
        self.contacts.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(merge)
    }

    /// Bring contact `name` up to date with an export (already parsed and verified).
    pub fn update(&mut self, name: &str, incoming: &PublicIdentity, now: u64) -> Result<Merge> {
        let unknown = self.unknown(name);
        let contact = self.get_mut(name).ok_or(unknown)?;
        let known = match &contact.key {
            ContactKey::Identity(known) => known,
            ContactKey::Age(_) => {
                return Err(Error::usage(
                    format!("{name} is an age recipient, which has no chain to update along"),
                    format!("remove {name}, then add the new recipient or export"),
                )
                .suggests(Step::RemoveContact(name.to_string())));
            }
            ContactKey::OpenPgp(_) => {
                return Err(not_updatable(name, &contact.key, "a nexusq export"));
            }
        };
        let (merged, merge) = merge_identity(known, incoming)?;
        if merge.changed() {
            contact.key = ContactKey::Identity(merged);
            contact.updated = now;
        }
        Ok(merge)
    }

    /// Bring the OpenPGP contact `name` up to date with a copy of its certificate (read with
    /// [`openpgp::read_update`]): another primary key is refused, the same one merged, nothing
    /// the book held is dropped ([`openpgp::merge`]).
    pub fn update_openpgp(
        &mut self,
        name: &str,
        incoming: &pgp::Cert,
        now: u64,
    ) -> Result<OpenPgpMerge> {
        let unknown = self.unknown(name);
        let contact = self.get_mut(name).ok_or(unknown)?;
        let ContactKey::OpenPgp(known) = &contact.key else {
            return Err(not_updatable(name, &contact.key, "an OpenPGP certificate"));
        };
        let (merged, merge) = openpgp::merge(known, incoming, now)
            .map_err(|e| e.context(format!("contact {name}")))?;
        if merge.changed() {
            contact.key = ContactKey::OpenPgp(merged);
            contact.updated = now;
        }
        Ok(merge)
    }

    /// Take the contact of this name out of the book; unknown names are a usage error.
    pub fn remove(&mut self, name: &str) -> Result<Contact> {
        let i = self
            .contacts
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| self.unknown(name))?;
        Ok(self.contacts.remove(i))
    }

    /// Mark `name` verified if `fp` is its fingerprint (exit 1 otherwise).
    pub fn verify(&mut self, name: &str, fp: &ContactFingerprint) -> Result<bool> {
        let unknown = self.unknown(name);
        let contact = self.get_mut(name).ok_or(unknown)?;
        let actual = contact.fingerprint();
        if actual != *fp {
            return Err(Error::check(
                format!("{name}'s fingerprint is {actual}, not {fp}"),
                "you may have the wrong contact or the wrong fingerprint; compare with its \
                 owner again, and if the contact is wrong, remove it",
            ));
        }
        let was = contact.verified;
        contact.verified = true;
        Ok(!was)
    }
}

/// The refusal to update `name`, which holds `key`, with `given`: kinds never change.
fn not_updatable(name: &str, key: &ContactKey, given: &str) -> Error {
    Error::usage(
        format!("{name} is {}, which {given} cannot update", key.described()),
        format!(
            "update it with a newer copy of the same kind, or remove {name} and add the other \
             under a name of its own"
        ),
    )
    .suggests(Step::RemoveContact(name.to_string()))
}

/// An identity read from a file, with what the book knows about it applied (docs/contacts.md,
/// "The book is the source of truth").
#[derive(Clone, Debug)]
pub struct Known<'a> {
    /// The file's identity merged with the contact's: every certificate and revocation either
    /// holds. Exactly the file's when its root is nobody's in the book.
    pub identity: PublicIdentity,
    /// The contact whose root it is.
    pub contact: Option<&'a Contact>,
    /// The newest generation the file itself holds, and the book (0: not a contact).
    pub file_newest: u32,
    /// The newest generation the book's contact holds.
    pub book_newest: u32,
}

impl Book {
    /// Apply the book's knowledge to an identity read from a file: when its root is a
    /// contact's, the contact's revocations, newer generations and pinned certificates hold
    /// (an older export never rolls the contact back, one without its revocations never
    /// revives anything). A certificate that differs from the book's for the same generation
    /// is a fork, refused (exit 1).
    pub fn apply(&self, incoming: PublicIdentity) -> Result<Known<'_>> {
        let file_newest = incoming.newest().generation;
        let Some(contact) = self.by_root(&incoming.root_id()) else {
            return Ok(Known {
                identity: incoming,
                contact: None,
                file_newest,
                book_newest: 0,
            });
        };
        let known = contact.identity().expect("by_root finds identities only");
        let (identity, _) = merge_identity(known, &incoming)
            .map_err(|e| e.context(format!("contact {}", contact.name)))?;
        Ok(Known {
            identity,
            contact: Some(contact),
            file_newest,
            book_newest: known.newest().generation,
        })
    }

    /// The contact one of whose certified X-Wing keys is `pk` (an age1pq1 recipient derived
    /// from their export), with that key's generation.
    pub(crate) fn owner_of_age_key(&self, pk: &[u8]) -> Option<(&Contact, u32)> {
        self.contacts.iter().find_map(|c| {
            let cert = c
                .identity()?
                .certificates
                .iter()
                .find(|cert| cert.keys.xwing == pk)?;
            Some((c, cert.generation))
        })
    }
}

/// Why an export cannot be merged into what is known of the same identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainRefusal {
    /// The export is of another root.
    OtherRoot,
    /// The export carries another certificate for a generation already known: a fork.
    Fork {
        /// The generation certified twice.
        generation: u32,
    },
    /// The merged history is not one chain (a gap, a broken link); the reason.
    Broken(String),
}

/// Merge what an export carries into what is known about the same identity, by the book's
/// rules (docs/contacts.md, "Updates"): certificates only along the chain, revocations only
/// added. Refuses another root, a fork and a broken chain, as data; the book and the directory
/// both apply it.
pub fn merge_chain(
    known: &PublicIdentity,
    incoming: &PublicIdentity,
) -> std::result::Result<(PublicIdentity, Merge), ChainRefusal> {
    if incoming.root_id() != known.root_id() {
        return Err(ChainRefusal::OtherRoot);
    }
    let mut certs: BTreeMap<u32, Certificate> = known
        .certificates
        .iter()
        .map(|c| (c.generation, c.clone()))
        .collect();
    let mut certificates_added = 0;
    for c in &incoming.certificates {
        match certs.get(&c.generation) {
            Some(k) if k != c => {
                return Err(ChainRefusal::Fork {
                    generation: c.generation,
                });
            }
            Some(_) => {}
            None => {
                certs.insert(c.generation, c.clone());
                certificates_added += 1;
            }
        }
    }
    let mut revocations = known.revocations.clone();
    let mut revocations_added = 0;
    for r in &incoming.revocations {
        if !revocations.contains(r) {
            revocations.push(r.clone());
            revocations_added += 1;
        }
    }
    let merged = PublicIdentity {
        root_pk: known.root_pk,
        certificates: certs.into_values().collect(),
        revocations,
    };
    merged
        .check_structure()
        .map_err(|e| ChainRefusal::Broken(e.0))?;
    let merge = Merge {
        newest_before: known.newest().generation,
        newest_after: merged.newest().generation,
        certificates_added,
        revocations_added,
    };
    Ok((merged, merge))
}

/// [`merge_chain`] for a contact: a refusal as an error that says what to do.
pub fn merge_identity(
    known: &PublicIdentity,
    incoming: &PublicIdentity,
) -> Result<(PublicIdentity, Merge)> {
    let known_fp = known.root_id().fingerprint();
    merge_chain(known, incoming).map_err(|refusal| match refusal {
        ChainRefusal::OtherRoot => Error::check(
            format!(
                "this is a different identity: the export's fingerprint is {}, the contact's is \
                 {known_fp}",
                incoming.root_id().fingerprint()
            ),
            "a contact's root never changes; if this person really has a new identity, add it \
             under a new name after checking its fingerprint",
        )
        .suggests(Step::AddContact),
        ChainRefusal::Fork { generation } => Error::check(
            format!(
                "two different certificates for generation {generation} of identity \
                 {known_fp}: a fork, which may mean its root key was compromised"
            ),
            "the contact was left as it was; do not use this export, and compare \
             fingerprints and generations with its owner out of band",
        ),
        ChainRefusal::Broken(why) => Error::check(
            format!("the export does not continue the chain the book knows for {known_fp}: {why}"),
            "the contact was left as it was; ask its owner for a fresh export with its full \
             history",
        )
        .suggests(Step::ExportFullHistory),
    })
}

/// Up to three names close to `typed` (edit distance, or a shared prefix), closest first.
pub fn closest_names<'a>(typed: &str, names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let limit = (typed.chars().count() / 3).max(2);
    let lower = typed.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = names
        .filter_map(|n| {
            let d = edit_distance(&lower, &n.to_ascii_lowercase());
            let prefix = n.to_ascii_lowercase().starts_with(&lower) && !lower.is_empty();
            (d <= limit || prefix).then_some((if prefix { d.min(1) } else { d }, n))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_string())
        .collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in [
            "alice",
            "a",
            "bob.smith",
            "x_y-z",
            "me@home",
            &"a".repeat(64),
        ] {
            check_name(ok).unwrap();
        }
        for bad in [
            "",
            ".",
            "..",
            "-",
            "a b",
            "é",
            "a/b",
            "age1pq1x",
            "ssh-ed",
            &"a".repeat(65),
        ] {
            assert_eq!(
                check_name(bad).unwrap_err().kind(),
                crate::error::ErrorKind::Usage
            );
        }
    }

    #[test]
    fn the_book_s_knowledge_applies_to_an_older_or_stripped_export() {
        use crate::identity::rotation::{self, RotateOptions};
        use crate::identity::{NewIdentity, RevocationScope};
        use crate::suite::rustcrypto::RustCrypto;
        let mut bob = NewIdentity::generate(&RustCrypto, 1_000);
        let old = bob.public.export(false);
        let opts = RotateOptions {
            validity_days: 30,
            ..Default::default()
        };
        rotation::rotate(
            &mut bob.public,
            &mut bob.secrets,
            &bob.keys,
            &RustCrypto,
            2_000,
            &opts,
        )
        .unwrap();
        let mut known = bob.public.export(true);
        known.revocations.push(bob.revocation.clone());
        let mut book = Book::default();
        book.add("bob", ContactKey::Identity(known), false, 3_000)
            .unwrap();
        // The generation-1 export, no revocation: the book's generation 2 and revocation win.
        let k = book.apply(old.clone()).unwrap();
        assert_eq!(k.contact.unwrap().name, "bob");
        assert_eq!((k.file_newest, k.book_newest), (1, 2));
        assert_eq!(k.identity.newest().generation, 2);
        assert!(
            k.identity
                .revocations
                .iter()
                .any(|r| r.scope == RevocationScope::Identity)
        );
        // Someone the book does not know: the export as it is.
        let eve = NewIdentity::generate(&RustCrypto, 1_000).public;
        let k = book.apply(eve.clone()).unwrap();
        assert!(k.contact.is_none());
        assert_eq!(k.identity, eve);
        // A different certificate for a generation the book pinned: a fork, exit 1.
        let mut forked = old;
        forked.certificates[0].not_after += 1;
        let e = book.apply(forked).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::CheckFailed);
        assert!(e.message().contains("contact bob") && e.message().contains("fork"));
        // An age recipient derived from either generation is bob's.
        let g1 = &bob.public.certificates[0].keys.xwing;
        assert_eq!(
            book.owner_of_age_key(g1).map(|(c, g)| (c.name.as_str(), g)),
            Some(("bob", 1))
        );
        assert!(book.owner_of_age_key(&[0; 1216]).is_none());
    }

    #[test]
    fn closest() {
        let names = ["alice", "alicia", "bob", "carol"];
        assert_eq!(closest_names("alcie", names.into_iter())[0], "alice");
        assert_eq!(closest_names("bbo", names.into_iter()), vec!["bob"]);
        assert_eq!(
            closest_names("ali", names.into_iter()),
            vec!["alice", "alicia"]
        );
        assert!(closest_names("zzzzzzzz", names.into_iter()).is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}

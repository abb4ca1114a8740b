//! Whom a file is encrypted to (docs/contacts.md, "Names where recipients and signers are
//! named"): identities read from exports or named as contacts, with what the contacts book
//! knows applied; repeats of one identity collapsed to one recipient (the newest generation
//! among them, a revocation seen in any of them); forks refused; expected fingerprints checked
//! both ways; the vault's own identity; the recipient cap. Shared by both file formats and by
//! KEM encapsulation. The caller names the values ([`crate::contacts::naming`]), reads the
//! export bytes and owns the book.

use crate::callbacks::{Callbacks, Note};
use crate::contacts::{Book, Contact, ContactKey, ContactRef};
use crate::error::{Error, Result};
use crate::format::age;
use crate::format::nexusq::MAX_RECIPIENTS;
use crate::format::openpgp::cert::PeerCert;
use crate::format::openpgp::keys;
use crate::format::openpgp::message::RecipientKey;
use crate::identity::{Certificate, Fingerprint, PublicIdentity, RootId, peer};
use crate::policy::{Format, Policy};
use crate::suite::Backend;
use crate::suite::hybrid_kem::KemLevel;
use std::path::{Path, PathBuf};

/// An identity named where a recipient or signer is named, with the book's knowledge applied,
/// and where it came from: a contact, a file, or a file whose root is a contact's.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The identity, merged with what the book knows of it.
    pub identity: PublicIdentity,
    /// The contact whose identity it is.
    pub contact: Option<ContactRef>,
    /// The file (or `-`, stdin) it was read from; None for a contact named as such. For
    /// `own`, the vault.
    pub file: Option<PathBuf>,
    /// The vault's own identity (encrypting to oneself, verifying one's own signature).
    pub own: bool,
}

impl Resolved {
    /// An identity read from the export at `path`, unknown to the book (pass it through
    /// [`apply_book`] to learn what the book knows).
    pub fn file(identity: PublicIdentity, path: &Path) -> Resolved {
        Resolved {
            identity,
            contact: None,
            file: Some(path.to_path_buf()),
            own: false,
        }
    }

    /// "file x.asc", or "stdin".
    pub fn file_label(&self) -> Option<String> {
        self.file.as_deref().map(source_of)
    }

    /// Where it came from, for people: "contact alice", "file x.asc", "contact alice (file
    /// old/alice.asc)".
    pub fn source(&self) -> String {
        if self.own {
            return "your own identity".into();
        }
        match (&self.contact, self.file_label()) {
            (Some(c), None) => c.label(),
            (Some(c), Some(f)) => format!("{} ({f})", c.label()),
            (None, Some(f)) => f,
            (None, None) => "the vault".into(),
        }
    }

    /// Who it is, for people: "alice (FP, generation G)" for a contact (marked when
    /// unverified), else "FP, generation G".
    pub fn who(&self, generation: u32) -> String {
        who(&self.identity.root_id(), generation, self.contact.as_ref())
    }
}

/// "alice (FP, generation G)", "alice (FP, generation G; unverified contact)", or
/// "FP, generation G" for someone the book does not know.
pub fn who(root: &RootId, generation: u32, contact: Option<&ContactRef>) -> String {
    let fp = root.fingerprint();
    match contact {
        Some(c) if c.verified => format!("{} ({fp}, generation {generation})", c.name),
        Some(c) => format!(
            "{} ({fp}, generation {generation}; unverified contact)",
            c.name
        ),
        None => format!("{fp}, generation {generation}"),
    }
}

/// "file x.asc", or "stdin" for `-`, escaped.
fn source_of(path: &Path) -> String {
    if path == Path::new("-") {
        "stdin".to_string()
    } else {
        format!("file {}", crate::untrusted::path(path))
    }
}

/// Warn about a contact whose fingerprint was never compared (every use of a contact does,
/// whichever format it is used in).
pub fn warn_unverified(c: &Contact, callbacks: &dyn Callbacks) {
    if !c.verified {
        callbacks.note(&Note::UnverifiedContact {
            name: c.name.clone(),
            fingerprint: c.fingerprint().to_string(),
        });
    }
}

/// An identity read from the export at `path`, with what the book knows about its root
/// applied (the book's newer generations and revocations; a fork between them is refused).
pub fn apply_book(
    book: &Book,
    identity: PublicIdentity,
    path: &Path,
    callbacks: &dyn Callbacks,
) -> Result<Resolved> {
    let shown = if path == Path::new("-") {
        "stdin".to_string()
    } else {
        crate::untrusted::path(path)
    };
    let known = book.apply(identity).map_err(|e| e.context(&shown))?;
    let contact = known.contact.map(|c| {
        warn_unverified(c, callbacks);
        ContactRef::of(c)
    });
    if let Some(c) = &contact
        && known.file_newest != known.book_newest
    {
        let (file_generation, book_generation) = (known.file_newest, known.book_newest);
        callbacks.note(&if file_generation < book_generation {
            Note::BookKnowsNewer {
                source: shown,
                contact: c.clone(),
                file_generation,
                book_generation,
            }
        } else {
            Note::FileIsNewer {
                source: shown,
                contact: c.clone(),
                file_generation,
                book_generation,
            }
        });
    }
    Ok(Resolved {
        identity: known.identity,
        contact,
        file: Some(path.to_path_buf()),
        own: false,
    })
}

/// The identity of the contact `c`, as the book knows it. An age-recipient contact has none:
/// that is a usage error, the hint says to encrypt to it as age; an OpenPGP contact has none
/// either, and the hint says how it is used.
pub fn contact_identity(c: &Contact, callbacks: &dyn Callbacks) -> Result<Resolved> {
    match &c.key {
        ContactKey::Identity(id) => {
            warn_unverified(c, callbacks);
            Ok(Resolved {
                identity: id.clone(),
                contact: Some(ContactRef::of(c)),
                file: None,
                own: false,
            })
        }
        ContactKey::Age(_) => Err(Error::usage(
            format!(
                "contact {} is an age recipient, not a nexusq identity",
                c.name
            ),
            "encrypt to it in the age format",
        )),
        ContactKey::OpenPgp(_) => Err(Error::usage(
            format!(
                "contact {} is an OpenPGP certificate, not a nexusq identity",
                c.name
            ),
            "use it as OpenPGP: encrypt OpenPGP messages to it, verify its OpenPGP signatures",
        )
        .suggests(crate::error::Step::UseOpenPgpContact(c.name.clone()))),
    }
}

/// The stored certificate of an OpenPGP contact (binary, public parts only, every subkey and
/// revocation the book has seen), or `None` for another kind. Read it with
/// [`crate::format::openpgp::cert::parse`] before use: that applies the policy, expiry and
/// revocation as of now.
pub fn openpgp_contact(c: &Contact) -> Option<&[u8]> {
    match &c.key {
        ContactKey::OpenPgp(cert) => Some(cert),
        _ => None,
    }
}

/// The X-Wing key of an age-recipient contact, and how to name it.
pub fn age_contact_key(c: &Contact, callbacks: &dyn Callbacks) -> Option<(Vec<u8>, String)> {
    let ContactKey::Age(pk) = &c.key else {
        return None;
    };
    warn_unverified(c, callbacks);
    Some((pk.clone(), ContactRef::of(c).label()))
}

/// An age1pq1 key given as a string or in a recipients file: when it is one of a contact's
/// certified X-Wing keys, what the book knows about that contact applies, as for an export
/// (a revoked or expired contact is refused; an older generation's key gives way to the
/// newest). Returns the key to use and how to name it, or None for a key nobody in the book
/// has.
pub fn known_age_key(
    book: &Book,
    pk: &[u8],
    now: u64,
    allow_expired: bool,
    callbacks: &dyn Callbacks,
) -> Result<Option<(Vec<u8>, String)>> {
    let Some((c, generation)) = book.owner_of_age_key(pk) else {
        return Ok(None);
    };
    let Some(identity) = c.identity() else {
        return Ok(None);
    };
    let contact = ContactRef::of(c);
    warn_unverified(c, callbacks);
    let (cert, newest) = peer::encryption_key(identity, KemLevel::MlKem768, now, allow_expired)
        .map_err(|e| e.context(format!("the age recipient of {}", contact.label())))?;
    if cert.generation != generation {
        callbacks.note(&Note::OlderAgeKey {
            contact: contact.clone(),
            given: generation,
            used: cert.generation,
        });
    }
    Ok(Some((newest.to_vec(), contact.label())))
}

/// One recipient after reading, checking and collapsing the exports.
pub struct Peer {
    /// The identity whose newest generation is used, and where it came from.
    pub resolved: Resolved,
    /// Every certificate seen for this identity, in any of its exports, with where (to detect
    /// forks).
    certificates: Vec<(Certificate, String)>,
}

impl Peer {
    /// The recipient's identity.
    pub fn identity(&self) -> &PublicIdentity {
        &self.resolved.identity
    }

    fn new(resolved: Resolved, name: &str) -> Peer {
        let certificates = resolved
            .identity
            .certificates
            .iter()
            .map(|c| (c.clone(), name.to_string()))
            .collect();
        Peer {
            resolved,
            certificates,
        }
    }
}

/// The recipients of one file, gathered one at a time: identities (collapsed, checked against
/// the expected fingerprints), age keys and OpenPGP certificates.
pub struct Recipients {
    peers: Vec<Peer>,
    expected: Vec<Fingerprint>,
    others: Vec<Other>,
}

/// A recipient that is not a nexusq identity, with how people are told of it.
enum Other {
    Age(AgeRecipient, String),
    Cert(Box<CertRecipient>),
}

/// Every recipient of one file, gathered ([`Recipients::finish_all`]).
pub struct Gathered {
    /// The nexusq identities, one per identity.
    pub peers: Vec<Peer>,
    /// The age keys, each with how to name it ("contact bob", "an age1pq1 recipient").
    pub age: Vec<(AgeRecipient, String)>,
    /// The OpenPGP certificates.
    pub certs: Vec<CertRecipient>,
}

impl Gathered {
    /// Every recipient, for [`Encryptor::new`](crate::Encryptor::new): the age keys and
    /// certificates in the order added, then the identities.
    pub fn all(&self) -> Vec<&dyn Recipient> {
        let mut all: Vec<&dyn Recipient> = Vec::new();
        all.extend(self.age.iter().map(|(r, _)| r as &dyn Recipient));
        all.extend(self.certs.iter().map(|r| r as &dyn Recipient));
        all.extend(self.peers.iter().map(|r| r as &dyn Recipient));
        all
    }

    /// How recipient `index` of [`Gathered::all`] is named for people.
    pub fn label(&self, index: usize) -> String {
        let (a, c) = (self.age.len(), self.certs.len());
        match index {
            i if i < a => self.age[i].1.clone(),
            i if i < a + c => self.certs[i - a].source.clone(),
            i => self.peers[i - a - c].resolved.source(),
        }
    }
}

impl Recipients {
    /// No recipients yet; every one added must be one of `expected` (when any are given), and
    /// each of `expected` must be among them at the end.
    pub fn new(expected: Vec<Fingerprint>) -> Recipients {
        Recipients {
            peers: Vec::new(),
            expected,
            others: Vec::new(),
        }
    }

    /// Add an age key, named `label` for people. One of a contact's certified X-Wing keys
    /// is that contact, with what the book knows ([`known_age_key`]) when the caller passes
    /// the book through it first.
    pub fn add_age(&mut self, recipient: AgeRecipient, label: String) {
        self.others.push(Other::Age(recipient, label));
    }

    /// Add an OpenPGP certificate.
    pub fn add_cert(&mut self, recipient: CertRecipient) {
        self.others.push(Other::Cert(Box::new(recipient)));
    }

    /// Add the contact `c` of the book, whatever its key is: its identity as the book knows
    /// it, its age key, or its OpenPGP certificate as of `now` (an unverified contact is
    /// noted).
    pub fn add_contact(&mut self, c: &Contact, now: u64, callbacks: &dyn Callbacks) -> Result<()> {
        match &c.key {
            ContactKey::Identity(_) => self.add(contact_identity(c, callbacks)?, callbacks),
            ContactKey::Age(pk) => {
                warn_unverified(c, callbacks);
                let label = ContactRef::of(c).label();
                self.add_age(
                    AgeRecipient {
                        public_key: pk.clone(),
                    },
                    label,
                );
                Ok(())
            }
            ContactKey::OpenPgp(bytes) => {
                warn_unverified(c, callbacks);
                let source = format!("contact {}", c.name);
                let cert = crate::format::openpgp::cert::parse(bytes, &source, now)?;
                self.add_cert(CertRecipient { cert, source });
                Ok(())
            }
        }
    }

    /// Add one identity. A repeat of one already added is collapsed into it (with a note):
    /// the newest generation known wins, and so does a revocation seen in any export; two
    /// different certificates for one generation are a fork, refused.
    pub fn add(&mut self, resolved: Resolved, callbacks: &dyn Callbacks) -> Result<()> {
        let name = resolved.source();
        let root_id = resolved.identity.root_id();
        peer::check_expected(&root_id, &self.expected).map_err(|e| e.context(&name))?;
        let incoming = Peer::new(resolved, &name);
        let Some(seen) = self
            .peers
            .iter_mut()
            .find(|p| p.identity().root_id() == root_id)
        else {
            self.peers.push(incoming);
            return Ok(());
        };
        for (cert, _) in &incoming.certificates {
            if let Some((_, other)) = seen
                .certificates
                .iter()
                .find(|(c, _)| c.generation == cert.generation && c != cert)
            {
                return Err(Error::check(
                    format!(
                        "{other} and {name} hold two different certificates for generation {} \
                         of identity {}: a fork, which may mean its root key was compromised",
                        cert.generation,
                        root_id.fingerprint()
                    ),
                    "do not encrypt to it; compare the exports with their owner out of band",
                ));
            }
        }
        seen.certificates.extend(incoming.certificates);
        callbacks.note(&Note::SameIdentity {
            name,
            fingerprint: root_id.fingerprint().to_string(),
            first: seen.resolved.source(),
        });
        let resolved = incoming.resolved;
        let newer = resolved.identity.newest().generation > seen.identity().newest().generation;
        if peer::is_revoked(&resolved.identity) || (newer && !peer::is_revoked(seen.identity())) {
            seen.resolved = resolved;
        }
        Ok(())
    }

    /// Add the vault's own identity (its public part, read from the vault at `vault`, checked
    /// against its root), unless an export already named it.
    pub fn add_own(
        &mut self,
        identity: PublicIdentity,
        vault: &Path,
        backend: &dyn Backend,
    ) -> Result<()> {
        crate::vault::check_public(&identity, backend)?;
        if self
            .peers
            .iter()
            .any(|p| p.identity().root_id() == identity.root_id())
        {
            return Ok(());
        }
        let own = Resolved {
            identity,
            contact: None,
            file: Some(vault.to_path_buf()),
            own: true,
        };
        self.peers.push(Peer::new(own, "your own identity"));
        Ok(())
    }

    /// The recipients, once every expected fingerprint is among them. The caller checks the
    /// file's whole list of recipients, these and any others, with [`check_cap`].
    pub fn finish(self) -> Result<Vec<Peer>> {
        Ok(self.finish_all()?.peers)
    }

    /// Every recipient, once every expected fingerprint is among the identities.
    pub fn finish_all(self) -> Result<Gathered> {
        let ids: Vec<_> = self.peers.iter().map(|p| p.identity().root_id()).collect();
        peer::check_all_expected_present(&ids, &self.expected)?;
        let mut gathered = Gathered {
            peers: self.peers,
            age: Vec::new(),
            certs: Vec::new(),
        };
        for other in self.others {
            match other {
                Other::Age(r, label) => gathered.age.push((r, label)),
                Other::Cert(c) => gathered.certs.push(*c),
            }
        }
        Ok(gathered)
    }
}

/// A file has at most [`MAX_RECIPIENTS`] recipients (docs/file-encryption.md).
pub fn check_cap(count: usize) -> Result<()> {
    if count > MAX_RECIPIENTS {
        return Err(Error::usage(
            format!("{count} recipients; a file can be encrypted to at most {MAX_RECIPIENTS}"),
            "split the recipients over several files",
        ));
    }
    Ok(())
}

/// What a recipient is, which decides the formats it can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipientKind {
    /// A nexusq identity: nexusq's format, or age (its newest X-Wing key); the vault's own
    /// identity (`own`) goes into an OpenPGP message too.
    Identity {
        /// The vault's own identity.
        own: bool,
    },
    /// An age1pq1 key: age only.
    AgeKey,
    /// An OpenPGP certificate: OpenPGP only.
    Certificate,
}

impl RecipientKind {
    /// The format a recipient of this kind calls for, when it calls for one.
    pub(crate) fn calls_for(self) -> Option<Format> {
        match self {
            RecipientKind::Identity { .. } => None,
            RecipientKind::AgeKey => Some(Format::Age),
            RecipientKind::Certificate => Some(Format::OpenPgp),
        }
    }

    /// Can a file of `format` be encrypted to it?
    pub fn fits(self, format: Format) -> bool {
        match self {
            RecipientKind::Identity { own } => format != Format::OpenPgp || own,
            RecipientKind::AgeKey => format == Format::Age,
            RecipientKind::Certificate => format == Format::OpenPgp,
        }
    }
}

/// The key a recipient gives a file of one format.
#[derive(Clone, Debug)]
pub enum Key {
    /// A hybrid KEM key of a nexusq identity's newest generation.
    Nexusq {
        /// The hybrid KEM.
        level: KemLevel,
        /// Its encapsulation key.
        public_key: Vec<u8>,
        /// The generation whose key it is.
        generation: u32,
        /// When that generation's certificate expires (Unix seconds): encrypting to an
        /// expired one takes [`Policy::allow_expired`].
        not_after: u64,
    },
    /// An X-Wing key for an age stanza.
    Age {
        /// The X-Wing encapsulation key.
        public_key: Vec<u8>,
        /// The generation whose key it is, for a nexusq identity.
        generation: Option<u32>,
    },
    /// The encryption subkeys of an OpenPGP certificate.
    OpenPgp {
        /// Each subkey the message is encrypted to.
        keys: Vec<RecipientKey>,
    },
}

/// Someone a file can be encrypted to.
pub trait Recipient {
    /// What it is, which decides the format.
    fn kind(&self) -> RecipientKind;

    /// Its key for a file of `format` (one its kind [fits](RecipientKind::fits)), as of `now`:
    /// refused when it is revoked, or expired unless the policy allows that.
    fn key(&self, format: Format, level: KemLevel, now: u64, policy: &Policy)
    -> crate::Result<Key>;
}

impl Recipient for Peer {
    fn kind(&self) -> RecipientKind {
        RecipientKind::Identity {
            own: self.resolved.own,
        }
    }

    fn key(
        &self,
        format: Format,
        level: KemLevel,
        now: u64,
        policy: &Policy,
    ) -> crate::Result<Key> {
        let identity = self.identity();
        if format == Format::OpenPgp {
            let own = keys::encryption_subkey(identity.newest()).role_into_unspecified();
            return Ok(Key::OpenPgp { keys: vec![own] });
        }
        let (cert, pk) = peer::encryption_key(identity, level, now, policy.allow_expired)?;
        Ok(match format {
            Format::Age => Key::Age {
                public_key: pk.to_vec(),
                generation: Some(cert.generation),
            },
            _ => Key::Nexusq {
                level,
                public_key: pk.to_vec(),
                generation: cert.generation,
                not_after: cert.not_after,
            },
        })
    }
}

/// An age1pq1 recipient: an X-Wing key (docs/age.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgeRecipient {
    /// The X-Wing encapsulation key.
    pub public_key: Vec<u8>,
}

impl AgeRecipient {
    /// The recipient an `age1pq1…` string names.
    pub fn parse(s: &str) -> Result<AgeRecipient, age::recipient::KeyError> {
        Ok(AgeRecipient {
            public_key: age::recipient::parse_recipient(s)?,
        })
    }
}

impl Recipient for AgeRecipient {
    fn kind(&self) -> RecipientKind {
        RecipientKind::AgeKey
    }

    fn key(&self, _: Format, _: KemLevel, _: u64, _: &Policy) -> crate::Result<Key> {
        Ok(Key::Age {
            public_key: self.public_key.clone(),
            generation: None,
        })
    }
}

/// An OpenPGP certificate (RFC 9580 with RFC 9980's ML-KEM-768 + X25519 subkeys), and how
/// its errors name it.
pub struct CertRecipient {
    /// The certificate.
    pub cert: PeerCert,
    /// Where it came from, for errors ("contact bob", a file's name).
    pub source: String,
}

impl Recipient for CertRecipient {
    fn kind(&self) -> RecipientKind {
        RecipientKind::Certificate
    }

    fn key(&self, _: Format, _: KemLevel, now: u64, _: &Policy) -> crate::Result<Key> {
        Ok(Key::OpenPgp {
            keys: self.cert.encryption_keys(&self.source, now)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::identity::NewIdentity;
    use crate::identity::rotation::{self, RotateOptions};
    use crate::suite::rustcrypto::RustCrypto;
    use std::cell::RefCell;

    /// A caller that keeps the notes (no password is ever asked here).
    #[derive(Default)]
    struct Notes(RefCell<Vec<Note>>);

    impl Callbacks for Notes {
        fn request_password(&self, _vault: &Path) -> Result<crate::secret::Password> {
            unreachable!("recipients never ask for a password")
        }

        fn note(&self, note: &Note) {
            self.0.borrow_mut().push(note.clone());
        }
    }

    fn from_file(identity: &PublicIdentity, file: &str) -> Resolved {
        Resolved {
            identity: identity.clone(),
            contact: None,
            file: Some(PathBuf::from(file)),
            own: false,
        }
    }

    fn rotated(me: &mut NewIdentity, now: u64) -> PublicIdentity {
        let opts = RotateOptions {
            validity_days: 30,
            ..Default::default()
        };
        rotation::rotate(
            &mut me.public,
            &mut me.secrets,
            &me.keys,
            &RustCrypto,
            now,
            &opts,
        )
        .unwrap();
        me.public.clone()
    }

    #[test]
    fn repeats_of_one_identity_collapse_to_its_newest_generation_with_a_note() {
        let mut me = NewIdentity::generate(&RustCrypto, 1_000);
        let old = me.public.clone();
        let new = rotated(&mut me, 2_000);
        let other = NewIdentity::generate(&RustCrypto, 1_000).public;
        let notes = Notes::default();
        let mut all = Recipients::new(Vec::new());
        all.add(from_file(&old, "old.asc"), &notes).unwrap();
        all.add(from_file(&other, "other.asc"), &notes).unwrap();
        all.add(from_file(&new, "new.asc"), &notes).unwrap();
        let peers = all.finish().unwrap();
        assert_eq!(peers.len(), 2);
        assert_eq!(peers[0].identity().newest().generation, 2);
        assert_eq!(peers[0].resolved.source(), "file new.asc");
        let notes = notes.0.borrow();
        assert_eq!(notes.len(), 1);
        assert!(matches!(&notes[0], Note::SameIdentity { name, first, .. }
            if name == "file new.asc" && first == "file old.asc"));
    }

    #[test]
    fn two_certificates_for_one_generation_are_a_fork_and_refused() {
        let mut me = NewIdentity::generate(&RustCrypto, 1_000);
        let one = rotated(&mut me, 2_000);
        // Another generation 2 of the same root (what a stolen root key could make): the
        // fork check compares certificates, signatures are checked where exports are read.
        let mut other = one.clone();
        other.certificates[1].reason = "another generation 2".into();
        let notes = Notes::default();
        let mut all = Recipients::new(Vec::new());
        all.add(from_file(&one, "a.asc"), &notes).unwrap();
        let e = all.add(from_file(&other, "b.asc"), &notes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed);
        assert!(e.message().contains("a fork"), "{e:?}");
        assert!(e.message().contains("file a.asc and file b.asc"), "{e:?}");
    }

    #[test]
    fn expected_fingerprints_are_checked_both_ways() {
        let a = NewIdentity::generate(&RustCrypto, 1_000).public;
        let b = NewIdentity::generate(&RustCrypto, 1_000).public;
        let notes = Notes::default();
        // A recipient that is not expected is refused.
        let mut all = Recipients::new(vec![a.root_id().fingerprint()]);
        let e = all.add(from_file(&b, "b.asc"), &notes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed);
        // An expected one that is missing is refused at the end.
        let expected = vec![a.root_id().fingerprint(), b.root_id().fingerprint()];
        let mut all = Recipients::new(expected);
        all.add(from_file(&a, "a.asc"), &notes).unwrap();
        let e = all.finish().err().expect("b is missing");
        assert!(e.message().contains(&b.root_id().fingerprint().to_string()));
    }

    #[test]
    fn the_own_identity_is_added_once() {
        let me = NewIdentity::generate(&RustCrypto, 1_000).public;
        let notes = Notes::default();
        let mut all = Recipients::new(Vec::new());
        all.add(from_file(&me, "me.asc"), &notes).unwrap();
        all.add_own(me.clone(), Path::new("vault.nxq"), &RustCrypto)
            .unwrap();
        let peers = all.finish().unwrap();
        assert_eq!(peers.len(), 1);
        assert!(!peers[0].resolved.own, "the export named it first");
        let mut all = Recipients::new(Vec::new());
        all.add_own(me, Path::new("vault.nxq"), &RustCrypto)
            .unwrap();
        let peers = all.finish().unwrap();
        assert!(peers[0].resolved.own);
        assert_eq!(peers[0].resolved.source(), "your own identity");
    }

    #[test]
    fn the_cap_is_the_format_limit() {
        check_cap(MAX_RECIPIENTS).unwrap();
        let e = check_cap(MAX_RECIPIENTS + 1).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains(&MAX_RECIPIENTS.to_string()));
    }

    #[test]
    fn an_openpgp_contact_has_no_nexusq_identity_and_gives_its_certificate() {
        let carol = Contact {
            name: "carol".into(),
            key: ContactKey::OpenPgp(vec![0xC6, 1, 2]),
            verified: false,
            added: 1,
            updated: 1,
        };
        let e = contact_identity(&carol, &Notes::default()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains("OpenPGP certificate"), "{e:?}");
        assert!(e.hint().contains("use it as OpenPGP"), "{e:?}");
        assert_eq!(
            e.step(),
            Some(&crate::error::Step::UseOpenPgpContact("carol".into()))
        );
        assert_eq!(openpgp_contact(&carol), Some(&[0xC6, 1, 2][..]));
        let dave = Contact {
            key: ContactKey::Age(vec![0; 1216]),
            ..carol.clone()
        };
        assert_eq!(openpgp_contact(&dave), None);
        // Used, an unverified OpenPGP contact is warned about as any other.
        let notes = Notes::default();
        warn_unverified(&carol, &notes);
        assert!(
            matches!(&notes.0.borrow()[0], Note::UnverifiedContact { name, .. } if name == "carol")
        );
    }
}

//! [`Verifier`]: whose signatures are trusted, judged in one place: this vault's own identity
//! and the identities of the contacts book (docs/contacts.md, "The book is the source of
//! truth"), or an identity or fingerprint the caller names. `verify`, manifests and the git
//! signing program all ask it.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::{BackendChoice, Verifier};
//! use nexusq_core::identity::signature::Signature;
//! let backend = BackendChoice::default().backend()?;
//! let vault = std::path::Path::new("vault.nxq");
//! let verifier = Verifier::for_vault(vault, backend)?.with_default_book(backend)?;
//! let sig = Signature::parse(&std::fs::read("report.pdf.sig")?, "report.pdf.sig")?;
//! let trusted = verifier.signer_of(&sig)?;
//! let ok = trusted.verify(backend, &sig, std::fs::File::open("report.pdf")?)?;
//! println!("good signature by {}", ok.verified.fingerprint());
//! # Ok(()) }
//! ```

use crate::contacts::{Book, ContactRef};
use crate::error::{Error, Result};
use crate::identity::signature::{self, Signature, Trust, Verified};
use crate::identity::{Fingerprint, PublicIdentity, RootId};
use crate::suite::Backend;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The identities whose signatures are trusted: this vault's own, and the book's contacts.
#[derive(Clone, Default)]
pub struct Verifier {
    own: Option<(PublicIdentity, PathBuf)>,
    contacts: Vec<(PublicIdentity, ContactRef)>,
}

/// Where a trusted identity came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// This vault's own identity, in the vault at this path.
    Vault(PathBuf),
    /// A contact of the book.
    Contact,
    /// An export file the caller named.
    File(PathBuf),
    /// Only a fingerprint: the signature's own root key, accepted because its fingerprint is
    /// the expected one. Revocations and newer generations cannot be known this way.
    Fingerprint,
}

impl Origin {
    /// "vault", "contact", "file" or "fingerprint", as `--json` names it.
    pub fn name(&self) -> &'static str {
        match self {
            Origin::Vault(_) => "vault",
            Origin::Contact => "contact",
            Origin::File(_) => "file",
            Origin::Fingerprint => "fingerprint",
        }
    }
}

/// The identity a signature is checked against, the contact it is (when the book knows it),
/// and where it came from.
#[derive(Clone)]
pub struct Trusted {
    identity: Option<PublicIdentity>,
    /// A fingerprint the identity must also have, or the only thing trusted.
    expected: Option<Fingerprint>,
    /// The contact, when the book knows the identity.
    pub contact: Option<ContactRef>,
    /// Where it came from.
    pub origin: Origin,
}

/// A good signature, and what the book makes of it.
#[derive(Clone, Debug)]
pub struct Verification {
    /// The signature's signer, generation and times.
    pub verified: Verified,
    /// A contact signed with a generation newer than the book knows: updating the contact
    /// with their newest export records it.
    pub newer_than_book: bool,
}

/// The signer of a signature is neither this vault's identity nor a contact: its signature
/// cannot be checked here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSigner {
    /// The identity the signature names.
    pub signer: RootId,
    /// This vault's identity, when there is one.
    pub own: Option<RootId>,
}

impl std::fmt::Display for UnknownSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the signature was made by identity {}, which is neither ",
            self.signer.fingerprint()
        )?;
        match &self.own {
            Some(own) => write!(f, "this vault's ({}) ", own.fingerprint())?,
            None => f.write_str("this vault's ")?,
        }
        f.write_str("nor a contact in your book")
    }
}

impl std::error::Error for UnknownSigner {}

impl From<UnknownSigner> for Error {
    fn from(e: UnknownSigner) -> Error {
        Error::check(
            e.to_string(),
            "if you trust that identity, compare its fingerprint with its owner and add its \
             export to the contacts book, or verify against its export",
        )
    }
}

/// A compact signature by a generation of a contact that the book does not hold: the
/// contact's newest export (or one with its full history) is where it is found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingGeneration {
    /// The contact.
    pub contact: String,
    /// Its identity.
    pub root: RootId,
    /// The generation that signed.
    pub generation: u32,
    /// The generations the book holds.
    pub known: Vec<u32>,
}

impl MissingGeneration {
    /// The signing generation is newer than any the book holds: the contact rotated since.
    pub fn is_newer(&self) -> bool {
        self.known.iter().all(|&k| k < self.generation)
    }
}

impl std::fmt::Display for MissingGeneration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known: Vec<String> = self.known.iter().map(u32::to_string).collect();
        write!(
            f,
            "this compact signature was made with generation {} of {} ({}), but the contacts \
             book holds the certificate of generation(s) {} only",
            self.generation,
            self.contact,
            self.root.fingerprint(),
            known.join(", ")
        )
    }
}

impl std::error::Error for MissingGeneration {}

impl From<MissingGeneration> for Error {
    fn from(e: MissingGeneration) -> Error {
        let hint = if e.is_newer() {
            "they have rotated since the book last heard: update the contact with their \
             newest export"
        } else {
            "update the contact with an export of theirs that holds the older generations \
             (its full history)"
        };
        Error::check(e.to_string(), hint)
    }
}

impl Verifier {
    /// Trusting nobody yet.
    pub fn new() -> Verifier {
        Verifier::default()
    }

    /// Trusting the identity of the vault at `path`, its root signatures checked (no
    /// password is needed).
    pub fn for_vault(path: &Path, backend: &dyn Backend) -> Result<Verifier> {
        Ok(Verifier::new().with_own(own_identity(path, backend)?, path))
    }

    /// Trusting `identity` as this vault's own, kept at `path`.
    pub fn with_own(mut self, identity: PublicIdentity, path: &Path) -> Verifier {
        self.own = Some((identity, path.to_path_buf()));
        self
    }

    /// Trusting every contact of `book` that holds a nexusq identity, as the book knows it
    /// (revocations and newer generations applied).
    pub fn with_book(mut self, book: &Book) -> Verifier {
        self.contacts = book
            .contacts
            .iter()
            .filter_map(|c| Some((c.identity()?.clone(), ContactRef::of(c))))
            .collect();
        self
    }

    /// [`Verifier::with_book`] with the book beside this vault, its seal checked against the
    /// vault's identity (a vault without a book has no contacts).
    pub fn with_default_book(self, backend: &dyn Backend) -> Result<Verifier> {
        let Some((own, path)) = &self.own else {
            return Ok(self);
        };
        let book_path = crate::contacts::store::default_path(path);
        let loaded = crate::contacts::store::load(&book_path, Some(own), backend)?;
        Ok(self.with_book(&loaded.book))
    }

    /// The vault's own identity, when one is trusted.
    pub fn own(&self) -> Option<&PublicIdentity> {
        self.own.as_ref().map(|(id, _)| id)
    }

    /// The trusted identity whose root is `root`: this vault's, else a contact's.
    pub fn known(&self, root: &RootId) -> Option<Trusted> {
        self.find(|id| id.root_id() == *root)
    }

    /// The trusted identity whose fingerprint is `fp`: this vault's, else a contact's.
    pub fn by_fingerprint(&self, fp: &Fingerprint) -> Option<Trusted> {
        self.find(|id| fp.matches(&id.root_id())).map(|t| Trusted {
            expected: Some(*fp),
            ..t
        })
    }

    /// The identity `sig` is checked against: the one it names, when that is this vault's
    /// or a contact's.
    pub fn signer_of(&self, sig: &Signature) -> std::result::Result<Trusted, UnknownSigner> {
        let signer = sig.root_id();
        self.known(&signer).ok_or_else(|| UnknownSigner {
            signer,
            own: self.own().map(PublicIdentity::root_id),
        })
    }

    fn find(&self, matches: impl Fn(&PublicIdentity) -> bool) -> Option<Trusted> {
        if let Some((id, path)) = &self.own
            && matches(id)
        {
            return Some(Trusted {
                identity: Some(id.clone()),
                expected: None,
                contact: None,
                origin: Origin::Vault(path.clone()),
            });
        }
        self.contacts
            .iter()
            .find(|(id, _)| matches(id))
            .map(|(id, c)| Trusted::contact(id.clone(), c.clone()))
    }
}

impl Trusted {
    /// An identity the caller gives, from an export file or a contact, with a fingerprint it
    /// must also have.
    pub fn identity(
        identity: PublicIdentity,
        expected: Option<Fingerprint>,
        contact: Option<ContactRef>,
        origin: Origin,
    ) -> Trusted {
        Trusted {
            identity: Some(identity),
            expected,
            contact,
            origin,
        }
    }

    /// A contact's identity as the book knows it.
    pub fn contact(identity: PublicIdentity, contact: ContactRef) -> Trusted {
        Trusted::identity(identity, None, Some(contact), Origin::Contact)
    }

    /// No identity: the root key a signature carries, if its fingerprint is `fp`.
    pub fn fingerprint_only(fp: Fingerprint) -> Trusted {
        Trusted {
            identity: None,
            expected: Some(fp),
            contact: None,
            origin: Origin::Fingerprint,
        }
    }

    /// The trust root the signature checks take.
    pub fn trust(&self) -> Trust<'_> {
        match &self.identity {
            Some(identity) => Trust::Identity {
                identity,
                expected: self.expected,
            },
            None => Trust::Fingerprint(self.expected.expect("a fingerprint-only trust has one")),
        }
    }

    /// The trusted identity's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        match &self.identity {
            Some(identity) => identity.root_id().fingerprint(),
            None => self.expected.expect("a fingerprint-only trust has one"),
        }
    }

    /// The trusted identity, unless only a fingerprint is.
    pub fn public(&self) -> Option<&PublicIdentity> {
        self.identity.as_ref()
    }

    /// The fingerprint it must also match, if one was given.
    pub fn expected(&self) -> Option<Fingerprint> {
        self.expected
    }

    /// Fully trusted: this vault's own identity or a verified contact (an unverified contact
    /// is known, not trusted; git's `TRUST_UNDEFINED`).
    pub fn is_fully_trusted(&self) -> bool {
        match (&self.origin, &self.contact) {
            (Origin::Vault(_), _) => true,
            (_, Some(c)) => c.verified,
            _ => false,
        }
    }

    /// The refusals that need no data: the signer is not this identity, its key is revoked,
    /// or a compact signature's generation is one the book does not hold.
    pub fn precheck(&self, sig: &Signature) -> Result<()> {
        if let Some(missing) = self.missing_generation(sig) {
            return Err(missing.into());
        }
        signature::check_any_signer(self.trust(), sig)
    }

    /// A compact signature by a generation of this contact that the book does not hold.
    pub fn missing_generation(&self, sig: &Signature) -> Option<MissingGeneration> {
        let (Signature::Compact(cs), Some(id), Some(c)) = (sig, &self.identity, &self.contact)
        else {
            return None;
        };
        if cs.root_id != id.root_id()
            || id
                .certificates
                .iter()
                .any(|x| x.generation == cs.generation)
        {
            return None;
        }
        Some(MissingGeneration {
            contact: c.name.clone(),
            root: cs.root_id,
            generation: cs.generation,
            known: id.certificates.iter().map(|x| x.generation).collect(),
        })
    }

    /// Check `sig` over the data whose SHA-512 is `digest`.
    pub fn verify_digest(
        &self,
        backend: &dyn Backend,
        sig: &Signature,
        digest: &[u8; signature::DIGEST_LEN],
    ) -> Result<Verification> {
        // The signature check refuses a missing generation too, in words that do not say
        // where the generation is found.
        if let Some(missing) = self.missing_generation(sig) {
            return Err(missing.into());
        }
        let verified = signature::verify_signature(backend, self.trust(), sig, digest)?;
        let newer_than_book = self.contact.is_some()
            && self
                .identity
                .as_ref()
                .is_some_and(|id| verified.generation > id.newest().generation);
        Ok(Verification {
            verified,
            newer_than_book,
        })
    }

    /// Check `sig` over the data `data` gives: the refusals that need no data first.
    pub fn verify(
        &self,
        backend: &dyn Backend,
        sig: &Signature,
        mut data: impl Read,
    ) -> Result<Verification> {
        self.precheck(sig)?;
        let digest = signature::digest_reader(&mut data).map_err(|e| {
            Error::io(
                format!("cannot read the signed data: {e}"),
                "check the data and try again",
            )
            .caused_by(e.kind())
        })?;
        self.verify_digest(backend, sig, &digest)
    }
}

/// The vault's own public identity, its root signatures checked (no password).
pub fn own_identity(path: &Path, backend: &dyn Backend) -> Result<PublicIdentity> {
    if !path.exists() {
        return Err(Error::vault(
            format!(
                "no vault at {}, so no identity to verify against",
                crate::untrusted::path(path)
            ),
            "verify against the signer's export (or its fingerprint), or use the path of your \
             vault",
        ));
    }
    let identity = crate::vault::open(path)?.public;
    crate::vault::check_public(&identity, backend)?;
    Ok(identity)
}

//! What the library asks of its caller while it works: a password, and the notes the user
//! should read. As the `age` crate's `Callbacks` do for rage, this is the only way the library
//! reaches the user: the command line prompts on its terminal and writes notes to stderr, the
//! age plugin asks through age, `nexusq-git-sign` writes to git's stderr.

use crate::contacts::ContactRef;
use crate::error::Result;
use crate::identity::PublicIdentity;
use crate::secret::Password;
use std::fmt;
use std::path::Path;

/// Something the user should know that does not stop the work, as data: the caller words it
/// (the command line names its own commands); `Display` is a plain sentence in the library's
/// words. Text from outside (an agent's answer, a file name) is escaped in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// The key agent could not be used (why); the password is used instead.
    AgentPassedOver {
        /// Why, in a few words ("it did not answer", "it serves another identity").
        why: String,
    },
    /// A contact used here was never verified (its fingerprint compared with its owner): a
    /// warning.
    UnverifiedContact {
        /// The contact's name.
        name: String,
        /// Its root fingerprint.
        fingerprint: String,
    },
    /// An export holds an older generation of a contact than the book, whose newest is used.
    BookKnowsNewer {
        /// Where the export came from ("file x.asc", "stdin"), escaped.
        source: String,
        /// The contact.
        contact: ContactRef,
        /// The newest generation in the export.
        file_generation: u32,
        /// The newest generation in the book.
        book_generation: u32,
    },
    /// An export holds a newer generation of a contact than the book (it is used; the book
    /// could record it).
    FileIsNewer {
        /// Where the export came from, escaped.
        source: String,
        /// The contact.
        contact: ContactRef,
        /// The newest generation in the export.
        file_generation: u32,
        /// The newest generation in the book.
        book_generation: u32,
    },
    /// Two recipients named the same identity; it is encrypted to once.
    SameIdentity {
        /// The later of the two, as named ("contact alice", "file a.asc").
        name: String,
        /// The identity's fingerprint.
        fingerprint: String,
        /// The first of the two.
        first: String,
    },
    /// An age recipient is an older generation's key of a contact: the newest is used.
    OlderAgeKey {
        /// The contact.
        contact: ContactRef,
        /// The generation of the key given.
        given: u32,
        /// The generation used.
        used: u32,
    },
}

impl Note {
    /// Is it a warning (a risk the user takes) rather than information?
    pub fn is_warning(&self) -> bool {
        matches!(self, Note::UnverifiedContact { .. })
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::AgentPassedOver { why } => write!(
                f,
                "the key agent could not be used ({}); using the password instead",
                crate::untrusted::escape(why)
            ),
            Note::UnverifiedContact { name, fingerprint } => write!(
                f,
                "contact {name} ({fingerprint}) is unverified: its fingerprint was never \
                 compared with its owner"
            ),
            Note::BookKnowsNewer {
                source,
                contact,
                file_generation,
                book_generation,
            } => write!(
                f,
                "{source} holds generation {file_generation} of {}; the contacts book knows \
                 generation {book_generation}, which is used",
                contact.label()
            ),
            Note::FileIsNewer {
                source,
                contact,
                file_generation,
                book_generation,
            } => write!(
                f,
                "{source} holds generation {file_generation} of {}, newer than the contacts \
                 book's {book_generation}",
                contact.label()
            ),
            Note::SameIdentity {
                name,
                fingerprint,
                first,
            } => write!(
                f,
                "{name} is the same identity ({fingerprint}) as {first}; encrypting to it once"
            ),
            Note::OlderAgeKey {
                contact,
                given,
                used,
            } => write!(
                f,
                "the age recipient given is generation {given} of {}; using generation {used}, \
                 the newest the contacts book knows",
                contact.label()
            ),
        }
    }
}

/// The caller's side of the library's work: how a password is obtained and where notes go.
pub trait Callbacks {
    /// The password of the vault at `vault`: asked of the user, or read from where they said
    /// (a file, a descriptor). Called only when it is needed (the key agent cannot serve), at
    /// most once per key source. An error ends the request with it (no terminal to ask on).
    fn request_password(&self, vault: &Path) -> Result<Password>;

    /// Show the user `note`.
    fn note(&self, note: &Note);

    /// The vault at `vault` was just unlocked with the password, which authenticated `public`
    /// (the command line records it: [`crate::vault::seen`]).
    fn unlocked(&self, vault: &Path, public: &PublicIdentity) {
        let _ = (vault, public);
    }
}

/// The callbacks of a program that knows the vault's password (a service, a test): it answers
/// with that password and keeps the notes, for the program to read with
/// [`KnownPassword::notes`].
pub struct KnownPassword {
    password: Password,
    notes: std::sync::Mutex<Vec<Note>>,
}

impl KnownPassword {
    /// Answer every request with `password`.
    pub fn new(password: &str) -> KnownPassword {
        KnownPassword {
            password: Password::new(zeroize::Zeroizing::new(password.to_string())),
            notes: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The notes given so far.
    pub fn notes(&self) -> Vec<Note> {
        self.notes.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Callbacks for KnownPassword {
    fn request_password(&self, _vault: &Path) -> Result<Password> {
        let text = std::str::from_utf8(self.password.as_bytes()).expect("made from a str");
        Ok(Password::new(zeroize::Zeroizing::new(text.to_owned())))
    }

    fn note(&self, note: &Note) {
        self.notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(note.clone());
    }
}

impl fmt::Debug for KnownPassword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KnownPassword { password: redacted }")
    }
}

//! Why an age operation failed, with the CCTV testkit's classes (docs/age.md, "Errors").

use crate::format::armor::ArmorError;
use crate::suite::hybrid_kem::KemError;
use std::fmt;
use std::io;

/// The testkit's `expect` classes, plus the two that are not about the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// The header parsed, but no stanza opens with the identities given.
    NoMatch,
    /// The header is malformed (or a stanza is structurally invalid).
    Header,
    /// A stanza opened, but the header MAC does not match.
    Hmac,
    /// The header opened, the payload does not decrypt to its end.
    Payload,
    /// The ASCII armor is malformed.
    Armor,
    /// A well-formed file of a kind nexusq does not decrypt (passphrase files).
    Unsupported,
    /// Reading, writing, or a bad argument from the caller: not a property of the file.
    Other,
}

/// What went wrong in the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadError {
    /// Chunk `chunk` (from 0) does not authenticate.
    NotAuthentic {
        /// Index of the failing chunk, from 0.
        chunk: u64,
    },
    /// The input ended after `chunks` authentic chunks, none marked last.
    Truncated {
        /// How many chunks authenticated before the input ended.
        chunks: u64,
    },
    /// Data follows the chunk marked last.
    TrailingData,
    /// An empty last chunk after other chunks.
    EmptyLastChunk,
    /// The 2^88 chunk counter would overflow.
    CounterOverflow,
}

/// Why an age operation failed; [`AgeError::class`] gives its testkit class (docs/age.md,
/// "Errors").
#[derive(Debug)]
pub enum AgeError {
    /// Not an age file at all (no "age-encryption.org/" line).
    NotAge,
    /// An age file of another format version.
    UnsupportedVersion,
    /// The header breaks the format.
    Header(&'static str),
    /// A passphrase (scrypt) file: nexusq does not decrypt those.
    Passphrase,
    /// No stanza opens with the identities given.
    NoMatch,
    /// A stanza opened, but the header MAC does not match: the header was altered.
    Hmac,
    /// The header opened, but the payload does not decrypt to its end.
    Payload(PayloadError),
    /// The ASCII armor is malformed.
    Armor(ArmorError),
    /// Encrypting to no recipient.
    NoRecipients,
    /// A recipient's public key was refused (index into the list).
    InvalidRecipient {
        /// Position of the recipient in the list given, from 0.
        index: usize,
        /// Why the KEM refused its public key.
        error: KemError,
    },
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
}

impl AgeError {
    /// The CCTV testkit's class of this error (docs/age.md, "Errors").
    pub fn class(&self) -> ErrorClass {
        match self {
            AgeError::NotAge | AgeError::UnsupportedVersion | AgeError::Header(_) => {
                ErrorClass::Header
            }
            AgeError::Passphrase => ErrorClass::Unsupported,
            AgeError::NoMatch => ErrorClass::NoMatch,
            AgeError::Hmac => ErrorClass::Hmac,
            AgeError::Payload(_) => ErrorClass::Payload,
            AgeError::Armor(_) => ErrorClass::Armor,
            AgeError::NoRecipients
            | AgeError::InvalidRecipient { .. }
            | AgeError::Read(_)
            | AgeError::Write(_) => ErrorClass::Other,
        }
    }

    /// The [`AgeError`] a [`super::stream::Payload`] read failed with, if `e` is one.
    pub fn of(e: &io::Error) -> Option<&AgeError> {
        e.get_ref()?.downcast_ref::<AgeError>()
    }

    /// A read error, unless it is an armor defect carried through `io::Error`.
    pub fn from_read(e: io::Error) -> AgeError {
        match crate::format::armor::armor_error(&e) {
            Some(a) => AgeError::Armor(a.clone()),
            None => AgeError::Read(e),
        }
    }
}

impl fmt::Display for AgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgeError::NotAge => f.write_str("is not an age file"),
            AgeError::UnsupportedVersion => {
                f.write_str("is an age file of a format version other than v1")
            }
            AgeError::Header(why) => write!(f, "has a malformed age header: {why}"),
            AgeError::Passphrase => f.write_str(
                "is encrypted with a passphrase (scrypt), which nexusq does not decrypt",
            ),
            AgeError::NoMatch => f.write_str("is not encrypted to any of the identities given"),
            AgeError::Hmac => f.write_str(
                "has an altered header: a recipient stanza opened but the header MAC does not match",
            ),
            AgeError::Payload(p) => match p {
                PayloadError::NotAuthentic { chunk } => write!(
                    f,
                    "fails authentication at chunk {chunk}: it was altered, reordered or cut"
                ),
                PayloadError::Truncated { chunks } => write!(
                    f,
                    "is truncated: it ends after {chunks} authentic chunk(s) without the final one"
                ),
                PayloadError::TrailingData => f.write_str("has data after its final chunk"),
                PayloadError::EmptyLastChunk => {
                    f.write_str("has an empty final chunk after other chunks")
                }
                PayloadError::CounterOverflow => {
                    f.write_str("is too long: the chunk counter overflowed")
                }
            },
            AgeError::Armor(a) => write!(f, "has invalid age armor: it {}", a.0),
            AgeError::NoRecipients => f.write_str("no recipients"),
            AgeError::InvalidRecipient { index, error } => {
                write!(f, "recipient {}: {error}", index + 1)
            }
            AgeError::Read(e) => write!(f, "read error: {e}"),
            AgeError::Write(e) => write!(f, "write error: {e}"),
        }
    }
}

impl std::error::Error for AgeError {}

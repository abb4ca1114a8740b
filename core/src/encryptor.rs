//! [`Encryptor`]: a file encrypted to [`Recipient`]s, in the format they call for
//! (docs/cli.md, "Formats are told by their first bytes"): nexusq's own by default, age when an
//! age recipient is among them (or age is asked for), OpenPGP when an OpenPGP certificate is
//! (or OpenPGP is asked for). One file is one format, so recipients of two formats are refused
//! ([`EncryptError::Mixed`]), never silently left out.
//!
//! The recipients are nexusq identities ([`recipients::Peer`], read from exports or the
//! contacts book with the book's knowledge applied), age keys ([`recipients::AgeRecipient`]) and
//! OpenPGP certificates ([`recipients::CertRecipient`]); a contact of the book is one of the three, and
//! [`recipients::Recipients`] gathers them all, a contact resolved once
//! ([`Recipients::add_contact`](recipients::Recipients::add_contact)).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::identity::peer;
//! use nexusq_core::recipients::{Recipients, Resolved};
//! use nexusq_core::suite::hybrid_kem::KemLevel;
//! use nexusq_core::{BackendChoice, Encryptor, KnownPassword, Policy};
//! let backend = BackendChoice::default().backend()?;
//! let callbacks = KnownPassword::new("unused: encrypting needs no password");
//! let export = std::fs::read("bob.asc")?;
//! let bob = peer::parse_export(&export, "bob.asc", backend)?;
//! let mut to = Recipients::new(Vec::new());
//! to.add(Resolved::file(bob, "bob.asc".as_ref()), &callbacks)?;
//! let to = to.finish_all()?;
//! let now = nexusq_core::time::now();
//! let level = KemLevel::MlKem768;
//! let encryptor = Encryptor::new(&to.all(), None, level, now, &Policy::default())?;
//! let mut out = std::fs::File::create("letter.nxq")?;
//! encryptor.encrypt(backend, &mut &b"hello bob"[..], &mut out, false)?;
//! # Ok(()) }
//! ```

use crate::error::Error;
use crate::format::age::{self, AgeError};
use crate::format::armor::{ArmorWriter, ENCRYPTED_FILE_KIND, Profile};
use crate::format::nexusq::{self as fe, FileError};
use crate::format::openpgp::message::{self, RecipientKey};
use crate::policy::{Format, Policy};
use crate::recipients::{self, Key, Recipient, RecipientKind};
use crate::suite::Backend;
use crate::suite::hybrid_kem::KemLevel;
use std::io::{Read, Write};

/// Why an encryption could not be made.
#[derive(Debug)]
pub enum EncryptError {
    /// No recipient at all.
    NoRecipient(Format),
    /// Recipient `index` cannot be in a file of `format`, which another recipient (or the
    /// caller) chose: one file is one format.
    Mixed {
        /// The recipient that does not fit.
        index: usize,
        /// What it is.
        kind: RecipientKind,
        /// The file's format.
        format: Format,
    },
    /// The format has no such hybrid KEM: age and OpenPGP use ML-KEM-768 + X25519 only.
    Level(Format),
    /// The policy does not allow the format.
    NotAllowed(Format),
    /// Recipient `index` gave no usable key (revoked, expired, no encryption subkey).
    Key {
        /// The recipient.
        index: usize,
        /// Why.
        error: Error,
    },
    /// Recipient `index`'s key was refused by the format (a malformed key).
    InvalidRecipient {
        /// The recipient.
        index: usize,
        /// Why.
        error: String,
    },
    /// More recipients than a file may have.
    TooMany(Error),
    /// The input could not be read.
    Read(std::io::Error),
    /// The output could not be written.
    Write(std::io::Error),
    /// The format failed otherwise.
    Other(Error),
}

impl std::fmt::Display for EncryptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncryptError::NoRecipient(format) => write!(f, "no recipient for the {format} file"),
            EncryptError::Mixed {
                index,
                kind,
                format,
            } => {
                let what = match kind {
                    RecipientKind::Identity { .. } => "a nexusq identity",
                    RecipientKind::AgeKey => "an age recipient",
                    RecipientKind::Certificate => "an OpenPGP certificate",
                };
                write!(
                    f,
                    "recipient {} is {what}, which cannot be a recipient of a {format} file",
                    index + 1
                )
            }
            EncryptError::Level(format) => write!(
                f,
                "{format} files use ML-KEM-768 + X25519 only, not ML-KEM-1024 + X25519"
            ),
            EncryptError::NotAllowed(format) => {
                write!(f, "{format} files are not allowed by the policy")
            }
            EncryptError::Key { index, error } => {
                write!(f, "recipient {}: {}", index + 1, error.message())
            }
            EncryptError::InvalidRecipient { index, error } => {
                write!(f, "recipient {}: {error}", index + 1)
            }
            EncryptError::TooMany(e) | EncryptError::Other(e) => f.write_str(e.message()),
            EncryptError::Read(e) => write!(f, "cannot read the input: {e}"),
            EncryptError::Write(e) => write!(f, "cannot write the output: {e}"),
        }
    }
}

impl std::error::Error for EncryptError {}

impl From<EncryptError> for Error {
    fn from(e: EncryptError) -> Error {
        let message = e.to_string();
        match e {
            EncryptError::Key { error, .. }
            | EncryptError::TooMany(error)
            | EncryptError::Other(error) => {
                let hint = error.hint().to_string();
                error.reworded(message, hint)
            }
            EncryptError::Mixed { .. } => Error::usage(
                message,
                "encrypt to recipients of different formats in separate files",
            ),
            EncryptError::NoRecipient(_) => Error::usage(message, "add a recipient"),
            EncryptError::Level(_) => {
                Error::usage(message, "encrypt with ML-KEM-768 + X25519 (the default)")
            }
            EncryptError::NotAllowed(_) => Error::usage(
                message,
                "allow the format in the policy, or encrypt to other recipients",
            ),
            EncryptError::InvalidRecipient { .. } => Error::check(
                message,
                "the recipient's key is unusable; ask its owner for a fresh one",
            ),
            EncryptError::Read(io) => {
                Error::io(message, "check the input; nothing was written").caused_by(io.kind())
            }
            EncryptError::Write(io) => {
                Error::io(message, "check the output's folder and free space").caused_by(io.kind())
            }
        }
    }
}

/// The format for recipients of `kinds`: `asked` when the caller names one, else the one a
/// recipient calls for (an OpenPGP certificate before an age key), else nexusq's own. Every
/// recipient must fit it.
pub fn format_for(kinds: &[RecipientKind], asked: Option<Format>) -> Result<Format, EncryptError> {
    let called = |f: Format| kinds.iter().any(|k| k.calls_for() == Some(f));
    let format = asked.unwrap_or(if called(Format::OpenPgp) {
        Format::OpenPgp
    } else if called(Format::Age) {
        Format::Age
    } else {
        Format::Nexusq
    });
    match kinds.iter().position(|k| !k.fits(format)) {
        Some(index) => Err(EncryptError::Mixed {
            index,
            kind: kinds[index],
            format,
        }),
        None => Ok(format),
    }
}

/// Age and OpenPGP files use ML-KEM-768 + X25519 only; nexusq's own both hybrid KEMs.
pub fn check_level(format: Format, level: KemLevel) -> Result<(), EncryptError> {
    if format != Format::Nexusq && level != KemLevel::MlKem768 {
        return Err(EncryptError::Level(format));
    }
    Ok(())
}

/// A file's format and the key of each of its recipients, ready to encrypt any number of
/// inputs.
pub struct Encryptor {
    format: Format,
    level: KemLevel,
    /// Each recipient's key, in the order given.
    keys: Vec<Key>,
}

impl Encryptor {
    /// The file `recipients` can all read: its format (see [`format_for`]; `asked` names
    /// one), and each recipient's key at `level` as of `now`, by `policy`.
    pub fn new(
        recipients: &[&dyn Recipient],
        asked: Option<Format>,
        level: KemLevel,
        now: u64,
        policy: &Policy,
    ) -> Result<Encryptor, EncryptError> {
        let kinds: Vec<RecipientKind> = recipients.iter().map(|r| r.kind()).collect();
        let format = format_for(&kinds, asked)?;
        if !policy.allows(format) {
            return Err(EncryptError::NotAllowed(format));
        }
        check_level(format, level)?;
        let keys = recipients
            .iter()
            .enumerate()
            .map(|(index, r)| {
                r.key(format, level, now, policy)
                    .map_err(|error| EncryptError::Key { index, error })
            })
            .collect::<Result<Vec<Key>, _>>()?;
        let encryptor = Encryptor {
            format,
            level,
            keys,
        };
        match encryptor.key_count() {
            0 => return Err(EncryptError::NoRecipient(format)),
            n => recipients::check_cap(n).map_err(EncryptError::TooMany)?,
        }
        Ok(encryptor)
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The hybrid KEM of a nexusq file (age and OpenPGP: ML-KEM-768 + X25519).
    pub fn level(&self) -> KemLevel {
        self.level
    }

    /// Each recipient's key, in the order the recipients were given.
    pub fn keys(&self) -> &[Key] {
        &self.keys
    }

    /// The keys the file's header holds: one per nexusq recipient, one per distinct age key
    /// (the same key twice would only make the header longer), one per OpenPGP subkey.
    pub fn key_count(&self) -> usize {
        match self.format {
            Format::Age => self.age_keys().len(),
            _ => self
                .keys
                .iter()
                .map(|k| match k {
                    Key::OpenPgp { keys } => keys.len(),
                    _ => 1,
                })
                .sum(),
        }
    }

    /// The distinct age keys, each with the first recipient that gave it.
    fn age_keys(&self) -> Vec<(usize, &[u8])> {
        let mut unique: Vec<(usize, &[u8])> = Vec::new();
        for (index, key) in self.keys.iter().enumerate() {
            if let Key::Age { public_key, .. } = key
                && !unique.iter().any(|(_, k)| k == public_key)
            {
                unique.push((index, public_key));
            }
        }
        unique
    }

    /// Encrypt `input` to `output` (armored with `armor`), streaming. Returns the bytes of
    /// plaintext read.
    pub fn encrypt(
        &self,
        backend: &dyn Backend,
        input: &mut dyn Read,
        output: &mut dyn Write,
        armor: bool,
    ) -> Result<u64, EncryptError> {
        if self.format == Format::OpenPgp {
            let keys: Vec<RecipientKey> = self
                .keys
                .iter()
                .flat_map(|k| match k {
                    Key::OpenPgp { keys } => keys.clone(),
                    _ => Vec::new(),
                })
                .collect();
            return message::encrypt(&keys, armor, input, output).map_err(EncryptError::Other);
        }
        let profile = match self.format {
            Format::Age => Profile::age(),
            _ => Profile::nexusq(ENCRYPTED_FILE_KIND),
        };
        if !armor {
            return self.encrypt_binary(backend, input, output);
        }
        let mut armored = ArmorWriter::new(output, &profile).map_err(EncryptError::Write)?;
        let n = self.encrypt_binary(backend, input, &mut armored)?;
        armored.finish().map_err(EncryptError::Write)?;
        Ok(n)
    }

    fn encrypt_binary(
        &self,
        backend: &dyn Backend,
        input: &mut dyn Read,
        output: &mut dyn Write,
    ) -> Result<u64, EncryptError> {
        if self.format == Format::Age {
            let unique = self.age_keys();
            let pks: Vec<&[u8]> = unique.iter().map(|(_, k)| *k).collect();
            return age::encrypt(backend, &pks, input, output).map_err(|e| match e {
                AgeError::Read(e) => EncryptError::Read(e),
                AgeError::Write(e) => EncryptError::Write(e),
                AgeError::InvalidRecipient { index, error } => EncryptError::InvalidRecipient {
                    index: unique[index].0,
                    error: error.to_string(),
                },
                other => EncryptError::Other(Error::usage(
                    format!("cannot encrypt: {other}"),
                    "check the recipients",
                )),
            });
        }
        let keys: Vec<fe::Recipient<'_>> = self
            .keys
            .iter()
            .filter_map(|k| match k {
                Key::Nexusq {
                    level, public_key, ..
                } => Some((*level, public_key.as_slice())),
                _ => None,
            })
            .collect();
        fe::encrypt(backend, &keys, input, output).map_err(|e| match e {
            FileError::Read(e) => EncryptError::Read(e),
            FileError::Write(e) => EncryptError::Write(e),
            FileError::InvalidRecipient { index, error } => EncryptError::InvalidRecipient {
                index,
                error: error.to_string(),
            },
            other => EncryptError::Other(Error::usage(
                format!("cannot encrypt: {other}"),
                "check the recipients",
            )),
        })
    }
}

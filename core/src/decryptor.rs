//! [`Decryptor`]: one reader in, authenticated plaintext out, whichever of the three formats it
//! is (docs/file-encryption.md, docs/age.md, docs/openpgp.md).
//!
//! The format is told from the first bytes, armor is taken off, the header is read and
//! bounded before any key is asked for (a file that is not one fails without a password), the
//! keys come from a [`KeySource`] (the agent serving the vault, else the vault unlocked through
//! the caller's [`Callbacks`]), and what is learned along the way is returned as data
//! ([`Opened`]): the format, the generation that opened it, whether that generation is
//! superseded. The plaintext is a reader that gives out only authenticated bytes; a failure
//! part-way is an `io::Error` that [`DecryptError::from_read`] turns back into what went wrong.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::{BackendChoice, Decryptor, KeySource, KnownPassword, Policy};
//! use nexusq_core::session::AgentUse;
//! let callbacks = KnownPassword::new("correct horse battery staple");
//! let backend = BackendChoice::default().backend()?;
//! let mut keys = KeySource::open("vault.nxq".as_ref(), backend, AgentUse::IfRunning, &callbacks)?;
//! let decryptor = Decryptor::new(std::fs::File::open("letter.age")?)?;
//! let now = nexusq_core::time::now();
//! let mut plaintext = decryptor.decrypt(&mut keys, &callbacks, &Policy::default(), now)?;
//! std::io::copy(&mut plaintext, &mut std::io::stdout())?;
//! println!("{:?} file, generation {:?}", plaintext.opened().format, plaintext.opened().generation);
//! # Ok(()) }
//! ```

use crate::callbacks::Callbacks;
use crate::error::Error;
use crate::format::age::{self, AgeError, IdentityRef};
use crate::format::nexusq::{self as fe, FileError};
use crate::format::openpgp::message;
use crate::format::{self as formats, Encrypted};
use crate::policy::{Format, Policy};
use crate::session::{Failure, KeySource, OpenPgpKeys};
use crate::suite::Backend;
use crate::suite::hybrid_kem::KemLevel;
use std::borrow::BorrowMut;
use std::io::{self, Read};

/// An encrypted input whose format has been told, ready to be decrypted.
pub struct Decryptor<'a> {
    input: Encrypted<'a>,
}

/// What decrypting learned, besides the plaintext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The file's format.
    pub format: Format,
    /// It came armored.
    pub armored: bool,
    /// The generation of the identity whose key opened it; `None` when age identities
    /// ([`Decryptor::decrypt_with_identities`]) did.
    pub generation: Option<u32>,
    /// The hybrid KEM of that key.
    pub level: Option<KemLevel>,
    /// The generation is older than the identity's newest: the sender has an old export.
    pub superseded: bool,
    /// The sender is authenticated. Never, in any of the three formats as nexusq reads them:
    /// any recipient can make a file the others accept (sign it to authenticate it).
    pub sender_authenticated: bool,
    /// An OpenPGP message whose session key was also encrypted to a classical key or a
    /// password: only as safe as that.
    pub classical_too: bool,
    /// With age identities: the index of the identity that opened it, in the list given.
    pub identity: Option<usize>,
}

/// Why a decryption failed. The command line words each case for its users; `Error::from`
/// gives the library's words.
#[derive(Debug)]
pub enum DecryptError {
    /// The keys could not be had: a damaged vault, a wrong password, no way to ask for one.
    Keys(Error),
    /// A nexusq file that is damaged, of an unknown version, or for nobody here.
    Nexusq(FileError),
    /// An age file that is damaged, unsupported or for nobody here.
    Age(AgeError),
    /// An OpenPGP message that is damaged, not post-quantum, or for nobody here.
    OpenPgp(Error),
    /// The policy does not allow the input's format.
    NotAllowed(Format),
    /// Age identities can open only an age file: this input is of another format.
    NeedsTheVault(Format),
}

impl DecryptError {
    /// The error behind a failed read of a [`Plaintext`] of `format`: the payload's own
    /// error, else a read error of the input.
    pub fn from_read(format: Format, e: io::Error) -> DecryptError {
        match format {
            Format::Nexusq if FileError::of(&e).is_some() => DecryptError::Nexusq(take(e)),
            Format::Nexusq => DecryptError::Nexusq(FileError::Read(e)),
            Format::Age if AgeError::of(&e).is_some() => DecryptError::Age(take(e)),
            Format::Age => DecryptError::Age(AgeError::from_read(e)),
            Format::OpenPgp => DecryptError::OpenPgp(message::message_error(&e)),
        }
    }
}

/// The error of type `E` that `e` carries (checked by the caller).
fn take<E: std::error::Error + 'static>(e: io::Error) -> E {
    *e.into_inner()
        .and_then(|inner| inner.downcast::<E>().ok())
        .expect("the caller checked that it carries one")
}

impl std::fmt::Display for DecryptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecryptError::Keys(e) | DecryptError::OpenPgp(e) => write!(f, "{}", e.message()),
            DecryptError::Nexusq(e) => write!(f, "the nexusq file {e}"),
            DecryptError::Age(e) => write!(f, "the age file {e}"),
            DecryptError::NotAllowed(format) => {
                write!(f, "{format} files are not allowed by the policy")
            }
            DecryptError::NeedsTheVault(format) => write!(
                f,
                "it is a {format} file, and age identities decrypt only age files"
            ),
        }
    }
}

impl std::error::Error for DecryptError {}

impl From<DecryptError> for Error {
    /// The library's words for it (the command line has its own).
    fn from(e: DecryptError) -> Error {
        match e {
            DecryptError::Keys(e) | DecryptError::OpenPgp(e) => e,
            DecryptError::Nexusq(FileError::Read(io)) | DecryptError::Age(AgeError::Read(io)) => {
                Error::io(
                    format!("cannot read the encrypted input: {io}"),
                    "check the input",
                )
            }
            DecryptError::NotAllowed(_) | DecryptError::NeedsTheVault(_) => {
                Error::usage(e.to_string(), "decrypt it with the identity's keys")
            }
            DecryptError::Nexusq(FileError::NotARecipient)
            | DecryptError::Age(AgeError::NoMatch) => Error::check(
                e.to_string(),
                "it was encrypted to someone else, or to a retired generation",
            ),
            other => Error::check(
                other.to_string(),
                "the file is damaged, incomplete or not one; ask the sender for it again",
            ),
        }
    }
}

impl<'a> Decryptor<'a> {
    /// Tell the format of `input` from its first bytes (nexusq, age or OpenPGP; armored or
    /// binary). An input that is none of them is taken as a nexusq file, whose header read
    /// then says precisely what is wrong. Fails only when reading fails.
    pub fn new<R: Read + Send + Sync + 'a>(input: R) -> io::Result<Decryptor<'a>> {
        Ok(Decryptor {
            input: formats::open(input)?,
        })
    }

    /// The input's format.
    pub fn format(&self) -> Format {
        match self.input {
            Encrypted::Nexusq { .. } => Format::Nexusq,
            Encrypted::Age { .. } => Format::Age,
            Encrypted::OpenPgp { .. } => Format::OpenPgp,
        }
    }

    /// It came armored.
    pub fn is_armored(&self) -> bool {
        match self.input {
            Encrypted::Nexusq { armored, .. }
            | Encrypted::Age { armored, .. }
            | Encrypted::OpenPgp { armored, .. } => armored,
        }
    }

    /// Decrypt with the identity's keys: the agent's when it serves `keys`' vault, else the
    /// vault's, unlocked with the password `callbacks` supplies (asked for only once the header
    /// has been read, so that a file that is not one fails without a password). `now` is the
    /// time OpenPGP's policy judges keys at.
    ///
    /// `keys` is a `&mut KeySource`, to decrypt more inputs with one unlock, or a `KeySource`,
    /// given away: a nexusq or age file then drops it, and the keys with it, as soon as the
    /// header is open (the payload needs only the file's own key).
    pub fn decrypt<K: BorrowMut<KeySource> + 'a>(
        self,
        mut keys: K,
        callbacks: &'a dyn Callbacks,
        policy: &Policy,
        now: u64,
    ) -> Result<Plaintext<'a>, DecryptError> {
        let format = self.format();
        if !policy.allows(format) {
            return Err(DecryptError::NotAllowed(format));
        }
        let armored = self.is_armored();
        let opened = |generation, level, superseded| Opened {
            format,
            armored,
            generation: Some(generation),
            level: Some(level),
            superseded,
            sender_authenticated: false,
            classical_too: false,
            identity: None,
        };
        match self.input {
            Encrypted::Nexusq { mut reader, .. } => {
                let header = fe::Header::read(&mut reader).map_err(DecryptError::Nexusq)?;
                let found = keys
                    .borrow_mut()
                    .open_with(None, callbacks, |candidates| {
                        header.open(candidates).map(|opened| {
                            let i = opened.candidate;
                            (opened, i)
                        })
                    })
                    .map_err(|f| failure(f, DecryptError::Nexusq))?;
                drop(keys);
                Ok(Plaintext {
                    reader: Box::new(found.opened.payload(reader)),
                    opened: opened(found.generation, found.level, found.superseded),
                })
            }
            Encrypted::Age { mut reader, .. } => {
                let header = age::Header::read(&mut reader).map_err(DecryptError::Age)?;
                // The X-Wing keys, newest generation first: the agent's (only the stanzas'
                // KEM ciphertexts cross its socket), else the vault's.
                let found = keys
                    .borrow_mut()
                    .open_with(Some(KemLevel::MlKem768), callbacks, |candidates| {
                        let refs: Vec<IdentityRef<'_>> =
                            candidates.iter().map(|k| IdentityRef::Hybrid(*k)).collect();
                        header.open(&refs).map(|opened| {
                            let i = opened.identity;
                            (opened, i)
                        })
                    })
                    .map_err(|f| failure(f, DecryptError::Age))?;
                drop(keys);
                Ok(Plaintext {
                    reader: Box::new(found.opened.payload(reader)),
                    opened: opened(found.generation, found.level, found.superseded),
                })
            }
            Encrypted::OpenPgp { reader, .. } => {
                let newest = keys.borrow().public().newest().generation;
                let session = Box::new(Lent { keys, callbacks });
                let message = message::open(reader, session, now).map_err(DecryptError::OpenPgp)?;
                let found = message.decrypted();
                let mut info = opened(
                    found.generation,
                    KemLevel::MlKem768,
                    found.generation < newest,
                );
                info.classical_too = found.classical_too;
                Ok(Plaintext {
                    reader: Box::new(message),
                    opened: info,
                })
            }
        }
    }

    /// Decrypt an age file with age identities (the keys of `age -i` identity files) instead
    /// of the identity's own; any other format is [`DecryptError::NeedsTheVault`].
    pub fn decrypt_with_identities(
        self,
        identities: &[age::Identity],
        backend: &dyn Backend,
        policy: &Policy,
    ) -> Result<Plaintext<'a>, DecryptError> {
        let format = self.format();
        if !policy.allows(format) {
            return Err(DecryptError::NotAllowed(format));
        }
        let armored = self.is_armored();
        let Encrypted::Age { mut reader, .. } = self.input else {
            return Err(DecryptError::NeedsTheVault(format));
        };
        let header = age::Header::read(&mut reader).map_err(DecryptError::Age)?;
        let expanded: Vec<age::Key> = identities.iter().map(|i| i.expand(backend)).collect();
        let refs: Vec<IdentityRef<'_>> = expanded.iter().map(age::Key::as_ref).collect();
        let opened = header.open(&refs).map_err(DecryptError::Age)?;
        Ok(Plaintext {
            reader: Box::new(opened.payload(reader)),
            opened: Opened {
                format,
                armored,
                generation: None,
                level: None,
                superseded: false,
                sender_authenticated: false,
                classical_too: false,
                identity: Some(opened.identity),
            },
        })
    }
}

/// A key source lent to OpenPGP's decryption, owned or borrowed.
struct Lent<'c, K> {
    keys: K,
    callbacks: &'c dyn Callbacks,
}

impl<K: BorrowMut<KeySource>> message::SessionKeys for Lent<'_, K> {
    fn open(
        &mut self,
        unwrap: &message::Unwrap,
    ) -> crate::Result<Option<(message::Unwrapped, u32)>> {
        OpenPgpKeys {
            source: self.keys.borrow_mut(),
            callbacks: self.callbacks,
        }
        .open(unwrap)
    }
}

fn failure<E>(f: Failure<E>, input: impl FnOnce(E) -> DecryptError) -> DecryptError {
    match f {
        Failure::Keys(e) => DecryptError::Keys(e),
        Failure::Input(e) => input(e),
    }
}

/// A decrypted input's plaintext: each byte it gives out has been authenticated. Reading it
/// to its end (`Ok(0)`) means the whole file was authentic; a failure part-way is an
/// `io::Error` ([`DecryptError::from_read`] says what it was), and what was read before it was
/// authentic but not the whole.
pub struct Plaintext<'a> {
    reader: Box<dyn Read + 'a>,
    opened: Opened,
}

impl Plaintext<'_> {
    /// What decrypting learned.
    pub fn opened(&self) -> &Opened {
        &self.opened
    }
}

impl Read for Plaintext<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

impl std::fmt::Debug for Plaintext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plaintext {{ {:?} }}", self.opened)
    }
}

//! nexusq-core: the library behind the `nexusq` command line, a vault for one person's
//! post-quantum identity: an SLH-DSA root key that never changes and the key generations it
//! certifies (X-Wing and ML-KEM-1024 + X25519 for encryption, ML-DSA-65 + Ed25519 for
//! signatures), kept in one password-protected file.
//!
//! # Four tasks
//!
//! Each is a handful of calls on the front door: [`Encryptor`] and [`Recipient`],
//! [`Decryptor`], [`Signer`] and [`Verifier`], with keys from a [`KeySource`] (the key agent
//! when it serves the vault, else the vault unlocked through your [`Callbacks`]) and one
//! [`Policy`] (expiry, revocation, formats) passed in. The runnable versions are in
//! `core/examples/` (`cargo run -p nexusq-core --example NAME -- ARGS`).
//!
//! **Encrypt to a contact** (`encrypt_to_contact`): the format follows the recipients,
//! nexusq's own for an identity, age for an age key, OpenPGP for a certificate; a mix is an
//! [`EncryptError::Mixed`].
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::contacts::store;
//! use nexusq_core::recipients::Recipients;
//! use nexusq_core::suite::hybrid_kem::KemLevel;
//! use nexusq_core::{BackendChoice, Encryptor, KnownPassword, Policy};
//! let (backend, now) = (BackendChoice::default().backend()?, nexusq_core::time::now());
//! let vault = std::path::Path::new("vault.nxq");
//! let own = nexusq_core::vault::open(vault)?.public;
//! let book = store::load(&store::default_path(vault), Some(&own), backend)?.book;
//! let mut to = Recipients::new(Vec::new());
//! to.add_contact(book.get("bob").ok_or("no bob")?, now, &KnownPassword::new(""))?;
//! let to = to.finish_all()?;
//! let encryptor = Encryptor::new(&to.all(), None, KemLevel::MlKem768, now, &Policy::default())?;
//! let mut out = std::fs::File::create("letter.nxq")?;
//! encryptor.encrypt(backend, &mut &b"meet at noon"[..], &mut out, false)?;
//! # Ok(()) }
//! ```
//!
//! **Decrypt a file of any of the three formats** (`decrypt_anything`), armored or not: the
//! plaintext is a reader of authenticated bytes, and what was learned comes back as data.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::session::AgentUse;
//! use nexusq_core::{BackendChoice, Decryptor, KeySource, KnownPassword, Policy};
//! let backend = BackendChoice::default().backend()?;
//! let callbacks = KnownPassword::new("correct horse battery staple");
//! let vault = std::path::Path::new("vault.nxq");
//! let mut keys = KeySource::open(vault, backend, AgentUse::IfRunning, &callbacks)?;
//! let decryptor = Decryptor::new(std::fs::File::open("letter.age")?)?;
//! let now = nexusq_core::time::now();
//! let mut plaintext = decryptor.decrypt(&mut keys, &callbacks, &Policy::default(), now)?;
//! std::io::copy(&mut plaintext, &mut std::io::stdout())?;
//! let opened = plaintext.opened();
//! eprintln!("{}, generation {:?}, superseded: {}", opened.format, opened.generation, opened.superseded);
//! # Ok(()) }
//! ```
//!
//! **Sign through the agent** (`sign_with_agent`): no password while the agent runs; a
//! revoked identity signs nothing unless the policy allows it, on every path.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::session::AgentUse;
//! use nexusq_core::{BackendChoice, KeySource, KnownPassword, Policy, Signer};
//! let backend = BackendChoice::default().backend()?;
//! let callbacks = KnownPassword::new("asked for only if the agent cannot serve");
//! let vault = std::path::Path::new("vault.nxq");
//! let mut keys = KeySource::open(vault, backend, AgentUse::IfRunning, &callbacks)?;
//! let now = nexusq_core::time::now();
//! let sig = Signer::new(&mut keys, Policy::default()).sign(std::fs::File::open("notes.txt")?, now, &callbacks)?;
//! std::fs::write("notes.txt.sig", sig.to_armor())?;
//! # Ok(()) }
//! ```
//!
//! **Verify against the book** (`verify_with_book`): the signer must be the vault's own
//! identity or a contact, as the book knows it (revocations and newer generations applied).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::identity::signature::Signature;
//! use nexusq_core::{BackendChoice, Verifier};
//! let backend = BackendChoice::default().backend()?;
//! let vault = std::path::Path::new("vault.nxq");
//! let verifier = Verifier::for_vault(vault, backend)?.with_default_book(backend)?;
//! let sig = Signature::parse(&std::fs::read("notes.txt.sig")?, "notes.txt.sig")?;
//! let trusted = verifier.signer_of(&sig)?;
//! let ok = trusted.verify(backend, &sig, std::fs::File::open("notes.txt")?)?;
//! println!("good signature, generation {}", ok.verified.generation);
//! # Ok(()) }
//! ```
//!
//! Data flows one way: the command line (crate `nexusq`) -> the front door and the services
//! (`contacts`, `agent`, `session`, `recipients`, `recovery`) -> `identity` / `vault` /
//! `format` -> `suite` -> backend. Nothing here prints, parses flags or chooses an exit code,
//! and nothing below `suite` knows about files (docs/architecture.md). Every failure is an
//! [`Error`] that carries its message, a hint in the library's words and its class
//! ([`ErrorKind`]); the front door's own failures are typed ([`DecryptError`],
//! [`EncryptError`], [`verifier::UnknownSigner`]).
//!
//! # Modules
//!
//! The front door: [`encryptor`], [`decryptor`], [`signer`], [`verifier`], [`policy`],
//! [`callbacks`].
//!
//! The identity and its keys:
//!
//! - [`identity`]: the root key, generations and certificates, revocations, the public identity
//!   an export carries ([`PublicIdentity`]; [`identity::peer`] reads other people's), detached
//!   signatures and their trust policy ([`identity::signature`]) and KEM envelopes
//!   (docs/identity-format.md, docs/signature-format.md, docs/kem.md).
//! - [`vault`]: the one file that holds an identity: create, open, unlock, rotate, change the
//!   password (docs/vault-format.md).
//! - [`suite`]: the hybrid KEMs, the ML-DSA-65 + Ed25519 composite and the SLH-DSA root
//!   signature, computed by a [`Backend`] chosen with [`BackendChoice`] (docs/kem.md).
//! - [`recovery`]: the master secret as a 24-word BIP39 phrase or k-of-n Shamir shares written
//!   as words, and the identity rebuilt from them (docs/recovery.md).
//! - [`secret`]: buffers for seeds, keys and passwords, zeroized on drop.
//! - [`agent`]: the key agent, which holds an unlocked vault's working keys so commands need no
//!   password while it runs (docs/agent.md).
//! - [`session`]: where a command's keys come from ([`session::KeySource`]: the agent serving
//!   the vault, else the vault unlocked).
//!
//! Formats:
//!
//! - [`format`](mod@format): nexusq's encrypted file ([`format::nexusq`],
//!   docs/file-encryption.md), age v1 ([`format::age`], docs/age.md) and the strict armor both
//!   use.
//! - [`contacts`]: names for other people's identities, pinned to their root and signed by the
//!   vault (docs/contacts.md).
//! - [`recipients`]: whom a file is encrypted to: exports and contacts with the book applied,
//!   repeats collapsed, forks refused, the recipient cap.
//! - [`manifest`]: `sha256sum` manifests, checked file by file (docs/signature-format.md).
//! - [`gitsign`]: the gpg-compatible surface that `nexusq-git-sign` gives git.
//! - [`wire`]: the big-endian readers and writers under every binary format.
//!
//! Around them: [`error`], [`fs`] (atomic saves, strict inputs, `-o` outputs, cleanup on
//! signals), [`untrusted`] (text from others, escaped before it reaches a terminal), [`time`],
//! and, apart from the identity API, the [`tools`] of `nexusq bench`, `doctor` and `report`.
//!
//! The rules behind the code (what is checked, what is promised, and what is not) are in
//! docs/security.md.
//!

#![warn(missing_docs)]

pub mod callbacks;
pub mod decryptor;
pub mod encryptor;
pub mod error;
pub mod format;
pub mod fs;
pub mod gitsign;
pub mod identity;
pub mod manifest;
pub mod policy;
pub mod secret;
pub mod services;
pub mod signer;
pub mod suite;
pub mod time;
pub mod tools;
pub mod untrusted;
pub mod vault;
pub mod verifier;
pub mod wire;

pub use services::{agent, contacts, directory, recipients, recovery, session};

pub use callbacks::{Callbacks, KnownPassword, Note};
pub use decryptor::{DecryptError, Decryptor, Opened, Plaintext};
pub use encryptor::{EncryptError, Encryptor};
pub use error::{Error, ErrorKind, Result};
pub use identity::PublicIdentity;
pub use policy::{Format, Policy};
pub use recipients::Recipient;
pub use secret::Password;
pub use session::KeySource;
pub use signer::Signer;
pub use suite::{Backend, BackendChoice};
pub use vault::KdfParams;
pub use verifier::{Trusted, Verifier};

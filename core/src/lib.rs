//! nexusq-core: the library behind the `nexusq` command line, a vault for one person's
//! post-quantum identity. It holds the identity (an SLH-DSA root key that never changes and the
//! key generations it certifies), the password-protected vault file that keeps it, the formats
//! nexusq reads and writes (encrypted files, age v1, signatures, exports, the contacts book),
//! and the key sources that decrypt and sign for it: an unlocked vault, or the key agent.
//!
//! Data flows one way: the command line (crate `nexusq`) -> `identity` / `vault` / `contacts` /
//! `agent` -> `suite` -> backend. Nothing here prints, parses flags or chooses an exit code, and
//! nothing below `suite` knows about files (docs/architecture.md). Every failure is an [`Error`]
//! that carries its message, a hint in the library's words and its class
//! ([`ErrorKind`]), which the command line maps to an exit code.
//!
//! # Modules
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
//!   the vault, else the vault unlocked) and what the library asks of its caller
//!   ([`callbacks::Callbacks`]: the password, notes).
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
//! and the measuring code: [`bench`](mod@bench) (benchmarks and their evidence,
//! docs/evidence.md) and [`report`] (the HTML page of that evidence).
//!
//! The rules behind the code (what is checked, what is promised, and what is not) are in
//! docs/security.md.
//!
//! # The common path
//!
//! Open and unlock a vault, encrypt to an export and decrypt with the vault, sign and verify.
//! `examples/open_encrypt_verify.rs` runs the same steps on a throwaway vault
//! (`cargo run -p nexusq-core --example open_encrypt_verify`).
//!
//! ```no_run
//! use nexusq_core::format::nexusq as encrypted_file;
//! use nexusq_core::identity::{peer, signature};
//! use nexusq_core::suite::hybrid_kem::KemLevel;
//! use nexusq_core::vault::{self, Argon2id};
//! use nexusq_core::{BackendChoice, Password};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let backend = BackendChoice::default().backend()?;
//! let now = nexusq_core::time::now();
//! let password = Password::new(String::from("correct horse battery staple").into());
//!
//! // Open (the public part, no password), then unlock (Argon2id, then AES-GCM).
//! let unlocked = vault::open("vault.nxq".as_ref())?.unlock(&password, &Argon2id, backend)?;
//!
//! // An export, read as `--to` reads one: strict armor, structure, every root signature.
//! let export = unlocked.file.public.export(false).to_armor();
//! let them = peer::parse_export(export.as_bytes(), "the export", backend)?;
//!
//! // Encrypt to its newest X-Wing key; decrypt with the vault's keys.
//! let (_, key) = peer::encryption_key(&them, KemLevel::MlKem768, now, false)?;
//! let mut file = Vec::new();
//! encrypted_file::encrypt(backend, &[(KemLevel::MlKem768, key)], &mut &b"hi"[..], &mut file)?;
//! let mut input = &file[..];
//! let header = encrypted_file::Header::read(&mut input)?;
//! let (opened, _) = unlocked.decryption_keys().open_file_header(&header)?;
//! let mut plain = Vec::new();
//! opened.decrypt_payload(&mut input, &mut plain)?;
//!
//! // Sign with the newest generation; verify under a root the verifier trusts.
//! let digest = signature::digest(b"data");
//! let rnd = nexusq_core::secret::random_array();
//! let secrets = &unlocked.secrets;
//! let sig = signature::sign_newest(backend, &unlocked.file.public, secrets, &digest, now, &rnd)?;
//! let trust = signature::Trust::Identity { identity: &them, expected: None };
//! let verified = signature::verify(backend, trust, &sig, &digest)?;
//! println!("good signature by {}", verified.fingerprint());
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

pub mod agent;
pub mod bench;
pub mod callbacks;
pub mod contacts;
pub mod decryptor;
pub mod doctor;
pub mod error;
pub mod format;
pub mod fs;
pub mod gitsign;
pub mod identity;
pub mod manifest;
pub mod policy;
pub mod recipients;
pub mod recovery;
pub mod report;
pub mod secret;
pub mod session;
pub mod suite;
pub mod time;
pub mod untrusted;
pub mod vault;
pub mod verifier;
pub mod wire;

pub use callbacks::{Callbacks, KnownPassword, Note};
pub use decryptor::{DecryptError, Decryptor, Opened, Plaintext};
pub use error::{Error, ErrorKind, Result};
pub use identity::PublicIdentity;
pub use policy::{Format, Policy};
pub use secret::Password;
pub use session::KeySource;
pub use suite::{Backend, BackendChoice};
pub use vault::KdfParams;
pub use verifier::{Trusted, Verifier};

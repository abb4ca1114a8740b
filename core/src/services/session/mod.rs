//! Where a command's keys come from, and what the library may ask of the person using it
//! (docs/agent.md, docs/architecture.md).
//!
//! One [`KeySource`] per command: the key agent serving the vault when one does (only digests
//! and KEM ciphertexts cross its socket), else the vault itself, unlocked with a password that
//! the caller's [`Callbacks`](crate::callbacks::Callbacks) supply. An agent that fails on the
//! way is passed over once, with a note, for the password.

mod key_source;
mod openpgp;

pub use key_source::{AgentUse, DecapsulateError, Failure, Found, KeySource, OpenPgpSigned};
pub use openpgp::OpenPgpKeys;

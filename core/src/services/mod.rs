//! The services over the identity and its formats: what a command uses to find keys, name
//! people and keep the identity safe. Each is re-exported at the crate root, where its path
//! has always been.
//!
//! - [`agent`]: the key agent holding an unlocked vault's working keys (docs/agent.md).
//! - [`contacts`]: the book of other people's identities, pinned to their roots
//!   (docs/contacts.md).
//! - [`session`]: where a command's keys come from ([`session::KeySource`]).
//! - [`recipients`]: whom a file is encrypted to, resolved once.
//! - [`recovery`]: the master secret as words or shares, and the identity rebuilt from them
//!   (docs/recovery.md).

pub mod agent;
pub mod contacts;
pub mod directory;
pub mod recipients;
pub mod recovery;
pub mod session;

//! nexusq-core: the library behind the `nexusq` command line, a vault for one person's
//! post-quantum identity.
//!
//! Data flows one way: the command line (crate `nexusq`) -> `identity` / `vault` / `contacts` /
//! `agent` -> `suite` -> backend. Nothing here prints, parses flags or knows exit codes; nothing
//! below `suite` knows about files.

pub mod agent;
pub mod bench;
pub mod contacts;
pub mod doctor;
pub mod error;
pub mod format;
pub mod fs;
pub mod gitsign;
pub mod identity;
pub mod manifest;
pub mod report;
pub mod secret;
pub mod suite;
pub mod time;
pub mod untrusted;
pub mod vault;
pub mod wire;

//! nexusq: a vault for one person's post-quantum identity.
//!
//! Data flows one way: `cli` -> `identity` / `vault` -> `suite` -> backend. Nothing below `cli`
//! prints; nothing below `suite` knows about files.

pub mod armor;
pub mod bench;
pub mod cli;
pub mod error;
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

//! The key directory (docs/directory.md): a server that carries each identity's rotations and
//! revocations to everyone who follows it.
//!
//! - [`rules`]: what the directory accepts of an upload, given what it holds: the contacts
//!   book's chain rules ([`crate::contacts::merge_chain`]), so that the directory and the book
//!   never disagree on what continues an identity.
//! - [`upload`]: what an upload is (an export, a revocation statement, a certificate), read
//!   and checked, and the rules for statements and certificates beside [`rules`]'.
//! - [`api`]: the HTTP interface's paths, bodies and error codes, shared by the server
//!   (`nexusq-server`) and the client.
//! - [`client`]: a [`Directory`] by URL: publish, look up.
//! - [`follow`]: an identity fetched by the fingerprint its owner gave, and what changed for
//!   each contact, judged by the book's rules.
//! - [`config`]: which server the user chose, if any (none by default).
//!
//! The directory cannot forge an update: only the identity's root signs them. It can withhold
//! one; that is what the transparency log is for.

pub mod api;
pub mod client;
pub mod config;
pub mod follow;
pub mod rules;
pub mod upload;

pub use api::{ErrorCode, Outcome};
pub use client::{Directory, Refused};
pub use follow::{Change, Fetched, Update};
pub use rules::{Judgement, judge};
pub use upload::{Unaccepted, Upload};

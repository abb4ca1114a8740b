//! The contacts book (docs/contacts.md): other people's identities under names, pinned to their
//! root, updated only along their certified chain, with every revocation ever seen kept.
//!
//! - [`book`]: the entries and the rules for adding and updating them.
//! - [`format`](mod@format): the file's byte layout.
//! - [`seal`]: the signature that authenticates each saved version against the vault.
//! - [`store`]: reading and saving `contacts.nxq` (lock, atomic replace), carrying it over a
//!   rotation and recovering one signed by a revoked key.
//! - [`naming`]: what a name given for a recipient or signer refers to.
//! - OpenPGP certificates as contacts are stored, read back, merged and described by the
//!   OpenPGP format room, [`crate::format::openpgp::book`].
//!
//! Below `cli`: it returns errors and facts, and prints nothing.

pub mod book;
pub mod format;
pub mod naming;
pub mod seal;
pub mod store;

pub use crate::format::openpgp::book::OpenPgpMerge;
pub use book::{
    Book, ChainRefusal, Contact, ContactFingerprint, ContactKey, ContactRef, Known, Merge,
    age_fingerprint, check_name, closest_names, merge_chain,
};

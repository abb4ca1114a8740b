//! Recovery (docs/recovery.md): the master secret as a 24-word BIP39 phrase or k-of-n Shamir
//! shares written as words of the same list, so a person can copy it on paper and rebuild the
//! identity from it.
//!
//! - [`words`]: the BIP39 English word list as an alphabet: completion of typed prefixes,
//!   numbering on paper skipped, 11 bits per word.
//! - [`phrase`]: the 24-word phrase (standard BIP39, 256 bits of entropy).
//! - [`shares`]: k-of-n Shamir shares over GF(256), 30 words each.
//! - [`rebuild`]: the identity rebuilt from the master secret, with an export's certificates
//!   or a new generation 1.
//!
//! The derivation of keys from the master secret is the identity's own
//! ([`crate::identity::master`]); this module carries the secret to paper and back. Errors say
//! which word (by position) is wrong, never the word: a mistyped word is still most of a
//! secret word.

pub mod kit;
pub mod phrase;
pub mod rebuild;
pub mod shares;
pub mod words;

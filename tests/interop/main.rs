//! Interoperability with another implementation run in the same test: typage (npm
//! `age-encryption`) for age; pysequoia (PyPI) and rpgp (crate `pgp`, built from
//! tests/rpgp-peer, its own workspace; a packet layer independent of Sequoia's) for OpenPGP.
//! The reference `age` binary is exercised in `cli::age` and `cli::agent`.

#[path = "../common/mod.rs"]
mod common;

mod rpgp;
mod sequoia;
mod typage;

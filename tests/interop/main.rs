//! Interoperability with another implementation run in the same test: typage (npm
//! `age-encryption`) for age, pysequoia (PyPI) for OpenPGP. The reference `age` binary is
//! exercised in `cli::age` and `cli::agent`.

#[path = "../common/mod.rs"]
mod common;

mod sequoia;
mod typage;

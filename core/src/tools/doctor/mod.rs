//! The checks behind `nexusq doctor`: is this installation sound, and what to do about anything
//! that is off.
//!
//! Reads only. Nothing here asks for a password, takes the vault's lock or writes: the vault is
//! read without a password for its KDF parameters and its public identity, and the unlock time
//! is measured with a throwaway password on a throwaway salt. Every check gets a status (ok /
//! warn / error), a one-line detail and, where something is off, a hint.
//!
//! The judgements are plain functions over facts (modes, parameters, environment values), one
//! file per area, so they are unit-tested on any host; [`run`] gathers the facts and judges
//! them in the report's order. What only the caller knows (the vault path it chose, its
//! backend, its terminal, what hardening its process could not do, and with `--git` what git
//! says of the repository) comes in as [`Given`].

mod agent;
mod contacts;
mod git;
mod kdf;
mod platform;
mod storage;
mod vault;

pub use git::{GitFacts, PROGRAM as GIT_SIGN_PROGRAM};
pub use platform::TerminalFacts;
pub use vault::{PathSource, path_source};

use crate::error::Result;
use crate::identity::PublicIdentity;
use crate::suite::Backend;
use std::path::PathBuf;

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Nothing to do.
    Ok,
    /// Works, but something deserves attention.
    Warn,
    /// Something is broken or unsafe.
    Error,
}

impl Status {
    /// Its name in reports: `ok`, `warn` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Error => "error",
        }
    }
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// What was checked, e.g. `vault_permissions`.
    pub name: &'static str,
    /// How it came out.
    pub status: Status,
    /// What was found, in one line.
    pub detail: String,
    /// What to do; empty when there is nothing to do.
    pub hint: String,
    /// The caller's step the hint suggests, from the library error it came from.
    pub step: Option<crate::error::Step>,
}

impl Check {
    fn new(name: &'static str, status: Status, detail: impl Into<String>) -> Check {
        Check {
            name,
            status,
            detail: detail.into(),
            hint: String::new(),
            step: None,
        }
    }

    fn ok(name: &'static str, detail: impl Into<String>) -> Check {
        Check::new(name, Status::Ok, detail)
    }

    fn warn(name: &'static str, detail: impl Into<String>, hint: impl Into<String>) -> Check {
        Check::new(name, Status::Warn, detail).hint(hint)
    }

    fn error(name: &'static str, detail: impl Into<String>, hint: impl Into<String>) -> Check {
        Check::new(name, Status::Error, detail).hint(hint)
    }

    /// An error check from a library error: its message, hint and the step it suggests.
    fn error_of(name: &'static str, e: &crate::Error) -> Check {
        let mut c = Check::error(name, e.message(), e.hint());
        c.step = e.step().cloned();
        c
    }

    /// A warning check from a library error.
    fn warn_of(name: &'static str, e: &crate::Error) -> Check {
        let mut c = Check::warn(name, e.message(), e.hint());
        c.step = e.step().cloned();
        c
    }

    fn hint(mut self, hint: impl Into<String>) -> Check {
        self.hint = hint.into();
        self
    }
}

/// What only the caller knows, handed to [`run`] as plain data.
pub struct Given {
    /// The vault path the caller resolved; `None` when it cannot tell where the vault lives.
    pub vault_path: Option<PathBuf>,
    /// How that path was chosen.
    pub vault_path_source: PathSource,
    /// The contacts book the caller would use with that vault, or why it cannot tell.
    pub contacts_book: Result<PathBuf>,
    /// The backend the caller would run, or why it cannot.
    pub backend: Result<&'static dyn Backend>,
    /// The caller's terminal and password input.
    pub terminal: TerminalFacts,
    /// What hardening the process could not do (empty when all of it was done).
    pub hardening_failures: Vec<String>,
    /// With `doctor --git`: what git says about the current folder's repository, for the
    /// checks of its setup for nexusq-git-sign, after the others.
    pub git: Option<GitFacts>,
}

/// Every check, in order, and what the caller needs to show beside them.
pub struct Report {
    /// The checks in the order they are shown.
    pub checks: Vec<Check>,
    /// The vault's public identity, when the vault could be read (without its password).
    pub identity: Option<PublicIdentity>,
    /// The time the identity's state was judged at (Unix seconds).
    pub now: u64,
}

impl Report {
    /// How many checks came out as `status`.
    pub fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }

    /// The names of the checks that are errors, in order.
    pub fn failed(&self) -> Vec<&'static str> {
        self.checks
            .iter()
            .filter(|c| c.status == Status::Error)
            .map(|c| c.name)
            .collect()
    }
}

/// Gather the facts and run every check, in the report's order.
pub fn run(given: &Given) -> Report {
    use std::env::consts::{ARCH, OS};
    let data_dir = crate::vault::storage::platform_data_dir();
    let ram = crate::vault::kdf::device_ram_bytes();
    let now = crate::time::now();
    let path = given.vault_path.as_deref();
    let mut checks = vec![
        platform::platform_check(OS, ARCH, &platform::TermuxEnv::from_process()),
        vault::vault_path_check(path, given.vault_path_source, data_dir.as_deref()),
    ];
    // The vault, read without a password: its KDF parameters (the default's when there is no
    // readable vault) and its identity.
    let mut file = None;
    match path {
        Some(path) => {
            let facts = storage::VaultFacts::read(path);
            checks.extend([
                vault::vault_file_check(path, &facts),
                storage::vault_link_check(path, &facts),
                storage::permissions_check(path, &facts, rustix::process::geteuid().as_raw()),
                storage::shared_storage_check(path, data_dir.as_deref()),
                storage::revocation_beside_check(path, &facts),
            ]);
            match facts.is_file.then(|| crate::vault::open(path)) {
                Some(Ok(opened)) => {
                    checks.push(kdf::kdf_check(Some(&opened.header.kdf), ram));
                    checks.push(vault::vault_state_check(&opened.public, now));
                    checks.push(vault::recovery_check(&opened));
                    file = Some(opened);
                }
                Some(Err(e)) => {
                    checks.push(kdf::unreadable_header_check(&e));
                    checks.push(vault::no_identity_check(true));
                    checks.push(vault::no_recovery_check(true));
                }
                None => {
                    checks.push(kdf::kdf_check(None, ram));
                    checks.push(vault::no_identity_check(facts.exists));
                    checks.push(vault::no_recovery_check(facts.exists));
                }
            }
        }
        None => {
            checks.push(kdf::kdf_check(None, ram));
            checks.push(vault::no_identity_check(false));
            checks.push(vault::no_recovery_check(false));
        }
    }
    let native = crate::suite::native::implementations();
    checks.extend([
        kdf::unlock_time_check(file.as_ref().map(|f| f.header.kdf)),
        kdf::ram_check(ram),
        platform::cpu_check(
            ARCH,
            &crate::tools::bench::environment::cpu_model(),
            &crate::tools::bench::environment::cpu_features(),
        ),
        platform::native_check(
            native.selected,
            &native.available,
            given
                .backend
                .as_ref()
                .map(|b| b.name())
                .map_err(|e| (e.message().to_string(), e.hint().to_string())),
        ),
        platform::terminal_check(&given.terminal),
        platform::hardening_check(&given.hardening_failures),
        agent::agent_check(path),
        contacts::contacts_book_check(
            path,
            given.contacts_book.as_deref(),
            file.as_ref().map(|f| &f.public),
            given.backend.as_ref().copied(),
        ),
    ]);
    if let Some(facts) = &given.git {
        let own = file.as_ref().map(|f| f.public.root_id());
        checks.extend(git::git_checks(facts, own.as_ref()));
    }
    Report {
        checks,
        identity: file.map(|f| f.public),
        now,
    }
}

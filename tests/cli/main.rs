//! The `nexusq` command line, one module per command or subject, run as a user would: the
//! real binaries (`nexusq`, `age-plugin-nexusq`, `nexusq-git-sign`) in a test's own folder,
//! at a pipe or at a real terminal (`pty`), with their exit codes, messages and JSON.
//!
//! One binary for all of them (tests/README.md says how the tests are laid out).

#[path = "../common/mod.rs"]
mod common;
#[path = "../evidence_schema/mod.rs"]
mod evidence_schema;
#[path = "../common/plugin_frames.rs"]
mod plugin_frames;
#[path = "../common/pty.rs"]
mod pty;

mod age;
mod agent;
mod bench;
mod compact_signatures;
mod contacts;
mod doctor;
mod encrypt;
mod evidence;
mod git;
mod help;
mod json_contract;
mod kem;
mod manpage_completions;
mod openpgp;
mod outputs;
mod recovery;
mod recovery_kit;
mod report;
mod rotation;
mod sign;
mod terminal_text;
mod trust;
mod vault;

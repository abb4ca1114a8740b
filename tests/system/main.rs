//! nexusq as a process among others: signals, concurrent writers, faults injected into its
//! system calls, the Termux scripts and Android's storage rules.

#[path = "../common/mod.rs"]
mod common;

mod android;
mod concurrency;
mod faults;
mod signals;
mod termux;

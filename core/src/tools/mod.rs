//! The tools beside the identity API: what `nexusq bench`, `nexusq doctor` and `nexusq report`
//! compute. None of the front door depends on them.
//!
//! - [`bench`](mod@bench): benchmarks and the evidence they leave (docs/evidence.md).
//! - [`doctor`]: checks of the platform, the vault, the book, the agent and git.
//! - [`report`]: the HTML page of that evidence.

pub mod bench;
pub mod doctor;
pub mod report;

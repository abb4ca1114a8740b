//! Measuring: samples, statistics, and the operations benchmarks time. Shared by
//! `nexusq bench` and the `cargo bench` targets, so there is one copy of the measuring code.
//! Nothing here prints: it returns data and text, and the caller decides where it goes.

pub mod baseline;
pub mod compare;
pub mod environment;
pub mod evidence;
pub mod ops;
pub mod report;
pub mod scratch;
pub mod stats;

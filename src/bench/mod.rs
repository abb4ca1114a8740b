//! Measuring: samples, statistics, and the operations benchmarks time. Shared by
//! `nexusq bench` and `cargo bench`, so there is one copy of the measuring code.

pub mod stats;

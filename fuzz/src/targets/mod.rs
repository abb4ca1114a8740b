//! The bodies of the fuzz targets, one module each: `fuzz_targets/<name>.rs` hands libFuzzer's
//! input to `<name>::run`, and the root workspace's `cargo test` replays the committed corpora
//! (`corpus/<name>/`) through the same functions (tests/formats/fuzz_corpora.rs).

pub mod agent_protocol;
pub mod file_decrypt;
pub mod identity;
pub mod kem;
pub mod native_mldsa;
pub mod native_mlkem;
pub mod native_slhdsa;
pub mod recovery_words;
pub mod signature;
pub mod vault;

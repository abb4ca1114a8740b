//! Recovery words typed or read from a file: the phrase and share parsers, the word completion
//! and the combination of shares (docs/recovery.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::recovery_words::run(data));

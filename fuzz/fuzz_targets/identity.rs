//! The public identity parser: armor, binary decoding, structure and root signatures.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::identity::run(data));

//! The KEM envelope ("NXQK", `decapsulate`) and the hybrid KEM ciphertext and public-key
//! parsers, on both backends with fixed keys.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::kem::run(data));

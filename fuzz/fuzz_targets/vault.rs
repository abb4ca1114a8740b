//! The vault file parser (`vault::format::parse`), the checksum, the unlock path up to the
//! AEAD and the secret-section decoder.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::vault::run(data));

//! The detached-signature parser (armored and binary) and verification against a fixed signer.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::signature::run(data));

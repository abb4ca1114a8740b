//! nexusq-native ML-DSA-65 verification on arbitrary keys, signatures, contexts and messages,
//! with the verdict checked against the `ml-dsa` crate (through nexusq's RustCrypto backend).
//!
//! Input: mode, context length, context, then for mode 1 a verifying key (1952 bytes), then the
//! signature (3309 bytes, or what is left), then the message. Mode 0 uses a fixed key.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::native_mldsa::run(data));

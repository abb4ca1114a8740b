//! nexusq-native ML-KEM on arbitrary inputs, checked against the `ml-kem` crate (through
//! nexusq's RustCrypto backend).
//!
//! Input: a mode byte, then the bytes it reads.
//! - 0/1 (768/1024): a ciphertext, decapsulated with a fixed key by both implementations.
//! - 2/3 (768/1024): an encapsulation key: both must accept or refuse it alike, then agree on
//!   the encapsulation with a fixed m.
//! - 4/5 (768/1024): a decapsulation key, parsed as is; then the same bytes stand in for the
//!   secret vector of a key whose hash field is right, to decapsulate with out-of-range
//!   coefficients.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::native_mlkem::run(data));

//! nexusq-native SLH-DSA-SHAKE-128f: the key and signature parsers and verification on
//! arbitrary keys, signatures, contexts and messages, with the verdict checked against the
//! `slh-dsa` crate (through nexusq's RustCrypto backend).
//!
//! Input: mode, context length, context, then
//! - mode bit 1 clear: for mode bit 0 a verifying key (32 bytes, else the fixed key), the
//!   signature (17 088 bytes, or what is left), then the message;
//! - mode bit 1 set: a u16 offset and up to 64 bytes XORed into the fixed key's valid
//!   signature of `MESSAGE` (empty context) at that offset, so that verification runs deep
//!   into the hypertree instead of failing at the first WOTS+ key; the context as given.
//!
//! Every input is also parsed as a signing key (its first 64 bytes), whose verifying key must
//! be its last 32 bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::native_slhdsa::run(data));

//! Decryption of arbitrary bytes as an encrypted file (binary and armored): header parsing,
//! stanza opening with fixed keys, header MAC and the chunk stream.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::file_decrypt::run(data));

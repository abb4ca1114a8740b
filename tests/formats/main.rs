//! The file formats against their known answers and hostile inputs: the age v1 testkit
//! (`age_vectors`), hostile file headers, every kind of tampering with a vault, and the
//! committed fuzz corpora replayed through each fuzz target (`fuzz_corpora`).

mod age_vectors;
mod fuzz_corpora;
mod hostile_headers;
mod vault_tamper;

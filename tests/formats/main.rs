//! The file formats against their known answers and hostile inputs: the age v1 testkit
//! (`age_vectors`), hostile file headers, and every kind of tampering with a vault.

mod age_vectors;
mod hostile_headers;
mod vault_tamper;

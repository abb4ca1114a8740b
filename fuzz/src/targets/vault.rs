//! The vault file parser (`vault::format::parse`), the checksum, the unlock path up to the
//! AEAD and the secret-section decoder.

use crate::{FastKdf, VAULT_PASSWORD, password};
use nexusq_core::identity::SecretSection;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::vault::format;

/// The seed vault, sealed under FastKdf(VAULT_PASSWORD).
const FIXTURE: &[u8] = include_bytes!("../../fixtures/vault.nxq");

pub fn run(data: &[u8]) {
    let _ = format::parse(data, None);
    // Nearly every mutation breaks the trailing SHA-256, which stops parsing at once: recompute
    // it so the fields behind it are fuzzed too.
    let mut fixed = data.to_vec();
    format::fix_checksum(&mut fixed);
    if let Ok(file) = format::parse(&fixed, None) {
        // Parsing is strict, so re-encoding gives back the very bytes.
        let header = format::encode_header(
            &file.facts(),
            &file.header,
            &file.public,
            file.secret_ciphertext.len(),
        );
        assert_eq!(
            &header[..],
            file.header_bytes(),
            "header does not round-trip"
        );
        let again = format::assemble(&header, file.root_ciphertext(), &file.secret_ciphertext);
        assert_eq!(again, fixed, "vault does not round-trip");
        // The key is fixed, so only an unchanged (authentic) file may open.
        if let Ok(unlocked) = file.unlock(&password(VAULT_PASSWORD), &FastKdf, &RustCrypto) {
            assert_eq!(fixed, FIXTURE, "a changed vault unlocked");
            assert!(!unlocked.secrets.generations.is_empty());
        }
    }
    // The decrypted secret section's own decoder, on arbitrary bytes.
    if let Ok(secrets) = SecretSection::decode(data) {
        assert_eq!(
            &secrets.encode()[..],
            data,
            "secret section does not round-trip"
        );
    }
}

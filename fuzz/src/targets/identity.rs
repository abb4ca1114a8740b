//! The public identity parser: armor, binary decoding, structure and root signatures.

use nexusq_core::format::armor;
use nexusq_core::identity::PublicIdentity;
use nexusq_core::identity::peer;
use nexusq_core::identity::public::ARMOR_KIND;
use nexusq_core::suite::native::Native;
use nexusq_core::suite::rustcrypto::RustCrypto;

fn check_binary(raw: &[u8]) {
    if let Ok(id) = PublicIdentity::decode(raw) {
        assert_eq!(id.encode(), raw, "identity does not round-trip");
        assert!(
            id.check_structure().is_ok(),
            "decode accepted a bad structure"
        );
        // The root signatures on both backends: the same verdict.
        let verified = id.verify_signatures(&Native).is_ok();
        assert_eq!(
            verified,
            id.verify_signatures(&RustCrypto).is_ok(),
            "backends disagree on the root signatures"
        );
        if verified {
            // What `identity show` and `encrypt --to` do next must not panic either.
            let _ = id.check_full_history();
            let _ = peer::is_revoked(&id);
            for level in [
                nexusq_core::suite::hybrid_kem::KemLevel::MlKem768,
                nexusq_core::suite::hybrid_kem::KemLevel::MlKem1024,
            ] {
                let _ = peer::encryption_key(&id, level, 1_790_000_000, false);
            }
        }
    }
}

pub fn run(data: &[u8]) {
    check_binary(data);
    if let Ok(raw) = armor::decode(ARMOR_KIND, data) {
        {
            // Armor is strict too: encoding the payload again gives the input (CRLF is the
            // one allowed variation).
            let mut again = armor::encode(ARMOR_KIND, &raw);
            if data.ends_with(b"\r\n") {
                again = again.replace('\n', "\r\n");
            }
            assert_eq!(again.as_bytes(), data, "armor does not round-trip");
            check_binary(&raw);
        }
    }
    let _ = peer::parse_export(data, "fuzz input", &Native);
}

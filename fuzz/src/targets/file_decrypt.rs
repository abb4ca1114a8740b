//! Decryption of arbitrary bytes as an encrypted file (binary and armored): header parsing,
//! stanza opening with fixed keys, header MAC and the chunk stream.

use crate::{MLKEM1024_SEED, XWING_SEED, plaintext_byte, seed};
use nexusq_core::format::armor::{ArmorReader, ENCRYPTED_FILE_KIND, Profile};
use nexusq_core::format::nexusq::{self, Header};
use nexusq_core::suite::hybrid_kem::{DecapsulationKey, KemLevel};
use nexusq_core::suite::rustcrypto::RustCrypto;
use std::io::Read;
use std::sync::OnceLock;

/// The fixed keys, expanded once (as an unlocked vault keeps them).
fn keys() -> &'static [DecapsulationKey; 2] {
    static KEYS: OnceLock<[DecapsulationKey; 2]> = OnceLock::new();
    KEYS.get_or_init(|| {
        [
            DecapsulationKey::from_seed(&RustCrypto, KemLevel::MlKem768, &seed(XWING_SEED)),
            DecapsulationKey::from_seed(&RustCrypto, KemLevel::MlKem1024, &seed(MLKEM1024_SEED)),
        ]
    })
}

/// Every authentic seed file holds a prefix of `plaintext_byte`: a forged chunk would show up as
/// a byte off that sequence (or a plaintext longer than any seed's).
fn assert_authentic(out: &[u8]) {
    assert!(out.len() <= nexusq::CHUNK_LEN + 1, "longer than any seed");
    for (i, &b) in out.iter().enumerate() {
        assert_eq!(
            b,
            plaintext_byte(i as u64),
            "unauthenticated plaintext at {i}"
        );
    }
}

fn decrypt(input: &mut dyn Read) {
    let [k768, k1024] = keys();
    let mut out = Vec::new();
    let result = nexusq::decrypt(&[k768, k1024], input, &mut out);
    // On error, `out` may hold the authentic chunks before the bad one, never anything else.
    assert_authentic(&out);
    if let Ok(d) = result {
        assert_eq!(d.bytes, out.len() as u64);
    }
}

pub fn run(data: &[u8]) {
    decrypt(&mut &data[..]);
    // The header parser alone: it consumes exactly the length it reports.
    let mut rest = data;
    if let Ok(header) = Header::read(&mut rest) {
        assert_eq!(header.len(), data.len() - rest.len());
        assert_eq!(header.suites().len(), usize::from(data[21]));
    }
    if data.starts_with(b"-----") {
        decrypt(&mut ArmorReader::new(
            data,
            Profile::nexusq(ENCRYPTED_FILE_KIND),
        ));
    }
}

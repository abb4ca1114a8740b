//! The KEM envelope ("NXQK", `decapsulate`) and the hybrid KEM ciphertext and public-key
//! parsers, on both backends with fixed keys.

use crate::{MLKEM1024_SEED, XWING_SEED, seed};
use nexusq_core::identity::envelope::Envelope;
use nexusq_core::suite::Backend;
use nexusq_core::suite::hybrid_kem::{self, KemLevel};
use nexusq_core::suite::native::Native;
use nexusq_core::suite::rustcrypto::RustCrypto;

/// Envelopes made for the fixed keys (examples/make_seeds.rs).
const ENVELOPES: [&[u8]; 2] = [
    include_bytes!("../../fixtures/envelope-768.bin"),
    include_bytes!("../../fixtures/envelope-1024.bin"),
];

fn key(level: KemLevel) -> [u8; 32] {
    match level {
        KemLevel::MlKem768 => XWING_SEED,
        KemLevel::MlKem1024 => MLKEM1024_SEED,
    }
}

/// Decapsulate with both backends: they must agree, error or secret.
fn decapsulate(level: KemLevel, ct: &[u8]) -> Option<nexusq_core::secret::SecretBytes<32>> {
    let s = seed(key(level));
    let a = hybrid_kem::decapsulate(&RustCrypto as &dyn Backend, level, &s, ct);
    let b = hybrid_kem::decapsulate(&Native as &dyn Backend, level, &s, ct);
    match (a, b) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.expose(), b.expose(), "backends disagree on the secret");
            Some(a)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "backends refuse differently");
            None
        }
        (a, b) => panic!("backends disagree: {:?} vs {:?}", a.is_ok(), b.is_ok()),
    }
}

pub fn run(data: &[u8]) {
    if let Ok(env) = Envelope::decode(data) {
        // The layout of docs/kem.md, rebuilt independently: decoding is exact.
        let mut again = b"NXQK\x01".to_vec();
        again.extend_from_slice(&env.level.suite().to_u16().to_be_bytes());
        again.extend_from_slice(&env.root_id.0);
        again.extend_from_slice(&env.generation.to_be_bytes());
        again.extend_from_slice(&env.ciphertext);
        again.extend_from_slice(&env.tag);
        assert_eq!(again, data, "envelope does not round-trip");
        if let Some(ss) = decapsulate(env.level, &env.ciphertext)
            && env.confirms(&ss)
        {
            assert!(ENVELOPES.contains(&data), "a changed envelope confirmed");
        }
    }
    // Bare hybrid ciphertexts and public keys of either suite.
    for level in [KemLevel::MlKem768, KemLevel::MlKem1024] {
        let _ = decapsulate(level, data);
        if hybrid_kem::check_public_key(level, data).is_ok() {
            assert_eq!(data.len(), level.hybrid_public_key_len());
        }
    }
}

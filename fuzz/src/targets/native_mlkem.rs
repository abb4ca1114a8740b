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

use nexusq_core::suite::Backend;
use nexusq_core::suite::backend::KemLevel;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_native::{mlkem768, mlkem1024};

const D: [u8; 32] = [1; 32];
const Z: [u8; 32] = [2; 32];
const M: [u8; 32] = [3; 32];

macro_rules! check_level {
    ($module:ident, $level:expr, $mode:expr, $input:expr) => {{
        use $module as p;
        let input: &[u8] = $input;
        match $mode {
            0 => {
                let ct = p::Ciphertext::from_bytes(input);
                assert_eq!(ct.is_ok(), input.len() == p::CIPHERTEXT_LEN);
                let reference = RustCrypto.mlkem_decaps($level, &D, &Z, input);
                assert_eq!(
                    ct.is_ok(),
                    reference.is_ok(),
                    "ciphertext length check differs"
                );
                if let (Ok(ct), Ok(reference)) = (ct, reference) {
                    let (_, dk) = p::keygen_internal(&D, &Z);
                    let ss = p::decapsulate(&dk, &ct);
                    assert_eq!(ss.as_bytes(), reference.expose(), "decapsulation differs");
                }
            }
            1 => {
                let ek = p::EncapsulationKey::from_bytes(input);
                let reference = RustCrypto.mlkem_encaps($level, input, &M);
                assert_eq!(ek.is_ok(), reference.is_ok(), "key check differs");
                if let (Ok(ek), Ok((ref_ct, ref_ss))) = (ek, reference) {
                    assert_eq!(&ek.as_bytes()[..], input);
                    let (ct, ss) = p::encapsulate_internal(&ek, &M);
                    assert_eq!(&ct.as_bytes()[..], &ref_ct[..], "ciphertext differs");
                    assert_eq!(ss.as_bytes(), ref_ss.expose(), "secret differs");
                }
            }
            _ => {
                if let Ok(dk) = p::DecapsulationKey::from_bytes(input) {
                    assert_eq!(&dk.as_bytes()[..], input);
                }
                // A key with a valid ek || H(ek) || z and fuzzed dk_PKE: FIPS 203's check does
                // not look at dk_PKE, so every such key must load and decapsulate without panic,
                // deterministically.
                let (ek, dk) = p::keygen_internal(&D, &Z);
                let mut bytes = dk.as_bytes().to_vec();
                let pke_len = p::DECAPSULATION_KEY_LEN - p::ENCAPSULATION_KEY_LEN - 64;
                for (i, b) in bytes[..pke_len].iter_mut().enumerate() {
                    *b = input.get(i).copied().unwrap_or(0);
                }
                let dk = p::DecapsulationKey::from_bytes(&bytes).expect("hash field is right");
                let (ct, _) = p::encapsulate_internal(&ek, &M);
                let a = p::decapsulate(&dk, &ct);
                let b = p::decapsulate(&dk, &ct);
                assert_eq!(a, b, "decapsulation is not deterministic");
            }
        }
    }};
}

pub fn run(data: &[u8]) {
    let Some((&mode, input)) = data.split_first() else {
        return;
    };
    let kind = (mode % 6) / 2;
    if mode % 2 == 0 {
        check_level!(mlkem768, KemLevel::MlKem768, kind, input);
    } else {
        check_level!(mlkem1024, KemLevel::MlKem1024, kind, input);
    }
}

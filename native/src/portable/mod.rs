//! The portable implementation: plain Rust for any target. It is also the reference the SIMD
//! implementations are tested against, and they reuse its constants and scalar loops.
//!
//! One file per concept, the same names as in the SIMD implementations (crate documentation),
//! and `modmath`, the compile-time arithmetic that builds every implementation's tables.

pub(crate) mod arith;
pub(crate) mod dsa_arith;
pub(crate) mod dsa_pack;
pub(crate) mod dsa_sample;
pub(crate) mod encode;
pub(crate) mod keccak;
pub(crate) mod modmath;
pub(crate) mod sample;

use crate::delegate::{calls, dsa_arith, dsa_pack, dsa_sample, kem_arith, kem_encode, kem_sample};
use crate::dispatch::Implementation;
use crate::mldsa::ops::DsaSimd;
use crate::simd::{KeccakX4, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Simd for Portable {
    const IMPLEMENTATION: Implementation = Implementation::Portable;

    calls! {
        fn keccak_f1600(state: &mut [u64; 25]) => keccak::keccak_f1600;
        fn keccak_f1600_x4(state: &mut KeccakX4) => keccak::keccak_f1600_x4;
    }
    kem_arith!(calls arith);
    kem_encode!(calls encode);
    kem_sample!(calls sample);
}

impl DsaSimd for Portable {
    dsa_arith!(calls dsa_arith);
    dsa_sample!(calls dsa_sample);
    dsa_pack!(calls dsa_pack);
}

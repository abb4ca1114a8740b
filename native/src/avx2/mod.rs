//! AVX2 implementation (x86-64).
//!
//! Every trait method is an `#[inline(always)]` call of a function compiled with
//! `#[target_feature(enable = "avx2")]` (`bmi1,bmi2` for the scalar Keccak); the helpers those
//! call are AVX2 functions too, so the whole hot loop of each operation is compiled with AVX2
//! and the intrinsics are inlined.
//!
//! The calls' `unsafe` is sound because `Avx2` is only ever used through `dispatch::run!`,
//! which selects it only when the CPU has AVX2, BMI1, BMI2 and POPCNT (`dispatch::available`).

mod arith;
mod dsa_arith;
mod dsa_pack;
mod dsa_sample;
mod encode;
mod keccak;
mod sample;
mod vector;

use crate::delegate::{dsa_arith, dsa_pack, kem_arith, kem_encode, kem_sample, target_calls};
use crate::dispatch::Implementation;
use crate::mldsa::ops::{DsaPoly, DsaSimd};
use crate::simd::{KeccakX4, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2;

impl Simd for Avx2 {
    const IMPLEMENTATION: Implementation = Implementation::Avx2;

    target_calls! {
        fn keccak_f1600(state: &mut [u64; 25]) => keccak::keccak_f1600_bmi;
        fn keccak_f1600_x4(state: &mut KeccakX4) => keccak::keccak_f1600_x4;
        fn keccak_f1600_x4_out2(state: &mut KeccakX4) => keccak::keccak_f1600_x4_out2;
        fn keccak_x4_extract(state: &KeccakX4, lanes: usize, out: [&mut [u8]; 4])
            => keccak::extract_x4;
    }
    kem_arith!(target_calls arith);
    kem_encode!(target_calls encode);
    kem_sample!(target_calls sample);
}

impl DsaSimd for Avx2 {
    dsa_arith!(target_calls dsa_arith);
    dsa_pack!(target_calls dsa_pack);

    target_calls! {
        fn dsa_rej_uniform(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize
            => dsa_sample::rej_uniform;
        fn dsa_rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize
            => dsa_sample::rej_eta;
    }
}

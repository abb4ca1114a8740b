//! AVX-512 implementation (x86-64 with AVX-512F and AVX-512VL): Keccak rewritten around
//! AVX-512's three-input logic (`vpternlogq`) and native 64-bit rotates (`vprolq`): one state
//! in 512-bit planes, four states in 256-bit registers, and eight in 512-bit ones (which the
//! ML-DSA samplers use) (`keccak`); ML-DSA's NTT, inverse NTT, pointwise products and
//! element-wise reductions on 512-bit vectors (`dsa_arith`). Everything else, ML-KEM's
//! polynomial arithmetic, sampling and encoding and the rest of ML-DSA, is the AVX2
//! implementation's: those methods forward to [`Avx2`]'s.
//!
//! `Avx512` is only ever used through `dispatch::run!`, which selects it only when the CPU has
//! AVX2 (with BMI1 and BMI2), AVX-512F and AVX-512VL (`dispatch::available`); that makes the
//! `unsafe` calls into the target-feature functions sound, and the forwarding to `Avx2` too.

mod dsa_arith;
mod keccak;

use crate::avx2::Avx2;
use crate::delegate::{
    calls, dsa_pack, dsa_sample, kem_arith, kem_encode, kem_sample, target_calls,
};
use crate::dispatch::Implementation;
use crate::mldsa::ops::{DsaPoly, DsaSimd};
use crate::simd::{KeccakX4, KeccakX8, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512;

impl Simd for Avx512 {
    const IMPLEMENTATION: Implementation = Implementation::Avx512;

    const KECCAK_X8: bool = true;

    target_calls! {
        fn keccak_f1600(state: &mut [u64; 25]) => keccak::keccak_f1600;
        fn keccak_f1600_x4(state: &mut KeccakX4) => keccak::x4::permute;
        fn keccak_f1600_x8(state: &mut KeccakX8) => keccak::x8::permute;
        fn keccak_f1600_x4_out2(state: &mut KeccakX4) => keccak::x4::permute_out2;
        fn keccak_f1600_x8_out2(state: &mut KeccakX8) => keccak::x8::permute_out2;
    }
    calls! {
        fn keccak_x4_extract(state: &KeccakX4, lanes: usize, out: [&mut [u8]; 4])
            => Avx2::keccak_x4_extract;
    }
    kem_arith!(forward Avx2);
    kem_encode!(forward Avx2);
    kem_sample!(forward Avx2);
}

/// Keccak, and so the eight-way ExpandA, ExpandS and ExpandMask, is this implementation's own
/// through its `Simd` methods.
impl DsaSimd for Avx512 {
    // dsa_arith.rs has the operations that gain from 512-bit vectors; the rest are Avx2's.
    target_calls! {
        fn dsa_ntt(p: &mut DsaPoly) => dsa_arith::ntt;
        fn dsa_invntt_tomont(p: &mut DsaPoly) => dsa_arith::invntt_tomont;
        fn dsa_pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly)
            => dsa_arith::pointwise_montgomery;
        fn dsa_pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly])
            => dsa_arith::pointwise_acc_montgomery;
        fn dsa_reduce(p: &mut DsaPoly) => dsa_arith::reduce;
        fn dsa_caddq(p: &mut DsaPoly) => dsa_arith::caddq;
        fn dsa_decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) => dsa_arith::decompose;
    }
    calls! {
        fn dsa_ntt_unpack(p: &mut DsaPoly) => Avx2::dsa_ntt_unpack;
        fn dsa_add(r: &mut DsaPoly, a: &DsaPoly) => Avx2::dsa_add;
        fn dsa_sub(r: &mut DsaPoly, a: &DsaPoly) => Avx2::dsa_sub;
        fn dsa_shiftl(p: &mut DsaPoly) => Avx2::dsa_shiftl;
        fn dsa_power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly)
            => Avx2::dsa_power2round;
        fn dsa_make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize
            => Avx2::dsa_make_hint;
        fn dsa_use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) => Avx2::dsa_use_hint;
        fn dsa_chk(p: &DsaPoly, bound: i32) -> bool => Avx2::dsa_chk;
    }
    dsa_sample!(forward Avx2);
    dsa_pack!(forward Avx2);
}

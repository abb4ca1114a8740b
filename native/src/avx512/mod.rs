//! AVX-512 implementation (x86-64 with AVX-512F and AVX-512VL): the AVX2 implementation's
//! ML-KEM polynomial arithmetic, sampling and encoding unchanged (those methods delegate to
//! [`Avx2`]); ML-DSA's NTT, inverse NTT, pointwise products and element-wise reductions on
//! 512-bit vectors (`dsa`, `dsa_ntt`), the rest of ML-DSA again AVX2's; and Keccak rewritten
//! around AVX-512's three-input logic (`vpternlogq`) and native 64-bit rotates (`vprolq`):
//! one state in 512-bit planes, four states in 256-bit registers, and eight in 512-bit ones
//! (which the ML-DSA samplers use).
//!
//! `Avx512` is only ever used through `dispatch::run!`, which selects it only when the CPU has
//! AVX2, AVX-512F and AVX-512VL (`dispatch::available`); that makes the `unsafe` calls into the
//! target-feature functions sound, and the delegation to `Avx2` too (AVX2 is checked as well).

mod dsa;
mod dsa_ntt;
mod keccak1;
mod keccak_wide;

use crate::avx2::Avx2;
use crate::dispatch::Implementation;
use crate::simd::{KeccakX4, KeccakX8, Poly, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512;

impl Simd for Avx512 {
    const IMPLEMENTATION: Implementation = Implementation::Avx512;

    #[inline(always)]
    fn keccak_f1600(state: &mut [u64; 25]) {
        // SAFETY: `Avx512` only runs on CPUs with AVX2, AVX-512F and AVX-512VL (module
        // documentation).
        unsafe { keccak1::keccak_f1600(state) }
    }

    #[inline(always)]
    fn keccak_f1600_x4(state: &mut KeccakX4) {
        // SAFETY: `Avx512` only runs on CPUs with AVX2, AVX-512F and AVX-512VL (module
        // documentation).
        unsafe { keccak_wide::keccak_f1600_x4(state) }
    }

    const KECCAK_X8: bool = true;

    #[inline(always)]
    fn keccak_f1600_x8(state: &mut KeccakX8) {
        // SAFETY: `Avx512` only runs on CPUs with AVX2, AVX-512F and AVX-512VL (module
        // documentation).
        unsafe { keccak_wide::keccak_f1600_x8(state) }
    }

    #[inline(always)]
    fn ntt(p: &mut Poly) {
        Avx2::ntt(p)
    }

    #[inline(always)]
    fn invntt_tomont(p: &mut Poly) {
        Avx2::invntt_tomont(p)
    }

    #[inline(always)]
    fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
        Avx2::basemul_acc_montgomery(r, a, b)
    }

    #[inline(always)]
    fn tomont(p: &mut Poly) {
        Avx2::tomont(p)
    }

    #[inline(always)]
    fn reduce(p: &mut Poly) {
        Avx2::reduce(p)
    }

    #[inline(always)]
    fn add(r: &mut Poly, a: &Poly) {
        Avx2::add(r, a)
    }

    #[inline(always)]
    fn sub(r: &mut Poly, a: &Poly) {
        Avx2::sub(r, a)
    }

    #[inline(always)]
    fn ntt_unpack(p: &mut Poly) {
        Avx2::ntt_unpack(p)
    }

    #[inline(always)]
    fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
        Avx2::ntt_to_bytes(p, out)
    }

    #[inline(always)]
    fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
        Avx2::ntt_from_bytes(p, bytes)
    }

    #[inline(always)]
    fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize {
        Avx2::rej_uniform(p, filled, bytes)
    }

    #[inline(always)]
    fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
        Avx2::cbd2(p, bytes)
    }

    #[inline(always)]
    fn from_msg(p: &mut Poly, m: &[u8; 32]) {
        Avx2::from_msg(p, m)
    }

    #[inline(always)]
    fn to_msg(p: &Poly, m: &mut [u8; 32]) {
        Avx2::to_msg(p, m)
    }

    #[inline(always)]
    fn compress(p: &Poly, d: u32, out: &mut [u8]) {
        Avx2::compress(p, d, out)
    }

    #[inline(always)]
    fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
        Avx2::decompress(p, d, bytes)
    }
}

//! AVX2 implementation (x86-64).
//!
//! Every trait method is an `#[inline(always)]` wrapper around a function compiled with
//! `#[target_feature(enable = "avx2")]`; the helpers those call are AVX2 functions too, so the
//! whole hot loop of each operation is compiled with AVX2 and the intrinsics are inlined.
//!
//! The wrappers' `unsafe` calls are sound because `Avx2` is only ever used through
//! `dispatch::run!`, which selects it only when the CPU has AVX2 (`dispatch::available`).

mod dsa;
mod encode;
mod keccak4x;
mod ntt;
mod sample;

use crate::dispatch::Implementation;
use crate::simd::{KeccakX4, Poly, Simd};
use core::arch::x86_64::*;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2;

/// Loads four 64-bit lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn load_u64x4(x: &[u64; 4]) -> __m256i {
    // SAFETY: `x` is 32 readable bytes; the load is unaligned.
    unsafe { _mm256_loadu_si256(x.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store_u64x4(x: &mut [u64; 4], v: __m256i) {
    // SAFETY: `x` is 32 writable bytes; the store is unaligned.
    unsafe { _mm256_storeu_si256(x.as_mut_ptr().cast(), v) }
}

/// Vector i (coefficients 16i..16i + 16) of a polynomial.
#[target_feature(enable = "avx2")]
#[inline]
fn load16(p: &Poly, i: usize) -> __m256i {
    let s = &p.c[16 * i..16 * i + 16];
    // SAFETY: `s` is 16 readable i16 values (32 bytes); the load is unaligned.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store16(p: &mut Poly, i: usize, v: __m256i) {
    let s = &mut p.c[16 * i..16 * i + 16];
    // SAFETY: `s` is 16 writable i16 values (32 bytes); the store is unaligned.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn load_poly(p: &Poly) -> [__m256i; 16] {
    core::array::from_fn(|i| load16(p, i))
}

#[target_feature(enable = "avx2")]
#[inline]
fn store_poly(p: &mut Poly, v: &[__m256i; 16]) {
    for (i, x) in v.iter().enumerate() {
        store16(p, i, *x);
    }
}

/// 32 bytes from `b[at..]`.
#[target_feature(enable = "avx2")]
#[inline]
fn load_bytes256(b: &[u8], at: usize) -> __m256i {
    let s = &b[at..at + 32];
    // SAFETY: `s` is 32 readable bytes; the load is unaligned.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

/// 16 bytes from `b[at..]`.
#[target_feature(enable = "avx2")]
#[inline]
fn load_bytes128(b: &[u8], at: usize) -> __m128i {
    let s = &b[at..at + 16];
    // SAFETY: `s` is 16 readable bytes; the load is unaligned.
    unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store_bytes256(b: &mut [u8], at: usize, v: __m256i) {
    let s = &mut b[at..at + 32];
    // SAFETY: `s` is 32 writable bytes; the store is unaligned.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store_bytes128(b: &mut [u8], at: usize, v: __m128i) {
    let s = &mut b[at..at + 16];
    // SAFETY: `s` is 16 writable bytes; the store is unaligned.
    unsafe { _mm_storeu_si128(s.as_mut_ptr().cast(), v) }
}

/// The low 8 bytes of `v` to `b[at..]`.
#[target_feature(enable = "avx2")]
#[inline]
fn store_bytes64(b: &mut [u8], at: usize, v: __m128i) {
    let s = &mut b[at..at + 8];
    // SAFETY: `s` is 8 writable bytes; the store is unaligned.
    unsafe { _mm_storel_epi64(s.as_mut_ptr().cast(), v) }
}

impl Simd for Avx2 {
    const IMPLEMENTATION: Implementation = Implementation::Avx2;

    #[inline(always)]
    fn keccak_f1600(state: &mut [u64; 25]) {
        // SAFETY: `Avx2` is only selected when the CPU has BMI1 and BMI2 (dispatch::available).
        unsafe { keccak_f1600_bmi(state) }
    }

    #[inline(always)]
    fn keccak_f1600_x4(state: &mut KeccakX4) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { keccak4x::keccak_f1600_x4(state) }
    }

    #[inline(always)]
    fn ntt(p: &mut Poly) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::ntt(p) }
    }

    #[inline(always)]
    fn invntt_tomont(p: &mut Poly) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::invntt_tomont(p) }
    }

    #[inline(always)]
    fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::basemul_acc_montgomery(r, a, b) }
    }

    #[inline(always)]
    fn tomont(p: &mut Poly) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::tomont(p) }
    }

    #[inline(always)]
    fn reduce(p: &mut Poly) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::reduce(p) }
    }

    #[inline(always)]
    fn add(r: &mut Poly, a: &Poly) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::add(r, a) }
    }

    #[inline(always)]
    fn sub(r: &mut Poly, a: &Poly) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::sub(r, a) }
    }

    #[inline(always)]
    fn ntt_unpack(p: &mut Poly) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::ntt_unpack(p) }
    }

    #[inline(always)]
    fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::ntt_to_bytes(p, out) }
    }

    #[inline(always)]
    fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { ntt::ntt_from_bytes(p, bytes) }
    }

    #[inline(always)]
    fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { sample::rej_uniform(p, filled, bytes) }
    }

    #[inline(always)]
    fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { encode::cbd2(p, bytes) }
    }

    #[inline(always)]
    fn from_msg(p: &mut Poly, m: &[u8; 32]) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { encode::from_msg(p, m) }
    }

    #[inline(always)]
    fn to_msg(p: &Poly, m: &mut [u8; 32]) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { encode::to_msg(p, m) }
    }

    #[inline(always)]
    fn compress(p: &Poly, d: u32, out: &mut [u8]) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { encode::compress(p, d, out) }
    }

    #[inline(always)]
    fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
        // SAFETY: `Avx2` only runs on CPUs with AVX2 (module documentation).
        unsafe { encode::decompress(p, d, bytes) }
    }
}

/// The scalar Keccak-f[1600] with BMI1/BMI2 (`andn` for χ, `rorx` for the rotations) but not
/// AVX2, whose straight-line vectoriser makes this code slower.
#[target_feature(enable = "bmi1,bmi2")]
#[inline(never)]
fn keccak_f1600_bmi(state: &mut [u64; 25]) {
    crate::portable::keccak::keccak_f1600_inline(state);
}

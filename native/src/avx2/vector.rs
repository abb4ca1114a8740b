//! The one copy of this implementation's loads and stores between memory and 256-bit
//! registers, and of the 8 × 8 transpose that both NTTs use.

use crate::mldsa::ops::DsaPoly;
use crate::simd::Poly;
use core::arch::x86_64::*;

/// The integer types that vectors are loaded from and stored to: every bit pattern is a value
/// of each, so any bytes may be stored into them.
pub(super) trait Lane: Copy {}
impl Lane for u8 {}
impl Lane for i8 {}
impl Lane for i16 {}
impl Lane for i32 {}
impl Lane for u64 {}

/// 32 bytes from `s[at..]` (`at` counts elements of `s`).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load256<T: Lane>(s: &[T], at: usize) -> __m256i {
    let s = &s[at..at + 32 / size_of::<T>()];
    // SAFETY: `s` is 32 readable bytes; the load is unaligned.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

/// 16 bytes from `s[at..]`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load128<T: Lane>(s: &[T], at: usize) -> __m128i {
    let s = &s[at..at + 16 / size_of::<T>()];
    // SAFETY: `s` is 16 readable bytes; the load is unaligned.
    unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
}

/// `v` to the 32 bytes at `s[at..]`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store256<T: Lane>(s: &mut [T], at: usize, v: __m256i) {
    let s = &mut s[at..at + 32 / size_of::<T>()];
    // SAFETY: `s` is 32 writable bytes of a type that takes any bit pattern (`Lane`); the
    // store is unaligned.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
}

/// `v` to the 16 bytes at `s[at..]`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store128<T: Lane>(s: &mut [T], at: usize, v: __m128i) {
    let s = &mut s[at..at + 16 / size_of::<T>()];
    // SAFETY: `s` is 16 writable bytes of a type that takes any bit pattern (`Lane`); the
    // store is unaligned.
    unsafe { _mm_storeu_si128(s.as_mut_ptr().cast(), v) }
}

/// The low 8 bytes of `v` to `b[at..]`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store64(b: &mut [u8], at: usize, v: __m128i) {
    let s = &mut b[at..at + 8];
    // SAFETY: `s` is 8 writable bytes; the store is unaligned.
    unsafe { _mm_storel_epi64(s.as_mut_ptr().cast(), v) }
}

/// Vector i (coefficients 16i..16i + 16) of an ML-KEM polynomial.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load16(p: &Poly, i: usize) -> __m256i {
    load256(&p.c, 16 * i)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store16(p: &mut Poly, i: usize, v: __m256i) {
    store256(&mut p.c, 16 * i, v)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load_poly(p: &Poly) -> [__m256i; 16] {
    core::array::from_fn(|i| load16(p, i))
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store_poly(p: &mut Poly, v: &[__m256i; 16]) {
    for (i, x) in v.iter().enumerate() {
        store16(p, i, *x);
    }
}

/// Vector i (coefficients 8i..8i + 8) of an ML-DSA polynomial.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load8(p: &DsaPoly, i: usize) -> __m256i {
    load256(&p.c, 8 * i)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store8(p: &mut DsaPoly, i: usize, v: __m256i) {
    store256(&mut p.c, 8 * i, v)
}

/// Transposes v[base..base + 8] as an 8 × 8 matrix of 32-bit units (an involution): ML-DSA's
/// coefficients, or pairs of ML-KEM's.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn transpose8<const N: usize>(v: &mut [__m256i; N], base: usize) {
    let v = &mut v[base..base + 8];
    let t0 = _mm256_unpacklo_epi32(v[0], v[1]);
    let t1 = _mm256_unpackhi_epi32(v[0], v[1]);
    let t2 = _mm256_unpacklo_epi32(v[2], v[3]);
    let t3 = _mm256_unpackhi_epi32(v[2], v[3]);
    let t4 = _mm256_unpacklo_epi32(v[4], v[5]);
    let t5 = _mm256_unpackhi_epi32(v[4], v[5]);
    let t6 = _mm256_unpacklo_epi32(v[6], v[7]);
    let t7 = _mm256_unpackhi_epi32(v[6], v[7]);
    let u0 = _mm256_unpacklo_epi64(t0, t2);
    let u1 = _mm256_unpackhi_epi64(t0, t2);
    let u2 = _mm256_unpacklo_epi64(t1, t3);
    let u3 = _mm256_unpackhi_epi64(t1, t3);
    let u4 = _mm256_unpacklo_epi64(t4, t6);
    let u5 = _mm256_unpackhi_epi64(t4, t6);
    let u6 = _mm256_unpacklo_epi64(t5, t7);
    let u7 = _mm256_unpackhi_epi64(t5, t7);
    v[0] = _mm256_permute2x128_si256::<0x20>(u0, u4);
    v[1] = _mm256_permute2x128_si256::<0x20>(u1, u5);
    v[2] = _mm256_permute2x128_si256::<0x20>(u2, u6);
    v[3] = _mm256_permute2x128_si256::<0x20>(u3, u7);
    v[4] = _mm256_permute2x128_si256::<0x31>(u0, u4);
    v[5] = _mm256_permute2x128_si256::<0x31>(u1, u5);
    v[6] = _mm256_permute2x128_si256::<0x31>(u2, u6);
    v[7] = _mm256_permute2x128_si256::<0x31>(u3, u7);
}

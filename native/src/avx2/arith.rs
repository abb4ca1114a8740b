//! ML-KEM arithmetic on 16 × i16 vectors: the NTT, its inverse, the base multiplication and
//! the element-wise operations, with Montgomery multiplication by vpmullw/vpmulhw and lazy
//! reduction.
//!
//! # NTT-domain order
//!
//! A polynomial is 16 vectors v[0..16] of 16 coefficients. The first four NTT levels
//! (distances 128, 64, 32, 16 coefficients = 8, 4, 2, 1 vectors) work on vectors in the
//! standard order. Then each half (v[0..8], v[8..16]) is transposed as an 8 × 8 matrix of
//! 32-bit units, each unit a pair of coefficients (2p, 2p + 1). Afterwards vector 8g + j holds,
//! in its 32-bit unit i, the pair p = 64g + 8i + j, so the last three levels (distances 8, 4,
//! 2 coefficients = 4, 2, 1 pairs) are also between whole vectors, with one twiddle per unit,
//! and each unit is exactly one degree-1 factor (a0, a1) of the base multiplication.
//!
//! Bounds (all |c|): forward input < q, seven levels each add < q, so < 8q < 2^15; one Barrett
//! reduction at the end. Inverse: input < q; three levels give < 8q; Barrett (≈ q/2); four
//! levels give < 8 · q/2 · 2 = 8q; the last level's scaling by 2^-7 R^2 is folded into its
//! twiddles.

use super::vector::{load_poly, load16, store_poly, store16, transpose8};
use crate::portable::arith::{INVNTT_F, MONT, MONT_SQ, QINV, ZETAS};
use crate::simd::{Poly, Q};
use core::arch::x86_64::*;

/// a · R^-1 mod q, centered: the scalar Montgomery reduction, for constants.
const fn mont_const(a: i32) -> i16 {
    let t = (a as i16).wrapping_mul(QINV);
    let r = ((a - t as i32 * Q as i32) >> 16) as i16;
    if r > Q / 2 {
        r - Q
    } else if r < -Q / 2 {
        r + Q
    } else {
        r
    }
}

/// ζ^BitRev7(k)·R of the portable tables, with the block numbering of the reference NTT:
/// at distance `len` the forward NTT uses ZETAS[nb + b] and the inverse ZETAS[2nb - 1 - b]
/// for block b (nb = 128 / len blocks).
const fn zeta(forward: bool, len: usize, block: usize) -> i16 {
    let nb = 128 / len;
    if forward {
        ZETAS[nb + block]
    } else {
        ZETAS[2 * nb - 1 - block]
    }
}

#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct V16([i16; 16]);

/// Twiddles for the three levels after the transpose: [direction][level][half g][vector j],
/// level 0, 1, 2 = distance 8, 4, 2; entries for j that are the upper member of a butterfly
/// are unused.
struct Twiddles {
    z: [[[[V16; 8]; 2]; 3]; 2],
    zq: [[[[V16; 8]; 2]; 3]; 2],
}

const TWIDDLES: Twiddles = {
    let mut t = Twiddles {
        z: [[[[V16([0; 16]); 8]; 2]; 3]; 2],
        zq: [[[[V16([0; 16]); 8]; 2]; 3]; 2],
    };
    let mut dir = 0;
    while dir < 2 {
        let mut level = 0;
        while level < 3 {
            let len = 8 >> level;
            let mut g = 0;
            while g < 2 {
                let mut j = 0;
                while j < 8 {
                    let mut l = 0;
                    while l < 16 {
                        let pair = 64 * g + 8 * (l / 2) + j;
                        let z = zeta(dir == 0, len, 2 * pair / (2 * len));
                        t.z[dir][level][g][j].0[l] = z;
                        t.zq[dir][level][g][j].0[l] = z.wrapping_mul(QINV);
                        l += 1;
                    }
                    j += 1;
                }
                g += 1;
            }
            level += 1;
        }
        dir += 1;
    }
    t
};
static TW: Twiddles = TWIDDLES;

/// The base multiplication's per-unit constants: (R, ±ζ) so that multiplying b = (b0, b1)
/// gives (b0, b1·ζ) mod q; `+` for even pairs p, `-` for odd, ζ = ZETAS[64 + p/2].
struct BasemulZetas {
    z: [V16; 16],
    zq: [V16; 16],
}

const BASEMUL_ZETAS: BasemulZetas = {
    let mut t = BasemulZetas {
        z: [V16([0; 16]); 16],
        zq: [V16([0; 16]); 16],
    };
    let mut v = 0;
    while v < 16 {
        let (g, j) = (v / 8, v % 8);
        let mut l = 0;
        while l < 16 {
            let pair = 64 * g + 8 * (l / 2) + j;
            let z = if l % 2 == 0 {
                MONT as i16
            } else if pair % 2 == 0 {
                ZETAS[64 + pair / 2]
            } else {
                -ZETAS[64 + pair / 2]
            };
            t.z[v].0[l] = z;
            t.zq[v].0[l] = z.wrapping_mul(QINV);
            l += 1;
        }
        v += 1;
    }
    t
};
static BZ: BasemulZetas = BASEMUL_ZETAS;

#[target_feature(enable = "avx2")]
#[inline]
fn ld(v: &V16) -> __m256i {
    // SAFETY: `v` is 32 readable, 32-byte aligned bytes.
    unsafe { _mm256_load_si256(v.0.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn q16() -> __m256i {
    _mm256_set1_epi16(Q)
}

/// Montgomery product b · z · R^-1 with zq = z · q^-1 mod 2^16; |result| < q when
/// |b · z| < q · 2^15.
#[target_feature(enable = "avx2")]
#[inline]
fn fqmul(b: __m256i, z: __m256i, zq: __m256i) -> __m256i {
    let t = _mm256_mullo_epi16(b, zq);
    _mm256_sub_epi16(_mm256_mulhi_epi16(b, z), _mm256_mulhi_epi16(t, q16()))
}

#[target_feature(enable = "avx2")]
#[inline]
fn fqmul_const(b: __m256i, z: i16) -> __m256i {
    fqmul(
        b,
        _mm256_set1_epi16(z),
        _mm256_set1_epi16(z.wrapping_mul(QINV)),
    )
}

/// Barrett reduction: a - round(a / q)·q, |result| <= q/2 + 4 for any i16.
#[target_feature(enable = "avx2")]
#[inline]
fn barrett(a: __m256i) -> __m256i {
    const V: i16 = (((1i32 << 26) + Q as i32 / 2) / Q as i32) as i16;
    let t = _mm256_mulhi_epi16(a, _mm256_set1_epi16(V));
    let t = _mm256_mulhrs_epi16(t, _mm256_set1_epi16(1 << 5));
    _mm256_sub_epi16(a, _mm256_mullo_epi16(t, q16()))
}

/// Cooley–Tukey butterfly: (a + bζ, a - bζ).
#[target_feature(enable = "avx2")]
#[inline]
fn ct(v: &mut [__m256i; 16], i: usize, k: usize, z: __m256i, zq: __m256i) {
    let t = fqmul(v[k], z, zq);
    v[k] = _mm256_sub_epi16(v[i], t);
    v[i] = _mm256_add_epi16(v[i], t);
}

/// Gentleman–Sande butterfly: (a + b, (b - a)ζ).
#[target_feature(enable = "avx2")]
#[inline]
fn gs(v: &mut [__m256i; 16], i: usize, k: usize, z: __m256i, zq: __m256i) {
    let d = _mm256_sub_epi16(v[k], v[i]);
    v[i] = _mm256_add_epi16(v[i], v[k]);
    v[k] = fqmul(d, z, zq);
}

#[target_feature(enable = "avx2")]
#[inline]
fn ct_const(v: &mut [__m256i; 16], i: usize, k: usize, z: i16) {
    ct(
        v,
        i,
        k,
        _mm256_set1_epi16(z),
        _mm256_set1_epi16(z.wrapping_mul(QINV)),
    );
}

#[target_feature(enable = "avx2")]
#[inline]
fn gs_const(v: &mut [__m256i; 16], i: usize, k: usize, z: i16) {
    gs(
        v,
        i,
        k,
        _mm256_set1_epi16(z),
        _mm256_set1_epi16(z.wrapping_mul(QINV)),
    );
}

/// Standard order <-> NTT-domain order (both halves transposed).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn transpose(v: &mut [__m256i; 16]) {
    transpose8(v, 0);
    transpose8(v, 8);
}

#[target_feature(enable = "avx2")]
#[inline]
fn tw(dir: usize, level: usize, g: usize, j: usize) -> (__m256i, __m256i) {
    (ld(&TW.z[dir][level][g][j]), ld(&TW.zq[dir][level][g][j]))
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn ntt(p: &mut Poly) {
    let mut v = load_poly(p);
    for j in 0..8 {
        ct_const(&mut v, j, j + 8, zeta(true, 128, 0));
    }
    for g in 0..2 {
        for j in 0..4 {
            ct_const(&mut v, 8 * g + j, 8 * g + j + 4, zeta(true, 64, g));
        }
    }
    for h in 0..4 {
        for j in 0..2 {
            ct_const(&mut v, 4 * h + j, 4 * h + j + 2, zeta(true, 32, h));
        }
    }
    for h in 0..8 {
        ct_const(&mut v, 2 * h, 2 * h + 1, zeta(true, 16, h));
    }
    transpose(&mut v);
    for g in 0..2 {
        for j in 0..4 {
            let (z, zq) = tw(0, 0, g, j);
            ct(&mut v, 8 * g + j, 8 * g + j + 4, z, zq);
        }
        for j in [0, 1, 4, 5] {
            let (z, zq) = tw(0, 1, g, j);
            ct(&mut v, 8 * g + j, 8 * g + j + 2, z, zq);
        }
        for j in [0, 2, 4, 6] {
            let (z, zq) = tw(0, 2, g, j);
            ct(&mut v, 8 * g + j, 8 * g + j + 1, z, zq);
        }
    }
    for x in v.iter_mut() {
        *x = barrett(*x);
    }
    store_poly(p, &v);
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn invntt_tomont(p: &mut Poly) {
    let mut v = load_poly(p);
    for g in 0..2 {
        for j in [0, 2, 4, 6] {
            let (z, zq) = tw(1, 2, g, j);
            gs(&mut v, 8 * g + j, 8 * g + j + 1, z, zq);
        }
        for j in [0, 1, 4, 5] {
            let (z, zq) = tw(1, 1, g, j);
            gs(&mut v, 8 * g + j, 8 * g + j + 2, z, zq);
        }
        for j in 0..4 {
            let (z, zq) = tw(1, 0, g, j);
            gs(&mut v, 8 * g + j, 8 * g + j + 4, z, zq);
        }
    }
    for x in v.iter_mut() {
        *x = barrett(*x);
    }
    transpose(&mut v);
    for h in 0..8 {
        gs_const(&mut v, 2 * h, 2 * h + 1, zeta(false, 16, h));
    }
    for h in 0..4 {
        for j in 0..2 {
            gs_const(&mut v, 4 * h + j, 4 * h + j + 2, zeta(false, 32, h));
        }
    }
    for g in 0..2 {
        for j in 0..4 {
            gs_const(&mut v, 8 * g + j, 8 * g + j + 4, zeta(false, 64, g));
        }
    }
    // Last level with the final scaling F = 2^-7 R^2: (a + b)·F and (b - a)·ζF.
    const ZF: i16 = mont_const(zeta(false, 128, 0) as i32 * INVNTT_F as i32);
    for j in 0..8 {
        let d = _mm256_sub_epi16(v[j + 8], v[j]);
        let s = _mm256_add_epi16(v[j], v[j + 8]);
        v[j] = fqmul_const(s, INVNTT_F);
        v[j + 8] = fqmul_const(d, ZF);
    }
    store_poly(p, &v);
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
    // Swaps the two coefficients of each pair: (b0, b1) -> (b1, b0).
    let swap = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
        14, 15, 12, 13,
    );
    let qinv = _mm256_set1_epi16(QINV);
    for i in 0..16 {
        let (z, zq) = (ld(&BZ.z[i]), ld(&BZ.zq[i]));
        let mut acc0 = _mm256_setzero_si256();
        let mut acc1 = _mm256_setzero_si256();
        for (x, y) in a.iter().zip(b) {
            let av = load16(x, i);
            let bv = load16(y, i);
            // (b0 mod q, b1·ζ mod q): the pair a0·b0 + a1·b1·ζ is one vpmaddwd.
            let bz = fqmul(bv, z, zq);
            acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(av, bz));
            // a0·b1 + a1·b0.
            let bs = _mm256_shuffle_epi8(bv, swap);
            acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(av, bs));
        }
        // |acc| < 4 · 2 · 4096² < 2^31. Montgomery-reduce each 32-bit sum: with lo its low 16
        // bits and t = lo · q^-1, (acc - t·q) / 2^16 = (acc >> 16) - mulhi(t, q) exactly.
        let lo = _mm256_blend_epi16::<0xaa>(acc0, _mm256_slli_epi32::<16>(acc1));
        let hi = _mm256_blend_epi16::<0xaa>(_mm256_srli_epi32::<16>(acc0), acc1);
        let t = _mm256_mullo_epi16(lo, qinv);
        let m = _mm256_sub_epi16(hi, _mm256_mulhi_epi16(t, q16()));
        store16(r, i, barrett(m));
    }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn tomont(p: &mut Poly) {
    let mut v = load_poly(p);
    for x in v.iter_mut() {
        *x = fqmul_const(*x, MONT_SQ);
    }
    store_poly(p, &v);
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn reduce(p: &mut Poly) {
    let mut v = load_poly(p);
    for x in v.iter_mut() {
        *x = barrett(*x);
    }
    store_poly(p, &v);
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn add(r: &mut Poly, a: &Poly) {
    for i in 0..16 {
        let s = _mm256_add_epi16(load16(r, i), load16(a, i));
        store16(r, i, s);
    }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sub(r: &mut Poly, a: &Poly) {
    for i in 0..16 {
        let s = _mm256_sub_epi16(load16(r, i), load16(a, i));
        store16(r, i, s);
    }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn ntt_unpack(p: &mut Poly) {
    let mut v = load_poly(p);
    transpose(&mut v);
    store_poly(p, &v);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twiddle_constants() {
        assert_eq!(mont_const(MONT as i32), 1);
        // The first forward twiddle after the transpose: block 2p/16 = 8g + i.
        assert_eq!(TWIDDLES.z[0][0][1][3].0[5], ZETAS[16 + 8 + 2]);
    }
}

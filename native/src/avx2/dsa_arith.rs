//! ML-DSA arithmetic on 8 × i32 vectors: the NTT and its inverse, the pointwise products, and
//! the element-wise and rounding operations.
//!
//! # NTT-domain order
//!
//! The FIPS 204 order (the portable one), so `dsa_ntt_unpack` does nothing and every result
//! is bit-for-bit the portable one. A polynomial is 32 vectors v[0..32] of 8 coefficients.
//! The levels at distances 128..8 coefficients (16..1 vectors) are butterflies between whole
//! vectors with one broadcast twiddle, in two passes of eight vectors held in registers. For
//! the last three levels (distances 4, 2, 1) each group of 8 vectors is transposed as an 8 × 8
//! matrix (`vector::transpose8`), so that those become butterflies between whole vectors too,
//! with one twiddle per lane, and then transposed back.
//!
//! Montgomery multiplication: `vpmuldq` on the even lanes and on the odd lanes shifted down,
//! the reference code's `montgomery_reduce` on each 64-bit product (the low halves of the
//! product and of t·q are equal, so the high halves are subtracted directly).

use super::vector::{load8, store8, transpose8};
use crate::mldsa::ops::{D, DsaPoly, GAMMA2, N, Q};
use crate::portable::dsa_arith::{INVNTT_F, QINV, ZETAS};
use core::arch::x86_64::*;

/// Eight i32 lanes, aligned for a 256-bit load.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct V8([i32; 8]);

/// Per-lane twiddles of the three in-vector levels, for the transposed layout: group g
/// (vectors 8g..8g + 8), lane i = original vector 8g + i. Level distance 4: one vector per
/// group; distance 2: two (j < 4, j >= 4); distance 1: four (j / 2). `INV` holds the inverse
/// NTT's negated twiddles in the same layout.
struct LaneTwiddles {
    l4: [V8; 4],
    l2: [[V8; 2]; 4],
    l1: [[V8; 4]; 4],
}

/// The twiddle of block `b` at distance `len`: forward ZETAS[128/len + b], inverse
/// −ZETAS[256/len − 1 − b] (the blocks of the reference loops).
const fn zeta(forward: bool, len: usize, b: usize) -> i32 {
    if forward {
        ZETAS[128 / len + b]
    } else {
        -ZETAS[256 / len - 1 - b]
    }
}

const fn lane_twiddles(forward: bool) -> LaneTwiddles {
    let mut t = LaneTwiddles {
        l4: [V8([0; 8]); 4],
        l2: [[V8([0; 8]); 2]; 4],
        l1: [[V8([0; 8]); 4]; 4],
    };
    let mut g = 0;
    while g < 4 {
        let mut i = 0;
        while i < 8 {
            let v = 8 * g + i;
            // Coefficient 8v + j is in block (8v + j) / (2 len) at distance len.
            t.l4[g].0[i] = zeta(forward, 4, v);
            let mut h = 0;
            while h < 2 {
                t.l2[g][h].0[i] = zeta(forward, 2, 2 * v + h);
                h += 1;
            }
            let mut h = 0;
            while h < 4 {
                t.l1[g][h].0[i] = zeta(forward, 1, 4 * v + h);
                h += 1;
            }
            i += 1;
        }
        g += 1;
    }
    t
}

/// f · z · R^-1 mod q for the inverse NTT's last twiddle z: Montgomery multiplication by it
/// equals multiplying by z and then by f, so the last level and the scaling are one product.
const INVNTT_FZ: i32 = crate::portable::dsa_arith::montgomery_reduce_const(
    INVNTT_F as i64 * zeta(false, 128, 0) as i64,
);

static FWD: LaneTwiddles = lane_twiddles(true);
static INV: LaneTwiddles = lane_twiddles(false);

#[target_feature(enable = "avx2")]
#[inline]
fn load_v8(v: &V8) -> __m256i {
    // SAFETY: `v` is 32 readable bytes, 32-byte aligned.
    unsafe { _mm256_load_si256(v.0.as_ptr().cast()) }
}

/// `montgomery_reduce(a · b)` in every lane, for |a · b| < q · 2^31.
#[target_feature(enable = "avx2")]
#[inline]
fn montmul(a: __m256i, b: __m256i) -> __m256i {
    let a1 = _mm256_srli_epi64(a, 32);
    let b1 = _mm256_srli_epi64(b, 32);
    let p0 = _mm256_mul_epi32(a, b);
    let p1 = _mm256_mul_epi32(a1, b1);
    montgomery_reduce(p0, p1)
}

/// The reference code's `montgomery_reduce` of the 64-bit products of the even lanes (`even`)
/// and of the odd lanes (`odd`, also in 64-bit lanes), merged into one vector of eight.
#[target_feature(enable = "avx2")]
#[inline]
fn montgomery_reduce(even: __m256i, odd: __m256i) -> __m256i {
    let q = _mm256_set1_epi32(Q);
    let qinv = _mm256_set1_epi32(QINV);
    let m0 = _mm256_mul_epi32(_mm256_mul_epi32(even, qinv), q);
    let m1 = _mm256_mul_epi32(_mm256_mul_epi32(odd, qinv), q);
    // The low halves agree, so the high half of p − m is hi(p) − hi(m).
    let r0 = _mm256_srli_epi64(_mm256_sub_epi32(even, m0), 32);
    let r1 = _mm256_sub_epi32(odd, m1);
    _mm256_blend_epi32(r0, r1, 0xaa)
}

/// Forward (Cooley–Tukey) butterfly: `(a + z·b, a − z·b)`.
#[target_feature(enable = "avx2")]
#[inline]
fn ct(v: &mut [__m256i], j: usize, k: usize, z: __m256i) {
    let t = montmul(z, v[k]);
    v[k] = _mm256_sub_epi32(v[j], t);
    v[j] = _mm256_add_epi32(v[j], t);
}

/// Inverse (Gentleman–Sande) butterfly: `(a + b, z·(a − b))`, z the negated twiddle.
#[target_feature(enable = "avx2")]
#[inline]
fn gs(v: &mut [__m256i], j: usize, k: usize, z: __m256i) {
    let t = v[j];
    v[j] = _mm256_add_epi32(t, v[k]);
    v[k] = montmul(z, _mm256_sub_epi32(t, v[k]));
}

/// Eight vectors `p[first + step·k]`, k = 0..8.
#[target_feature(enable = "avx2")]
#[inline]
fn load_rows(p: &DsaPoly, first: usize, step: usize) -> [__m256i; 8] {
    let mut w = [_mm256_setzero_si256(); 8];
    for (k, x) in w.iter_mut().enumerate() {
        *x = load8(p, first + step * k);
    }
    w
}

#[target_feature(enable = "avx2")]
#[inline]
fn store_rows(p: &mut DsaPoly, first: usize, step: usize, w: &[__m256i; 8]) {
    for (k, x) in w.iter().enumerate() {
        store8(p, first + step * k, *x);
    }
}

// One level on eight vectors with the butterfly `$bf`, written out: as loops over the blocks,
// LLVM kept the eight vectors on the stack between levels (about 40 % more instructions).
// `$l4`: pairs (k, k + 4), one twiddle; `$l2`: pairs (k, k + 2), a twiddle per half; `$l1`:
// pairs (2h, 2h + 1), a twiddle each.
macro_rules! levels {
    ($l4:ident, $l2:ident, $l1:ident, $bf:ident) => {
        #[target_feature(enable = "avx2")]
        #[inline]
        fn $l4(w: &mut [__m256i; 8], z: __m256i) {
            $bf(w, 0, 4, z);
            $bf(w, 1, 5, z);
            $bf(w, 2, 6, z);
            $bf(w, 3, 7, z);
        }

        #[target_feature(enable = "avx2")]
        #[inline]
        fn $l2(w: &mut [__m256i; 8], z: [__m256i; 2]) {
            $bf(w, 0, 2, z[0]);
            $bf(w, 1, 3, z[0]);
            $bf(w, 4, 6, z[1]);
            $bf(w, 5, 7, z[1]);
        }

        #[target_feature(enable = "avx2")]
        #[inline]
        fn $l1(w: &mut [__m256i; 8], z: [__m256i; 4]) {
            $bf(w, 0, 1, z[0]);
            $bf(w, 2, 3, z[1]);
            $bf(w, 4, 5, z[2]);
            $bf(w, 6, 7, z[3]);
        }
    };
}
levels!(ct4, ct2, ct1, ct);
levels!(gs4, gs2, gs1, gs);

/// The broadcast twiddles of blocks `first..first + M` at distance `len`.
#[target_feature(enable = "avx2")]
#[inline]
fn twiddles<const M: usize>(forward: bool, len: usize, first: usize) -> [__m256i; M] {
    core::array::from_fn(|h| _mm256_set1_epi32(zeta(forward, len, first + h)))
}

/// Per-lane twiddle vectors from a `LaneTwiddles` row.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes<const M: usize>(row: &[V8; M]) -> [__m256i; M] {
    core::array::from_fn(|h| load_v8(&row[h]))
}

/// Two passes of eight vectors each held in registers: first the levels at distances 16, 8,
/// 4 vectors on the vectors o + 4k (k = 0..8), then per group of eight consecutive vectors
/// the levels at distances 2 and 1 vector and, transposed, the three in-vector levels.
#[target_feature(enable = "avx2")]
pub(super) fn ntt(p: &mut DsaPoly) {
    for o in 0..4 {
        let mut w = load_rows(p, o, 4);
        // Vector o + 4k is in block 0, k / 4, k / 2 at distances 16, 8, 4.
        ct4(&mut w, _mm256_set1_epi32(zeta(true, 128, 0)));
        ct2(&mut w, twiddles(true, 64, 0));
        ct1(&mut w, twiddles(true, 32, 0));
        store_rows(p, o, 4, &w);
    }
    for g in 0..4 {
        let mut w = load_rows(p, 8 * g, 1);
        ct2(&mut w, twiddles(true, 16, 2 * g));
        ct1(&mut w, twiddles(true, 8, 4 * g));
        transpose8(&mut w, 0);
        ct4(&mut w, load_v8(&FWD.l4[g]));
        ct2(&mut w, lanes(&FWD.l2[g]));
        ct1(&mut w, lanes(&FWD.l1[g]));
        transpose8(&mut w, 0);
        store_rows(p, 8 * g, 1, &w);
    }
}

/// The NTT domain is in FIPS 204's order, as sampled: nothing to reorder.
#[target_feature(enable = "avx2")]
pub(super) fn ntt_unpack(_p: &mut DsaPoly) {}

/// The inverse NTT's last butterfly on (k, k + 4) with the scaling folded in: (f·(a + b),
/// f·z·(a − b)), one Montgomery product per output instead of two on the lower half.
#[target_feature(enable = "avx2")]
#[inline]
fn last_level(w: &mut [__m256i; 8], k: usize, f: __m256i, fz: __m256i) {
    let t = w[k];
    w[k] = montmul(f, _mm256_add_epi32(t, w[k + 4]));
    w[k + 4] = montmul(fz, _mm256_sub_epi32(t, w[k + 4]));
}

/// The forward passes reversed, with the final scaling by `INVNTT_F` in the second.
#[target_feature(enable = "avx2")]
pub(super) fn invntt_tomont(p: &mut DsaPoly) {
    for g in 0..4 {
        let mut w = load_rows(p, 8 * g, 1);
        transpose8(&mut w, 0);
        gs1(&mut w, lanes(&INV.l1[g]));
        gs2(&mut w, lanes(&INV.l2[g]));
        gs4(&mut w, load_v8(&INV.l4[g]));
        transpose8(&mut w, 0);
        gs1(&mut w, twiddles(false, 8, 4 * g));
        gs2(&mut w, twiddles(false, 16, 2 * g));
        store_rows(p, 8 * g, 1, &w);
    }
    let f = _mm256_set1_epi32(INVNTT_F);
    let fz = _mm256_set1_epi32(INVNTT_FZ);
    for o in 0..4 {
        let mut w = load_rows(p, o, 4);
        gs1(&mut w, twiddles(false, 32, 0));
        gs2(&mut w, twiddles(false, 64, 0));
        last_level(&mut w, 0, f, fz);
        last_level(&mut w, 1, f, fz);
        last_level(&mut w, 2, f, fz);
        last_level(&mut w, 3, f, fz);
        store_rows(p, o, 4, &w);
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
    for i in 0..N / 8 {
        store8(r, i, montmul(load8(a, i), load8(b, i)));
    }
}

/// The 64-bit products of the even lanes and of the odd lanes are summed over the k terms and
/// reduced once: each |a·b| < q·2^31, so |sum| < k·q·2^31 (no overflow for k <= 7) and the
/// Montgomery reduction returns |c| < k·q/2 + q/2 <= k·q.
#[target_feature(enable = "avx2")]
pub(super) fn pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
    debug_assert_eq!(a.len(), b.len());
    debug_assert!(a.len() <= 7);
    for i in 0..N / 8 {
        let mut even = _mm256_setzero_si256();
        let mut odd = _mm256_setzero_si256();
        for (x, y) in a.iter().zip(b) {
            let (x, y) = (load8(x, i), load8(y, i));
            even = _mm256_add_epi64(even, _mm256_mul_epi32(x, y));
            odd = _mm256_add_epi64(
                odd,
                _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32)),
            );
        }
        store8(r, i, montgomery_reduce(even, odd));
    }
}

/// `a − round(a / 2^23) · q`, q = 2^23 − 2^13 + 1 multiplied by shifts.
#[target_feature(enable = "avx2")]
#[inline]
fn reduce32(a: __m256i) -> __m256i {
    let t = _mm256_srai_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 22)), 23);
    let tq = _mm256_add_epi32(
        _mm256_sub_epi32(_mm256_slli_epi32(t, 23), _mm256_slli_epi32(t, 13)),
        t,
    );
    _mm256_sub_epi32(a, tq)
}

#[target_feature(enable = "avx2")]
#[inline]
fn caddq(a: __m256i) -> __m256i {
    _mm256_add_epi32(
        a,
        _mm256_and_si256(_mm256_srai_epi32(a, 31), _mm256_set1_epi32(Q)),
    )
}

#[target_feature(enable = "avx2")]
pub(super) fn reduce(p: &mut DsaPoly) {
    for i in 0..N / 8 {
        store8(p, i, reduce32(load8(p, i)));
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn caddq_poly(p: &mut DsaPoly) {
    for i in 0..N / 8 {
        store8(p, i, caddq(load8(p, i)));
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn add(r: &mut DsaPoly, a: &DsaPoly) {
    for i in 0..N / 8 {
        store8(r, i, _mm256_add_epi32(load8(r, i), load8(a, i)));
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn sub(r: &mut DsaPoly, a: &DsaPoly) {
    for i in 0..N / 8 {
        store8(r, i, _mm256_sub_epi32(load8(r, i), load8(a, i)));
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn shiftl(p: &mut DsaPoly) {
    for i in 0..N / 8 {
        store8(p, i, _mm256_slli_epi32(load8(p, i), D as i32));
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly) {
    let round = _mm256_set1_epi32((1 << (D - 1)) - 1);
    for i in 0..N / 8 {
        let a = load8(t, i);
        let hi = _mm256_srai_epi32(_mm256_add_epi32(a, round), D as i32);
        store8(t1, i, hi);
        store8(t0, i, _mm256_sub_epi32(a, _mm256_slli_epi32(hi, D as i32)));
    }
}

/// Decompose for γ2 = (q − 1)/32 (the reference code's arithmetic): (a1, a0).
#[target_feature(enable = "avx2")]
#[inline]
fn decompose32(a: __m256i) -> (__m256i, __m256i) {
    let mut a1 = _mm256_srai_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(127)), 7);
    // a1 < 2^16, so a1 · 1025 + 2^21 < 2^31.
    a1 = _mm256_srai_epi32(
        _mm256_add_epi32(
            _mm256_mullo_epi32(a1, _mm256_set1_epi32(1025)),
            _mm256_set1_epi32(1 << 21),
        ),
        22,
    );
    a1 = _mm256_and_si256(a1, _mm256_set1_epi32(15));
    let mut a0 = _mm256_sub_epi32(a, _mm256_mullo_epi32(a1, _mm256_set1_epi32(2 * GAMMA2)));
    let above = _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32((Q - 1) / 2), a0), 31);
    a0 = _mm256_sub_epi32(a0, _mm256_and_si256(above, _mm256_set1_epi32(Q)));
    (a1, a0)
}

#[target_feature(enable = "avx2")]
pub(super) fn decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
    for i in 0..N / 8 {
        let (a1, a0) = decompose32(load8(w, i));
        store8(w1, i, a1);
        store8(w0, i, a0);
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize {
    let g = _mm256_set1_epi32(GAMMA2);
    let ng = _mm256_set1_epi32(-GAMMA2);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi32(1);
    let mut count = zero;
    for i in 0..N / 8 {
        let x = load8(a0, i);
        let y = load8(a1, i);
        let above = _mm256_cmpgt_epi32(x, g);
        let below = _mm256_cmpgt_epi32(ng, x);
        let at = _mm256_cmpeq_epi32(x, ng);
        // `at` and not `y == 0`.
        let at_nonzero = _mm256_andnot_si256(_mm256_cmpeq_epi32(y, zero), at);
        let bit = _mm256_or_si256(_mm256_or_si256(above, below), at_nonzero);
        store8(h, i, _mm256_and_si256(bit, one));
        count = _mm256_sub_epi32(count, bit);
    }
    hsum(count) as usize
}

/// The sum of the eight lanes (each small and non-negative here).
#[target_feature(enable = "avx2")]
#[inline]
fn hsum(v: __m256i) -> u32 {
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
    _mm_cvtsi128_si32(s) as u32
}

#[target_feature(enable = "avx2")]
pub(super) fn use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) {
    let one = _mm256_set1_epi32(1);
    let two = _mm256_set1_epi32(2);
    for i in 0..N / 8 {
        let (a1, a0) = decompose32(load8(w, i));
        // +1 when a0 > 0, −1 otherwise; times the hint (0 or 1).
        let positive = _mm256_cmpgt_epi32(a0, _mm256_setzero_si256());
        let step = _mm256_sub_epi32(_mm256_and_si256(positive, two), one);
        let delta = _mm256_sign_epi32(load8(h, i), step);
        let r = _mm256_and_si256(_mm256_add_epi32(a1, delta), _mm256_set1_epi32(15));
        store8(w1, i, r);
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn chk(p: &DsaPoly, bound: i32) -> bool {
    let limit = _mm256_set1_epi32(bound - 1);
    let mut bad = _mm256_setzero_si256();
    for i in 0..N / 8 {
        let abs = _mm256_abs_epi32(load8(p, i));
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(abs, limit));
    }
    _mm256_testz_si256(bad, bad) == 0
}

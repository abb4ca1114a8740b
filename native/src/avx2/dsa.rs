//! `DsaSimd` (ML-DSA polynomial operations) on 8 × i32 vectors: the NTT and its inverse, the
//! pointwise products, the element-wise arithmetic and rounding, and RejNTTPoly's rejection
//! step, and the packing and unpacking. RejBoundedPoly's step (secret data) is still the
//! portable function; Keccak, and so the four-way ExpandA, ExpandS and ExpandMask, is
//! this implementation's own through its `Simd` methods.
//!
//! # NTT-domain order
//!
//! The FIPS 204 order (the portable one), so `dsa_ntt_unpack` does nothing and every result
//! is bit-for-bit the portable one. A polynomial is 32 vectors v[0..32] of 8 coefficients.
//! The levels at distances 128..8 coefficients (16..1 vectors) are butterflies between whole
//! vectors with one broadcast twiddle, in two passes of eight vectors held in registers. For the last three levels (distances 4, 2, 1) each
//! group of 8 vectors is transposed as an 8 × 8 matrix, so that those become butterflies
//! between whole vectors too, with one twiddle per lane, and then transposed back.
//!
//! Montgomery multiplication: `vpmuldq` on the even lanes and on the odd lanes shifted down,
//! the reference code's `montgomery_reduce` on each 64-bit product (the low halves of the
//! product and of t·q are equal, so the high halves are subtracted directly).

use crate::mldsa::ops::{
    D, DsaPoly, DsaSimd, ETA, ETA_BYTES, GAMMA1, GAMMA2, N, Q, T0_BYTES, T1_BYTES, W1_BYTES,
    Z_BYTES,
};
use crate::portable::dsa::arith::{INVNTT_F, QINV, ZETAS};
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

static FWD: LaneTwiddles = lane_twiddles(true);
static INV: LaneTwiddles = lane_twiddles(false);

#[target_feature(enable = "avx2")]
#[inline]
fn load(p: &DsaPoly, i: usize) -> __m256i {
    let s = &p.c[8 * i..8 * i + 8];
    // SAFETY: `s` is 8 readable i32 values (32 bytes); the load is unaligned.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store(p: &mut DsaPoly, i: usize, v: __m256i) {
    let s = &mut p.c[8 * i..8 * i + 8];
    // SAFETY: `s` is 8 writable i32 values (32 bytes); the store is unaligned.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
}

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
    let q = _mm256_set1_epi32(Q);
    let qinv = _mm256_set1_epi32(QINV);
    let a1 = _mm256_srli_epi64(a, 32);
    let b1 = _mm256_srli_epi64(b, 32);
    let p0 = _mm256_mul_epi32(a, b);
    let p1 = _mm256_mul_epi32(a1, b1);
    let t0 = _mm256_mul_epi32(p0, qinv);
    let t1 = _mm256_mul_epi32(p1, qinv);
    let m0 = _mm256_mul_epi32(t0, q);
    let m1 = _mm256_mul_epi32(t1, q);
    // The low halves agree, so the high half of p − m is hi(p) − hi(m).
    let r0 = _mm256_srli_epi64(_mm256_sub_epi32(p0, m0), 32);
    let r1 = _mm256_sub_epi32(p1, m1);
    _mm256_blend_epi32(r0, r1, 0xaa)
}

/// Transposes v[0..8] as an 8 × 8 matrix of i32.
#[target_feature(enable = "avx2")]
#[inline]
fn transpose8(v: &mut [__m256i]) {
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
    v[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    v[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    v[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    v[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    v[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    v[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    v[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    v[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
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
fn load8(p: &DsaPoly, first: usize, step: usize) -> [__m256i; 8] {
    let mut w = [_mm256_setzero_si256(); 8];
    for (k, x) in w.iter_mut().enumerate() {
        *x = load(p, first + step * k);
    }
    w
}

#[target_feature(enable = "avx2")]
#[inline]
fn store8(p: &mut DsaPoly, first: usize, step: usize, w: &[__m256i; 8]) {
    for (k, x) in w.iter().enumerate() {
        store(p, first + step * k, *x);
    }
}

/// Two passes of eight vectors each held in registers: first the levels at distances 16, 8,
/// 4 vectors on the vectors o + 4k (k = 0..8), then per group of eight consecutive vectors
/// the levels at distances 2 and 1 vector and, transposed, the three in-vector levels.
#[target_feature(enable = "avx2")]
fn ntt(p: &mut DsaPoly) {
    for o in 0..4 {
        let mut w = load8(p, o, 4);
        // Vector o + 4k is in block 0, k / 4, k / 2 at distances 16, 8, 4.
        let z = _mm256_set1_epi32(zeta(true, 128, 0));
        for k in 0..4 {
            ct(&mut w, k, k + 4, z);
        }
        for h in 0..2 {
            let z = _mm256_set1_epi32(zeta(true, 64, h));
            for k in 4 * h..4 * h + 2 {
                ct(&mut w, k, k + 2, z);
            }
        }
        for h in 0..4 {
            let z = _mm256_set1_epi32(zeta(true, 32, h));
            ct(&mut w, 2 * h, 2 * h + 1, z);
        }
        store8(p, o, 4, &w);
    }
    for g in 0..4 {
        let mut w = load8(p, 8 * g, 1);
        for h in 0..2 {
            let z = _mm256_set1_epi32(zeta(true, 16, 2 * g + h));
            for k in 4 * h..4 * h + 2 {
                ct(&mut w, k, k + 2, z);
            }
        }
        for h in 0..4 {
            let z = _mm256_set1_epi32(zeta(true, 8, 4 * g + h));
            ct(&mut w, 2 * h, 2 * h + 1, z);
        }
        transpose8(&mut w);
        let z = load_v8(&FWD.l4[g]);
        for j in 0..4 {
            ct(&mut w, j, j + 4, z);
        }
        for h in 0..2 {
            let z = load_v8(&FWD.l2[g][h]);
            for j in 4 * h..4 * h + 2 {
                ct(&mut w, j, j + 2, z);
            }
        }
        for h in 0..4 {
            let z = load_v8(&FWD.l1[g][h]);
            ct(&mut w, 2 * h, 2 * h + 1, z);
        }
        transpose8(&mut w);
        store8(p, 8 * g, 1, &w);
    }
}

/// The forward passes reversed, with the final scaling by `INVNTT_F` in the second.
#[target_feature(enable = "avx2")]
fn invntt_tomont(p: &mut DsaPoly) {
    for g in 0..4 {
        let mut w = load8(p, 8 * g, 1);
        transpose8(&mut w);
        for h in 0..4 {
            let z = load_v8(&INV.l1[g][h]);
            gs(&mut w, 2 * h, 2 * h + 1, z);
        }
        for h in 0..2 {
            let z = load_v8(&INV.l2[g][h]);
            for j in 4 * h..4 * h + 2 {
                gs(&mut w, j, j + 2, z);
            }
        }
        let z = load_v8(&INV.l4[g]);
        for j in 0..4 {
            gs(&mut w, j, j + 4, z);
        }
        transpose8(&mut w);
        for h in 0..4 {
            let z = _mm256_set1_epi32(zeta(false, 8, 4 * g + h));
            gs(&mut w, 2 * h, 2 * h + 1, z);
        }
        for h in 0..2 {
            let z = _mm256_set1_epi32(zeta(false, 16, 2 * g + h));
            for k in 4 * h..4 * h + 2 {
                gs(&mut w, k, k + 2, z);
            }
        }
        store8(p, 8 * g, 1, &w);
    }
    let f = _mm256_set1_epi32(INVNTT_F);
    for o in 0..4 {
        let mut w = load8(p, o, 4);
        for h in 0..4 {
            let z = _mm256_set1_epi32(zeta(false, 32, h));
            gs(&mut w, 2 * h, 2 * h + 1, z);
        }
        for h in 0..2 {
            let z = _mm256_set1_epi32(zeta(false, 64, h));
            for k in 4 * h..4 * h + 2 {
                gs(&mut w, k, k + 2, z);
            }
        }
        let z = _mm256_set1_epi32(zeta(false, 128, 0));
        for k in 0..4 {
            gs(&mut w, k, k + 4, z);
        }
        for x in w.iter_mut() {
            *x = montmul(f, *x);
        }
        store8(p, o, 4, &w);
    }
}

#[target_feature(enable = "avx2")]
fn pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
    for i in 0..N / 8 {
        store(r, i, montmul(load(a, i), load(b, i)));
    }
}

/// The 64-bit products of the even lanes and of the odd lanes are summed over the k terms and
/// reduced once: each |a·b| < q·2^31, so |sum| < k·q·2^31 (no overflow for k <= 7) and the
/// Montgomery reduction returns |c| < k·q/2 + q/2 <= k·q.
#[target_feature(enable = "avx2")]
fn pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
    debug_assert_eq!(a.len(), b.len());
    debug_assert!(a.len() <= 7);
    let q = _mm256_set1_epi32(Q);
    let qinv = _mm256_set1_epi32(QINV);
    for i in 0..N / 8 {
        let mut even = _mm256_setzero_si256();
        let mut odd = _mm256_setzero_si256();
        for (x, y) in a.iter().zip(b) {
            let (x, y) = (load(x, i), load(y, i));
            even = _mm256_add_epi64(even, _mm256_mul_epi32(x, y));
            odd = _mm256_add_epi64(
                odd,
                _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32)),
            );
        }
        let m0 = _mm256_mul_epi32(_mm256_mul_epi32(even, qinv), q);
        let m1 = _mm256_mul_epi32(_mm256_mul_epi32(odd, qinv), q);
        // The low halves agree, so the high half of p − m is hi(p) − hi(m).
        let r0 = _mm256_srli_epi64(_mm256_sub_epi32(even, m0), 32);
        let r1 = _mm256_sub_epi32(odd, m1);
        store(r, i, _mm256_blend_epi32(r0, r1, 0xaa));
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
fn reduce(p: &mut DsaPoly) {
    for i in 0..N / 8 {
        store(p, i, reduce32(load(p, i)));
    }
}

#[target_feature(enable = "avx2")]
fn caddq_poly(p: &mut DsaPoly) {
    for i in 0..N / 8 {
        store(p, i, caddq(load(p, i)));
    }
}

#[target_feature(enable = "avx2")]
fn add(r: &mut DsaPoly, a: &DsaPoly) {
    for i in 0..N / 8 {
        store(r, i, _mm256_add_epi32(load(r, i), load(a, i)));
    }
}

#[target_feature(enable = "avx2")]
fn sub(r: &mut DsaPoly, a: &DsaPoly) {
    for i in 0..N / 8 {
        store(r, i, _mm256_sub_epi32(load(r, i), load(a, i)));
    }
}

#[target_feature(enable = "avx2")]
fn shiftl(p: &mut DsaPoly) {
    for i in 0..N / 8 {
        store(p, i, _mm256_slli_epi32(load(p, i), D as i32));
    }
}

#[target_feature(enable = "avx2")]
fn power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly) {
    let round = _mm256_set1_epi32((1 << (D - 1)) - 1);
    for i in 0..N / 8 {
        let a = load(t, i);
        let hi = _mm256_srai_epi32(_mm256_add_epi32(a, round), D as i32);
        store(t1, i, hi);
        store(t0, i, _mm256_sub_epi32(a, _mm256_slli_epi32(hi, D as i32)));
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
fn decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
    for i in 0..N / 8 {
        let (a1, a0) = decompose32(load(w, i));
        store(w1, i, a1);
        store(w0, i, a0);
    }
}

#[target_feature(enable = "avx2")]
fn make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize {
    let g = _mm256_set1_epi32(GAMMA2);
    let ng = _mm256_set1_epi32(-GAMMA2);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi32(1);
    let mut count = zero;
    for i in 0..N / 8 {
        let x = load(a0, i);
        let y = load(a1, i);
        let above = _mm256_cmpgt_epi32(x, g);
        let below = _mm256_cmpgt_epi32(ng, x);
        let at = _mm256_cmpeq_epi32(x, ng);
        // `at` and not `y == 0`.
        let at_nonzero = _mm256_andnot_si256(_mm256_cmpeq_epi32(y, zero), at);
        let bit = _mm256_or_si256(_mm256_or_si256(above, below), at_nonzero);
        store(h, i, _mm256_and_si256(bit, one));
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
fn use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) {
    let one = _mm256_set1_epi32(1);
    let two = _mm256_set1_epi32(2);
    for i in 0..N / 8 {
        let (a1, a0) = decompose32(load(w, i));
        // +1 when a0 > 0, −1 otherwise; times the hint (0 or 1).
        let positive = _mm256_cmpgt_epi32(a0, _mm256_setzero_si256());
        let step = _mm256_sub_epi32(_mm256_and_si256(positive, two), one);
        let delta = _mm256_sign_epi32(load(h, i), step);
        let r = _mm256_and_si256(_mm256_add_epi32(a1, delta), _mm256_set1_epi32(15));
        store(w1, i, r);
    }
}

#[target_feature(enable = "avx2")]
fn chk(p: &DsaPoly, bound: i32) -> bool {
    let limit = _mm256_set1_epi32(bound - 1);
    let mut bad = _mm256_setzero_si256();
    for i in 0..N / 8 {
        let abs = _mm256_abs_epi32(load(p, i));
        bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(abs, limit));
    }
    _mm256_testz_si256(bad, bad) == 0
}

/// For each 8-bit mask of accepted lanes, the indices of those lanes in order (one byte each,
/// the rest zero): the compaction `vpermd` of `rej_uniform`.
static REJ_IDX: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut k, mut lane) = (0, 0);
        while lane < 8 {
            if (m >> lane) & 1 == 1 {
                t[m] |= (lane as u64) << (8 * k);
                k += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
};

/// RejNTTPoly's step on public data (the matrix seed): 24 bytes = eight 23-bit candidates
/// per round, compared with q, the accepted ones moved to the front by a table-driven
/// `vpermd` and stored at the running count. The tail (fewer than 32 bytes left, or fewer
/// than 8 free coefficients) is the portable loop.
#[target_feature(enable = "avx2")]
fn rej_uniform(p: &mut DsaPoly, mut filled: usize, bytes: &[u8]) -> usize {
    let spread = _mm256_setr_epi8(
        0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12,
        -1, 13, 14, 15, -1,
    );
    let low23 = _mm256_set1_epi32(0x7f_ffff);
    let q = _mm256_set1_epi32(Q);
    let mut pos = 0;
    while pos + 32 <= bytes.len() && filled + 8 <= N {
        let s = &bytes[pos..pos + 32];
        // SAFETY: `s` is 32 readable bytes; the load is unaligned.
        let raw = unsafe { _mm256_loadu_si256(s.as_ptr().cast()) };
        // Bytes 0..16 in the low lane, 8..24 in the high one; then 3 bytes per i32.
        let v = _mm256_permute4x64_epi64(raw, 0b10_01_01_00);
        let v = _mm256_and_si256(_mm256_shuffle_epi8(v, spread), low23);
        let good = _mm256_cmpgt_epi32(q, v);
        let mask = _mm256_movemask_ps(_mm256_castsi256_ps(good)) as usize;
        let idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(REJ_IDX[mask] as i64));
        let packed = _mm256_permutevar8x32_epi32(v, idx);
        let out = &mut p.c[filled..filled + 8];
        // SAFETY: `out` is 8 writable i32 values (32 bytes); the store is unaligned.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), packed) };
        filled += mask.count_ones() as usize;
        pos += 24;
    }
    crate::portable::dsa::encode::rej_uniform(p, filled, &bytes[pos..])
}

/// BitUnpack(z, γ1 − 1, γ1): 20 bytes = eight 20-bit values per vector, gathered three bytes
/// per lane by `vpshufb`, shifted by 0 or 4 bits, masked, and subtracted from γ1. The last
/// vector's bytes are copied to a 32-byte buffer so that the load stays in bounds.
#[target_feature(enable = "avx2")]
fn unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) {
    let spread = _mm256_setr_epi8(
        0, 1, 2, -1, 2, 3, 4, -1, 5, 6, 7, -1, 7, 8, 9, -1, 2, 3, 4, -1, 4, 5, 6, -1, 7, 8, 9, -1,
        9, 10, 11, -1,
    );
    let shifts = _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
    let low20 = _mm256_set1_epi32(0xf_ffff);
    let gamma1 = _mm256_set1_epi32(GAMMA1);
    let mut last = [0u8; 32];
    last[..20].copy_from_slice(&bytes[Z_BYTES - 20..]);
    for i in 0..N / 8 {
        let s = if i + 1 < N / 8 {
            &bytes[20 * i..20 * i + 32]
        } else {
            &last[..]
        };
        // SAFETY: `s` is 32 readable bytes; the load is unaligned.
        let raw = unsafe { _mm256_loadu_si256(s.as_ptr().cast()) };
        // Bytes 0..16 in the low lane, 8..24 in the high one.
        let v = _mm256_permute4x64_epi64(raw, 0b10_01_01_00);
        let v = _mm256_srlv_epi32(_mm256_shuffle_epi8(v, spread), shifts);
        store(p, i, _mm256_sub_epi32(gamma1, _mm256_and_si256(v, low20)));
    }
}

/// SimpleBitPack(w1, 4 bits): 32 coefficients to 32 bytes (`vpackssdw`, `vpackuswb`, one
/// `vpermd` back to order), then each pair of bytes to one (`vpmaddubsw` by 1 and 16).
#[target_feature(enable = "avx2")]
fn pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) {
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let weights = _mm256_set1_epi16(0x1001);
    for i in 0..N / 32 {
        let x = _mm256_packs_epi32(load(p, 4 * i), load(p, 4 * i + 1));
        let y = _mm256_packs_epi32(load(p, 4 * i + 2), load(p, 4 * i + 3));
        let b = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(x, y), order);
        let m = _mm256_maddubs_epi16(b, weights);
        let m = _mm256_permute4x64_epi64(_mm256_packus_epi16(m, m), 0b00_00_10_00);
        let o = &mut out[16 * i..16 * i + 16];
        // SAFETY: `o` is 16 writable bytes; the store is unaligned.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), _mm256_castsi256_si128(m)) };
    }
}

/// For `BITS`-bit values packed little-endian, eight per `BITS` bytes: the `vpshufb` indices
/// that gather the four bytes holding value i into lane i (the same 16 bytes are in both
/// 128-bit lanes), and the right shift that then aligns it.
struct Unpack8 {
    bytes: [i8; 32],
    shifts: [i32; 8],
}

const fn unpack8(bits: usize) -> Unpack8 {
    let mut u = Unpack8 {
        bytes: [0; 32],
        shifts: [0; 8],
    };
    let mut i = 0;
    while i < 8 {
        let start = bits * i / 8;
        let mut k = 0;
        while k < 4 {
            u.bytes[4 * (i % 4) + k + 16 * (i / 4)] = (start + k) as i8;
            k += 1;
        }
        u.shifts[i] = (bits * i % 8) as i32;
        i += 1;
    }
    u
}

/// Unpacks 256 `BITS`-bit values (BITS <= 13, so value i lies in bytes BITS·i/8 .. +4 of its
/// group's 16) and passes each vector of eight to `put(index, values)`.
#[target_feature(enable = "avx2")]
#[inline]
fn unpack_bits<const BITS: usize>(bytes: &[u8], mut put: impl FnMut(usize, __m256i)) {
    const { assert!(BITS <= 13) };
    let u = const { unpack8(BITS) };
    // SAFETY: `u.bytes` is 32 readable bytes; the load is unaligned.
    let spread = unsafe { _mm256_loadu_si256(u.bytes.as_ptr().cast()) };
    // SAFETY: `u.shifts` is 8 readable i32 values; the load is unaligned.
    let shifts = unsafe { _mm256_loadu_si256(u.shifts.as_ptr().cast()) };
    let mask = _mm256_set1_epi32((1 << BITS) - 1);
    // A copy with 16 bytes of slack, so that every group's 16-byte load is in bounds.
    let mut buf = [0u8; 32 * 13 + 16];
    buf[..bytes.len()].copy_from_slice(bytes);
    for i in 0..N / 8 {
        let s = &buf[BITS * i..BITS * i + 16];
        // SAFETY: `s` is 16 readable bytes; the load is unaligned.
        let raw = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
        let v = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(raw), spread);
        put(i, _mm256_and_si256(_mm256_srlv_epi32(v, shifts), mask));
    }
}

#[target_feature(enable = "avx2")]
fn unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) {
    unpack_bits::<10>(bytes, |i, v| store(p, i, v));
}

#[target_feature(enable = "avx2")]
fn unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) {
    let half = _mm256_set1_epi32(1 << (D - 1));
    unpack_bits::<13>(bytes, |i, v| store(p, i, _mm256_sub_epi32(half, v)));
}

/// η − v for each half-byte v; the flag from whether any v > 2η, with no branch on values.
#[target_feature(enable = "avx2")]
fn unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool {
    let eta = _mm256_set1_epi32(ETA);
    let two_eta = _mm256_set1_epi32(2 * ETA);
    let mut over = _mm256_setzero_si256();
    unpack_bits::<4>(bytes, |i, v| {
        over = _mm256_or_si256(over, _mm256_cmpgt_epi32(v, two_eta));
        store(p, i, _mm256_sub_epi32(eta, v));
    });
    _mm256_testz_si256(over, over) != 0
}

/// Packs 256 values of `BITS` bits (BITS <= 13, values already in range), eight per
/// `BITS` bytes, given as vectors by `get(index)`: adjacent lanes merged to 2·BITS bits per
/// 64-bit lane, adjacent 64-bit lanes to 4·BITS <= 52 bits per 128-bit lane, the two
/// halves joined in a u128.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_bits<const BITS: usize>(out: &mut [u8], get: impl Fn(usize) -> __m256i) {
    const { assert!(BITS <= 13) };
    let low32 = _mm256_set1_epi64x(0xffff_ffff);
    let by1 = _mm_cvtsi32_si128(BITS as i32);
    let by2 = _mm_cvtsi32_si128(2 * BITS as i32);
    for i in 0..N / 8 {
        let v = get(i);
        let pairs = _mm256_or_si256(
            _mm256_and_si256(v, low32),
            _mm256_sll_epi64(_mm256_srli_epi64(v, 32), by1),
        );
        let quads = _mm256_or_si256(pairs, _mm256_sll_epi64(_mm256_srli_si256(pairs, 8), by2));
        let x0 = _mm256_extract_epi64(quads, 0) as u64 as u128;
        let x1 = _mm256_extract_epi64(quads, 2) as u64 as u128;
        let packed = (x0 | x1 << (4 * BITS)).to_le_bytes();
        out[BITS * i..BITS * i + BITS].copy_from_slice(&packed[..BITS]);
    }
}

#[target_feature(enable = "avx2")]
fn pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) {
    pack_bits::<10>(out, |i| load(p, i));
}

#[target_feature(enable = "avx2")]
fn pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) {
    let half = _mm256_set1_epi32(1 << (D - 1));
    pack_bits::<13>(out, |i| _mm256_sub_epi32(half, load(p, i)));
}

#[target_feature(enable = "avx2")]
fn pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) {
    let eta = _mm256_set1_epi32(ETA);
    pack_bits::<4>(out, |i| _mm256_sub_epi32(eta, load(p, i)));
}

/// BitPack(z, γ1 − 1, γ1): γ1 − z per lane, adjacent lanes merged to 40 bits per 64-bit
/// lane, then two of those to 10 bytes in a u128.
#[target_feature(enable = "avx2")]
fn pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) {
    let gamma1 = _mm256_set1_epi32(GAMMA1);
    let low32 = _mm256_set1_epi64x(0xffff_ffff);
    for i in 0..N / 8 {
        let v = _mm256_sub_epi32(gamma1, load(p, i));
        let pairs = _mm256_or_si256(
            _mm256_and_si256(v, low32),
            _mm256_slli_epi64(_mm256_srli_epi64(v, 32), 20),
        );
        let mut x = [0u64; 4];
        // SAFETY: `x` is 32 writable bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(x.as_mut_ptr().cast(), pairs) };
        let lo = (x[0] as u128 | (x[1] as u128) << 40).to_le_bytes();
        let hi = (x[2] as u128 | (x[3] as u128) << 40).to_le_bytes();
        out[20 * i..20 * i + 10].copy_from_slice(&lo[..10]);
        out[20 * i + 10..20 * i + 20].copy_from_slice(&hi[..10]);
    }
}

// SAFETY (for every wrapper below): `Avx2` is only used through `dispatch::run!`, which
// selects it only when the CPU has AVX2.
impl DsaSimd for super::Avx2 {
    #[inline(always)]
    fn dsa_ntt(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { ntt(p) }
    }

    #[inline(always)]
    fn dsa_invntt_tomont(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { invntt_tomont(p) }
    }

    #[inline(always)]
    fn dsa_ntt_unpack(_p: &mut DsaPoly) {}

    #[inline(always)]
    fn dsa_pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { pointwise_montgomery(r, a, b) }
    }

    #[inline(always)]
    fn dsa_pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { pointwise_acc_montgomery(r, a, b) }
    }

    #[inline(always)]
    fn dsa_reduce(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { reduce(p) }
    }

    #[inline(always)]
    fn dsa_caddq(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { caddq_poly(p) }
    }

    #[inline(always)]
    fn dsa_add(r: &mut DsaPoly, a: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { add(r, a) }
    }

    #[inline(always)]
    fn dsa_sub(r: &mut DsaPoly, a: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { sub(r, a) }
    }

    #[inline(always)]
    fn dsa_shiftl(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { shiftl(p) }
    }

    #[inline(always)]
    fn dsa_power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { power2round(t1, t0, t) }
    }

    #[inline(always)]
    fn dsa_decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { decompose(w1, w0, w) }
    }

    #[inline(always)]
    fn dsa_make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { make_hint(h, a0, a1) }
    }

    #[inline(always)]
    fn dsa_use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { use_hint(w1, w, h) }
    }

    #[inline(always)]
    fn dsa_chk(p: &DsaPoly, bound: i32) -> bool {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { chk(p, bound) }
    }

    #[inline(always)]
    fn dsa_rej_uniform(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { rej_uniform(p, filled, bytes) }
    }

    #[inline(always)]
    fn dsa_rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
        crate::portable::dsa::encode::rej_eta(p, filled, bytes)
    }

    #[inline(always)]
    fn dsa_pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { pack_t1(p, out) }
    }

    #[inline(always)]
    fn dsa_unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { unpack_t1(p, bytes) }
    }

    #[inline(always)]
    fn dsa_pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { pack_t0(p, out) }
    }

    #[inline(always)]
    fn dsa_unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { unpack_t0(p, bytes) }
    }

    #[inline(always)]
    fn dsa_pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { pack_eta(p, out) }
    }

    #[inline(always)]
    fn dsa_unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { unpack_eta(p, bytes) }
    }

    #[inline(always)]
    fn dsa_pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { pack_z(p, out) }
    }

    #[inline(always)]
    fn dsa_unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { unpack_z(p, bytes) }
    }

    #[inline(always)]
    fn dsa_pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) {
        // SAFETY: see above; the CPU has AVX2.
        unsafe { pack_w1(p, out) }
    }
}

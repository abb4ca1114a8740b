//! ML-DSA's NTT, inverse NTT and pointwise products on 16 × i32 vectors (AVX-512F), and the
//! element-wise operations of the signing loop that gain from the wider vectors.
//!
//! # NTT-domain order
//!
//! The FIPS 204 order, as for `Avx2` and `Portable`: the same butterflies with the same
//! Montgomery arithmetic, so every output is bit-for-bit the portable one and
//! `dsa_ntt_unpack` stays a no-op.
//!
//! A polynomial is 16 vectors v[0..16] of 16 coefficients, all held in registers. The levels
//! at distances 128..16 coefficients (8..1 vectors) are butterflies between whole vectors with
//! one broadcast twiddle. For the four in-vector levels (distances 8, 4, 2, 1) each pair
//! (v[2j], v[2j + 1]) is rearranged into two vectors X and Y with Y[l] = X[l] + distance, so
//! that every butterfly is again between whole vectors, now with one twiddle per lane:
//!
//! ```text
//! distance 8: X = coefficients  0..8, 16..24                  (vshufi64x2)
//! distance 4: X =  0..4,  8..12, 16..20, 24..28               (masked vshufi64x2)
//! distance 2: X =  0, 1, 4, 5,  8, 9, 12, 13, ...             (vpunpck{l,h}qdq)
//! distance 1: X =  0, 2, 4, ..., 30                           (masked vpshufd)
//! ```
//!
//! (relative to 32j), then two `vpermt2d` back to the natural order. Each step between
//! distances is its own inverse, so the inverse NTT uses the same steps in reverse.
//!
//! # Montgomery multiplication
//!
//! `vpmuldq` multiplies the even lanes (and, after a 32-bit shift, the odd lanes) to 64 bits;
//! the reference code's `montgomery_reduce` follows on each product. By a known twiddle z the
//! factor t = lo32(b·z)·q^-1 is also lo32(b · (z·q^-1)), so with z·q^-1 precomputed the
//! products b·z and b·(z·q^-1) are independent and the chain is two multiplications deep,
//! not three. The low halves of b·z and t·q agree, so one 32-bit subtraction leaves the
//! result in the high halves, which a masked `vpshufd` merges into one vector.

use crate::mldsa::ops::{DsaPoly, GAMMA2, N, Q};
use crate::portable::dsa_arith::{INVNTT_F, QINV, ZETAS};
use core::arch::x86_64::*;

/// Sixteen i32 lanes, aligned for a 512-bit load.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct V16([i32; 16]);

/// A twiddle vector as the multiplication uses it: z and z·q^-1 for the even lanes, and the
/// same for the odd lanes moved down to the even positions (`vpmuldq` reads those only).
/// Loading four vectors is cheaper than shifting two: the shifts would compete with the
/// multiplications for ports, the loads do not.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct LaneTwiddle([V16; 4]);

/// The twiddle of block `b` at distance `len`: forward ZETAS[128/len + b], inverse
/// −ZETAS[256/len − 1 − b] (the blocks of the reference loops).
const fn zeta(forward: bool, len: usize, b: usize) -> i32 {
    if forward {
        ZETAS[128 / len + b]
    } else {
        -ZETAS[256 / len - 1 - b]
    }
}

/// The coefficient (relative to the pair's first, 0..32) in lane `l` of X at distance `len`
/// (module documentation); Y holds the coefficient `len` further.
const fn x_lane(len: usize, l: usize) -> usize {
    match len {
        8 => (l & 7) + 16 * (l >> 3),
        4 => (l & 3) + 8 * (l >> 2),
        2 => (l & 1) + 4 * ((l >> 1) & 1) + 8 * (l >> 2),
        _ => 2 * l,
    }
}

/// Per-lane twiddles of the in-vector levels: [level: distance 8, 4, 2, 1][pair j].
type LaneTwiddles = [[LaneTwiddle; 8]; 4];

const fn lane_twiddles(forward: bool) -> LaneTwiddles {
    let mut t = [[LaneTwiddle([V16([0; 16]); 4]); 8]; 4];
    let mut s = 0;
    while s < 4 {
        let len = 8 >> s;
        let mut j = 0;
        while j < 8 {
            let mut z = [0i32; 16];
            let mut l = 0;
            while l < 16 {
                z[l] = zeta(forward, len, (32 * j + x_lane(len, l)) / (2 * len));
                l += 1;
            }
            let w = &mut t[s][j].0;
            let mut l = 0;
            while l < 16 {
                let odd = z[l | 1];
                w[0].0[l] = z[l];
                w[1].0[l] = z[l].wrapping_mul(QINV);
                w[2].0[l] = odd;
                w[3].0[l] = odd.wrapping_mul(QINV);
                l += 1;
            }
            j += 1;
        }
        s += 1;
    }
    t
}

static FWD: LaneTwiddles = lane_twiddles(true);
static INV: LaneTwiddles = lane_twiddles(false);

/// `vpermt2d` indices from (X, Y) at distance 1 (evens, odds) to the natural order: the first
/// and the second 16 coefficients. `NATURAL_TO_X1` and `_Y1` are the way back.
static X1_TO_LO: V16 = V16([0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23]);
static X1_TO_HI: V16 = V16([8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31]);
static NATURAL_TO_X1: V16 = V16([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]);
static NATURAL_TO_Y1: V16 = V16([1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]);

#[derive(Clone, Copy)]
struct Twiddle {
    z0: __m512i,
    zq0: __m512i,
    z1: __m512i,
    zq1: __m512i,
}

/// The twiddles of the levels between whole vectors, as `[z, z·q^-1]`: forward, entry
/// 128/len + b (that of `ZETAS`); inverse, entry 256/len − 1 − b, negated, and entry 0 is
/// the final scaling `INVNTT_F`.
type ScalarTwiddles = [[i32; 2]; 16];

const fn scalar_twiddles(forward: bool) -> ScalarTwiddles {
    let mut t = [[0; 2]; 16];
    let mut i = 0;
    while i < 16 {
        let z = if i == 0 {
            INVNTT_F
        } else if forward {
            ZETAS[i]
        } else {
            -ZETAS[i]
        };
        t[i] = [z, z.wrapping_mul(QINV)];
        i += 1;
    }
    t
}

static FWD_SCALAR: ScalarTwiddles = scalar_twiddles(true);
static INV_SCALAR: ScalarTwiddles = scalar_twiddles(false);

/// Entry `i` of a [`ScalarTwiddles`] table in every lane. The callers pass the table through
/// `black_box`: when it knows the value of z·q^-1 (or of q^-1), LLVM turns the `vpmuldq` by it
/// into `vpmuludq` and adds a redundant 32-bit zero extension before the `vpmuldq` by q (two
/// more instructions per product).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn broadcast(t: &ScalarTwiddles, i: usize) -> Twiddle {
    let z0 = _mm512_set1_epi32(t[i][0]);
    let zq0 = _mm512_set1_epi32(t[i][1]);
    Twiddle {
        z0,
        zq0,
        z1: z0,
        zq1: zq0,
    }
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn load_v16(v: &V16) -> __m512i {
    // SAFETY: `v` is 64 readable bytes, 64-byte aligned.
    unsafe { _mm512_load_si512(v.0.as_ptr().cast()) }
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn lane_twiddle(t: &LaneTwiddle) -> Twiddle {
    Twiddle {
        z0: load_v16(&t.0[0]),
        zq0: load_v16(&t.0[1]),
        z1: load_v16(&t.0[2]),
        zq1: load_v16(&t.0[3]),
    }
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn load(p: &DsaPoly, i: usize) -> __m512i {
    let s = &p.c[16 * i..16 * i + 16];
    // SAFETY: `s` is 16 readable i32 values (64 bytes); the load is unaligned.
    unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn store(p: &mut DsaPoly, i: usize, v: __m512i) {
    let s = &mut p.c[16 * i..16 * i + 16];
    // SAFETY: `s` is 16 writable i32 values (64 bytes); the store is unaligned.
    unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
}

/// The high halves of the even-lane products `e` and the odd-lane products `o` (each as
/// 64-bit lanes) as one vector of 16 lanes.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn merge_high(e: __m512i, o: __m512i) -> __m512i {
    // Even lanes take e's odd lane above them (vpshufd 1, 1, 3, 3); odd lanes keep o.
    _mm512_mask_shuffle_epi32::<0xf5>(o, 0x5555, e)
}

/// `montgomery_reduce(b · z)` in every lane, for |b · z| < q · 2^31.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn montmul_tw(b: __m512i, w: &Twiddle) -> __m512i {
    let q = _mm512_set1_epi32(Q);
    let b1 = _mm512_srli_epi64::<32>(b);
    let p0 = _mm512_mul_epi32(b, w.z0);
    let t0 = _mm512_mul_epi32(b, w.zq0);
    let p1 = _mm512_mul_epi32(b1, w.z1);
    let t1 = _mm512_mul_epi32(b1, w.zq1);
    // The low halves agree, so the high half of p − t·q is hi(p) − hi(t·q).
    let e = _mm512_sub_epi32(p0, _mm512_mul_epi32(t0, q));
    let o = _mm512_sub_epi32(p1, _mm512_mul_epi32(t1, q));
    merge_high(e, o)
}

/// q^-1 mod 2^32 in every lane, hidden from LLVM for the reason given at [`broadcast`].
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn qinv_vector() -> __m512i {
    _mm512_set1_epi32(*core::hint::black_box(&QINV))
}

/// `montgomery_reduce(a · b)` in every lane, for |a · b| < q · 2^31.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn montmul(a: __m512i, b: __m512i, qinv: __m512i) -> __m512i {
    let q = _mm512_set1_epi32(Q);
    let p0 = _mm512_mul_epi32(a, b);
    let p1 = _mm512_mul_epi32(_mm512_srli_epi64::<32>(a), _mm512_srli_epi64::<32>(b));
    let m0 = _mm512_mul_epi32(_mm512_mul_epi32(p0, qinv), q);
    let m1 = _mm512_mul_epi32(_mm512_mul_epi32(p1, qinv), q);
    merge_high(_mm512_sub_epi32(p0, m0), _mm512_sub_epi32(p1, m1))
}

/// Forward (Cooley–Tukey) butterfly: `(a + z·b, a − z·b)`.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn ct(a: &mut __m512i, b: &mut __m512i, w: &Twiddle) {
    let t = montmul_tw(*b, w);
    *b = _mm512_sub_epi32(*a, t);
    *a = _mm512_add_epi32(*a, t);
}

/// Inverse (Gentleman–Sande) butterfly: `(a + b, z·(a − b))`, z the negated twiddle.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn gs(a: &mut __m512i, b: &mut __m512i, w: &Twiddle) {
    let d = _mm512_sub_epi32(*a, *b);
    *a = _mm512_add_epi32(*a, *b);
    *b = montmul_tw(d, w);
}

/// Runs `$body` with `$k` bound to 0, 1, ..., 7, written out: LLVM does not fully unroll
/// loops this large, and a loop indexing the polynomial's registers would keep them in memory.
macro_rules! unroll8 {
    ($k:ident => $body:block) => {{
        {
            let $k: usize = 0;
            $body
        }
        {
            let $k: usize = 1;
            $body
        }
        {
            let $k: usize = 2;
            $body
        }
        {
            let $k: usize = 3;
            $body
        }
        {
            let $k: usize = 4;
            $body
        }
        {
            let $k: usize = 5;
            $body
        }
        {
            let $k: usize = 6;
            $body
        }
        {
            let $k: usize = 7;
            $body
        }
    }};
}

/// One level at distance `D` vectors (16·D coefficients): butterfly k (0..8) is between v[i]
/// and v[i + D], i = 2D·(k / D) + k % D, with the broadcast twiddle of block k / D.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn level<const D: usize, const FORWARD: bool>(v: &mut [__m512i; 16], t: &ScalarTwiddles) {
    unroll8!(k => {
        let i = 2 * D * (k / D) + k % D;
        let w = if FORWARD {
            broadcast(t, 8 / D + k / D)
        } else {
            broadcast(t, 16 / D - 1 - k / D)
        };
        let (mut a, mut b) = (v[i], v[i + D]);
        if FORWARD {
            ct(&mut a, &mut b, &w);
        } else {
            gs(&mut a, &mut b, &w);
        }
        (v[i], v[i + D]) = (a, b);
    });
}

/// Natural order (A = coefficients 0..16, B = 16..32) ↔ (X, Y) at distance 8: 256-bit halves
/// exchanged. Its own inverse.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn swap8(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_shuffle_i64x2::<0x44>(a, b),
        _mm512_shuffle_i64x2::<0xee>(a, b),
    )
}

/// Distance 8 ↔ 4: the odd 128-bit blocks of X exchanged with the even ones of Y.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn swap4(x: __m512i, y: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_mask_shuffle_i64x2::<0xa0>(x, 0xcc, y, y),
        _mm512_mask_shuffle_i64x2::<0xf5>(y, 0x33, x, x),
    )
}

/// Distance 4 ↔ 2: the odd 64-bit blocks of X exchanged with the even ones of Y.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn swap2(x: __m512i, y: __m512i) -> (__m512i, __m512i) {
    (_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y))
}

/// Distance 2 ↔ 1: the odd lanes of X exchanged with the even ones of Y.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn swap1(x: __m512i, y: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_mask_shuffle_epi32::<0xa0>(x, 0xaaaa, y),
        _mm512_mask_shuffle_epi32::<0xf5>(y, 0x5555, x),
    )
}

/// Levels at distances 8 vectors down to 1 with broadcast twiddles, then per pair of vectors
/// the four in-vector levels, each pair stored when done.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(super) fn ntt(p: &mut DsaPoly) {
    let mut v = [_mm512_setzero_si512(); 16];
    for (i, x) in v.iter_mut().enumerate() {
        *x = load(p, i);
    }
    let t = core::hint::black_box(&FWD_SCALAR);
    level::<8, true>(&mut v, t);
    level::<4, true>(&mut v, t);
    level::<2, true>(&mut v, t);
    level::<1, true>(&mut v, t);
    let lo = load_v16(&X1_TO_LO);
    let hi = load_v16(&X1_TO_HI);
    unroll8!(j => {
        let t = &FWD;
        let (mut x, mut y) = swap8(v[2 * j], v[2 * j + 1]);
        ct(&mut x, &mut y, &lane_twiddle(&t[0][j]));
        let (mut x, mut y) = swap4(x, y);
        ct(&mut x, &mut y, &lane_twiddle(&t[1][j]));
        let (mut x, mut y) = swap2(x, y);
        ct(&mut x, &mut y, &lane_twiddle(&t[2][j]));
        let (mut x, mut y) = swap1(x, y);
        ct(&mut x, &mut y, &lane_twiddle(&t[3][j]));
        store(p, 2 * j, _mm512_permutex2var_epi32(x, lo, y));
        store(p, 2 * j + 1, _mm512_permutex2var_epi32(x, hi, y));
    });
}

/// The forward steps reversed, then the scaling by `INVNTT_F` (as its own multiplication, as
/// the portable code does, so that the result is bit-for-bit the same).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(super) fn invntt_tomont(p: &mut DsaPoly) {
    let mut v = [_mm512_setzero_si512(); 16];
    let ex = load_v16(&NATURAL_TO_X1);
    let ey = load_v16(&NATURAL_TO_Y1);
    unroll8!(j => {
        let t = &INV;
        let (a, b) = (load(p, 2 * j), load(p, 2 * j + 1));
        let mut x = _mm512_permutex2var_epi32(a, ex, b);
        let mut y = _mm512_permutex2var_epi32(a, ey, b);
        gs(&mut x, &mut y, &lane_twiddle(&t[3][j]));
        let (mut x, mut y) = swap1(x, y);
        gs(&mut x, &mut y, &lane_twiddle(&t[2][j]));
        let (mut x, mut y) = swap2(x, y);
        gs(&mut x, &mut y, &lane_twiddle(&t[1][j]));
        let (mut x, mut y) = swap4(x, y);
        gs(&mut x, &mut y, &lane_twiddle(&t[0][j]));
        (v[2 * j], v[2 * j + 1]) = swap8(x, y);
    });
    let t = core::hint::black_box(&INV_SCALAR);
    level::<1, false>(&mut v, t);
    level::<2, false>(&mut v, t);
    level::<4, false>(&mut v, t);
    level::<8, false>(&mut v, t);
    let f = broadcast(t, 0);
    // Written out: as a loop, LLVM keeps `v` in memory.
    unroll8!(k => {
        store(p, k, montmul_tw(v[k], &f));
        store(p, k + 8, montmul_tw(v[k + 8], &f));
    });
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(super) fn pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
    let qinv = qinv_vector();
    for i in 0..N / 16 {
        store(r, i, montmul(load(a, i), load(b, i), qinv));
    }
}

/// As `Avx2`'s: the 64-bit products of the even lanes and of the odd lanes are summed over the
/// k terms and reduced once: each |a·b| < q·2^31, so |sum| < k·q·2^31 (no overflow for
/// k <= 7) and the Montgomery reduction returns |c| < k·q/2 + q/2 <= k·q.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(super) fn pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
    debug_assert_eq!(a.len(), b.len());
    debug_assert!(a.len() <= 7);
    let q = _mm512_set1_epi32(Q);
    let qinv = qinv_vector();
    for i in 0..N / 16 {
        let mut even = _mm512_setzero_si512();
        let mut odd = _mm512_setzero_si512();
        for (x, y) in a.iter().zip(b) {
            let (x, y) = (load(x, i), load(y, i));
            even = _mm512_add_epi64(even, _mm512_mul_epi32(x, y));
            odd = _mm512_add_epi64(
                odd,
                _mm512_mul_epi32(_mm512_srli_epi64::<32>(x), _mm512_srli_epi64::<32>(y)),
            );
        }
        let m0 = _mm512_mul_epi32(_mm512_mul_epi32(even, qinv), q);
        let m1 = _mm512_mul_epi32(_mm512_mul_epi32(odd, qinv), q);
        let e = _mm512_sub_epi32(even, m0);
        let o = _mm512_sub_epi32(odd, m1);
        store(r, i, merge_high(e, o));
    }
}

// Element-wise operations: the AVX2 implementation's arithmetic on twice the lanes, with
// AVX-512 compare masks in place of sign-bit masks where that saves instructions. Only those
// that measured faster than `Avx2`'s (add, sub, chk and make_hint did not, by more than the
// noise: they are bound by loads and stores, not arithmetic).

/// `a − round(a / 2^23) · q`, q = 2^23 − 2^13 + 1 multiplied by shifts (as `Avx2`).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(super) fn reduce(p: &mut DsaPoly) {
    for i in 0..N / 16 {
        let a = load(p, i);
        let t = _mm512_srai_epi32::<23>(_mm512_add_epi32(a, _mm512_set1_epi32(1 << 22)));
        let tq = _mm512_add_epi32(
            _mm512_sub_epi32(_mm512_slli_epi32::<23>(t), _mm512_slli_epi32::<13>(t)),
            t,
        );
        store(p, i, _mm512_sub_epi32(a, tq));
    }
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(super) fn caddq(p: &mut DsaPoly) {
    let q = _mm512_set1_epi32(Q);
    for i in 0..N / 16 {
        let a = load(p, i);
        let negative = _mm512_cmplt_epi32_mask(a, _mm512_setzero_si512());
        store(p, i, _mm512_mask_add_epi32(a, negative, a, q));
    }
}

/// Decompose for γ2 = (q − 1)/32 (the reference code's arithmetic, as `Avx2`).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(super) fn decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
    for i in 0..N / 16 {
        let a = load(w, i);
        let mut a1 = _mm512_srai_epi32::<7>(_mm512_add_epi32(a, _mm512_set1_epi32(127)));
        // a1 < 2^16, so a1 · 1025 + 2^21 < 2^31.
        a1 = _mm512_srai_epi32::<22>(_mm512_add_epi32(
            _mm512_mullo_epi32(a1, _mm512_set1_epi32(1025)),
            _mm512_set1_epi32(1 << 21),
        ));
        a1 = _mm512_and_si512(a1, _mm512_set1_epi32(15));
        let a0 = _mm512_sub_epi32(a, _mm512_mullo_epi32(a1, _mm512_set1_epi32(2 * GAMMA2)));
        let above = _mm512_cmpgt_epi32_mask(a0, _mm512_set1_epi32((Q - 1) / 2));
        store(w1, i, a1);
        store(
            w0,
            i,
            _mm512_mask_sub_epi32(a0, above, a0, _mm512_set1_epi32(Q)),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::avx2::Avx2;
    use crate::conformance::Rng;
    use crate::dispatch::Implementation;
    use crate::mldsa::ops::{DsaPoly, DsaSimd, Q};
    use crate::portable::Portable;

    /// Coefficients in [-bound, bound], every fourth polynomial only ±bound.
    fn poly(rng: &mut Rng, bound: i32) -> DsaPoly {
        let extreme = rng.next().is_multiple_of(4);
        let mut p = DsaPoly::ZERO;
        for c in p.c.iter_mut() {
            let r = rng.next();
            *c = if extreme {
                if r & 1 == 0 { bound } else { -bound }
            } else {
                // In i64: 2·bound may exceed i32 (reduce's input range).
                ((r % (2 * bound as u64 + 1)) as i64 - bound as i64) as i32
            };
        }
        p
    }

    /// The conformance tests compare values mod q (the trait allows other orders and
    /// representatives); this implementation promises more: the very same coefficients as
    /// `Portable` (transforms, `dsa_pointwise_montgomery`, `dsa_reduce`) and `Avx2` (the
    /// accumulating product, which reduces once per sum). caddq and decompose are compared
    /// exactly there already.
    #[test]
    fn bit_for_bit_as_portable_and_avx2() {
        if !crate::available().contains(&Implementation::Avx512) {
            return;
        }
        let mut rng = Rng::new(0x4156_5835_3132);
        for round in 0..500 {
            let p = poly(&mut rng, Q - 1);
            let (mut a, mut b) = (p.clone(), p);
            // SAFETY: the CPU has AVX2, AVX-512F and AVX-512VL (`available` checked).
            unsafe { super::ntt(&mut a) };
            Portable::dsa_ntt(&mut b);
            assert_eq!(a.c, b.c, "dsa_ntt");

            let p = poly(&mut rng, 6283009);
            let (mut a, mut b) = (p.clone(), p);
            // SAFETY: as above.
            unsafe { super::invntt_tomont(&mut a) };
            Portable::dsa_invntt_tomont(&mut b);
            assert_eq!(a.c, b.c, "dsa_invntt_tomont");

            // |x·y| < 9q² < q·2^31: NTT outputs times values below q.
            let k = 1 + round % 7;
            let x: Vec<DsaPoly> = (0..k).map(|_| poly(&mut rng, Q - 1)).collect();
            let y: Vec<DsaPoly> = (0..k).map(|_| poly(&mut rng, 9 * Q - 1)).collect();
            let (mut a, mut b) = (DsaPoly::ZERO, DsaPoly::ZERO);
            // SAFETY: as above.
            unsafe { super::pointwise_montgomery(&mut a, &x[0], &y[0]) };
            Portable::dsa_pointwise_montgomery(&mut b, &x[0], &y[0]);
            assert_eq!(a.c, b.c, "dsa_pointwise_montgomery");
            // SAFETY: as above.
            unsafe { super::pointwise_acc_montgomery(&mut a, &x, &y) };
            Avx2::dsa_pointwise_acc_montgomery(&mut b, &x, &y);
            assert_eq!(a.c, b.c, "dsa_pointwise_acc_montgomery");

            // The whole input range of reduce: c <= 2^31 − 2^22 − 1.
            let mut p = poly(&mut rng, i32::MAX - (1 << 22));
            p.c[round % 256] = i32::MIN;
            let (mut a, mut b) = (p.clone(), p);
            // SAFETY: as above.
            unsafe { super::reduce(&mut a) };
            Portable::dsa_reduce(&mut b);
            assert_eq!(a.c, b.c, "dsa_reduce");
        }
    }
}

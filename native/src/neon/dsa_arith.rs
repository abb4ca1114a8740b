//! NEON arithmetic modulo q = 8380417 for ML-DSA, four coefficients per `int32x4_t`: the NTT,
//! its inverse, the pointwise products and the element-wise and rounding operations.
//!
//! The NTT-domain order is the portable one (FIPS 204's), so `dsa_ntt_unpack` has nothing to
//! do. Multiplications by the NTT's constants use the 32-bit form of the Barrett
//! multiplication of Becker, Hwang, Kannwischer, Yang and Yang ("Neon NTT", TCHES 2022): for
//! a constant z and its twist t = round(z · 2^31 / q), `a·z − sqrdmulh(a, t)·q` (mul,
//! sqrdmulh, mls) is a·z mod q with |result| < q for any |a| < 2^31. The constants are the
//! plain powers of ζ (not in Montgomery form), so the results are congruent to the portable
//! ones. The single pointwise product is a Montgomery multiplication with the portable result
//! exactly: sqdmulh(a, b) and sqdmulh(a·b·q^-1, q) have the same low halves, so half their
//! difference (shsub) is (a·b − m·q) / 2^32. The sum of products is accumulated in 64-bit
//! lanes and reduced once (congruent to the portable sum, not equal).
//!
//! Each NTT makes two passes over memory: layers len 128 to 16 on sixteen vectors at distance
//! 16, then per 16-coefficient block layers len 8 and 4, a transpose in registers to `ld4`'s
//! layout (coefficient 4l + i of the block in lane l of vector i: pairs at distance 2 are then
//! vectors (0, 2) and (1, 3), at distance 1 vectors (0, 1) and (2, 3)) and layers len 2 and 1.
//! The inverse runs the same passes backwards.

use super::vector::{load_s32, store_s32};
use crate::mldsa::ops::{D, DsaPoly, GAMMA2, N, Q};
use crate::portable::dsa_arith::QINV;
use crate::portable::modmath;
use core::arch::aarch64::*;

// ---------------------------------------------------------------------------------------
// Constants.

const fn pow_mod(base: i64, exp: u32) -> i64 {
    modmath::pow_mod(base, exp, Q as i64)
}

/// The representative of `a` mod q in (−q/2, q/2].
const fn centered(a: i64) -> i32 {
    modmath::centered(a, Q as i64) as i32
}

const fn bitrev8(i: usize) -> u32 {
    modmath::bitrev(i, 8)
}

/// ζ^BitRev8(k), plain, centered.
const fn zeta(k: usize) -> i32 {
    centered(pow_mod(1753, bitrev8(k)))
}

/// round(z · 2^31 / q), the Barrett twist of z (|z| <= q/2, so |twist| <= 2^30).
const fn twist(z: i32) -> i32 {
    let q = Q as i64;
    ((z as i64 * (1i64 << 32) + q).div_euclid(2 * q)) as i32
}

/// A constant and its twist.
#[derive(Clone, Copy)]
struct Tw1 {
    z: i32,
    t: i32,
}

const fn tw1(z: i32) -> Tw1 {
    Tw1 { z, t: twist(z) }
}

/// Four lanes of constants and their twists.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Tw4 {
    z: [i32; 4],
    t: [i32; 4],
}

const fn tw4(z: [i32; 4]) -> Tw4 {
    Tw4 {
        z,
        t: [twist(z[0]), twist(z[1]), twist(z[2]), twist(z[3])],
    }
}

/// Forward layers len 2 and len 1 for the 16-coefficient block g: [len 2, len 1 for vectors
/// (0, 1), len 1 for vectors (2, 3)], lane l.
const FWD_78: [[Tw4; 3]; 16] = {
    let mut out = [[tw4([0; 4]); 3]; 16];
    let mut g = 0;
    while g < 16 {
        let mut z = [[0i32; 4]; 3];
        let mut l = 0;
        while l < 4 {
            z[0][l] = zeta(64 + 4 * g + l);
            z[1][l] = zeta(128 + 8 * g + 2 * l);
            z[2][l] = zeta(128 + 8 * g + 2 * l + 1);
            l += 1;
        }
        out[g] = [tw4(z[0]), tw4(z[1]), tw4(z[2])];
        g += 1;
    }
    out
};

/// ζ_k for k = 1..16, four to a vector (lane k mod 4 of vector k / 4; k = 0 unused), for
/// the layers len 128 to 16, whose butterflies multiply by a lane: every such constant stays
/// in eight registers for the whole pass.
const HIGH: [Tw4; 4] = {
    let mut out = [tw4([0; 4]); 4];
    let mut i = 0;
    while i < 4 {
        let mut z = [0i32; 4];
        let mut l = 0;
        while l < 4 {
            if 4 * i + l > 0 {
                z[l] = zeta(4 * i + l);
            }
            l += 1;
        }
        out[i] = tw4(z);
        i += 1;
    }
    out
};

/// Forward layers len 8 and len 4 for the 16-coefficient block g: lanes [ζ_(16+g),
/// ζ_(32+2g), ζ_(33+2g), unused].
const FWD_84: [Tw4; 16] = {
    let mut out = [tw4([0; 4]); 16];
    let mut g = 0;
    while g < 16 {
        out[g] = tw4([zeta(16 + g), zeta(32 + 2 * g), zeta(33 + 2 * g), 0]);
        g += 1;
    }
    out
};

/// Inverse layers len 4 and len 8 for the 16-coefficient block g: lanes [ζ_(63−2g),
/// ζ_(62−2g), ζ_(31−g), unused].
const INV_48: [Tw4; 16] = {
    let mut out = [tw4([0; 4]); 16];
    let mut g = 0;
    while g < 16 {
        out[g] = tw4([zeta(63 - 2 * g), zeta(62 - 2 * g), zeta(31 - g), 0]);
        g += 1;
    }
    out
};

/// Inverse layers len 1 and len 2 for the 16-coefficient block g: [len 1 for vectors (0, 1),
/// len 1 for vectors (2, 3), len 2], lane l.
const INV_12: [[Tw4; 3]; 16] = {
    let mut out = [[tw4([0; 4]); 3]; 16];
    let mut g = 0;
    while g < 16 {
        let mut z = [[0i32; 4]; 3];
        let mut l = 0;
        while l < 4 {
            z[0][l] = zeta(255 - (8 * g + 2 * l));
            z[1][l] = zeta(255 - (8 * g + 2 * l + 1));
            z[2][l] = zeta(127 - (4 * g + l));
            l += 1;
        }
        out[g] = [tw4(z[0]), tw4(z[1]), tw4(z[2])];
        g += 1;
    }
    out
};

/// R / 256 mod q: with the plain constants, the inverse NTT's scaling by 256^-1 and its
/// factor R (the portable INVNTT_F without one R).
const F: i32 = centered(pow_mod(2, 32) * pow_mod(256, Q as u32 - 2));

/// The inverse layer len 128 merged with the scaling: sums times F, differences times ζ_1·F.
const INV_LAST: [Tw1; 2] = [tw1(F), tw1(centered(zeta(1) as i64 * F as i64))];

// ---------------------------------------------------------------------------------------
// Helpers.

#[inline(always)]
fn dup(x: i32) -> int32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { vdupq_n_s32(x) }
}

#[inline(always)]
fn load_tw(t: &Tw4) -> (int32x4_t, int32x4_t) {
    (load_s32(&t.z), load_s32(&t.t))
}

/// a · z mod q for per-lane constants z (twists t); |result| < q for |a| < 2^31.
#[inline(always)]
fn bmul(a: int32x4_t, z: int32x4_t, t: int32x4_t) -> int32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let h = vqrdmulhq_s32(a, t);
        let l = vmulq_s32(a, z);
        vmlsq_s32(l, h, vdupq_n_s32(Q))
    }
}

/// Cooley-Tukey butterfly: (a + b·z, a − b·z).
#[inline(always)]
fn ct(a: int32x4_t, b: int32x4_t, z: int32x4_t, t: int32x4_t) -> (int32x4_t, int32x4_t) {
    let m = bmul(b, z, t);
    // SAFETY: NEON is baseline on aarch64.
    unsafe { (vaddq_s32(a, m), vsubq_s32(a, m)) }
}

/// Gentleman-Sande butterfly: (a + b, (b − a)·z).
#[inline(always)]
fn gs(a: int32x4_t, b: int32x4_t, z: int32x4_t, t: int32x4_t) -> (int32x4_t, int32x4_t) {
    // SAFETY: NEON is baseline on aarch64.
    let (s, d) = unsafe { (vaddq_s32(a, b), vsubq_s32(b, a)) };
    (s, bmul(d, z, t))
}

/// [`bmul`] by lane `L` of the constants `z` (twists `t`): the same products, with up to four
/// constants in one register and no broadcast.
#[inline(always)]
fn bmul_lane<const L: i32>(a: int32x4_t, z: int32x4_t, t: int32x4_t) -> int32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let h = vqrdmulhq_laneq_s32::<L>(a, t);
        let l = vmulq_laneq_s32::<L>(a, z);
        vmlsq_s32(l, h, vdupq_n_s32(Q))
    }
}

#[inline(always)]
fn ct_lane<const L: i32>(
    a: int32x4_t,
    b: int32x4_t,
    z: int32x4_t,
    t: int32x4_t,
) -> (int32x4_t, int32x4_t) {
    let m = bmul_lane::<L>(b, z, t);
    // SAFETY: NEON is baseline on aarch64.
    unsafe { (vaddq_s32(a, m), vsubq_s32(a, m)) }
}

#[inline(always)]
fn gs_lane<const L: i32>(
    a: int32x4_t,
    b: int32x4_t,
    z: int32x4_t,
    t: int32x4_t,
) -> (int32x4_t, int32x4_t) {
    // SAFETY: NEON is baseline on aarch64.
    let (s, d) = unsafe { (vaddq_s32(a, b), vsubq_s32(b, a)) };
    (s, bmul_lane::<L>(d, z, t))
}

/// a · b · 2^-32 mod q, exactly the portable `montgomery_reduce(a · b)`, for |a·b| < q·2^31.
#[inline(always)]
fn montmul(a: int32x4_t, b: int32x4_t) -> int32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let hi = vqdmulhq_s32(a, b);
        let m = vmulq_s32(vmulq_s32(a, b), vdupq_n_s32(QINV));
        let t = vqdmulhq_s32(m, vdupq_n_s32(Q));
        vhsubq_s32(hi, t)
    }
}

// ---------------------------------------------------------------------------------------
// NTT.

/// Cooley-Tukey butterfly of x[i] and x[j] by ζ_k from [`HIGH`] (in `z`, `t`).
macro_rules! ct_k {
    ($x:ident, $z:ident, $t:ident; $($i:expr, $j:expr, $k:literal);* $(;)?) => {$(
        let (a, b) = ct_lane::<{ $k % 4 }>($x[$i], $x[$j], $z[$k / 4], $t[$k / 4]);
        $x[$i] = a;
        $x[$j] = b;
    )*};
}

/// Gentleman-Sande butterfly of x[i] and x[j] by ζ_k from [`HIGH`].
macro_rules! gs_k {
    ($x:ident, $z:ident, $t:ident; $($i:expr, $j:expr, $k:literal);* $(;)?) => {$(
        let (a, b) = gs_lane::<{ $k % 4 }>($x[$i], $x[$j], $z[$k / 4], $t[$k / 4]);
        $x[$i] = a;
        $x[$j] = b;
    )*};
}

/// The constants of [`HIGH`] in eight registers. Through `black_box`, so that the compiler
/// cannot see their values and turn each lane product back into a broadcast constant (sixteen
/// more registers than there are, spilled).
#[inline(always)]
fn high() -> ([int32x4_t; 4], [int32x4_t; 4]) {
    let h = core::hint::black_box(&HIGH);
    (h.map(|w| load_s32(&w.z)), h.map(|w| load_s32(&w.t)))
}

/// Four coefficients at offsets j, j + 16, …, j + 240 of `a`, one vector each.
#[inline(always)]
fn load_column(a: &[i32; N], j: usize) -> [int32x4_t; 16] {
    let mut x = [dup(0); 16];
    for (m, v) in x.iter_mut().enumerate() {
        *v = load_s32(&a[j + 16 * m..]);
    }
    x
}

#[inline(always)]
fn store_column(a: &mut [i32; N], j: usize, x: &[int32x4_t; 16]) {
    for (m, v) in x.iter().enumerate() {
        store_s32(&mut a[j + 16 * m..], *v);
    }
}

/// The 4x4 transpose of 32-bit lanes: between vector i holding coefficients 4i..4i+3 of a
/// 16-coefficient block and vector i holding coefficients i, 4 + i, 8 + i, 12 + i (`ld4`'s
/// layout). Its own inverse.
#[inline(always)]
fn transpose(v: [int32x4_t; 4]) -> [int32x4_t; 4] {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let t0 = vtrn1q_s32(v[0], v[1]);
        let t1 = vtrn2q_s32(v[0], v[1]);
        let t2 = vtrn1q_s32(v[2], v[3]);
        let t3 = vtrn2q_s32(v[2], v[3]);
        let (t0, t1) = (vreinterpretq_s64_s32(t0), vreinterpretq_s64_s32(t1));
        let (t2, t3) = (vreinterpretq_s64_s32(t2), vreinterpretq_s64_s32(t3));
        [
            vreinterpretq_s32_s64(vtrn1q_s64(t0, t2)),
            vreinterpretq_s32_s64(vtrn1q_s64(t1, t3)),
            vreinterpretq_s32_s64(vtrn2q_s64(t0, t2)),
            vreinterpretq_s32_s64(vtrn2q_s64(t1, t3)),
        ]
    }
}

/// Two passes over memory: layers len 128 to 16 on sixteen vectors at distance 16 (their
/// fifteen constants in registers), then per 16-coefficient block layers len 8 and 4, a
/// transpose in registers and layers len 2 and 1, stored back interleaved by `st4`.
pub(super) fn ntt(p: &mut DsaPoly) {
    let a = &mut p.c;
    let (z, t) = high();
    for j in (0..16).step_by(4) {
        let mut x = load_column(a, j);
        ct_k!(x, z, t; 0, 8, 1; 1, 9, 1; 2, 10, 1; 3, 11, 1; 4, 12, 1; 5, 13, 1; 6, 14, 1; 7, 15, 1);
        ct_k!(x, z, t; 0, 4, 2; 1, 5, 2; 2, 6, 2; 3, 7, 2; 8, 12, 3; 9, 13, 3; 10, 14, 3; 11, 15, 3);
        ct_k!(x, z, t; 0, 2, 4; 1, 3, 4; 4, 6, 5; 5, 7, 5; 8, 10, 6; 9, 11, 6; 12, 14, 7; 13, 15, 7);
        ct_k!(x, z, t; 0, 1, 8; 2, 3, 9; 4, 5, 10; 6, 7, 11; 8, 9, 12; 10, 11, 13; 12, 13, 14; 14, 15, 15);
        store_column(a, j, &x);
    }
    for (g, (tw, last)) in FWD_84.iter().zip(&FWD_78).enumerate() {
        let block: &mut [i32; 16] = (&mut a[16 * g..16 * g + 16]).try_into().expect("16");
        // SAFETY: reads 16 i32 from a reference to 16 i32; NEON is baseline on aarch64.
        let v = unsafe { vld1q_s32_x4(block.as_ptr()) };
        let (z, t) = load_tw(tw);
        let (x0, x2) = ct_lane::<0>(v.0, v.2, z, t);
        let (x1, x3) = ct_lane::<0>(v.1, v.3, z, t);
        let (x0, x1) = ct_lane::<1>(x0, x1, z, t);
        let (x2, x3) = ct_lane::<2>(x2, x3, z, t);
        let [x0, x1, x2, x3] = transpose([x0, x1, x2, x3]);
        let (z, t) = load_tw(&last[0]);
        let (x0, x2) = ct(x0, x2, z, t);
        let (x1, x3) = ct(x1, x3, z, t);
        let (z, t) = load_tw(&last[1]);
        let (x0, x1) = ct(x0, x1, z, t);
        let (z, t) = load_tw(&last[2]);
        let (x2, x3) = ct(x2, x3, z, t);
        // SAFETY: writes 16 i32 through a reference to 16 i32; NEON is baseline on aarch64.
        unsafe { vst4q_s32(block.as_mut_ptr(), int32x4x4_t(x0, x1, x2, x3)) };
    }
}

/// The forward passes in reverse: per 16-coefficient block layers len 1 and 2 (loaded by
/// `ld4`), a transpose and layers len 4 and 8; then layers len 16 to 128 on sixteen vectors
/// at distance 16, the last merged with the scaling (its differences' constant includes F).
pub(super) fn invntt_tomont(p: &mut DsaPoly) {
    let a = &mut p.c;
    for (g, (first, tw)) in INV_12.iter().zip(&INV_48).enumerate() {
        let block: &mut [i32; 16] = (&mut a[16 * g..16 * g + 16]).try_into().expect("16");
        // SAFETY: reads 16 i32 from a reference to 16 i32; NEON is baseline on aarch64.
        let v = unsafe { vld4q_s32(block.as_ptr()) };
        let (z, t) = load_tw(&first[0]);
        let (x0, x1) = gs(v.0, v.1, z, t);
        let (z, t) = load_tw(&first[1]);
        let (x2, x3) = gs(v.2, v.3, z, t);
        let (z, t) = load_tw(&first[2]);
        let (x0, x2) = gs(x0, x2, z, t);
        let (x1, x3) = gs(x1, x3, z, t);
        let [x0, x1, x2, x3] = transpose([x0, x1, x2, x3]);
        let (z, t) = load_tw(tw);
        let (x0, x1) = gs_lane::<0>(x0, x1, z, t);
        let (x2, x3) = gs_lane::<1>(x2, x3, z, t);
        let (x0, x2) = gs_lane::<2>(x0, x2, z, t);
        let (x1, x3) = gs_lane::<2>(x1, x3, z, t);
        // SAFETY: writes 16 i32 through a reference to 16 i32; NEON is baseline on aarch64.
        unsafe { vst1q_s32_x4(block.as_mut_ptr(), int32x4x4_t(x0, x1, x2, x3)) };
    }
    let (z, t) = high();
    let (fz, ft) = (dup(INV_LAST[0].z), dup(INV_LAST[0].t));
    let (gz, gt) = (dup(INV_LAST[1].z), dup(INV_LAST[1].t));
    for j in (0..16).step_by(4) {
        let mut x = load_column(a, j);
        gs_k!(x, z, t; 0, 1, 15; 2, 3, 14; 4, 5, 13; 6, 7, 12; 8, 9, 11; 10, 11, 10; 12, 13, 9; 14, 15, 8);
        gs_k!(x, z, t; 0, 2, 7; 1, 3, 7; 4, 6, 6; 5, 7, 6; 8, 10, 5; 9, 11, 5; 12, 14, 4; 13, 15, 4);
        gs_k!(x, z, t; 0, 4, 3; 1, 5, 3; 2, 6, 3; 3, 7, 3; 8, 12, 2; 9, 13, 2; 10, 14, 2; 11, 15, 2);
        for m in 0..8 {
            let (s, d) = gs(x[m], x[m + 8], gz, gt);
            x[m] = bmul(s, fz, ft);
            x[m + 8] = d;
        }
        store_column(a, j, &x);
    }
}

/// The NTT domain is in FIPS 204's order, as sampled: nothing to reorder.
pub(super) fn ntt_unpack(_p: &mut DsaPoly) {}

// ---------------------------------------------------------------------------------------
// Pointwise products.

pub(super) fn pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
    for i in (0..N).step_by(4) {
        store_s32(
            &mut r.c[i..],
            montmul(load_s32(&a.c[i..]), load_s32(&b.c[i..])),
        );
    }
}

/// The products are summed exactly in 64-bit lanes (each |a·b| < q·2^31, so a sum of k < 2^32/q
/// of them fits), then reduced once: m = low half · q^-1 mod 2^32, (sum − m·q) / 2^32. That
/// is congruent to the portable sum of reduced products and below (k + 1)·q/2, and takes two
/// multiply-accumulates per product instead of a Montgomery multiplication's five steps.
pub(super) fn pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
    assert_eq!(a.len(), b.len());
    debug_assert!(a.len() <= 64);
    // SAFETY (for the block): NEON is baseline on aarch64.
    unsafe {
        let (q, qinv) = (dup(Q), dup(QINV));
        for i in (0..N).step_by(4) {
            let (mut lo, mut hi) = (vdupq_n_s64(0), vdupq_n_s64(0));
            for (x, y) in a.iter().zip(b) {
                let (x, y) = (load_s32(&x.c[i..]), load_s32(&y.c[i..]));
                lo = vmlal_s32(lo, vget_low_s32(x), vget_low_s32(y));
                hi = vmlal_high_s32(hi, x, y);
            }
            let low = vuzp1q_s32(vreinterpretq_s32_s64(lo), vreinterpretq_s32_s64(hi));
            let m = vmulq_s32(low, qinv);
            lo = vmlsl_s32(lo, vget_low_s32(m), vget_low_s32(q));
            hi = vmlsl_high_s32(hi, m, q);
            let sum = vuzp2q_s32(vreinterpretq_s32_s64(lo), vreinterpretq_s32_s64(hi));
            store_s32(&mut r.c[i..], sum);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Element-wise operations.

#[inline(always)]
fn map(p: &mut DsaPoly, f: impl Fn(int32x4_t) -> int32x4_t) {
    for i in (0..N).step_by(4) {
        let v = f(load_s32(&p.c[i..]));
        store_s32(&mut p.c[i..], v);
    }
}

#[inline(always)]
fn map2(r: &mut DsaPoly, a: &DsaPoly, f: impl Fn(int32x4_t, int32x4_t) -> int32x4_t) {
    for i in (0..N).step_by(4) {
        let v = f(load_s32(&r.c[i..]), load_s32(&a.c[i..]));
        store_s32(&mut r.c[i..], v);
    }
}

pub(super) fn reduce(p: &mut DsaPoly) {
    // t = (a + 2^22) >> 23 (the rounding shift, computed without overflow), a − t·q.
    // SAFETY: NEON is baseline on aarch64.
    map(p, |a| unsafe {
        vmlsq_s32(a, vrshrq_n_s32::<23>(a), vdupq_n_s32(Q))
    });
}

#[inline(always)]
fn caddq(a: int32x4_t) -> int32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { vaddq_s32(a, vandq_s32(vshrq_n_s32::<31>(a), vdupq_n_s32(Q))) }
}

pub(super) fn caddq_poly(p: &mut DsaPoly) {
    map(p, caddq);
}

pub(super) fn add(r: &mut DsaPoly, a: &DsaPoly) {
    // SAFETY: NEON is baseline on aarch64.
    map2(r, a, |x, y| unsafe { vaddq_s32(x, y) });
}

pub(super) fn sub(r: &mut DsaPoly, a: &DsaPoly) {
    // SAFETY: NEON is baseline on aarch64.
    map2(r, a, |x, y| unsafe { vsubq_s32(x, y) });
}

pub(super) fn shiftl(p: &mut DsaPoly) {
    // SAFETY: NEON is baseline on aarch64.
    map(p, |a| unsafe { vshlq_n_s32::<{ D as i32 }>(a) });
}

pub(super) fn power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly) {
    for i in (0..N).step_by(4) {
        let a = load_s32(&t.c[i..]);
        // SAFETY: NEON is baseline on aarch64.
        let (hi, lo) = unsafe {
            let hi = vshrq_n_s32::<{ D as i32 }>(vaddq_s32(a, vdupq_n_s32((1 << (D - 1)) - 1)));
            (hi, vsubq_s32(a, vshlq_n_s32::<{ D as i32 }>(hi)))
        };
        store_s32(&mut t1.c[i..], hi);
        store_s32(&mut t0.c[i..], lo);
    }
}

/// Decompose for γ2 = (q − 1)/32, the portable `decompose32` on four lanes.
#[inline(always)]
fn decompose4(a: int32x4_t) -> (int32x4_t, int32x4_t) {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let a1 = vshrq_n_s32::<7>(vaddq_s32(a, vdupq_n_s32(127)));
        // (a1 · 1025 + 2^21) >> 22.
        let a1 = vrshrq_n_s32::<22>(vmulq_s32(a1, vdupq_n_s32(1025)));
        let a1 = vandq_s32(a1, vdupq_n_s32(15));
        let a0 = vmlsq_s32(a, a1, vdupq_n_s32(2 * GAMMA2));
        // a0 − q where a0 > (q − 1)/2.
        let big = vcgtq_s32(a0, vdupq_n_s32((Q - 1) / 2));
        let a0 = vsubq_s32(a0, vandq_s32(vreinterpretq_s32_u32(big), vdupq_n_s32(Q)));
        (a1, a0)
    }
}

pub(super) fn decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
    for i in (0..N).step_by(4) {
        let (a1, a0) = decompose4(load_s32(&w.c[i..]));
        store_s32(&mut w1.c[i..], a1);
        store_s32(&mut w0.c[i..], a0);
    }
}

pub(super) fn make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let mut count = vdupq_n_u32(0);
        for i in (0..N).step_by(4) {
            let (x, y) = (load_s32(&a0.c[i..]), load_s32(&a1.c[i..]));
            // x > γ2, x < −γ2, or x = −γ2 and y ≠ 0: all-ones masks.
            let above = vcgtq_s32(x, vdupq_n_s32(GAMMA2));
            let below = vcltq_s32(x, vdupq_n_s32(-GAMMA2));
            let at = vandq_u32(vceqq_s32(x, vdupq_n_s32(-GAMMA2)), vtstq_s32(y, y));
            let m = vorrq_u32(vorrq_u32(above, below), at);
            let bit = vshrq_n_u32::<31>(m);
            count = vaddq_u32(count, bit);
            store_s32(&mut h.c[i..], vreinterpretq_s32_u32(bit));
        }
        vaddvq_u32(count) as usize
    }
}

pub(super) fn use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) {
    for i in (0..N).step_by(4) {
        let (a1, a0) = decompose4(load_s32(&w.c[i..]));
        let hv = load_s32(&h.c[i..]);
        // SAFETY: NEON is baseline on aarch64.
        let r = unsafe {
            // Step +1 where a0 > 0, −1 otherwise: −(2·mask + 1) for the mask a0 > 0.
            let pos = vreinterpretq_s32_u32(vcgtzq_s32(a0));
            let step = vnegq_s32(vaddq_s32(vaddq_s32(pos, pos), vdupq_n_s32(1)));
            vandq_s32(vmlaq_s32(a1, hv, step), vdupq_n_s32(15))
        };
        store_s32(&mut w1.c[i..], r);
    }
}

pub(super) fn chk(p: &DsaPoly, bound: i32) -> bool {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let b = vdupq_n_s32(bound);
        let mut bad = vdupq_n_u32(0);
        for i in (0..N).step_by(4) {
            // |c| fits: reduced inputs are far from i32::MIN.
            let abs = vabsq_s32(load_s32(&p.c[i..]));
            bad = vorrq_u32(bad, vcgeq_s32(abs, b));
        }
        vmaxvq_u32(bad) != 0
    }
}

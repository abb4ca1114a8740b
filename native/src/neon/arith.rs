//! NEON arithmetic modulo q: the NTT, its inverse, the base multiplication and the
//! element-wise operations, eight coefficients per `int16x8_t`.
//!
//! Multiplications by constants use the Barrett multiplication of Becker, Hwang, Kannwischer,
//! Yang and Yang ("Neon NTT", TCHES 2022): for a constant z and its twist
//! t = round(z · 2^15 / q), `a·z - sqrdmulh(a, t)·q` is a·z mod q with |result| < q for any
//! |a| < 2^15, in three instructions (mul, sqrdmulh, mls). The constants are the plain values
//! ζ^k (the portable ZETAS without their Montgomery factor), so the results equal the portable
//! ones modulo q.
//!
//! NTT-domain order: in each block of 16 coefficients (8 pairs of the degree-1 products), the
//! 8 even coefficients come first, then the 8 odd ones. The base multiplication then needs no
//! shuffles, and the NTT's and inverse NTT's last layers are done with transposes.

use super::vector::{load_s16, store_s16};
use crate::portable::arith::{INVNTT_F, MONT, MONT_SQ, QINV, ZETAS};
use crate::portable::modmath;
use crate::simd::{N, Poly, Q};
use core::arch::aarch64::*;

// ---------------------------------------------------------------------------------------
// Constants.

const fn pow_mod(base: i64, exp: u32) -> i64 {
    modmath::pow_mod(base, exp, Q as i64)
}

/// The representative of `a` mod q in (−q/2, q/2].
const fn centered(a: i64) -> i16 {
    modmath::centered(a, Q as i64) as i16
}

/// R^-1 mod q.
const RINV: i64 = pow_mod(MONT, Q as u32 - 2);

/// The plain value of a Montgomery-form constant: c · R^-1 mod q, centered.
const fn plain(c: i16) -> i16 {
    centered(c as i64 * RINV)
}

/// round(z · 2^15 / q), the Barrett twist of z (|z| <= q/2, so it fits an i16).
const fn twist(z: i16) -> i16 {
    let q = Q as i64;
    (((z as i64) * (1 << 16) + q).div_euclid(2 * q)) as i16
}

/// ζ^BitRev7(k), plain, centered.
const fn zeta(k: usize) -> i16 {
    plain(ZETAS[k])
}

/// Eight lanes of constants and their twists.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Twiddles {
    z: [i16; 8],
    t: [i16; 8],
}

const fn twiddles(z: [i16; 8]) -> Twiddles {
    let mut t = [0i16; 8];
    let mut i = 0;
    while i < 8 {
        t[i] = twist(z[i]);
        i += 1;
    }
    Twiddles { z, t }
}

/// Forward layers 1-3 (len 128, 64, 32): lane k is ζ_k for k = 1..7.
const NTT_123: Twiddles = {
    let mut z = [0i16; 8];
    let mut k = 1;
    while k < 8 {
        z[k] = zeta(k);
        k += 1;
    }
    twiddles(z)
};

/// Forward layers 4-5 for the 32-coefficient block b: lane 0 is ζ_(8+b) (len 16), lanes 1
/// and 2 are ζ_(16+2b) and ζ_(17+2b) (len 8).
const NTT_45: [Twiddles; 8] = {
    let mut out = [twiddles([0; 8]); 8];
    let mut b = 0;
    while b < 8 {
        out[b] = twiddles([
            zeta(8 + b),
            zeta(16 + 2 * b),
            zeta(17 + 2 * b),
            0,
            0,
            0,
            0,
            0,
        ]);
        b += 1;
    }
    out
};

/// Forward layers 6-7 for the 16-coefficient block h, per lane after the transposes:
/// len 4 (lanes 0-3 and 4-7) and len 2 (lane pairs).
const NTT_67: [[Twiddles; 2]; 16] = {
    let mut out = [[twiddles([0; 8]); 2]; 16];
    let mut h = 0;
    while h < 16 {
        let a = zeta(32 + 2 * h);
        let b = zeta(33 + 2 * h);
        out[h][0] = twiddles([a, a, a, a, b, b, b, b]);
        let k = 64 + 4 * h;
        let (c0, c1, c2, c3) = (zeta(k), zeta(k + 1), zeta(k + 2), zeta(k + 3));
        out[h][1] = twiddles([c0, c0, c1, c1, c2, c2, c3, c3]);
        h += 1;
    }
    out
};

/// The inverse NTT's final scaling R/128 (the portable INVNTT_F without one factor R).
const F: i16 = plain(INVNTT_F);

/// Inverse layers 7-5 (len 128 merged with the scaling, 64, 32): lane 0 is F, lane 1 is
/// ζ_1·F, lanes k = 2..7 are ζ_k.
const INV_123: Twiddles = {
    let mut z = [0i16; 8];
    z[0] = F;
    z[1] = centered(zeta(1) as i64 * F as i64);
    let mut k = 2;
    while k < 8 {
        z[k] = zeta(k);
        k += 1;
    }
    twiddles(z)
};

/// Inverse layers 4-3 for the 32-coefficient block b: lane 0 is ζ_(15-b) (len 16), lanes 1
/// and 2 are ζ_(31-2b) and ζ_(30-2b) (len 8).
const INV_45: [Twiddles; 8] = {
    let mut out = [twiddles([0; 8]); 8];
    let mut b = 0;
    while b < 8 {
        out[b] = twiddles([
            zeta(15 - b),
            zeta(31 - 2 * b),
            zeta(30 - 2 * b),
            0,
            0,
            0,
            0,
            0,
        ]);
        b += 1;
    }
    out
};

/// Inverse layers 1-2 for the 16-coefficient block h: len 2 (lane pairs), len 4.
const INV_67: [[Twiddles; 2]; 16] = {
    let mut out = [[twiddles([0; 8]); 2]; 16];
    let mut h = 0;
    while h < 16 {
        let k = 127 - 4 * h;
        let (c0, c1, c2, c3) = (zeta(k), zeta(k - 1), zeta(k - 2), zeta(k - 3));
        out[h][0] = twiddles([c0, c0, c1, c1, c2, c2, c3, c3]);
        let a = zeta(63 - 2 * h);
        let b = zeta(62 - 2 * h);
        out[h][1] = twiddles([a, a, a, a, b, b, b, b]);
        h += 1;
    }
    out
};

/// The base multiplication's ζ per pair, for the 16-coefficient block h: pair p = 8h + i
/// multiplies modulo X^2 - (±ζ_(64 + p/2)).
const BASEMUL: [Twiddles; 16] = {
    let mut out = [twiddles([0; 8]); 16];
    let mut h = 0;
    while h < 16 {
        let mut z = [0i16; 8];
        let mut i = 0;
        while i < 8 {
            let p = 8 * h + i;
            let v = zeta(64 + p / 2);
            z[i] = if p % 2 == 0 { v } else { -v };
            i += 1;
        }
        out[h] = twiddles(z);
        h += 1;
    }
    out
};

/// R^2 · R^-1 = R mod q, plain, for `tomont`.
const TOMONT: Twiddles = {
    let m = plain(MONT_SQ);
    twiddles([m; 8])
};

/// round(2^26 / q), for the Barrett reduction.
const BARRETT_V: i16 = (((1i32 << 26) + Q as i32 / 2) / Q as i32) as i16;

// ---------------------------------------------------------------------------------------
// Helpers.

#[inline(always)]
fn load_tw(t: &Twiddles) -> (int16x8_t, int16x8_t) {
    (load_s16(&t.z), load_s16(&t.t))
}

/// a · z mod q for per-lane constants z (twists t); |result| < q for |a| < 2^15.
#[inline(always)]
fn mul(a: int16x8_t, z: int16x8_t, t: int16x8_t) -> int16x8_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let h = vqrdmulhq_s16(a, t);
        let l = vmulq_s16(a, z);
        vmlsq_s16(l, h, vdupq_n_s16(Q))
    }
}

/// a · z mod q for the constant in lane L of (z, t).
#[inline(always)]
fn mul_lane<const L: i32>(a: int16x8_t, z: int16x8_t, t: int16x8_t) -> int16x8_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let h = vqrdmulhq_laneq_s16::<L>(a, t);
        let l = vmulq_laneq_s16::<L>(a, z);
        vmlsq_s16(l, h, vdupq_n_s16(Q))
    }
}

/// Barrett reduction of any i16 to |result| <= q/2 + 1.
#[inline(always)]
fn barrett(a: int16x8_t) -> int16x8_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let t = vqdmulhq_s16(a, vdupq_n_s16(BARRETT_V));
        let t = vrshrq_n_s16::<11>(t);
        vmlsq_s16(a, t, vdupq_n_s16(Q))
    }
}

/// Cooley-Tukey butterfly with the lane-L constant: (a + b·z, a - b·z).
#[inline(always)]
fn ct_lane<const L: i32>(
    a: int16x8_t,
    b: int16x8_t,
    z: int16x8_t,
    t: int16x8_t,
) -> (int16x8_t, int16x8_t) {
    let m = mul_lane::<L>(b, z, t);
    // SAFETY: NEON is baseline on aarch64.
    unsafe { (vaddq_s16(a, m), vsubq_s16(a, m)) }
}

#[inline(always)]
fn ct(a: int16x8_t, b: int16x8_t, z: int16x8_t, t: int16x8_t) -> (int16x8_t, int16x8_t) {
    let m = mul(b, z, t);
    // SAFETY: NEON is baseline on aarch64.
    unsafe { (vaddq_s16(a, m), vsubq_s16(a, m)) }
}

/// Gentleman-Sande butterfly with the lane-L constant: (a + b, (b - a)·z).
#[inline(always)]
fn gs_lane<const L: i32>(
    a: int16x8_t,
    b: int16x8_t,
    z: int16x8_t,
    t: int16x8_t,
) -> (int16x8_t, int16x8_t) {
    // SAFETY: NEON is baseline on aarch64.
    let (s, d) = unsafe { (vaddq_s16(a, b), vsubq_s16(b, a)) };
    (s, mul_lane::<L>(d, z, t))
}

#[inline(always)]
fn gs(a: int16x8_t, b: int16x8_t, z: int16x8_t, t: int16x8_t) -> (int16x8_t, int16x8_t) {
    // SAFETY: NEON is baseline on aarch64.
    let (s, d) = unsafe { (vaddq_s16(a, b), vsubq_s16(b, a)) };
    (s, mul(d, z, t))
}

/// Transposes of 2×2 blocks of 64-, 32- and 16-bit elements of (a, b).
#[inline(always)]
fn trn64(a: int16x8_t, b: int16x8_t) -> (int16x8_t, int16x8_t) {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let (a, b) = (vreinterpretq_s64_s16(a), vreinterpretq_s64_s16(b));
        (
            vreinterpretq_s16_s64(vtrn1q_s64(a, b)),
            vreinterpretq_s16_s64(vtrn2q_s64(a, b)),
        )
    }
}

#[inline(always)]
fn trn32(a: int16x8_t, b: int16x8_t) -> (int16x8_t, int16x8_t) {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let (a, b) = (vreinterpretq_s32_s16(a), vreinterpretq_s32_s16(b));
        (
            vreinterpretq_s16_s32(vtrn1q_s32(a, b)),
            vreinterpretq_s16_s32(vtrn2q_s32(a, b)),
        )
    }
}

#[inline(always)]
fn trn16(a: int16x8_t, b: int16x8_t) -> (int16x8_t, int16x8_t) {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { (vtrn1q_s16(a, b), vtrn2q_s16(a, b)) }
}

// ---------------------------------------------------------------------------------------
// The transforms.

/// Forward NTT. Every layer adds less than q to the bound, so the coefficients stay below
/// 8q < 2^15 without intermediate reductions; one Barrett reduction at the end.
#[inline(always)]
pub(super) fn ntt(p: &mut Poly) {
    let c = &mut p.c;
    let (z, t) = load_tw(&NTT_123);
    for j in 0..4 {
        let mut v: [int16x8_t; 8] = core::array::from_fn(|m| load_s16(&c[32 * m + 8 * j..]));
        for m in 0..4 {
            (v[m], v[m + 4]) = ct_lane::<1>(v[m], v[m + 4], z, t);
        }
        (v[0], v[2]) = ct_lane::<2>(v[0], v[2], z, t);
        (v[1], v[3]) = ct_lane::<2>(v[1], v[3], z, t);
        (v[4], v[6]) = ct_lane::<3>(v[4], v[6], z, t);
        (v[5], v[7]) = ct_lane::<3>(v[5], v[7], z, t);
        (v[0], v[1]) = ct_lane::<4>(v[0], v[1], z, t);
        (v[2], v[3]) = ct_lane::<5>(v[2], v[3], z, t);
        (v[4], v[5]) = ct_lane::<6>(v[4], v[5], z, t);
        (v[6], v[7]) = ct_lane::<7>(v[6], v[7], z, t);
        for (m, x) in v.iter().enumerate() {
            store_s16(&mut c[32 * m + 8 * j..], *x);
        }
    }
    for b in 0..8 {
        let (z, t) = load_tw(&NTT_45[b]);
        let blk = &mut c[32 * b..32 * b + 32];
        let mut v: [int16x8_t; 4] = core::array::from_fn(|m| load_s16(&blk[8 * m..]));
        (v[0], v[2]) = ct_lane::<0>(v[0], v[2], z, t);
        (v[1], v[3]) = ct_lane::<0>(v[1], v[3], z, t);
        (v[0], v[1]) = ct_lane::<1>(v[0], v[1], z, t);
        (v[2], v[3]) = ct_lane::<2>(v[2], v[3], z, t);
        for h in 0..2 {
            let tw = &NTT_67[2 * b + h];
            let (x, y) = trn64(v[2 * h], v[2 * h + 1]);
            let (z4, t4) = load_tw(&tw[0]);
            let (x, y) = ct(x, y, z4, t4);
            let (x, y) = trn32(x, y);
            let (z2, t2) = load_tw(&tw[1]);
            let (x, y) = ct(x, y, z2, t2);
            let (e, o) = trn16(x, y);
            store_s16(&mut blk[16 * h..], barrett(e));
            store_s16(&mut blk[16 * h + 8..], barrett(o));
        }
    }
}

/// Inverse NTT times R (as the portable `invntt_tomont`). Sums double per layer, so the
/// sums that can reach 8q are Barrett-reduced after layers 3 and 6; the last layer is merged
/// with the scaling by R/128.
#[inline(always)]
pub(super) fn invntt_tomont(p: &mut Poly) {
    let c = &mut p.c;
    for b in 0..8 {
        let (z, t) = load_tw(&INV_45[b]);
        let blk = &mut c[32 * b..32 * b + 32];
        let mut v = [zero(); 4];
        for h in 0..2 {
            let tw = &INV_67[2 * b + h];
            let e = load_s16(&blk[16 * h..]);
            let o = load_s16(&blk[16 * h + 8..]);
            let (x, y) = trn16(e, o);
            let (z2, t2) = load_tw(&tw[0]);
            let (x, y) = gs(x, y, z2, t2);
            let (x, y) = trn32(x, y);
            let (z4, t4) = load_tw(&tw[1]);
            let (x, y) = gs(x, y, z4, t4);
            (v[2 * h], v[2 * h + 1]) = trn64(x, y);
        }
        (v[0], v[1]) = gs_lane::<1>(v[0], v[1], z, t);
        (v[2], v[3]) = gs_lane::<2>(v[2], v[3], z, t);
        v[0] = barrett(v[0]);
        v[2] = barrett(v[2]);
        (v[0], v[2]) = gs_lane::<0>(v[0], v[2], z, t);
        (v[1], v[3]) = gs_lane::<0>(v[1], v[3], z, t);
        for (m, x) in v.iter().enumerate() {
            store_s16(&mut blk[8 * m..], *x);
        }
    }
    let (z, t) = load_tw(&INV_123);
    for j in 0..4 {
        let mut v: [int16x8_t; 8] = core::array::from_fn(|m| load_s16(&c[32 * m + 8 * j..]));
        (v[0], v[1]) = gs_lane::<7>(v[0], v[1], z, t);
        (v[2], v[3]) = gs_lane::<6>(v[2], v[3], z, t);
        (v[4], v[5]) = gs_lane::<5>(v[4], v[5], z, t);
        (v[6], v[7]) = gs_lane::<4>(v[6], v[7], z, t);
        (v[0], v[2]) = gs_lane::<3>(v[0], v[2], z, t);
        (v[1], v[3]) = gs_lane::<3>(v[1], v[3], z, t);
        (v[4], v[6]) = gs_lane::<2>(v[4], v[6], z, t);
        (v[5], v[7]) = gs_lane::<2>(v[5], v[7], z, t);
        v[0] = barrett(v[0]);
        v[4] = barrett(v[4]);
        for m in 0..4 {
            // SAFETY: NEON is baseline on aarch64.
            let (s, d) = unsafe { (vaddq_s16(v[m], v[m + 4]), vsubq_s16(v[m + 4], v[m])) };
            v[m] = mul_lane::<0>(s, z, t);
            v[m + 4] = mul_lane::<1>(d, z, t);
        }
        for (m, x) in v.iter().enumerate() {
            store_s16(&mut c[32 * m + 8 * j..], *x);
        }
    }
}

#[inline(always)]
fn zero() -> int16x8_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { vdupq_n_s16(0) }
}

/// Montgomery reduction of 32-bit lanes (lo: lanes 0-3, hi: lanes 4-7) to a·R^-1 mod q,
/// |result| <= |a|/2^16 + q/2.
#[inline(always)]
fn montgomery(lo: int32x4_t, hi: int32x4_t) -> int16x8_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let l = vuzp1q_s16(vreinterpretq_s16_s32(lo), vreinterpretq_s16_s32(hi));
        let m = vmulq_s16(l, vdupq_n_s16(QINV));
        let q = vdupq_n_s16(Q);
        let lo = vmlsl_s16(lo, vget_low_s16(m), vget_low_s16(q));
        let hi = vmlsl_high_s16(hi, m, q);
        vuzp2q_s16(vreinterpretq_s16_s32(lo), vreinterpretq_s16_s32(hi))
    }
}

/// `r = Σ a[i]∘b[i] · R^-1`. The products are accumulated in 32 bits (b's odd coefficients
/// times ζ computed first, < q) and Montgomery-reduced once. For k <= 3 and inputs below 4096
/// the sum is below 3 · 2 · 4096^2 < q · 2^15, so the result is reduced; for k = 4 one more
/// Barrett reduction.
#[inline(always)]
pub(super) fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
    debug_assert!(a.len() == b.len() && !a.is_empty() && a.len() <= 4);
    for (h, tw) in BASEMUL.iter().enumerate() {
        let (z, t) = load_tw(tw);
        // SAFETY: NEON is baseline on aarch64.
        unsafe {
            let mut e_lo = vdupq_n_s32(0);
            let mut e_hi = vdupq_n_s32(0);
            let mut o_lo = vdupq_n_s32(0);
            let mut o_hi = vdupq_n_s32(0);
            for (x, y) in a.iter().zip(b) {
                let ae = load_s16(&x.c[16 * h..]);
                let ao = load_s16(&x.c[16 * h + 8..]);
                let be = load_s16(&y.c[16 * h..]);
                let bo = load_s16(&y.c[16 * h + 8..]);
                let bz = mul(bo, z, t);
                e_lo = vmlal_s16(e_lo, vget_low_s16(ae), vget_low_s16(be));
                e_hi = vmlal_high_s16(e_hi, ae, be);
                e_lo = vmlal_s16(e_lo, vget_low_s16(ao), vget_low_s16(bz));
                e_hi = vmlal_high_s16(e_hi, ao, bz);
                o_lo = vmlal_s16(o_lo, vget_low_s16(ae), vget_low_s16(bo));
                o_hi = vmlal_high_s16(o_hi, ae, bo);
                o_lo = vmlal_s16(o_lo, vget_low_s16(ao), vget_low_s16(be));
                o_hi = vmlal_high_s16(o_hi, ao, be);
            }
            let mut e = montgomery(e_lo, e_hi);
            let mut o = montgomery(o_lo, o_hi);
            if a.len() > 3 {
                e = barrett(e);
                o = barrett(o);
            }
            store_s16(&mut r.c[16 * h..], e);
            store_s16(&mut r.c[16 * h + 8..], o);
        }
    }
}

/// Applies `f` to every vector of `p`.
#[inline(always)]
fn map(p: &mut Poly, f: impl Fn(int16x8_t) -> int16x8_t) {
    for i in (0..N).step_by(8) {
        let v = load_s16(&p.c[i..]);
        store_s16(&mut p.c[i..], f(v));
    }
}

#[inline(always)]
fn zip_map(r: &mut Poly, a: &Poly, f: impl Fn(int16x8_t, int16x8_t) -> int16x8_t) {
    for i in (0..N).step_by(8) {
        let v = f(load_s16(&r.c[i..]), load_s16(&a.c[i..]));
        store_s16(&mut r.c[i..], v);
    }
}

#[inline(always)]
pub(super) fn tomont(p: &mut Poly) {
    let (z, t) = load_tw(&TOMONT);
    map(p, |v| mul(v, z, t));
}

#[inline(always)]
pub(super) fn reduce(p: &mut Poly) {
    map(p, barrett);
}

#[inline(always)]
pub(super) fn add(r: &mut Poly, a: &Poly) {
    // SAFETY: NEON is baseline on aarch64.
    zip_map(r, a, |x, y| unsafe { vaddq_s16(x, y) });
}

#[inline(always)]
pub(super) fn sub(r: &mut Poly, a: &Poly) {
    // SAFETY: NEON is baseline on aarch64.
    zip_map(r, a, |x, y| unsafe { vsubq_s16(x, y) });
}

/// FIPS 203 NTT order to this order: per block of 16, the evens, then the odds.
#[inline(always)]
pub(super) fn ntt_unpack(p: &mut Poly) {
    for blk in p.c.chunks_exact_mut(16) {
        let src: &[i16; 16] = (&*blk).try_into().expect("16 coefficients");
        // SAFETY: reads 16 i16 from a reference to 16 i16; NEON is baseline on aarch64.
        let v = unsafe { vld2q_s16(src.as_ptr()) };
        store_s16(&mut blk[..8], v.0);
        store_s16(&mut blk[8..], v.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        assert_eq!((MONT * RINV).rem_euclid(Q as i64), 1);
        // F = R / 128.
        assert_eq!((F as i64 * 128 - MONT).rem_euclid(Q as i64), 0);
        assert_eq!(zeta(64), 17);
        for k in 1..128 {
            let z = zeta(k);
            let t = twist(z) as i64;
            assert!(
                (t * 2 * Q as i64 - z as i64 * 65536).abs() <= Q as i64,
                "k={k}"
            );
        }
    }
}

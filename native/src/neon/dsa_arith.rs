//! NEON arithmetic modulo q = 8380417 for ML-DSA, four coefficients per `int32x4_t`: the NTT,
//! its inverse, the pointwise products and the element-wise and rounding operations.
//!
//! The NTT-domain order is the portable one (FIPS 204's), so `dsa_ntt_unpack` has nothing to
//! do. Multiplications by the NTT's constants use the 32-bit form of the Barrett
//! multiplication of Becker, Hwang, Kannwischer, Yang and Yang ("Neon NTT", TCHES 2022): for
//! a constant z and its twist t = round(z · 2^31 / q), `a·z − sqrdmulh(a, t)·q` (mul,
//! sqrdmulh, mls) is a·z mod q with |result| < q for any |a| < 2^31. The constants are the
//! plain powers of ζ (not in Montgomery form), so the results are congruent to the portable
//! ones. The pointwise products are Montgomery multiplications with the portable results
//! exactly: sqdmulh(a, b) and sqdmulh(a·b·q^-1, q) have the same low halves, so half their
//! difference (shsub) is (a·b − m·q) / 2^32.
//!
//! The NTT's last two layers (inverse: first two) work on 16 coefficients loaded with `ld4`,
//! which puts coefficients 4l + i of the block into lane l of vector i: the pairs at distance
//! 2 are then vectors (0, 2) and (1, 3), those at distance 1 vectors (0, 1) and (2, 3).

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

/// ζ_k for the forward layers of len 128 down to 4 (k = 1..64).
const FWD: [Tw1; 64] = {
    let mut out = [tw1(0); 64];
    let mut k = 1;
    while k < 64 {
        out[k] = tw1(zeta(k));
        k += 1;
    }
    out
};

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

/// The four quarters (each `q` coefficients) of `block`, as groups of four coefficients at
/// the same offset in each quarter.
#[inline(always)]
fn quarters(block: &mut [i32], q: usize) -> impl Iterator<Item = [&mut [i32]; 4]> {
    let (lo, hi) = block.split_at_mut(2 * q);
    let (q0, q1) = lo.split_at_mut(q);
    let (q2, q3) = hi.split_at_mut(q);
    q0.chunks_exact_mut(4)
        .zip(q1.chunks_exact_mut(4))
        .zip(q2.chunks_exact_mut(4).zip(q3.chunks_exact_mut(4)))
        .map(|((c0, c1), (c2, c3))| [c0, c1, c2, c3])
}

pub(super) fn ntt(p: &mut DsaPoly) {
    let a = &mut p.c;
    // Layers len 128 to 4, two at a time (len and len/2 on four vectors at distance len/2),
    // where block b of the layer len uses ζ_(128/len + b).
    let mut len = 128;
    while len >= 8 {
        let k = N / (2 * len);
        let h = len / 2;
        // Block b's twiddles: ζ_(k + b) for layer len, ζ_(2(k + b)) and ζ_(2(k + b) + 1)
        // for len/2 (zipped, not indexed, for the same reason as the quarters below).
        let (outer, inner) = (&FWD[k..2 * k], &FWD[2 * k..4 * k]);
        let blocks = a.chunks_exact_mut(2 * len);
        for ((block, w0), w12) in blocks.zip(outer).zip(inner.chunks_exact(2)) {
            let (z0, t0) = (dup(w0.z), dup(w0.t));
            let (z1, t1) = (dup(w12[0].z), dup(w12[0].t));
            let (z2, t2) = (dup(w12[1].z), dup(w12[1].t));
            // The block's four quarters, four coefficients at a time: chunks, not index
            // arithmetic, so that no load or store needs a bounds check.
            for [c0, c1, c2, c3] in quarters(block, h) {
                let (x0, x1) = (load_s32(c0), load_s32(c1));
                let (x2, x3) = (load_s32(c2), load_s32(c3));
                let (x0, x2) = ct(x0, x2, z0, t0);
                let (x1, x3) = ct(x1, x3, z0, t0);
                let (x0, x1) = ct(x0, x1, z1, t1);
                let (x2, x3) = ct(x2, x3, z2, t2);
                store_s32(c0, x0);
                store_s32(c1, x1);
                store_s32(c2, x2);
                store_s32(c3, x3);
            }
        }
        len >>= 2;
    }
    // Layers len 2 and 1 on de-interleaved 16-coefficient blocks.
    for (g, tw) in FWD_78.iter().enumerate() {
        let block: &mut [i32; 16] = (&mut a[16 * g..16 * g + 16]).try_into().expect("16");
        // SAFETY: reads 16 i32 from a reference to 16 i32; NEON is baseline on aarch64.
        let v = unsafe { vld4q_s32(block.as_ptr()) };
        let (z, t) = load_tw(&tw[0]);
        let (x0, x2) = ct(v.0, v.2, z, t);
        let (x1, x3) = ct(v.1, v.3, z, t);
        let (z, t) = load_tw(&tw[1]);
        let (x0, x1) = ct(x0, x1, z, t);
        let (z, t) = load_tw(&tw[2]);
        let (x2, x3) = ct(x2, x3, z, t);
        // SAFETY: writes 16 i32 through a reference to 16 i32; NEON is baseline on aarch64.
        unsafe { vst4q_s32(block.as_mut_ptr(), int32x4x4_t(x0, x1, x2, x3)) };
    }
}

pub(super) fn invntt_tomont(p: &mut DsaPoly) {
    let a = &mut p.c;
    // Layers len 1 and 2 on de-interleaved 16-coefficient blocks.
    for (g, tw) in INV_12.iter().enumerate() {
        let block: &mut [i32; 16] = (&mut a[16 * g..16 * g + 16]).try_into().expect("16");
        // SAFETY: reads 16 i32 from a reference to 16 i32; NEON is baseline on aarch64.
        let v = unsafe { vld4q_s32(block.as_ptr()) };
        let (z, t) = load_tw(&tw[0]);
        let (x0, x1) = gs(v.0, v.1, z, t);
        let (z, t) = load_tw(&tw[1]);
        let (x2, x3) = gs(v.2, v.3, z, t);
        let (z, t) = load_tw(&tw[2]);
        let (x0, x2) = gs(x0, x2, z, t);
        let (x1, x3) = gs(x1, x3, z, t);
        // SAFETY: writes 16 i32 through a reference to 16 i32; NEON is baseline on aarch64.
        unsafe { vst4q_s32(block.as_mut_ptr(), int32x4x4_t(x0, x1, x2, x3)) };
    }
    // Layers len 4 to 64, two at a time (len, 2·len) on four vectors at distance len, where
    // block b of the layer len uses ζ_(256/len − 1 − b).
    let mut len = 4;
    while len <= 32 {
        let big = 4 * len;
        for (b, block) in a.chunks_exact_mut(big).enumerate() {
            // The two blocks of layer len, then the one of layer 2·len.
            let kb = N / len - 1 - 2 * b;
            let (z0, t0) = (dup(FWD[kb].z), dup(FWD[kb].t));
            let (z1, t1) = (dup(FWD[kb - 1].z), dup(FWD[kb - 1].t));
            let k2 = N / (2 * len) - 1 - b;
            let (z2, t2) = (dup(FWD[k2].z), dup(FWD[k2].t));
            for [c0, c1, c2, c3] in quarters(block, len) {
                let (x0, x1) = (load_s32(c0), load_s32(c1));
                let (x2, x3) = (load_s32(c2), load_s32(c3));
                let (x0, x1) = gs(x0, x1, z0, t0);
                let (x2, x3) = gs(x2, x3, z1, t1);
                let (x0, x2) = gs(x0, x2, z2, t2);
                let (x1, x3) = gs(x1, x3, z2, t2);
                store_s32(c0, x0);
                store_s32(c1, x1);
                store_s32(c2, x2);
                store_s32(c3, x3);
            }
        }
        len *= 4;
    }
    // Layers len 64 and 128 in one pass over four vectors at distance 64, the scaling merged
    // into the last (its differences' constant includes F).
    debug_assert_eq!(len, 64);
    let (za, ta) = (dup(FWD[3].z), dup(FWD[3].t));
    let (zb, tb) = (dup(FWD[2].z), dup(FWD[2].t));
    let (fz, ft) = (dup(INV_LAST[0].z), dup(INV_LAST[0].t));
    let (gz, gt) = (dup(INV_LAST[1].z), dup(INV_LAST[1].t));
    for j in (0..64).step_by(4) {
        let (x0, x1) = (load_s32(&a[j..]), load_s32(&a[j + 64..]));
        let (x2, x3) = (load_s32(&a[j + 128..]), load_s32(&a[j + 192..]));
        let (x0, x1) = gs(x0, x1, za, ta);
        let (x2, x3) = gs(x2, x3, zb, tb);
        let (x0, x2) = gs(x0, x2, gz, gt);
        let (x1, x3) = gs(x1, x3, gz, gt);
        store_s32(&mut a[j..], bmul(x0, fz, ft));
        store_s32(&mut a[j + 64..], bmul(x1, fz, ft));
        store_s32(&mut a[j + 128..], x2);
        store_s32(&mut a[j + 192..], x3);
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

pub(super) fn pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
    assert_eq!(a.len(), b.len());
    for i in (0..N).step_by(4) {
        let mut acc = dup(0);
        for (x, y) in a.iter().zip(b) {
            let m = montmul(load_s32(&x.c[i..]), load_s32(&y.c[i..]));
            // SAFETY: NEON is baseline on aarch64.
            acc = unsafe { vaddq_s32(acc, m) };
        }
        store_s32(&mut r.c[i..], acc);
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

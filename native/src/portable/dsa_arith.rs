//! Scalar arithmetic modulo q = 8380417 for ML-DSA: Montgomery reduction, the NTT, and the
//! rounding functions of FIPS 204 section 7.4. The twiddle factors are computed at compile
//! time from ζ = 1753 (FIPS 204 section 7.5), not typed in.

use crate::mldsa::ops::{D, DsaPoly, GAMMA2, N, Q};
use crate::portable::modmath;

/// q^-1 mod 2^32.
pub(crate) const QINV: i32 = modmath::inverse_mod_2_64(Q as u64) as u32 as i32;

const fn pow_mod(base: i64, exp: u32) -> i64 {
    modmath::pow_mod(base, exp, Q as i64)
}

/// The representative of `a` mod q in (-q/2, q/2].
const fn centered(a: i64) -> i32 {
    modmath::centered(a, Q as i64) as i32
}

/// R mod q, R = 2^32.
const MONT: i64 = (1i64 << 32) % Q as i64;

const fn bitrev8(i: usize) -> u32 {
    modmath::bitrev(i, 8)
}

/// ζ^BitRev8(i) · R mod q, centered, for i in 0..256 (entry 0 is unused).
pub(crate) const ZETAS: [i32; N] = {
    let mut z = [0i32; N];
    let mut i = 1;
    while i < N {
        z[i] = centered(pow_mod(1753, bitrev8(i)) * MONT);
        i += 1;
    }
    z
};

/// R^2 / 256 mod q: the inverse NTT's final scaling, which also turns R^-1 into R.
pub(crate) const INVNTT_F: i32 = centered(MONT * MONT % Q as i64 * pow_mod(256, Q as u32 - 2));

/// a · R^-1 mod q, for |a| < q · 2^31; result in (-q, q).
#[inline(always)]
pub(crate) fn montgomery_reduce(a: i64) -> i32 {
    montgomery_reduce_const(a)
}

/// [`montgomery_reduce`] for constants computed at compile time.
pub(crate) const fn montgomery_reduce_const(a: i64) -> i32 {
    let t = (a as i32).wrapping_mul(QINV);
    ((a - t as i64 * Q as i64) >> 32) as i32
}

/// A representative of a mod q with |result| <= 6283009, for a <= 2^31 − 2^22 − 1.
#[inline(always)]
pub(crate) fn reduce32(a: i32) -> i32 {
    let t = (a + (1 << 22)) >> 23;
    a - t * Q
}

/// a + q if a is negative, without branching.
#[inline(always)]
pub(crate) fn caddq(a: i32) -> i32 {
    a + ((a >> 31) & Q)
}

pub(crate) fn ntt(p: &mut DsaPoly) {
    let a = &mut p.c;
    let mut k = 0;
    let mut len = 128;
    while len > 0 {
        for start in (0..N).step_by(2 * len) {
            k += 1;
            let zeta = ZETAS[k] as i64;
            for j in start..start + len {
                let t = montgomery_reduce(zeta * a[j + len] as i64);
                a[j + len] = a[j] - t;
                a[j] += t;
            }
        }
        len >>= 1;
    }
}

pub(crate) fn invntt_tomont(p: &mut DsaPoly) {
    let a = &mut p.c;
    let mut k = N;
    let mut len = 1;
    while len < N {
        for start in (0..N).step_by(2 * len) {
            k -= 1;
            let zeta = -ZETAS[k] as i64;
            for j in start..start + len {
                let t = a[j];
                a[j] = t + a[j + len];
                a[j + len] = montgomery_reduce(zeta * (t - a[j + len]) as i64);
            }
        }
        len <<= 1;
    }
    for c in a.iter_mut() {
        *c = montgomery_reduce(INVNTT_F as i64 * *c as i64);
    }
}

/// The NTT domain is in FIPS 204's order, as sampled: nothing to reorder.
pub(crate) fn ntt_unpack(_p: &mut DsaPoly) {}

pub(crate) fn pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
    for ((r, &x), &y) in r.c.iter_mut().zip(&a.c).zip(&b.c) {
        *r = montgomery_reduce(x as i64 * y as i64);
    }
}

pub(crate) fn pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
    debug_assert_eq!(a.len(), b.len());
    for i in 0..N {
        let mut acc = 0i32;
        for (x, y) in a.iter().zip(b) {
            acc += montgomery_reduce(x.c[i] as i64 * y.c[i] as i64);
        }
        r.c[i] = acc;
    }
}

pub(crate) fn reduce(p: &mut DsaPoly) {
    for c in p.c.iter_mut() {
        *c = reduce32(*c);
    }
}

pub(crate) fn caddq_poly(p: &mut DsaPoly) {
    for c in p.c.iter_mut() {
        *c = caddq(*c);
    }
}

pub(crate) fn add(r: &mut DsaPoly, a: &DsaPoly) {
    for (r, &x) in r.c.iter_mut().zip(&a.c) {
        *r += x;
    }
}

pub(crate) fn sub(r: &mut DsaPoly, a: &DsaPoly) {
    for (r, &x) in r.c.iter_mut().zip(&a.c) {
        *r -= x;
    }
}

pub(crate) fn shiftl(p: &mut DsaPoly) {
    for c in p.c.iter_mut() {
        *c <<= D;
    }
}

pub(crate) fn power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly) {
    for i in 0..N {
        let a = t.c[i];
        let hi = (a + (1 << (D - 1)) - 1) >> D;
        t1.c[i] = hi;
        t0.c[i] = a - (hi << D);
    }
}

/// Decompose for γ2 = (q − 1)/32: (a1, a0) with a = a1 · 2γ2 + a0 mod q. Input in [0, q).
#[inline(always)]
pub(crate) fn decompose32(a: i32) -> (i32, i32) {
    let mut a1 = (a + 127) >> 7;
    a1 = (a1 * 1025 + (1 << 21)) >> 22;
    a1 &= 15;
    let mut a0 = a - a1 * 2 * GAMMA2;
    a0 -= (((Q - 1) / 2 - a0) >> 31) & Q;
    (a1, a0)
}

pub(crate) fn decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
    for i in 0..N {
        (w1.c[i], w0.c[i]) = decompose32(w.c[i]);
    }
}

/// 1 when a0 > γ2, a0 < −γ2, or a0 = −γ2 and a1 ≠ 0; computed with masks, not branches.
pub(crate) fn make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize {
    let mut count = 0u32;
    for i in 0..N {
        let (x, y) = (a0.c[i], a1.c[i]);
        // Sign bits: x > γ2, x < −γ2, x == −γ2 (as "not below and not above"), y != 0.
        let above = ((GAMMA2 - x) >> 31) & 1;
        let below = ((x + GAMMA2) >> 31) & 1;
        let d = x + GAMMA2;
        let at = (((d | d.wrapping_neg()) >> 31) & 1) ^ 1;
        let nonzero = ((y | y.wrapping_neg()) >> 31) & 1;
        let bit = above | below | (at & nonzero);
        h.c[i] = bit;
        count += bit as u32;
    }
    count as usize
}

/// UseHint for γ2 = (q − 1)/32 on public data.
pub(crate) fn use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) {
    for i in 0..N {
        let (a1, a0) = decompose32(w.c[i]);
        // With a hint, step a1 up when a0 > 0 and down otherwise, modulo 16.
        let positive = (-a0 >> 31) & 1;
        let step = 2 * positive - 1;
        w1.c[i] = (a1 + h.c[i] * step) & 15;
    }
}

/// Whether any |c| >= bound; all coefficients are looked at, no early exit.
pub(crate) fn chk(p: &DsaPoly, bound: i32) -> bool {
    let mut bad = 0i32;
    for &c in &p.c {
        let abs = c - ((c >> 31) & (2 * c));
        bad |= bound - 1 - abs;
    }
    bad < 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_reference_code() {
        assert_eq!(QINV, 58728449);
        assert_eq!(ZETAS[1], 25847);
        assert_eq!(ZETAS[255], 1976782);
        assert_eq!(INVNTT_F, 41978);
    }

    #[test]
    fn rounding_matches_fips204_definitions() {
        for r in (0..Q)
            .step_by(997)
            .chain([0, 1, Q - 1, GAMMA2, 2 * GAMMA2, Q - GAMMA2])
        {
            let (a1, a0) = decompose32(r);
            // FIPS 204 Decompose: r0 = r mod± 2γ2; if r − r0 = q − 1 then (0, r0 − 1).
            let m = 2 * GAMMA2;
            let mut r0 = r.rem_euclid(m);
            if r0 > GAMMA2 {
                r0 -= m;
            }
            let (e1, e0) = if r - r0 == Q - 1 {
                (0, r0 - 1)
            } else {
                ((r - r0) / m, r0)
            };
            assert_eq!((a1, a0), (e1, e0), "r = {r}");
            let mut h = DsaPoly::ZERO;
            let mut w = DsaPoly::ZERO;
            w.c[0] = r;
            h.c[0] = 1;
            let mut out = DsaPoly::ZERO;
            use_hint(&mut out, &w, &h);
            let want = if e0 > 0 { (e1 + 1) & 15 } else { (e1 - 1) & 15 };
            assert_eq!(out.c[0], want, "use_hint r = {r}");
        }
    }

    #[test]
    fn ntt_roundtrip_is_multiplication_by_r() {
        let mut p = DsaPoly::ZERO;
        for (i, c) in p.c.iter_mut().enumerate() {
            *c = (i as i32 * 7919) % Q - Q / 2;
        }
        let orig = p.clone();
        ntt(&mut p);
        reduce(&mut p);
        invntt_tomont(&mut p);
        // invntt_tomont(ntt(a)) = a · R.
        for (x, y) in p.c.iter().zip(&orig.c) {
            let want = (*y as i64 * MONT).rem_euclid(Q as i64);
            assert_eq!((*x as i64).rem_euclid(Q as i64), want);
        }
    }
}

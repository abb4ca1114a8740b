//! Scalar arithmetic modulo q = 3329: Montgomery and Barrett reduction, the NTT and the base
//! multiplication. The twiddle factors are computed at compile time from ζ = 17 (FIPS 203
//! section 4.3), not typed in. Also used by the SIMD implementations for their constants.

use crate::portable::modmath;
use crate::simd::{N, Poly, Q};

/// q^-1 mod 2^16, as a signed value.
pub(crate) const QINV: i16 = modmath::inverse_mod_2_64(Q as u64) as u16 as i16;

const fn pow_mod(base: i64, exp: u32) -> i64 {
    modmath::pow_mod(base, exp, Q as i64)
}

/// The representative of `a` mod q in (-q/2, q/2].
const fn centered(a: i64) -> i16 {
    modmath::centered(a, Q as i64) as i16
}

/// R mod q.
pub(crate) const MONT: i64 = (1i64 << 16) % Q as i64;

const fn bitrev7(i: usize) -> u32 {
    modmath::bitrev(i, 7)
}

/// ζ^BitRev7(i) · R mod q, centered, for i in 0..128.
pub(crate) const ZETAS: [i16; 128] = {
    let mut z = [0i16; 128];
    let mut i = 0;
    while i < 128 {
        z[i] = centered(pow_mod(17, bitrev7(i)) * MONT);
        i += 1;
    }
    z
};

/// R^2 / 128 mod q: the inverse NTT's final scaling, which also turns R^-1 into R.
pub(crate) const INVNTT_F: i16 = centered(MONT * MONT % Q as i64 * pow_mod(128, Q as u32 - 2));

/// R^2 mod q, for `tomont`.
pub(crate) const MONT_SQ: i16 = centered(MONT * MONT);

/// a · R^-1 mod q, for |a| < q · 2^15; result in (-q, q).
#[inline(always)]
pub(crate) fn montgomery_reduce(a: i32) -> i16 {
    let t = (a as i16).wrapping_mul(QINV);
    ((a - t as i32 * Q as i32) >> 16) as i16
}

/// The centered representative of a mod q, |result| <= q/2.
#[inline(always)]
pub(crate) fn barrett_reduce(a: i16) -> i16 {
    const V: i32 = ((1 << 26) + Q as i32 / 2) / Q as i32;
    let t = ((V * a as i32 + (1 << 25)) >> 26) as i16;
    a.wrapping_sub(t.wrapping_mul(Q))
}

#[inline(always)]
pub(crate) fn fqmul(a: i16, b: i16) -> i16 {
    montgomery_reduce(a as i32 * b as i32)
}

/// Maps a reduced coefficient (|a| < q) to [0, q) without branching.
#[inline(always)]
pub(crate) fn to_unsigned(a: i16) -> u16 {
    (a + ((a >> 15) & Q)) as u16
}

pub(crate) fn ntt(p: &mut Poly) {
    let r = &mut p.c;
    let mut k = 1;
    let mut len = 128;
    while len >= 2 {
        for start in (0..N).step_by(2 * len) {
            let zeta = ZETAS[k];
            k += 1;
            for j in start..start + len {
                let t = fqmul(zeta, r[j + len]);
                r[j + len] = r[j] - t;
                r[j] += t;
            }
        }
        len >>= 1;
    }
    reduce(p);
}

pub(crate) fn invntt_tomont(p: &mut Poly) {
    let r = &mut p.c;
    let mut k = 127;
    let mut len = 2;
    while len <= 128 {
        for start in (0..N).step_by(2 * len) {
            let zeta = ZETAS[k];
            k -= 1;
            for j in start..start + len {
                let t = r[j];
                r[j] = barrett_reduce(t + r[j + len]);
                r[j + len] -= t;
                r[j + len] = fqmul(zeta, r[j + len]);
            }
        }
        len <<= 1;
    }
    for c in r.iter_mut() {
        *c = fqmul(*c, INVNTT_F);
    }
}

/// The NTT domain is in FIPS 203's order, as sampled: nothing to reorder.
pub(crate) fn ntt_unpack(_p: &mut Poly) {}

/// One degree-1 product modulo X^2 - zeta, times R^-1, summed into `acc` (i32, unreduced).
#[inline(always)]
fn basemul_into(acc: &mut [i32; 2], a: &[i16], b: &[i16], zeta: i16) {
    acc[0] += fqmul(fqmul(a[1], b[1]), zeta) as i32 + fqmul(a[0], b[0]) as i32;
    acc[1] += fqmul(a[0], b[1]) as i32 + fqmul(a[1], b[0]) as i32;
}

pub(crate) fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
    for i in 0..64 {
        let zeta = ZETAS[64 + i];
        for (half, z) in [(0, zeta), (2, -zeta)] {
            let at = 4 * i + half;
            let mut acc = [0i32; 2];
            for (x, y) in a.iter().zip(b) {
                basemul_into(&mut acc, &x.c[at..at + 2], &y.c[at..at + 2], z);
            }
            // |acc| < 2·k·q < 2^15 for k <= 4, so Barrett reduction applies.
            r.c[at] = barrett_reduce(acc[0] as i16);
            r.c[at + 1] = barrett_reduce(acc[1] as i16);
        }
    }
}

pub(crate) fn tomont(p: &mut Poly) {
    for c in p.c.iter_mut() {
        *c = montgomery_reduce(*c as i32 * MONT_SQ as i32);
    }
}

pub(crate) fn reduce(p: &mut Poly) {
    for c in p.c.iter_mut() {
        *c = barrett_reduce(*c);
    }
}

pub(crate) fn add(r: &mut Poly, a: &Poly) {
    for (x, y) in r.c.iter_mut().zip(&a.c) {
        *x = x.wrapping_add(*y);
    }
}

pub(crate) fn sub(r: &mut Poly, a: &Poly) {
    for (x, y) in r.c.iter_mut().zip(&a.c) {
        *x = x.wrapping_sub(*y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        assert_eq!((QINV as i32 * Q as i32) & 0xffff, 1);
        assert_eq!(MONT, 2285);
        // ζ^0 · R = R.
        assert_eq!(ZETAS[0] as i64, centered(MONT) as i64);
        // 17 is a primitive 256th root of unity.
        assert_eq!(pow_mod(17, 128), Q as i64 - 1);
        assert_eq!(INVNTT_F, 1441);
    }

    #[test]
    fn ntt_round_trip_multiplies_by_r() {
        let mut p = Poly::ZERO;
        for (i, c) in p.c.iter_mut().enumerate() {
            *c = ((i * 37 + 5) % Q as usize) as i16 - Q / 2;
        }
        let orig = p.clone();
        ntt(&mut p);
        invntt_tomont(&mut p);
        for (a, b) in p.c.iter().zip(&orig.c) {
            assert_eq!((*a as i64 - *b as i64 * MONT).rem_euclid(Q as i64), 0);
        }
    }
}

//! The products c·s1 and c·s2 of the signing loop in ML-KEM's 16-bit arithmetic.
//!
//! c has τ coefficients ±1 and the rest 0, s1 and s2 have coefficients in [−η, η], so every
//! coefficient of c·s is an integer of absolute value at most τ·η = β = 196. Computed modulo
//! ML-KEM's q = 3329 (more than 2β + 1) and lifted to [−(q − 1)/2, (q − 1)/2], it is that
//! integer exactly;//! ML-KEM's NTT works on sixteen 16-bit lanes per 256-bit vector where ML-DSA's has eight
//! 32-bit ones, and needs one multiplication per product where ML-DSA's needs three, so these
//! eleven products per attempt cost a fraction of ML-DSA's inverse NTTs. The exact integer is
//! congruent modulo ML-DSA's q to what ML-DSA's own NTT gives, and every result that reaches a
//! signature or a norm check is reduced to its unique small representative either way, so
//! signatures are the same bytes. (c·t0 is not short: t0 reaches 2^12.)

use super::ops::{DsaPoly, DsaSimd, ETA};
use super::params::{BETA, TAU};
use crate::simd::{Poly, Q};

const _: () = assert!(TAU as i32 * ETA == BETA && 2 * BETA < Q as i32);

/// `p` (coefficients in [−η, η], or c's in [−1, 1]) in ML-KEM's NTT domain.
pub(super) fn to_ntt<S: DsaSimd>(p: &DsaPoly, out: &mut Poly) {
    for (o, &c) in out.c.iter_mut().zip(&p.c) {
        // The clamp changes nothing here (|c| <= η) but lets a saturating pack do the
        // narrowing, which SSE2 and NEON have and a truncating one SSE2 lacks.
        *o = c.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
    }
    S::ntt(out);
}

/// The product of two polynomials in ML-KEM's NTT domain (`to_ntt`): |c| < q, congruent to
/// the exact integers |c| <= β that `dsa_add_short` and `dsa_sub_short` lift them to.
pub(super) fn product<S: DsaSimd>(out: &mut Poly, c_hat: &Poly, s_hat: &Poly) {
    S::basemul_acc_montgomery(
        out,
        core::slice::from_ref(c_hat),
        core::slice::from_ref(s_hat),
    );
    S::invntt_tomont(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::N;

    #[test]
    fn lift_is_the_centred_representative() {
        let q = Q as i32;
        for x in -(q - 1)..q {
            let v = crate::portable::dsa_arith::lift_short(x as i16);
            assert!(v.abs() <= q / 2, "{x} -> {v}");
            assert_eq!((v - x).rem_euclid(q), 0, "{x} -> {v}");
        }
    }

    /// Against schoolbook multiplication in Z[X]/(X^256 + 1), at the extremes of the bounds.
    fn exact<S: DsaSimd>(name: &str) {
        fn schoolbook(a: &DsaPoly, b: &DsaPoly) -> [i32; N] {
            let mut r = [0i32; N];
            for i in 0..N {
                for j in 0..N {
                    let v = a.c[i] * b.c[j];
                    if i + j < N {
                        r[i + j] += v;
                    } else {
                        r[i + j - N] -= v;
                    }
                }
            }
            r
        }
        let mut rng = crate::conformance::Rng::new(0x0073_686f_7274);
        for round in 0..40 {
            let (mut c, mut s) = (DsaPoly::ZERO, DsaPoly::ZERO);
            // c: τ signs at distinct places; in the first rounds all +1 against s = ±η, so
            // coefficients reach ±β.
            let mut placed = 0;
            while placed < TAU {
                let i = (rng.next() % N as u64) as usize;
                if c.c[i] == 0 {
                    c.c[i] = if round < 4 || rng.next() & 1 == 0 {
                        1
                    } else {
                        -1
                    };
                    placed += 1;
                }
            }
            for x in s.c.iter_mut() {
                *x = match round {
                    0 | 1 => ETA,
                    2 | 3 => -ETA,
                    _ => (rng.next() % (2 * ETA as u64 + 1)) as i32 - ETA,
                };
            }
            let want = schoolbook(&c, &s);
            assert!(round >= 4 || want.iter().any(|w| w.abs() == BETA));
            let (mut c_hat, mut s_hat, mut p) = (Poly::ZERO, Poly::ZERO, Poly::ZERO);
            to_ntt::<S>(&c, &mut c_hat);
            to_ntt::<S>(&s, &mut s_hat);
            product::<S>(&mut p, &c_hat, &s_hat);
            // Onto a base of the size of y or w0.
            let mut base = DsaPoly::ZERO;
            for x in base.c.iter_mut() {
                *x = (rng.next() % (1 << 21)) as i32 - (1 << 20);
            }
            let (mut plus, mut minus) = (base.clone(), base.clone());
            S::dsa_add_short(&mut plus, &p);
            S::dsa_sub_short(&mut minus, &p);
            for (i, w) in want.iter().enumerate() {
                let at = format!("{name} round {round} coefficient {i}");
                assert_eq!(plus.c[i], base.c[i] + w, "{at}");
                assert_eq!(minus.c[i], base.c[i] - w, "{at}");
            }
        }
    }

    #[test]
    fn products_are_exact_on_every_implementation() {
        exact::<crate::portable::Portable>("portable");
        for imp in crate::available() {
            crate::dispatch::with_implementation(imp, || {
                crate::dispatch::run!(|S| exact::<S>(imp.name()))
            });
        }
    }
}

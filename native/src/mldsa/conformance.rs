//! Operation-by-operation tests of every available implementation's `DsaSimd` against the
//! portable one, on random inputs and at the edges of each operation's stated input range.
//! NTT-domain values are in an implementation-defined order, so they are compared after
//! `dsa_invntt_tomont` (which returns the standard order), and checked against their bounds.
//! The known-answer and differential tests (tests/) then check the assembled algorithms.

use super::ops::{
    DsaPoly, DsaSimd, ETA_BYTES, GAMMA1, GAMMA2, N, Q, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES,
};
use crate::conformance::Rng;
use crate::portable::Portable;

fn below(rng: &mut Rng, n: u32) -> i32 {
    (rng.next() % n as u64) as i32
}

fn between(rng: &mut Rng, lo: i32, hi: i32) -> i32 {
    (lo as i64 + (rng.next() % (hi as i64 - lo as i64 + 1) as u64) as i64) as i32
}

/// Coefficients in [lo, hi], with the two extremes over-represented.
fn poly_in(rng: &mut Rng, lo: i32, hi: i32) -> DsaPoly {
    let mode = rng.next() % 4;
    let mut p = DsaPoly::ZERO;
    for c in p.c.iter_mut() {
        *c = match mode {
            0 => {
                if rng.next() & 1 == 0 {
                    lo
                } else {
                    hi
                }
            }
            1 => match rng.next() % 8 {
                0 => lo,
                1 => hi,
                _ => between(rng, lo, hi),
            },
            _ => between(rng, lo, hi),
        };
    }
    p
}

fn canonical(p: &DsaPoly) -> [i32; N] {
    p.c.map(|c| c.rem_euclid(Q))
}

fn assert_bound(p: &DsaPoly, bound: i64, what: &str) {
    for (i, &c) in p.c.iter().enumerate() {
        assert!(
            (c as i64).abs() < bound,
            "{what}: coefficient {i} = {c} is not below {bound}"
        );
    }
}

fn bytes<const L: usize>(rng: &mut Rng) -> [u8; L] {
    core::array::from_fn(|_| rng.next() as u8)
}

/// Runs every check for `S`; call through `dispatch::run!` so that `S` is available.
pub(crate) fn check<S: DsaSimd>() {
    let mut rng = Rng::new(0x6d6c_2d64_7361);
    for round in 0..200 {
        ntt::<S>(&mut rng, round);
        arithmetic::<S>(&mut rng);
        rounding::<S>(&mut rng);
        sampling::<S>(&mut rng);
        packing::<S>(&mut rng);
    }
}

/// `dsa_invntt_tomont` of an NTT-domain value after reducing it, so that any implementation's
/// order comes back to the standard one.
fn back<S: DsaSimd>(p: &DsaPoly) -> DsaPoly {
    let mut p = p.clone();
    S::dsa_reduce(&mut p);
    S::dsa_invntt_tomont(&mut p);
    p
}

fn ntt<S: DsaSimd>(rng: &mut Rng, round: usize) {
    // Forward NTT of |c| < q: bound, and the value through the inverse.
    let p = poly_in(rng, 1 - Q, Q - 1);
    let (mut a, mut b) = (p.clone(), p);
    S::dsa_ntt(&mut a);
    Portable::dsa_ntt(&mut b);
    assert_bound(&a, 9 * Q as i64, "dsa_ntt");
    let (x, y) = (back::<S>(&a), back::<Portable>(&b));
    assert_bound(&x, Q as i64, "dsa_invntt_tomont");
    assert_eq!(
        canonical(&x),
        canonical(&y),
        "dsa_ntt then dsa_invntt_tomont"
    );

    // Inverse NTT on any reduced input (whatever the order): the output bound.
    let mut r = poly_in(rng, -6283009, 6283009);
    S::dsa_invntt_tomont(&mut r);
    assert_bound(&r, Q as i64, "dsa_invntt_tomont");
    // The round trip from the standard domain.
    let mut standard = poly_in(rng, 1 - Q, Q - 1);
    let orig = standard.clone();
    S::dsa_ntt(&mut standard);
    let rt = back::<S>(&standard);
    // invntt_tomont(ntt(a)) = a · R, R = 2^32.
    let mont = (1i64 << 32) % Q as i64;
    for (i, (&got, &want)) in rt.c.iter().zip(&orig.c).enumerate() {
        assert_eq!(
            (got as i64).rem_euclid(Q as i64),
            (want as i64 * mont).rem_euclid(Q as i64),
            "ntt round trip, coefficient {i}"
        );
    }

    // Sampled (FIPS 204 order) polynomials through dsa_ntt_unpack and the pointwise products.
    let k = 1 + round % 6;
    let mut xs_s = Vec::new();
    let mut xs_p = Vec::new();
    let mut ys_s = Vec::new();
    let mut ys_p = Vec::new();
    for _ in 0..k {
        // A matrix entry: sampled in the NTT domain, below q.
        let mut a = poly_in(rng, 0, Q - 1);
        let ap = a.clone();
        S::dsa_ntt_unpack(&mut a);
        xs_s.push(a);
        xs_p.push(ap);
        // A vector entry: the NTT of |c| < q.
        let v = poly_in(rng, 1 - Q, Q - 1);
        let (mut vs, mut vp) = (v.clone(), v);
        S::dsa_ntt(&mut vs);
        Portable::dsa_ntt(&mut vp);
        ys_s.push(vs);
        ys_p.push(vp);
    }
    let (mut rs, mut rp) = (DsaPoly::ZERO, DsaPoly::ZERO);
    S::dsa_pointwise_montgomery(&mut rs, &xs_s[0], &ys_s[0]);
    Portable::dsa_pointwise_montgomery(&mut rp, &xs_p[0], &ys_p[0]);
    assert_bound(&rs, Q as i64, "dsa_pointwise_montgomery");
    assert_eq!(
        canonical(&back::<S>(&rs)),
        canonical(&back::<Portable>(&rp)),
        "dsa_pointwise_montgomery"
    );
    // Reduced times NTT output, as in c · s1.
    let mut red = poly_in(rng, -6283009, 6283009);
    let redp = red.clone();
    S::dsa_ntt_unpack(&mut red);
    S::dsa_pointwise_montgomery(&mut rs, &red, &ys_s[0]);
    Portable::dsa_pointwise_montgomery(&mut rp, &redp, &ys_p[0]);
    assert_bound(&rs, Q as i64, "dsa_pointwise_montgomery (reduced)");
    assert_eq!(
        canonical(&back::<S>(&rs)),
        canonical(&back::<Portable>(&rp)),
        "dsa_pointwise_montgomery (reduced)"
    );
    S::dsa_pointwise_acc_montgomery(&mut rs, &xs_s, &ys_s);
    Portable::dsa_pointwise_acc_montgomery(&mut rp, &xs_p, &ys_p);
    assert_bound(&rs, k as i64 * Q as i64, "dsa_pointwise_acc_montgomery");
    assert_eq!(
        canonical(&back::<S>(&rs)),
        canonical(&back::<Portable>(&rp)),
        "dsa_pointwise_acc_montgomery"
    );
}

fn arithmetic<S: DsaSimd>(rng: &mut Rng) {
    const REDUCE_MAX: i32 = i32::MAX - (1 << 22);
    let p = poly_in(rng, i32::MIN, REDUCE_MAX);
    let (mut a, mut b) = (p.clone(), p);
    S::dsa_reduce(&mut a);
    Portable::dsa_reduce(&mut b);
    assert_bound(&a, 6283010, "dsa_reduce");
    assert_eq!(canonical(&a), canonical(&b), "dsa_reduce");

    let p = poly_in(rng, -(1 << 30), 1 << 30);
    let (mut a, mut b) = (p.clone(), p);
    S::dsa_caddq(&mut a);
    Portable::dsa_caddq(&mut b);
    assert_eq!(a.c, b.c, "dsa_caddq");

    let x = poly_in(rng, -(1 << 29), 1 << 29);
    let y = poly_in(rng, -(1 << 29), 1 << 29);
    let (mut a, mut b) = (x.clone(), x.clone());
    S::dsa_add(&mut a, &y);
    Portable::dsa_add(&mut b, &y);
    assert_eq!(a.c, b.c, "dsa_add");
    let (mut a, mut b) = (x.clone(), x);
    S::dsa_sub(&mut a, &y);
    Portable::dsa_sub(&mut b, &y);
    assert_eq!(a.c, b.c, "dsa_sub");

    let p = poly_in(rng, 0, (1 << 10) - 1);
    let (mut a, mut b) = (p.clone(), p);
    S::dsa_shiftl(&mut a);
    Portable::dsa_shiftl(&mut b);
    assert_eq!(a.c, b.c, "dsa_shiftl");

    let p = poly_in(rng, 0, Q - 1);
    let (mut a1, mut a0, mut b1, mut b0) =
        (DsaPoly::ZERO, DsaPoly::ZERO, DsaPoly::ZERO, DsaPoly::ZERO);
    S::dsa_power2round(&mut a1, &mut a0, &p);
    Portable::dsa_power2round(&mut b1, &mut b0, &p);
    assert_eq!((a1.c, a0.c), (b1.c, b0.c), "dsa_power2round");

    let p = poly_in(rng, -6283009, 6283009);
    for bound in [
        1,
        2,
        GAMMA1 - 196,
        GAMMA2 - 196,
        (Q - 1) / 8,
        below(rng, (Q as u32 - 1) / 8) + 1,
    ] {
        assert_eq!(
            S::dsa_chk(&p, bound),
            Portable::dsa_chk(&p, bound),
            "dsa_chk"
        );
    }
    // Near the bound: all below, then one coefficient at it (either sign).
    let bound = GAMMA1 - 196;
    let mut p = poly_in(rng, 1 - bound, bound - 1);
    assert!(!S::dsa_chk(&p, bound), "dsa_chk below the bound");
    let i = below(rng, N as u32) as usize;
    p.c[i] = if rng.next() & 1 == 0 { bound } else { -bound };
    assert!(S::dsa_chk(&p, bound), "dsa_chk at the bound");
}

fn rounding<S: DsaSimd>(rng: &mut Rng) {
    // Inputs in [0, q) with the rounding boundaries of γ2 over-represented.
    let mut w = poly_in(rng, 0, Q - 1);
    for c in w.c.iter_mut() {
        if rng.next().is_multiple_of(4) {
            let m = below(rng, 17);
            let d = below(rng, 5) - 2;
            *c = (m * 2 * GAMMA2 + GAMMA2 + d).clamp(0, Q - 1);
        }
    }
    let (mut a1, mut a0, mut b1, mut b0) =
        (DsaPoly::ZERO, DsaPoly::ZERO, DsaPoly::ZERO, DsaPoly::ZERO);
    S::dsa_decompose(&mut a1, &mut a0, &w);
    Portable::dsa_decompose(&mut b1, &mut b0, &w);
    assert_eq!((a1.c, a0.c), (b1.c, b0.c), "dsa_decompose");

    let mut h = DsaPoly::ZERO;
    for c in h.c.iter_mut() {
        *c = (rng.next() & 1) as i32;
    }
    let (mut x, mut y) = (DsaPoly::ZERO, DsaPoly::ZERO);
    S::dsa_use_hint(&mut x, &w, &h);
    Portable::dsa_use_hint(&mut y, &w, &h);
    assert_eq!(x.c, y.c, "dsa_use_hint");

    // make_hint: low parts around ±γ2, high parts in [0, 16) with many zeros.
    let mut lo = poly_in(rng, -2 * GAMMA2, 2 * GAMMA2);
    for c in lo.c.iter_mut() {
        if rng.next().is_multiple_of(2) {
            *c = [GAMMA2, -GAMMA2][(rng.next() & 1) as usize] + below(rng, 3) - 1;
        }
    }
    let mut hi = poly_in(rng, 0, 15);
    for c in hi.c.iter_mut() {
        if rng.next().is_multiple_of(2) {
            *c = 0;
        }
    }
    let (mut x, mut y) = (DsaPoly::ZERO, DsaPoly::ZERO);
    let nx = S::dsa_make_hint(&mut x, &lo, &hi);
    let ny = Portable::dsa_make_hint(&mut y, &lo, &hi);
    assert_eq!((nx, x.c), (ny, y.c), "dsa_make_hint");
}

fn sampling<S: DsaSimd>(rng: &mut Rng) {
    // Uniform: 3-byte chunks, many of them at or above q when the top bit is kept.
    let filled = [0, 1, 7, 8, 100, 250, 255, 256][(rng.next() % 8) as usize];
    let len = 3 * (1 + below(rng, 200) as usize);
    let mut buf = vec![0u8; len];
    for (i, b) in buf.iter_mut().enumerate() {
        *b = rng.next() as u8;
        // Values near q: 0x7fe001 = q; bias some chunks to it.
        if i % 3 == 2 && rng.next().is_multiple_of(4) {
            *b = 0x7f | (*b & 0x80);
        }
    }
    let prefix = poly_in(rng, 0, Q - 1);
    let (mut x, mut y) = (prefix.clone(), prefix.clone());
    let nx = S::dsa_rej_uniform(&mut x, filled, &buf);
    let ny = Portable::dsa_rej_uniform(&mut y, filled, &buf);
    assert_eq!(nx, ny, "dsa_rej_uniform count");
    assert_eq!(x.c[..nx], y.c[..ny], "dsa_rej_uniform values");

    // Bounded (η = 4): half-bytes 9..15 are rejected.
    let len = 1 + below(rng, 300) as usize;
    let buf: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
    let (mut x, mut y) = (prefix.clone(), prefix);
    let nx = S::dsa_rej_eta(&mut x, filled, &buf);
    let ny = Portable::dsa_rej_eta(&mut y, filled, &buf);
    assert_eq!(nx, ny, "dsa_rej_eta count");
    assert_eq!(x.c[..nx], y.c[..ny], "dsa_rej_eta values");
}

fn packing<S: DsaSimd>(rng: &mut Rng) {
    let p = poly_in(rng, 0, (1 << 10) - 1);
    let (mut x, mut y) = ([0u8; T1_BYTES], [0u8; T1_BYTES]);
    S::dsa_pack_t1(&p, &mut x);
    Portable::dsa_pack_t1(&p, &mut y);
    assert_eq!(x, y, "dsa_pack_t1");
    let b = bytes::<T1_BYTES>(rng);
    let (mut u, mut v) = (DsaPoly::ZERO, DsaPoly::ZERO);
    S::dsa_unpack_t1(&mut u, &b);
    Portable::dsa_unpack_t1(&mut v, &b);
    assert_eq!(u.c, v.c, "dsa_unpack_t1");

    let p = poly_in(rng, 1 - (1 << 12), 1 << 12);
    let (mut x, mut y) = ([0u8; T0_BYTES], [0u8; T0_BYTES]);
    S::dsa_pack_t0(&p, &mut x);
    Portable::dsa_pack_t0(&p, &mut y);
    assert_eq!(x, y, "dsa_pack_t0");
    let b = bytes::<T0_BYTES>(rng);
    S::dsa_unpack_t0(&mut u, &b);
    Portable::dsa_unpack_t0(&mut v, &b);
    assert_eq!(u.c, v.c, "dsa_unpack_t0");

    let p = poly_in(rng, -4, 4);
    let (mut x, mut y) = ([0u8; ETA_BYTES], [0u8; ETA_BYTES]);
    S::dsa_pack_eta(&p, &mut x);
    Portable::dsa_pack_eta(&p, &mut y);
    assert_eq!(x, y, "dsa_pack_eta");
    // Random bytes (often out of range) and packed valid ones.
    for b in [bytes::<ETA_BYTES>(rng), y] {
        let fs = S::dsa_unpack_eta(&mut u, &b);
        let fp = Portable::dsa_unpack_eta(&mut v, &b);
        assert_eq!(fs, fp, "dsa_unpack_eta flag");
        if fp {
            assert_eq!(u.c, v.c, "dsa_unpack_eta");
        }
    }

    let p = poly_in(rng, 1 - GAMMA1, GAMMA1);
    let (mut x, mut y) = ([0u8; Z_BYTES], [0u8; Z_BYTES]);
    S::dsa_pack_z(&p, &mut x);
    Portable::dsa_pack_z(&p, &mut y);
    assert_eq!(x, y, "dsa_pack_z");
    let b = bytes::<Z_BYTES>(rng);
    S::dsa_unpack_z(&mut u, &b);
    Portable::dsa_unpack_z(&mut v, &b);
    assert_eq!(u.c, v.c, "dsa_unpack_z");

    let p = poly_in(rng, 0, 15);
    let (mut x, mut y) = ([0u8; W1_BYTES], [0u8; W1_BYTES]);
    S::dsa_pack_w1(&p, &mut x);
    Portable::dsa_pack_w1(&p, &mut y);
    assert_eq!(x, y, "dsa_pack_w1");
}

#[test]
fn portable_passes_its_own_checks() {
    check::<Portable>();
}

#[test]
fn every_implementation_matches_portable() {
    for imp in crate::available() {
        crate::dispatch::with_implementation(imp, || crate::dispatch::run!(|S| check::<S>()));
    }
}

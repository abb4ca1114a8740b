//! K-PKE (FIPS 203 section 5), generic over the implementation `S` and the rank `K`.

use super::sample;
use crate::ct::declassified;
use crate::keccak::{Chain, NoRider, Rider, RidingSponge, sha3_512};
use crate::simd::{Poly, Simd, wipe_bytes};
use sample::NoiseRider;
use zeroize::Zeroize;

/// (d_u, d_v) for the rank: ML-KEM-768 uses (10, 4), ML-KEM-1024 (11, 5).
pub(crate) const fn compression<const K: usize>() -> (u32, u32) {
    if K == 4 { (11, 5) } else { (10, 4) }
}

pub(crate) const POLY_BYTES: usize = 384;

fn poly_bytes(bytes: &[u8], i: usize) -> &[u8; POLY_BYTES] {
    bytes[i * POLY_BYTES..(i + 1) * POLY_BYTES]
        .try_into()
        .expect("a whole polynomial")
}

fn poly_bytes_mut(bytes: &mut [u8], i: usize) -> &mut [u8; POLY_BYTES] {
    (&mut bytes[i * POLY_BYTES..(i + 1) * POLY_BYTES])
        .try_into()
        .expect("a whole polynomial")
}

/// K-PKE.KeyGen(d): writes ek (384·K + 32 bytes) and dk_PKE (384·K bytes), and returns H(ek)
/// (ML-KEM's keygen needs it; here it is computed while the matrix is still being sampled).
///
/// The Keccak work is scheduled so that H(ek) rides in the matrix expansion's spare lane:
/// the first four noise polynomials (s, and e_0 for K = 3) come from one four-way call; each
/// row's first three entries share a four-way batch whose lane 3 carries first the rest of e,
/// then each block of ek once the rows of t̂ before it are known; ML-KEM-1024's fourth column
/// is a batch of its own, sampled first. What H has left at the end goes on one state: four
/// permutations instead of 9 (ML-KEM-768) or 12 (ML-KEM-1024).
#[inline(always)]
pub(crate) fn keygen<S: Simd, const K: usize>(
    d: &[u8; 32],
    ek: &mut [u8],
    dk_pke: &mut [u8],
) -> [u8; 32] {
    let mut g = sha3_512::<S>(&[d, &[K as u8]]);
    // ρ goes into ek: public, though computed from the secret d.
    let rho: [u8; 32] = declassified(g[..32].try_into().expect("32 bytes"));
    let mut sigma: [u8; 32] = g[32..].try_into().expect("32 bytes");
    wipe_bytes(&mut g);

    // s = noise[..K], e = noise[K..2K] (η1 = 2).
    let mut noise: [Poly; 8] = core::array::from_fn(|_| Poly::ZERO);
    sample::cbd2_x4::<S>(&sigma, 0, &mut noise[..4]);
    let mut sampled = 4;
    for p in &mut noise[..K] {
        S::ntt(p);
    }
    let mut last_column: [Poly; 4] = core::array::from_fn(|_| Poly::ZERO);
    if K == 4 {
        let column: [(u8, u8); 4] = core::array::from_fn(|i| (i as u8, 3));
        sample::entries::<S, NoRider>(&rho, false, &column, &mut last_column, None);
    }

    let mut h = RidingSponge::sha3_256();
    let mut row: [Poly; K] = core::array::from_fn(|_| Poly::ZERO);
    let mut t = Poly::ZERO;
    for i in 0..K {
        let first: [(u8, u8); 3] = core::array::from_fn(|j| (i as u8, j as u8));
        {
            let (_, rest) = noise[..2 * K].split_at_mut(sampled);
            let mut e = NoiseRider::<S>::new(&sigma, sampled as u8, rest);
            let mut both = Chain::new(&mut e, &mut h);
            sample::entries::<S, _>(&rho, false, &first, &mut row[..3], Some(&mut both));
            sampled += e.taken();
        }
        if K == 4 {
            row[3] = last_column[i].clone();
        }
        // Each batch has at least three seats (MATRIX_BLOCKS), so e_i has ridden by now.
        debug_assert!(sampled > K + i);
        let (s, e) = noise.split_at_mut(K);
        S::ntt(&mut e[i]);
        S::basemul_acc_montgomery(&mut t, &row, s);
        S::tomont(&mut t);
        S::add(&mut t, &e[i]);
        S::reduce(&mut t);
        S::ntt_to_bytes(&t, poly_bytes_mut(ek, i));
        S::ntt_to_bytes(&s[i], poly_bytes_mut(dk_pke, i));
        h.push(poly_bytes(ek, i));
    }
    wipe_bytes(&mut sigma);
    ek[K * POLY_BYTES..].copy_from_slice(&rho);
    h.push(&rho);
    let mut hash = [0u8; 32];
    h.finish::<S>(&mut hash);
    noise.zeroize();
    t.zeroize();
    hash
}

/// K-PKE.Encrypt(ek, m, r) into `ct`. `ek` has passed the modulus check. `first` takes the
/// matrix expansion's spare lanes (see [`sample::matrix`]) before the noise does.
#[inline(always)]
pub(crate) fn encrypt<S: Simd, const K: usize, R: Rider>(
    ek: &[u8],
    m: &[u8; 32],
    coins: &[u8; 32],
    ct: &mut [u8],
    first: Option<&mut R>,
) {
    let (du, dv) = compression::<K>();
    let mut t: [Poly; K] = core::array::from_fn(|_| Poly::ZERO);
    for (i, p) in t.iter_mut().enumerate() {
        S::ntt_from_bytes(p, poly_bytes(ek, i));
    }
    let rho: &[u8; 32] = ek[K * POLY_BYTES..].try_into().expect("ρ");
    // r = noise[..K], e1 = noise[K..2K], e2 = noise[2K].
    let mut at: [[Poly; K]; K] = core::array::from_fn(|_| core::array::from_fn(|_| Poly::ZERO));
    let mut noise_polys: [Poly; 9] = core::array::from_fn(|_| Poly::ZERO);
    {
        let mut noise = NoiseRider::<S>::new(coins, 0, &mut noise_polys[..2 * K + 1]);
        // K = 3: every batch seats a rider. K = 4: twelve seats for a `first` (J), none for
        // the noise alone.
        let seated = match (K, first.is_some()) {
            (3, _) => 9,
            (_, true) => 12,
            _ => 0,
        };
        match first {
            Some(first) => {
                let mut both = Chain::new(first, &mut noise);
                sample::matrix::<S, K, _>(rho, true, &mut at, Some(&mut both), seated);
            }
            None => sample::matrix::<S, K, _>(rho, true, &mut at, Some(&mut noise), seated),
        }
        noise.finish();
    }
    for p in &mut noise_polys[..K] {
        S::ntt(p);
    }
    let (r, rest) = noise_polys.split_at(K);
    let (e1, rest) = rest.split_at(K);
    let e2 = &rest[0];

    let u_bytes = 32 * du as usize;
    let mut u = Poly::ZERO;
    for i in 0..K {
        S::basemul_acc_montgomery(&mut u, &at[i], r);
        S::invntt_tomont(&mut u);
        S::add(&mut u, &e1[i]);
        S::reduce(&mut u);
        S::compress(&u, du, &mut ct[i * u_bytes..(i + 1) * u_bytes]);
    }

    let mut v = Poly::ZERO;
    let mut mu = Poly::ZERO;
    S::basemul_acc_montgomery(&mut v, &t, r);
    S::invntt_tomont(&mut v);
    S::add(&mut v, e2);
    S::from_msg(&mut mu, m);
    S::add(&mut v, &mu);
    S::reduce(&mut v);
    S::compress(&v, dv, &mut ct[K * u_bytes..]);

    noise_polys.zeroize();
    u.zeroize();
    v.zeroize();
    mu.zeroize();
}

/// K-PKE.Decrypt(dk_PKE, c): the message.
#[inline(always)]
pub(crate) fn decrypt<S: Simd, const K: usize>(dk_pke: &[u8], ct: &[u8]) -> [u8; 32] {
    let (du, dv) = compression::<K>();
    let u_bytes = 32 * du as usize;
    let mut u: [Poly; K] = core::array::from_fn(|_| Poly::ZERO);
    for (i, p) in u.iter_mut().enumerate() {
        S::decompress(p, du, &ct[i * u_bytes..(i + 1) * u_bytes]);
        S::ntt(p);
    }
    let mut v = Poly::ZERO;
    S::decompress(&mut v, dv, &ct[K * u_bytes..]);

    let mut s: [Poly; K] = core::array::from_fn(|_| Poly::ZERO);
    for (i, p) in s.iter_mut().enumerate() {
        // dk_PKE is not range-checked by FIPS 203; values up to 4095 are within the bounds of
        // the base multiplication.
        S::ntt_from_bytes(p, poly_bytes(dk_pke, i));
    }
    let mut w = Poly::ZERO;
    S::basemul_acc_montgomery(&mut w, &s, &u);
    S::invntt_tomont(&mut w);
    S::sub(&mut v, &w);
    S::reduce(&mut v);
    let mut m = [0u8; 32];
    S::to_msg(&v, &mut m);

    s.zeroize();
    w.zeroize();
    v.zeroize();
    u.zeroize();
    m
}

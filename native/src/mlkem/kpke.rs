//! K-PKE (FIPS 203 section 5), generic over the implementation `S` and the rank `K`.

use super::sample;
use crate::keccak::{Chain, Rider, sha3_512};
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

/// K-PKE.KeyGen(d): writes ek (384·K + 32 bytes) and dk_PKE (384·K bytes).
#[inline(always)]
pub(crate) fn keygen<S: Simd, const K: usize>(d: &[u8; 32], ek: &mut [u8], dk_pke: &mut [u8]) {
    let mut g = sha3_512::<S>(&[d, &[K as u8]]);
    let rho: [u8; 32] = g[..32].try_into().expect("32 bytes");
    let mut sigma: [u8; 32] = g[32..].try_into().expect("32 bytes");
    wipe_bytes(&mut g);

    // s = noise[..K], e = noise[K..2K] (η1 = 2), in the matrix expansion's spare lanes where
    // it has them.
    let mut a: [[Poly; K]; K] = core::array::from_fn(|_| core::array::from_fn(|_| Poly::ZERO));
    let mut noise_polys: [Poly; 8] = core::array::from_fn(|_| Poly::ZERO);
    {
        let mut noise = NoiseRider::<S>::new(&sigma, 0, &mut noise_polys[..2 * K]);
        sample::matrix::<S, K, _>(&rho, false, &mut a, Some(&mut noise));
        noise.finish();
    }
    wipe_bytes(&mut sigma);
    for p in &mut noise_polys[..2 * K] {
        S::ntt(p);
    }
    let (s, e) = noise_polys[..2 * K].split_at(K);

    let mut t = Poly::ZERO;
    for i in 0..K {
        S::basemul_acc_montgomery(&mut t, &a[i], s);
        S::tomont(&mut t);
        S::add(&mut t, &e[i]);
        S::reduce(&mut t);
        S::ntt_to_bytes(&t, poly_bytes_mut(ek, i));
        S::ntt_to_bytes(&s[i], poly_bytes_mut(dk_pke, i));
    }
    ek[K * POLY_BYTES..].copy_from_slice(&rho);
    noise_polys.zeroize();
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
        match first {
            Some(first) => {
                let mut both = Chain::new(first, &mut noise);
                sample::matrix::<S, K, _>(rho, true, &mut at, Some(&mut both));
            }
            None => sample::matrix::<S, K, _>(rho, true, &mut at, Some(&mut noise)),
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

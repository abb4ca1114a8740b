//! ML-DSA.KeyGen_internal (FIPS 204 algorithm 6).

use super::encode::{pack_pk, pack_sk};
use super::ops::{DsaPoly, DsaSimd, zeros};
use super::params::{K, L, PK_BYTES, SK_BYTES};
use super::sample::{expand_a, expand_s};
use crate::keccak::shake256;
use crate::simd::wipe_bytes;
use zeroize::Zeroize;

pub(crate) fn keygen<S: DsaSimd>(xi: &[u8; 32], pk: &mut [u8; PK_BYTES], sk: &mut [u8; SK_BYTES]) {
    let mut seed = [0u8; 128];
    shake256::<S>(&[xi, &[K as u8, L as u8]], &mut seed);
    let rho: [u8; 32] = seed[..32].try_into().expect("32 bytes");
    let mut rho_prime: [u8; 64] = seed[32..96].try_into().expect("64 bytes");
    let mut key: [u8; 32] = seed[96..].try_into().expect("32 bytes");

    let mut a: [DsaPoly; K * L] = zeros();
    expand_a::<S>(&rho, &mut a);
    let mut s: [DsaPoly; L + K] = zeros();
    expand_s::<S>(&rho_prime, &mut s);

    let mut s1_hat: [DsaPoly; L] = zeros();
    s1_hat.clone_from_slice(&s[..L]);
    for p in s1_hat.iter_mut() {
        S::dsa_ntt(p);
    }
    // t = NTT^-1(Â ∘ ŝ1) + s2, then (t1, t0) = Power2Round(t).
    let mut t1: [DsaPoly; K] = zeros();
    let mut t0: [DsaPoly; K] = zeros();
    let mut t = DsaPoly::ZERO;
    for r in 0..K {
        S::dsa_pointwise_acc_montgomery(&mut t, &a[r * L..(r + 1) * L], &s1_hat);
        S::dsa_reduce(&mut t);
        S::dsa_invntt_tomont(&mut t);
        S::dsa_add(&mut t, &s[L + r]);
        S::dsa_caddq(&mut t);
        S::dsa_power2round(&mut t1[r], &mut t0[r], &t);
    }

    pack_pk::<S>(pk, &rho, &t1);
    let mut tr = [0u8; 64];
    shake256::<S>(&[&pk[..]], &mut tr);
    pack_sk::<S>(sk, (&rho, &key, &tr), &s, &t0);

    wipe_bytes(&mut seed);
    wipe_bytes(&mut rho_prime);
    wipe_bytes(&mut key);
    s.zeroize();
    s1_hat.zeroize();
    t.zeroize();
    t0.zeroize();
}

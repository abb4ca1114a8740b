//! ML-DSA.KeyGen_internal (FIPS 204 algorithm 6).

use super::encode::{pack_pk_rho, pack_pk_row, pack_sk};
use super::ops::{DsaPoly, DsaSimd, zeros};
use super::params::{K, L, PK_BYTES, SK_BYTES};
use super::sample::{expand_s, matrix_batches, matrix_entries, matrix_lends_lane};
use crate::ct::declassified;
use crate::keccak::{RidingSponge, shake256};
use crate::simd::wipe_bytes;
use zeroize::Zeroize;

pub(crate) fn keygen<S: DsaSimd>(xi: &[u8; 32], pk: &mut [u8; PK_BYTES], sk: &mut [u8; SK_BYTES]) {
    let mut seed = [0u8; 128];
    shake256::<S>(&[xi, &[K as u8, L as u8]], &mut seed);
    // ρ goes into pk: public, though computed from the secret ξ.
    let rho: [u8; 32] = declassified(seed[..32].try_into().expect("32 bytes"));
    let mut rho_prime: [u8; 64] = seed[32..96].try_into().expect("64 bytes");
    let mut key: [u8; 32] = seed[96..].try_into().expect("32 bytes");

    let mut s: [DsaPoly; L + K] = zeros();
    expand_s::<S>(&rho_prime, &mut s);
    let mut s1_hat: [DsaPoly; L] = zeros();
    s1_hat.clone_from_slice(&s[..L]);
    for p in s1_hat.iter_mut() {
        S::dsa_ntt(p);
    }

    // ExpandA a batch at a time. As soon as a row of Â is in: t = NTT^-1(Â ∘ ŝ1) + s2, then
    // (t1, t0) = Power2Round(t) and t1 into pk. Where a batch leaves a four-way lane spare
    // (the last; most of pk is known by then), tr = H(pk) absorbs its whole blocks there and
    // the rest on one state at the end; elsewhere it is hashed at the end.
    let mut a: [DsaPoly; K * L] = zeros();
    let mut t0: [DsaPoly; K] = zeros();
    let (mut t, mut t1) = (DsaPoly::ZERO, DsaPoly::ZERO);
    let mut h = matrix_lends_lane::<S>().then(RidingSponge::shake256_open);
    let rho_bytes = pack_pk_rho(pk, &rho);
    if let Some(h) = h.as_mut() {
        h.push(rho_bytes);
    }
    let mut rows = 0;
    matrix_batches::<S>(|range| {
        let end = range.end;
        matrix_entries::<S, _>(&rho, range.clone(), &mut a[range], h.as_mut());
        for r in rows..end / L {
            S::dsa_pointwise_acc_montgomery(&mut t, &a[r * L..(r + 1) * L], &s1_hat);
            S::dsa_reduce(&mut t);
            S::dsa_invntt_tomont(&mut t);
            S::dsa_add(&mut t, &s[L + r]);
            S::dsa_caddq(&mut t);
            S::dsa_power2round(&mut t1, &mut t0[r], &t);
            let row = pack_pk_row::<S>(pk, r, &t1);
            if let Some(h) = h.as_mut() {
                h.push(row);
            }
        }
        rows = end / L;
    });
    debug_assert_eq!(rows, K);
    let mut tr = [0u8; 64];
    match h.as_mut() {
        Some(h) => h.finish::<S>(&mut tr),
        None => shake256::<S>(&[&pk[..]], &mut tr),
    }
    pack_sk::<S>(sk, (&rho, &key, &tr), &s, &t0);

    wipe_bytes(&mut seed);
    wipe_bytes(&mut rho_prime);
    wipe_bytes(&mut key);
    s.zeroize();
    s1_hat.zeroize();
    t.zeroize();
    t0.zeroize();
}

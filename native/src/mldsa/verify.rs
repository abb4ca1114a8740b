//! ML-DSA.Verify_internal from μ (FIPS 204 algorithm 8). All inputs are public.

use super::encode::{pack_w1, unpack_pk, unpack_sig};
use super::ops::{DsaPoly, DsaSimd, GAMMA1, zeros};
use super::params::{BETA, CTILDE_BYTES, K, L, PK_BYTES, SIG_BYTES};
use super::sample::{expand_a, sample_in_ball};
use crate::keccak::shake256;

pub(crate) fn verify_mu<S: DsaSimd>(
    pk: &[u8; PK_BYTES],
    mu: &[u8; 64],
    sig: &[u8; SIG_BYTES],
) -> bool {
    let (mut z, mut h): ([DsaPoly; L], [DsaPoly; K]) = (zeros(), zeros());
    let Some(ctilde) = unpack_sig::<S>(sig, &mut z, &mut h) else {
        return false;
    };
    if z.iter().any(|p| S::dsa_chk(p, GAMMA1 - BETA)) {
        return false;
    }
    let mut t1: [DsaPoly; K] = zeros();
    let rho = unpack_pk::<S>(pk, &mut t1);
    let mut a: [DsaPoly; K * L] = zeros();
    expand_a::<S>(&rho, &mut a);
    let mut c = DsaPoly::ZERO;
    sample_in_ball::<S>(&mut c, &ctilde);
    S::dsa_ntt(&mut c);
    for p in z.iter_mut() {
        S::dsa_ntt(p);
    }

    // w'1 = UseHint(h, NTT^-1(Â ∘ ẑ − ĉ ∘ NTT(t1 · 2^d))).
    let mut w1: [DsaPoly; K] = zeros();
    let mut w = DsaPoly::ZERO;
    let mut ct1 = DsaPoly::ZERO;
    for r in 0..K {
        S::dsa_pointwise_acc_montgomery(&mut w, &a[r * L..(r + 1) * L], &z);
        S::dsa_shiftl(&mut t1[r]);
        S::dsa_ntt(&mut t1[r]);
        S::dsa_pointwise_montgomery(&mut ct1, &c, &t1[r]);
        S::dsa_sub(&mut w, &ct1);
        S::dsa_reduce(&mut w);
        S::dsa_invntt_tomont(&mut w);
        S::dsa_caddq(&mut w);
        S::dsa_use_hint(&mut w1[r], &w, &h[r]);
    }
    let mut w1_bytes = [0u8; K * 128];
    pack_w1::<S>(&w1, &mut w1_bytes);
    let mut c2 = [0u8; CTILDE_BYTES];
    shake256::<S>(&[mu, &w1_bytes], &mut c2);
    c2 == ctilde
}

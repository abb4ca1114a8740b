//! ML-DSA.Sign_internal from μ (FIPS 204 algorithm 7, steps 6 onwards): the rejection loop.
//!
//! The loop's branches depend only on whether an attempt is rejected (which FIPS 204 allows
//! to show) and on the XOF output of SampleInBall's and ExpandA's rejection sampling.

use super::encode::{pack_sig, pack_w1, unpack_sk_polys};
use super::ops::{DsaPoly, DsaSimd, GAMMA1, GAMMA2, zeros};
use super::params::{BETA, CTILDE_BYTES, K, L, OMEGA, SIG_BYTES, SK_BYTES};
use super::sample::{MaskStream, expand_a, sample_in_ball};
use crate::ct::{declassified, declassify};
use crate::keccak::shake256;
use crate::simd::wipe_bytes;
use zeroize::Zeroize;

/// A signing key as the rejection loop reads it: Â, ŝ1 ‖ ŝ2 and t̂0 in implementation `S`'s NTT
/// order (only `S` may read them), and K. What [`sign_mu`] recomputes on every call, kept for
/// the life of an unlocked key (FIPS 204 algorithm 7, steps 1 to 5). Zeroized on drop.
pub(crate) struct ExpandedPolys {
    a: [DsaPoly; K * L],
    s_hat: [DsaPoly; L + K],
    t0_hat: [DsaPoly; K],
    key: [u8; 32],
}

impl Drop for ExpandedPolys {
    fn drop(&mut self) {
        // Â is public (ExpandA of ρ); the rest is secret.
        self.s_hat.zeroize();
        self.t0_hat.zeroize();
        wipe_bytes(&mut self.key);
    }
}

/// Expands a signing key whose s1 and s2 passed the range check, on the heap (47 KiB).
pub(crate) fn expand_sk<S: DsaSimd>(sk: &[u8; SK_BYTES]) -> Box<ExpandedPolys> {
    let mut e = Box::new(ExpandedPolys {
        a: zeros(),
        s_hat: zeros(),
        t0_hat: zeros(),
        key: [0u8; 32],
    });
    let rho: &[u8; 32] = sk[..32].try_into().expect("32 bytes");
    e.key.copy_from_slice(&sk[32..64]);
    let in_range = unpack_sk_polys::<S>(sk, &mut e.s_hat, &mut e.t0_hat);
    debug_assert!(in_range, "signing keys are range-checked when made");
    for p in e.s_hat.iter_mut().chain(e.t0_hat.iter_mut()) {
        S::dsa_ntt(p);
    }
    expand_a::<S>(rho, &mut e.a);
    e
}

/// Signs μ with an expanded key whose s1 and s2 passed the range check. Returns the number
/// of attempts the rejection loop took (for timing tests, which compare like with like).
pub(crate) fn sign_mu<S: DsaSimd>(
    sk: &[u8; SK_BYTES],
    mu: &[u8; 64],
    rnd: &[u8; 32],
    sig: &mut [u8; SIG_BYTES],
) -> u32 {
    sign_mu_expanded::<S>(&expand_sk::<S>(sk), mu, rnd, sig)
}

/// [`sign_mu`] with the key already expanded by [`expand_sk`] under the same `S`.
pub(crate) fn sign_mu_expanded<S: DsaSimd>(
    e: &ExpandedPolys,
    mu: &[u8; 64],
    rnd: &[u8; 32],
    sig: &mut [u8; SIG_BYTES],
) -> u32 {
    let (a, s_hat, t0_hat) = (&e.a, &e.s_hat, &e.t0_hat);
    let mut rho_pp = [0u8; 64];
    shake256::<S>(&[&e.key, rnd, mu], &mut rho_pp);

    let (mut y, mut z): ([DsaPoly; L], [DsaPoly; L]) = (zeros(), zeros());
    let (mut w0, mut w1, mut h): ([DsaPoly; K], [DsaPoly; K], [DsaPoly; K]) =
        (zeros(), zeros(), zeros());
    let mut w = DsaPoly::ZERO;
    let mut c = DsaPoly::ZERO;
    let mut w1_bytes = [0u8; K * 128];
    let mut ctilde = [0u8; CTILDE_BYTES];
    let mut masks = MaskStream::<S>::new(&rho_pp);
    let mut attempts = 0u32;
    loop {
        attempts += 1;
        masks.take(&mut y);

        // w = NTT^-1(Â ∘ NTT(y)), (w1, w0) = Decompose(w), c̃ = H(μ || w1Encode(w1)).
        for (zi, yi) in z.iter_mut().zip(&y) {
            zi.clone_from(yi);
            S::dsa_ntt(zi);
        }
        for r in 0..K {
            S::dsa_pointwise_acc_montgomery(&mut w, &a[r * L..(r + 1) * L], &z);
            S::dsa_reduce(&mut w);
            S::dsa_invntt_tomont(&mut w);
            S::dsa_caddq(&mut w);
            S::dsa_decompose(&mut w1[r], &mut w0[r], &w);
        }
        pack_w1::<S>(&w1, &mut w1_bytes);
        shake256::<S>(&[mu, &w1_bytes], &mut ctilde);
        // The challenge may show: it is in the signature, and a rejected attempt's is a hash
        // of its w1, as in the reference implementation (docs/security.md, section 7).
        declassify(&mut ctilde);
        sample_in_ball::<S>(&mut c, &ctilde);
        S::dsa_ntt(&mut c);

        // z = y + c·s1; reject if ||z|| >= γ1 − β.
        let mut reject = false;
        for i in 0..L {
            S::dsa_pointwise_montgomery(&mut z[i], &c, &s_hat[i]);
            S::dsa_invntt_tomont(&mut z[i]);
            S::dsa_add(&mut z[i], &y[i]);
            S::dsa_reduce(&mut z[i]);
            reject |= S::dsa_chk(&z[i], GAMMA1 - BETA);
        }
        // Which bound rejected an attempt may show (docs/security.md, section 7), here and
        // below.
        if declassified(reject) {
            continue;
        }
        // r0 = w0 − c·s2; reject if ||r0|| >= γ2 − β.
        for r in 0..K {
            S::dsa_pointwise_montgomery(&mut h[r], &c, &s_hat[L + r]);
            S::dsa_invntt_tomont(&mut h[r]);
            S::dsa_sub(&mut w0[r], &h[r]);
            S::dsa_reduce(&mut w0[r]);
            reject |= S::dsa_chk(&w0[r], GAMMA2 - BETA);
        }
        if declassified(reject) {
            continue;
        }
        // c·t0; reject if ||c·t0|| >= γ2 or there are more than ω hints.
        for r in 0..K {
            S::dsa_pointwise_montgomery(&mut h[r], &c, &t0_hat[r]);
            S::dsa_invntt_tomont(&mut h[r]);
            S::dsa_reduce(&mut h[r]);
            reject |= S::dsa_chk(&h[r], GAMMA2);
        }
        if declassified(reject) {
            continue;
        }
        let mut hints = 0;
        for r in 0..K {
            S::dsa_add(&mut w0[r], &h[r]);
            hints += S::dsa_make_hint(&mut h[r], &w0[r], &w1[r]);
        }
        if declassified(hints) > OMEGA {
            continue;
        }
        // Accepted: z and the hints are the signature.
        declassify(&mut h);
        pack_sig::<S>(sig, &ctilde, &z, &h);
        break;
    }

    drop(masks);
    wipe_bytes(&mut rho_pp);
    y.zeroize();
    z.zeroize();
    w0.zeroize();
    w1.zeroize();
    h.zeroize();
    w.zeroize();
    c.zeroize();
    wipe_bytes(&mut w1_bytes);
    wipe_bytes(&mut ctilde);
    attempts
}

/// Whether every coefficient of s1 and s2 in `sk` is in [−η, η].
pub(crate) fn range_check<S: DsaSimd>(sk: &[u8; SK_BYTES]) -> bool {
    let mut s: [DsaPoly; L + K] = zeros();
    let mut t0: [DsaPoly; K] = zeros();
    let ok = unpack_sk_polys::<S>(sk, &mut s, &mut t0);
    s.zeroize();
    t0.zeroize();
    ok
}

//! pkEncode/pkDecode, skEncode/skDecode and sigEncode/sigDecode (FIPS 204 section 7.2),
//! polynomial by polynomial through the `DsaSimd` packing operations.

use super::ops::{DsaPoly, DsaSimd, ETA_BYTES, T0_BYTES, T1_BYTES, Z_BYTES};
use super::params::{CTILDE_BYTES, K, L, OMEGA, PK_BYTES, SIG_BYTES, SK_BYTES};

const S1_AT: usize = 128;
const S2_AT: usize = S1_AT + L * ETA_BYTES;
const T0_AT: usize = S2_AT + K * ETA_BYTES;
const Z_AT: usize = CTILDE_BYTES;
const H_AT: usize = Z_AT + L * Z_BYTES;

fn chunk<const M: usize>(bytes: &[u8], i: usize) -> &[u8; M] {
    bytes[i * M..(i + 1) * M].try_into().expect("chunk length")
}

fn chunk_mut<const M: usize>(bytes: &mut [u8], i: usize) -> &mut [u8; M] {
    (&mut bytes[i * M..(i + 1) * M])
        .try_into()
        .expect("chunk length")
}

/// pk = ρ || t1, written in parts as key generation computes them: ρ here (returned, for
/// the hash of pk), then each row with [`pack_pk_row`].
pub(crate) fn pack_pk_rho<'a>(pk: &'a mut [u8; PK_BYTES], rho: &[u8; 32]) -> &'a [u8] {
    pk[..32].copy_from_slice(rho);
    &pk[..32]
}

/// Row `i` of t1 into pk; returns the bytes written.
pub(crate) fn pack_pk_row<'a, S: DsaSimd>(
    pk: &'a mut [u8; PK_BYTES],
    i: usize,
    t1: &DsaPoly,
) -> &'a [u8] {
    let out = chunk_mut::<T1_BYTES>(&mut pk[32..], i);
    S::dsa_pack_t1(t1, out);
    out
}

pub(crate) fn unpack_pk<S: DsaSimd>(pk: &[u8; PK_BYTES], t1: &mut [DsaPoly; K]) -> [u8; 32] {
    for (i, p) in t1.iter_mut().enumerate() {
        S::dsa_unpack_t1(p, chunk::<T1_BYTES>(&pk[32..], i));
    }
    pk[..32].try_into().expect("32 bytes")
}

/// sk = ρ || K || tr || s1 || s2 || t0, with s = s1 || s2.
pub(crate) fn pack_sk<S: DsaSimd>(
    sk: &mut [u8; SK_BYTES],
    seeds: (&[u8; 32], &[u8; 32], &[u8; 64]),
    s: &[DsaPoly; L + K],
    t0: &[DsaPoly; K],
) {
    sk[..32].copy_from_slice(seeds.0);
    sk[32..64].copy_from_slice(seeds.1);
    sk[64..128].copy_from_slice(seeds.2);
    for (i, p) in s.iter().enumerate() {
        S::dsa_pack_eta(p, chunk_mut(&mut sk[S1_AT..], i));
    }
    for (i, p) in t0.iter().enumerate() {
        S::dsa_pack_t0(p, chunk_mut(&mut sk[T0_AT..], i));
    }
}

/// The polynomials of sk: s = s1 || s2 and t0. Returns whether every coefficient of s1 and
/// s2 is in [−η, η] (computed over all of them; only the result may be branched on).
pub(crate) fn unpack_sk_polys<S: DsaSimd>(
    sk: &[u8; SK_BYTES],
    s: &mut [DsaPoly; L + K],
    t0: &mut [DsaPoly; K],
) -> bool {
    let mut ok = true;
    for (i, p) in s.iter_mut().enumerate() {
        ok &= S::dsa_unpack_eta(p, chunk(&sk[S1_AT..], i));
    }
    for (i, p) in t0.iter_mut().enumerate() {
        S::dsa_unpack_t0(p, chunk(&sk[T0_AT..], i));
    }
    ok
}

/// σ = c̃ || z || h, with h given as 0/1 coefficients (public: this is the signature).
pub(crate) fn pack_sig<S: DsaSimd>(
    sig: &mut [u8; SIG_BYTES],
    ctilde: &[u8; CTILDE_BYTES],
    z: &[DsaPoly; L],
    h: &[DsaPoly; K],
) {
    sig[..CTILDE_BYTES].copy_from_slice(ctilde);
    for (i, p) in z.iter().enumerate() {
        S::dsa_pack_z(p, chunk_mut(&mut sig[Z_AT..], i));
    }
    let hints = &mut sig[H_AT..];
    hints.fill(0);
    let mut k = 0;
    for (i, p) in h.iter().enumerate() {
        for (j, &bit) in p.c.iter().enumerate() {
            if bit != 0 {
                hints[k] = j as u8;
                k += 1;
            }
        }
        hints[OMEGA + i] = k as u8;
    }
}

/// sigDecode with HintBitUnpack's checks: the hint counts must not decrease or exceed ω,
/// the indices of each polynomial must strictly increase, and unused index bytes must be 0.
/// Returns c̃, or `None` for a malformed hint encoding.
pub(crate) fn unpack_sig<S: DsaSimd>(
    sig: &[u8; SIG_BYTES],
    z: &mut [DsaPoly; L],
    h: &mut [DsaPoly; K],
) -> Option<[u8; CTILDE_BYTES]> {
    for (i, p) in z.iter_mut().enumerate() {
        S::dsa_unpack_z(p, chunk(&sig[Z_AT..], i));
    }
    let hints = &sig[H_AT..];
    let mut k = 0usize;
    for (i, p) in h.iter_mut().enumerate() {
        *p = DsaPoly::ZERO;
        let end = hints[OMEGA + i] as usize;
        if end < k || end > OMEGA {
            return None;
        }
        for j in k..end {
            if j > k && hints[j] <= hints[j - 1] {
                return None;
            }
            p.c[hints[j] as usize] = 1;
        }
        k = end;
    }
    if hints[k..OMEGA].iter().any(|&b| b != 0) {
        return None;
    }
    Some(sig[..CTILDE_BYTES].try_into().expect("c̃ length"))
}

/// The 128-byte w1Encode of one polynomial, for each of the K polynomials.
pub(crate) fn pack_w1<S: DsaSimd>(w1: &[DsaPoly; K], out: &mut [u8; K * 128]) {
    for (i, p) in w1.iter().enumerate() {
        S::dsa_pack_w1(p, chunk_mut(out, i));
    }
}

const _: () = assert!(T0_AT + K * T0_BYTES == SK_BYTES && H_AT + OMEGA + K == SIG_BYTES);

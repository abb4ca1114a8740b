//! ML-KEM's Fujisaki–Okamoto transform (FIPS 203 section 6), generic over the implementation
//! and the rank. Lengths: ek = 384K + 32, dk = 768K + 96, ct = 32(d_u K + d_v).

use super::kpke::{self, POLY_BYTES};
use crate::keccak::{NoRider, RidingSponge, sha3_256, sha3_512};
use crate::simd::{Simd, wipe_bytes};
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// ML-KEM.KeyGen_internal(d, z) into `ek` and the expanded `dk` = dk_PKE || ek || H(ek) || z.
#[inline(always)]
pub(crate) fn keygen<S: Simd, const K: usize>(
    d: &[u8; 32],
    z: &[u8; 32],
    ek: &mut [u8],
    dk: &mut [u8],
) {
    let pke = K * POLY_BYTES;
    let ek_len = ek.len();
    let h = kpke::keygen::<S, K>(d, ek, &mut dk[..pke]);
    dk[pke..pke + ek_len].copy_from_slice(ek);
    dk[pke + ek_len..pke + ek_len + 32].copy_from_slice(&h);
    dk[pke + ek_len + 32..].copy_from_slice(z);
}

/// H(ek), cached in encapsulation keys.
#[inline(always)]
pub(crate) fn hash_ek<S: Simd>(ek: &[u8]) -> [u8; 32] {
    sha3_256::<S>(&[ek])
}

/// ML-KEM.Encaps_internal(ek, m) with h = H(ek): writes the ciphertext, returns the key.
#[inline(always)]
pub(crate) fn encaps<S: Simd, const K: usize>(
    ek: &[u8],
    h: &[u8; 32],
    m: &[u8; 32],
    ct: &mut [u8],
) -> [u8; 32] {
    let mut g = sha3_512::<S>(&[m, h]);
    let key: [u8; 32] = g[..32].try_into().expect("32 bytes");
    let mut coins: [u8; 32] = g[32..].try_into().expect("32 bytes");
    kpke::encrypt::<S, K, NoRider>(ek, m, &coins, ct, None);
    wipe_bytes(&mut g);
    wipe_bytes(&mut coins);
    key
}

/// Constant-time equality of two equal-length byte strings: the XORs of 8-byte words are ORed
/// together and only the result is compared (subtle's slice comparison costs a barrier per
/// byte).
#[inline(always)]
fn ct_eq(a: &[u8], b: &[u8]) -> subtle::Choice {
    debug_assert_eq!(a.len(), b.len());
    let mut diff = 0u64;
    let (a8, a_rest) = a.split_at(a.len() / 8 * 8);
    let (b8, b_rest) = b.split_at(b.len() / 8 * 8);
    for (x, y) in a8.chunks_exact(8).zip(b8.chunks_exact(8)) {
        diff |= u64::from_ne_bytes(x.try_into().expect("8 bytes"))
            ^ u64::from_ne_bytes(y.try_into().expect("8 bytes"));
    }
    for (x, y) in a_rest.iter().zip(b_rest) {
        diff |= (x ^ y) as u64;
    }
    diff.ct_eq(&0)
}

/// ML-KEM.Decaps_internal(dk, c) with implicit rejection; `scratch` holds the re-encryption.
#[inline(always)]
pub(crate) fn decaps<S: Simd, const K: usize>(
    dk: &[u8],
    ct: &[u8],
    scratch: &mut [u8],
) -> [u8; 32] {
    let pke = K * POLY_BYTES;
    let ek_len = pke + 32;
    let (dk_pke, rest) = dk.split_at(pke);
    let (ek, rest) = rest.split_at(ek_len);
    let (h, z) = rest.split_at(32);

    let mut m = kpke::decrypt::<S, K>(dk_pke, ct);
    let mut g = sha3_512::<S>(&[&m, h]);
    let mut key: [u8; 32] = g[..32].try_into().expect("32 bytes");
    let mut coins: [u8; 32] = g[32..].try_into().expect("32 bytes");
    // J(z ‖ c), absorbed in the re-encryption's spare Keccak lanes where it has them.
    let mut rejection = [0u8; 32];
    let mut j = RidingSponge::shake256(&[z, ct]);
    kpke::encrypt::<S, K, _>(ek, &m, &coins, scratch, Some(&mut j));
    j.finish::<S>(&mut rejection);

    let equal = ct_eq(scratch, ct);
    for (k, r) in key.iter_mut().zip(&rejection) {
        *k = u8::conditional_select(r, k, equal);
    }
    wipe_bytes(&mut m);
    wipe_bytes(&mut g);
    wipe_bytes(&mut coins);
    wipe_bytes(&mut rejection);
    key
}

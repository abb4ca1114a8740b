//! ML-DSA bit packing on 8 × i32 vectors: t1, t0, η, z and w1 (FIPS 204 sections 7.1 and
//! 7.2).

use super::vector::{load8, load128, load256, store8, store128, store256};
use crate::mldsa::ops::{
    D, DsaPoly, ETA, ETA_BYTES, GAMMA1, N, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES,
};
use core::arch::x86_64::*;

/// BitUnpack(z, γ1 − 1, γ1): 20 bytes = eight 20-bit values per vector, gathered three bytes
/// per lane by `vpshufb`, shifted by 0 or 4 bits, masked, and subtracted from γ1. The last
/// vector's bytes are copied to a 32-byte buffer so that the load stays in bounds.
#[target_feature(enable = "avx2")]
pub(super) fn unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) {
    let spread = _mm256_setr_epi8(
        0, 1, 2, -1, 2, 3, 4, -1, 5, 6, 7, -1, 7, 8, 9, -1, 2, 3, 4, -1, 4, 5, 6, -1, 7, 8, 9, -1,
        9, 10, 11, -1,
    );
    let shifts = _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
    let low20 = _mm256_set1_epi32(0xf_ffff);
    let gamma1 = _mm256_set1_epi32(GAMMA1);
    let mut last = [0u8; 32];
    last[..20].copy_from_slice(&bytes[Z_BYTES - 20..]);
    for i in 0..N / 8 {
        let s = if i + 1 < N / 8 {
            &bytes[20 * i..20 * i + 32]
        } else {
            &last[..]
        };
        let raw = load256(s, 0);
        // Bytes 0..16 in the low lane, 8..24 in the high one.
        let v = _mm256_permute4x64_epi64(raw, 0b10_01_01_00);
        let v = _mm256_srlv_epi32(_mm256_shuffle_epi8(v, spread), shifts);
        store8(p, i, _mm256_sub_epi32(gamma1, _mm256_and_si256(v, low20)));
    }
}

/// SimpleBitPack(w1, 4 bits): 32 coefficients to 32 bytes (`vpackssdw`, `vpackuswb`, one
/// `vpermd` back to order), then each pair of bytes to one (`vpmaddubsw` by 1 and 16).
#[target_feature(enable = "avx2")]
pub(super) fn pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) {
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let weights = _mm256_set1_epi16(0x1001);
    for i in 0..N / 32 {
        let x = _mm256_packs_epi32(load8(p, 4 * i), load8(p, 4 * i + 1));
        let y = _mm256_packs_epi32(load8(p, 4 * i + 2), load8(p, 4 * i + 3));
        let b = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(x, y), order);
        let m = _mm256_maddubs_epi16(b, weights);
        let m = _mm256_permute4x64_epi64(_mm256_packus_epi16(m, m), 0b00_00_10_00);
        store128(out, 16 * i, _mm256_castsi256_si128(m));
    }
}

/// For `BITS`-bit values packed little-endian, eight per `BITS` bytes: the `vpshufb` indices
/// that gather the four bytes holding value i into lane i (the same 16 bytes are in both
/// 128-bit lanes), and the right shift that then aligns it.
struct Unpack8 {
    bytes: [i8; 32],
    shifts: [i32; 8],
}

const fn unpack8(bits: usize) -> Unpack8 {
    let mut u = Unpack8 {
        bytes: [0; 32],
        shifts: [0; 8],
    };
    let mut i = 0;
    while i < 8 {
        let start = bits * i / 8;
        let mut k = 0;
        while k < 4 {
            u.bytes[4 * (i % 4) + k + 16 * (i / 4)] = (start + k) as i8;
            k += 1;
        }
        u.shifts[i] = (bits * i % 8) as i32;
        i += 1;
    }
    u
}

/// Unpacks 256 `BITS`-bit values (BITS <= 13, so value i lies in bytes BITS·i/8 .. +4 of its
/// group's 16) and passes each vector of eight to `put(index, values)`.
#[target_feature(enable = "avx2")]
#[inline]
fn unpack_bits<const BITS: usize>(bytes: &[u8], mut put: impl FnMut(usize, __m256i)) {
    const { assert!(BITS <= 13) };
    let u = const { unpack8(BITS) };
    let spread = load256(&u.bytes, 0);
    let shifts = load256(&u.shifts, 0);
    let mask = _mm256_set1_epi32((1 << BITS) - 1);
    // A copy with 16 bytes of slack, so that every group's 16-byte load is in bounds.
    let mut buf = [0u8; 32 * 13 + 16];
    buf[..bytes.len()].copy_from_slice(bytes);
    for i in 0..N / 8 {
        let raw = load128(&buf, BITS * i);
        let v = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(raw), spread);
        put(i, _mm256_and_si256(_mm256_srlv_epi32(v, shifts), mask));
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) {
    unpack_bits::<10>(bytes, |i, v| store8(p, i, v));
}

#[target_feature(enable = "avx2")]
pub(super) fn unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) {
    let half = _mm256_set1_epi32(1 << (D - 1));
    unpack_bits::<13>(bytes, |i, v| store8(p, i, _mm256_sub_epi32(half, v)));
}

/// η − v for each half-byte v; the flag from whether any v > 2η, with no branch on values.
#[target_feature(enable = "avx2")]
pub(super) fn unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool {
    let eta = _mm256_set1_epi32(ETA);
    let two_eta = _mm256_set1_epi32(2 * ETA);
    let mut over = _mm256_setzero_si256();
    unpack_bits::<4>(bytes, |i, v| {
        over = _mm256_or_si256(over, _mm256_cmpgt_epi32(v, two_eta));
        store8(p, i, _mm256_sub_epi32(eta, v));
    });
    _mm256_testz_si256(over, over) != 0
}

/// Packs 256 values of `BITS` bits (BITS <= 13, values already in range), eight per
/// `BITS` bytes, given as vectors by `get(index)`: adjacent lanes merged to 2·BITS bits per
/// 64-bit lane, adjacent 64-bit lanes to 4·BITS <= 52 bits per 128-bit lane, the two
/// halves joined in a u128.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_bits<const BITS: usize>(out: &mut [u8], get: impl Fn(usize) -> __m256i) {
    const { assert!(BITS <= 13) };
    let low32 = _mm256_set1_epi64x(0xffff_ffff);
    let by1 = _mm_cvtsi32_si128(BITS as i32);
    let by2 = _mm_cvtsi32_si128(2 * BITS as i32);
    for i in 0..N / 8 {
        let v = get(i);
        let pairs = _mm256_or_si256(
            _mm256_and_si256(v, low32),
            _mm256_sll_epi64(_mm256_srli_epi64(v, 32), by1),
        );
        let quads = _mm256_or_si256(pairs, _mm256_sll_epi64(_mm256_srli_si256(pairs, 8), by2));
        let x0 = _mm256_extract_epi64(quads, 0) as u64 as u128;
        let x1 = _mm256_extract_epi64(quads, 2) as u64 as u128;
        let packed = (x0 | x1 << (4 * BITS)).to_le_bytes();
        out[BITS * i..BITS * i + BITS].copy_from_slice(&packed[..BITS]);
    }
}

#[target_feature(enable = "avx2")]
pub(super) fn pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) {
    pack_bits::<10>(out, |i| load8(p, i));
}

#[target_feature(enable = "avx2")]
pub(super) fn pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) {
    let half = _mm256_set1_epi32(1 << (D - 1));
    pack_bits::<13>(out, |i| _mm256_sub_epi32(half, load8(p, i)));
}

#[target_feature(enable = "avx2")]
pub(super) fn pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) {
    let eta = _mm256_set1_epi32(ETA);
    pack_bits::<4>(out, |i| _mm256_sub_epi32(eta, load8(p, i)));
}

/// BitPack(z, γ1 − 1, γ1): γ1 − z per lane, adjacent lanes merged to 40 bits per 64-bit
/// lane, then two of those to 10 bytes in a u128.
#[target_feature(enable = "avx2")]
pub(super) fn pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) {
    let gamma1 = _mm256_set1_epi32(GAMMA1);
    let low32 = _mm256_set1_epi64x(0xffff_ffff);
    for i in 0..N / 8 {
        let v = _mm256_sub_epi32(gamma1, load8(p, i));
        let pairs = _mm256_or_si256(
            _mm256_and_si256(v, low32),
            _mm256_slli_epi64(_mm256_srli_epi64(v, 32), 20),
        );
        let mut x = [0u64; 4];
        store256(&mut x, 0, pairs);
        let lo = (x[0] as u128 | (x[1] as u128) << 40).to_le_bytes();
        let hi = (x[2] as u128 | (x[3] as u128) << 40).to_le_bytes();
        out[20 * i..20 * i + 10].copy_from_slice(&lo[..10]);
        out[20 * i + 10..20 * i + 20].copy_from_slice(&hi[..10]);
    }
}

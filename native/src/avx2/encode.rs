//! ML-KEM encoding on 16 × i16 vectors: ByteEncode_12 / ByteDecode_12 of NTT-domain
//! polynomials, compression and decompression, and messages.

use super::arith::transpose;
use super::vector::{
    load_poly, load16, load128, load256, store_poly, store16, store64, store128, store256,
};
use crate::simd::{Poly, Q};
use core::arch::x86_64::*;

/// Maps a reduced coefficient (|a| < q) to [0, q).
#[target_feature(enable = "avx2")]
#[inline]
fn to_unsigned(a: __m256i) -> __m256i {
    _mm256_add_epi16(
        a,
        _mm256_and_si256(_mm256_srai_epi16::<15>(a), _mm256_set1_epi16(Q)),
    )
}

/// Compress_d of a reduced coefficient vector: round(2^d·x / q) mod 2^d, exactly, as
/// floor((2^(d+1)·x + q) / 2q). The quotient estimate t = floor(x·⌊2^(16+d)/q⌋ / 2^16) is at
/// most 2 too small; the remainder (2^(d+1)·x + q) - 2q·t, in [0, 6q), fits an i16 even
/// though both terms wrap, and two comparisons correct t.
#[target_feature(enable = "avx2")]
#[inline]
fn compress_vec<const D: i32>(a: __m256i) -> __m256i {
    let x = to_unsigned(a);
    let m = ((1u32 << (16 + D)) / Q as u32) as u16 as i16;
    let t = _mm256_mulhi_epu16(x, _mm256_set1_epi16(m));
    let n = _mm256_add_epi16(
        _mm256_sll_epi16(x, _mm_cvtsi32_si128(D + 1)),
        _mm256_set1_epi16(Q),
    );
    let r = _mm256_sub_epi16(n, _mm256_mullo_epi16(t, _mm256_set1_epi16(2 * Q)));
    let c1 = _mm256_cmpgt_epi16(r, _mm256_set1_epi16(2 * Q - 1));
    let c2 = _mm256_cmpgt_epi16(r, _mm256_set1_epi16(4 * Q - 1));
    let y = _mm256_sub_epi16(_mm256_sub_epi16(t, c1), c2);
    _mm256_and_si256(y, _mm256_set1_epi16((1 << D) - 1))
}

/// Shuffles that pack, in each 128-bit lane, the two 4d-bit qwords into d bytes: `[0]` takes
/// the low qword's bytes, `[1]` the high qword's (already shifted left by 4d mod 8 bits) to
/// byte 4d/8; the two results are ORed.
const fn pack_shuffles(d: usize) -> [[i8; 32]; 2] {
    let mut s = [[-1i8; 32]; 2];
    let low_bytes = (4 * d).div_ceil(8);
    let high_bytes = (4 * d + (4 * d) % 8).div_ceil(8);
    let mut lane = 0;
    while lane < 2 {
        let mut i = 0;
        while i < low_bytes {
            s[0][16 * lane + i] = i as i8;
            i += 1;
        }
        let mut i = 0;
        while i < high_bytes {
            s[1][16 * lane + 4 * d / 8 + i] = (8 + i) as i8;
            i += 1;
        }
        lane += 1;
    }
    s
}

/// Packs 16 d-bit values: the first 8 to bytes 0..d of the low 128-bit lane, the last 8 to
/// bytes 0..d of the high lane.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_vec<const D: i32>(y: __m256i) -> __m256i {
    // Pairs: y0 + y1·2^d in each dword.
    let w = _mm256_madd_epi16(y, _mm256_set1_epi32(1 | (1 << (16 + D))));
    // Quads: u0 + u1·2^2d in each qword (u0 moved up, then the qword shifted down).
    let w = _mm256_sllv_epi32(
        w,
        _mm256_setr_epi32(32 - 2 * D, 0, 32 - 2 * D, 0, 32 - 2 * D, 0, 32 - 2 * D, 0),
    );
    let w = _mm256_srl_epi64(w, _mm_cvtsi32_si128(32 - 2 * D));
    // The high qword of each lane continues at bit 4d: shift it by 4d mod 8.
    let s = ((4 * D) % 8) as i64;
    let w = _mm256_sllv_epi64(w, _mm256_setr_epi64x(0, s, 0, s));
    let shuffles = const { pack_shuffles(D as usize) };
    let lo = _mm256_shuffle_epi8(w, load256(&shuffles[0], 0));
    let hi = _mm256_shuffle_epi8(w, load256(&shuffles[1], 0));
    _mm256_or_si256(lo, hi)
}

/// Writes the 2d packed bytes of vector k (d per 128-bit lane) to `out[2dk..]`.
#[target_feature(enable = "avx2")]
#[inline]
fn store_packed<const D: usize>(out: &mut [u8], k: usize, b: __m256i) {
    let at = 2 * D * k;
    let lo = _mm256_castsi256_si128(b);
    let hi = _mm256_extracti128_si256::<1>(b);
    if at + D + 16 <= 32 * D {
        // Each store's bytes after the first d are rewritten by the next store.
        store128(out, at, lo);
        store128(out, at + D, hi);
    } else {
        let mut buf = [0u8; 32];
        store128(&mut buf, 0, lo);
        store128(&mut buf, D, hi);
        out[at..at + 2 * D].copy_from_slice(&buf[..2 * D]);
    }
}

#[target_feature(enable = "avx2")]
#[inline]
fn compress_d<const D: i32, const DU: usize>(p: &Poly, out: &mut [u8]) {
    let out = &mut out[..32 * DU];
    for k in 0..16 {
        let y = compress_vec::<D>(load16(p, k));
        store_packed::<DU>(out, k, pack_vec::<D>(y));
    }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn compress(p: &Poly, d: u32, out: &mut [u8]) {
    match d {
        4 => compress_d::<4, 4>(p, out),
        5 => compress_d::<5, 5>(p, out),
        10 => compress_d::<10, 10>(p, out),
        11 => compress_d::<11, 11>(p, out),
        _ => panic!("compress: d = {d}"),
    }
}

/// Loads vector k's 2d bytes: bytes 2dk.. to the low 128-bit lane, 2dk + d.. to the high.
#[target_feature(enable = "avx2")]
#[inline]
fn load_packed<const D: usize>(bytes: &[u8], k: usize) -> __m256i {
    let at = 2 * D * k;
    if at + D + 16 <= 32 * D {
        _mm256_setr_m128i(load128(bytes, at), load128(bytes, at + D))
    } else {
        let mut buf = [0u8; 32];
        buf[..2 * D].copy_from_slice(&bytes[at..at + 2 * D]);
        _mm256_setr_m128i(load128(&buf, 0), load128(&buf, D))
    }
}

/// For d <= 10 each value fits in the two bytes at its starting byte: `[0]` gathers them into
/// its 16-bit lane, `[1]` is the multiplier 2^(16 - offset - d) that moves the value to the
/// top of the lane.
const fn unpack_tables(d: usize) -> ([i8; 32], [i16; 16]) {
    let mut s = [0i8; 32];
    let mut m = [0i16; 16];
    let mut l = 0;
    while l < 16 {
        let j = l % 8;
        let byte = j * d / 8;
        s[2 * l] = byte as i8;
        s[2 * l + 1] = (byte + 1) as i8;
        // (Not used for d = 11, where the shift could be negative.)
        let shift = 16 - ((j * d) % 8) as i32 - d as i32;
        m[l] = if shift >= 0 { 1 << shift } else { 0 };
        l += 1;
    }
    (s, m)
}

/// For d = 11, in 32-bit units: `[0]` gathers 4 bytes from value 2m's byte, `[1]` from value
/// 2m + 1's; `[2]` and `[3]` are those values' bit offsets.
const fn unpack11_tables() -> ([i8; 32], [i8; 32], [i32; 8], [i32; 8]) {
    let mut even = [0i8; 32];
    let mut odd = [0i8; 32];
    let mut oe = [0i32; 8];
    let mut oo = [0i32; 8];
    let mut u = 0;
    while u < 8 {
        let m = u % 4;
        let (be, bo) = (2 * m * 11, (2 * m + 1) * 11);
        let mut i = 0;
        while i < 4 {
            even[4 * u + i] = (be / 8 + i) as i8;
            odd[4 * u + i] = (bo / 8 + i) as i8;
            i += 1;
        }
        oe[u] = (be % 8) as i32;
        oo[u] = (bo % 8) as i32;
        u += 1;
    }
    (even, odd, oe, oo)
}

#[target_feature(enable = "avx2")]
#[inline]
fn decompress_d<const D: usize>(p: &mut Poly, bytes: &[u8]) {
    let bytes = &bytes[..32 * D];
    let q = _mm256_set1_epi16(Q);
    if D <= 10 {
        let (s, m) = const { unpack_tables(D) };
        let mul = load256(&m, 0);
        let gather = load256(&s, 0);
        let mask = _mm256_set1_epi16((((1u32 << D) - 1) << (15 - D)) as i16);
        for k in 0..16 {
            let w = _mm256_shuffle_epi8(load_packed::<D>(bytes, k), gather);
            // Value to the top, then to bits 15 - d.. : y·2^(15-d).
            let top = _mm256_mullo_epi16(w, mul);
            let a = _mm256_and_si256(_mm256_srli_epi16::<1>(top), mask);
            // round(y·q / 2^d) = round(y·2^(15-d)·q / 2^15).
            store16(p, k, _mm256_mulhrs_epi16(a, q));
        }
    } else {
        let (even, odd, oe, oo) = const { unpack11_tables() };
        let (ge, go) = (load256(&even, 0), load256(&odd, 0));
        let (se, so) = (load256(&oe, 0), load256(&oo, 0));
        let so = _mm256_sub_epi32(_mm256_set1_epi32(16), so);
        let mask = _mm256_set1_epi16(0x7ff0);
        for k in 0..16 {
            let x = load_packed::<D>(bytes, k);
            // Even values to bits 0..11 of each dword, odd values to bits 16..27.
            let e = _mm256_srlv_epi32(_mm256_shuffle_epi8(x, ge), se);
            let o = _mm256_sllv_epi32(_mm256_shuffle_epi8(x, go), so);
            let c = _mm256_blend_epi16::<0xaa>(e, o);
            let a = _mm256_and_si256(_mm256_slli_epi16::<4>(c), mask);
            store16(p, k, _mm256_mulhrs_epi16(a, q));
        }
    }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
    match d {
        4 => decompress_d::<4>(p, bytes),
        5 => decompress_d::<5>(p, bytes),
        10 => decompress_d::<10>(p, bytes),
        11 => decompress_d::<11>(p, bytes),
        _ => panic!("decompress: d = {d}"),
    }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn from_msg(p: &mut Poly, m: &[u8; 32]) {
    let bits = _mm256_setr_epi16(
        1,
        2,
        4,
        8,
        16,
        32,
        64,
        128,
        256,
        512,
        1024,
        2048,
        4096,
        8192,
        16384,
        i16::MIN,
    );
    let half = _mm256_set1_epi16((Q + 1) / 2);
    for k in 0..16 {
        let w = _mm256_set1_epi16(i16::from_le_bytes([m[2 * k], m[2 * k + 1]]));
        let set = _mm256_cmpeq_epi16(_mm256_and_si256(w, bits), bits);
        store16(p, k, _mm256_and_si256(set, half));
    }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn to_msg(p: &Poly, m: &mut [u8; 32]) {
    for j in 0..8 {
        let a = _mm256_slli_epi16::<15>(compress_vec::<1>(load16(p, 2 * j)));
        let b = _mm256_slli_epi16::<15>(compress_vec::<1>(load16(p, 2 * j + 1)));
        // Bytes a0..7 b0..7 | a8..15 b8..15, reordered to a, b.
        let s = _mm256_permute4x64_epi64::<0xd8>(_mm256_packs_epi16(a, b));
        let bits = _mm256_movemask_epi8(s) as u32;
        m[4 * j..4 * j + 4].copy_from_slice(&bits.to_le_bytes());
    }
}

/// ByteEncode_12 of the standard-order coefficients of an NTT-domain polynomial.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
    let mut v = load_poly(p);
    transpose(&mut v);
    let q = _mm256_set1_epi16(Q);
    let weights = _mm256_set1_epi32(1 | (1 << 28)); // (1, 4096) per pair
    // Bytes 0-2, 4-6, 8-10, 12-14 of each 128-bit lane: the four 24-bit pairs.
    let gather = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13,
        14, -1, -1, -1, -1,
    );
    let join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    for (k, x) in v.iter().enumerate() {
        // To [0, q): add q to negative values.
        let u = _mm256_add_epi16(*x, _mm256_and_si256(_mm256_srai_epi16::<15>(*x), q));
        let w = _mm256_madd_epi16(u, weights);
        let b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(w, gather), join);
        // 24 bytes at 24k; the 8 bytes after them are overwritten by the next vector.
        if k < 15 {
            store256(out, 24 * k, b);
        } else {
            store128(out, 360, _mm256_castsi256_si128(b));
            store64(out, 376, _mm256_extracti128_si256::<1>(b));
        }
    }
}

/// ByteDecode_12 into the NTT-domain order; whether every value is below q.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
    // Within each 128-bit lane (12 bytes = 8 values): value 2t from bytes 3t, 3t + 1 (low 12
    // bits), value 2t + 1 from bytes 3t + 1, 3t + 2 (high 12 bits).
    let spread = _mm256_setr_epi8(
        0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11, 0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9,
        10, 10, 11,
    );
    let mask = _mm256_set1_epi16(0x0fff);
    let qm1 = _mm256_set1_epi16(Q - 1);
    let mut high = _mm256_setzero_si256();
    let mut v = [_mm256_setzero_si256(); 16];
    for (k, x) in v.iter_mut().enumerate() {
        // 32 bytes from 24k (the last vector: from 352, its bytes start at dword 2).
        let (raw, shift) = if k < 15 {
            (load256(bytes, 24 * k), 0)
        } else {
            (load256(bytes, 352), 2)
        };
        let idx = _mm256_add_epi32(
            _mm256_setr_epi32(0, 1, 2, 2, 3, 4, 5, 5),
            _mm256_set1_epi32(shift),
        );
        let s = _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(raw, idx), spread);
        let c = _mm256_blend_epi16::<0xaa>(_mm256_and_si256(s, mask), _mm256_srli_epi16::<4>(s));
        high = _mm256_or_si256(high, _mm256_cmpgt_epi16(c, qm1));
        *x = c;
    }
    transpose(&mut v);
    store_poly(p, &v);
    _mm256_testz_si256(high, high) == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::encode::compress_coeff;

    #[target_feature(enable = "avx2")]
    fn compress_all<const D: i32>() {
        for x in -(Q as i32 - 1)..Q as i32 {
            let v = compress_vec::<D>(_mm256_set1_epi16(x as i16));
            let got = _mm256_extract_epi16::<7>(v) as u16;
            let u = x.rem_euclid(Q as i32) as u16;
            assert_eq!(got, compress_coeff(u, D as u32), "d={D} x={x}");
        }
    }

    #[test]
    fn compress_is_exact_for_every_reduced_value() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe {
            compress_all::<1>();
            compress_all::<4>();
            compress_all::<5>();
            compress_all::<10>();
            compress_all::<11>();
        }
    }
}

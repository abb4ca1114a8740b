//! Scalar serialisation and compression (FIPS 203 section 4.2.1).

use super::arith::to_unsigned;
use crate::simd::{N, Poly, Q};

pub(crate) fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
    for (pair, o) in p.c.chunks_exact(2).zip(out.chunks_exact_mut(3)) {
        let a = to_unsigned(pair[0]);
        let b = to_unsigned(pair[1]);
        o[0] = a as u8;
        o[1] = ((a >> 8) | (b << 4)) as u8;
        o[2] = (b >> 4) as u8;
    }
}

/// Returns whether every value is below q; counts without branching on values.
pub(crate) fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
    let mut high = 0u16;
    for (pair, b) in p.c.chunks_exact_mut(2).zip(bytes.chunks_exact(3)) {
        let a = b[0] as u16 | ((b[1] as u16 & 0x0f) << 8);
        let c = (b[1] as u16 >> 4) | ((b[2] as u16) << 4);
        // Bit 15 of (q - 1 - v) is set exactly when v >= q.
        high |= (Q as u16 - 1).wrapping_sub(a) | (Q as u16 - 1).wrapping_sub(c);
        pair[0] = a as i16;
        pair[1] = c as i16;
    }
    high >> 15 == 0
}

/// round(2^d · x / q) mod 2^d for x in [0, q), without division: floor((x·2^(d+1) + q) / 2q),
/// the quotient computed with a 2^-40 reciprocal, exact for these ranges.
#[inline(always)]
pub(crate) fn compress_coeff(x: u16, d: u32) -> u16 {
    const SHIFT: u32 = 40;
    const M: u64 = (1u64 << SHIFT).div_ceil(2 * Q as u64);
    let n = ((x as u64) << (d + 1)) + Q as u64;
    (((n * M) >> SHIFT) as u16) & ((1u16 << d) - 1)
}

#[inline(always)]
pub(crate) fn decompress_coeff(y: u16, d: u32) -> i16 {
    ((y as u32 * Q as u32 + (1 << (d - 1))) >> d) as i16
}

/// Packs 256 d-bit values little-endian, as ByteEncode_d.
fn pack(values: &[u16; N], d: u32, out: &mut [u8]) {
    let mut acc = 0u32;
    let mut bits = 0;
    let mut o = 0;
    for &v in values {
        acc |= (v as u32) << bits;
        bits += d;
        while bits >= 8 {
            out[o] = acc as u8;
            o += 1;
            acc >>= 8;
            bits -= 8;
        }
    }
}

fn unpack(bytes: &[u8], d: u32, values: &mut [u16; N]) {
    let mut acc = 0u32;
    let mut bits = 0;
    let mut b = bytes.iter();
    for v in values.iter_mut() {
        while bits < d {
            acc |= (*b.next().expect("32·d bytes") as u32) << bits;
            bits += 8;
        }
        *v = (acc & ((1 << d) - 1)) as u16;
        acc >>= d;
        bits -= d;
    }
}

pub(crate) fn compress(p: &Poly, d: u32, out: &mut [u8]) {
    let mut v = [0u16; N];
    for (y, &c) in v.iter_mut().zip(&p.c) {
        *y = compress_coeff(to_unsigned(c), d);
    }
    pack(&v, d, &mut out[..32 * d as usize]);
}

pub(crate) fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
    let mut v = [0u16; N];
    unpack(&bytes[..32 * d as usize], d, &mut v);
    for (c, &y) in p.c.iter_mut().zip(&v) {
        *c = decompress_coeff(y, d);
    }
}

pub(crate) fn from_msg(p: &mut Poly, m: &[u8; 32]) {
    for (i, c) in p.c.iter_mut().enumerate() {
        let bit = ((m[i / 8] >> (i % 8)) & 1) as i16;
        *c = (-bit) & ((Q + 1) / 2);
    }
}

pub(crate) fn to_msg(p: &Poly, m: &mut [u8; 32]) {
    m.fill(0);
    for (i, &c) in p.c.iter().enumerate() {
        m[i / 8] |= (compress_coeff(to_unsigned(c), 1) as u8) << (i % 8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compress_matches_the_rounding_definition() {
        for d in [1, 4, 5, 10, 11] {
            for x in 0..Q as u32 {
                // round(2^d x / q) with exact rational arithmetic, ties up.
                let expected = (((x << (d + 1)) + Q as u32) / (2 * Q as u32)) % (1 << d);
                assert_eq!(compress_coeff(x as u16, d) as u32, expected, "d={d} x={x}");
            }
        }
    }

    #[test]
    fn pack_round_trips() {
        for d in [4, 5, 10, 11] {
            let mut v = [0u16; N];
            for (i, x) in v.iter_mut().enumerate() {
                *x = ((i * 977 + 13) % (1 << d)) as u16;
            }
            let mut bytes = vec![0u8; 32 * d as usize];
            pack(&v, d, &mut bytes);
            let mut back = [0u16; N];
            unpack(&bytes, d, &mut back);
            assert_eq!(v, back);
        }
    }

    #[test]
    fn modulus_check_flags_exactly_values_of_q_and_above() {
        for v in [0u16, 1, 3328, 3329, 3330, 4095] {
            let mut bytes = [0u8; 384];
            bytes[0] = v as u8;
            bytes[1] = (v >> 8) as u8;
            let mut p = Poly::ZERO;
            assert_eq!(ntt_from_bytes(&mut p, &bytes), v < 3329, "v={v}");
            assert_eq!(p.c[0], v as i16);
        }
    }
}

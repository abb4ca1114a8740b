//! NEON sampling (FIPS 203 section 4.2.2): SamplePolyCBD_2, and SampleNTT's rejection step,
//! the only code of this implementation that indexes memory by data, which is public there
//! (values from the matrix seed).

use super::vector::{load_s16, load_u8, load_u16, store_s16};
use crate::simd::{N, Poly, Q};
use core::arch::aarch64::*;

/// SamplePolyCBD_2: per byte, two coefficients (bit counts of its nibbles' halves).
#[inline(always)]
pub(super) fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
    for (c, b) in p.c.chunks_exact_mut(32).zip(bytes.chunks_exact(16)) {
        // SAFETY: NEON is baseline on aarch64.
        unsafe {
            let x = load_u8(b);
            // Per 2-bit group, the number of set bits.
            let d = vsubq_u8(x, vandq_u8(vshrq_n_u8::<1>(x), vdupq_n_u8(0x55)));
            let three = vdupq_n_u8(3);
            let lo = vandq_u8(d, vdupq_n_u8(0x0f));
            let hi = vshrq_n_u8::<4>(d);
            let clo = vsubq_u8(vandq_u8(lo, three), vshrq_n_u8::<2>(lo));
            let chi = vsubq_u8(vandq_u8(hi, three), vshrq_n_u8::<2>(hi));
            let a = vreinterpretq_s8_u8(vzip1q_u8(clo, chi));
            let b = vreinterpretq_s8_u8(vzip2q_u8(clo, chi));
            store_s16(&mut c[0..], vmovl_s8(vget_low_s8(a)));
            store_s16(&mut c[8..], vmovl_high_s8(a));
            store_s16(&mut c[16..], vmovl_s8(vget_low_s8(b)));
            store_s16(&mut c[24..], vmovl_high_s8(b));
        }
    }
}

/// For each 8-bit accept mask, the TBL indices that move the accepted 16-bit lanes to the
/// front (the rest of the vector becomes zero).
const REJ_SHUFFLE: [[u8; 16]; 256] = {
    let mut t = [[0xffu8; 16]; 256];
    let mut m = 0;
    while m < 256 {
        let mut n = 0;
        let mut l = 0;
        while l < 8 {
            if (m >> l) & 1 == 1 {
                t[m][2 * n] = 2 * l as u8;
                t[m][2 * n + 1] = 2 * l as u8 + 1;
                n += 1;
            }
            l += 1;
        }
        m += 1;
    }
    t
};

/// The number of accepted lanes per 8-bit accept mask.
const REJ_COUNT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        t[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    t
};

/// Bytes 3j, 3j+1 (value 2j) and 3j+1, 3j+2 (value 2j+1) per lane, for 8 values from the
/// first 12 bytes of a vector (and from bytes 4-15).
const REJ_IDX: [[u8; 16]; 2] = {
    let mut t = [[0u8; 16]; 2];
    let mut h = 0;
    while h < 2 {
        let mut j = 0;
        while j < 4 {
            let base = (4 * h + 3 * j) as u8;
            t[h][4 * j] = base;
            t[h][4 * j + 1] = base + 1;
            t[h][4 * j + 2] = base + 1;
            t[h][4 * j + 3] = base + 2;
            j += 1;
        }
        h += 1;
    }
    t
};

#[inline(always)]
pub(super) fn rej_uniform(p: &mut Poly, mut filled: usize, bytes: &[u8]) -> usize {
    const WEIGHTS: [u16; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
    const SHIFT: [i16; 8] = [0, -4, 0, -4, 0, -4, 0, -4];
    let mut pos = 0;
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let idx0 = load_u8(&REJ_IDX[0]);
        let idx1 = load_u8(&REJ_IDX[1]);
        let weights = load_u16(&WEIGHTS);
        let shift = load_s16(&SHIFT);
        let mask12 = vdupq_n_u16(0x0fff);
        let q = vdupq_n_u16(Q as u16);
        let mut one = |filled: &mut usize, v: uint8x16_t, idx: uint8x16_t| {
            let x = vreinterpretq_u16_u8(vqtbl1q_u8(v, idx));
            let x = vandq_u16(vshlq_u16(x, shift), mask12);
            let accept = vcltq_u16(x, q);
            let m = (vaddvq_u16(vandq_u16(accept, weights)) & 0xff) as usize;
            let packed = vqtbl1q_u8(vreinterpretq_u8_u16(x), load_u8(&REJ_SHUFFLE[m]));
            store_s16(&mut p.c[*filled..], vreinterpretq_s16_u8(packed));
            *filled += REJ_COUNT[m] as usize;
        };
        while filled + 16 <= N && pos + 24 <= bytes.len() {
            one(&mut filled, load_u8(&bytes[pos..]), idx0);
            one(&mut filled, load_u8(&bytes[pos + 8..]), idx1);
            pos += 24;
        }
    }
    crate::portable::sample::rej_uniform(p, filled, &bytes[pos..])
}

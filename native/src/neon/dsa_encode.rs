//! NEON sampling for ML-DSA: RejNTTPoly's rejection step on public input (the matrix seed),
//! four 23-bit candidates per 12 bytes.

use crate::mldsa::ops::{DsaPoly, N, Q};
use core::arch::aarch64::*;

/// For each 4-bit mask of accepted lanes, the byte shuffle that moves the accepted 32-bit
/// lanes to the front (the rest of the vector is don't-care).
const COMPACT: [[u8; 16]; 16] = {
    let mut out = [[0u8; 16]; 16];
    let mut m = 0;
    while m < 16 {
        let mut o = 0;
        let mut l = 0;
        while l < 4 {
            if m & (1 << l) != 0 {
                let mut b = 0;
                while b < 4 {
                    out[m][4 * o + b] = (4 * l + b) as u8;
                    b += 1;
                }
                o += 1;
            }
            l += 1;
        }
        while o < 4 {
            let mut b = 0;
            while b < 4 {
                out[m][4 * o + b] = 0xff;
                b += 1;
            }
            o += 1;
        }
        m += 1;
    }
    out
};

/// Spreads bytes 3l..3l+3 of 12 into lane l (little-endian), the top byte zero.
const SPREAD: [u8; 16] = [0, 1, 2, 0xff, 3, 4, 5, 0xff, 6, 7, 8, 0xff, 9, 10, 11, 0xff];

/// Lane l's bit of the accept mask.
const BITS: [u32; 4] = [1, 2, 4, 8];

pub(super) fn rej_uniform(p: &mut DsaPoly, mut filled: usize, bytes: &[u8]) -> usize {
    let mut pos = 0;
    // Vectors while a 16-byte load stays inside `bytes` and 4 lanes fit in the polynomial.
    // SAFETY (for the block): NEON is baseline on aarch64; every load and store goes through
    // a reference of the right size.
    unsafe {
        let spread = vld1q_u8(SPREAD.as_ptr());
        let bits = vld1q_u32(BITS.as_ptr());
        let mask = vdupq_n_u32(0x7f_ffff);
        let q = vdupq_n_u32(Q as u32);
        while pos + 16 <= bytes.len() && filled + 4 <= N {
            let chunk: &[u8; 16] = bytes[pos..pos + 16].try_into().expect("16 bytes");
            let raw = vqtbl1q_u8(vld1q_u8(chunk.as_ptr()), spread);
            let v = vandq_u32(vreinterpretq_u32_u8(raw), mask);
            let ok = vcltq_u32(v, q);
            // Public data: the accept mask may index a table and set the count.
            let m = vaddvq_u32(vandq_u32(ok, bits)) as usize;
            let packed = vqtbl1q_u8(vreinterpretq_u8_u32(v), vld1q_u8(COMPACT[m].as_ptr()));
            let out: &mut [i32; 4] = (&mut p.c[filled..filled + 4]).try_into().expect("4");
            vst1q_s32(out.as_mut_ptr(), vreinterpretq_s32_u8(packed));
            filled += m.count_ones() as usize;
            pos += 12;
        }
    }
    // The rest one candidate at a time.
    for b in bytes[pos..].chunks_exact(3) {
        if filled == N {
            break;
        }
        let v = (b[0] as u32 | (b[1] as u32) << 8 | (b[2] as u32) << 16) & 0x7f_ffff;
        if v < Q as u32 {
            p.c[filled] = v as i32;
            filled += 1;
        }
    }
    filled
}

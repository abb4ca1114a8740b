//! NEON bit packing for ML-DSA: SimpleBitPack of w1 (4 bits) and SimpleBitUnpack of t1
//! (10 bits).

use crate::mldsa::ops::{DsaPoly, N, T1_BYTES, W1_BYTES};
use core::arch::aarch64::*;

/// SimpleBitPack(w1, 4 bits): byte i is w1[2i] | w1[2i + 1] << 4.
pub(super) fn pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) {
    for i in (0..N).step_by(16) {
        let c: &[i32; 16] = p.c[i..i + 16].try_into().expect("16 coefficients");
        let o: &mut [u8; 8] = (&mut out[i / 2..i / 2 + 8]).try_into().expect("8 bytes");
        // SAFETY: loads and stores through references of the right size; NEON is baseline on
        // aarch64.
        unsafe {
            // Even coefficients in .0, odd ones in .1.
            let a = vld2q_s32(c.as_ptr());
            let b = vld2q_s32(c.as_ptr().add(8));
            let lo = vreinterpretq_u32_s32(vorrq_s32(a.0, vshlq_n_s32::<4>(a.1)));
            let hi = vreinterpretq_u32_s32(vorrq_s32(b.0, vshlq_n_s32::<4>(b.1)));
            let n = vcombine_u16(vmovn_u32(lo), vmovn_u32(hi));
            vst1_u8(o.as_mut_ptr(), vmovn_u16(n));
        }
    }
}

/// For 8 coefficients from 10 bytes: the two bytes holding coefficient j in u16 lane j.
const T1_SPREAD: [u8; 16] = [0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9];
/// The right shifts (as negative left shifts) that bring coefficient j to bit 0.
const T1_SHIFT: [i16; 8] = [0, -2, -4, -6, 0, -2, -4, -6];

/// SimpleBitUnpack(t1, 10 bits): output in [0, 2^10).
pub(super) fn unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) {
    // SAFETY (for the block): loads and stores through references of the right size; NEON is
    // baseline on aarch64.
    unsafe {
        let spread = vld1q_u8(T1_SPREAD.as_ptr());
        let shift = vld1q_s16(T1_SHIFT.as_ptr());
        let mask = vdupq_n_u16(0x3ff);
        for g in 0..N / 8 {
            // 16-byte loads of the 10 bytes of group g; the last one from a padded copy.
            let mut pad = [0u8; 16];
            let src: &[u8; 16] = if 10 * g + 16 <= T1_BYTES {
                bytes[10 * g..10 * g + 16].try_into().expect("16 bytes")
            } else {
                pad[..10].copy_from_slice(&bytes[10 * g..10 * g + 10]);
                &pad
            };
            let v = vqtbl1q_u8(vld1q_u8(src.as_ptr()), spread);
            let v = vandq_u16(vshlq_u16(vreinterpretq_u16_u8(v), shift), mask);
            let out: &mut [i32; 8] = (&mut p.c[8 * g..8 * g + 8]).try_into().expect("8");
            vst1q_s32(
                out.as_mut_ptr(),
                vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(v))),
            );
            vst1q_s32(
                out.as_mut_ptr().add(4),
                vreinterpretq_s32_u32(vmovl_high_u16(v)),
            );
        }
    }
}

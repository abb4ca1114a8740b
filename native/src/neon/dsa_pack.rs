//! NEON bit packing for ML-DSA: w1 (4 bits), t1 (10 bits), t0 (13 bits), η (4 bits) and z
//! (20 bits), little-endian bit order as in FIPS 204.

use super::vector::store_s32;
use crate::mldsa::ops::{
    D, DsaPoly, ETA, ETA_BYTES, GAMMA1, N, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES,
};
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

// ---------------------------------------------------------------------------------------
// BitPack / BitUnpack of t0 (13 bits), η (4 bits) and z (20 bits), and t1's packing.

/// Calls `f(g, v, delta)` for the `groups` groups of `step` bytes: `v` holds 16 bytes from
/// byte `step·g`, or, where those would run past the end, the last 16 bytes, with the group
/// starting at byte `delta` of `v` (to add to the shuffle indices).
#[inline(always)]
fn each_group(bytes: &[u8], step: usize, groups: usize, mut f: impl FnMut(usize, uint8x16_t, u8)) {
    debug_assert!(bytes.len() >= 16 && step * groups <= bytes.len());
    for g in 0..groups {
        let off = step * g;
        let start = off.min(bytes.len() - 16);
        let src: &[u8; 16] = bytes[start..start + 16].try_into().expect("16 bytes");
        // SAFETY: reads 16 bytes from a reference to 16 bytes; NEON is baseline on aarch64.
        let v = unsafe { vld1q_u8(src.as_ptr()) };
        f(g, v, (off - start) as u8);
    }
}

/// Four values of `bits` <= 25 bits from the 16-byte vector `v`: lane j gets the bytes
/// `spread` puts there (each value's first byte first), shifted right by `shift` and masked.
#[inline(always)]
fn gather4(
    v: uint8x16_t,
    spread: uint8x16_t,
    delta: u8,
    shift: int32x4_t,
    mask: u32,
) -> uint32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let idx = vaddq_u8(spread, vdupq_n_u8(delta));
        let w = vreinterpretq_u32_u8(vqtbl1q_u8(v, idx));
        vandq_u32(vshlq_u32(w, shift), vdupq_n_u32(mask))
    }
}

/// z: coefficient j of a 10-byte group starts at bit 20j (byte 0, 2, 5, 7; shift 0 or 4).
/// The fourth byte of each lane lands above bit 20 and is masked off.
const Z_SPREAD: [u8; 16] = [0, 1, 2, 3, 2, 3, 4, 5, 5, 6, 7, 8, 7, 8, 9, 10];
const Z_SHIFT: [i32; 4] = [0, -4, 0, -4];

/// BitUnpack(z, γ1 − 1, γ1): γ1 − v for each 20-bit v.
pub(super) fn unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) {
    // SAFETY: loads of constant arrays of the right size; NEON is baseline on aarch64.
    let (spread, shift) = unsafe { (vld1q_u8(Z_SPREAD.as_ptr()), vld1q_s32(Z_SHIFT.as_ptr())) };
    each_group(bytes, 10, N / 4, |g, v, delta| {
        let w = gather4(v, spread, delta, shift, 0xf_ffff);
        // SAFETY: NEON is baseline on aarch64.
        let z = unsafe { vsubq_s32(vdupq_n_s32(GAMMA1), vreinterpretq_s32_u32(w)) };
        store_s32(&mut p.c[4 * g..], z);
    });
}

/// t0: coefficient j of a 13-byte group starts at bit 13j (bytes 0 1 3 4 6 8 9 11, shifts
/// 0 5 2 7 4 1 6 3); 13 bits plus a shift of at most 7 fit in 3 bytes, the fourth is masked.
const T0_SPREAD: [[u8; 16]; 2] = [
    [0, 1, 2, 3, 1, 2, 3, 4, 3, 4, 5, 6, 4, 5, 6, 7],
    [6, 7, 8, 9, 8, 9, 10, 11, 9, 10, 11, 12, 11, 12, 13, 14],
];
const T0_SHIFT: [[i32; 4]; 2] = [[0, -5, -2, -7], [-4, -1, -6, -3]];

/// BitUnpack(t0, 2^12 − 1, 2^12): 2^12 − v for each 13-bit v.
pub(super) fn unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) {
    // SAFETY: loads of constant arrays of the right size; NEON is baseline on aarch64.
    let (s0, s1, h0, h1) = unsafe {
        (
            vld1q_u8(T0_SPREAD[0].as_ptr()),
            vld1q_u8(T0_SPREAD[1].as_ptr()),
            vld1q_s32(T0_SHIFT[0].as_ptr()),
            vld1q_s32(T0_SHIFT[1].as_ptr()),
        )
    };
    each_group(bytes, 13, N / 8, |g, v, delta| {
        let (a, b) = (
            gather4(v, s0, delta, h0, 0x1fff),
            gather4(v, s1, delta, h1, 0x1fff),
        );
        // SAFETY: NEON is baseline on aarch64.
        let (a, b) = unsafe {
            let top = vdupq_n_s32(1 << (D - 1));
            (
                vsubq_s32(top, vreinterpretq_s32_u32(a)),
                vsubq_s32(top, vreinterpretq_s32_u32(b)),
            )
        };
        store_s32(&mut p.c[8 * g..], a);
        store_s32(&mut p.c[8 * g + 4..], b);
    });
}

/// BitUnpack(s, η, η): η − v for each half-byte v (low half first); whether all v <= 2η.
pub(super) fn unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool {
    // SAFETY (for the block): loads and stores through references of the right size; NEON is
    // baseline on aarch64.
    unsafe {
        let mut top = vdupq_n_u8(0);
        for (k, chunk) in bytes.chunks_exact(16).enumerate() {
            let chunk: &[u8; 16] = chunk.try_into().expect("16 bytes");
            let b = vld1q_u8(chunk.as_ptr());
            let (lo, hi) = (vandq_u8(b, vdupq_n_u8(15)), vshrq_n_u8::<4>(b));
            top = vmaxq_u8(top, vmaxq_u8(lo, hi));
            // Half-bytes in order, then η − v in [−11, 4] as i8, widened with its sign.
            let eta = vdupq_n_s8(ETA as i8);
            for (h, v) in [vzip1q_u8(lo, hi), vzip2q_u8(lo, hi)]
                .into_iter()
                .enumerate()
            {
                let s = vsubq_s8(eta, vreinterpretq_s8_u8(v));
                let (s0, s1) = (vmovl_s8(vget_low_s8(s)), vmovl_high_s8(s));
                let base = 32 * k + 16 * h;
                store_s32(&mut p.c[base..], vmovl_s16(vget_low_s16(s0)));
                store_s32(&mut p.c[base + 4..], vmovl_high_s16(s0));
                store_s32(&mut p.c[base + 8..], vmovl_s16(vget_low_s16(s1)));
                store_s32(&mut p.c[base + 12..], vmovl_high_s16(s1));
            }
        }
        vmaxvq_u8(top) <= 2 * ETA as u8
    }
}

/// BitPack(s, η, η): the 4-bit packing of η − s.
pub(super) fn pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) {
    for i in (0..N).step_by(16) {
        let c: &[i32; 16] = p.c[i..i + 16].try_into().expect("16 coefficients");
        let o: &mut [u8; 8] = (&mut out[i / 2..i / 2 + 8]).try_into().expect("8 bytes");
        // SAFETY: loads and stores through references of the right size; NEON is baseline on
        // aarch64.
        unsafe {
            let eta = vdupq_n_s32(ETA);
            // Even coefficients in .0, odd ones in .1.
            let a = vld2q_s32(c.as_ptr());
            let b = vld2q_s32(c.as_ptr().add(8));
            let (a0, a1) = (vsubq_s32(eta, a.0), vsubq_s32(eta, a.1));
            let (b0, b1) = (vsubq_s32(eta, b.0), vsubq_s32(eta, b.1));
            let lo = vreinterpretq_u32_s32(vorrq_s32(a0, vshlq_n_s32::<4>(a1)));
            let hi = vreinterpretq_u32_s32(vorrq_s32(b0, vshlq_n_s32::<4>(b1)));
            let n = vcombine_u16(vmovn_u32(lo), vmovn_u32(hi));
            vst1_u8(o.as_mut_ptr(), vmovn_u16(n));
        }
    }
}

/// Eight values of `BITS` bits (`sub` − c for `sub` nonzero, c itself otherwise), from
/// coefficients i..i + 8, as two 4·BITS-bit words (u64 lanes 0 and 1).
#[inline(always)]
fn quads<const BITS: i32>(c: &[i32], sub: i32, neg: bool) -> (u64, u64) {
    let c: &[i32; 8] = c[..8].try_into().expect("8 coefficients");
    // SAFETY: reads 8 i32 from a reference to 8 i32; NEON is baseline on aarch64.
    unsafe {
        // Even coefficients in .0, odd ones in .1.
        let v = vld2q_s32(c.as_ptr());
        let (e, o) = if neg {
            (
                vsubq_s32(vdupq_n_s32(sub), v.0),
                vsubq_s32(vdupq_n_s32(sub), v.1),
            )
        } else {
            (v.0, v.1)
        };
        // Pairs of 2·BITS bits in 32-bit lanes, then pairs of pairs in 64-bit lanes: the odd
        // pair shifted in above the even one's low 2·BITS bits.
        let pair = vreinterpretq_u64_s32(vorrq_s32(e, vshlq_n_s32::<BITS>(o)));
        let quad = match BITS {
            10 => vsliq_n_u64::<20>(pair, vshrq_n_u64::<32>(pair)),
            _ => vsliq_n_u64::<26>(pair, vshrq_n_u64::<32>(pair)),
        };
        (vgetq_lane_u64::<0>(quad), vgetq_lane_u64::<1>(quad))
    }
}

/// SimpleBitPack(t1, 10 bits): eight coefficients to 10 bytes.
pub(super) fn pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) {
    for (g, o) in out.chunks_exact_mut(10).enumerate() {
        let (a, b) = quads::<10>(&p.c[8 * g..], 0, false);
        o[..8].copy_from_slice(&(a | b << 40).to_le_bytes());
        o[8..].copy_from_slice(&(b >> 24).to_le_bytes()[..2]);
    }
}

/// BitPack(t0, 2^12 − 1, 2^12): eight values 2^12 − c to 13 bytes.
pub(super) fn pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) {
    for (g, o) in out.chunks_exact_mut(13).enumerate() {
        let (a, b) = quads::<13>(&p.c[8 * g..], 1 << (D - 1), true);
        o[..8].copy_from_slice(&(a | b << 52).to_le_bytes());
        o[8..].copy_from_slice(&(b >> 12).to_le_bytes()[..5]);
    }
}

/// For eight 20-bit values as pairs (low 32 bits in bytes 0..16, the top 8 bits in bytes
/// 16..32 at 4k): the 20 output bytes, pair k at 5k.
const Z_PACK: [u8; 16] = [0, 1, 2, 3, 16, 4, 5, 6, 7, 20, 8, 9, 10, 11, 24, 12];
const Z_PACK_TAIL: [u8; 8] = [13, 14, 15, 28, 0xff, 0xff, 0xff, 0xff];

/// BitPack(z, γ1 − 1, γ1): eight values γ1 − c to 20 bytes.
pub(super) fn pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) {
    // SAFETY (for the block): loads and stores through references of the right size; NEON is
    // baseline on aarch64.
    unsafe {
        let (idx, tail) = (vld1q_u8(Z_PACK.as_ptr()), vld1_u8(Z_PACK_TAIL.as_ptr()));
        let g1 = vdupq_n_s32(GAMMA1);
        for (g, o) in out.chunks_exact_mut(20).enumerate() {
            let c: &[i32; 8] = p.c[8 * g..8 * g + 8].try_into().expect("8 coefficients");
            let o: &mut [u8; 20] = o.try_into().expect("20 bytes");
            let v = vld2q_s32(c.as_ptr());
            let (e, od) = (vsubq_s32(g1, v.0), vsubq_s32(g1, v.1));
            let lo = vorrq_s32(e, vshlq_n_s32::<20>(od));
            let hi = vreinterpretq_s32_u32(vshrq_n_u32::<12>(vreinterpretq_u32_s32(od)));
            let t = uint8x16x2_t(vreinterpretq_u8_s32(lo), vreinterpretq_u8_s32(hi));
            vst1q_u8(o.as_mut_ptr(), vqtbl2q_u8(t, idx));
            let last = vget_lane_u32::<0>(vreinterpret_u32_u8(vqtbl2_u8(t, tail)));
            o[16..].copy_from_slice(&last.to_le_bytes());
        }
    }
}

//! NEON serialisation and compression (FIPS 203 section 4.2.1).
//!
//! Bit packing: the d-bit values are merged pairwise with shift-and-insert (SLI) into 32- and
//! then 64-bit lanes, and one TBL with a constant index vector moves the useful bytes of a
//! vector to its front; the vectors are stored overlapping, each store's tail overwritten by
//! the next one, and the last 16 bytes are assembled from the last two vectors. Unpacking
//! mirrors it: overlapping loads, a TBL that gives every lane the bytes of its value, then
//! per-lane shifts.

use super::vector::{load_s16, load_u8, load_u16, store_s16, store_u8};
use crate::simd::{Poly, Q};
use core::arch::aarch64::*;

/// A reduced coefficient (|c| < q) to [0, q): min(c, c + q) as unsigned.
#[inline(always)]
fn to_unsigned(c: int16x8_t) -> uint16x8_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let a = vreinterpretq_u16_s16(c);
        let b = vreinterpretq_u16_s16(vaddq_s16(c, vdupq_n_s16(Q)));
        vminq_u16(a, b)
    }
}

// ---------------------------------------------------------------------------------------
// ByteEncode_12 / ByteDecode_12 in the NTT-domain order (evens, odds per block of 16).

#[inline(always)]
pub(super) fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
    for (c, o) in p.c.chunks_exact(32).zip(out.chunks_exact_mut(48)) {
        // SAFETY: NEON is baseline on aarch64; the store writes 48 bytes through a reference
        // to 48 bytes.
        unsafe {
            let e0 = vreinterpretq_u8_u16(to_unsigned(load_s16(&c[0..])));
            let o0 = to_unsigned(load_s16(&c[8..]));
            let e1 = vreinterpretq_u8_u16(to_unsigned(load_s16(&c[16..])));
            let o1 = to_unsigned(load_s16(&c[24..]));
            let b0 = vuzp1q_u8(e0, e1);
            let e_hi = vuzp2q_u8(e0, e1);
            let o_lo = vuzp1q_u8(vreinterpretq_u8_u16(o0), vreinterpretq_u8_u16(o1));
            let b1 = vsliq_n_u8::<4>(e_hi, o_lo);
            let b2 = vshrn_high_n_u16::<4>(vshrn_n_u16::<4>(o0), o1);
            let o: &mut [u8; 48] = o.try_into().expect("48 bytes");
            vst3q_u8(o.as_mut_ptr(), uint8x16x3_t(b0, b1, b2));
        }
    }
}

#[inline(always)]
pub(super) fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
    // SAFETY: NEON is baseline on aarch64; the load reads 48 bytes from a reference to 48
    // bytes.
    unsafe {
        let mut max = vdupq_n_u16(0);
        for (c, b) in p.c.chunks_exact_mut(32).zip(bytes.chunks_exact(48)) {
            let b: &[u8; 48] = b.try_into().expect("48 bytes");
            let v = vld3q_u8(b.as_ptr());
            let lo = vandq_u8(v.1, vdupq_n_u8(0x0f));
            let e0 = vreinterpretq_u16_u8(vzip1q_u8(v.0, lo));
            let e1 = vreinterpretq_u16_u8(vzip2q_u8(v.0, lo));
            let o0 = vshrq_n_u16::<4>(vreinterpretq_u16_u8(vzip1q_u8(v.1, v.2)));
            let o1 = vshrq_n_u16::<4>(vreinterpretq_u16_u8(vzip2q_u8(v.1, v.2)));
            max = vmaxq_u16(max, vmaxq_u16(vmaxq_u16(e0, e1), vmaxq_u16(o0, o1)));
            store_s16(&mut c[0..], vreinterpretq_s16_u16(e0));
            store_s16(&mut c[8..], vreinterpretq_s16_u16(o0));
            store_s16(&mut c[16..], vreinterpretq_s16_u16(e1));
            store_s16(&mut c[24..], vreinterpretq_s16_u16(o1));
        }
        vmaxvq_u16(max) < Q as u16
    }
}

// ---------------------------------------------------------------------------------------
// Messages (d = 1).

#[inline(always)]
pub(super) fn from_msg(p: &mut Poly, m: &[u8; 32]) {
    const BITS: [u16; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let bits = load_u16(&BITS);
        let half = vdupq_n_u16((Q as u16).div_ceil(2));
        for (c, &byte) in p.c.chunks_exact_mut(8).zip(m) {
            let mask = vtstq_u16(vdupq_n_u16(byte as u16), bits);
            store_s16(c, vreinterpretq_s16_u16(vandq_u16(mask, half)));
        }
    }
}

/// Compress_1: 1 exactly when c mod q is in [833, 2496], that is when |c| is.
#[inline(always)]
pub(super) fn to_msg(p: &Poly, m: &mut [u8; 32]) {
    const BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON is baseline on aarch64; the stores write 16 bytes through references to
    // 16 bytes.
    unsafe {
        let bits = load_u8(&BITS);
        let bit = |c: &[i16]| {
            let a = vreinterpretq_u16_s16(vabsq_s16(load_s16(c)));
            vcltq_u16(vsubq_u16(a, vdupq_n_u16(833)), vdupq_n_u16(2496 - 833 + 1))
        };
        for (c, out) in p.c.chunks_exact(128).zip(m.chunks_exact_mut(16)) {
            let mut s = [vdupq_n_u8(0); 8];
            for (k, x) in s.iter_mut().enumerate() {
                let lo = bit(&c[16 * k..]);
                let hi = bit(&c[16 * k + 8..]);
                let b = vuzp1q_u8(vreinterpretq_u8_u16(lo), vreinterpretq_u8_u16(hi));
                *x = vandq_u8(b, bits);
            }
            // Three rounds of pairwise additions sum each group of 8 weighted bits.
            let t0 = vpaddq_u8(s[0], s[1]);
            let t1 = vpaddq_u8(s[2], s[3]);
            let t2 = vpaddq_u8(s[4], s[5]);
            let t3 = vpaddq_u8(s[6], s[7]);
            let u0 = vpaddq_u8(t0, t1);
            let u1 = vpaddq_u8(t2, t3);
            let r = vpaddq_u8(u0, u1);
            let out: &mut [u8; 16] = out.try_into().expect("16 bytes");
            vst1q_u8(out.as_mut_ptr(), r);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Compress_d / Decompress_d.

/// Compress_d of 8 reduced coefficients: floor((x·2^d + 1664) / q) mod 2^d for x = c mod q,
/// the quotient as floor(N·B / 2^42) with B = ceil(2^42 / q), exact for N < 2^23
/// (the error N·(B - 2^42/q) / 2^42 < 2^-19 stays below 1/q).
#[inline(always)]
fn compress8<const D: i32>(c: int16x8_t) -> uint16x8_t {
    const B: i32 = ((1u64 << 42).div_ceil(Q as u64)) as i32;
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let x = to_unsigned(c);
        let half = vdupq_n_u32((Q as u32 - 1) / 2);
        let m = vdupq_n_u16(1 << D);
        let lo = vmlal_u16(half, vget_low_u16(x), vget_low_u16(m));
        let hi = vmlal_high_u16(half, x, m);
        let lo = vqdmulhq_s32(vreinterpretq_s32_u32(lo), vdupq_n_s32(B));
        let hi = vqdmulhq_s32(vreinterpretq_s32_u32(hi), vdupq_n_s32(B));
        let r = vshrn_high_n_u32::<11>(
            vshrn_n_u32::<11>(vreinterpretq_u32_s32(lo)),
            vreinterpretq_u32_s32(hi),
        );
        vandq_u16(r, vdupq_n_u16((1 << D) - 1))
    }
}

/// The byte positions of the packed bits after merging (per 64-bit lane), the index vector
/// that moves them to the front, and the one that builds the last 16 bytes from the last two
/// vectors.
struct Packing {
    front: [u8; 16],
    last: [u8; 16],
}

const fn packing(useful: &[u8]) -> Packing {
    let n = useful.len();
    let mut front = [0x80u8; 16];
    let mut i = 0;
    while i < n {
        front[i] = useful[i];
        i += 1;
    }
    let mut last = [0u8; 16];
    let prev = 16 - n;
    let mut i = 0;
    while i < prev {
        last[i] = useful[n - prev + i];
        i += 1;
    }
    let mut i = 0;
    while i < n {
        last[prev + i] = useful[i] + 16;
        i += 1;
    }
    Packing { front, last }
}

const PACK10: Packing = packing(&[0, 1, 2, 3, 4, 8, 9, 10, 11, 12]);
const PACK11: Packing = packing(&[0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13]);

/// Stores `count` vectors of `B` useful bytes each (positions per `pack`) contiguously.
#[inline(always)]
fn store_packed<const B: usize>(
    out: &mut [u8],
    count: usize,
    pack: &Packing,
    vec: impl Fn(usize) -> uint8x16_t,
) {
    let front = load_u8(&pack.front);
    let mut prev = vec(0);
    for i in 1..count {
        // SAFETY: NEON is baseline on aarch64.
        store_u8(&mut out[B * (i - 1)..], unsafe { vqtbl1q_u8(prev, front) });
        if i + 1 < count {
            prev = vec(i);
        } else {
            let last = vec(i);
            // SAFETY: NEON is baseline on aarch64.
            let v = unsafe { vqtbl2q_u8(uint8x16x2_t(prev, last), load_u8(&pack.last)) };
            store_u8(&mut out[B * count - 16..], v);
        }
    }
}

/// Merges the two `K`-bit values in each 2W-bit lane: lo | hi << K.
#[inline(always)]
fn merge32<const K: i32>(v: uint16x8_t) -> uint32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let x = vreinterpretq_u32_u16(v);
        vsliq_n_u32::<K>(x, vshrq_n_u32::<16>(x))
    }
}

#[inline(always)]
fn merge64<const K: i32>(x: uint32x4_t) -> uint64x2_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let x = vreinterpretq_u64_u32(x);
        vsliq_n_u64::<K>(x, vshrq_n_u64::<32>(x))
    }
}

#[inline(always)]
pub(super) fn compress(p: &Poly, d: u32, out: &mut [u8]) {
    let c = &p.c;
    match d {
        4 => {
            for (c, o) in c.chunks_exact(32).zip(out[..128].chunks_exact_mut(16)) {
                // SAFETY: NEON is baseline on aarch64.
                let r = unsafe {
                    let v: [uint8x16_t; 4] = core::array::from_fn(|k| {
                        vreinterpretq_u8_u16(compress8::<4>(load_s16(&c[8 * k..])))
                    });
                    let n0 = vuzp1q_u8(v[0], v[1]);
                    let n1 = vuzp1q_u8(v[2], v[3]);
                    vsliq_n_u8::<4>(vuzp1q_u8(n0, n1), vuzp2q_u8(n0, n1))
                };
                store_u8(o, r);
            }
        }
        5 => store_packed::<10>(&mut out[..160], 16, &PACK10, |i| {
            // SAFETY: NEON is baseline on aarch64.
            unsafe {
                let a = vreinterpretq_u8_u16(compress8::<5>(load_s16(&c[16 * i..])));
                let b = vreinterpretq_u8_u16(compress8::<5>(load_s16(&c[16 * i + 8..])));
                let n = vreinterpretq_u16_u8(vuzp1q_u8(a, b));
                let l1 = vsliq_n_u16::<5>(n, vshrq_n_u16::<8>(n));
                let l2 = merge64::<20>(merge32::<10>(l1));
                vreinterpretq_u8_u64(l2)
            }
        }),
        10 => store_packed::<10>(&mut out[..320], 32, &PACK10, |i| {
            let v = compress8::<10>(load_s16(&c[8 * i..]));
            // SAFETY: NEON is baseline on aarch64.
            unsafe { vreinterpretq_u8_u64(merge64::<20>(merge32::<10>(v))) }
        }),
        11 => store_packed::<11>(&mut out[..352], 32, &PACK11, |i| {
            let v = compress8::<11>(load_s16(&c[8 * i..]));
            // SAFETY: NEON is baseline on aarch64.
            unsafe {
                let l = merge64::<22>(merge32::<11>(v));
                // Lane 1 (values 4-7) starts at bit 44: shift it by 4 and bring in the top
                // 4 bits of lane 0.
                let shifts = vcombine_s64(vdup_n_s64(0), vdup_n_s64(4));
                let hi = vshlq_u64(l, shifts);
                let carry = vshrq_n_u64::<40>(vextq_u64::<1>(vdupq_n_u64(0), l));
                vreinterpretq_u8_u64(vorrq_u64(hi, carry))
            }
        }),
        _ => unreachable!("compression to {d} bits"),
    }
}

/// Unpacking tables for d-bit values into 16-bit lanes (d <= 10): per lane the two bytes
/// holding the value, the mask of the value at its bit position, and the shift that puts it
/// at bit 15 - d (ready for the multiplication by q).
struct Unpack16 {
    idx: [u8; 16],
    mask: [u16; 8],
    shift: [i16; 8],
}

const fn unpack16(d: usize) -> Unpack16 {
    let mut idx = [0u8; 16];
    let mut mask = [0u16; 8];
    let mut shift = [0i16; 8];
    let mut j = 0;
    while j < 8 {
        let bit = d * j;
        idx[2 * j] = (bit / 8) as u8;
        idx[2 * j + 1] = (bit / 8 + 1) as u8;
        let o = bit % 8;
        mask[j] = (((1u32 << d) - 1) << o) as u16;
        shift[j] = (15 - d as i16) - o as i16;
        j += 1;
    }
    Unpack16 { idx, mask, shift }
}

/// The same for 11-bit values into 32-bit lanes (values 0-3 and 4-7 of 8), then narrowed.
struct Unpack32 {
    idx: [[u8; 16]; 2],
    shift: [[i32; 4]; 2],
}

const fn unpack32() -> Unpack32 {
    let mut idx = [[0x80u8; 16]; 2];
    let mut shift = [[0i32; 4]; 2];
    let mut j = 0;
    while j < 8 {
        let bit = 11 * j;
        let (h, l) = (j / 4, j % 4);
        idx[h][4 * l] = (bit / 8) as u8;
        idx[h][4 * l + 1] = (bit / 8 + 1) as u8;
        idx[h][4 * l + 2] = (bit / 8 + 2) as u8;
        shift[h][l] = 4 - (bit % 8) as i32;
        j += 1;
    }
    Unpack32 { idx, shift }
}

const UNPACK5: Unpack16 = unpack16(5);
const UNPACK10: Unpack16 = unpack16(10);
const UNPACK11: Unpack32 = unpack32();

/// The 16 bytes at `off` (or the last 16 of `bytes`) and the TBL index `idx` adjusted to
/// them.
#[inline(always)]
fn window(bytes: &[u8], off: usize, idx: uint8x16_t) -> (uint8x16_t, uint8x16_t) {
    if off + 16 <= bytes.len() {
        (load_u8(&bytes[off..]), idx)
    } else {
        let start = bytes.len() - 16;
        // SAFETY: NEON is baseline on aarch64.
        let idx = unsafe { vaddq_u8(idx, vdupq_n_u8((off - start) as u8)) };
        (load_u8(&bytes[start..]), idx)
    }
}

/// Decompress_d of 8 values given as y·2^(15-d): round(y·q / 2^d).
#[inline(always)]
fn decompress8(y: uint16x8_t) -> int16x8_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { vqrdmulhq_s16(vreinterpretq_s16_u16(y), vdupq_n_s16(Q)) }
}

#[inline(always)]
fn decompress16<const D: usize>(p: &mut Poly, bytes: &[u8], u: &Unpack16) {
    let bytes = &bytes[..32 * D];
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let idx = load_u8(&u.idx);
        let mask = load_u16(&u.mask);
        let shift = load_s16(&u.shift);
        for (k, c) in p.c.chunks_exact_mut(8).enumerate() {
            let (v, i) = window(bytes, D * k, idx);
            let x = vreinterpretq_u16_u8(vqtbl1q_u8(v, i));
            let y = vshlq_u16(vandq_u16(x, mask), shift);
            store_s16(c, decompress8(y));
        }
    }
}

#[inline(always)]
pub(super) fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
    match d {
        4 => {
            for (c, b) in p.c.chunks_exact_mut(32).zip(bytes[..128].chunks_exact(16)) {
                // SAFETY: NEON is baseline on aarch64.
                unsafe {
                    let x = load_u8(b);
                    // Each nibble times 8 in a byte, then widened times 256: y · 2^11.
                    let lo = vandq_u8(vshlq_n_u8::<3>(x), vdupq_n_u8(0x78));
                    let hi = vandq_u8(vshrq_n_u8::<1>(x), vdupq_n_u8(0x78));
                    let a = vzip1q_u8(lo, hi);
                    let b = vzip2q_u8(lo, hi);
                    store_s16(&mut c[0..], decompress8(vshll_n_u8::<8>(vget_low_u8(a))));
                    store_s16(&mut c[8..], decompress8(vshll_high_n_u8::<8>(a)));
                    store_s16(&mut c[16..], decompress8(vshll_n_u8::<8>(vget_low_u8(b))));
                    store_s16(&mut c[24..], decompress8(vshll_high_n_u8::<8>(b)));
                }
            }
        }
        5 => decompress16::<5>(p, bytes, &UNPACK5),
        10 => decompress16::<10>(p, bytes, &UNPACK10),
        11 => {
            let bytes = &bytes[..352];
            let u = &UNPACK11;
            // SAFETY: NEON is baseline on aarch64; the shift loads read 4 i32 from references
            // to 4 i32.
            unsafe {
                let i0 = load_u8(&u.idx[0]);
                let i1 = load_u8(&u.idx[1]);
                let s0 = vld1q_s32(u.shift[0].as_ptr());
                let s1 = vld1q_s32(u.shift[1].as_ptr());
                for (k, c) in p.c.chunks_exact_mut(8).enumerate() {
                    let (v, j0) = window(bytes, 11 * k, i0);
                    let (_, j1) = window(bytes, 11 * k, i1);
                    let a = vshlq_u32(vreinterpretq_u32_u8(vqtbl1q_u8(v, j0)), s0);
                    let b = vshlq_u32(vreinterpretq_u32_u8(vqtbl1q_u8(v, j1)), s1);
                    let y = vuzp1q_u16(vreinterpretq_u16_u32(a), vreinterpretq_u16_u32(b));
                    let y = vandq_u16(y, vdupq_n_u16(0x7ff << 4));
                    store_s16(c, decompress8(y));
                }
            }
        }
        _ => unreachable!("decompression from {d} bits"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::encode as portable;
    use crate::simd::N;

    /// Every reduced coefficient value through every compression, against the portable code.
    #[test]
    fn compress_all_values() {
        let values: Vec<i16> = (1 - Q..Q).collect();
        for chunk in values.chunks(256) {
            let mut p = Poly::ZERO;
            for (c, &v) in p.c.iter_mut().zip(chunk.iter().cycle()) {
                *c = v;
            }
            for d in [4u32, 5, 10, 11] {
                let len = 32 * d as usize;
                let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
                compress(&p, d, &mut a);
                portable::compress(&p, d, &mut b);
                assert_eq!(a, b, "d = {d}");
            }
            let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
            to_msg(&p, &mut a);
            portable::to_msg(&p, &mut b);
            assert_eq!(a, b, "to_msg");
        }
    }

    #[test]
    fn decompress_all_values() {
        for d in [4u32, 5, 10, 11] {
            for start in (0..1u32 << d).step_by(256) {
                let mut v = [0u16; N];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = ((start as usize + i) % (1 << d)) as u16;
                }
                let mut bytes = vec![0u8; 32 * d as usize];
                // ByteEncode_d of the values.
                let mut acc = 0u64;
                let mut bits = 0;
                let mut o = 0;
                for &x in &v {
                    acc |= (x as u64) << bits;
                    bits += d;
                    while bits >= 8 {
                        bytes[o] = acc as u8;
                        o += 1;
                        acc >>= 8;
                        bits -= 8;
                    }
                }
                let (mut a, mut b) = (Poly::ZERO, Poly::ZERO);
                decompress(&mut a, d, &bytes);
                portable::decompress(&mut b, d, &bytes);
                assert_eq!(a.c, b.c, "d = {d}");
            }
        }
    }
}

//! Scalar bit packing for ML-DSA (FIPS 204 sections 7.1 and 7.2).

use crate::mldsa::ops::{D, DsaPoly, ETA, GAMMA1, N};

/// Packs 256 values of `BITS` bits each (given by `value(i)`), little-endian bit order.
#[inline(always)]
fn pack_bits<const BITS: u32>(out: &mut [u8], value: impl Fn(usize) -> u32) {
    debug_assert_eq!(out.len(), N * BITS as usize / 8);
    let mut acc = 0u64;
    let mut have = 0u32;
    let mut o = 0;
    for i in 0..N {
        acc |= (value(i) as u64) << have;
        have += BITS;
        while have >= 8 {
            out[o] = acc as u8;
            o += 1;
            acc >>= 8;
            have -= 8;
        }
    }
}

/// Unpacks 256 values of `BITS` bits each, passing each to `store(i, v)`.
#[inline(always)]
fn unpack_bits<const BITS: u32>(bytes: &[u8], mut store: impl FnMut(usize, u32)) {
    debug_assert_eq!(bytes.len(), N * BITS as usize / 8);
    let mask = (1u64 << BITS) - 1;
    let mut acc = 0u64;
    let mut have = 0u32;
    let mut b = 0;
    for i in 0..N {
        while have < BITS {
            acc |= (bytes[b] as u64) << have;
            b += 1;
            have += 8;
        }
        store(i, (acc & mask) as u32);
        acc >>= BITS;
        have -= BITS;
    }
}

pub(crate) fn pack_t1(p: &DsaPoly, out: &mut [u8]) {
    pack_bits::<10>(out, |i| p.c[i] as u32);
}

pub(crate) fn unpack_t1(p: &mut DsaPoly, bytes: &[u8]) {
    unpack_bits::<10>(bytes, |i, v| p.c[i] = v as i32);
}

pub(crate) fn pack_t0(p: &DsaPoly, out: &mut [u8]) {
    pack_bits::<D>(out, |i| ((1 << (D - 1)) - p.c[i]) as u32);
}

pub(crate) fn unpack_t0(p: &mut DsaPoly, bytes: &[u8]) {
    unpack_bits::<D>(bytes, |i, v| p.c[i] = (1 << (D - 1)) - v as i32);
}

pub(crate) fn pack_eta(p: &DsaPoly, out: &mut [u8]) {
    pack_bits::<4>(out, |i| (ETA - p.c[i]) as u32);
}

/// Returns whether every half-byte was at most 2η, accumulated without branching.
pub(crate) fn unpack_eta(p: &mut DsaPoly, bytes: &[u8]) -> bool {
    let mut over = 0i32;
    unpack_bits::<4>(bytes, |i, v| {
        over |= 2 * ETA - v as i32;
        p.c[i] = ETA - v as i32;
    });
    over >= 0
}

pub(crate) fn pack_z(p: &DsaPoly, out: &mut [u8]) {
    pack_bits::<20>(out, |i| (GAMMA1 - p.c[i]) as u32);
}

pub(crate) fn unpack_z(p: &mut DsaPoly, bytes: &[u8]) {
    unpack_bits::<20>(bytes, |i, v| p.c[i] = GAMMA1 - v as i32);
}

pub(crate) fn pack_w1(p: &DsaPoly, out: &mut [u8]) {
    pack_bits::<4>(out, |i| p.c[i] as u32);
}

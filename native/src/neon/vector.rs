//! The one copy of this implementation's loads and stores between slices and 128-bit
//! registers, each through a reference of exactly the register's size (checked, so a short
//! slice panics instead of reading past its end).

use core::arch::aarch64::*;

/// Eight i16 from `c[..8]`.
#[inline(always)]
pub(super) fn load_s16(c: &[i16]) -> int16x8_t {
    let c: &[i16; 8] = c[..8].try_into().expect("8 coefficients");
    // SAFETY: reads 8 i16 from a reference to 8 i16; NEON is baseline on aarch64.
    unsafe { vld1q_s16(c.as_ptr()) }
}

#[inline(always)]
pub(super) fn store_s16(c: &mut [i16], v: int16x8_t) {
    let c: &mut [i16; 8] = (&mut c[..8]).try_into().expect("8 coefficients");
    // SAFETY: writes 8 i16 through a reference to 8 i16; NEON is baseline on aarch64.
    unsafe { vst1q_s16(c.as_mut_ptr(), v) }
}

/// Four i32 from `c[..4]`.
#[inline(always)]
pub(super) fn load_s32(c: &[i32]) -> int32x4_t {
    let c: &[i32; 4] = c[..4].try_into().expect("4 coefficients");
    // SAFETY: reads 4 i32 from a reference to 4 i32; NEON is baseline on aarch64.
    unsafe { vld1q_s32(c.as_ptr()) }
}

#[inline(always)]
pub(super) fn store_s32(c: &mut [i32], v: int32x4_t) {
    let c: &mut [i32; 4] = (&mut c[..4]).try_into().expect("4 coefficients");
    // SAFETY: writes 4 i32 through a reference to 4 i32; NEON is baseline on aarch64.
    unsafe { vst1q_s32(c.as_mut_ptr(), v) }
}

/// Eight u16 from `c[..8]`.
#[inline(always)]
pub(super) fn load_u16(c: &[u16]) -> uint16x8_t {
    let c: &[u16; 8] = c[..8].try_into().expect("8 values");
    // SAFETY: reads 8 u16 from a reference to 8 u16; NEON is baseline on aarch64.
    unsafe { vld1q_u16(c.as_ptr()) }
}

/// Sixteen bytes from `b[..16]`.
#[inline(always)]
pub(super) fn load_u8(b: &[u8]) -> uint8x16_t {
    let b: &[u8; 16] = b[..16].try_into().expect("16 bytes");
    // SAFETY: reads 16 bytes from a reference to 16 bytes; NEON is baseline on aarch64.
    unsafe { vld1q_u8(b.as_ptr()) }
}

#[inline(always)]
pub(super) fn store_u8(b: &mut [u8], v: uint8x16_t) {
    let b: &mut [u8; 16] = (&mut b[..16]).try_into().expect("16 bytes");
    // SAFETY: writes 16 bytes through a reference to 16 bytes; NEON is baseline on aarch64.
    unsafe { vst1q_u8(b.as_mut_ptr(), v) }
}

//! NEON sampling for ML-DSA: RejNTTPoly's rejection step on public input (the matrix seed),
//! eight 23-bit candidates per 24 bytes, and RejBoundedPoly's on secret input.

use crate::ct::declassified;
use crate::mldsa::ops::{DsaPoly, ETA, N, Q};
use core::arch::aarch64::*;
use zeroize::Zeroize;

/// Spreads bytes 3l..3l+3 of 12 into lane l (little-endian), the top byte zero.
const SPREAD: [u8; 16] = [0, 1, 2, 0xff, 3, 4, 5, 0xff, 6, 7, 8, 0xff, 9, 10, 11, 0xff];

/// Lane l's bit of the accept mask, for lanes 0-3 and 4-7 of eight candidates.
const BITS: [u32; 4] = [1, 2, 4, 8];
const BITS_HI: [u32; 4] = [16, 32, 64, 128];

/// Spreads bytes 12 + 3l..15 + 3l of a 32-byte pair of vectors into lane l.
const SPREAD_HI: [u8; 16] = [
    12, 13, 14, 0xff, 15, 16, 17, 0xff, 18, 19, 20, 0xff, 21, 22, 23, 0xff,
];

/// For each 8-bit accept mask, the two-register TBL indices (lanes 0-3 in bytes 0-15,
/// lanes 4-7 in bytes 16-31) that move the accepted 32-bit lanes of eight to the front. For a
/// mask below 16, bytes 0-15 are also the one-register shuffle for four lanes.
static COMPACT8: [[u8; 32]; 256] = {
    let mut out = [[0xffu8; 32]; 256];
    let mut m = 0;
    while m < 256 {
        let mut o = 0;
        let mut l = 0;
        while l < 8 {
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
        m += 1;
    }
    out
};

/// The number of accepted lanes for each 8-bit accept mask (a load instead of the population
/// count's four instructions).
static ACCEPTED8: [u8; 256] = {
    let mut out = [0u8; 256];
    let mut m = 0;
    while m < 256 {
        out[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    out
};

pub(super) fn rej_uniform(p: &mut DsaPoly, mut filled: usize, bytes: &[u8]) -> usize {
    let mut pos = 0;
    // SAFETY (for the block): NEON is baseline on aarch64; every load and store goes through
    // a reference of the right size.
    unsafe {
        let spread = vld1q_u8(SPREAD.as_ptr());
        let spread_hi = vld1q_u8(SPREAD_HI.as_ptr());
        let bits = vld1q_u32(BITS.as_ptr());
        let bits_hi = vld1q_u32(BITS_HI.as_ptr());
        let mask = vdupq_n_u32(0x7f_ffff);
        let q = vdupq_n_u32(Q as u32);
        // Eight candidates (24 bytes) at a time while a 32-byte load stays inside `bytes`
        // and eight lanes fit in the polynomial: one accept mask and one table row for the
        // eight, where four at a time took two of each. (Conditions in the form `x <= n − k`,
        // which cannot overflow, let the compiler drop the slices' own checks.)
        let len = bytes.len();
        while len >= 32 && pos <= len - 32 && filled <= N - 8 {
            let chunk: &[u8; 32] = bytes[pos..pos + 32].try_into().expect("32 bytes");
            let pair = vld1q_u8_x2(chunk.as_ptr());
            let lo = vandq_u32(vreinterpretq_u32_u8(vqtbl1q_u8(pair.0, spread)), mask);
            let hi = vandq_u32(vreinterpretq_u32_u8(vqtbl2q_u8(pair, spread_hi)), mask);
            // Public data: the accept mask may index a table and set the count.
            let m = vaddvq_u32(vorrq_u32(
                vandq_u32(vcltq_u32(lo, q), bits),
                vandq_u32(vcltq_u32(hi, q), bits_hi),
            )) as usize
                & 255;
            let row = &COMPACT8[m];
            let src = uint8x16x2_t(vreinterpretq_u8_u32(lo), vreinterpretq_u8_u32(hi));
            let out: &mut [i32; 8] = (&mut p.c[filled..filled + 8]).try_into().expect("8");
            let packed = int32x4x2_t(
                vreinterpretq_s32_u8(vqtbl2q_u8(src, vld1q_u8(row.as_ptr()))),
                vreinterpretq_s32_u8(vqtbl2q_u8(src, vld1q_u8(row[16..].as_ptr()))),
            );
            vst1q_s32_x2(out.as_mut_ptr(), packed);
            filled += usize::from(ACCEPTED8[m]);
            pos += 24;
        }
        // Then four at a time while a 16-byte load stays inside `bytes`.
        while len >= 16 && pos <= len - 16 && filled <= N - 4 {
            let chunk: &[u8; 16] = bytes[pos..pos + 16].try_into().expect("16 bytes");
            let v = vandq_u32(
                vreinterpretq_u32_u8(vqtbl1q_u8(vld1q_u8(chunk.as_ptr()), spread)),
                mask,
            );
            // (The mask is below 16; `& 15` lets the compiler see it and drop two checks.)
            let m = vaddvq_u32(vandq_u32(vcltq_u32(v, q), bits)) as usize & 15;
            let packed = vqtbl1q_u8(vreinterpretq_u8_u32(v), vld1q_u8(COMPACT8[m].as_ptr()));
            let out: &mut [i32; 4] = (&mut p.c[filled..filled + 4]).try_into().expect("4");
            vst1q_s32(out.as_mut_ptr(), vreinterpretq_s32_u8(packed));
            filled += usize::from(ACCEPTED8[m]);
            pos += 12;
        }
    }
    // The rest one candidate at a time.
    crate::portable::dsa_sample::rej_uniform(p, filled, &bytes[pos..])
}

/// Lanes k·2^s.. of `x` moved down by 2^s (zeros shifted in at the top).
#[inline(always)]
fn down<const S: i32>(x: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { vextq_u8::<S>(x, vdupq_n_u8(0)) }
}

/// One step of the compaction: the lanes whose remaining distance `r` has bit `BIT` (= 2^S)
/// move down by 2^S; a lane that moves away keeps a stale copy with distance 0, which never
/// moves and is overwritten or lies past the accepted ones.
#[inline(always)]
fn compact_step<const S: i32, const BIT: u8>(
    v: uint8x16_t,
    r: uint8x16_t,
) -> (uint8x16_t, uint8x16_t) {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        let own = vtstq_u8(r, vdupq_n_u8(BIT));
        let incoming = down::<S>(own);
        (
            vbslq_u8(incoming, down::<S>(v), v),
            vbslq_u8(incoming, down::<S>(r), vbicq_u8(r, own)),
        )
    }
}

/// RejBoundedPoly's step for η = 4, sixteen half-bytes (8 bytes) at a time, with no table and
/// no branch on a value: each accepted half-byte moves down by the number of rejected ones
/// before it, in four masked shifts by 1, 2, 4 and 8 lanes (taking the distance's bits from
/// the lowest, accepted values never collide, since their targets keep their order). Only
/// the count of accepted half-bytes decides where the next group is stored and when to stop.
pub(super) fn rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
    let mut ctr = filled;
    let mut stage = [0i32; 16];
    let mut padded = [0xffu8; 8];
    for chunk in bytes.chunks(8) {
        if ctr >= N {
            break;
        }
        // A whole chunk is loaded where it is; only a short last one is copied (a copy of a
        // variable length is a call to memcpy), padded with 0xff: half-bytes 15, rejected.
        let src: &[u8; 8] = match chunk.try_into() {
            Ok(whole) => whole,
            Err(_) => {
                padded[..chunk.len()].copy_from_slice(chunk);
                &padded
            }
        };
        // SAFETY (for the block): loads and stores through references of the right size;
        // NEON is baseline on aarch64.
        let n = unsafe {
            let b = vcombine_u8(vld1_u8(src.as_ptr()), vdup_n_u8(0));
            // Half-bytes in order (low half first).
            let v = vzip1q_u8(vandq_u8(b, vdupq_n_u8(15)), vshrq_n_u8::<4>(b));
            let rej = vcgeq_u8(v, vdupq_n_u8(9));
            // Inclusive prefix sums of the rejections (1 each): for accepted lanes, the
            // number rejected before; rejected lanes get distance 0.
            let mut s = vandq_u8(rej, vdupq_n_u8(1));
            s = vaddq_u8(s, vextq_u8::<15>(vdupq_n_u8(0), s));
            s = vaddq_u8(s, vextq_u8::<14>(vdupq_n_u8(0), s));
            s = vaddq_u8(s, vextq_u8::<12>(vdupq_n_u8(0), s));
            s = vaddq_u8(s, vextq_u8::<8>(vdupq_n_u8(0), s));
            // How many were rejected may show: it says nothing of the accepted values.
            let accepted = declassified(16 - vgetq_lane_u8::<15>(s) as usize);
            let r = vbicq_u8(s, rej);
            let (v, r) = compact_step::<1, 1>(v, r);
            let (v, r) = compact_step::<2, 2>(v, r);
            let (v, r) = compact_step::<4, 4>(v, r);
            let (v, _) = compact_step::<8, 8>(v, r);
            // η − v as i8, widened with its sign.
            let e = vsubq_s8(vdupq_n_s8(ETA as i8), vreinterpretq_s8_u8(v));
            let (e0, e1) = (vmovl_s8(vget_low_s8(e)), vmovl_high_s8(e));
            // Straight into `p` while 16 fit (lanes past the accepted ones are overwritten by
            // the next group or lie past the count), else through the staging buffer.
            let direct = ctr + 16 <= N;
            let st: &mut [i32; 16] = if direct {
                (&mut p.c[ctr..ctr + 16]).try_into().expect("16")
            } else {
                &mut stage
            };
            let st = st.as_mut_ptr();
            vst1q_s32(st, vmovl_s16(vget_low_s16(e0)));
            vst1q_s32(st.add(4), vmovl_high_s16(e0));
            vst1q_s32(st.add(8), vmovl_s16(vget_low_s16(e1)));
            vst1q_s32(st.add(12), vmovl_high_s16(e1));
            accepted
        };
        let take = n.min(N - ctr);
        if ctr + 16 > N {
            p.c[ctr..ctr + take].copy_from_slice(&stage[..take]);
        }
        ctr += take;
    }
    // Accepted secret values may remain in the staging buffer, input bytes in the padded copy.
    stage.zeroize();
    padded.zeroize();
    ctr
}

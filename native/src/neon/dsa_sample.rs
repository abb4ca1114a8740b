//! NEON sampling for ML-DSA: RejNTTPoly's rejection step on public input (the matrix seed),
//! four 23-bit candidates per 12 bytes, and RejBoundedPoly's on secret input.

use crate::mldsa::ops::{DsaPoly, ETA, N, Q};
use core::arch::aarch64::*;
use zeroize::Zeroize;

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

/// The number of accepted lanes for each 4-bit accept mask (a load instead of the
/// population count's four instructions).
const ACCEPTED: [u8; 16] = {
    let mut out = [0u8; 16];
    let mut m = 0;
    while m < 16 {
        out[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    out
};

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
            // (The mask is below 16; `& 15` lets the compiler see it and drop two checks.)
            let m = vaddvq_u32(vandq_u32(ok, bits)) as usize & 15;
            let packed = vqtbl1q_u8(vreinterpretq_u8_u32(v), vld1q_u8(COMPACT[m].as_ptr()));
            let out: &mut [i32; 4] = (&mut p.c[filled..filled + 4]).try_into().expect("4");
            vst1q_s32(out.as_mut_ptr(), vreinterpretq_s32_u8(packed));
            filled += usize::from(ACCEPTED[m]);
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
    for chunk in bytes.chunks(8) {
        if ctr >= N {
            break;
        }
        let mut src = [0u8; 8];
        src[..chunk.len()].copy_from_slice(chunk);
        // SAFETY (for the block): loads and stores through references of the right size;
        // NEON is baseline on aarch64.
        let n = unsafe {
            let b = vcombine_u8(vld1_u8(src.as_ptr()), vdup_n_u8(0));
            // Half-bytes in order (low half first); those of a short chunk's padding are set
            // to 15, rejected.
            let v = vzip1q_u8(vandq_u8(b, vdupq_n_u8(15)), vshrq_n_u8::<4>(b));
            let valid = 2 * chunk.len();
            let lane = vld1q_u8(LANE.as_ptr());
            let v = vorrq_u8(
                v,
                vandq_u8(vcgeq_u8(lane, vdupq_n_u8(valid as u8)), vdupq_n_u8(15)),
            );
            let rej = vcgeq_u8(v, vdupq_n_u8(9));
            // Inclusive prefix sums of the rejections (1 each): for accepted lanes, the
            // number rejected before; rejected lanes get distance 0.
            let mut s = vandq_u8(rej, vdupq_n_u8(1));
            s = vaddq_u8(s, vextq_u8::<15>(vdupq_n_u8(0), s));
            s = vaddq_u8(s, vextq_u8::<14>(vdupq_n_u8(0), s));
            s = vaddq_u8(s, vextq_u8::<12>(vdupq_n_u8(0), s));
            s = vaddq_u8(s, vextq_u8::<8>(vdupq_n_u8(0), s));
            let accepted = 16 - vgetq_lane_u8::<15>(s) as usize;
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
    // Accepted secret values may remain in the staging buffer.
    stage.zeroize();
    ctr
}

/// Lane numbers, to mark the lanes past a short chunk as rejected.
const LANE: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

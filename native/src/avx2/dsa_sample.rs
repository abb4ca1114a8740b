//! ML-DSA sampling: RejNTTPoly's rejection step on 8 × i32 vectors (public data, a table),
//! and RejBoundedPoly's on 16 × u8 vectors (secret data, no table: masked shifts).

use super::vector::{load256, store256};
use crate::ct::declassified;
use crate::mldsa::ops::{DsaPoly, ETA, N, Q};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// For each 8-bit mask of accepted lanes, the indices of those lanes in order (one byte each,
/// the rest zero): the compaction `vpermd` of `rej_uniform`.
static REJ_IDX: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut k, mut lane) = (0, 0);
        while lane < 8 {
            if (m >> lane) & 1 == 1 {
                t[m] |= (lane as u64) << (8 * k);
                k += 1;
            }
            lane += 1;
        }
        m += 1;
    }
    t
};

/// Eight 23-bit candidates from the 24 bytes at `bytes[pos..]` (32 readable), those below q
/// moved to the front by a table-driven `vpermd`, and how many they are.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn uniform8(bytes: &[u8], pos: usize) -> (__m256i, usize) {
    let spread = _mm256_setr_epi8(
        0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12,
        -1, 13, 14, 15, -1,
    );
    let raw = load256(bytes, pos);
    // Bytes 0..16 in the low lane, 8..24 in the high one; then 3 bytes per i32.
    let v = _mm256_permute4x64_epi64(raw, 0b10_01_01_00);
    let v = _mm256_and_si256(_mm256_shuffle_epi8(v, spread), _mm256_set1_epi32(0x7f_ffff));
    let good = _mm256_cmpgt_epi32(_mm256_set1_epi32(Q), v);
    let mask = _mm256_movemask_ps(_mm256_castsi256_ps(good)) as u32;
    let idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(REJ_IDX[mask as usize] as i64));
    (
        _mm256_permutevar8x32_epi32(v, idx),
        mask.count_ones() as usize,
    )
}

/// RejNTTPoly's step on public data (the matrix seed): 24 bytes = eight 23-bit candidates
/// per group, compared with q, the accepted ones moved to the front and stored at the running
/// count; two groups per round, computed before either is stored. The tail (fewer than 56
/// bytes left, or fewer than 16 free coefficients) is one group at a time, then the portable
/// loop.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn rej_uniform(p: &mut DsaPoly, mut filled: usize, bytes: &[u8]) -> usize {
    let mut pos = 0;
    while pos + 56 <= bytes.len() && filled + 16 <= N {
        let (a, na) = uniform8(bytes, pos);
        let (b, nb) = uniform8(bytes, pos + 24);
        store256(&mut p.c, filled, a);
        filled += na;
        store256(&mut p.c, filled, b);
        filled += nb;
        pos += 48;
    }
    while pos + 32 <= bytes.len() && filled + 8 <= N {
        let (a, na) = uniform8(bytes, pos);
        store256(&mut p.c, filled, a);
        filled += na;
        pos += 24;
    }
    crate::portable::dsa_sample::rej_uniform(p, filled, &bytes[pos..])
}

/// Lanes of `x` moved down by `S` bytes (lane i takes lane i + S), zeros shifted in.
#[target_feature(enable = "avx2")]
#[inline]
fn down<const S: i32>(x: __m128i) -> __m128i {
    _mm_srli_si128::<S>(x)
}

/// One step of the compaction: the lanes whose remaining distance `r` has bit `BIT` (= 2^S)
/// move down by 2^S; a lane that moves away keeps a stale copy with distance 0, which never
/// moves and is overwritten or lies past the accepted ones.
#[target_feature(enable = "avx2")]
#[inline]
fn compact_step<const S: i32, const BIT: i8>(v: __m128i, r: __m128i) -> (__m128i, __m128i) {
    let bit = _mm_set1_epi8(BIT);
    let own = _mm_cmpeq_epi8(_mm_and_si128(r, bit), bit);
    let incoming = down::<S>(own);
    (
        _mm_blendv_epi8(v, down::<S>(v), incoming),
        _mm_blendv_epi8(_mm_andnot_si128(own, r), down::<S>(r), incoming),
    )
}

/// RejBoundedPoly's step for η = 4, sixteen half-bytes (8 bytes) at a time, with no table and
/// no branch on a value (the NEON version's method): each accepted half-byte moves down by
/// the number of rejected ones before it, in four masked shifts by 1, 2, 4 and 8 lanes
/// (taking the distance's bits from the lowest, accepted values never collide, since their
/// targets keep their order). Only the count of accepted half-bytes decides where the next
/// group is stored and when to stop.
#[target_feature(enable = "avx2")]
pub(super) fn rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
    let lanes = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let fifteen = _mm_set1_epi8(15);
    let mut ctr = filled;
    let mut stage = [0i32; 16];
    for chunk in bytes.chunks(8) {
        if ctr >= N {
            break;
        }
        let mut src = [0u8; 8];
        src[..chunk.len()].copy_from_slice(chunk);
        let b = _mm_set_epi64x(0, u64::from_le_bytes(src) as i64);
        // Half-bytes in order (low half first); those of a short chunk's padding are set to
        // 15, rejected.
        let v = _mm_unpacklo_epi8(
            _mm_and_si128(b, fifteen),
            _mm_and_si128(_mm_srli_epi16::<4>(b), fifteen),
        );
        let pad = _mm_cmpgt_epi8(lanes, _mm_set1_epi8(2 * chunk.len() as i8 - 1));
        let v = _mm_or_si128(v, _mm_and_si128(pad, fifteen));
        let rej = _mm_cmpgt_epi8(v, _mm_set1_epi8(8));
        // Inclusive prefix sums of the rejections (1 each): for accepted lanes, the number
        // rejected before; rejected lanes get distance 0.
        let mut s = _mm_and_si128(rej, _mm_set1_epi8(1));
        s = _mm_add_epi8(s, _mm_slli_si128::<1>(s));
        s = _mm_add_epi8(s, _mm_slli_si128::<2>(s));
        s = _mm_add_epi8(s, _mm_slli_si128::<4>(s));
        s = _mm_add_epi8(s, _mm_slli_si128::<8>(s));
        // How many were rejected may show: it says nothing of the accepted values.
        let accepted = declassified(16 - _mm_extract_epi8::<15>(s) as usize);
        let r = _mm_andnot_si128(rej, s);
        let (v, r) = compact_step::<1, 1>(v, r);
        let (v, r) = compact_step::<2, 2>(v, r);
        let (v, r) = compact_step::<4, 4>(v, r);
        let (v, _) = compact_step::<8, 8>(v, r);
        // η − v, widened to i32.
        let e = _mm_sub_epi8(_mm_set1_epi8(ETA as i8), v);
        let lo = _mm256_cvtepi8_epi32(e);
        let hi = _mm256_cvtepi8_epi32(_mm_srli_si128::<8>(e));
        // Straight into `p` while 16 fit (lanes past the accepted ones are overwritten by the
        // next group or lie past the count), else through the staging buffer.
        let take = accepted.min(N - ctr);
        if ctr + 16 <= N {
            store256(&mut p.c, ctr, lo);
            store256(&mut p.c, ctr + 8, hi);
        } else {
            store256(&mut stage, 0, lo);
            store256(&mut stage, 8, hi);
            p.c[ctr..ctr + take].copy_from_slice(&stage[..take]);
        }
        ctr += take;
    }
    // Accepted secret values may remain in the staging buffer.
    stage.zeroize();
    ctr
}

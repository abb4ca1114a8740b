//! ML-DSA sampling on 8 × i32 vectors: RejNTTPoly's rejection step. RejBoundedPoly's (on
//! secret data) is the portable one.

use super::vector::{load256, store256};
use crate::mldsa::ops::{DsaPoly, N, Q};
use core::arch::x86_64::*;

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

/// RejNTTPoly's step on public data (the matrix seed): 24 bytes = eight 23-bit candidates
/// per round, compared with q, the accepted ones moved to the front by a table-driven
/// `vpermd` and stored at the running count. The tail (fewer than 32 bytes left, or fewer
/// than 8 free coefficients) is the portable loop.
#[target_feature(enable = "avx2")]
pub(super) fn rej_uniform(p: &mut DsaPoly, mut filled: usize, bytes: &[u8]) -> usize {
    let spread = _mm256_setr_epi8(
        0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12,
        -1, 13, 14, 15, -1,
    );
    let low23 = _mm256_set1_epi32(0x7f_ffff);
    let q = _mm256_set1_epi32(Q);
    let mut pos = 0;
    while pos + 32 <= bytes.len() && filled + 8 <= N {
        let raw = load256(bytes, pos);
        // Bytes 0..16 in the low lane, 8..24 in the high one; then 3 bytes per i32.
        let v = _mm256_permute4x64_epi64(raw, 0b10_01_01_00);
        let v = _mm256_and_si256(_mm256_shuffle_epi8(v, spread), low23);
        let good = _mm256_cmpgt_epi32(q, v);
        let mask = _mm256_movemask_ps(_mm256_castsi256_ps(good)) as usize;
        let idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(REJ_IDX[mask] as i64));
        let packed = _mm256_permutevar8x32_epi32(v, idx);
        store256(&mut p.c, filled, packed);
        filled += mask.count_ones() as usize;
        pos += 24;
    }
    crate::portable::dsa_sample::rej_uniform(p, filled, &bytes[pos..])
}

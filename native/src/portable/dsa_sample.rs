//! Scalar rejection sampling for ML-DSA: the steps of RejNTTPoly and RejBoundedPoly (FIPS 204
//! section 7.3).

use crate::ct::declassified;
use crate::mldsa::ops::{DsaPoly, ETA, N, Q};
use zeroize::Zeroize;

/// Public input: branches on the values.
pub(crate) fn rej_uniform(p: &mut DsaPoly, mut filled: usize, bytes: &[u8]) -> usize {
    for b in bytes.chunks_exact(3) {
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

/// Secret input. Sixteen half-bytes at a time, each stored at the running position of a
/// small staging buffer (a rejected one is overwritten by the next) that advances by a mask,
/// with no branch on a value; then as many as fit are copied to `p`. Only the running count
/// decides addresses and when to stop, as the trait allows.
pub(crate) fn rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
    let mut ctr = filled;
    let mut stage = [0i32; 16];
    for chunk in bytes.chunks(8) {
        if ctr >= N {
            break;
        }
        let mut n = 0usize;
        for &b in chunk {
            for t in [(b & 0x0f) as u32, (b >> 4) as u32] {
                // n <= 15 here (at most 15 earlier candidates); the mask only spares a
                // bounds check.
                stage[n & 15] = ETA - t as i32;
                // Which half-bytes are rejected may show: it says nothing of the accepted
                // values (it is the staging index, within one cache line).
                n += declassified((t.wrapping_sub(9) >> 31) as usize);
            }
        }
        let take = n.min(N - ctr);
        p.c[ctr..ctr + take].copy_from_slice(&stage[..take]);
        ctr += take;
    }
    stage.zeroize();
    ctr
}

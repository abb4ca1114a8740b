//! Scalar sampling (FIPS 203 section 4.2.2): SampleNTT's rejection step and SamplePolyCBD_2.

use crate::simd::{N, Poly, Q};

pub(crate) fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
    for (i, word) in bytes.chunks_exact(4).enumerate() {
        let t = u32::from_le_bytes(word.try_into().expect("4 bytes"));
        let d = (t & 0x5555_5555) + ((t >> 1) & 0x5555_5555);
        for j in 0..8 {
            let a = ((d >> (4 * j)) & 3) as i16;
            let b = ((d >> (4 * j + 2)) & 3) as i16;
            p.c[8 * i + j] = a - b;
        }
    }
}

/// Branches on the sampled values, which are public (derived from the matrix seed ρ).
pub(crate) fn rej_uniform(p: &mut Poly, mut filled: usize, bytes: &[u8]) -> usize {
    for b in bytes.chunks_exact(3) {
        if filled >= N {
            break;
        }
        let d1 = b[0] as u16 | ((b[1] as u16 & 0x0f) << 8);
        let d2 = (b[1] as u16 >> 4) | ((b[2] as u16) << 4);
        if d1 < Q as u16 {
            p.c[filled] = d1 as i16;
            filled += 1;
        }
        if d2 < Q as u16 && filled < N {
            p.c[filled] = d2 as i16;
            filled += 1;
        }
    }
    filled
}

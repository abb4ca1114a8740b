//! ML-KEM sampling on 16 × i16 vectors: SampleNTT's rejection step, 16 candidates per 24
//! bytes, compared with q, and the accepted ones moved to the front with a shuffle chosen by
//! the acceptance mask (the table lookup is indexed by public data, values from the matrix
//! seed, as FIPS 203 allows); and SamplePolyCBD_2.

use super::vector::{load128, load256, store16, store128};
use crate::simd::{N, Poly, Q};
use core::arch::x86_64::*;

/// For each 8-bit acceptance mask: the byte shuffle that moves the accepted 16-bit values to
/// the front (in order), and how many there are.
struct Compact {
    shuffle: [[i8; 16]; 256],
    count: [u8; 256],
}

const COMPACT: Compact = {
    let mut t = Compact {
        shuffle: [[-1; 16]; 256],
        count: [0; 256],
    };
    let mut m = 0;
    while m < 256 {
        let mut n = 0;
        let mut i = 0;
        while i < 8 {
            if (m >> i) & 1 == 1 {
                t.shuffle[m][2 * n] = 2 * i as i8;
                t.shuffle[m][2 * n + 1] = 2 * i as i8 + 1;
                n += 1;
            }
            i += 1;
        }
        t.count[m] = n as u8;
        m += 1;
    }
    t
};
static TABLE: Compact = COMPACT;

#[target_feature(enable = "avx2")]
#[inline]
fn compact(v: __m128i, mask: usize, out: &mut [i16; N + 16], n: usize) -> usize {
    let s = load128(&TABLE.shuffle[mask], 0);
    store128(out, n, _mm_shuffle_epi8(v, s));
    n + TABLE.count[mask] as usize
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize {
    if filled >= N {
        return filled;
    }
    let cap = N - filled;
    // Accepted values; up to 16 past `cap` may be written.
    let mut buf = [0i16; N + 16];
    let mut n = 0;
    let mut pos = 0;
    // Bytes 0..12 to the low lane, 12..24 to the high lane (at offset 4 of bytes 8..24).
    let spread = _mm256_setr_epi8(
        0, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 10, 11, 4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11, 12,
        13, 14, 14, 15,
    );
    let mask12 = _mm256_set1_epi16(0x0fff);
    let q = _mm256_set1_epi16(Q);
    while n < cap && pos + 24 <= bytes.len() {
        // 24 bytes from `pos`, as qwords 0, 1 | 1, 2 of a 32-byte load. The last 24 bytes of
        // the usual lengths (168, 504) are loaded from len - 32, one qword further in.
        let x = if pos + 32 <= bytes.len() {
            _mm256_permute4x64_epi64::<0b1001_0100>(load256(bytes, pos))
        } else if pos + 24 == bytes.len() && pos >= 8 {
            _mm256_permute4x64_epi64::<0b1110_1001>(load256(bytes, pos - 8))
        } else {
            break;
        };
        let s = _mm256_shuffle_epi8(x, spread);
        let v = _mm256_blend_epi16::<0xaa>(_mm256_and_si256(s, mask12), _mm256_srli_epi16::<4>(s));
        let accept = _mm256_cmpgt_epi16(q, v);
        let bits = _mm256_movemask_epi8(_mm256_packs_epi16(accept, _mm256_setzero_si256())) as u32;
        n = compact(
            _mm256_castsi256_si128(v),
            (bits & 0xff) as usize,
            &mut buf,
            n,
        );
        n = compact(
            _mm256_extracti128_si256::<1>(v),
            ((bits >> 16) & 0xff) as usize,
            &mut buf,
            n,
        );
        pos += 24;
    }
    while n < cap && pos + 3 <= bytes.len() {
        let b = &bytes[pos..pos + 3];
        let d1 = b[0] as u16 | ((b[1] as u16 & 0x0f) << 8);
        let d2 = (b[1] as u16 >> 4) | ((b[2] as u16) << 4);
        if d1 < Q as u16 {
            buf[n] = d1 as i16;
            n += 1;
        }
        if d2 < Q as u16 && n < cap {
            buf[n] = d2 as i16;
            n += 1;
        }
        pos += 3;
    }
    let take = n.min(cap);
    p.c[filled..filled + take].copy_from_slice(&buf[..take]);
    filled + take
}

/// SamplePolyCBD_2: coefficient 2i from the low nibble of byte i, 2i + 1 from the high one,
/// each (bit0 + bit1) - (bit2 + bit3).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
    let m55 = _mm256_set1_epi8(0x55);
    let m33 = _mm256_set1_epi8(0x33);
    let m0f = _mm256_set1_epi8(0x0f);
    let two = _mm256_set1_epi16(2);
    for h in 0..4 {
        let x = load256(bytes, 32 * h);
        let d = _mm256_add_epi8(
            _mm256_and_si256(x, m55),
            _mm256_and_si256(_mm256_srli_epi16::<1>(x), m55),
        );
        let a = _mm256_and_si256(d, m33);
        let b = _mm256_and_si256(_mm256_srli_epi16::<2>(d), m33);
        // Per nibble a - b + 2, in [0, 4]: no borrow between nibbles.
        let z = _mm256_sub_epi8(_mm256_add_epi8(a, _mm256_set1_epi8(0x22)), b);
        let lo = _mm256_and_si256(z, m0f);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(z), m0f);
        // Coefficients 0..16 and 32..48 of this block, then 16..32 and 48..64.
        let c0 = _mm256_unpacklo_epi8(lo, hi);
        let c1 = _mm256_unpackhi_epi8(lo, hi);
        let widen = |c: __m128i| _mm256_sub_epi16(_mm256_cvtepu8_epi16(c), two);
        store16(p, 4 * h, widen(_mm256_castsi256_si128(c0)));
        store16(p, 4 * h + 1, widen(_mm256_castsi256_si128(c1)));
        store16(p, 4 * h + 2, widen(_mm256_extracti128_si256::<1>(c0)));
        store16(p, 4 * h + 3, widen(_mm256_extracti128_si256::<1>(c1)));
    }
}

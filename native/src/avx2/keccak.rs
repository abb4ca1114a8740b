//! Keccak-f[1600]: one state with BMI1/BMI2 (scalar code), and four at once with AVX2.
//!
//! Four permutations at once: lane i of the four states is one __m256i, so every step of the
//! round is the scalar step on 256-bit registers. Rotations by 8 and 56 are byte shuffles, the
//! others a shift pair. Each round reads the state from one array and writes the next state to
//! another (θ, ρ, π, χ and ι fused per output plane).

use super::vector::{load256, store256};
use crate::portable::keccak::{RC, RHO, pi_source};
use crate::simd::KeccakX4;
use core::arch::x86_64::*;

/// Rotates each 64-bit lane left by `L` (`R` = 64 - `L`).
#[target_feature(enable = "avx2")]
#[inline]
fn rol<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    if L == 0 {
        x
    } else if L == 8 {
        // Byte k of each lane comes from byte k - 1.
        let idx = _mm256_setr_epi8(
            7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14, 7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9,
            10, 11, 12, 13, 14,
        );
        _mm256_shuffle_epi8(x, idx)
    } else if L == 56 {
        // Byte k of each lane comes from byte k + 1.
        let idx = _mm256_setr_epi8(
            1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, 1, 2, 3, 4, 5, 6, 7, 0, 9, 10,
            11, 12, 13, 14, 15, 8,
        );
        _mm256_shuffle_epi8(x, idx)
    } else {
        _mm256_or_si256(_mm256_slli_epi64::<L>(x), _mm256_srli_epi64::<R>(x))
    }
}

#[target_feature(enable = "avx2")]
#[inline]
fn xor(a: __m256i, b: __m256i) -> __m256i {
    _mm256_xor_si256(a, b)
}

/// θ's column parities of `a`.
#[target_feature(enable = "avx2")]
#[inline]
fn parities(a: &[__m256i; 25]) -> [__m256i; 5] {
    core::array::from_fn(|x| {
        xor(
            xor(xor(a[x], a[x + 5]), xor(a[x + 10], a[x + 15])),
            a[x + 20],
        )
    })
}

/// B[i] = ROT(A[π(i)] ^ D[π(i) mod 5], ρ[π(i)]), the lane that π moves to position i.
macro_rules! rho_pi {
    ($a:ident, $d:ident, $i:literal) => {
        rol::<{ RHO[pi_source($i)] as i32 }, { 64 - RHO[pi_source($i)] as i32 }>(xor(
            $a[pi_source($i)],
            $d[pi_source($i) % 5],
        ))
    };
}

/// One round from `a`, returned as the new state.
#[target_feature(enable = "avx2")]
#[inline]
fn round(a: &[__m256i; 25], rc: u64) -> [__m256i; 25] {
    let c = parities(a);
    let d: [__m256i; 5] = [
        xor(c[4], rol::<1, 63>(c[1])),
        xor(c[0], rol::<1, 63>(c[2])),
        xor(c[1], rol::<1, 63>(c[3])),
        xor(c[2], rol::<1, 63>(c[4])),
        xor(c[3], rol::<1, 63>(c[0])),
    ];
    macro_rules! b {
        ($i:literal) => {
            rho_pi!(a, d, $i)
        };
    }
    macro_rules! chi {
        ($e:ident, $y:literal, $b:expr) => {
            let b: [__m256i; 5] = $b;
            $e[5 * $y] = xor(b[0], _mm256_andnot_si256(b[1], b[2]));
            $e[5 * $y + 1] = xor(b[1], _mm256_andnot_si256(b[2], b[3]));
            $e[5 * $y + 2] = xor(b[2], _mm256_andnot_si256(b[3], b[4]));
            $e[5 * $y + 3] = xor(b[3], _mm256_andnot_si256(b[4], b[0]));
            $e[5 * $y + 4] = xor(b[4], _mm256_andnot_si256(b[0], b[1]));
        };
    }
    let mut e = [_mm256_setzero_si256(); 25];
    chi!(e, 0, [b!(0), b!(1), b!(2), b!(3), b!(4)]);
    chi!(e, 1, [b!(5), b!(6), b!(7), b!(8), b!(9)]);
    chi!(e, 2, [b!(10), b!(11), b!(12), b!(13), b!(14)]);
    chi!(e, 3, [b!(15), b!(16), b!(17), b!(18), b!(19)]);
    chi!(e, 4, [b!(20), b!(21), b!(22), b!(23), b!(24)]);
    e[0] = xor(e[0], _mm256_set1_epi64x(rc as i64));
    e
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn keccak_f1600_x4(state: &mut KeccakX4) {
    let mut a: [__m256i; 25] = core::array::from_fn(|i| load256(&state.lanes[i], 0));
    let mut r = 0;
    while r < 24 {
        let e = round(&a, RC[r]);
        a = round(&e, RC[r + 1]);
        r += 2;
    }
    for (lane, v) in state.lanes.iter_mut().zip(a) {
        store256(lane, 0, v);
    }
}

/// [`crate::simd::Simd::keccak_f1600_x4_out2`]: lanes 17 to 24 are constants (zero), so the
/// first round's θ drops them, and the last round computes only lanes 0 and 1 (about a
/// quarter of a round), which is all SLH-DSA's one-block hashes read.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn keccak_f1600_x4_out2(state: &mut KeccakX4) {
    let mut a: [__m256i; 25] = core::array::from_fn(|i| {
        if i < 17 {
            load256(&state.lanes[i], 0)
        } else {
            _mm256_setzero_si256()
        }
    });
    a = round(&a, RC[0]);
    let mut r = 1;
    while r < 23 {
        let e = round(&a, RC[r]);
        a = round(&e, RC[r + 1]);
        r += 2;
    }
    // D[0..4] only: the last round's lanes 0 and 1 read no more. (A shared θ-D helper
    // built with `from_fn` cost 1.2 % more instructions in SLH-DSA keygen: written out.)
    let c = parities(&a);
    let d: [__m256i; 4] = [
        xor(c[4], rol::<1, 63>(c[1])),
        xor(c[0], rol::<1, 63>(c[2])),
        xor(c[1], rol::<1, 63>(c[3])),
        xor(c[2], rol::<1, 63>(c[4])),
    ];
    let b = [
        rho_pi!(a, d, 0),
        rho_pi!(a, d, 1),
        rho_pi!(a, d, 2),
        rho_pi!(a, d, 3),
    ];
    let e0 = xor(b[0], _mm256_andnot_si256(b[1], b[2]));
    store256(
        &mut state.lanes[0],
        0,
        xor(e0, _mm256_set1_epi64x(RC[23] as i64)),
    );
    store256(
        &mut state.lanes[1],
        0,
        xor(b[1], _mm256_andnot_si256(b[2], b[3])),
    );
}

/// The scalar Keccak-f[1600] with BMI1/BMI2 (`andn` for χ, `rorx` for the rotations) but not
/// AVX2, whose straight-line vectoriser makes this code slower.
#[target_feature(enable = "bmi1,bmi2")]
#[inline(never)]
pub(super) fn keccak_f1600_bmi(state: &mut [u64; 25]) {
    crate::portable::keccak::keccak_f1600_inline(state);
}

/// [`crate::simd::Simd::keccak_x4_extract`]: four lanes of the four states at a time, as a
/// 4 × 4 transpose of 64-bit words (lane i of the states is one vector; the bytes of state j
/// are the lanes of that state in order), the last lane or lanes one word at a time.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn extract_x4(state: &KeccakX4, lanes: usize, out: [&mut [u8]; 4]) {
    let [o0, o1, o2, o3] = out;
    let mut i = 0;
    while i + 4 <= lanes {
        let a0 = load256(&state.lanes[i], 0);
        let a1 = load256(&state.lanes[i + 1], 0);
        let a2 = load256(&state.lanes[i + 2], 0);
        let a3 = load256(&state.lanes[i + 3], 0);
        // t0 = (a0[0], a1[0], a0[2], a1[2]), t1 = (a0[1], a1[1], a0[3], a1[3]), …
        let t0 = _mm256_unpacklo_epi64(a0, a1);
        let t1 = _mm256_unpackhi_epi64(a0, a1);
        let t2 = _mm256_unpacklo_epi64(a2, a3);
        let t3 = _mm256_unpackhi_epi64(a2, a3);
        store256(o0, 8 * i, _mm256_permute2x128_si256::<0x20>(t0, t2));
        store256(o1, 8 * i, _mm256_permute2x128_si256::<0x20>(t1, t3));
        store256(o2, 8 * i, _mm256_permute2x128_si256::<0x31>(t0, t2));
        store256(o3, 8 * i, _mm256_permute2x128_si256::<0x31>(t1, t3));
        i += 4;
    }
    while i < lanes {
        let w = &state.lanes[i];
        o0[8 * i..8 * i + 8].copy_from_slice(&w[0].to_le_bytes());
        o1[8 * i..8 * i + 8].copy_from_slice(&w[1].to_le_bytes());
        o2[8 * i..8 * i + 8].copy_from_slice(&w[2].to_le_bytes());
        o3[8 * i..8 * i + 8].copy_from_slice(&w[3].to_le_bytes());
        i += 1;
    }
}

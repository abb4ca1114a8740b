//! Four Keccak-f[1600] permutations at once with AVX-512VL on 256-bit registers: lane i of the
//! four states is one __m256i, as in the AVX2 version, but θ's column parities are two
//! three-input XORs (`vpternlogq`), χ is one `vpternlogq` per lane, and ρ is a native rotate
//! (`vprolq`). AVX-512VL also gives 32 vector registers, so the state, the parities and the
//! new state mostly stay in registers.

use crate::portable::keccak::{RC, RHO, pi_source};
use crate::simd::KeccakX4;
use core::arch::x86_64::*;

/// `a ^ b ^ c`.
const XOR3: i32 = 0x96;
/// `a ^ (!b & c)` (χ).
const CHI: i32 = 0xd2;

/// Rotates each 64-bit lane left by `L`.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn rol<const L: i32>(x: __m256i) -> __m256i {
    if L == 0 { x } else { _mm256_rol_epi64::<L>(x) }
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn xor3(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
    _mm256_ternarylogic_epi64::<XOR3>(a, b, c)
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn chi(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
    _mm256_ternarylogic_epi64::<CHI>(a, b, c)
}

/// One round from `a`, returned as the new state.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn round(a: &[__m256i; 25], rc: __m256i) -> [__m256i; 25] {
    let c: [__m256i; 5] =
        core::array::from_fn(|x| xor3(xor3(a[x], a[x + 5], a[x + 10]), a[x + 15], a[x + 20]));
    let d: [__m256i; 5] = [
        _mm256_xor_si256(c[4], rol::<1>(c[1])),
        _mm256_xor_si256(c[0], rol::<1>(c[2])),
        _mm256_xor_si256(c[1], rol::<1>(c[3])),
        _mm256_xor_si256(c[2], rol::<1>(c[4])),
        _mm256_xor_si256(c[3], rol::<1>(c[0])),
    ];
    // B[i] = ROT(A[π(i)] ^ D[π(i) mod 5], ρ[π(i)]), the lane that π moves to position i.
    macro_rules! b {
        ($i:literal) => {
            rol::<{ RHO[pi_source($i)] as i32 }>(_mm256_xor_si256(
                a[pi_source($i)],
                d[pi_source($i) % 5],
            ))
        };
    }
    macro_rules! chi {
        ($e:ident, $y:literal, $b:expr) => {
            let b: [__m256i; 5] = $b;
            $e[5 * $y] = chi(b[0], b[1], b[2]);
            $e[5 * $y + 1] = chi(b[1], b[2], b[3]);
            $e[5 * $y + 2] = chi(b[2], b[3], b[4]);
            $e[5 * $y + 3] = chi(b[3], b[4], b[0]);
            $e[5 * $y + 4] = chi(b[4], b[0], b[1]);
        };
    }
    let mut e = [_mm256_setzero_si256(); 25];
    chi!(e, 0, [b!(0), b!(1), b!(2), b!(3), b!(4)]);
    chi!(e, 1, [b!(5), b!(6), b!(7), b!(8), b!(9)]);
    chi!(e, 2, [b!(10), b!(11), b!(12), b!(13), b!(14)]);
    chi!(e, 3, [b!(15), b!(16), b!(17), b!(18), b!(19)]);
    chi!(e, 4, [b!(20), b!(21), b!(22), b!(23), b!(24)]);
    e[0] = _mm256_xor_si256(e[0], rc);
    e
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
pub(super) fn keccak_f1600_x4(state: &mut KeccakX4) {
    let mut a: [__m256i; 25] = core::array::from_fn(|i| super::load_u64x4(&state.lanes[i]));
    let mut r = 0;
    while r < 24 {
        let e = round(&a, _mm256_set1_epi64x(RC[r] as i64));
        a = round(&e, _mm256_set1_epi64x(RC[r + 1] as i64));
        r += 2;
    }
    for (lane, v) in state.lanes.iter_mut().zip(a) {
        super::store_u64x4(lane, v);
    }
}

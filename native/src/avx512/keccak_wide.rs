//! Four or eight Keccak-f[1600] permutations at once with AVX-512: lane i of the states is one
//! register (__m256i for four, __m512i for eight), as in the AVX2 version, but θ's column
//! parities are two three-input XORs (`vpternlogq`), χ is one `vpternlogq` per lane, and ρ is
//! a native rotate (`vprolq`). AVX-512 also gives 32 vector registers, so the state, the
//! parities and the new state mostly stay in registers. Both widths are the one round below,
//! instantiated for each register width by `wide_keccak!`.

use crate::portable::keccak::{RC, RHO, pi_source};
use crate::simd::{KeccakX4, KeccakX8};
use core::arch::x86_64::*;

/// `a ^ b ^ c`.
const XOR3: i32 = 0x96;
/// `a ^ (!b & c)` (χ).
const CHI: i32 = 0xd2;

macro_rules! wide_keccak {
    (
        $name:ident, $state:ty, $vec:ty, $load:ident, $store:ident, $xor:ident, $ternlog:ident,
        $rol:ident, $set1:ident
    ) => {
        #[target_feature(enable = "avx2,avx512f,avx512vl")]
        #[inline]
        pub(super) fn $name(state: &mut $state) {
            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            fn rol<const L: i32>(x: $vec) -> $vec {
                if L == 0 { x } else { $rol::<L>(x) }
            }

            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            fn xor3(a: $vec, b: $vec, c: $vec) -> $vec {
                $ternlog::<XOR3>(a, b, c)
            }

            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            fn chi(a: $vec, b: $vec, c: $vec) -> $vec {
                $ternlog::<CHI>(a, b, c)
            }

            /// One round from `a`, returned as the new state.
            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            fn round(a: &[$vec; 25], rc: $vec) -> [$vec; 25] {
                let c: [$vec; 5] = core::array::from_fn(|x| {
                    xor3(xor3(a[x], a[x + 5], a[x + 10]), a[x + 15], a[x + 20])
                });
                let d: [$vec; 5] = [
                    $xor(c[4], rol::<1>(c[1])),
                    $xor(c[0], rol::<1>(c[2])),
                    $xor(c[1], rol::<1>(c[3])),
                    $xor(c[2], rol::<1>(c[4])),
                    $xor(c[3], rol::<1>(c[0])),
                ];
                // B[i] = ROT(A[π(i)] ^ D[π(i) mod 5], ρ[π(i)]), the lane π moves to position i.
                macro_rules! b {
                    ($i:literal) => {
                        rol::<{ RHO[pi_source($i)] as i32 }>($xor(
                            a[pi_source($i)],
                            d[pi_source($i) % 5],
                        ))
                    };
                }
                macro_rules! chi {
                    ($e:ident, $y:literal, $b:expr) => {
                        let b: [$vec; 5] = $b;
                        $e[5 * $y] = chi(b[0], b[1], b[2]);
                        $e[5 * $y + 1] = chi(b[1], b[2], b[3]);
                        $e[5 * $y + 2] = chi(b[2], b[3], b[4]);
                        $e[5 * $y + 3] = chi(b[3], b[4], b[0]);
                        $e[5 * $y + 4] = chi(b[4], b[0], b[1]);
                    };
                }
                let mut e = a.clone();
                chi!(e, 0, [b!(0), b!(1), b!(2), b!(3), b!(4)]);
                chi!(e, 1, [b!(5), b!(6), b!(7), b!(8), b!(9)]);
                chi!(e, 2, [b!(10), b!(11), b!(12), b!(13), b!(14)]);
                chi!(e, 3, [b!(15), b!(16), b!(17), b!(18), b!(19)]);
                chi!(e, 4, [b!(20), b!(21), b!(22), b!(23), b!(24)]);
                e[0] = $xor(e[0], rc);
                e
            }

            let mut a: [$vec; 25] = core::array::from_fn(|i| {
                // SAFETY: lane i of the states is one vector's worth of readable bytes; the
                // load is unaligned.
                unsafe { $load(state.lanes[i].as_ptr().cast()) }
            });
            let mut r = 0;
            while r < 24 {
                let e = round(&a, $set1(RC[r] as i64));
                a = round(&e, $set1(RC[r + 1] as i64));
                r += 2;
            }
            for (lane, v) in state.lanes.iter_mut().zip(a) {
                // SAFETY: lane i of the states is one vector's worth of writable bytes; the
                // store is unaligned.
                unsafe { $store(lane.as_mut_ptr().cast(), v) }
            }
        }
    };
}

wide_keccak!(
    keccak_f1600_x4,
    KeccakX4,
    __m256i,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_xor_si256,
    _mm256_ternarylogic_epi64,
    _mm256_rol_epi64,
    _mm256_set1_epi64x
);

wide_keccak!(
    keccak_f1600_x8,
    KeccakX8,
    __m512i,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_xor_si512,
    _mm512_ternarylogic_epi64,
    _mm512_rol_epi64,
    _mm512_set1_epi64
);

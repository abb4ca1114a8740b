//! Keccak-f[1600] with AVX-512 (F and VL): one state, and four or eight at once.
//!
//! # One state
//!
//! One state in five 512-bit registers, for the sponges that absorb long inputs into a single
//! state (H(ek), J) and for G. Register y holds plane y (lanes x + 5y, x = 0..4, in qwords
//! 0..4; qwords 5..7 are never stored). Each round:
//!
//! - θ: the five column parities at once with two `vpternlogq`, then `D` from two lane
//!   permutations and one rotate, added to each plane with one more `vpternlogq`;
//! - ρ: one `vprolvq` per plane;
//! - π, first half: lane (x, y) moves to (y, 2x + 3y), so output column x is made of input
//!   plane x's lanes only: one `vpermq` per plane turns the planes into the columns of the
//!   new state (register x holds lanes x + 5y, y = 0..4);
//! - χ along x is then lane-wise across the five column registers: one `vpternlogq` each;
//! - ι on column 0, lane 0;
//! - π, second half: a 5x5 transpose back to planes (two-source `vpermt2q` and blends).
//!
//! # Four or eight states
//!
//! Four or eight permutations at once: lane i of the states is one register (__m256i for
//! four, __m512i for eight), as in the AVX2 version, but θ's column parities are two
//! three-input XORs (`vpternlogq`), χ is one `vpternlogq` per lane, and ρ is a native rotate
//! (`vprolq`). AVX-512 also gives 32 vector registers, so the state, the parities and the new
//! state mostly stay in registers. Both widths are the one round below, instantiated for each
//! register width by `wide_keccak!`.

use crate::portable::keccak::{RC, RHO};
use core::arch::x86_64::*;

/// `a ^ b ^ c`.
const XOR3: i32 = 0x96;
/// `a ^ (!b & c)` (χ).
const CHI: i32 = 0xd2;

// ---------------------------------------------------------------------------------------
// One state.

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn idx(i: [i64; 8]) -> __m512i {
    _mm512_setr_epi64(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7])
}

/// ρ offsets of plane y, as a rotate-count vector.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn rho(y: usize) -> __m512i {
    let r = |x: usize| RHO[x + 5 * y] as i64;
    idx([r(0), r(1), r(2), r(3), r(4), 0, 0, 0])
}

/// The first half of π for plane x: qword y of the result is qword (x + 3y) mod 5.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn pi(x: i64) -> __m512i {
    let s = |y: i64| (x + 3 * y) % 5;
    idx([s(0), s(1), s(2), s(3), s(4), 5, 6, 7])
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<XOR3>(a, b, c)
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn chi(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<CHI>(a, b, c)
}

/// The index vectors of one round, built once per permutation.
struct Consts {
    prev: __m512i,
    next: __m512i,
    rho: [__m512i; 5],
    pi: [__m512i; 5],
    t_lo: __m512i,
    t_q0: __m512i,
    t_q1: __m512i,
    t_p: [__m512i; 4],
    t_r: __m512i,
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn consts() -> Consts {
    Consts {
        prev: idx([4, 0, 1, 2, 3, 5, 6, 7]),
        next: idx([1, 2, 3, 4, 0, 5, 6, 7]),
        rho: [rho(0), rho(1), rho(2), rho(3), rho(4)],
        pi: [pi(0), pi(1), pi(2), pi(3), pi(4)],
        t_lo: idx([0, 8, 1, 9, 2, 10, 3, 11]),
        t_q0: idx([0, 1, 8, 9, 2, 3, 10, 11]),
        t_q1: idx([4, 5, 12, 13, 6, 7, 14, 15]),
        t_p: [
            idx([0, 1, 2, 3, 8, 5, 6, 7]),
            idx([4, 5, 6, 7, 9, 5, 6, 7]),
            idx([0, 1, 2, 3, 10, 5, 6, 7]),
            idx([4, 5, 6, 7, 11, 5, 6, 7]),
        ],
        t_r: idx([4, 12, 4, 12, 4, 5, 6, 7]),
    }
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline]
fn round(p: [__m512i; 5], rc: __m512i, k: &Consts) -> [__m512i; 5] {
    // θ and ρ.
    let c = xor3(xor3(p[0], p[1], p[2]), p[3], p[4]);
    let cm = _mm512_permutexvar_epi64(k.prev, c);
    let cp = _mm512_rol_epi64::<1>(_mm512_permutexvar_epi64(k.next, c));
    let a: [__m512i; 5] = core::array::from_fn(|y| _mm512_rolv_epi64(xor3(p[y], cm, cp), k.rho[y]));
    // π into columns, χ, ι.
    let b: [__m512i; 5] = core::array::from_fn(|x| _mm512_permutexvar_epi64(k.pi[x], a[x]));
    let e0 = _mm512_xor_si512(chi(b[0], b[1], b[2]), rc);
    let e1 = chi(b[1], b[2], b[3]);
    let e2 = chi(b[2], b[3], b[4]);
    let e3 = chi(b[3], b[4], b[0]);
    let e4 = chi(b[4], b[0], b[1]);
    // Transpose: plane y, qword x = column x, qword y.
    let t01 = _mm512_permutex2var_epi64(e0, k.t_lo, e1);
    let t23 = _mm512_permutex2var_epi64(e2, k.t_lo, e3);
    let q0 = _mm512_permutex2var_epi64(t01, k.t_q0, t23); // rows 0 and 1 of columns 0..3
    let q1 = _mm512_permutex2var_epi64(t01, k.t_q1, t23); // rows 2 and 3
    let r01 = _mm512_permutex2var_epi64(e0, k.t_r, e1); // qwords 0, 1: row 4 of columns 0, 1
    let r23 = _mm512_permutex2var_epi64(e2, k.t_r, e3); // qwords 2, 3: row 4 of columns 2, 3
    [
        _mm512_permutex2var_epi64(q0, k.t_p[0], e4),
        _mm512_permutex2var_epi64(q0, k.t_p[1], e4),
        _mm512_permutex2var_epi64(q1, k.t_p[2], e4),
        _mm512_permutex2var_epi64(q1, k.t_p[3], e4),
        _mm512_mask_blend_epi64(0x10, _mm512_mask_blend_epi64(0x0c, r01, r23), e4),
    ]
}

#[target_feature(enable = "avx2,avx512f,avx512vl")]
#[inline(never)]
pub(super) fn keccak_f1600(state: &mut [u64; 25]) {
    let k = consts();
    let mut p: [__m512i; 5] = core::array::from_fn(|y| {
        let plane = &state[5 * y..5 * y + 5];
        // SAFETY: the mask selects qwords 0..4, the 40 readable bytes of `plane`; masked-off
        // qwords are not accessed.
        unsafe { _mm512_maskz_loadu_epi64(0x1f, plane.as_ptr().cast()) }
    });
    let mut r = 0;
    while r < 24 {
        p = round(p, _mm512_maskz_set1_epi64(1, RC[r] as i64), &k);
        p = round(p, _mm512_maskz_set1_epi64(1, RC[r + 1] as i64), &k);
        r += 2;
    }
    for (y, v) in p.into_iter().enumerate() {
        let plane = &mut state[5 * y..5 * y + 5];
        // SAFETY: the mask selects qwords 0..4, the 40 writable bytes of `plane`; masked-off
        // qwords are not accessed.
        unsafe { _mm512_mask_storeu_epi64(plane.as_mut_ptr().cast(), 0x1f, v) }
    }
}

// ---------------------------------------------------------------------------------------
// Four or eight states: one module per register width, with that width's `rol`, `xor3`,
// `chi` and `round`.

macro_rules! wide_keccak {
    (
        $module:ident, $state:ty, $vec:ty, $load:ident, $store:ident, $xor:ident, $ternlog:ident,
        $rol:ident, $set1:ident, $zero:ident
    ) => {
        pub(super) mod $module {
            use super::{CHI, XOR3};
            use crate::portable::keccak::{RC, RHO, pi_source};
            use core::arch::x86_64::*;

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

            /// θ's column parities and D (D[x] = C[x − 1] ^ ROT(C[x + 1], 1)).
            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            fn theta_d(a: &[$vec; 25]) -> [$vec; 5] {
                let c: [$vec; 5] = core::array::from_fn(|x| {
                    xor3(xor3(a[x], a[x + 5], a[x + 10]), a[x + 15], a[x + 20])
                });
                core::array::from_fn(|x| $xor(c[(x + 4) % 5], rol::<1>(c[(x + 1) % 5])))
            }

            // B[i] = ROT(A[π(i)] ^ D[π(i) mod 5], ρ[π(i)]), the lane π moves to position i.
            macro_rules! b {
                ($a:ident, $d:ident, $i:literal) => {
                    rol::<{ RHO[pi_source($i)] as i32 }>($xor(
                        $a[pi_source($i)],
                        $d[pi_source($i) % 5],
                    ))
                };
            }

            /// One round from `a`, returned as the new state.
            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            fn round(a: &[$vec; 25], rc: $vec) -> [$vec; 25] {
                let d = theta_d(a);
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
                chi!(e, 0, [b!(a, d, 0), b!(a, d, 1), b!(a, d, 2), b!(a, d, 3), b!(a, d, 4)]);
                chi!(e, 1, [b!(a, d, 5), b!(a, d, 6), b!(a, d, 7), b!(a, d, 8), b!(a, d, 9)]);
                chi!(e, 2, [b!(a, d, 10), b!(a, d, 11), b!(a, d, 12), b!(a, d, 13), b!(a, d, 14)]);
                chi!(e, 3, [b!(a, d, 15), b!(a, d, 16), b!(a, d, 17), b!(a, d, 18), b!(a, d, 19)]);
                chi!(e, 4, [b!(a, d, 20), b!(a, d, 21), b!(a, d, 22), b!(a, d, 23), b!(a, d, 24)]);
                e[0] = $xor(e[0], rc);
                e
            }

            // Rounds `$from..$to` on `$a`, two per step (`$to − $from` is even), written in
            // each caller: as a function of its own LLVM keeps it out of line for eight
            // states, passing the state through memory (ML-DSA verify 4 % slower).
            macro_rules! rounds {
                ($a:ident, $from:expr, $to:expr) => {
                    let mut r = $from;
                    while r < $to {
                        let e = round(&$a, $set1(RC[r] as i64));
                        $a = round(&e, $set1(RC[r + 1] as i64));
                        r += 2;
                    }
                };
            }

            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            pub(in crate::avx512) fn permute(state: &mut $state) {
                let mut a: [$vec; 25] = core::array::from_fn(|i| {
                    // SAFETY: lane i of the states is one vector's worth of readable bytes;
                    // the load is unaligned.
                    unsafe { $load(state.lanes[i].as_ptr().cast()) }
                });
                rounds!(a, 0, 24);
                for (lane, v) in state.lanes.iter_mut().zip(a) {
                    // SAFETY: lane i of the states is one vector's worth of writable bytes;
                    // the store is unaligned.
                    unsafe { $store(lane.as_mut_ptr().cast(), v) }
                }
            }

            /// `Simd::keccak_f1600_x4_out2` / `_x8_out2`: lanes 17 to 24 are constants (zero),
            /// so the first round's θ drops them, and the last round computes only lanes 0 and
            /// 1, all that SLH-DSA's one-block hashes read.
            #[target_feature(enable = "avx2,avx512f,avx512vl")]
            #[inline]
            pub(in crate::avx512) fn permute_out2(state: &mut $state) {
                let a: [$vec; 25] = core::array::from_fn(|i| {
                    if i < 17 {
                        // SAFETY: as in `permute`.
                        unsafe { $load(state.lanes[i].as_ptr().cast()) }
                    } else {
                        $zero()
                    }
                });
                let mut a = round(&a, $set1(RC[0] as i64));
                rounds!(a, 1, 23);
                let d = theta_d(&a);
                let b = [b!(a, d, 0), b!(a, d, 1), b!(a, d, 2), b!(a, d, 3)];
                let out = [
                    $xor(chi(b[0], b[1], b[2]), $set1(RC[23] as i64)),
                    chi(b[1], b[2], b[3]),
                ];
                for (lane, v) in state.lanes.iter_mut().zip(out) {
                    // SAFETY: as in `permute`.
                    unsafe { $store(lane.as_mut_ptr().cast(), v) }
                }
            }
        }
    };
}

wide_keccak!(
    x4,
    crate::simd::KeccakX4,
    __m256i,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_xor_si256,
    _mm256_ternarylogic_epi64,
    _mm256_rol_epi64,
    _mm256_set1_epi64x,
    _mm256_setzero_si256
);

wide_keccak!(
    x8,
    crate::simd::KeccakX8,
    __m512i,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_xor_si512,
    _mm512_ternarylogic_epi64,
    _mm512_rol_epi64,
    _mm512_set1_epi64,
    _mm512_setzero_si512
);

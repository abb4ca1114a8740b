//! Keccak-f[1600] for SLH-DSA's one-block hashes (`Simd::keccak_f1600_out2` and its four-way
//! form): lanes 17 to 24 of each state are taken as zero, and only lanes 0 and 1 of the
//! result are read. So only lanes 0 to 16 are loaded and lanes 0 and 1 stored, the 23 full
//! rounds are unrolled with the state in registers, and the last round computes just the two
//! lanes wanted (its θ still needs all five column parities).

use super::keccak::{Lane, State, first_23, round, round_sha3, round_sha3_from};
use crate::portable::keccak::{RC, RHO, pi_source};
use crate::simd::KeccakX4;
use core::arch::aarch64::*;

/// Lane i (< 4) of output row 0 of the last round, before χ: B[i] = ROT(A[π(i)] ^ D, ρ).
macro_rules! b_last {
    ($L:ty, $a:ident, $d:ident, $i:literal) => {
        <$L>::rotl::<{ RHO[pi_source($i)] as i32 }, { 64 - RHO[pi_source($i)] as i32 }>(<$L>::xor(
            $a[pi_source($i)],
            $d[pi_source($i) % 5],
        ))
    };
}

/// Lanes 0 and 1 after the last round (ι included), from the state after 23 rounds.
#[inline(always)]
fn last_round_out2<L: Lane>(a: &[L; 25]) -> [L; 2] {
    let c: [L; 5] = core::array::from_fn(|x| {
        L::xor(
            L::xor(L::xor(a[x], a[x + 5]), L::xor(a[x + 10], a[x + 15])),
            a[x + 20],
        )
    });
    let d: [L; 4] =
        core::array::from_fn(|x| L::xor(c[(x + 4) % 5], L::rotl::<1, 63>(c[(x + 1) % 5])));
    let b = [
        b_last!(L, a, d, 0),
        b_last!(L, a, d, 1),
        b_last!(L, a, d, 2),
        b_last!(L, a, d, 3),
    ];
    [
        L::xor_rc(L::chi(b[0], b[1], b[2]), RC[23]),
        L::chi(b[1], b[2], b[3]),
    ]
}

/// Lanes 0 to 16 of states (j, j + 1) of the four, lanes 17 to 24 zero.
#[inline(always)]
fn load_block_pair(s: &KeccakX4, j: usize) -> State {
    core::array::from_fn(|i| {
        if i < 17 {
            let two: &[u64; 2] = s.lanes[i][j..j + 2].try_into().expect("2 lanes");
            // SAFETY: reads 2 u64 from a reference to 2 u64; NEON is baseline on aarch64.
            unsafe { vld1q_u64(two.as_ptr()) }
        } else {
            // SAFETY: NEON is baseline on aarch64.
            unsafe { vdupq_n_u64(0) }
        }
    })
}

#[inline(always)]
fn store_out2_pair(s: &mut KeccakX4, j: usize, out: [uint64x2_t; 2]) {
    for (lane, v) in s.lanes.iter_mut().zip(out) {
        let two: &mut [u64; 2] = (&mut lane[j..j + 2]).try_into().expect("2 lanes");
        // SAFETY: writes 2 u64 through a reference to 2 u64; NEON is baseline on aarch64.
        unsafe { vst1q_u64(two.as_mut_ptr(), v) }
    }
}

/// The round constants through an opaque pointer, so each plain round loads its constant
/// (one load-and-duplicate) instead of building it from immediates.
#[inline(always)]
fn round_constants() -> &'static [u64; 24] {
    core::hint::black_box(&RC)
}

/// Two states, plain NEON.
#[inline(never)]
fn pair_plain(s: &mut KeccakX4, j: usize) {
    let rc = round_constants();
    let mut a = load_block_pair(s, j);
    first_23!(|r: usize| round::<uint64x2_t>(&mut a, rc[r]));
    store_out2_pair(s, j, last_round_out2(&a));
}

/// Four states, plain NEON.
#[inline(always)]
pub(super) fn x4_plain(s: &mut KeccakX4) {
    pair_plain(s, 0);
    pair_plain(s, 2);
}

/// Lanes 0 and 1 after the last round with the SHA-3 instructions.
#[target_feature(enable = "sha3")]
#[inline]
fn last_round_out2_sha3(a: &State) -> [uint64x2_t; 2] {
    let c: [uint64x2_t; 5] = core::array::from_fn(|x| {
        veor3q_u64(veor3q_u64(a[x], a[x + 5], a[x + 10]), a[x + 15], a[x + 20])
    });
    let d: [uint64x2_t; 4] = core::array::from_fn(|x| vrax1q_u64(c[(x + 4) % 5], c[(x + 1) % 5]));
    macro_rules! b {
        ($i:literal) => {{
            const SRC: usize = pi_source($i);
            vxarq_u64::<{ ((64 - RHO[SRC]) % 64) as i32 }>(a[SRC], d[SRC % 5])
        }};
    }
    // Output lane 0 with ι: its χ operand b[0] is needed nowhere else here, so it takes the
    // round constant with its D (ρ is 0 for lane 0), as in `round_sha3_from`.
    let b0_rc = veor3q_u64(a[0], d[0], vdupq_n_u64(RC[23]));
    let b = [b!(1), b!(2), b!(3)];
    [vbcaxq_u64(b0_rc, b[1], b[0]), vbcaxq_u64(b[0], b[2], b[1])]
}

/// The first round: lanes 17 to 24 are zero, so columns 2 to 4 have three lanes, columns
/// 0 and 1 four (three EOR3 fewer; LLVM does not drop an EOR3 with zero operands).
#[target_feature(enable = "sha3")]
#[inline]
fn first_round_sha3(a: &mut State, r: usize) {
    let c: [uint64x2_t; 5] = core::array::from_fn(|x| {
        let three = veor3q_u64(a[x], a[x + 5], a[x + 10]);
        if x + 15 < 17 {
            veorq_u64(three, a[x + 15])
        } else {
            three
        }
    });
    round_sha3_from(a, &c, r);
}

/// The rounds with the SHA-3 instructions on a state in registers: a macro, so that each
/// caller has its own copy and the state is never passed through memory.
macro_rules! rounds_sha3 {
    ($a:ident) => {{
        first_23!(|r: usize| if r == 0 {
            first_round_sha3(&mut $a, r)
        } else {
            round_sha3(&mut $a, r)
        });
        last_round_out2_sha3(&$a)
    }};
}

/// Two states with the SHA-3 instructions.
#[target_feature(enable = "sha3")]
#[inline(never)]
fn pair_sha3(s: &mut KeccakX4, j: usize) {
    let mut a = load_block_pair(s, j);
    let out = rounds_sha3!(a);
    store_out2_pair(s, j, out);
}

/// Four states with the SHA-3 instructions: two calls of the two-state kernel (one function
/// holding both copies is scheduled worse: LLVM interleaves them and spills).
#[target_feature(enable = "sha3")]
#[inline]
pub(super) fn x4_sha3(s: &mut KeccakX4) {
    pair_sha3(s, 0);
    pair_sha3(s, 2);
}

/// One state with the SHA-3 instructions (the second lane idle).
#[target_feature(enable = "sha3")]
#[inline(never)]
pub(super) fn x1_sha3(s: &mut [u64; 25]) {
    let mut a: State = core::array::from_fn(|i| vdupq_n_u64(if i < 17 { s[i] } else { 0 }));
    let out = rounds_sha3!(a);
    s[0] = vgetq_lane_u64::<0>(out[0]);
    s[1] = vgetq_lane_u64::<0>(out[1]);
}

//! Keccak-f[1600] on two states at once, one state per 64-bit lane of a `uint64x2_t`: with
//! plain NEON (rotations as SHL + SRI) and with the SHA-3 instructions (EOR3, RAX1, XAR,
//! BCAX). The four-state permutation is two of these; the SHA-3 one also serves single
//! states, with one lane idle.

use crate::portable::keccak::{RC, RHO, pi_source};
use crate::simd::KeccakX4;
use core::arch::aarch64::*;

type State = [uint64x2_t; 25];

/// Lane i of states (j, j+1) of the four.
#[inline(always)]
fn load_pair(s: &KeccakX4, j: usize) -> State {
    core::array::from_fn(|i| {
        let two: &[u64; 2] = s.lanes[i][j..j + 2].try_into().expect("2 lanes");
        // SAFETY: reads 2 u64 from a reference to 2 u64; NEON is baseline on aarch64.
        unsafe { vld1q_u64(two.as_ptr()) }
    })
}

#[inline(always)]
fn store_pair(s: &mut KeccakX4, j: usize, a: &State) {
    for (lane, v) in s.lanes.iter_mut().zip(a) {
        let two: &mut [u64; 2] = (&mut lane[j..j + 2]).try_into().expect("2 lanes");
        // SAFETY: writes 2 u64 through a reference to 2 u64; NEON is baseline on aarch64.
        unsafe { vst1q_u64(two.as_mut_ptr(), *v) }
    }
}

/// rotate-left of both lanes by `$n` (a constant), plain NEON.
macro_rules! rol {
    ($x:expr, $n:expr) => {{
        let x = $x;
        vsriq_n_u64::<{ 64 - $n as i32 }>(vshlq_n_u64::<{ $n as i32 }>(x), x)
    }};
}

/// One round's ρ, π and χ for lane position $i, from the θ-applied source lanes.
macro_rules! rho_pi_plain {
    ($a:ident, $d:ident, $b:ident; $($i:literal)*) => {
        $(
            {
                const SRC: usize = pi_source($i);
                let x = veorq_u64($a[SRC], $d[SRC % 5]);
                $b[$i] = if RHO[SRC] == 0 { x } else { rol!(x, RHO[SRC]) };
            }
        )*
    };
}

/// The 24 rounds with plain NEON.
#[inline(always)]
fn permute_plain(a: &mut State) {
    // SAFETY: NEON is baseline on aarch64.
    unsafe {
        for rc in RC {
            let c: [uint64x2_t; 5] = core::array::from_fn(|x| {
                veorq_u64(
                    veorq_u64(veorq_u64(a[x], a[x + 5]), veorq_u64(a[x + 10], a[x + 15])),
                    a[x + 20],
                )
            });
            let d: [uint64x2_t; 5] =
                core::array::from_fn(|x| veorq_u64(c[(x + 4) % 5], rol!(c[(x + 1) % 5], 1)));
            let mut b = [vdupq_n_u64(0); 25];
            rho_pi_plain!(a, d, b; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
            for y in 0..5 {
                for x in 0..5 {
                    a[x + 5 * y] = veorq_u64(
                        b[x + 5 * y],
                        vbicq_u64(b[(x + 2) % 5 + 5 * y], b[(x + 1) % 5 + 5 * y]),
                    );
                }
            }
            a[0] = veorq_u64(a[0], vdupq_n_u64(rc));
        }
    }
}

macro_rules! rho_pi_sha3 {
    ($a:ident, $d:ident, $b:ident; $($i:literal)*) => {
        $(
            {
                const SRC: usize = pi_source($i);
                $b[$i] = vxarq_u64::<{ ((64 - RHO[SRC]) % 64) as i32 }>($a[SRC], $d[SRC % 5]);
            }
        )*
    };
}

/// The 24 rounds with the SHA-3 instructions.
#[target_feature(enable = "sha3")]
fn permute_sha3(a: &mut State) {
    for rc in RC {
        let c: [uint64x2_t; 5] = core::array::from_fn(|x| {
            veor3q_u64(veor3q_u64(a[x], a[x + 5], a[x + 10]), a[x + 15], a[x + 20])
        });
        let d: [uint64x2_t; 5] =
            core::array::from_fn(|x| vrax1q_u64(c[(x + 4) % 5], c[(x + 1) % 5]));
        let mut b = [vdupq_n_u64(0); 25];
        rho_pi_sha3!(a, d, b; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] =
                    vbcaxq_u64(b[x + 5 * y], b[(x + 2) % 5 + 5 * y], b[(x + 1) % 5 + 5 * y]);
            }
        }
        a[0] = veorq_u64(a[0], vdupq_n_u64(rc));
    }
}

/// Four states, plain NEON.
#[inline(always)]
pub(super) fn x4_plain(s: &mut KeccakX4) {
    for j in [0, 2] {
        let mut a = load_pair(s, j);
        permute_plain(&mut a);
        store_pair(s, j, &a);
    }
}

/// Four states with the SHA-3 instructions.
#[target_feature(enable = "sha3")]
pub(super) fn x4_sha3(s: &mut KeccakX4) {
    for j in [0, 2] {
        let mut a = load_pair(s, j);
        permute_sha3(&mut a);
        store_pair(s, j, &a);
    }
}

/// One state with the SHA-3 instructions (the second lane idle).
#[target_feature(enable = "sha3")]
pub(super) fn x1_sha3(s: &mut [u64; 25]) {
    let mut a: State = core::array::from_fn(|i| vdupq_n_u64(s[i]));
    permute_sha3(&mut a);
    for (lane, v) in s.iter_mut().zip(&a) {
        *lane = vgetq_lane_u64::<0>(*v);
    }
}

/// One state, plain NEON (the second lane idle); for comparison with the scalar code.
#[allow(dead_code)]
#[inline(always)]
pub(super) fn x1_plain(s: &mut [u64; 25]) {
    // SAFETY: NEON is baseline on aarch64.
    let mut a: State = core::array::from_fn(|i| unsafe { vdupq_n_u64(s[i]) });
    permute_plain(&mut a);
    for (lane, v) in s.iter_mut().zip(&a) {
        // SAFETY: NEON is baseline on aarch64.
        *lane = unsafe { vgetq_lane_u64::<0>(*v) };
    }
}

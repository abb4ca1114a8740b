//! Keccak-f[1600] on two states at once, one state per 64-bit lane of a `uint64x2_t`: with
//! plain NEON (rotations as SHL + SRI) and with the SHA-3 instructions (EOR3, RAX1, XAR,
//! BCAX). The four-state permutation is two of these, the two-state one (`KeccakX2`) one;
//! the SHA-3 one also serves single states, with one lane idle.

use crate::portable::keccak::{RC, RHO, pi_source};
use crate::simd::{KeccakX2, KeccakX4};
use core::arch::aarch64::*;

pub(super) type State = [uint64x2_t; 25];

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

/// The operations of a Keccak round on one lane (u64) or two (uint64x2_t), for the generic
/// round below.
pub(super) trait Lane: Copy {
    fn xor(a: Self, b: Self) -> Self;
    /// rotl(a, N) with M = 64 - N.
    fn rotl<const N: i32, const M: i32>(a: Self) -> Self;
    /// a ^ (!b & c).
    fn chi(a: Self, b: Self, c: Self) -> Self;
    fn xor_rc(a: Self, rc: u64) -> Self;
}

impl Lane for u64 {
    #[inline(always)]
    fn xor(a: Self, b: Self) -> Self {
        a ^ b
    }
    #[inline(always)]
    fn rotl<const N: i32, const M: i32>(a: Self) -> Self {
        a.rotate_left(N as u32)
    }
    #[inline(always)]
    fn chi(a: Self, b: Self, c: Self) -> Self {
        a ^ (!b & c)
    }
    #[inline(always)]
    fn xor_rc(a: Self, rc: u64) -> Self {
        a ^ rc
    }
}

impl Lane for uint64x2_t {
    #[inline(always)]
    fn xor(a: Self, b: Self) -> Self {
        // SAFETY: NEON is baseline on aarch64.
        unsafe { veorq_u64(a, b) }
    }
    #[inline(always)]
    fn rotl<const N: i32, const M: i32>(a: Self) -> Self {
        if N == 0 {
            return a;
        }
        // SAFETY: NEON is baseline on aarch64.
        unsafe { vsriq_n_u64::<M>(vshlq_n_u64::<N>(a), a) }
    }
    #[inline(always)]
    fn chi(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: NEON is baseline on aarch64.
        unsafe { veorq_u64(a, vbicq_u64(c, b)) }
    }
    #[inline(always)]
    fn xor_rc(a: Self, rc: u64) -> Self {
        // SAFETY: NEON is baseline on aarch64.
        unsafe { veorq_u64(a, vdupq_n_u64(rc)) }
    }
}

/// Output row y of ρ, π and χ: the five B lanes of the row from the old lanes and D, then
/// the five new lanes. Row by row, so that few values are live at once.
macro_rules! row {
    ($L:ty, $a:ident, $old:ident, $d:ident, $y:literal) => {{
        macro_rules! b {
            ($i:expr) => {
                <$L>::rotl::<{ RHO[pi_source($i)] as i32 }, { 64 - RHO[pi_source($i)] as i32 }>(
                    <$L>::xor($old[pi_source($i)], $d[pi_source($i) % 5]),
                )
            };
        }
        let b0 = b!(5 * $y);
        let b1 = b!(5 * $y + 1);
        let b2 = b!(5 * $y + 2);
        let b3 = b!(5 * $y + 3);
        let b4 = b!(5 * $y + 4);
        $a[5 * $y] = <$L>::chi(b0, b1, b2);
        $a[5 * $y + 1] = <$L>::chi(b1, b2, b3);
        $a[5 * $y + 2] = <$L>::chi(b2, b3, b4);
        $a[5 * $y + 3] = <$L>::chi(b3, b4, b0);
        $a[5 * $y + 4] = <$L>::chi(b4, b0, b1);
    }};
}

/// The 24 rounds, generic over the lane type.
#[inline(always)]
fn permute<L: Lane>(a: &mut [L; 25]) {
    for rc in RC {
        round(a, rc);
    }
}

#[inline(always)]
pub(super) fn round<L: Lane>(a: &mut [L; 25], rc: u64) {
    {
        let c: [L; 5] = core::array::from_fn(|x| {
            L::xor(
                L::xor(L::xor(a[x], a[x + 5]), L::xor(a[x + 10], a[x + 15])),
                a[x + 20],
            )
        });
        let d: [L; 5] =
            core::array::from_fn(|x| L::xor(c[(x + 4) % 5], L::rotl::<1, 63>(c[(x + 1) % 5])));
        let old = *a;
        row!(L, a, old, d, 0);
        row!(L, a, old, d, 1);
        row!(L, a, old, d, 2);
        row!(L, a, old, d, 3);
        row!(L, a, old, d, 4);
        a[0] = L::xor_rc(a[0], rc);
    }
}

/// The 24 rounds with plain NEON.
#[inline(always)]
fn permute_plain(a: &mut State) {
    permute::<uint64x2_t>(a);
}

/// Calls `$round(r)` for r = 0..23: the rounds before the last, written out so that no loop
/// keeps the state from staying in registers.
macro_rules! first_23 {
    ($round:expr) => {
        $round(0);
        $round(1);
        $round(2);
        $round(3);
        $round(4);
        $round(5);
        $round(6);
        $round(7);
        $round(8);
        $round(9);
        $round(10);
        $round(11);
        $round(12);
        $round(13);
        $round(14);
        $round(15);
        $round(16);
        $round(17);
        $round(18);
        $round(19);
        $round(20);
        $round(21);
        $round(22);
    };
}
pub(super) use first_23;

/// One round with the SHA-3 instructions, ρ and π grouped by the column parity each lane
/// takes (D[0]'s five lanes first), so that each D dies after its fifth use: fewer values are
/// live at once than in index order, and fewer spill (SLH-DSA keygen 3.92 M -> 3.88 M
/// instructions).
/// (For plain NEON, whose rotations take two instructions, `keccak::round`'s row order is
/// better.)
#[target_feature(enable = "sha3")]
#[inline]
pub(super) fn round_sha3(a: &mut State, r: usize) {
    let c: [uint64x2_t; 5] = core::array::from_fn(|x| {
        veor3q_u64(veor3q_u64(a[x], a[x + 5], a[x + 10]), a[x + 15], a[x + 20])
    });
    round_sha3_from(a, &c, r);
}

/// A round from its column parities.
#[target_feature(enable = "sha3")]
#[inline]
pub(super) fn round_sha3_from(a: &mut State, c: &[uint64x2_t; 5], r: usize) {
    let d: [uint64x2_t; 5] = core::array::from_fn(|x| vrax1q_u64(c[(x + 4) % 5], c[(x + 1) % 5]));
    let mut b = [vdupq_n_u64(0); 25];
    macro_rules! rho_pi {
        ($($i:literal)*) => {
            $(
                {
                    const SRC: usize = pi_source($i);
                    b[$i] = vxarq_u64::<{ ((64 - RHO[SRC]) % 64) as i32 }>(a[SRC], d[SRC % 5]);
                }
            )*
        };
    }
    // ι with θ: lane 0's χ output is b[0] ^ (b[2] & !b[1]) ^ RC, so b[0] ^ RC (one EOR3, as
    // ρ is 0 there) can be its first operand; lanes 3 and 4 take b[0] itself. The same count
    // as an EOR after χ, but the constant is used while fewer values are live, and the
    // SLH-DSA two-state kernel no longer spills (1 672 -> 1 597 instructions).
    let b0_rc = veor3q_u64(a[0], d[0], rc_pair(r));
    rho_pi!(0 7 14 16 23 1 8 10 17 24 2 9 11 18 20 3 5 12 19 21 4 6 13 15 22);
    for y in 0..5 {
        for x in 0..5 {
            let first = if x + y == 0 { b0_rc } else { b[x + 5 * y] };
            a[x + 5 * y] = vbcaxq_u64(first, b[(x + 2) % 5 + 5 * y], b[(x + 1) % 5 + 5 * y]);
        }
    }
}

/// The round constants, each twice (one vector).
#[repr(align(16))]
struct RcPairs([[u64; 2]; 24]);
static RC_PAIRS: RcPairs = RcPairs({
    let mut t = [[0; 2]; 24];
    let mut r = 0;
    while r < 24 {
        t[r] = [RC[r], RC[r]];
        r += 1;
    }
    t
});

/// Round `r`'s constant in both lanes, by a volatile load: one instruction where the
/// immediates take up to four and a DUP, and the load stays in its round (a plain load from
/// the table is hoisted to the top with the other 23, and the state spills).
#[inline(always)]
fn rc_pair(r: usize) -> uint64x2_t {
    // SAFETY: reads one aligned, initialised 16-byte entry of a static table; uint64x2_t has
    // the size and alignment of [u64; 2] aligned to 16.
    unsafe { core::ptr::read_volatile((&RC_PAIRS.0[r] as *const [u64; 2]).cast::<uint64x2_t>()) }
}

/// The 24 rounds with the SHA-3 instructions, written out: a macro, so that each kernel that
/// loads a state has its own copy and the state stays in registers from the first round to
/// the last (a loop over the rounds costs about 13 instructions a round more, and a function,
/// which LLVM may keep out of line, takes the state through memory).
macro_rules! permute_sha3 {
    ($a:expr) => {{
        let a: &mut State = $a;
        first_23!(|r: usize| round_sha3(a, r));
        round_sha3(a, 23);
    }};
}

/// The two states of a `KeccakX2`, lane i of both in one vector.
#[inline(always)]
fn load_two(s: &KeccakX2) -> State {
    // SAFETY: reads 2 u64 from a reference to 2 u64; NEON is baseline on aarch64.
    core::array::from_fn(|i| unsafe { vld1q_u64(s.lanes[i].as_ptr()) })
}

#[inline(always)]
fn store_two(s: &mut KeccakX2, a: &State) {
    for (lane, v) in s.lanes.iter_mut().zip(a) {
        // SAFETY: writes 2 u64 through a reference to 2 u64; NEON is baseline on aarch64.
        unsafe { vst1q_u64(lane.as_mut_ptr(), *v) }
    }
}

/// [`crate::simd::Simd::keccak_x4_extract`]: two lanes of the four states at a time, as 2 × 2
/// transposes of 64-bit words (`zip1`, `zip2`), an odd last lane one word at a time.
#[inline(always)]
pub(super) fn extract_x4(state: &KeccakX4, lanes: usize, out: [&mut [u8]; 4]) {
    let [o0, o1, o2, o3] = out;
    let mut i = 0;
    while i + 2 <= lanes {
        let (x, y) = (&state.lanes[i], &state.lanes[i + 1]);
        // SAFETY (for the block): reads 2 u64 through references to 2 u64; NEON is baseline
        // on aarch64.
        unsafe {
            let (a, b) = (vld1q_u64(x[..2].as_ptr()), vld1q_u64(x[2..].as_ptr()));
            let (c, d) = (vld1q_u64(y[..2].as_ptr()), vld1q_u64(y[2..].as_ptr()));
            store_words(&mut o0[8 * i..], vzip1q_u64(a, c));
            store_words(&mut o1[8 * i..], vzip2q_u64(a, c));
            store_words(&mut o2[8 * i..], vzip1q_u64(b, d));
            store_words(&mut o3[8 * i..], vzip2q_u64(b, d));
        }
        i += 2;
    }
    if i < lanes {
        let w = &state.lanes[i];
        o0[8 * i..8 * i + 8].copy_from_slice(&w[0].to_le_bytes());
        o1[8 * i..8 * i + 8].copy_from_slice(&w[1].to_le_bytes());
        o2[8 * i..8 * i + 8].copy_from_slice(&w[2].to_le_bytes());
        o3[8 * i..8 * i + 8].copy_from_slice(&w[3].to_le_bytes());
    }
}

/// Two little-endian words to `o[..16]`.
#[inline(always)]
fn store_words(o: &mut [u8], v: uint64x2_t) {
    let o: &mut [u8; 16] = (&mut o[..16]).try_into().expect("16 bytes");
    // SAFETY: writes 16 bytes through a reference to 16 bytes; NEON is baseline on aarch64.
    unsafe { vst1q_u8(o.as_mut_ptr(), vreinterpretq_u8_u64(v)) }
}

/// Two states, plain NEON.
pub(super) fn x2_plain(s: &mut KeccakX2) {
    let mut a = load_two(s);
    permute_plain(&mut a);
    store_two(s, &a);
}

/// Two states with the SHA-3 instructions.
#[target_feature(enable = "sha3")]
#[inline(never)]
pub(super) fn x2_sha3(s: &mut KeccakX2) {
    let mut a = load_two(s);
    permute_sha3!(&mut a);
    store_two(s, &a);
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

/// States (j, j + 1) of four with the SHA-3 instructions.
#[target_feature(enable = "sha3")]
#[inline(never)]
fn pair_sha3(s: &mut KeccakX4, j: usize) {
    let mut a = load_pair(s, j);
    permute_sha3!(&mut a);
    store_pair(s, j, &a);
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
    let mut a: State = core::array::from_fn(|i| vdupq_n_u64(s[i]));
    permute_sha3!(&mut a);
    for (lane, v) in s.iter_mut().zip(&a) {
        *lane = vgetq_lane_u64::<0>(*v);
    }
}

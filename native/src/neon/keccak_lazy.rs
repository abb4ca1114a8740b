//! Keccak-f[1600] on one state in general-purpose registers, with lazy rotation: aarch64's
//! logical instructions (EOR, BIC) rotate their second operand for free, so the ρ rotations
//! are never done on their own. Each lane is kept as `s[i]` with the true lane
//! `s[i].rotate_left(ROT[r][i])`, where the pending rotation `ROT[r][i]` is known at compile
//! time for every round r; every operation works in the frame of one of its operands and
//! rotates the other through the operand shift. About 103 instructions a round against 151
//! for the plain scalar round (which rotates each lane of ρ separately and spills).
//! The 24 rounds are written out, so every rotation amount is a constant.

use crate::portable::keccak::{RC, RHO, pi_source};

/// `ROT[r][i]`: the pending rotation of lane i before round r (none before the first).
const ROT: [[u32; 25]; 25] = pending_rotations();

const fn pending_rotations() -> [[u32; 25]; 25] {
    let mut p = [[0u32; 25]; 25];
    let mut r = 0;
    while r < 24 {
        let mut j = 0;
        while j < 25 {
            // Lane j after π, χ comes in the frame of B[j] = ROT(A[π⁻¹ j] ^ D, ρ).
            let src = pi_source(j);
            p[r + 1][j] = (p[r][src] + RHO[src]) % 64;
            j += 1;
        }
        r += 1;
    }
    p
}

/// The round constants, each rotated into the frame of lane 0 after its round.
const RC_LAZY: [u64; 24] = lazy_round_constants();

const fn lazy_round_constants() -> [u64; 24] {
    let mut rc = [0u64; 24];
    let mut r = 0;
    while r < 24 {
        rc[r] = RC[r].rotate_right(ROT[r + 1][0]);
        r += 1;
    }
    rc
}

/// Moves a value from frame `from` (true value `v.rotate_left(from)`) to frame `to`.
#[inline(always)]
fn shift(v: u64, to: u32, from: u32) -> u64 {
    v.rotate_left((from + 64 - to) % 64)
}

/// χ for output lane j0 of a row (j1, j2 the next two), from the θ/ρ/π lanes `t`:
/// B0 ^ (!B1 & B2), in the frame of B0.
macro_rules! chi_lane {
    ($s:ident, $t:ident, $q:ident, $y:literal, $x:literal) => {{
        const J0: usize = 5 * $y + $x;
        const J1: usize = 5 * $y + ($x + 1) % 5;
        const J2: usize = 5 * $y + ($x + 2) % 5;
        let (b0, b1, b2) = ($t[pi_source(J0)], $t[pi_source(J1)], $t[pi_source(J2)]);
        // !B1 & B2 in the frame of B2 (one BIC), then onto B0 (one EOR).
        let w = b2 & !shift(b1, $q[J2], $q[J1]);
        $s[J0] = b0 ^ shift(w, $q[J0], $q[J2]);
    }};
}

macro_rules! chi_row {
    ($s:ident, $t:ident, $q:ident, $y:literal) => {
        chi_lane!($s, $t, $q, $y, 0);
        chi_lane!($s, $t, $q, $y, 1);
        chi_lane!($s, $t, $q, $y, 2);
        chi_lane!($s, $t, $q, $y, 3);
        chi_lane!($s, $t, $q, $y, 4);
    };
}

/// Round r (a constant after inlining) on the lazily rotated state.
#[inline(always)]
fn round(s: &mut [u64; 25], r: usize, rc: u64) {
    let p = &ROT[r];
    let q = &ROT[r + 1];
    // θ: column parity x in the frame of lane x.
    let c: [u64; 5] = core::array::from_fn(|x| {
        s[x] ^ shift(s[x + 5], p[x], p[x + 5])
            ^ shift(s[x + 10], p[x], p[x + 10])
            ^ shift(s[x + 15], p[x], p[x + 15])
            ^ shift(s[x + 20], p[x], p[x + 20])
    });
    // D[x] = C[x-1] ^ ROT(C[x+1], 1), in the frame of C[x-1].
    let d: [u64; 5] = core::array::from_fn(|x| {
        let (l, h) = ((x + 4) % 5, (x + 1) % 5);
        c[l] ^ shift(c[h], p[l], (p[h] + 1) % 64)
    });
    // A ^ D in the frame of A; ρ only changes the frame (q of the lane's π destination).
    macro_rules! t {
        ($($i:literal)*) => { [$( s[$i] ^ shift(d[$i % 5], p[$i], p[($i % 5 + 4) % 5]) ),*] };
    }
    let t: [u64; 25] = t!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
    chi_row!(s, t, q, 0);
    chi_row!(s, t, q, 1);
    chi_row!(s, t, q, 2);
    chi_row!(s, t, q, 3);
    chi_row!(s, t, q, 4);
    s[0] ^= rc;
}

/// The 24 rounds on the lazily rotated state; afterwards the true lane i is
/// `s[i].rotate_left(ROT[24][i])`.
#[inline(always)]
fn rounds(s: &mut [u64; 25]) {
    // The round constants through an opaque reference, so each is one load rather than a
    // chain of moves.
    let rc = core::hint::black_box(&RC_LAZY);
    macro_rules! rounds {
        ($($r:literal)*) => { $( round(s, $r, rc[$r]); )* };
    }
    rounds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23);
}

/// Keccak-f[1600].
#[inline(always)]
pub(super) fn permute(state: &mut [u64; 25]) {
    // A local copy, so that the state lives in registers.
    let mut s = *state;
    rounds(&mut s);
    for (out, (v, k)) in state.iter_mut().zip(s.iter().zip(ROT[24])) {
        *out = v.rotate_left(k);
    }
}

/// `Simd::keccak_f1600_out2`: lanes 17 to 24 taken as zero, only lanes 0 and 1 written.
#[inline(always)]
pub(super) fn permute_out2(state: &mut [u64; 25]) {
    let mut s: [u64; 25] = core::array::from_fn(|i| if i < 17 { state[i] } else { 0 });
    rounds(&mut s);
    state[0] = s[0].rotate_left(ROT[24][0]);
    state[1] = s[1].rotate_left(ROT[24][1]);
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_the_portable_permutation() {
        let mut a: [u64; 25] =
            core::array::from_fn(|i| (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        for _ in 0..4 {
            let mut b = a;
            super::permute(&mut a);
            crate::portable::keccak::keccak_f1600(&mut b);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn out2_matches_the_portable_permutation() {
        let mut a: [u64; 25] =
            core::array::from_fn(|i| (i as u64 + 7).wrapping_mul(0x2545_f491_4f6c_dd1d));
        let mut b = a;
        b[17..].fill(0);
        super::permute_out2(&mut a);
        crate::portable::keccak::keccak_f1600(&mut b);
        assert_eq!(a[..2], b[..2]);
    }
}

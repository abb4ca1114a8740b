//! Keccak-f[1600] in plain Rust. The round constants and rotation offsets are computed at
//! compile time from their definitions in FIPS 202 (sections 3.2.2 and 3.2.5), not typed in.

use crate::simd::KeccakX4;

/// rc(t) of FIPS 202 Algorithm 5: the LFSR x^8 + x^6 + x^5 + x^4 + 1.
const fn rc_bit(t: usize) -> u64 {
    if t.is_multiple_of(255) {
        return 1;
    }
    let mut r: u16 = 0x80; // R = 10000000, bit 0 first
    let mut i = 1;
    while i <= t % 255 {
        // R = 0 || R; R[0] ^= R[8]; R[4] ^= R[8]; R[5] ^= R[8]; R[6] ^= R[8]; truncate.
        let r8 = r & 1; // bit 8 after the shift is the old bit 7 (stored reversed)
        r >>= 1;
        if r8 == 1 {
            r ^= 0x80 | 0x08 | 0x04 | 0x02;
        }
        i += 1;
    }
    ((r >> 7) & 1) as u64
}

const fn round_constants() -> [u64; 24] {
    let mut rc = [0u64; 24];
    let mut ir = 0;
    while ir < 24 {
        let mut j = 0;
        while j <= 6 {
            rc[ir] |= rc_bit(j + 7 * ir) << ((1usize << j) - 1);
            j += 1;
        }
        ir += 1;
    }
    rc
}

/// ρ offsets indexed by lane x + 5y (FIPS 202 Algorithm 2).
const fn rho_offsets() -> [u32; 25] {
    let mut off = [0u32; 25];
    let (mut x, mut y) = (1usize, 0usize);
    let mut t = 0;
    while t < 24 {
        off[x + 5 * y] = (((t + 1) * (t + 2) / 2) % 64) as u32;
        let nx = y;
        let ny = (2 * x + 3 * y) % 5;
        x = nx;
        y = ny;
        t += 1;
    }
    off
}

pub(crate) const RC: [u64; 24] = round_constants();
pub(crate) const RHO: [u32; 25] = rho_offsets();

/// π: the lane that moves to position x + 5y comes from (x + 3y) mod 5 + 5x.
pub(crate) const fn pi_source(i: usize) -> usize {
    let (x, y) = (i % 5, i / 5);
    (x + 3 * y) % 5 + 5 * x
}

/// One round: θ, ρ, π, χ and ι, with the ρ/π lane moves resolved at compile time.
#[inline(always)]
fn round(a: &[u64; 25], rc: u64) -> [u64; 25] {
    let c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
    let c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
    let c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
    let c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
    let c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
    let d = [
        c4 ^ c1.rotate_left(1),
        c0 ^ c2.rotate_left(1),
        c1 ^ c3.rotate_left(1),
        c2 ^ c4.rotate_left(1),
        c3 ^ c0.rotate_left(1),
    ];
    macro_rules! b {
        ($i:literal) => {
            (a[pi_source($i)] ^ d[pi_source($i) % 5]).rotate_left(RHO[pi_source($i)])
        };
    }
    macro_rules! chi {
        ($e:ident, $y:literal, [$b0:expr, $b1:expr, $b2:expr, $b3:expr, $b4:expr]) => {
            let (b0, b1, b2, b3, b4) = ($b0, $b1, $b2, $b3, $b4);
            $e[5 * $y] = b0 ^ (!b1 & b2);
            $e[5 * $y + 1] = b1 ^ (!b2 & b3);
            $e[5 * $y + 2] = b2 ^ (!b3 & b4);
            $e[5 * $y + 3] = b3 ^ (!b4 & b0);
            $e[5 * $y + 4] = b4 ^ (!b0 & b1);
        };
    }
    let mut e = [0u64; 25];
    chi!(e, 0, [b!(0), b!(1), b!(2), b!(3), b!(4)]);
    chi!(e, 1, [b!(5), b!(6), b!(7), b!(8), b!(9)]);
    chi!(e, 2, [b!(10), b!(11), b!(12), b!(13), b!(14)]);
    chi!(e, 3, [b!(15), b!(16), b!(17), b!(18), b!(19)]);
    chi!(e, 4, [b!(20), b!(21), b!(22), b!(23), b!(24)]);
    e[0] ^= rc;
    e
}

/// Keccak-f[1600], two rounds per iteration. Never inlined: inside an AVX2 entry point, LLVM's
/// straight-line vectoriser turns θ into lane shuffles that make it about 3 times slower.
#[inline(never)]
pub(crate) fn keccak_f1600(state: &mut [u64; 25]) {
    keccak_f1600_inline(state);
}

/// The same, for a caller that compiles it with its own target features (e.g. BMI's `andn`
/// and `rorx` on x86-64).
#[inline(always)]
pub(crate) fn keccak_f1600_inline(state: &mut [u64; 25]) {
    let mut a = *state;
    let mut r = 0;
    while r < 24 {
        let e = round(&a, RC[r]);
        a = round(&e, RC[r + 1]);
        r += 2;
    }
    *state = a;
}

/// Four states, one after the other.
pub(crate) fn keccak_f1600_x4(state: &mut KeccakX4) {
    for j in 0..4 {
        let mut one: [u64; 25] = core::array::from_fn(|i| state.lanes[i][j]);
        keccak_f1600(&mut one);
        for (lane, v) in state.lanes.iter_mut().zip(one) {
            lane[j] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_fips202() {
        // Spot checks of well-known values.
        assert_eq!(RC[0], 0x0000_0000_0000_0001);
        assert_eq!(RC[1], 0x0000_0000_0000_8082);
        assert_eq!(RC[23], 0x8000_0000_8000_8008);
        assert_eq!(RHO[1], 1);
        assert_eq!(RHO[2], 62);
        assert_eq!(RHO[24], 14);
    }
}

//! Keccak-f[1600] in plain Rust. The round constants and rotation offsets are computed at
//! compile time from their definitions in FIPS 202 (sections 3.2.2 and 3.2.5), not typed in.

/// rc(t) of FIPS 202 Algorithm 5: the LFSR x^8 + x^6 + x^5 + x^4 + 1.
const fn rc_bit(t: usize) -> u64 {
    if t % 255 == 0 {
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

#[inline(always)]
pub(crate) fn keccak_f1600(a: &mut [u64; 25]) {
    for rc in RC {
        // θ
        let mut c = [0u64; 5];
        for x in 0..5 {
            c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        }
        for x in 0..5 {
            let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
            for y in 0..5 {
                a[x + 5 * y] ^= d;
            }
        }
        // ρ and π
        let mut b = [0u64; 25];
        for (i, lane) in b.iter_mut().enumerate() {
            let src = pi_source(i);
            *lane = a[src].rotate_left(RHO[src]);
        }
        // χ
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        // ι
        a[0] ^= rc;
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

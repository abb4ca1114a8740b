//! Compile-time modular arithmetic for building the ML-KEM and ML-DSA constant tables (twiddle
//! factors, inverses) from their definitions.

/// The inverse of odd `q` modulo 2^64 by Newton iteration; truncate for 2^16 or 2^32.
pub(crate) const fn inverse_mod_2_64(q: u64) -> u64 {
    let mut x: u64 = 1;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(q.wrapping_mul(x)));
        i += 1;
    }
    x
}

/// base^exp mod q.
pub(crate) const fn pow_mod(base: i64, mut exp: u32, q: i64) -> i64 {
    let mut acc = 1i64;
    let mut b = base.rem_euclid(q);
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc * b % q;
        }
        b = b * b % q;
        exp >>= 1;
    }
    acc
}

/// The representative of `a` mod q in (-q/2, q/2].
pub(crate) const fn centered(a: i64, q: i64) -> i64 {
    let r = a.rem_euclid(q);
    if r > q / 2 { r - q } else { r }
}

/// The bits of `i` in reverse order, `bits` wide.
pub(crate) const fn bitrev(i: usize, bits: u32) -> u32 {
    let mut r = 0;
    let mut k = 0;
    while k < bits {
        r |= ((i >> k) & 1) << (bits - 1 - k);
        k += 1;
    }
    r as u32
}

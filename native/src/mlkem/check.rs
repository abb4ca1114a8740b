//! The FIPS 203 encapsulation-key check (section 7.2): every coefficient below q.

use super::kpke::POLY_BYTES;
use crate::simd::{Poly, Simd};

#[inline(always)]
pub(crate) fn modulus<S: Simd, const K: usize>(ek: &[u8]) -> bool {
    let mut ok = true;
    let mut p = Poly::ZERO;
    for i in 0..K {
        let bytes = ek[i * POLY_BYTES..(i + 1) * POLY_BYTES]
            .try_into()
            .expect("a polynomial");
        ok &= S::ntt_from_bytes(&mut p, bytes);
    }
    ok
}

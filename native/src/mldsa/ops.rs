//! The vector-operations trait that the ML-DSA algorithms are written over, and the polynomial
//! it works on. It extends [`Simd`] so that one implementation type carries both: the ML-DSA
//! code gets its Keccak (one state and four at a time) from `Simd`, its polynomial arithmetic,
//! sampling and packing from `DsaSimd`.
//!
//! # Conventions (those of the CRYSTALS-Dilithium reference code)
//!
//! - Coefficients are `i32`, q = 8380417, Montgomery factor R = 2^32.
//! - "Reduced" means what [`DsaSimd::dsa_reduce`] returns: |c| <= 6283009 (any sign).
//! - The order of coefficients in the NTT domain belongs to the implementation: only
//!   [`DsaSimd::dsa_ntt`] and [`DsaSimd::dsa_ntt_unpack`] create NTT-domain polynomials, and
//!   only the pointwise products and [`DsaSimd::dsa_invntt_tomont`] read them. Nothing
//!   serialises an NTT-domain polynomial. Element-wise operations work in either domain.
//! - The parameter-dependent operations are those of ML-DSA-65 (η = 4, γ1 = 2^19,
//!   γ2 = (q − 1)/32); ML-DSA-87 shares γ1 and γ2 but has η = 2, ML-DSA-44 differs in all
//!   three, so other parameter sets need more methods (or a parameter), not changed ones.
//! - Nothing may branch on or index memory by a coefficient value, except
//!   [`DsaSimd::dsa_rej_uniform`] (public input: the matrix seed), [`DsaSimd::dsa_use_hint`]
//!   (verification works on public data only) and the hint positions of a signature.
//!   [`DsaSimd::dsa_chk`] and [`DsaSimd::dsa_make_hint`] look at every coefficient, with no
//!   early exit; only their result (accept or reject the attempt) may be branched on.

use crate::simd::{Simd, keep_wiped};
use zeroize::Zeroize;

pub(crate) const N: usize = 256;
pub(crate) const Q: i32 = 8380417;
/// Dropped bits of t (Power2Round).
pub(crate) const D: u32 = 13;
pub(crate) const ETA: i32 = 4;
pub(crate) const GAMMA1: i32 = 1 << 19;
pub(crate) const GAMMA2: i32 = (Q - 1) / 32;

/// Packed sizes of one polynomial.
pub(crate) const T1_BYTES: usize = 320;
pub(crate) const T0_BYTES: usize = 416;
pub(crate) const ETA_BYTES: usize = 128;
pub(crate) const Z_BYTES: usize = 640;
pub(crate) const W1_BYTES: usize = 128;

/// One polynomial with 32-bit coefficients, aligned for 256-bit loads.
#[derive(Clone)]
#[repr(C, align(32))]
pub(crate) struct DsaPoly {
    pub(crate) c: [i32; N],
}

impl DsaPoly {
    pub(crate) const ZERO: DsaPoly = DsaPoly { c: [0; N] };
}

/// `M` zero polynomials, written in place (an `array::from_fn` of them is built on the side
/// and moved, tens of kilobytes per call for the matrix).
pub(crate) const fn zeros<const M: usize>() -> [DsaPoly; M] {
    [DsaPoly::ZERO; M]
}

/// Plain stores of the whole value (see `simd::keep_wiped`).
impl Zeroize for DsaPoly {
    fn zeroize(&mut self) {
        *self = DsaPoly::ZERO;
        keep_wiped(self);
    }
}

/// ML-DSA's polynomial operations. Every method has the `dsa_` prefix so that none collides
/// with a [`Simd`] (ML-KEM) method of the same name.
pub(crate) trait DsaSimd: Simd {
    /// Forward NTT. Input: standard order, |c| < q. Output: NTT domain, |c| < 9q.
    fn dsa_ntt(p: &mut DsaPoly);

    /// Inverse NTT times R. Input: NTT domain, reduced. Output: standard order, |c| < q.
    fn dsa_invntt_tomont(p: &mut DsaPoly);

    /// Reorders a polynomial sampled in the FIPS 204 NTT order (RejNTTPoly) into this
    /// implementation's NTT-domain order.
    fn dsa_ntt_unpack(p: &mut DsaPoly);

    /// `r = a ∘ b · R^-1`, NTT domain, |c| < q. Inputs: NTT domain, with |a·b| < q·2^31
    /// (NTT outputs of inputs below q, and reduced values, qualify).
    fn dsa_pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly);

    /// `r = (a[0]∘b[0] + ... + a[k-1]∘b[k-1]) · R^-1`, NTT domain, |c| < k·q.
    fn dsa_pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]);

    /// Reduces every coefficient to |c| <= 6283009. Input: c <= 2^31 − 2^22 − 1.
    fn dsa_reduce(p: &mut DsaPoly);

    /// Adds q to every negative coefficient.
    fn dsa_caddq(p: &mut DsaPoly);

    /// `r = r + a`, no reduction.
    fn dsa_add(r: &mut DsaPoly, a: &DsaPoly);

    /// `r = r - a`, no reduction.
    fn dsa_sub(r: &mut DsaPoly, a: &DsaPoly);

    /// `p = p · 2^d`, no reduction (t1 · 2^d in verification).
    fn dsa_shiftl(p: &mut DsaPoly);

    /// Power2Round: `t = t1 · 2^d + t0` with t0 in (−2^12, 2^12]. Input in [0, q).
    fn dsa_power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly);

    /// Decompose with γ2 = (q − 1)/32: `w = w1 · 2γ2 + w0` (mod q), w1 in [0, 16),
    /// w0 in (−γ2, γ2]. Input in [0, q).
    fn dsa_decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly);

    /// The hint bits (0 or 1) for low part `a0` = w0 − cs2 + ct0 and high part `a1` = w1 (the
    /// reference code's form of MakeHint), and how many are set.
    fn dsa_make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize;

    /// UseHint with γ2 = (q − 1)/32: `w1 = UseHint(h, w)`. `w` in [0, q), `h` 0 or 1.
    fn dsa_use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly);

    /// Whether some coefficient has |c| >= `bound`, looking at all of them. Input reduced;
    /// `bound` <= (q − 1)/8.
    fn dsa_chk(p: &DsaPoly, bound: i32) -> bool;

    /// RejNTTPoly's rejection step: parses `bytes` (a multiple of 3 long) as 23-bit values and
    /// appends those below q to `p.c[filled..]`, stopping when full. Returns the new count.
    /// Output in FIPS 204 order; call [`DsaSimd::dsa_ntt_unpack`] when the polynomial is full.
    fn dsa_rej_uniform(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize;

    /// RejBoundedPoly's rejection step for η = 4: appends η − b for each half-byte b < 9 of
    /// `bytes` to `p.c[filled..]`, stopping when full. Returns the new count. Secret input:
    /// no branch may depend on a value or on whether one half-byte was accepted. The running
    /// count may decide store addresses and, at the granularity of a group of half-bytes,
    /// when to stop: it shows where values were rejected, and nothing of the accepted values,
    /// which are independent of that (FIPS 204 lets the number of XOF blocks show too).
    fn dsa_rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize;

    /// SimpleBitPack(t1, 10 bits). Input in [0, 2^10).
    fn dsa_pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]);
    fn dsa_unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]);

    /// BitPack(t0, 2^12 − 1, 2^12). Input in (−2^12, 2^12].
    fn dsa_pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]);
    fn dsa_unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]);

    /// BitPack(s, η, η) for η = 4. Input in [−4, 4].
    fn dsa_pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]);
    /// BitUnpack(s, η, η); returns whether every value was in [−η, η] (checked without
    /// branching on the values).
    fn dsa_unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool;

    /// BitPack(z, γ1 − 1, γ1). Input in (−γ1, γ1].
    fn dsa_pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]);
    /// BitUnpack(z, γ1 − 1, γ1): output in (−γ1, γ1].
    fn dsa_unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]);

    /// SimpleBitPack(w1, 4 bits). Input in [0, 16).
    fn dsa_pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]);
}

//! `DsaSimd` (ML-DSA polynomial operations) for `Neon` and `NeonSha3`, which share them. NEON
//! code: the NTT, the pointwise products and the element-wise and rounding operations
//! (`dsa_arith`), the rejection steps of RejNTTPoly and RejBoundedPoly (`dsa_encode`), the bit
//! packing and unpacking (`dsa_pack`). Keccak, and so the
//! four-way ExpandA, ExpandS and ExpandMask, is each type's own through its `Simd` methods.

use super::{dsa_arith, dsa_encode, dsa_pack};
use crate::mldsa::ops::{DsaPoly, DsaSimd, ETA_BYTES, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES};

/// The body of the `DsaSimd` impls, the same for both types.
macro_rules! neon_dsa_ops {
    () => {
        #[inline(always)]
        fn dsa_ntt(p: &mut DsaPoly) {
            dsa_arith::ntt(p);
        }

        #[inline(always)]
        fn dsa_invntt_tomont(p: &mut DsaPoly) {
            dsa_arith::invntt_tomont(p);
        }

        /// The NTT domain is in FIPS 204's order, as sampled.
        #[inline(always)]
        fn dsa_ntt_unpack(_p: &mut DsaPoly) {}

        #[inline(always)]
        fn dsa_pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
            dsa_arith::pointwise_montgomery(r, a, b);
        }

        #[inline(always)]
        fn dsa_pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
            dsa_arith::pointwise_acc_montgomery(r, a, b);
        }

        #[inline(always)]
        fn dsa_reduce(p: &mut DsaPoly) {
            dsa_arith::reduce(p);
        }

        #[inline(always)]
        fn dsa_caddq(p: &mut DsaPoly) {
            dsa_arith::caddq_poly(p);
        }

        #[inline(always)]
        fn dsa_add(r: &mut DsaPoly, a: &DsaPoly) {
            dsa_arith::add(r, a);
        }

        #[inline(always)]
        fn dsa_sub(r: &mut DsaPoly, a: &DsaPoly) {
            dsa_arith::sub(r, a);
        }

        #[inline(always)]
        fn dsa_shiftl(p: &mut DsaPoly) {
            dsa_arith::shiftl(p);
        }

        #[inline(always)]
        fn dsa_power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly) {
            dsa_arith::power2round(t1, t0, t);
        }

        #[inline(always)]
        fn dsa_decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
            dsa_arith::decompose(w1, w0, w);
        }

        #[inline(always)]
        fn dsa_make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize {
            dsa_arith::make_hint(h, a0, a1)
        }

        #[inline(always)]
        fn dsa_use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) {
            dsa_arith::use_hint(w1, w, h);
        }

        #[inline(always)]
        fn dsa_chk(p: &DsaPoly, bound: i32) -> bool {
            dsa_arith::chk(p, bound)
        }

        #[inline(always)]
        fn dsa_rej_uniform(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
            dsa_encode::rej_uniform(p, filled, bytes)
        }

        #[inline(always)]
        fn dsa_rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
            dsa_encode::rej_eta(p, filled, bytes)
        }

        #[inline(always)]
        fn dsa_pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) {
            dsa_pack::pack_t1(p, out);
        }

        #[inline(always)]
        fn dsa_unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) {
            dsa_pack::unpack_t1(p, bytes);
        }

        #[inline(always)]
        fn dsa_pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) {
            dsa_pack::pack_t0(p, out);
        }

        #[inline(always)]
        fn dsa_unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) {
            dsa_pack::unpack_t0(p, bytes);
        }

        #[inline(always)]
        fn dsa_pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) {
            dsa_pack::pack_eta(p, out);
        }

        #[inline(always)]
        fn dsa_unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool {
            dsa_pack::unpack_eta(p, bytes)
        }

        #[inline(always)]
        fn dsa_pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) {
            dsa_pack::pack_z(p, out);
        }

        #[inline(always)]
        fn dsa_unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) {
            dsa_pack::unpack_z(p, bytes);
        }

        #[inline(always)]
        fn dsa_pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) {
            dsa_pack::pack_w1(p, out);
        }
    };
}

impl DsaSimd for super::Neon {
    neon_dsa_ops!();
}

impl DsaSimd for super::NeonSha3 {
    neon_dsa_ops!();
}

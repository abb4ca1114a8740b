//! `DsaSimd` (ML-DSA polynomial operations) for this implementation: the NTT, its inverse,
//! the pointwise products, reduce, caddq and decompose on 512-bit vectors (`dsa_ntt`), in the
//! same NTT-domain order as `Avx2` and `Portable`; every other operation is the AVX2
//! implementation's (AVX-512 implies AVX2, which `dispatch::available` checks too). Keccak,
//! and so the eight-way ExpandA, ExpandS and ExpandMask, is this implementation's own through
//! its `Simd` methods.
//!
//! SAFETY (for every call into `dsa_ntt` below): `Avx512` is only used through
//! `dispatch::run!`, which selects it only when the CPU has AVX2, AVX-512F and AVX-512VL.

use crate::avx2::Avx2;
use crate::mldsa::ops::{DsaPoly, DsaSimd, ETA_BYTES, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES};

impl DsaSimd for super::Avx512 {
    #[inline(always)]
    fn dsa_ntt(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2, AVX-512F and AVX-512VL.
        unsafe { super::dsa_ntt::ntt(p) }
    }

    #[inline(always)]
    fn dsa_invntt_tomont(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2, AVX-512F and AVX-512VL.
        unsafe { super::dsa_ntt::invntt_tomont(p) }
    }

    #[inline(always)]
    fn dsa_ntt_unpack(p: &mut DsaPoly) {
        Avx2::dsa_ntt_unpack(p)
    }

    #[inline(always)]
    fn dsa_pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2, AVX-512F and AVX-512VL.
        unsafe { super::dsa_ntt::pointwise_montgomery(r, a, b) }
    }

    #[inline(always)]
    fn dsa_pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly]) {
        // SAFETY: see above; the CPU has AVX2, AVX-512F and AVX-512VL.
        unsafe { super::dsa_ntt::pointwise_acc_montgomery(r, a, b) }
    }

    #[inline(always)]
    fn dsa_reduce(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2, AVX-512F and AVX-512VL.
        unsafe { super::dsa_ntt::reduce(p) }
    }

    #[inline(always)]
    fn dsa_caddq(p: &mut DsaPoly) {
        // SAFETY: see above; the CPU has AVX2, AVX-512F and AVX-512VL.
        unsafe { super::dsa_ntt::caddq(p) }
    }

    #[inline(always)]
    fn dsa_add(r: &mut DsaPoly, a: &DsaPoly) {
        Avx2::dsa_add(r, a)
    }

    #[inline(always)]
    fn dsa_sub(r: &mut DsaPoly, a: &DsaPoly) {
        Avx2::dsa_sub(r, a)
    }

    #[inline(always)]
    fn dsa_shiftl(p: &mut DsaPoly) {
        Avx2::dsa_shiftl(p)
    }

    #[inline(always)]
    fn dsa_power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly) {
        Avx2::dsa_power2round(t1, t0, t)
    }

    #[inline(always)]
    fn dsa_decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) {
        // SAFETY: see above; the CPU has AVX2, AVX-512F and AVX-512VL.
        unsafe { super::dsa_ntt::decompose(w1, w0, w) }
    }

    #[inline(always)]
    fn dsa_make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize {
        Avx2::dsa_make_hint(h, a0, a1)
    }

    #[inline(always)]
    fn dsa_use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) {
        Avx2::dsa_use_hint(w1, w, h)
    }

    #[inline(always)]
    fn dsa_chk(p: &DsaPoly, bound: i32) -> bool {
        Avx2::dsa_chk(p, bound)
    }

    #[inline(always)]
    fn dsa_rej_uniform(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
        Avx2::dsa_rej_uniform(p, filled, bytes)
    }

    #[inline(always)]
    fn dsa_rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize {
        Avx2::dsa_rej_eta(p, filled, bytes)
    }

    #[inline(always)]
    fn dsa_pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) {
        Avx2::dsa_pack_t1(p, out)
    }

    #[inline(always)]
    fn dsa_unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) {
        Avx2::dsa_unpack_t1(p, bytes)
    }

    #[inline(always)]
    fn dsa_pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) {
        Avx2::dsa_pack_t0(p, out)
    }

    #[inline(always)]
    fn dsa_unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) {
        Avx2::dsa_unpack_t0(p, bytes)
    }

    #[inline(always)]
    fn dsa_pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) {
        Avx2::dsa_pack_eta(p, out)
    }

    #[inline(always)]
    fn dsa_unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool {
        Avx2::dsa_unpack_eta(p, bytes)
    }

    #[inline(always)]
    fn dsa_pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) {
        Avx2::dsa_pack_z(p, out)
    }

    #[inline(always)]
    fn dsa_unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) {
        Avx2::dsa_unpack_z(p, bytes)
    }

    #[inline(always)]
    fn dsa_pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) {
        Avx2::dsa_pack_w1(p, out)
    }
}

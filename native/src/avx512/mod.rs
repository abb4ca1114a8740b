//! AVX-512 implementation (x86-64 with AVX-512F and AVX-512VL): Keccak rewritten around
//! AVX-512's three-input logic (`vpternlogq`) and native 64-bit rotates (`vprolq`): one state
//! in 512-bit planes, four states in 256-bit registers, and eight in 512-bit ones (which the
//! ML-DSA samplers use) (`keccak`); ML-DSA's NTT, inverse NTT, pointwise products and
//! element-wise reductions on 512-bit vectors (`dsa_arith`). Everything else, ML-KEM's
//! polynomial arithmetic, sampling and encoding and the rest of ML-DSA, is the AVX2
//! implementation's: those methods forward to [`Avx2`]'s.
//!
//! `Avx512` is only ever used through `dispatch::run!`, which selects it only when the CPU has
//! AVX2 (with BMI1 and BMI2), AVX-512F and AVX-512VL (`dispatch::available`); that makes the
//! `unsafe` calls into the target-feature functions sound, and the forwarding to `Avx2` too.

mod dsa_arith;
mod keccak;

use crate::avx2::Avx2;
use crate::delegate::{calls, target_calls};
use crate::dispatch::Implementation;
use crate::mldsa::ops::{DsaPoly, DsaSimd, ETA_BYTES, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES};
use crate::simd::{KeccakX4, KeccakX8, Poly, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512;

impl Simd for Avx512 {
    const IMPLEMENTATION: Implementation = Implementation::Avx512;

    const KECCAK_X8: bool = true;

    target_calls! {
        fn keccak_f1600(state: &mut [u64; 25]) => keccak::keccak_f1600;
        fn keccak_f1600_x4(state: &mut KeccakX4) => keccak::keccak_f1600_x4;
        fn keccak_f1600_x8(state: &mut KeccakX8) => keccak::keccak_f1600_x8;
    }

    calls! {
        fn ntt(p: &mut Poly) => Avx2::ntt;
        fn invntt_tomont(p: &mut Poly) => Avx2::invntt_tomont;
        fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly])
            => Avx2::basemul_acc_montgomery;
        fn tomont(p: &mut Poly) => Avx2::tomont;
        fn reduce(p: &mut Poly) => Avx2::reduce;
        fn add(r: &mut Poly, a: &Poly) => Avx2::add;
        fn sub(r: &mut Poly, a: &Poly) => Avx2::sub;
        fn ntt_unpack(p: &mut Poly) => Avx2::ntt_unpack;
        fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) => Avx2::ntt_to_bytes;
        fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool => Avx2::ntt_from_bytes;
        fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize => Avx2::rej_uniform;
        fn cbd2(p: &mut Poly, bytes: &[u8; 128]) => Avx2::cbd2;
        fn from_msg(p: &mut Poly, m: &[u8; 32]) => Avx2::from_msg;
        fn to_msg(p: &Poly, m: &mut [u8; 32]) => Avx2::to_msg;
        fn compress(p: &Poly, d: u32, out: &mut [u8]) => Avx2::compress;
        fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) => Avx2::decompress;
    }
}

/// Keccak, and so the eight-way ExpandA, ExpandS and ExpandMask, is this implementation's own
/// through its `Simd` methods.
impl DsaSimd for Avx512 {
    target_calls! {
        fn dsa_ntt(p: &mut DsaPoly) => dsa_arith::ntt;
        fn dsa_invntt_tomont(p: &mut DsaPoly) => dsa_arith::invntt_tomont;
        fn dsa_pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly)
            => dsa_arith::pointwise_montgomery;
        fn dsa_pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly])
            => dsa_arith::pointwise_acc_montgomery;
        fn dsa_reduce(p: &mut DsaPoly) => dsa_arith::reduce;
        fn dsa_caddq(p: &mut DsaPoly) => dsa_arith::caddq;
        fn dsa_decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) => dsa_arith::decompose;
    }

    calls! {
        fn dsa_ntt_unpack(p: &mut DsaPoly) => Avx2::dsa_ntt_unpack;
        fn dsa_add(r: &mut DsaPoly, a: &DsaPoly) => Avx2::dsa_add;
        fn dsa_sub(r: &mut DsaPoly, a: &DsaPoly) => Avx2::dsa_sub;
        fn dsa_shiftl(p: &mut DsaPoly) => Avx2::dsa_shiftl;
        fn dsa_power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly)
            => Avx2::dsa_power2round;
        fn dsa_make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize
            => Avx2::dsa_make_hint;
        fn dsa_use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) => Avx2::dsa_use_hint;
        fn dsa_chk(p: &DsaPoly, bound: i32) -> bool => Avx2::dsa_chk;
        fn dsa_rej_uniform(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize
            => Avx2::dsa_rej_uniform;
        fn dsa_rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize
            => Avx2::dsa_rej_eta;
        fn dsa_pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) => Avx2::dsa_pack_t1;
        fn dsa_unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) => Avx2::dsa_unpack_t1;
        fn dsa_pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) => Avx2::dsa_pack_t0;
        fn dsa_unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) => Avx2::dsa_unpack_t0;
        fn dsa_pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) => Avx2::dsa_pack_eta;
        fn dsa_unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool
            => Avx2::dsa_unpack_eta;
        fn dsa_pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) => Avx2::dsa_pack_z;
        fn dsa_unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) => Avx2::dsa_unpack_z;
        fn dsa_pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) => Avx2::dsa_pack_w1;
    }
}

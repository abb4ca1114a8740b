//! The portable implementation: plain Rust for any target. It is also the reference the SIMD
//! implementations are tested against, and they reuse its constants and scalar loops.
//!
//! One file per concept, the same names as in the SIMD implementations (crate documentation),
//! and `modmath`, the compile-time arithmetic that builds every implementation's tables.

pub(crate) mod arith;
pub(crate) mod dsa_arith;
pub(crate) mod dsa_pack;
pub(crate) mod dsa_sample;
pub(crate) mod encode;
pub(crate) mod keccak;
pub(crate) mod modmath;
pub(crate) mod sample;

use crate::delegate::calls;
use crate::dispatch::Implementation;
use crate::mldsa::ops::{DsaPoly, DsaSimd, ETA_BYTES, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES};
use crate::simd::{KeccakX4, Poly, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Simd for Portable {
    const IMPLEMENTATION: Implementation = Implementation::Portable;

    calls! {
        fn keccak_f1600(state: &mut [u64; 25]) => keccak::keccak_f1600;
        fn keccak_f1600_x4(state: &mut KeccakX4) => keccak::keccak_f1600_x4;
        fn ntt(p: &mut Poly) => arith::ntt;
        fn invntt_tomont(p: &mut Poly) => arith::invntt_tomont;
        fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly])
            => arith::basemul_acc_montgomery;
        fn tomont(p: &mut Poly) => arith::tomont;
        fn reduce(p: &mut Poly) => arith::reduce;
        fn add(r: &mut Poly, a: &Poly) => arith::add;
        fn sub(r: &mut Poly, a: &Poly) => arith::sub;
        fn ntt_unpack(p: &mut Poly) => arith::ntt_unpack;
        fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) => encode::to_bytes12;
        fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool => encode::from_bytes12;
        fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize
            => sample::rej_uniform;
        fn cbd2(p: &mut Poly, bytes: &[u8; 128]) => sample::cbd2;
        fn from_msg(p: &mut Poly, m: &[u8; 32]) => encode::from_msg;
        fn to_msg(p: &Poly, m: &mut [u8; 32]) => encode::to_msg;
        fn compress(p: &Poly, d: u32, out: &mut [u8]) => encode::compress;
        fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) => encode::decompress;
    }
}

impl DsaSimd for Portable {
    calls! {
        fn dsa_ntt(p: &mut DsaPoly) => dsa_arith::ntt;
        fn dsa_invntt_tomont(p: &mut DsaPoly) => dsa_arith::invntt_tomont;
        fn dsa_ntt_unpack(p: &mut DsaPoly) => dsa_arith::ntt_unpack;
        fn dsa_pointwise_montgomery(r: &mut DsaPoly, a: &DsaPoly, b: &DsaPoly)
            => dsa_arith::pointwise_montgomery;
        fn dsa_pointwise_acc_montgomery(r: &mut DsaPoly, a: &[DsaPoly], b: &[DsaPoly])
            => dsa_arith::pointwise_acc_montgomery;
        fn dsa_reduce(p: &mut DsaPoly) => dsa_arith::reduce;
        fn dsa_caddq(p: &mut DsaPoly) => dsa_arith::caddq_poly;
        fn dsa_add(r: &mut DsaPoly, a: &DsaPoly) => dsa_arith::add;
        fn dsa_sub(r: &mut DsaPoly, a: &DsaPoly) => dsa_arith::sub;
        fn dsa_shiftl(p: &mut DsaPoly) => dsa_arith::shiftl;
        fn dsa_power2round(t1: &mut DsaPoly, t0: &mut DsaPoly, t: &DsaPoly)
            => dsa_arith::power2round;
        fn dsa_decompose(w1: &mut DsaPoly, w0: &mut DsaPoly, w: &DsaPoly) => dsa_arith::decompose;
        fn dsa_make_hint(h: &mut DsaPoly, a0: &DsaPoly, a1: &DsaPoly) -> usize
            => dsa_arith::make_hint;
        fn dsa_use_hint(w1: &mut DsaPoly, w: &DsaPoly, h: &DsaPoly) => dsa_arith::use_hint;
        fn dsa_chk(p: &DsaPoly, bound: i32) -> bool => dsa_arith::chk;
        fn dsa_rej_uniform(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize
            => dsa_sample::rej_uniform;
        fn dsa_rej_eta(p: &mut DsaPoly, filled: usize, bytes: &[u8]) -> usize
            => dsa_sample::rej_eta;
        fn dsa_pack_t1(p: &DsaPoly, out: &mut [u8; T1_BYTES]) => dsa_pack::pack_t1;
        fn dsa_unpack_t1(p: &mut DsaPoly, bytes: &[u8; T1_BYTES]) => dsa_pack::unpack_t1;
        fn dsa_pack_t0(p: &DsaPoly, out: &mut [u8; T0_BYTES]) => dsa_pack::pack_t0;
        fn dsa_unpack_t0(p: &mut DsaPoly, bytes: &[u8; T0_BYTES]) => dsa_pack::unpack_t0;
        fn dsa_pack_eta(p: &DsaPoly, out: &mut [u8; ETA_BYTES]) => dsa_pack::pack_eta;
        fn dsa_unpack_eta(p: &mut DsaPoly, bytes: &[u8; ETA_BYTES]) -> bool
            => dsa_pack::unpack_eta;
        fn dsa_pack_z(p: &DsaPoly, out: &mut [u8; Z_BYTES]) => dsa_pack::pack_z;
        fn dsa_unpack_z(p: &mut DsaPoly, bytes: &[u8; Z_BYTES]) => dsa_pack::unpack_z;
        fn dsa_pack_w1(p: &DsaPoly, out: &mut [u8; W1_BYTES]) => dsa_pack::pack_w1;
    }
}

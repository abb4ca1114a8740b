//! NEON implementation (aarch64). `Neon` and `NeonSha3` share every polynomial operation and
//! differ only in Keccak: `NeonSha3` uses the SHA-3 instructions (EOR3, RAX1, XAR, BCAX), and
//! is only run (by `dispatch`) on CPUs that have them.
//!
//! Advanced SIMD is part of the aarch64 baseline, so the plain NEON intrinsics need no
//! run-time check; the `unsafe` blocks are for the intrinsics (loads and stores through
//! references of the right size) and for calling the SHA-3 functions.

mod arith;
mod dsa;
mod dsa_arith;
mod dsa_encode;
mod dsa_pack;
mod encode;
mod keccak;
mod keccak_out2;

use crate::dispatch::Implementation;
use crate::simd::{KeccakX4, Poly, Simd};

/// The polynomial operations, the same for both types.
macro_rules! poly_ops {
    () => {
        #[inline(always)]
        fn ntt(p: &mut Poly) {
            arith::ntt(p);
        }

        #[inline(always)]
        fn invntt_tomont(p: &mut Poly) {
            arith::invntt_tomont(p);
        }

        #[inline(always)]
        fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
            arith::basemul_acc_montgomery(r, a, b);
        }

        #[inline(always)]
        fn tomont(p: &mut Poly) {
            arith::tomont(p);
        }

        #[inline(always)]
        fn reduce(p: &mut Poly) {
            arith::reduce(p);
        }

        #[inline(always)]
        fn add(r: &mut Poly, a: &Poly) {
            arith::add(r, a);
        }

        #[inline(always)]
        fn sub(r: &mut Poly, a: &Poly) {
            arith::sub(r, a);
        }

        #[inline(always)]
        fn ntt_unpack(p: &mut Poly) {
            arith::ntt_unpack(p);
        }

        #[inline(always)]
        fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
            encode::ntt_to_bytes(p, out);
        }

        #[inline(always)]
        fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
            encode::ntt_from_bytes(p, bytes)
        }

        #[inline(always)]
        fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize {
            encode::rej_uniform(p, filled, bytes)
        }

        #[inline(always)]
        fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
            encode::cbd2(p, bytes);
        }

        #[inline(always)]
        fn from_msg(p: &mut Poly, m: &[u8; 32]) {
            encode::from_msg(p, m);
        }

        #[inline(always)]
        fn to_msg(p: &Poly, m: &mut [u8; 32]) {
            encode::to_msg(p, m);
        }

        #[inline(always)]
        fn compress(p: &Poly, d: u32, out: &mut [u8]) {
            encode::compress(p, d, out);
        }

        #[inline(always)]
        fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
            encode::decompress(p, d, bytes);
        }
    };
}

/// Plain NEON.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon;

impl Simd for Neon {
    const IMPLEMENTATION: Implementation = Implementation::Neon;

    fn keccak_f1600(state: &mut [u64; 25]) {
        keccak::x1_scalar(state);
    }

    fn keccak_f1600_x4(state: &mut KeccakX4) {
        keccak::x4_plain(state);
    }

    fn keccak_f1600_out2(state: &mut [u64; 25]) {
        keccak_out2::x1_scalar(state);
    }

    fn keccak_f1600_x4_out2(state: &mut KeccakX4) {
        keccak_out2::x4_plain(state);
    }

    poly_ops!();
}

/// NEON with the SHA-3 instructions for Keccak.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonSha3;

impl Simd for NeonSha3 {
    const IMPLEMENTATION: Implementation = Implementation::NeonSha3;

    fn keccak_f1600(state: &mut [u64; 25]) {
        // SAFETY: `NeonSha3` only runs (through `dispatch`) on CPUs with the SHA-3
        // instructions.
        unsafe { keccak::x1_sha3(state) }
    }

    fn keccak_f1600_x4(state: &mut KeccakX4) {
        // SAFETY: as above.
        unsafe { keccak::x4_sha3(state) }
    }

    fn keccak_f1600_out2(state: &mut [u64; 25]) {
        // SAFETY: as above.
        unsafe { keccak_out2::x1_sha3(state) }
    }

    fn keccak_f1600_x4_out2(state: &mut KeccakX4) {
        // SAFETY: as above.
        unsafe { keccak_out2::x4_sha3(state) }
    }

    poly_ops!();
}

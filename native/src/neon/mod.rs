//! NEON implementation (aarch64). `Neon` and `NeonSha3` share every polynomial operation and
//! differ only in Keccak: `NeonSha3` uses the SHA-3 instructions (EOR3, RAX1, XAR, BCAX), and
//! is only run (by `dispatch`) on CPUs that have them.
//!
//! Advanced SIMD is part of the aarch64 baseline, so the plain NEON intrinsics need no
//! run-time check; the `unsafe` blocks are for the intrinsics (loads and stores through
//! references of the right size) and for calling the SHA-3 functions.

mod arith;
mod dsa_arith;
mod dsa_pack;
mod dsa_sample;
mod encode;
mod keccak;
mod keccak_lazy;
mod sample;
mod slh_keccak;
mod vector;

use crate::delegate::{dsa_arith, dsa_pack, dsa_sample, kem_arith, kem_encode, kem_sample};
use crate::dispatch::Implementation;
use crate::mldsa::ops::DsaSimd;
use crate::simd::{KeccakX2, KeccakX4, Simd};

/// Plain NEON.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon;

impl Simd for Neon {
    const IMPLEMENTATION: Implementation = Implementation::Neon;

    // Keccak by hand, not by `calls!`: `#[inline(always)]` here would inline the whole
    // permutation into every caller (a tenth more code, and other inlining decisions change).
    fn keccak_f1600(state: &mut [u64; 25]) {
        keccak_lazy::permute(state);
    }

    fn keccak_f1600_x4(state: &mut KeccakX4) {
        keccak::x4_plain(state);
    }

    const KECCAK_X2: bool = true;

    fn keccak_f1600_x2(state: &mut KeccakX2) {
        keccak::x2_plain(state);
    }

    #[inline(always)]
    fn keccak_x4_extract(state: &KeccakX4, lanes: usize, out: [&mut [u8]; 4]) {
        keccak::extract_x4(state, lanes, out);
    }

    fn keccak_f1600_out2(state: &mut [u64; 25]) {
        keccak_lazy::permute_out2(state);
    }

    fn keccak_f1600_x4_out2(state: &mut KeccakX4) {
        slh_keccak::x4_plain(state);
    }

    kem_arith!(calls arith);
    kem_encode!(calls encode);
    kem_sample!(calls sample);
}

/// Keccak, and so the four-way ExpandA, ExpandS and ExpandMask, is each type's own through its
/// `Simd` methods.
impl DsaSimd for Neon {
    dsa_arith!(calls dsa_arith);
    dsa_sample!(calls dsa_sample);
    dsa_pack!(calls dsa_pack);
}

/// NEON with the SHA-3 instructions for Keccak.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonSha3;

impl Simd for NeonSha3 {
    const IMPLEMENTATION: Implementation = Implementation::NeonSha3;

    // By hand for the same reason as `Neon`'s.
    fn keccak_f1600(state: &mut [u64; 25]) {
        // SAFETY: `NeonSha3` only runs (through `dispatch`) on CPUs with the SHA-3
        // instructions.
        unsafe { keccak::x1_sha3(state) }
    }

    fn keccak_f1600_x4(state: &mut KeccakX4) {
        // SAFETY: as above.
        unsafe { keccak::x4_sha3(state) }
    }

    const KECCAK_X2: bool = true;

    fn keccak_f1600_x2(state: &mut KeccakX2) {
        // SAFETY: as above.
        unsafe { keccak::x2_sha3(state) }
    }

    #[inline(always)]
    fn keccak_x4_extract(state: &KeccakX4, lanes: usize, out: [&mut [u8]; 4]) {
        keccak::extract_x4(state, lanes, out);
    }

    fn keccak_f1600_out2(state: &mut [u64; 25]) {
        // SAFETY: as above.
        unsafe { slh_keccak::x1_sha3(state) }
    }

    fn keccak_f1600_x4_out2(state: &mut KeccakX4) {
        // SAFETY: as above.
        unsafe { slh_keccak::x4_sha3(state) }
    }

    kem_arith!(forward Neon);
    kem_encode!(forward Neon);
    kem_sample!(forward Neon);
}

impl DsaSimd for NeonSha3 {
    dsa_arith!(forward Neon);
    dsa_sample!(forward Neon);
    dsa_pack!(forward Neon);
}

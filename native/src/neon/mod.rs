//! NEON implementation (aarch64). PLACEHOLDER: delegates to portable until written.

use crate::dispatch::Implementation;
use crate::portable::Portable;
use crate::simd::{KeccakX4, Poly, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Neon;

impl Simd for Neon {
    const IMPLEMENTATION: Implementation = Implementation::Neon;

    fn keccak_f1600(state: &mut [u64; 25]) {
        Portable::keccak_f1600(state)
    }

    fn keccak_f1600_x4(state: &mut KeccakX4) {
        Portable::keccak_f1600_x4(state)
    }

    fn ntt(p: &mut Poly) {
        Portable::ntt(p)
    }

    fn invntt_tomont(p: &mut Poly) {
        Portable::invntt_tomont(p)
    }

    fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
        Portable::basemul_acc_montgomery(r, a, b)
    }

    fn tomont(p: &mut Poly) {
        Portable::tomont(p)
    }

    fn reduce(p: &mut Poly) {
        Portable::reduce(p)
    }

    fn add(r: &mut Poly, a: &Poly) {
        Portable::add(r, a)
    }

    fn sub(r: &mut Poly, a: &Poly) {
        Portable::sub(r, a)
    }

    fn ntt_unpack(p: &mut Poly) {
        Portable::ntt_unpack(p)
    }

    fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
        Portable::ntt_to_bytes(p, out)
    }

    fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
        Portable::ntt_from_bytes(p, bytes)
    }

    fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize {
        Portable::rej_uniform(p, filled, bytes)
    }

    fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
        Portable::cbd2(p, bytes)
    }

    fn from_msg(p: &mut Poly, m: &[u8; 32]) {
        Portable::from_msg(p, m)
    }

    fn to_msg(p: &Poly, m: &mut [u8; 32]) {
        Portable::to_msg(p, m)
    }

    fn compress(p: &Poly, d: u32, out: &mut [u8]) {
        Portable::compress(p, d, out)
    }

    fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
        Portable::decompress(p, d, bytes)
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct NeonSha3;

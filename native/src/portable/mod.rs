//! The portable implementation: plain Rust for any target. It is also the reference the SIMD
//! implementations are tested against, and they reuse its constants.

pub(crate) mod arith;
pub(crate) mod dsa;
pub(crate) mod encode;
pub(crate) mod keccak;
pub(crate) mod modmath;

use crate::dispatch::Implementation;
use crate::simd::{KeccakX4, Poly, Simd};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Simd for Portable {
    const IMPLEMENTATION: Implementation = Implementation::Portable;

    fn keccak_f1600(state: &mut [u64; 25]) {
        keccak::keccak_f1600(state);
    }

    fn keccak_f1600_x4(state: &mut KeccakX4) {
        for j in 0..4 {
            let mut one: [u64; 25] = core::array::from_fn(|i| state.lanes[i][j]);
            keccak::keccak_f1600(&mut one);
            for (lane, v) in state.lanes.iter_mut().zip(one) {
                lane[j] = v;
            }
        }
    }

    fn ntt(p: &mut Poly) {
        arith::ntt(p);
    }

    fn invntt_tomont(p: &mut Poly) {
        arith::invntt_tomont(p);
    }

    fn basemul_acc_montgomery(r: &mut Poly, a: &[Poly], b: &[Poly]) {
        arith::basemul_acc_montgomery(r, a, b);
    }

    fn tomont(p: &mut Poly) {
        arith::tomont(p);
    }

    fn reduce(p: &mut Poly) {
        arith::reduce(p);
    }

    fn add(r: &mut Poly, a: &Poly) {
        arith::add(r, a);
    }

    fn sub(r: &mut Poly, a: &Poly) {
        arith::sub(r, a);
    }

    fn ntt_unpack(_p: &mut Poly) {}

    fn ntt_to_bytes(p: &Poly, out: &mut [u8; 384]) {
        encode::to_bytes12(p, out);
    }

    fn ntt_from_bytes(p: &mut Poly, bytes: &[u8; 384]) -> bool {
        encode::from_bytes12(p, bytes)
    }

    fn rej_uniform(p: &mut Poly, filled: usize, bytes: &[u8]) -> usize {
        encode::rej_uniform(p, filled, bytes)
    }

    fn cbd2(p: &mut Poly, bytes: &[u8; 128]) {
        encode::cbd2(p, bytes);
    }

    fn from_msg(p: &mut Poly, m: &[u8; 32]) {
        encode::from_msg(p, m);
    }

    fn to_msg(p: &Poly, m: &mut [u8; 32]) {
        encode::to_msg(p, m);
    }

    fn compress(p: &Poly, d: u32, out: &mut [u8]) {
        encode::compress(p, d, out);
    }

    fn decompress(p: &mut Poly, d: u32, bytes: &[u8]) {
        encode::decompress(p, d, bytes);
    }
}

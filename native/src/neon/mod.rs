//! NEON implementation (aarch64). `Neon` and `NeonSha3` share every polynomial operation and
//! differ only in Keccak: `NeonSha3` uses the SHA-3 instructions (EOR3, RAX1, XAR, BCAX), and
//! is only run (by `dispatch`) on CPUs that have them.
//!
//! Advanced SIMD is part of the aarch64 baseline, so the plain NEON intrinsics need no
//! run-time check; the `unsafe` blocks are for the intrinsics (loads and stores through
//! references of the right size) and for calling the SHA-3 functions.

mod arith;
mod encode;
mod keccak;

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

    poly_ops!();
}

/// Instruction-count profiling of single operations (run by hand under QEMU with the
/// insncount plugin: `NEXUSQ_INSN_OP=ntt cargo test --release ... profile -- --ignored`).
#[cfg(test)]
mod profile {
    use super::*;
    use crate::simd::{N, Q};
    use std::hint::black_box;

    fn marker(kind: u64) {
        // SAFETY: an unused system call number that Linux and QEMU answer with ENOSYS; the
        // insncount plugin watches for it.
        unsafe { core::arch::asm!("svc 0", in("x8") 0x1eaf_u64, inout("x0") kind => _) }
    }

    fn run<S: Simd>(op: &str, n: usize) {
        let mut p = Poly::ZERO;
        for (i, c) in p.c.iter_mut().enumerate() {
            *c = ((i * 37) % Q as usize) as i16 - Q / 2;
        }
        let polys = [p.clone(), p.clone(), p.clone(), p.clone()];
        let mut r = Poly::ZERO;
        let mut bytes = [0u8; 512];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 91 + 7) as u8;
        }
        let mut st = [0u64; 25];
        let mut x4 = KeccakX4::ZERO;
        let mut out = [0u8; 384];
        marker(1);
        for _ in 0..n {
            match op {
                "keccak1" => S::keccak_f1600(black_box(&mut st)),
                "keccak4" => S::keccak_f1600_x4(black_box(&mut x4)),
                "ntt" => S::ntt(black_box(&mut p)),
                "invntt" => S::invntt_tomont(black_box(&mut p)),
                "basemul3" => {
                    S::basemul_acc_montgomery(&mut r, &polys[..3], black_box(&polys[1..]))
                }
                "basemul4" => S::basemul_acc_montgomery(&mut r, &polys, black_box(&polys)),
                "reduce" => S::reduce(black_box(&mut p)),
                "tomont" => S::tomont(black_box(&mut p)),
                "add" => S::add(black_box(&mut r), &p),
                "unpack" => S::ntt_unpack(black_box(&mut p)),
                "tobytes" => S::ntt_to_bytes(black_box(&p), &mut out),
                "frombytes" => {
                    black_box(S::ntt_from_bytes(
                        black_box(&mut r),
                        (&bytes[..384]).try_into().unwrap(),
                    ));
                }
                "rej" => {
                    black_box(S::rej_uniform(black_box(&mut r), 0, &bytes[..504]));
                }
                "cbd2" => S::cbd2(black_box(&mut r), (&bytes[..128]).try_into().unwrap()),
                "frommsg" => S::from_msg(black_box(&mut r), (&bytes[..32]).try_into().unwrap()),
                "tomsg" => S::to_msg(black_box(&p), (&mut out[..32]).try_into().unwrap()),
                "c4" => S::compress(black_box(&p), 4, &mut out[..128]),
                "c5" => S::compress(black_box(&p), 5, &mut out[..160]),
                "c10" => S::compress(black_box(&p), 10, &mut out[..320]),
                "c11" => S::compress(black_box(&p), 11, &mut out[..352]),
                "d4" => S::decompress(black_box(&mut r), 4, &bytes[..128]),
                "d5" => S::decompress(black_box(&mut r), 5, &bytes[..160]),
                "d10" => S::decompress(black_box(&mut r), 10, &bytes[..320]),
                "d11" => S::decompress(black_box(&mut r), 11, &bytes[..352]),
                _ => panic!("unknown op {op}"),
            }
        }
        marker(2);
        black_box((&p, &r, &st, &x4, &out));
        let _ = N;
    }

    #[test]
    #[ignore]
    fn profile() {
        let op = std::env::var("NEXUSQ_INSN_OP").unwrap_or_default();
        let n: usize = std::env::var("NEXUSQ_INSN_N").map_or(0, |s| s.parse().unwrap());
        let imp = std::env::var("NEXUSQ_INSN_IMPL").unwrap_or_default();
        if imp == "neon-sha3" {
            crate::dispatch::with_implementation(Implementation::NeonSha3, || {
                crate::dispatch::run!(|S| run::<S>(&op, n))
            });
        } else {
            crate::dispatch::with_implementation(Implementation::Neon, || {
                crate::dispatch::run!(|S| run::<S>(&op, n))
            });
        }
    }
}

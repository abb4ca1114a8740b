//! `nexusq-native`: nexusq's own ML-KEM (FIPS 203), ML-DSA-65 (FIPS 204) and
//! SLH-DSA-SHAKE-128f (FIPS 205), written once over small vector-operations traits
//! (`simd::Simd`; `mldsa::ops::DsaSimd`, which extends it) with `portable`, `avx2` and `avx512`
//! (x86-64), and `neon` and `neon-sha3` (aarch64) implementations, chosen once at run time
//! (docs/security.md, section 8).
//!
//! # Shape
//!
//! ```text
//! Implementation, available(), selected(), with_implementation(imp, f)
//! mlkem768 / mlkem1024:
//!     EncapsulationKey::from_bytes   length + FIPS 203 modulus check
//!     DecapsulationKey::from_bytes   length + FIPS 203 hash check
//!     keygen_internal(d, z)          -> (EncapsulationKey, DecapsulationKey)
//!     encapsulate_internal(ek, m)    -> (Ciphertext, SharedSecret)
//!     decapsulate(dk, ct)            -> SharedSecret (implicit rejection)
//! mldsa65:
//!     VerifyingKey / SigningKey / Signature::from_bytes   length (+ s1, s2 range) checks
//!     keygen_internal(xi)            -> (VerifyingKey, SigningKey)
//!     sign(sk, msg, ctx, rnd)        -> Result<Signature> (pure ML-DSA; rnd = 0: deterministic)
//!     sign_internal(sk, m_prime, rnd), sign_mu(sk, mu, rnd)   for the vectors / external μ
//!     verify(vk, msg, ctx, sig), verify_internal, verify_mu   -> bool
//! slhdsa_shake128f:
//!     VerifyingKey / SigningKey / Signature::from_bytes   length checks
//!     keygen_internal(sk_seed, sk_prf, pk_seed) -> (VerifyingKey, SigningKey)
//!     sign(sk, msg, ctx, addrnd)     -> Result<Signature> (pure; addrnd None: deterministic)
//!     sign_internal(sk, m_prime, addrnd), verify_internal(vk, m_prime, sig)   for the vectors
//!     verify(vk, msg, ctx, sig)      -> bool
//! ```
//!
//! SLH-DSA is nothing but SHAKE256 calls; it uses only the implementations' Keccak
//! permutations, four or eight states at a time (`slhdsa`), and a one-block variant that
//! returns two lanes (`Simd::keccak_f1600_out2`; NEON's own in `slh_keccak.rs`).
//!
//! Every function computes the same bytes whichever implementation runs; the tests force each
//! implementation this CPU has and compare them with the known-answer vectors and the `ml-kem`,
//! `ml-dsa` and `slh-dsa` crates.
//!
//! # Layout: one file per concept in every implementation
//!
//! The algorithms (`mlkem/`, `mldsa/`, `slhdsa/`) are written once over the traits. Each implementation
//! is a folder (`portable/`, `avx2/`, `avx512/`, `neon/`) with the same file name for the same
//! concept (as in libcrux); an implementation that has no code of its own for a concept has
//! no such file and forwards those trait methods to one that does.
//!
//! | file | concept | portable | avx2 | avx512 | neon |
//! |---|---|:-:|:-:|:-:|:-:|
//! | `mod.rs` | the type(s) and their trait impls | ✓ | ✓ | ✓ | ✓ |
//! | `vector.rs` | loads, stores, shared shuffles | – | ✓ | – | ✓ |
//! | `keccak.rs` | Keccak-f\[1600\] | ✓ | ✓ | ✓ | ✓ |
//! | `arith.rs` | ML-KEM NTT and arithmetic | ✓ | ✓ | avx2 | ✓ |
//! | `encode.rs` | ML-KEM encoding | ✓ | ✓ | avx2 | ✓ |
//! | `sample.rs` | ML-KEM sampling | ✓ | ✓ | avx2 | ✓ |
//! | `dsa_arith.rs` | ML-DSA NTT, arithmetic, rounding | ✓ | ✓ | ✓ ¹ | ✓ |
//! | `dsa_sample.rs` | ML-DSA sampling | ✓ | ✓ ² | avx2 | ✓ |
//! | `dsa_pack.rs` | ML-DSA bit packing | ✓ | ✓ | avx2 | ✓ |
//! | `modmath.rs` | compile-time arithmetic for tables | ✓ | – | – | – |
//! | `slh_keccak.rs` | SLH-DSA's one-block, two-lane-output Keccak | ³ | ³ | ³ | ✓ |
//!
//! - `mod.rs`: the `Simd` and `DsaSimd` impls are one `fn signature => function;` line per
//!   method, for the macros of `delegate.rs`: `calls!` (safe functions) and `target_calls!`
//!   (functions compiled with target features; the macro holds the one `unsafe` block).
//! - `vector.rs`: the one copy of the implementation's loads and stores between memory and
//!   registers, and of the register shuffles that more than one file needs (AVX2's 8 × 8
//!   transpose, used by both NTTs).
//! - `keccak.rs`: one state, two (NEON), four, and (AVX-512) eight at once, and the squeezed
//!   block of four states as bytes (`keccak_x4_extract`: AVX2 and NEON).
//! - `arith.rs`: the NTT, inverse NTT, base multiplication, tomont, reduce, add, sub, and the
//!   implementation's NTT-domain order (`ntt_unpack`).
//! - `encode.rs`: ByteEncode₁₂ / ByteDecode₁₂ of NTT-domain polynomials, Compress /
//!   Decompress, messages.
//! - `sample.rs`: SampleNTT's rejection step and SamplePolyCBD₂.
//! - `dsa_arith.rs`: the NTT, inverse NTT, pointwise products, reduce, caddq, add, sub,
//!   shiftl, Power2Round, Decompose, MakeHint, UseHint and the norm check.
//! - `dsa_sample.rs`: the rejection steps of RejNTTPoly and RejBoundedPoly.
//! - `dsa_pack.rs`: bit packing and unpacking of t1, t0, η, z and w1.
//! - `modmath.rs`: the modular arithmetic that builds every implementation's constant tables.
//! - `slh_keccak.rs`: `keccak_f1600_out2` and its four-way form (lanes 17 to 24 zero on input,
//!   only lanes 0 and 1 of the output computed in the last round).
//!
//! "avx2": that implementation has no file for the concept and forwards those methods to
//! `Avx2`'s. ¹ The NTT, inverse NTT, pointwise products, reduce, caddq and Decompose on
//! 512-bit vectors; the rest forwarded to `Avx2`. ² RejNTTPoly's step; RejBoundedPoly's
//! (secret input) is the portable function. `Neon` and `NeonSha3` share `neon/` and differ
//! only in their Keccak. ³ The trait's default body (the whole permutation).
//!
//! New code follows the table: work for an existing concept goes into that concept's file of
//! each implementation (speed work, say), a helper that two files of one implementation
//! need goes into its `vector.rs` (not a second copy), and a new algorithm (as
//! `slhdsa/` was) is a folder beside `mlkem/` and `mldsa/` written over the traits, whose vector
//! operations, if it needs its own, become trait methods with one file per implementation
//! named with its prefix, as `dsa_` is ML-DSA's.
//!
//! # Unsafe code
//!
//! The only `unsafe` code is in the SIMD modules (intrinsics, and the loads and stores of their
//! `vector.rs`), in `delegate::target_calls!` (one block for every call of a function compiled
//! with target features, which [`dispatch`] has checked the CPU has) and in `dispatch::run!`.

#[cfg(test)]
mod conformance;
mod ct;
mod delegate;
mod dispatch;
mod error;
mod keccak;
mod mldsa;
mod mlkem;
mod portable;
mod secret;
mod simd;
mod slhdsa;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;

#[doc(hidden)]
pub use ct::classify;
pub use dispatch::{Implementation, available, selected, with_implementation};
pub use error::Error;
pub use mldsa::mldsa65;
pub use mlkem::{mlkem768, mlkem1024};
pub use slhdsa::slhdsa_shake128f;

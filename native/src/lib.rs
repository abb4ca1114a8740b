//! `nexusq-native`: nexusq's own ML-KEM (FIPS 203), ML-DSA-65 (FIPS 204) and
//! SLH-DSA-SHAKE-128f (FIPS 205), written once over small vector-operations traits (`simd::Simd`; `mldsa::ops::DsaSimd`, which extends it)
//! with `portable`, `avx2` and `avx512` (x86-64), and
//! `neon` and `neon-sha3` (aarch64) implementations, chosen once at run time (DESIGN.md
//! section 7).
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
//! permutations, four or eight states at a time (`slhdsa`).
//!
//! ML-DSA's polynomial operations are portable on every implementation for now (the SIMD
//! ones borrow them in their `dsa.rs`); their Keccak, including the four-way ExpandA,
//! ExpandS and ExpandMask, is their own.
//!
//! Every function computes the same bytes whichever implementation runs; the tests force each
//! implementation this CPU has and compare them with the known-answer vectors and the `ml-kem`
//! crate.
//!
//! The only `unsafe` code is in the SIMD modules: intrinsics, and calls into functions compiled
//! with target features that [`dispatch`] has checked the CPU has.

#[cfg(test)]
mod conformance;
mod dispatch;
mod error;
mod keccak;
mod mldsa;
mod mlkem;
mod portable;
mod simd;
mod slhdsa;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;

pub use dispatch::{Implementation, available, selected, with_implementation};
pub use error::Error;
pub use mldsa::mldsa65;
pub use mlkem::{mlkem768, mlkem1024};
pub use slhdsa::slhdsa_shake128f;

//! `nexusq-native`: nexusq's own ML-KEM (FIPS 203), written once over a small
//! vector-operations trait (`simd::Simd`) with `portable`, `avx2` and `avx512` (x86-64), and
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
//! ```
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
mod mlkem;
mod portable;
mod simd;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;

pub use dispatch::{Implementation, available, selected, with_implementation};
pub use error::Error;
pub use mlkem::{mlkem768, mlkem1024};

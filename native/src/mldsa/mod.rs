//! ML-DSA (FIPS 204): the algorithms, written once over [`ops::DsaSimd`] (which extends
//! [`crate::simd::Simd`], whose Keccak they use), and the public API for ML-DSA-65.

mod api;
#[cfg(test)]
mod conformance;
mod encode;
mod keygen;
pub(crate) mod ops;
mod params;
mod sample;
mod sign;
mod verify;

pub use api::mldsa65;

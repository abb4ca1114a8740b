//! ML-KEM (FIPS 203): the algorithms, written once over [`crate::simd::Simd`], and the public
//! API for ML-KEM-768 and ML-KEM-1024.

mod api;
mod check;
mod kem;
mod kpke;
mod sample;

pub use api::{mlkem768, mlkem1024};

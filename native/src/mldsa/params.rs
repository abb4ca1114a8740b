//! ML-DSA-65 parameters (FIPS 204 table 1) and the sizes derived from them.

use super::ops::{ETA_BYTES, T0_BYTES, T1_BYTES, Z_BYTES};

/// Rows of A (length of t, s2, w).
pub(crate) const K: usize = 6;
/// Columns of A (length of s1, y, z).
pub(crate) const L: usize = 5;
/// Number of ±1 coefficients of the challenge c.
pub(crate) const TAU: usize = 49;
/// β = τ · η.
pub(crate) const BETA: i32 = 196;
/// Maximum number of hint bits.
pub(crate) const OMEGA: usize = 55;
/// Bytes of the commitment hash c̃ (λ/4).
pub(crate) const CTILDE_BYTES: usize = 48;

pub(crate) const PK_BYTES: usize = 32 + K * T1_BYTES;
pub(crate) const SK_BYTES: usize = 32 + 32 + 64 + (L + K) * ETA_BYTES + K * T0_BYTES;
pub(crate) const SIG_BYTES: usize = CTILDE_BYTES + L * Z_BYTES + OMEGA + K;

const _: () = assert!(PK_BYTES == 1952 && SK_BYTES == 4032 && SIG_BYTES == 3309);

//! `DsaSimd` (ML-DSA polynomial operations) for this implementation: for now every operation
//! is the portable one; Keccak, and so the four-way ExpandA, ExpandS and ExpandMask, is this
//! implementation's own through its `Simd` methods.

use crate::mldsa::ops::{DsaPoly, DsaSimd, ETA_BYTES, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES};
use crate::portable::dsa::portable_dsa_ops;

impl DsaSimd for super::Avx2 {
    portable_dsa_ops!();
}

//! `DsaSimd` for the implementations that have no ML-DSA polynomial code of their own yet:
//! every operation is the portable one, while Keccak (and so the four-way ExpandA, ExpandS
//! and ExpandMask) is the implementation's own, through its `Simd` methods. Replacing one of
//! these with real vector code means deleting its line here and implementing `DsaSimd` in
//! the implementation's module.

#[allow(unused_imports)]
use super::ops::{DsaPoly, DsaSimd, ETA_BYTES, T0_BYTES, T1_BYTES, W1_BYTES, Z_BYTES};
#[allow(unused_imports)]
use crate::portable::dsa::portable_dsa_ops;

#[cfg(target_arch = "x86_64")]
impl DsaSimd for crate::avx2::Avx2 {
    portable_dsa_ops!();
}

#[cfg(target_arch = "x86_64")]
impl DsaSimd for crate::avx512::Avx512 {
    portable_dsa_ops!();
}

#[cfg(target_arch = "aarch64")]
impl DsaSimd for crate::neon::Neon {
    portable_dsa_ops!();
}

#[cfg(target_arch = "aarch64")]
impl DsaSimd for crate::neon::NeonSha3 {
    portable_dsa_ops!();
}

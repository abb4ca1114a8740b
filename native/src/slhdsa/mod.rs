//! SLH-DSA-SHAKE-128f (FIPS 205): the algorithms, written once over [`crate::simd::Simd`]'s
//! Keccak permutations, and the public API.
//!
//! Nearly all the work is SHAKE256 on inputs of one block (F, H, PRF) or five (T_l), so the
//! algorithms are arranged to run W independent hashes at once on the W-way Keccak: WOTS+
//! public keys W key pairs at a time (every chain step of W leaves in one permutation), FORS
//! leaves and each level of all 33 FORS trees W nodes at a time, and the verifier's 35 chains
//! W at a time. W is 8 where the implementation has a native eight-way permutation
//! (`Simd::KECCAK_X8`), else 4 (on NEON, two two-way permutations).
//!
//! Side channels: the secrets (SK.seed, SK.prf and the values derived from them) only ever
//! enter Keccak; no table is indexed and no branch is taken on them. The branches on the FORS
//! leaf indices, idx_tree, idx_leaf and the WOTS+ chain positions depend on H_msg's output
//! and the roots, which the signature reveals.

mod adrs;
mod api;
mod fors;
mod hash;
mod params;
mod sign;
#[cfg(test)]
mod tests;
mod wots;
mod xmss;

pub use api::slhdsa_shake128f;

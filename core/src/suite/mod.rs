//! The cryptographic suites nexusq uses, and the backend that computes ML-KEM and ML-DSA.
//!
//! Nothing here knows about files or prints. `identity` and `vault` call in with seeds and get
//! public keys, signatures and shared secrets back.

pub mod backend;
pub mod hybrid_kem;
pub mod hybrid_sig;
pub mod native;
pub mod root_sig;
pub mod rustcrypto;

pub use backend::Backend;

/// Which backend computes ML-KEM and ML-DSA. The command line maps `--backend` and
/// `$NEXUSQ_BACKEND` onto this; nothing here parses names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// The RustCrypto crates (the default).
    #[default]
    RustCrypto,
    /// `nexusq-native`, with SIMD chosen at run time; the same bytes.
    Native,
}

impl BackendChoice {
    /// The backend to compute with.
    pub fn backend(self) -> crate::error::Result<&'static dyn Backend> {
        match self {
            BackendChoice::RustCrypto => Ok(&rustcrypto::RustCrypto),
            BackendChoice::Native => Ok(&native::Native),
        }
    }
}

/// Suite identifiers (u16, big-endian on the wire). Documented in docs/identity-format.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuiteId {
    /// X-Wing: ML-KEM-768 + X25519 (draft-connolly-cfrg-xwing-kem).
    MlKem768X25519,
    /// ML-KEM-1024 + X25519, nexusq-specific combiner label.
    MlKem1024X25519,
    /// ML-DSA-65 + Ed25519 composite (draft-ietf-lamps-pq-composite-sigs).
    MlDsa65Ed25519,
    /// SLH-DSA-SHAKE-128f, the root key.
    SlhDsaShake128f,
}

impl SuiteId {
    /// Every suite, in id order.
    pub const ALL: [SuiteId; 4] = [
        SuiteId::MlKem768X25519,
        SuiteId::MlKem1024X25519,
        SuiteId::MlDsa65Ed25519,
        SuiteId::SlhDsaShake128f,
    ];

    /// The id on the wire.
    pub fn to_u16(self) -> u16 {
        match self {
            SuiteId::MlKem768X25519 => 0x0001,
            SuiteId::MlKem1024X25519 => 0x0002,
            SuiteId::MlDsa65Ed25519 => 0x0011,
            SuiteId::SlhDsaShake128f => 0x0021,
        }
    }

    /// The suite of a wire id; `None` for an unknown one.
    pub fn from_u16(v: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.to_u16() == v)
    }

    /// The name users type and see.
    pub fn name(self) -> &'static str {
        match self {
            SuiteId::MlKem768X25519 => "mlkem768-x25519",
            SuiteId::MlKem1024X25519 => "mlkem1024-x25519",
            SuiteId::MlDsa65Ed25519 => "mldsa65-ed25519",
            SuiteId::SlhDsaShake128f => "slh-dsa-shake-128f",
        }
    }

    /// Length of this suite's public key in bytes.
    pub(crate) fn public_key_len(self) -> usize {
        match self {
            SuiteId::MlKem768X25519 => hybrid_kem::XWING_PUBLIC_KEY_LEN,
            SuiteId::MlKem1024X25519 => hybrid_kem::MLKEM1024_X25519_PUBLIC_KEY_LEN,
            SuiteId::MlDsa65Ed25519 => hybrid_sig::PUBLIC_KEY_LEN,
            SuiteId::SlhDsaShake128f => root_sig::PUBLIC_KEY_LEN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_are_distinct() {
        for s in SuiteId::ALL {
            assert_eq!(SuiteId::from_u16(s.to_u16()), Some(s));
        }
        assert_eq!(SuiteId::from_u16(0), None);
    }
}

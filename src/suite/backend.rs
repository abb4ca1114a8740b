//! The one small interface between `suite` and the ML-KEM / ML-DSA implementations
//! (DESIGN.md section 7). Everything else (X25519, Ed25519, SLH-DSA, AES-GCM, Argon2id) is
//! shared by both backends and lives in `suite` directly.

use crate::error::{Error, Result};

/// ML-KEM and ML-DSA from seeds, as FIPS 203/204 internal functions, so both backends produce
/// identical bytes.
pub trait Backend: Sync {
    fn name(&self) -> &'static str;
    /// ML-KEM-768 KeyGen_internal(d, z): the encapsulation key (1184 bytes).
    fn mlkem768_keygen(&self, d: &[u8; 32], z: &[u8; 32]) -> Vec<u8>;
    /// ML-KEM-1024 KeyGen_internal(d, z): the encapsulation key (1568 bytes).
    fn mlkem1024_keygen(&self, d: &[u8; 32], z: &[u8; 32]) -> Vec<u8>;
    /// ML-DSA-65 KeyGen_internal(xi): the verifying key (1952 bytes).
    fn mldsa65_keygen(&self, xi: &[u8; 32]) -> Vec<u8>;
}

/// Which backend the user asked for (`--backend`, `$NEXUSQ_BACKEND`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    #[default]
    RustCrypto,
    Native,
}

impl BackendChoice {
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "rustcrypto" => Ok(BackendChoice::RustCrypto),
            "native" => Ok(BackendChoice::Native),
            other => Err(Error::usage(
                format!("unknown backend {other:?}"),
                "use --backend rustcrypto or --backend native",
            )),
        }
    }

    /// The backend to compute with. The native backend is not part of this build yet.
    pub fn backend(self) -> Result<&'static dyn Backend> {
        match self {
            BackendChoice::RustCrypto => Ok(&super::rustcrypto::RustCrypto),
            BackendChoice::Native => Err(Error::usage(
                "the native backend is not available in this version of nexusq",
                "use --backend rustcrypto (the default), or unset NEXUSQ_BACKEND",
            )),
        }
    }
}

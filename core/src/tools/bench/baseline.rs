//! The 12-row baseline table (BENCHMARKS.md, "Baseline table"): what `nexusq bench` and
//! `cargo bench -p nexusq-core --bench crypto_baseline` measure, in this order, with these names.

use super::ops::{self, Op};
use super::scratch::ThrowawayVault;
use super::stats::{Summary, summarize};
use crate::error::Result;
use crate::suite::Backend;
use crate::suite::hybrid_kem::KemLevel;
use crate::vault::KdfParams;
use std::time::Duration;

/// Bytes per AES-256-GCM sample: one chunk of nexusq's file encryption.
pub(crate) const AES_CHUNK_LEN: usize = crate::format::nexusq::CHUNK_LEN;

/// Crypto operations, or operations on the throwaway vault (fewer samples: each one runs
/// Argon2id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An operation of the hybrid KEMs, signatures or AES-GCM.
    Crypto,
    /// An operation on the throwaway vault.
    Vault,
}

/// The rows: name, kind, and what one sample includes.
pub const ROWS: [(&str, Kind, &str); 12] = [
    (
        "ML-KEM-768 + X25519 keygen",
        Kind::Crypto,
        "X-Wing public key from a 32-byte seed: SHAKE256 expansion + ML-KEM-768 keygen (backend) + X25519 base-point multiplication",
    ),
    (
        "ML-KEM-1024 + X25519 encaps",
        Kind::Crypto,
        "FIPS 203 key check + ML-KEM-1024 encaps (backend) + 2 X25519 + SHA3-256 combiner; randomness drawn before timing",
    ),
    (
        "ML-KEM-1024 + X25519 decaps",
        Kind::Crypto,
        "with the key expanded once, as an unlocked vault keeps it: ML-KEM-1024 decaps (backend) + one X25519 + combiner",
    ),
    (
        "ML-DSA-65 keygen",
        Kind::Crypto,
        "verifying key from a 32-byte seed (backend mldsa65_keygen)",
    ),
    (
        "SLH-DSA-SHAKE-128f keygen",
        Kind::Crypto,
        "root public key from 48 bytes of seeds (backend slhdsa_keygen: hypertree top-layer root)",
    ),
    (
        "Ed25519 sign",
        Kind::Crypto,
        "one 184-byte message (nexusq's composite message representative), key already expanded",
    ),
    (
        "Ed25519 verify",
        Kind::Crypto,
        "strict verification of that signature, key already decoded",
    ),
    (
        "AES-256-GCM encrypt",
        Kind::Crypto,
        "one 64 KiB chunk in place, with tag",
    ),
    (
        "AES-256-GCM decrypt",
        Kind::Crypto,
        "one 64 KiB chunk in place, tag checked",
    ),
    (
        "Vault open",
        Kind::Vault,
        "read the file + SHA-256 checksum + parse, no password",
    ),
    (
        "Vault unlock",
        Kind::Vault,
        "Argon2id + HKDF + AES-256-GCM of the secret section + parse + key check (every public key re-derived from its seed); file already read",
    ),
    (
        "Identity key rotation",
        Kind::Vault,
        "vault::rotate from generation 1 to 2 (the vault restored before each sample): lock + read + unlock (Argon2id, key check) + the three keygens + the SLH-DSA certificate signature + re-seal + atomic save with fsyncs",
    ),
];

/// The row names in order.
pub fn names() -> [&'static str; 12] {
    ROWS.map(|(name, _, _)| name)
}

/// A row's name as the evidence records split it: the algorithm (or the thing operated on)
/// and the operation, "ML-KEM-768 + X25519" and "keygen", "Identity" and "key rotation".
pub(crate) fn algorithm_and_operation(name: &str) -> (&str, &str) {
    match name.strip_suffix(" key rotation") {
        Some(what) => (what, "key rotation"),
        None => name.rsplit_once(' ').unwrap_or((name, "")),
    }
}

/// How much to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Samples per crypto operation.
    pub iterations: u32,
    /// Samples per vault operation.
    pub vault_iterations: u32,
    /// Unmeasured runs before sampling, per operation.
    pub warmup: u32,
    /// Argon2id parameters of the throwaway vault.
    pub kdf: KdfParams,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            iterations: 20,
            vault_iterations: 3,
            warmup: 2,
            kdf: KdfParams::for_new_vault(),
        }
    }
}

/// One measured row.
#[derive(Clone, Debug)]
pub struct Row {
    /// The row's name, as [`ROWS`] lists it.
    pub name: &'static str,
    /// Crypto or vault.
    pub kind: Kind,
    /// What one sample includes.
    pub includes: &'static str,
    /// Statistics of the samples.
    pub summary: Summary,
    /// Every sample, in the order taken.
    pub samples: Vec<Duration>,
}

/// The measured table.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// The backend measured.
    pub backend: &'static str,
    /// How much was measured.
    pub config: Config,
    /// The 12 rows, in [`ROWS`] order.
    pub rows: Vec<Row>,
}

/// Where a run is: about to measure (or prepare) row `index` (1-based) of `total`.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// "measuring", or "preparing" for the throwaway vault's setup.
    pub verb: &'static str,
    /// The row's name.
    pub what: &'a str,
    /// Which row, from 1.
    pub index: usize,
    /// How many rows there are.
    pub total: usize,
}

/// Measure the 12 rows, one operation after another, with `backend` for the ML-KEM, ML-DSA
/// and SLH-DSA parts. The throwaway vault is made after the crypto rows and removed before returning.
pub fn run(
    backend: &dyn Backend,
    config: &Config,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Baseline> {
    let total = ROWS.len();
    let mut rows = Vec::with_capacity(total);
    let n = config.iterations;
    let mut crypto = [
        ops::hybrid_keygen(backend, KemLevel::MlKem768),
        ops::hybrid_encaps(backend, KemLevel::MlKem1024),
        ops::hybrid_decaps(backend, KemLevel::MlKem1024)?,
        ops::mldsa65_keygen(backend),
        ops::slh_dsa_keygen(backend),
        ops::ed25519_sign(),
        ops::ed25519_verify(),
        ops::aes_gcm_encrypt(AES_CHUNK_LEN),
        ops::aes_gcm_decrypt(AES_CHUNK_LEN),
    ];
    for op in &mut crypto {
        measure_row(op, n, config.warmup, &mut rows, progress)?;
    }
    drop(crypto);

    progress(Progress {
        verb: "preparing",
        what: "the throwaway vault",
        index: rows.len() + 1,
        total,
    });
    let vault = ThrowawayVault::create(config.kdf, backend)?;
    let n = config.vault_iterations;
    for op in &mut [
        ops::vault_open(&vault),
        ops::vault_unlock(&vault, backend),
        ops::identity_rotation(&vault, backend)?,
    ] {
        measure_row(op, n, config.warmup, &mut rows, progress)?;
    }
    drop(vault);
    Ok(Baseline {
        backend: backend.name(),
        config: *config,
        rows,
    })
}

/// Measure the next row.
fn measure_row(
    op: &mut Op<'_>,
    n: u32,
    warmup: u32,
    rows: &mut Vec<Row>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    let index = rows.len();
    let (name, kind, includes) = ROWS[index];
    debug_assert_eq!(op.name(), name);
    progress(Progress {
        verb: "measuring",
        what: name,
        index: index + 1,
        total: ROWS.len(),
    });
    let samples = ops::measure(op, warmup, n)?;
    rows.push(Row {
        name,
        kind,
        includes,
        summary: summarize(&samples),
        samples,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_design() {
        assert_eq!(
            names(),
            [
                "ML-KEM-768 + X25519 keygen",
                "ML-KEM-1024 + X25519 encaps",
                "ML-KEM-1024 + X25519 decaps",
                "ML-DSA-65 keygen",
                "SLH-DSA-SHAKE-128f keygen",
                "Ed25519 sign",
                "Ed25519 verify",
                "AES-256-GCM encrypt",
                "AES-256-GCM decrypt",
                "Vault open",
                "Vault unlock",
                "Identity key rotation",
            ]
        );
        assert_eq!(AES_CHUNK_LEN, 64 * 1024);
        let d = Config::default();
        assert_eq!((d.iterations, d.vault_iterations), (20, 3));
    }
}

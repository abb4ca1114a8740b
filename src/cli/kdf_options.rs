//! The Argon2id options (`--kdf-memory-mib`, `--kdf-iterations`, `--kdf-parallelism`,
//! `--calibrate-ms`) resolved into the library's parameters, and those parameters as `--json`
//! shows them; shared by `init`, `recover` and `vault passwd`.

use super::args::KdfArgs;
use super::error::{Error, Result};
use super::output::Output;
use std::time::Duration;

/// Turn the --kdf-* / --calibrate-ms options into parameters, starting from `base`.
pub fn kdf_params(
    out: &Output,
    args: &KdfArgs,
    base: nexusq_core::vault::KdfParams,
) -> Result<nexusq_core::vault::KdfParams> {
    use nexusq_core::vault::kdf;
    let memory_kib = match args.kdf_memory_mib {
        Some(m) => m.checked_mul(1024).ok_or_else(|| {
            Error::usage(
                format!("--kdf-memory-mib {m} is far too large"),
                "use at most 2048",
            )
        })?,
        None => base.memory_kib,
    };
    let parallelism = args.kdf_parallelism.unwrap_or(base.parallelism);
    let mut params = nexusq_core::vault::KdfParams {
        memory_kib,
        iterations: args.kdf_iterations.unwrap_or(base.iterations),
        parallelism,
    };
    params.check_bounds(kdf::device_ram_bytes()).map_err(|m| {
        Error::usage(
            m,
            "choose --kdf-memory-mib 8..2048, --kdf-iterations 1..64, --kdf-parallelism 1..16",
        )
    })?;
    if let Some(ms) = args.calibrate_ms {
        if !(1..=60_000).contains(&ms) {
            return Err(Error::usage(
                format!("--calibrate-ms {ms} is outside 1..60000"),
                "pass a target in milliseconds, e.g. --calibrate-ms 1000",
            ));
        }
        out.note(&format!(
            "calibrating Argon2id for about {ms} ms on this device..."
        ));
        let limits = kdf::CalibrationLimits {
            memory_kib: args.kdf_memory_mib.map(|_| memory_kib),
            parallelism,
            memory_cap_kib: kdf::calibration_memory_cap_kib(kdf::device_ram_bytes()),
        };
        params = kdf::calibrate(Duration::from_millis(ms), &limits)?;
        out.note(&format!("chose {}", params.describe()));
    }
    if params.is_weaker_than_default() {
        out.warn(&format!(
            "{} is weaker than the default ({}); a stolen vault is cheaper to attack",
            params.describe(),
            nexusq_core::vault::KdfParams::describe_floor()
        ));
    }
    Ok(params)
}

/// The KDF parameters as JSON.
pub fn kdf_json(p: &nexusq_core::vault::KdfParams) -> serde_json::Value {
    serde_json::json!({
        "algorithm": "argon2id",
        "version": 19,
        "memory_kib": p.memory_kib,
        "iterations": p.iterations,
        "parallelism": p.parallelism,
    })
}

//! Argon2id password hashing with the bounds of DESIGN.md section 4.

use crate::error::{Error, Result};
use crate::secret::{Password, SecretBytes};
use std::time::{Duration, Instant};

pub const ARGON2_VERSION: u32 = 0x13;
pub const SALT_LEN: usize = 32;
pub const MIN_MEMORY_KIB: u32 = 8 * 1024;
pub const MAX_MEMORY_KIB: u32 = 2 * 1024 * 1024;
pub const MAX_ITERATIONS: u32 = 64;
pub const MAX_PARALLELISM: u32 = 16;

/// Argon2id cost parameters. Memory is in KiB, as Argon2 counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfParams {
    pub memory_kib: u32,
    pub iterations: u32,
    pub parallelism: u32,
}

impl KdfParams {
    /// RFC 9106's second recommendation with one lane: 64 MiB, t = 3, p = 1.
    pub const DEFAULT: KdfParams = KdfParams {
        memory_kib: 64 * 1024,
        iterations: 3,
        parallelism: 1,
    };

    /// Below the default in any dimension: allowed, but warned about.
    pub fn is_weaker_than_default(&self) -> bool {
        self.memory_kib < Self::DEFAULT.memory_kib || self.iterations < Self::DEFAULT.iterations
    }

    /// The larger of these parameters and the default, dimension by dimension.
    pub fn at_least_default(&self) -> KdfParams {
        KdfParams {
            memory_kib: self.memory_kib.max(Self::DEFAULT.memory_kib),
            iterations: self.iterations.max(Self::DEFAULT.iterations),
            parallelism: self.parallelism.max(Self::DEFAULT.parallelism),
        }
    }

    /// The section 4 bounds, with the memory limit depending on the device's RAM. Returns a
    /// description of the first violated bound.
    pub fn check_bounds(&self, device_ram_bytes: Option<u64>) -> std::result::Result<(), String> {
        let max_mem = max_memory_kib(device_ram_bytes);
        if self.memory_kib < MIN_MEMORY_KIB || self.memory_kib > max_mem {
            return Err(format!(
                "Argon2id memory of {} KiB is outside the allowed {MIN_MEMORY_KIB}..={max_mem} KiB",
                self.memory_kib
            ));
        }
        if !(1..=MAX_ITERATIONS).contains(&self.iterations) {
            return Err(format!(
                "Argon2id iteration count {} is outside the allowed 1..={MAX_ITERATIONS}",
                self.iterations
            ));
        }
        if !(1..=MAX_PARALLELISM).contains(&self.parallelism) {
            return Err(format!(
                "Argon2id parallelism {} is outside the allowed 1..={MAX_PARALLELISM}",
                self.parallelism
            ));
        }
        Ok(())
    }

    pub fn describe(&self) -> String {
        format!(
            "Argon2id v1.3, {} MiB, t={}, p={}",
            self.memory_kib / 1024,
            self.iterations,
            self.parallelism
        )
    }
}

/// min(2 GiB, 3/4 of the RAM the device reports); 2 GiB when the RAM is unknown.
pub fn max_memory_kib(device_ram_bytes: Option<u64>) -> u32 {
    match device_ram_bytes {
        Some(ram) => {
            let three_quarters_kib = (ram / 1024).saturating_mul(3) / 4;
            MAX_MEMORY_KIB.min(u32::try_from(three_quarters_kib).unwrap_or(u32::MAX))
        }
        None => MAX_MEMORY_KIB,
    }
}

/// The RAM this device reports, if it reports any.
pub fn device_ram_bytes() -> Option<u64> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let info = rustix::system::sysinfo();
        let ram = (info.totalram as u64).saturating_mul(u64::from(info.mem_unit.max(1)));
        (ram > 0).then_some(ram)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        None
    }
}

/// Turns a password into the 32-byte vault key K. A trait so tests can cache the (slow)
/// derivation while sweeping thousands of tampered files.
pub trait KeyDerivation {
    fn derive(
        &self,
        password: &Password,
        salt: &[u8; SALT_LEN],
        params: &KdfParams,
    ) -> Result<SecretBytes<32>>;
}

/// The real Argon2id.
pub struct Argon2id;

impl KeyDerivation for Argon2id {
    fn derive(
        &self,
        password: &Password,
        salt: &[u8; SALT_LEN],
        params: &KdfParams,
    ) -> Result<SecretBytes<32>> {
        let p = argon2::Params::new(
            params.memory_kib,
            params.iterations,
            params.parallelism,
            Some(32),
        )
        .map_err(|e| {
            Error::usage(
                format!("unusable Argon2id parameters: {e}"),
                "choose other --kdf-* values",
            )
        })?;
        let a = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, p);
        let mut key = SecretBytes::<32>::zero();
        a.hash_password_into(password.as_bytes(), salt, key.expose_mut())
            .map_err(|e| {
                Error::io(
                    format!("Argon2id failed: {e}"),
                    "the device may be out of memory; close other apps and try again",
                )
            })?;
        Ok(key)
    }
}

/// Pick the iteration count that makes one derivation take about `target` on this device, with
/// the given memory and parallelism. Measures t = 1 and scales (Argon2 is linear in t).
pub fn calibrate(target: Duration, memory_kib: u32, parallelism: u32) -> Result<KdfParams> {
    let probe = KdfParams {
        memory_kib,
        iterations: 1,
        parallelism,
    };
    let password = Password::new(zeroize::Zeroizing::new("calibration".into()));
    let salt = [0u8; SALT_LEN];
    // Best of three, so one scheduling hiccup does not halve the chosen cost.
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        Argon2id.derive(&password, &salt, &probe)?;
        best = best.min(start.elapsed());
    }
    let per_iteration = best.as_secs_f64().max(1e-6);
    let t = (target.as_secs_f64() / per_iteration).round();
    Ok(KdfParams {
        iterations: (t as u32).clamp(1, MAX_ITERATIONS),
        ..probe
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        let ok = KdfParams {
            memory_kib: MIN_MEMORY_KIB,
            iterations: 1,
            parallelism: 1,
        };
        assert!(ok.check_bounds(None).is_ok());
        assert!(KdfParams::DEFAULT.check_bounds(Some(8 << 30)).is_ok());
        for bad in [
            KdfParams {
                memory_kib: MIN_MEMORY_KIB - 1,
                ..ok
            },
            KdfParams {
                memory_kib: u32::MAX,
                ..ok
            },
            KdfParams {
                iterations: 0,
                ..ok
            },
            KdfParams {
                iterations: 1_000_000,
                ..ok
            },
            KdfParams {
                parallelism: 0,
                ..ok
            },
            KdfParams {
                parallelism: 255,
                ..ok
            },
        ] {
            assert!(bad.check_bounds(None).is_err(), "{bad:?}");
        }
        // A 1 GiB phone may not be asked for 1 GiB.
        let gib = KdfParams {
            memory_kib: 1024 * 1024,
            ..ok
        };
        assert!(gib.check_bounds(Some(1 << 30)).is_err());
        assert!(gib.check_bounds(Some(4 << 30)).is_ok());
    }

    /// The RFC 9106 Argon2id vector (../shared/vectors/rfc) through the argon2 crate that
    /// `Argon2id::derive` calls, so a broken or swapped dependency is caught.
    #[test]
    fn rfc9106_argon2id_vector() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/vectors/rfc/rfc-vectors.json"
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let a = &v["argon2id_rfc9106"][0];
        let h = |k: &str| hex::decode(a[k].as_str().unwrap()).unwrap();
        let n = |k: &str| a[k].as_u64().unwrap() as u32;
        let mut builder = argon2::ParamsBuilder::new();
        builder
            .m_cost(n("memoryKiB"))
            .t_cost(n("passes"))
            .p_cost(n("parallelism"))
            .output_len(n("tagLength") as usize)
            .data(argon2::AssociatedData::new(&h("associatedData")).unwrap());
        let params = builder.build().unwrap();
        let secret = h("secret");
        let ctx = argon2::Argon2::new_with_secret(
            &secret,
            argon2::Algorithm::Argon2id,
            argon2::Version::V0x13,
            params,
        )
        .unwrap();
        let mut out = vec![0u8; n("tagLength") as usize];
        ctx.hash_password_into(&h("password"), &h("salt"), &mut out)
            .unwrap();
        assert_eq!(out, h("tag"));
    }
}

//! Argon2id password hashing with the bounds of docs/vault-format.md, "Argon2id parameters".

use crate::error::{Error, Result};
use crate::secret::{Password, SecretBytes};
use std::time::{Duration, Instant};

/// `argon2_version`: Argon2 v1.3, the only version a vault may name.
pub(crate) const ARGON2_VERSION: u32 = 0x13;
/// Length of the Argon2id salt in bytes.
pub const SALT_LEN: usize = 32;
/// Smallest Argon2id memory a vault may ask for: 8 MiB, in KiB.
pub const MIN_MEMORY_KIB: u32 = 8 * 1024;
/// Largest Argon2id memory: 2 GiB in KiB, lowered further to ¾ of the device's RAM when it is
/// known (docs/vault-format.md, "Argon2id parameters").
pub(crate) const MAX_MEMORY_KIB: u32 = 2 * 1024 * 1024;
/// Most Argon2id passes (`t`) a vault may ask for.
pub(crate) const MAX_ITERATIONS: u32 = 64;
/// Most Argon2id lanes (`p`) a vault may ask for.
pub(crate) const MAX_PARALLELISM: u32 = 16;

/// Argon2id cost parameters. Memory is in KiB, as Argon2 counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfParams {
    /// Memory `m`, in KiB.
    pub memory_kib: u32,
    /// Passes over the memory, `t`.
    pub iterations: u32,
    /// Lanes, `p`. The hash depends on them, so a vault keeps its own.
    pub parallelism: u32,
}

impl KdfParams {
    /// The cost floor: RFC 9106's second recommendation (64 MiB, t = 3), shown with one lane.
    /// New vaults use it with the lanes this device can run at once ([`KdfParams::for_new_vault`]);
    /// lanes change the time an unlock takes, not what an attacker pays per guess.
    pub const DEFAULT: KdfParams = KdfParams {
        memory_kib: 64 * 1024,
        iterations: 3,
        parallelism: 1,
    };

    /// The parameters `init` uses without `--kdf-*`: [`KdfParams::DEFAULT`] with
    /// `p = min(4, available cores)`, so an unlock uses the device's cores.
    pub fn for_new_vault() -> KdfParams {
        KdfParams {
            parallelism: default_lanes(available_cores()),
            ..Self::DEFAULT
        }
    }

    /// Less memory than the default, or less memory x passes: allowed, but warned about.
    /// (More memory with fewer passes, as `--calibrate-ms` may choose, is not weaker.)
    pub fn is_weaker_than_default(&self) -> bool {
        let d = Self::DEFAULT;
        self.memory_kib < d.memory_kib
            || u64::from(self.memory_kib) * u64::from(self.iterations)
                < u64::from(d.memory_kib) * u64::from(d.iterations)
    }

    /// The larger of these parameters and the default's memory and passes, for `vault passwd`
    /// without `--kdf-*`. The lanes stay: they are the vault's own choice (the hash depends on
    /// them) and raising them buys no resistance.
    pub(crate) fn at_least_default(&self) -> KdfParams {
        KdfParams {
            memory_kib: self.memory_kib.max(Self::DEFAULT.memory_kib),
            iterations: self.iterations.max(Self::DEFAULT.iterations),
            parallelism: self.parallelism,
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

    /// The cost floor as the "weaker than the default" warnings name it: memory and passes
    /// only, since lanes are not part of what makes parameters weaker.
    pub fn describe_floor() -> String {
        let d = Self::DEFAULT;
        format!(
            "Argon2id v1.3, {} MiB, t={}, any p",
            d.memory_kib / 1024,
            d.iterations
        )
    }

    /// One line for people, such as `Argon2id v1.3, 64 MiB, t=3, p=4`.
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
pub(crate) fn max_memory_kib(device_ram_bytes: Option<u64>) -> u32 {
    match device_ram_bytes {
        Some(ram) => {
            let three_quarters_kib = (ram / 1024).saturating_mul(3) / 4;
            MAX_MEMORY_KIB.min(u32::try_from(three_quarters_kib).unwrap_or(u32::MAX))
        }
        None => MAX_MEMORY_KIB,
    }
}

/// Lanes for a new vault on a device with `cores` cores: min(4, cores), at least 1. Four lanes
/// keep one unlock's threads few on an eight-core phone and its memory blocks large.
pub fn default_lanes(cores: usize) -> u32 {
    cores.clamp(1, 4) as u32
}

/// The cores this process may run on (1 when unknown).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most memory `--calibrate-ms` chooses: a quarter of the RAM, at most 1 GiB (and never
/// below the 8 MiB minimum).
pub fn calibration_memory_cap_kib(device_ram_bytes: Option<u64>) -> u32 {
    const GIB_KIB: u32 = 1024 * 1024;
    let quarter = device_ram_bytes.map_or(GIB_KIB, |ram| {
        u32::try_from(ram / 1024 / 4).unwrap_or(u32::MAX)
    });
    quarter.clamp(MIN_MEMORY_KIB, GIB_KIB)
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
    /// Derive K from `password` and `salt` under `params`. Fails on parameters Argon2 refuses
    /// (exit 2) or when Argon2 cannot run, for example out of memory.
    fn derive(
        &self,
        password: &Password,
        salt: &[u8; SALT_LEN],
        params: &KdfParams,
    ) -> Result<SecretBytes<32>>;
}

/// The real Argon2id.
pub struct Argon2id;

/// How many times this process ran [`Argon2id`] (tests check that a command unlocks once).
static ARGON2ID_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Argon2id {
    /// The number of derivations this process has run so far.
    pub fn runs() -> u64 {
        ARGON2ID_RUNS.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl KeyDerivation for Argon2id {
    fn derive(
        &self,
        password: &Password,
        salt: &[u8; SALT_LEN],
        params: &KdfParams,
    ) -> Result<SecretBytes<32>> {
        ARGON2ID_RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = argon2::Params::new(
            params.memory_kib,
            params.iterations,
            params.parallelism,
            Some(32),
        )
        .map_err(|e| {
            Error::usage(
                format!("unusable Argon2id parameters: {e}"),
                "choose other Argon2id costs",
            )
            .about(crate::error::Setting::KdfCosts)
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

/// What `--calibrate-ms` may choose and what it must keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CalibrationLimits {
    /// `--kdf-memory-mib`, when given: only the passes are chosen.
    pub memory_kib: Option<u32>,
    /// Lanes to use (`--kdf-parallelism`, else [`default_lanes`]).
    pub parallelism: u32,
    /// The most memory to choose ([`calibration_memory_cap_kib`]).
    pub memory_cap_kib: u32,
}

/// Choose memory and passes for `target`, given that one pass over `probe_kib` KiB took
/// `probe` (Argon2 is linear in memory and in passes). Memory first, up to the cap: it is what
/// makes guessing expensive on parallel hardware; then passes, up to 64. The memory is a whole
/// number of MiB, and enough for 8 blocks per lane as Argon2 requires.
pub fn choose_for_target(
    target: Duration,
    probe_kib: u32,
    probe: Duration,
    limits: &CalibrationLimits,
) -> KdfParams {
    let kib_per_second = f64::from(probe_kib) / probe.as_secs_f64().max(1e-6);
    // KiB x passes that fit in the target.
    let budget = kib_per_second * target.as_secs_f64();
    let floor = MIN_MEMORY_KIB.max(8 * limits.parallelism);
    let memory_kib = match limits.memory_kib {
        Some(m) => m,
        None => {
            let m = budget.min(f64::from(limits.memory_cap_kib)) as u32;
            (m / 1024 * 1024).max(floor)
        }
    };
    let passes = (budget / f64::from(memory_kib)).floor();
    KdfParams {
        memory_kib,
        iterations: (passes as u32).clamp(1, MAX_ITERATIONS),
        parallelism: limits.parallelism,
    }
}

/// Pick the parameters that make one derivation take about `target` on this device: measure
/// one pass with the chosen lanes, then [`choose_for_target`]; if that chose another memory
/// size, measure one pass there and choose once more from that rate.
pub fn calibrate(target: Duration, limits: &CalibrationLimits) -> Result<KdfParams> {
    let password = Password::new(zeroize::Zeroizing::new("calibration".into()));
    let salt = [0u8; SALT_LEN];
    let time = |p: &KdfParams| -> Result<Duration> {
        // Best of three, so one scheduling hiccup does not halve the chosen cost.
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            Argon2id.derive(&password, &salt, p)?;
            best = best.min(start.elapsed());
        }
        Ok(best)
    };
    let probe_kib = limits
        .memory_kib
        .unwrap_or(KdfParams::DEFAULT.memory_kib)
        .min(limits.memory_cap_kib);
    let probe = KdfParams {
        memory_kib: probe_kib,
        iterations: 1,
        parallelism: limits.parallelism,
    };
    let mut chosen = choose_for_target(target, probe_kib, time(&probe)?, limits);
    if chosen.memory_kib != probe_kib {
        // Memory bandwidth is not linear in the size on every device (nor is a loaded
        // machine's first probe reliable): measure one pass at the chosen size and choose
        // again from that rate, with the same memory-first rule.
        let one_pass = KdfParams {
            iterations: 1,
            ..chosen
        };
        let measured = time(&one_pass)?;
        chosen = choose_for_target(target, chosen.memory_kib, measured, limits);
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_follow_the_cores_up_to_four() {
        assert_eq!(default_lanes(0), 1);
        assert_eq!(default_lanes(1), 1);
        assert_eq!(default_lanes(2), 2);
        assert_eq!(default_lanes(4), 4);
        assert_eq!(default_lanes(8), 4);
        let p = KdfParams::for_new_vault();
        assert_eq!(p.parallelism, default_lanes(available_cores()));
        assert_eq!((p.memory_kib, p.iterations), (64 * 1024, 3));
        assert!(p.check_bounds(Some(4 << 30)).is_ok());
    }

    #[test]
    fn weaker_means_less_memory_or_less_memory_times_passes() {
        let d = KdfParams::DEFAULT;
        assert!(!d.is_weaker_than_default());
        assert!(!KdfParams::for_new_vault().is_weaker_than_default());
        let big_one_pass = KdfParams {
            memory_kib: 256 * 1024,
            iterations: 1,
            parallelism: 2,
        };
        assert!(!big_one_pass.is_weaker_than_default());
        for weak in [
            KdfParams {
                memory_kib: 32 * 1024,
                iterations: 64,
                ..d
            },
            KdfParams {
                memory_kib: 128 * 1024,
                iterations: 1,
                ..d
            },
            KdfParams { iterations: 2, ..d },
        ] {
            assert!(weak.is_weaker_than_default(), "{weak:?}");
        }
    }

    #[test]
    fn passwd_raises_memory_and_passes_but_keeps_lanes() {
        let old = KdfParams {
            memory_kib: 8 * 1024,
            iterations: 1,
            parallelism: 3,
        };
        assert_eq!(
            old.at_least_default(),
            KdfParams {
                memory_kib: 64 * 1024,
                iterations: 3,
                parallelism: 3
            }
        );
    }

    #[test]
    fn calibration_memory_cap_is_a_quarter_of_ram_at_most_1_gib() {
        assert_eq!(calibration_memory_cap_kib(Some(2 << 30)), 512 * 1024);
        assert_eq!(calibration_memory_cap_kib(Some(24 << 30)), 1024 * 1024);
        assert_eq!(calibration_memory_cap_kib(None), 1024 * 1024);
        assert_eq!(calibration_memory_cap_kib(Some(1 << 20)), MIN_MEMORY_KIB);
    }

    #[test]
    fn calibration_prefers_memory_then_passes() {
        let limits = CalibrationLimits {
            memory_kib: None,
            parallelism: 2,
            memory_cap_kib: 1024 * 1024,
        };
        // 64 MiB per pass in 50 ms: 1.28 GiB x passes per second.
        let rate = (64 * 1024, Duration::from_millis(50));
        // 500 ms: 640 MiB x passes fits; all of it goes to memory, one pass.
        let p = choose_for_target(Duration::from_millis(500), rate.0, rate.1, &limits);
        assert_eq!(
            (p.memory_kib, p.iterations, p.parallelism),
            (640 * 1024, 1, 2)
        );
        // 2 s: 2.5 GiB x passes; memory stops at the 1 GiB cap, then two passes.
        let p = choose_for_target(Duration::from_secs(2), rate.0, rate.1, &limits);
        assert_eq!((p.memory_kib, p.iterations), (1024 * 1024, 2));
        // A pinned memory leaves only the passes to choose.
        let pinned = CalibrationLimits {
            memory_kib: Some(64 * 1024),
            ..limits
        };
        let p = choose_for_target(Duration::from_millis(500), rate.0, rate.1, &pinned);
        assert_eq!((p.memory_kib, p.iterations), (64 * 1024, 10));
        // A tiny target still gives valid parameters.
        let p = choose_for_target(Duration::from_millis(1), rate.0, rate.1, &limits);
        assert_eq!((p.memory_kib, p.iterations), (MIN_MEMORY_KIB, 1));
        assert!(p.check_bounds(None).is_ok());
    }

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
        nexusq_testkit::skip_without_vectors!();
        let path = nexusq_testkit::vector_path("rfc/rfc-vectors.json");
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

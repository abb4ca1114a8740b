//! The machine a benchmark ran on: CPU model and features, OS, build facts, governor, thermals.
//! Shared with `nexusq doctor` (`cpu_features`, `cpu_model`) and with `benches/arena`, which
//! depends on this crate for it. Reads only; never prints.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The format number in every environment record. 1 was the bench-only layout (docs/evidence.md).
pub const FORMAT: u32 = 2;

/// Argon2id parameters of a throwaway vault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kdf {
    /// Always Argon2id.
    pub algorithm: KdfAlgorithm,
    /// Argon2 version: 19 (0x13).
    pub version: u32,
    /// Memory in KiB.
    pub memory_kib: u32,
    /// Passes.
    pub iterations: u32,
    /// Lanes.
    pub parallelism: u32,
}

/// The password hash a throwaway vault used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KdfAlgorithm {
    /// Argon2id, written `"argon2id"`.
    Argon2id,
}

impl From<&crate::vault::KdfParams> for Kdf {
    fn from(p: &crate::vault::KdfParams) -> Self {
        Kdf {
            algorithm: KdfAlgorithm::Argon2id,
            version: 19,
            memory_kib: p.memory_kib,
            iterations: p.iterations,
            parallelism: p.parallelism,
        }
    }
}

/// What a run measured and how much, by program and mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "lowercase", deny_unknown_fields)]
pub enum Workload {
    /// `nexusq bench`: the 12-row baseline table.
    Baseline {
        /// The backend measured (`rustcrypto`, `native`).
        backend: String,
        /// Samples per crypto operation.
        iterations: u32,
        /// Samples per vault operation (each runs Argon2id).
        vault_iterations: u32,
        /// Unmeasured runs before sampling, per operation.
        warmup: u32,
        /// The throwaway vault's Argon2id parameters.
        kdf: Kdf,
    },
    /// `nexusq bench --compare`: two backends in alternating rounds, gated.
    Compare {
        /// The backend gated against.
        baseline: String,
        /// The backend gated.
        candidate: String,
        /// Alternating rounds.
        rounds: u32,
        /// Samples per operation, backend and round.
        iterations: u32,
        /// Unmeasured runs before sampling, per operation and round.
        warmup: u32,
        /// Largest candidate / baseline ratio of the medians that passes.
        gate_median: f64,
        /// Largest candidate / baseline ratio of the p95s that passes.
        gate_p95: f64,
    },
    /// `benches/arena`: many implementations in alternating rounds.
    Arena {
        /// The implementation the arena is about ("nexusq-native").
        subject: String,
        /// Samples per (implementation, algorithm, operation) and round.
        samples: u32,
        /// Operations timed together for one sample.
        batch: u32,
        /// Alternating rounds.
        rounds: u32,
        /// Unmeasured running before the samples, in milliseconds.
        warmup_ms: u64,
        /// The operations selected (`--filter`), if not all.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filter: Option<String>,
        /// With `--gate-against`: the comparator and the gate.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gate_against: Option<String>,
        /// Largest ratio of the medians that passes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gate_median: Option<f64>,
        /// Largest ratio of the p95s that passes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gate_p95: Option<f64>,
    },
}

/// The CPU features that matter to nexusq's crypto, detected at run time: on aarch64 `aes`,
/// `pmull`, `sha3`, `asimd` (NEON); on x86-64 `aes-ni`, `avx2`, `avx512f`. Empty elsewhere.
pub fn cpu_features() -> Vec<(&'static str, bool)> {
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::is_aarch64_feature_detected as has;
        vec![
            ("aes", has!("aes")),
            ("pmull", has!("pmull")),
            ("sha3", has!("sha3")),
            ("asimd", has!("neon")),
        ]
    }
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        vec![
            ("aes-ni", has!("aes")),
            ("avx2", has!("avx2")),
            ("avx512f", has!("avx512f")),
        ]
    }
    #[cfg(not(any(target_arch = "aarch64", target_arch = "x86_64")))]
    {
        Vec::new()
    }
}

/// The CPU model from /proc/cpuinfo: "model name" (x86), else the SoC ("Hardware", where old
/// Android kernels give it) and the ARM cores by name and count, e.g.
/// "Qualcomm Technologies, Inc SM8250 (4x Cortex-A55 + 4x Cortex-A77)";
/// "unknown" when unreadable.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| cpu_model_from(&text))
        .unwrap_or_else(|| "unknown".into())
}

/// `cpu_model` over the text of /proc/cpuinfo.
pub(crate) fn cpu_model_from(cpuinfo: &str) -> Option<String> {
    let fields = |key: &'static str| {
        cpuinfo.lines().filter_map(move |line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty()).then(|| v.trim().to_string())
        })
    };
    if let Some(model) = fields("model name").next() {
        return Some(model);
    }
    // ARM: one "CPU implementer" / "CPU part" pair per core, in core order.
    let mut cores: Vec<(String, usize)> = Vec::new();
    for (implementer, part) in fields("CPU implementer").zip(fields("CPU part")) {
        let name = arm_core_name(&implementer, &part)
            .map(str::to_string)
            .unwrap_or_else(|| format!("implementer {implementer} part {part}"));
        match cores.last_mut() {
            Some((last, n)) if *last == name => *n += 1,
            _ => cores.push((name, 1)),
        }
    }
    let cores = (!cores.is_empty()).then(|| {
        cores
            .iter()
            .map(|(name, n)| format!("{n}x {name}"))
            .collect::<Vec<_>>()
            .join(" + ")
    });
    let soc = fields("Hardware")
        .next()
        .or_else(|| fields("Processor").next());
    match (soc, cores) {
        (Some(soc), Some(cores)) => Some(format!("{soc} ({cores})")),
        (soc, cores) => soc.or(cores),
    }
}

/// Names of common ARM cores by MIDR implementer and part number.
fn arm_core_name(implementer: &str, part: &str) -> Option<&'static str> {
    let num = |s: &str| u32::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok();
    Some(match (num(implementer)?, num(part)?) {
        (0x41, 0xd03) => "Cortex-A53",
        (0x41, 0xd04) => "Cortex-A35",
        (0x41, 0xd05) => "Cortex-A55",
        (0x41, 0xd07) => "Cortex-A57",
        (0x41, 0xd08) => "Cortex-A72",
        (0x41, 0xd09) => "Cortex-A73",
        (0x41, 0xd0a) => "Cortex-A75",
        (0x41, 0xd0b) => "Cortex-A76",
        (0x41, 0xd0c) => "Neoverse-N1",
        (0x41, 0xd0d) => "Cortex-A77",
        (0x41, 0xd40) => "Neoverse-V1",
        (0x41, 0xd41) => "Cortex-A78",
        (0x41, 0xd44) => "Cortex-X1",
        (0x41, 0xd46) => "Cortex-A510",
        (0x41, 0xd47) => "Cortex-A710",
        (0x41, 0xd48) => "Cortex-X2",
        (0x41, 0xd49) => "Neoverse-N2",
        (0x41, 0xd4d) => "Cortex-A715",
        (0x41, 0xd4e) => "Cortex-X3",
        (0x41, 0xd4f) => "Neoverse-V2",
        (0x41, 0xd80) => "Cortex-A520",
        (0x41, 0xd81) => "Cortex-A720",
        (0x41, 0xd82) => "Cortex-X4",
        (0x41, 0xd85) => "Cortex-X925",
        (0x41, 0xd87) => "Cortex-A725",
        (0x51, 0x800) => "Kryo 2xx Gold",
        (0x51, 0x801) => "Kryo 2xx Silver",
        (0x51, 0x802) => "Kryo 3xx Gold",
        (0x51, 0x803) => "Kryo 3xx Silver",
        (0x51, 0x804) => "Kryo 4xx Gold",
        (0x51, 0x805) => "Kryo 4xx Silver",
        (0x51, 0x001) => "Oryon",
        _ => return None,
    })
}

/// Facts fixed when nexusq was built (build.rs).
pub mod build {
    /// The target triple nexusq was built for.
    pub const TARGET: &str = env!("NEXUSQ_BUILD_TARGET");
    /// `rustc --version` of the compiler that built it.
    pub const RUSTC: &str = env!("NEXUSQ_BUILD_RUSTC");
    /// The flags cargo compiled this crate with, space-separated.
    pub const RUSTFLAGS: &str = env!("NEXUSQ_BUILD_RUSTFLAGS");
    /// `git rev-parse --short HEAD` when built, or "unknown".
    pub(crate) const GIT_REVISION: &str = env!("NEXUSQ_BUILD_GIT");
    /// nexusq-core's version.
    pub const VERSION: &str = env!("CARGO_PKG_VERSION");
    /// "name=version;..." for the crypto crates.
    const CRATES: &str = env!("NEXUSQ_BUILD_CRATES");

    /// The crypto crates and their versions, as Cargo.lock pinned them.
    pub fn crates() -> Vec<(&'static str, &'static str)> {
        CRATES
            .split(';')
            .filter_map(|pair| pair.split_once('='))
            .collect()
    }

    /// "release" or "debug" (whether debug assertions are on).
    pub fn profile() -> &'static str {
        profile_of(cfg!(debug_assertions))
    }

    /// "debug" when debug assertions are on, else "release".
    pub fn profile_of(debug_assertions: bool) -> &'static str {
        if debug_assertions { "debug" } else { "release" }
    }
}

/// The program that measured and how it was built. The arena, a workspace of its own, fills
/// this from its own build script; nexusq from `build`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Build {
    /// "nexusq bench", "nexusq-arena".
    pub program: String,
    /// The program's version.
    pub version: String,
    /// `git rev-parse --short HEAD` when built, or "unknown".
    pub git_revision: String,
    /// "release" or "debug".
    pub build_profile: String,
    /// The target triple.
    pub target: String,
    /// `rustc --version`.
    pub rustc: String,
    /// As cargo passed them, space-separated; empty when none.
    pub rustflags: String,
    /// Versions of the crates that did the measured work, from the program's Cargo.lock.
    pub crates: BTreeMap<String, String>,
}

impl Build {
    /// nexusq itself.
    pub fn nexusq() -> Self {
        Build {
            program: "nexusq bench".into(),
            version: build::VERSION.into(),
            git_revision: build::GIT_REVISION.into(),
            build_profile: build::profile().into(),
            target: build::TARGET.into(),
            rustc: build::RUSTC.into(),
            rustflags: build::RUSTFLAGS.trim().into(),
            crates: build::crates()
                .into_iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        }
    }
}

/// The kernel as `uname` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Os {
    /// Kernel name ("Linux").
    pub sysname: String,
    /// Kernel release.
    pub release: String,
    /// Kernel version string.
    pub version: String,
    /// Hardware name ("aarch64", "x86_64").
    pub machine: String,
}

/// One thermal zone's reading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thermal {
    /// "thermal_zone0", ...
    pub zone: String,
    /// The zone's type ("x86_pkg_temp", "cpu-0-0-usr", ...), "unknown" when unreadable.
    pub r#type: String,
    /// Millidegrees Celsius as the kernel reports them, "unknown" when unreadable.
    pub millicelsius: Value,
}

/// The environment record of the evidence format (docs/bench.schema.json): everything a
/// dataset says about the machine, the build and the run, read before measuring. What could
/// not be read is "unknown", never a guess.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// The evidence format's number, [`FORMAT`].
    pub format: u32,
    /// UTC start of the run, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
    /// "nexusq bench" or "nexusq-arena".
    pub program: String,
    /// The program's version.
    pub program_version: String,
    /// `git rev-parse --short HEAD` when built, or "unknown".
    pub git_revision: String,
    /// "release" or "debug".
    pub build_profile: String,
    /// The target triple.
    pub target: String,
    /// `rustc --version`.
    pub rustc: String,
    /// The flags cargo passed, space-separated; "" for none.
    pub rustflags: String,
    /// Name to version of the crates that did the measured work.
    pub crates: BTreeMap<String, String>,
    /// The CPU model from /proc/cpuinfo.
    pub cpu_model: String,
    /// Run-time detected CPU features that matter here (`aes`, `pmull`, `sha3`, `asimd`; `aes-ni`,
    /// `avx2`, `avx512f`).
    pub cpu_features: BTreeMap<String, bool>,
    /// Available parallelism.
    pub cpu_count: usize,
    /// Total RAM in bytes, or "unknown".
    pub ram_bytes: Value,
    /// The kernel, from `uname`.
    pub os: Os,
    /// `getprop ro.build.version.release`; "unknown" off Android.
    pub android_release: String,
    /// cpu0's cpufreq governor.
    pub cpu_governor: String,
    /// Every readable thermal zone.
    pub thermal: Vec<Thermal>,
    /// /proc/loadavg's 1, 5 and 15 minute averages as the run started, or "unknown".
    pub load_average: Value,
    /// nexusq-native's run-time selection on this CPU.
    pub native_selected: String,
    /// Every implementation nexusq-native can run on this CPU.
    pub native_available: Vec<String>,
    /// "ci" when $CI is set, else "local".
    pub runner: String,
    /// The program's arguments, the program itself first.
    pub command_line: Vec<String>,
    /// What was measured and how much.
    pub workload: Workload,
}

const UNKNOWN: &str = "unknown";

impl Environment {
    /// Look at this machine now. Reads files and runs `getprop` where it exists; never fails.
    pub fn collect(build: Build, workload: Workload) -> Self {
        Environment {
            format: FORMAT,
            date: crate::time::rfc3339(crate::time::now()),
            program: build.program,
            program_version: build.version,
            git_revision: build.git_revision,
            build_profile: build.build_profile,
            target: build.target,
            rustc: build.rustc,
            rustflags: build.rustflags,
            crates: build.crates,
            cpu_model: cpu_model(),
            cpu_features: cpu_features()
                .into_iter()
                .map(|(n, on)| (n.to_string(), on))
                .collect(),
            cpu_count: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ram_bytes: crate::vault::kdf::device_ram_bytes().map_or(UNKNOWN.into(), Into::into),
            os: os(),
            android_release: android_release(),
            cpu_governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
                .unwrap_or_else(|| UNKNOWN.into()),
            thermal: thermal(std::path::Path::new("/sys/class/thermal")),
            load_average: read_trimmed("/proc/loadavg")
                .and_then(|t| load_average(&t))
                .map_or(UNKNOWN.into(), |l| serde_json::json!(l)),
            native_selected: nexusq_native::selected().name().into(),
            native_available: nexusq_native::available()
                .into_iter()
                .map(|i| i.name().to_string())
                .collect(),
            runner: runner(std::env::var_os("CI").is_some()).into(),
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            workload,
        }
    }
}

/// The three averages at the start of /proc/loadavg's text.
pub(crate) fn load_average(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().map(|w| w.parse::<f64>().ok());
    let l = [it.next()??, it.next()??, it.next()??];
    l.iter().all(|x| x.is_finite() && *x >= 0.0).then_some(l)
}

/// "ci" or "local".
pub fn runner(ci_set: bool) -> &'static str {
    if ci_set { "ci" } else { "local" }
}

fn read_trimmed(path: impl AsRef<std::path::Path>) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// `uname`.
pub fn os() -> Os {
    let u = rustix::system::uname();
    let s = |c: &std::ffi::CStr| c.to_string_lossy().into_owned();
    Os {
        sysname: s(u.sysname()),
        release: s(u.release()),
        version: s(u.version()),
        machine: s(u.machine()),
    }
}

/// `getprop ro.build.version.release` where the command exists (Android), else "unknown".
pub(crate) fn android_release() -> String {
    std::process::Command::new("getprop")
        .arg("ro.build.version.release")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| UNKNOWN.into())
}

/// The readings of every `thermal_zone*` under `root`, in zone order; empty when the folder
/// cannot be listed (Android often forbids it).
pub fn thermal(root: &std::path::Path) -> Vec<Thermal> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut zones: Vec<(u32, String)> = entries
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let n = name.strip_prefix("thermal_zone")?.parse().ok()?;
            Some((n, name))
        })
        .collect();
    zones.sort();
    zones
        .into_iter()
        .map(|(_, zone)| {
            let dir = root.join(&zone);
            Thermal {
                r#type: read_trimmed(dir.join("type")).unwrap_or_else(|| UNKNOWN.into()),
                millicelsius: read_trimmed(dir.join("temp"))
                    .and_then(|t| t.parse::<i64>().ok())
                    .map_or(UNKNOWN.into(), Into::into),
                zone,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_model_fields() {
        let x86 =
            "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n";
        assert_eq!(
            cpu_model_from(x86).as_deref(),
            Some("Intel(R) Xeon(R) Processor")
        );
        let arm = "processor\t: 0\nBogoMIPS\t: 38.40\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\nprocessor\t: 1\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\nprocessor\t: 2\nCPU implementer\t: 0x41\nCPU part\t: 0xd0d\n\nHardware\t: Qualcomm Technologies, Inc SM8250\n";
        assert_eq!(
            cpu_model_from(arm).as_deref(),
            Some("Qualcomm Technologies, Inc SM8250 (2x Cortex-A55 + 1x Cortex-A77)")
        );
        let bare = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n\nprocessor\t: 1\nCPU implementer\t: 0x48\nCPU part\t: 0xd40\n";
        assert_eq!(
            cpu_model_from(bare).as_deref(),
            Some("1x Cortex-A55 + 1x implementer 0x48 part 0xd40")
        );
        let old = "Processor\t: AArch64 Processor rev 4 (aarch64)\nprocessor\t: 0\n";
        assert_eq!(
            cpu_model_from(old).as_deref(),
            Some("AArch64 Processor rev 4 (aarch64)")
        );
        assert_eq!(cpu_model_from("processor : 0\n"), None);
        assert!(!cpu_model().is_empty());
    }

    #[test]
    fn features_are_the_ones_that_matter() {
        let names: Vec<&str> = cpu_features().into_iter().map(|(n, _)| n).collect();
        #[cfg(target_arch = "x86_64")]
        assert_eq!(names, ["aes-ni", "avx2", "avx512f"]);
        #[cfg(target_arch = "aarch64")]
        assert_eq!(names, ["aes", "pmull", "sha3", "asimd"]);
        let _ = names;
    }

    #[test]
    fn thermal_zones_sorted_and_unknown_where_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        for (zone, ty, temp) in [
            ("thermal_zone10", Some("cpu"), Some("41000\n")),
            ("thermal_zone2", None, Some("garbage")),
            ("thermal_zone1", Some("battery"), Some("30500")),
        ] {
            let z = dir.path().join(zone);
            std::fs::create_dir(&z).unwrap();
            if let Some(t) = ty {
                std::fs::write(z.join("type"), t).unwrap();
            }
            if let Some(t) = temp {
                std::fs::write(z.join("temp"), t).unwrap();
            }
        }
        std::fs::create_dir(dir.path().join("cooling_device0")).unwrap();
        let t = thermal(dir.path());
        let zones: Vec<&str> = t.iter().map(|z| z.zone.as_str()).collect();
        assert_eq!(zones, ["thermal_zone1", "thermal_zone2", "thermal_zone10"]);
        assert_eq!(t[0].millicelsius, serde_json::json!(30500));
        assert_eq!(t[1].r#type, "unknown");
        assert_eq!(t[1].millicelsius, serde_json::json!("unknown"));
        assert!(thermal(&dir.path().join("missing")).is_empty());
    }

    #[test]
    fn build_facts_and_record() {
        assert!(!build::TARGET.is_empty());
        assert!(build::RUSTC.starts_with("rustc ") || build::RUSTC == "unknown");
        let crates = build::crates();
        assert!(crates.iter().any(|(n, _)| *n == "ml-kem"));
        assert_eq!(runner(true), "ci");
        assert_eq!(runner(false), "local");
        assert_eq!(
            (build::profile_of(true), build::profile_of(false)),
            ("debug", "release")
        );
        let workload = crate::tools::bench::evidence::Workload::Baseline {
            backend: "rustcrypto".into(),
            iterations: 1,
            vault_iterations: 1,
            warmup: 0,
            kdf: crate::tools::bench::evidence::Kdf::from(&crate::vault::KdfParams::DEFAULT),
        };
        let env = Environment::collect(Build::nexusq(), workload);
        assert_eq!(env.program, "nexusq bench");
        assert!(env.crates.contains_key("ml-kem"));
        assert!(!env.command_line.is_empty());
        assert!(env.native_available.contains(&env.native_selected));
        let rec = serde_json::to_value(crate::tools::bench::evidence::Record::Environment(
            Box::new(env.clone()),
        ))
        .unwrap();
        assert_eq!(rec["kind"], "environment");
        assert_eq!(rec["format"], crate::tools::bench::evidence::FORMAT);
        assert_eq!(rec["workload"]["mode"], "baseline");
        assert!(rec["os"]["sysname"].is_string());
        let back: crate::tools::bench::evidence::Record = serde_json::from_value(rec).unwrap();
        assert_eq!(
            back,
            crate::tools::bench::evidence::Record::Environment(Box::new(env))
        );
    }

    #[test]
    fn load_average_text() {
        assert_eq!(
            load_average("0.52 1.25 0.70 2/301 4242\n"),
            Some([0.52, 1.25, 0.70])
        );
        assert_eq!(load_average("0.5 x 1"), None);
        assert_eq!(load_average("0.5 1"), None);
        assert_eq!(load_average(""), None);
    }
}

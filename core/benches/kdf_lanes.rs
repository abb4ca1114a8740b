//! `cargo bench --bench kdf_lanes`: one Argon2id derivation (what an unlock pays) at 64 MiB,
//! t = 3 with p = 1, 2 and 4 lanes, in alternating rounds, then the parameters
//! `init --calibrate-ms` chooses here for the time p = 1 takes at the default, and the same
//! derivation at those. Median / p95 and the ratios to p = 1 from this one run.
//!
//! `NEXUSQ_KDF_ROUNDS` (default 5) rounds of `NEXUSQ_KDF_PER_ROUND` (default 4) samples each.

use nexusq_core::secret::Password;
use nexusq_core::tools::bench::stats::{Summary, summarize};
use nexusq_core::vault::kdf::{self, Argon2id, CalibrationLimits, KdfParams, KeyDerivation};
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn derive_once(p: &KdfParams) -> Duration {
    let password = Password::new(zeroize::Zeroizing::new("kdf lanes bench".into()));
    let salt = [7u8; kdf::SALT_LEN];
    let start = Instant::now();
    Argon2id.derive(&password, &salt, p).expect("Argon2id");
    start.elapsed()
}

fn row(name: &str, p: &KdfParams, s: &Summary, base: &Summary) {
    println!(
        "| {name:<22} | {:>5} MiB | {:>2} | {:>2} | {:>4} | {:>9.1} | {:>9.1} | {:>5.2} | {:>5.2} | {:>6.2} |",
        p.memory_kib / 1024,
        p.iterations,
        p.parallelism,
        s.count,
        s.median_ns / 1e6,
        s.p95_ns / 1e6,
        s.median_ns / base.median_ns,
        s.p95_ns / base.p95_ns,
        // memory x passes per unit of time, against p = 1 at the default
        (f64::from(p.memory_kib) * f64::from(p.iterations) / s.median_ns)
            / (f64::from(KdfParams::DEFAULT.memory_kib) * f64::from(KdfParams::DEFAULT.iterations)
                / base.median_ns),
    );
}

fn main() {
    let rounds = env_usize("NEXUSQ_KDF_ROUNDS", 5);
    let per_round = env_usize("NEXUSQ_KDF_PER_ROUND", 4);
    let lanes = [1u32, 2, 4];
    let params: Vec<KdfParams> = lanes
        .iter()
        .map(|&p| KdfParams {
            parallelism: p,
            ..KdfParams::DEFAULT
        })
        .collect();
    // Warm-up: page faults of the first 64 MiB allocation, CPU frequency, rayon's pool.
    for p in &params {
        derive_once(p);
    }
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); params.len()];
    for _ in 0..rounds {
        for _ in 0..per_round {
            for (i, p) in params.iter().enumerate() {
                samples[i].push(derive_once(p));
            }
        }
    }
    let summaries: Vec<Summary> = samples.iter().map(|s| summarize(s)).collect();
    let base = summaries[0];

    // What --calibrate-ms picks for the time p = 1 takes at the default, with this device's lanes.
    let target = Duration::from_nanos(base.median_ns as u64);
    let limits = CalibrationLimits {
        memory_kib: None,
        parallelism: kdf::default_lanes(kdf::available_cores()),
        memory_cap_kib: kdf::calibration_memory_cap_kib(kdf::device_ram_bytes()),
    };
    let calibrated = kdf::calibrate(target, &limits).expect("calibrate");
    derive_once(&calibrated);
    let mut cal = Vec::new();
    let mut base2 = Vec::new();
    for _ in 0..rounds {
        for _ in 0..per_round {
            base2.push(derive_once(&params[0]));
            cal.push(derive_once(&calibrated));
        }
    }
    let (cal, base2) = (summarize(&cal), summarize(&base2));

    println!(
        "Argon2id v1.3, one derivation; {} cores; {rounds} alternating rounds x {per_round}",
        kdf::available_cores()
    );
    println!(
        "| parameters             | memory    | t  | p  | n    | median ms | p95 ms    | ratio | p95 r | m*t/ms |"
    );
    println!(
        "|------------------------|----------:|---:|---:|-----:|----------:|----------:|------:|------:|-------:|"
    );
    for ((p, s), l) in params.iter().zip(&summaries).zip(lanes) {
        row(&format!("default, p = {l}"), p, s, &base);
    }
    println!(
        "| (second pass) default, p = 1 | {:.1} ms median, {:.1} ms p95 |",
        base2.median_ns / 1e6,
        base2.p95_ns / 1e6
    );
    row(
        &format!("calibrated {:.0} ms", target.as_secs_f64() * 1e3),
        &calibrated,
        &cal,
        &base2,
    );
    println!(
        "ratio = median / p = 1's median (the calibrated row against the second p = 1 pass); \
         m*t/ms = memory x passes per millisecond relative to p = 1 at the default"
    );
}

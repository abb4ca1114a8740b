//! What a dataset says about its machine and run: the reproducibility checklist (each item
//! recorded or missing, never guessed) and the limits a reader must keep in mind, both read
//! from the environment record and the results.

use crate::tools::bench::environment::Environment;
use crate::tools::bench::evidence::{Dataset, Workload};

/// A checklist item: what, and its recorded value or `None` when missing.
pub struct Item {
    pub what: &'static str,
    pub value: Option<String>,
}

fn known(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty() && s != "unknown").then(|| s.to_string())
}

/// The load averages, when recorded.
pub fn load(env: &Environment) -> Option<[f64; 3]> {
    serde_json::from_value(env.load_average.clone()).ok()
}

/// The items, in the order the page lists them.
pub fn items(d: &Dataset) -> Vec<Item> {
    let e = &d.environment;
    let item = |what, value| Item { what, value };
    let features: Vec<String> = e
        .cpu_features
        .iter()
        .map(|(f, on)| format!("{f} {}", if *on { "yes" } else { "no" }))
        .collect();
    let thermal: Vec<String> = e
        .thermal
        .iter()
        .filter_map(|t| {
            let mc = t.millicelsius.as_i64()?;
            Some(format!("{} {:.1} °C", t.r#type, mc as f64 / 1000.0))
        })
        .collect();
    let crates: Vec<String> = e.crates.iter().map(|(n, v)| format!("{n} {v}")).collect();
    let android = if e.target.contains("android") {
        known(&e.android_release)
    } else {
        Some(format!("not Android (target {})", e.target))
    };
    vec![
        item("CPU model", known(&e.cpu_model)),
        item(
            "CPU features",
            (!features.is_empty()).then(|| features.join(", ")),
        ),
        item("CPU count", Some(e.cpu_count.to_string())),
        item(
            "RAM",
            e.ram_bytes
                .as_u64()
                .map(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)),
        ),
        item(
            "OS (kernel)",
            known(&format!(
                "{} {} {}",
                e.os.sysname, e.os.release, e.os.machine
            )),
        ),
        item("Android release", android),
        item("CPU frequency governor", known(&e.cpu_governor)),
        item(
            "Thermal readings",
            (!thermal.is_empty()).then(|| thermal.join(", ")),
        ),
        item(
            "Load average at the start (1, 5, 15 min)",
            load(e).map(|l| format!("{:.2}, {:.2}, {:.2}", l[0], l[1], l[2])),
        ),
        item("Target", known(&e.target)),
        item("rustc", known(&e.rustc)),
        item("Build profile", known(&e.build_profile)),
        item(
            "RUSTFLAGS",
            Some(if e.rustflags.trim().is_empty() {
                "none".into()
            } else {
                e.rustflags.clone()
            }),
        ),
        item(
            "Crate versions",
            (!crates.is_empty()).then(|| crates.join(", ")),
        ),
        item("Git revision", known(&e.git_revision)),
        item("Date (UTC)", known(&e.date)),
        item("Runner", known(&e.runner)),
        item(
            "Command line",
            (!e.command_line.is_empty()).then(|| e.command_line.join(" ")),
        ),
        item("Workload", Some(workload(&e.workload))),
    ]
}

/// The workload in words.
pub fn workload(w: &Workload) -> String {
    match w {
        Workload::Baseline {
            backend,
            iterations,
            vault_iterations,
            warmup,
            kdf,
        } => format!(
            "baseline on the {backend} backend: {iterations} samples per crypto operation, \
             {vault_iterations} per vault operation, {warmup} warm-up runs; throwaway vault \
             Argon2id {} MiB, t={}, p={}",
            kdf.memory_kib / 1024,
            kdf.iterations,
            kdf.parallelism
        ),
        Workload::Compare {
            baseline,
            candidate,
            rounds,
            iterations,
            warmup,
            gate_median,
            gate_p95,
        } => format!(
            "{candidate} against {baseline}: {rounds} alternating rounds of {iterations} samples, \
             {warmup} warm-up runs; gate median ≤ {gate_median}, p95 ≤ {gate_p95}"
        ),
        Workload::Arena {
            subject,
            samples,
            batch,
            rounds,
            warmup_ms,
            filter,
            gate_against,
            gate_median,
            gate_p95,
        } => {
            let mut s = format!(
                "arena of {subject} and its comparators: {rounds} alternating rounds of \
                 {samples} samples of {batch} operations, {warmup_ms} ms warm-up"
            );
            if let Some(f) = filter {
                s += &format!("; only \"{f}\"");
            }
            if let (Some(a), Some(m), Some(p)) = (gate_against, gate_median, gate_p95) {
                s += &format!("; gated against {a}: median ≤ {m}, p95 ≤ {p}");
            }
            s
        }
    }
}

/// What limits the dataset, in words, from what it recorded.
pub fn limits(d: &Dataset) -> Vec<String> {
    let e = &d.environment;
    let mut out = Vec::new();
    if e.build_profile != "release" {
        out.push(format!(
            "{} build: not the speed users get; compare only ratios within this dataset",
            e.build_profile
        ));
    }
    match load(e) {
        Some(l) if l[0] >= 0.5 * e.cpu_count as f64 => out.push(format!(
            "the machine was busy: load average {:.2} on {} CPUs as the run started, so other \
             work shared the CPUs (the p95s show it most)",
            l[0], e.cpu_count
        )),
        Some(l) => out.push(format!(
            "load average {:.2} on {} CPUs as the run started",
            l[0], e.cpu_count
        )),
        None => out.push("the load was not recorded".into()),
    }
    if known(&e.cpu_governor).is_none() {
        out.push("no CPU frequency governor reading: frequency scaling cannot be ruled out".into());
    }
    if e.thermal.iter().all(|t| t.millicelsius.as_i64().is_none()) {
        out.push("no thermal readings: throttling cannot be ruled out".into());
    }
    if e.runner == "ci" {
        out.push("measured on a CI runner".into());
    }
    if let Some(n) = d.results.iter().map(|r| r.n).min()
        && n < 20
    {
        out.push(format!(
            "as few as {n} samples per operation: the p95 is then (nearly) the slowest sample"
        ));
    }
    if d.results.iter().any(|r| r.rounds == 1) && d.results.len() > 1 {
        out.push(
            "one round: the operations ran one after another, so drift over the run is not \
             spread across them"
                .into(),
        );
    }
    if d.results.iter().any(|r| r.batch > 1) {
        out.push(
            "samples time batches of operations (each divided by the batch size): the p95 is of \
             batches, not of single operations"
                .into(),
        );
    }
    let other_arch = matches!(&e.os.machine, m if !e.target.starts_with(m.as_str()));
    if other_arch && e.os.machine != "unknown" {
        out.push(format!(
            "built for {} but run on a {} kernel (emulated?)",
            e.target, e.os.machine
        ));
    }
    out
}

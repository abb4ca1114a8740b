//! ML-KEM, ML-DSA and SLH-DSA arena: nexusq-native against RustCrypto `ml-kem` / `ml-dsa` /
//! `slh-dsa`, `aws-lc-rs`, `libcrux-ml-kem` / `libcrux-ml-dsa`, `pqcrypto-mlkem` /
//! `pqcrypto-mldsa` / `pqcrypto-sphincsplus` and liboqs (keygen, encaps, decaps for ML-KEM-768
//! and ML-KEM-1024; keygen, sign, verify for ML-DSA-65 and SLH-DSA-SHAKE-128f), and X-Wing
//! (nexusq's hybrid KEM on both backends against RustCrypto `x-wing`); with `--features
//! openssl`, OpenSSL 3.5.5 in the ML-KEM, ML-DSA and SLH-DSA rows, and with `--features boring`,
//! BoringSSL in the ML-KEM, ML-DSA and X-Wing rows. Writes nexusq's evidence format
//! (`nexusq_core::tools::bench`, docs/bench.schema.json). See README.md.

// OpenSSL's and BoringSSL's static libcrypto define the same symbols (bn_sqr8x_internal and
// the rest; boring-sys has no symbol prefix), so one binary links only one of them: build the
// arena once per feature (README.md, "OpenSSL and BoringSSL").
#[cfg(all(feature = "openssl", feature = "boring"))]
compile_error!(
    "the `openssl` and `boring` features cannot be linked into one binary (duplicate libcrypto \
     symbols): build and run the arena once with each (benches/arena/README.md)"
);

#[cfg(feature = "boring")]
mod boring;
mod dsa;
mod libs;
#[cfg(feature = "openssl")]
mod openssl;
mod oqs;
mod slh;
mod xwing;

use libs::{Kem, NATIVE, Op, Param, Timed};
use nexusq_core::tools::bench::environment::{Build, Environment, build::profile_of};
use nexusq_core::tools::bench::evidence::{
    self, Gate, GateCheck, Measurement, Record, Subject, Warmup, Workload,
};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[cfg(feature = "openssl")]
use openssl::library as openssl_library;
/// Without OpenSSL the environment record names no OpenSSL.
#[cfg(not(feature = "openssl"))]
fn openssl_library() -> Vec<(String, String)> {
    Vec::new()
}

const USAGE: &str = "\
usage: nexusq-arena [--samples N] [--batch N] [--rounds N] [--warmup-ms N] [--filter TEXT]
                    [--json [--raw]] [--gate-against LIBRARY [--gate R] [--gate-median R] [--gate-p95 R]]
       nexusq-arena --compare A.jsonl B.jsonl

  --samples N           samples per (library, parameter set, operation) and round [200]
                        (SLH-DSA: a quarter of them)
  --batch N             operations timed together for one sample [10] (SLH-DSA: 1)
  --rounds N            alternating rounds whose samples are pooled [3]
  --warmup-ms N         warm-up per (library, parameter set, operation) before the rounds [50]
  --filter TEXT         only measure where \"library param op\" contains TEXT (case-insensitive)
  --json                evidence records (JSON lines) on stdout, the tables on stderr
  --raw                 with --json: every sample in the result records
  --gate-against LIB    gate nexusq-native against LIB (e.g. aws-lc-rs) on the pooled median
                        and p95 ratios; exit 1 when an operation is over
  --gate R              the bound on both ratios [1.5]
  --gate-median R       the bound on the median ratio alone [--gate]
  --gate-p95 R          the bound on the p95 ratio alone [--gate]
  --compare A B         compare two saved --json outputs (e.g. the two builds of run.sh)";

struct Args {
    samples: u32,
    batch: u32,
    rounds: u32,
    warmup_ms: u64,
    filter: Option<String>,
    json: bool,
    raw: bool,
    compare: Option<(String, String)>,
    gate_against: Option<String>,
    gate: Gate,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        samples: 200,
        batch: 10,
        rounds: 3,
        warmup_ms: 50,
        filter: None,
        json: false,
        raw: false,
        compare: None,
        gate_against: None,
        gate: Gate::both(1.5),
    };
    let (mut gate, mut gate_median, mut gate_p95) = (1.5, None, None);
    let mut gate_given = false;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|e| format!("{v}: {e}"));
        let count = |v: String| {
            number(v).and_then(|n| u32::try_from(n).map_err(|_| format!("{n} is too large")))
        };
        let ratio = |v: String| v.parse::<f64>().map_err(|e| format!("{v}: {e}"));
        match arg.as_str() {
            "--samples" => args.samples = count(value("--samples")?)?,
            "--batch" => args.batch = count(value("--batch")?)?,
            "--rounds" => args.rounds = count(value("--rounds")?)?,
            "--warmup-ms" => args.warmup_ms = number(value("--warmup-ms")?)?,
            "--filter" => args.filter = Some(value("--filter")?.to_lowercase()),
            "--json" => args.json = true,
            "--raw" => args.raw = true,
            "--compare" => args.compare = Some((value("--compare")?, value("--compare")?)),
            "--gate-against" => args.gate_against = Some(value("--gate-against")?),
            "--gate" => (gate, gate_given) = (ratio(value("--gate")?)?, true),
            "--gate-median" => gate_median = Some(ratio(value("--gate-median")?)?),
            "--gate-p95" => gate_p95 = Some(ratio(value("--gate-p95")?)?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.samples == 0 || args.batch == 0 || args.rounds == 0 {
        return Err("--samples, --batch and --rounds must be at least 1".into());
    }
    if args.raw && !args.json {
        return Err("--raw adds the samples to the --json records: pass --json --raw".into());
    }
    if args.gate_against.is_none() && (gate_given || gate_median.is_some() || gate_p95.is_some()) {
        return Err("--gate, --gate-median and --gate-p95 need --gate-against LIBRARY".into());
    }
    args.gate = Gate::from_options(gate, gate_median, gate_p95)?;
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match &args.compare {
        Some((a, b)) => compare(a, b),
        None => run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// How the arena was built, for the environment record (build.rs).
fn build() -> Build {
    Build {
        program: "nexusq-arena".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        git_revision: env!("ARENA_GIT").into(),
        build_profile: profile_of(cfg!(debug_assertions)).into(),
        target: env!("ARENA_TARGET").into(),
        rustc: env!("ARENA_RUSTC").into(),
        rustflags: env!("ARENA_RUSTFLAGS").trim().into(),
        crates: crates(),
    }
}

/// The arena's locked library versions (build.rs) and, with the `boring` feature, the
/// BORINGSSL_API_VERSION of the BoringSSL that boring-sys bundles (its git revision is not in
/// the crate).
fn crates() -> BTreeMap<String, String> {
    #[allow(unused_mut)]
    let mut crates: BTreeMap<String, String> = env!("ARENA_VERSIONS")
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    #[cfg(feature = "boring")]
    crates.insert(
        "boringssl-api".into(),
        boring_sys::BORINGSSL_API_VERSION.to_string(),
    );
    crates.extend(openssl_library());
    crates
}

/// One measured (library, parameter set, operation): per-operation times in nanoseconds.
struct Task<'a> {
    bench: &'a dyn Timed,
    op: Op,
    samples_per_round: u32,
    batch: u32,
    samples: Vec<f64>,
}

fn run(args: &Args) -> Result<(), String> {
    // As the run starts: the load, governor and temperatures before measuring.
    let environment = Environment::collect(
        build(),
        Workload::Arena {
            subject: NATIVE.into(),
            samples: args.samples,
            batch: args.batch,
            rounds: args.rounds,
            warmup_ms: args.warmup_ms,
            filter: args.filter.clone(),
            gate_against: args.gate_against.clone(),
            gate_median: args.gate_against.as_ref().map(|_| args.gate.median),
            gate_p95: args.gate_against.as_ref().map(|_| args.gate.p95),
        },
    );
    let kems = libs::kems()?;
    let dsas = dsa::all()?;
    let slhs = slh::all()?;
    let xwings = xwing::all()?;
    // liboqs's SPHINCS+ keypair does not always draw its seeds through OQS_randombytes (seen
    // on an AVX2-only AMD EPYC): then its keys cannot be cross-checked, so its rows are left
    // out, loudly, and PQClean's stand for round-3.1 SPHINCS+.
    let liboqs_slh = match oqs::LiboqsSlh::new() {
        Ok(slh) => Some(slh),
        Err(e) => {
            eprintln!("NOTE: liboqs SPHINCS+-SHAKE-128f-simple rows left out: {e}");
            None
        }
    };
    check(&kems)?;
    dsa::check(&dsas)?;
    slh::check(&slhs)?;
    xwing::check(&xwings)?;
    if let Some(slh) = &liboqs_slh {
        oqs::check_slh(slh)?;
    }
    eprintln!("sanity checks passed");

    let benches = kems.iter().map(|k| k.as_ref() as &dyn Timed);
    let benches = benches.chain(xwings.iter().map(|x| x.as_ref() as &dyn Timed));
    let benches = benches.chain(dsas.iter().map(|d| d.as_ref() as &dyn Timed));
    let benches = benches.chain(slhs.iter().map(|s| s.as_ref() as &dyn Timed));
    let benches = benches.chain(liboqs_slh.iter().map(|s| s as &dyn Timed));
    let mut tasks: Vec<Task> = Vec::new();
    for bench in benches {
        let (samples_per_round, batch) = bench.param().sampling(args.samples, args.batch);
        for op in bench.ops() {
            let key = format!("{} {} {}", bench.label(), bench.param().name(), op.name());
            if args
                .filter
                .as_ref()
                .is_none_or(|f| key.to_lowercase().contains(f))
            {
                tasks.push(Task {
                    bench,
                    op,
                    samples_per_round,
                    batch,
                    samples: Vec::new(),
                });
            }
        }
    }
    if tasks.is_empty() {
        return Err("--filter matches nothing".into());
    }
    if let Some(against) = &args.gate_against
        && !tasks.iter().any(|t| t.bench.label() == against)
    {
        return Err(format!(
            "--gate-against {against}: no such library measured"
        ));
    }

    let warmup = Duration::from_millis(args.warmup_ms);
    for task in &tasks {
        let start = Instant::now();
        while start.elapsed() < warmup {
            task.bench.time(task.op, task.batch);
        }
    }
    // Round r: per parameter set, each library in turn (starting one further along each round),
    // each operation.
    for r in 0..args.rounds as usize {
        eprintln!("round {}/{}", r + 1, args.rounds);
        for param in Param::ALL {
            let of_param = tasks.iter().filter(|t| t.bench.param() == param);
            let labels = unique(of_param.map(|t| t.bench.label()));
            for i in 0..labels.len() {
                let label = &labels[(i + r) % labels.len()];
                for task in tasks.iter_mut() {
                    if task.bench.param() == param && task.bench.label() == label {
                        for _ in 0..task.samples_per_round {
                            let t = task.bench.time(task.op, task.batch);
                            task.samples
                                .push(t.as_secs_f64() * 1e9 / f64::from(task.batch));
                        }
                    }
                }
            }
        }
    }

    let results: Vec<Measurement> = tasks
        .iter()
        .filter_map(|t| {
            let (implementation, variant) = libs::split_label(t.bench.label());
            let subject = Subject {
                implementation,
                variant,
                algorithm: t.bench.param().name(),
                operation: t.op.name(),
                rounds: args.rounds,
                warmup: Warmup::Ms(args.warmup_ms),
                batch: t.batch,
            };
            let mut m = Measurement::new(&subject, &t.samples, args.raw)?;
            m.includes = t.bench.includes().map(str::to_string);
            Some(m)
        })
        .collect();
    let gates = match &args.gate_against {
        Some(against) => gate(&results, against, args.gate),
        None => Vec::new(),
    };
    let mut text = table(&results);
    if let Some(against) = &args.gate_against {
        text += "\n";
        text += &gate_table(against, args.gate, &gates);
    }
    if args.json {
        println!(
            "{}",
            evidence::line(&Record::Environment(Box::new(environment)))
        );
        for r in results {
            println!("{}", evidence::line(&Record::Result(r)));
        }
        for g in &gates {
            println!("{}", evidence::line(&Record::Gate(g.clone())));
        }
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    let failed: Vec<String> = gates
        .iter()
        .filter(|g| !g.pass)
        .map(|g| format!("{} ({})", g.name(), g.verdict()))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} operations of {NATIVE} are over the gate against {}: {}",
            failed.len(),
            gates.len(),
            args.gate_against.as_deref().unwrap_or_default(),
            failed.join(", ")
        ))
    }
}

/// nexusq-native (its run-time selection) gated against `against` on every operation both
/// measured.
fn gate(results: &[Measurement], against: &str, gate: Gate) -> Vec<GateCheck> {
    results
        .iter()
        .filter(|m| m.implementation == NATIVE && m.variant.is_none())
        .filter_map(|native| {
            let base = results.iter().find(|b| {
                b.label() == against
                    && b.algorithm == native.algorithm
                    && b.operation == native.operation
            })?;
            Some(GateCheck::new(base, native, gate))
        })
        .collect()
}

fn gate_table(against: &str, gate: Gate, gates: &[GateCheck]) -> String {
    let mut out = format!(
        "{NATIVE} / {against}, pooled over the rounds; gate: median ratio ≤ {}, p95 ratio ≤ {}\n\n\
         | parameter set | op | {against} median (p95) µs | {NATIVE} median (p95) µs | median ratio | p95 ratio | gate |\n\
         |---|---|---:|---:|---:|---:|---|\n",
        gate.median, gate.p95
    );
    let r = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.2}"));
    for g in gates {
        out += &format!(
            "| {} | {} | {:.1} ({:.1}) | {:.1} ({:.1}) | {} | {} | {} |\n",
            g.algorithm,
            g.operation,
            g.baseline_median / 1e3,
            g.baseline_p95 / 1e3,
            g.candidate_median / 1e3,
            g.candidate_p95 / 1e3,
            r(g.median_ratio),
            r(g.p95_ratio),
            g.verdict()
        );
    }
    out
}

/// Sanity checks before timing: every library's own round trip (done by its setup); the libraries
/// with deterministic keygen and encaps (nexusq-native, each implementation; ml-kem;
/// libcrux-ml-kem; liboqs fed the seeds as its randomness) give byte-identical ek, dk, ct and ss
/// from the same seeds; and every library decapsulates ml-kem's ciphertext, and a tampered copy of it
/// (implicit rejection), to the same shared secret.
fn check(kems: &[Box<dyn Kem>]) -> Result<(), String> {
    for param in Param::KEM {
        let of_param: Vec<&dyn Kem> = kems
            .iter()
            .map(|k| k.as_ref())
            .filter(|k| k.param() == param)
            .collect();
        let reference = of_param
            .iter()
            .find(|k| k.label() == "ml-kem")
            .ok_or("ml-kem adapter missing")?
            .material();
        let mut tampered = reference.ct.clone();
        tampered[0] ^= 1;
        let rejected = of_param[0].decaps_bytes(&reference.dk, &tampered)?;
        if rejected == reference.ss {
            return Err(format!(
                "{}: tampered ciphertext was accepted",
                param.name()
            ));
        }
        for kem in &of_param {
            let name = format!("{} {}", kem.label(), param.name());
            let m = kem.material();
            if kem.deterministic() {
                for (what, ours, theirs) in [
                    ("ek", &m.ek, &reference.ek),
                    ("dk", &m.dk, &reference.dk),
                    ("ct", &m.ct, &reference.ct),
                    ("ss", &m.ss, &reference.ss),
                ] {
                    if ours != theirs {
                        return Err(format!("{name}: {what} differs from ml-kem's (same seeds)"));
                    }
                }
            }
            if kem.decaps_bytes(&reference.dk, &reference.ct)? != reference.ss {
                return Err(format!("{name}: decaps of ml-kem's ciphertext differs"));
            }
            if kem.decaps_bytes(&reference.dk, &tampered)? != rejected {
                return Err(format!("{name}: implicit rejection differs"));
            }
        }
    }
    Ok(())
}

fn unique<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    out
}

/// One table per family (ML-KEM, ML-DSA, SLH-DSA), as their libraries differ.
fn table(results: &[Measurement]) -> String {
    unique(results.iter().map(|r| family(&r.algorithm)))
        .iter()
        .map(|f| {
            let of_family: Vec<&Measurement> = results
                .iter()
                .filter(|r| family(&r.algorithm) == f)
                .collect();
            family_table(&of_family)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// "ML-KEM-768" -> "ML-KEM", "SLH-DSA-SHAKE-128f" -> "SLH-DSA-SHAKE".
fn family(param: &str) -> &str {
    param.rsplit_once('-').map_or(param, |(f, _)| f)
}

/// Rows (parameter set, operation), one column per library with "median (p95)" in µs, and the
/// ratio of nexusq-native (its run-time selection) to the fastest other library.
fn family_table(results: &[&Measurement]) -> String {
    let labels: Vec<String> = results.iter().map(|r| r.label()).collect();
    let libraries = unique(labels.iter().map(String::as_str));
    let rows = unique(results.iter().map(|r| r.algorithm.as_str()))
        .into_iter()
        .flat_map(|p| Op::ALL.map(|op| (p.clone(), op.name())))
        .filter(|(p, op)| {
            results
                .iter()
                .any(|r| &r.algorithm == p && r.operation == *op)
        });
    let mut out = String::from("median (p95) in µs per operation\n\n| parameter set | op |");
    for library in &libraries {
        out += &format!(" {library} |");
    }
    out += " nexusq-native / best other |\n|---|---|";
    out += &"---:|".repeat(libraries.len() + 1);
    out += "\n";
    for (param, op) in rows {
        let of_row: Vec<&Measurement> = results
            .iter()
            .copied()
            .filter(|r| r.algorithm == param && r.operation == op)
            .collect();
        out += &format!("| {param} | {op} |");
        for library in &libraries {
            match of_row.iter().find(|r| &r.label() == library) {
                Some(r) => out += &format!(" {:.1} ({:.1}) |", r.median / 1e3, r.p95 / 1e3),
                None => out += " – |",
            }
        }
        let native = of_row
            .iter()
            .find(|r| r.implementation == NATIVE && r.variant.is_none());
        let best = of_row
            .iter()
            .filter(|r| r.implementation != NATIVE)
            .min_by(|a, b| a.median.total_cmp(&b.median));
        match (native, best) {
            (Some(n), Some(b)) => {
                out += &format!(" {:.2} (vs {}) |\n", n.median / b.median, b.label())
            }
            _ => out += " – |\n",
        }
    }
    out
}

/// (library, parameter set, operation) and median in ns, in the order of the file.
type Medians = Vec<((String, String, String), f64)>;

/// The results and the RUSTFLAGS of a saved `--json` output (the first dataset in it).
fn load(path: &str) -> Result<(String, Medians), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let datasets = evidence::parse(path, &text).map_err(|e| format!("{path}: {e}"))?;
    let d = &datasets[0];
    let medians = d
        .results
        .iter()
        .map(|r| {
            (
                (r.label(), r.algorithm.clone(), r.operation.clone()),
                r.median,
            )
        })
        .collect();
    Ok((d.environment.rustflags.clone(), medians))
}

fn compare(a: &str, b: &str) -> Result<(), String> {
    let (flags_a, a) = load(a)?;
    let (flags_b, b) = load(b)?;
    let name = |f: &str| {
        if f.trim().is_empty() {
            "default flags".to_string()
        } else {
            f.trim().to_string()
        }
    };
    println!(
        "A: {}, B: {}; medians in µs per operation\n",
        name(&flags_a),
        name(&flags_b)
    );
    println!("| library | parameter set | op | A | B | A / B |\n|---|---|---|---:|---:|---:|");
    for (key, ma) in &a {
        if let Some((_, mb)) = b.iter().find(|(k, _)| k == key) {
            let (library, param, op) = key;
            println!(
                "| {library} | {param} | {op} | {:.1} | {:.1} | {:.3} |",
                ma / 1e3,
                mb / 1e3,
                ma / mb
            );
        }
    }
    Ok(())
}

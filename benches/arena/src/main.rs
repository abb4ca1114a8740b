//! ML-KEM, ML-DSA and SLH-DSA arena: nexusq-native against RustCrypto `ml-kem` / `ml-dsa` /
//! `slh-dsa`, `aws-lc-rs`, `libcrux-ml-kem` / `libcrux-ml-dsa` and `pqcrypto-mlkem` /
//! `pqcrypto-mldsa` / `pqcrypto-sphincsplus` (keygen, encaps, decaps for ML-KEM-768 and
//! ML-KEM-1024; keygen, sign, verify for ML-DSA-65 and SLH-DSA-SHAKE-128f). See README.md.

mod dsa;
mod libs;
mod slh;

use libs::{Kem, NATIVE, Op, Param, Timed};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: nexusq-arena [--samples N] [--batch N] [--slh-samples N] [--rounds N] [--warmup-ms N]
                    [--filter TEXT] [--json]
       nexusq-arena --compare A.jsonl B.jsonl

  --samples N     samples per (library, parameter set, operation) and round [200]
  --batch N       operations timed together for one sample [10]
  --slh-samples N samples per SLH-DSA (library, operation) and round, one operation each [20]
  --rounds N      alternating rounds whose samples are pooled [3]
  --warmup-ms N   warm-up per (library, parameter set, operation) before the rounds [50]
  --filter TEXT   only measure where \"library param op\" contains TEXT (case-insensitive)
  --json          print JSON lines (environment, then one record per result) before the table
  --compare A B   compare two saved --json outputs (e.g. the two builds of run.sh)";

struct Args {
    samples: usize,
    batch: u32,
    slh_samples: usize,
    rounds: usize,
    warmup: Duration,
    filter: Option<String>,
    json: bool,
    compare: Option<(String, String)>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        samples: 200,
        batch: 10,
        slh_samples: 20,
        rounds: 3,
        warmup: Duration::from_millis(50),
        filter: None,
        json: false,
        compare: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|e| format!("{v}: {e}"));
        match arg.as_str() {
            "--samples" => args.samples = number(value("--samples")?)? as usize,
            "--batch" => args.batch = number(value("--batch")?)? as u32,
            "--slh-samples" => args.slh_samples = number(value("--slh-samples")?)? as usize,
            "--rounds" => args.rounds = number(value("--rounds")?)? as usize,
            "--warmup-ms" => args.warmup = Duration::from_millis(number(value("--warmup-ms")?)?),
            "--filter" => args.filter = Some(value("--filter")?.to_lowercase()),
            "--json" => args.json = true,
            "--compare" => args.compare = Some((value("--compare")?, value("--compare")?)),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.samples == 0 || args.batch == 0 || args.slh_samples == 0 || args.rounds == 0 {
        return Err("--samples, --batch, --slh-samples and --rounds must be at least 1".into());
    }
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

/// One measured (library, parameter set, operation): per-operation times in microseconds.
struct Task<'a> {
    bench: &'a dyn Timed,
    op: Op,
    samples: Vec<f64>,
}

fn run(args: &Args) -> Result<(), String> {
    let kems = libs::kems()?;
    let dsas = dsa::all()?;
    let slhs = slh::all()?;
    check(&kems)?;
    dsa::check(&dsas)?;
    slh::check(&slhs)?;
    eprintln!("sanity checks passed");

    let benches = kems.iter().map(|k| k.as_ref() as &dyn Timed);
    let benches = benches.chain(dsas.iter().map(|d| d.as_ref() as &dyn Timed));
    let benches = benches.chain(slhs.iter().map(|d| d.as_ref() as &dyn Timed));
    let mut tasks: Vec<Task> = Vec::new();
    for bench in benches {
        for op in bench.param().ops() {
            let key = format!("{} {} {}", bench.label(), bench.param().name(), op.name());
            if args
                .filter
                .as_ref()
                .is_none_or(|f| key.to_lowercase().contains(f))
            {
                tasks.push(Task {
                    bench,
                    op,
                    samples: Vec::new(),
                });
            }
        }
    }
    if tasks.is_empty() {
        return Err("--filter matches nothing".into());
    }

    // SLH-DSA operations take 0.1 to 100 ms: one per sample, and fewer samples.
    let plan = |task: &Task| match task.bench.param() {
        Param::SlhDsa128f => (args.slh_samples, 1),
        _ => (args.samples, args.batch),
    };
    for task in &tasks {
        let start = Instant::now();
        while start.elapsed() < args.warmup {
            task.bench.time(task.op, plan(task).1);
        }
    }
    // Round r: per parameter set, each library in turn (starting one further along each round),
    // each operation.
    for r in 0..args.rounds {
        eprintln!("round {}/{}", r + 1, args.rounds);
        for param in Param::ALL {
            let of_param = tasks.iter().filter(|t| t.bench.param() == param);
            let labels = unique(of_param.map(|t| t.bench.label()));
            for i in 0..labels.len() {
                let label = &labels[(i + r) % labels.len()];
                for task in tasks.iter_mut() {
                    if task.bench.param() == param && task.bench.label() == label {
                        let (samples, batch) = plan(task);
                        for _ in 0..samples {
                            let t = task.bench.time(task.op, batch);
                            task.samples.push(t.as_secs_f64() * 1e6 / f64::from(batch));
                        }
                    }
                }
            }
        }
    }

    let results: Vec<Record> = tasks
        .iter()
        .map(|t| {
            Record::new(
                t.bench.label(),
                t.bench.param().name(),
                t.op.name(),
                &t.samples,
            )
        })
        .collect();
    if args.json {
        println!("{}", environment(args));
        for r in &results {
            println!("{}", r.json());
        }
        println!();
    }
    print!("{}", table(&results));
    Ok(())
}

/// Sanity checks before timing: every library's own round trip (done by its setup); nexusq-native
/// (each implementation), ml-kem and libcrux-ml-kem give byte-identical ek, dk, ct and ss from the
/// same seeds; and every library decapsulates ml-kem's ciphertext, and a tampered copy of it
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

struct Record {
    library: String,
    param: String,
    op: String,
    median_us: f64,
    p95_us: f64,
    n: usize,
}

impl Record {
    fn new(library: &str, param: &str, op: &str, samples: &[f64]) -> Record {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        // Nearest rank: the smallest sample with at least 95% of the samples at or below it.
        let p95 = sorted[(0.95 * n as f64).ceil() as usize - 1];
        Record {
            library: library.into(),
            param: param.into(),
            op: op.into(),
            median_us: median,
            p95_us: p95,
            n,
        }
    }

    fn json(&self) -> String {
        format!(
            "{{\"record\":\"result\",\"library\":{},\"param\":{},\"op\":{},\"median_us\":{:.3},\"p95_us\":{:.3},\"n\":{}}}",
            quote(&self.library),
            quote(&self.param),
            quote(&self.op),
            self.median_us,
            self.p95_us,
            self.n
        )
    }
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
fn table(results: &[Record]) -> String {
    unique(results.iter().map(|r| family(&r.param)))
        .iter()
        .map(|f| {
            let of_family: Vec<&Record> =
                results.iter().filter(|r| family(&r.param) == f).collect();
            family_table(&of_family)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// "ML-KEM-768" -> "ML-KEM".
fn family(param: &str) -> &str {
    param.rsplit_once('-').map_or(param, |(f, _)| f)
}

/// Rows (parameter set, operation), one column per library with "median (p95)" in µs, and the
/// ratio of nexusq-native (its run-time selection) to the fastest other library.
fn family_table(results: &[&Record]) -> String {
    let libraries = unique(results.iter().map(|r| r.library.as_str()));
    let rows = unique(results.iter().map(|r| r.param.as_str()))
        .into_iter()
        .flat_map(|p| Op::ALL.map(|op| (p.clone(), op.name())))
        .filter(|(p, op)| results.iter().any(|r| &r.param == p && r.op == *op));
    let mut out = String::from("median (p95) in µs per operation\n\n| parameter set | op |");
    for library in &libraries {
        out += &format!(" {library} |");
    }
    out += " nexusq-native / best other |\n|---|---|";
    out += &"---:|".repeat(libraries.len() + 1);
    out += "\n";
    for (param, op) in rows {
        let of_row: Vec<&Record> = results
            .iter()
            .copied()
            .filter(|r| r.param == param && r.op == op)
            .collect();
        out += &format!("| {param} | {op} |");
        for library in &libraries {
            match of_row.iter().find(|r| &r.library == library) {
                Some(r) => out += &format!(" {:.1} ({:.1}) |", r.median_us, r.p95_us),
                None => out += " – |",
            }
        }
        let native = of_row.iter().find(|r| r.library == NATIVE);
        let best = of_row
            .iter()
            .filter(|r| !r.library.starts_with(NATIVE))
            .min_by(|a, b| a.median_us.total_cmp(&b.median_us));
        match (native, best) {
            (Some(n), Some(b)) => {
                out += &format!(" {:.2} (vs {}) |\n", n.median_us / b.median_us, b.library)
            }
            _ => out += " – |\n",
        }
    }
    out
}

fn environment(args: &Args) -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    let flags = field("flags");
    let has = |flag: &str| flags.split_whitespace().any(|f| f == flag);
    let versions: Vec<String> = env!("ARENA_VERSIONS")
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| format!("{}:{}", quote(k), quote(v)))
        .collect();
    let available: Vec<String> = nexusq_native::available()
        .iter()
        .map(|i| quote(i.name()))
        .collect();
    format!(
        "{{\"record\":\"environment\",\"cpu\":{},\"avx2\":{},\"avx512f\":{},\"cpus\":{},\"rustc\":{},\"target\":{},\"rustflags\":{},\"date\":{},\"nexusq_native_selected\":{},\"nexusq_native_available\":[{}],\"versions\":{{{}}},\"samples\":{},\"batch\":{},\"slh_samples\":{},\"rounds\":{}}}",
        quote(&field("model name")),
        has("avx2"),
        has("avx512f"),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        quote(env!("ARENA_RUSTC")),
        quote(env!("ARENA_TARGET")),
        quote(env!("ARENA_RUSTFLAGS")),
        quote(&utc_now()),
        quote(nexusq_native::selected().name()),
        available.join(","),
        versions.join(","),
        args.samples,
        args.batch,
        args.slh_samples,
        args.rounds
    )
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out += "\\\"",
            '\\' => out += "\\\\",
            c if (c as u32) < 0x20 => out += &format!("\\u{:04x}", c as u32),
            c => out.push(c),
        }
    }
    out + "\""
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ` (days to civil date after H. Hinnant).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z")
}

/// The string or number value of `key` in one of our own JSON lines.
fn json_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = &line[line.find(&format!("\"{key}\":"))? + key.len() + 3..];
    match rest.strip_prefix('"') {
        Some(s) => s.split('"').next(),
        None => rest.split([',', '}']).next(),
    }
}

/// (library, parameter set, operation) and median, in the order of the file.
type Medians = Vec<((String, String, String), f64)>;

/// Reads the result records and the rustflags of a saved `--json` output.
fn load(path: &str) -> Result<(String, Medians), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut flags = String::new();
    let mut medians = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('{')) {
        match json_field(line, "record") {
            Some("environment") => flags = json_field(line, "rustflags").unwrap_or("").into(),
            Some("result") => {
                let get = |k| json_field(line, k).ok_or(format!("{path}: no {k} in {line}"));
                let median = get("median_us")?
                    .parse::<f64>()
                    .map_err(|e| e.to_string())?;
                let key = (
                    get("library")?.into(),
                    get("param")?.into(),
                    get("op")?.into(),
                );
                medians.push((key, median));
            }
            _ => {}
        }
    }
    Ok((flags, medians))
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
                "| {library} | {param} | {op} | {ma:.1} | {mb:.1} | {:.3} |",
                ma / mb
            );
        }
    }
    Ok(())
}

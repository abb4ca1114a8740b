//! `nexusq bench` through the real binary: no terminal, no vault, tiny counts and a small KDF
//! for the throwaway vault (hidden --kdf-memory-mib / --kdf-iterations) so it stays fast.
//! Every run points TMPDIR at its own folder and checks the throwaway folder is gone after,
//! also after SIGINT / SIGTERM. The --json records are validated against
//! docs/bench.schema.json (the evidence format, which the arena's output also follows: see
//! tests/cli/evidence.rs).

use crate::common;
use crate::common::{BIN, private_file};
use assert_cmd::Command;
use nexusq_core::tools::bench::evidence::{Gate, Record};
use nexusq_core::tools::bench::{baseline, compare, environment, report};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tempfile::TempDir;

const TINY: [&str; 10] = [
    "--iterations",
    "2",
    "--vault-iterations",
    "1",
    "--warmup",
    "0",
    "--kdf-memory-mib",
    "8",
    "--kdf-iterations",
    "1",
];

/// A test's folder: TMPDIR for the binary, and a vault path that must never appear.
struct Env {
    dir: TempDir,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Env { dir }
    }

    fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    fn vault(&self) -> PathBuf {
        self.dir.path().join("nowhere").join("vault.nxq")
    }

    /// The binary with stdin closed and stdout/stderr piped, TMPDIR ours, no NEXUSQ_*
    /// variables.
    fn nexusq(&self) -> Command {
        let mut c = common::bin();
        c.env("TMPDIR", self.tmp())
            .arg("--vault")
            .arg(self.vault())
            .timeout(Duration::from_secs(120));
        c
    }

    /// Nothing left in TMPDIR, and the vault path never created.
    fn assert_clean(&self) {
        let left: Vec<_> = std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
        assert!(!self.vault().exists());
        assert!(!self.vault().parent().unwrap().exists());
    }
}

use crate::evidence_schema::{assert_valid, schema};

fn stdout_of(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

/// Every name appears, in this order.
fn assert_in_order(text: &str, names: &[&str]) {
    let mut at = 0;
    for name in names {
        let found = text[at..]
            .find(name)
            .unwrap_or_else(|| panic!("{name:?} missing or out of order in:\n{text}"));
        at += found + name.len();
    }
}

#[test]
fn table_with_no_terminal_and_no_vault() {
    let env = Env::new();
    // In a new session (no controlling terminal), stdin from /dev/null.
    let out = std::process::Command::new("setsid")
        .arg("-w")
        .arg(BIN)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env_remove("COLUMNS")
        .env("TMPDIR", env.tmp())
        .arg("--vault")
        .arg(env.vault())
        .arg("bench")
        .args(TINY)
        .stdin(Stdio::null())
        .output()
        .expect("run setsid (util-linux)");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_in_order(&text, &baseline::names());
    // The throwaway vault gets a new vault's lanes: min(4, cores).
    let lanes = common::new_vault_lanes();
    assert!(
        text.contains(&format!("Argon2id v1.3, 8 MiB, t=1, p={lanes}")),
        "{text}"
    );
    assert!(text.contains("What one sample of each row includes"));
    // No terminal: no progress line, nothing on stderr.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    env.assert_clean();

    let out = env
        .nexusq()
        .args(["bench", "--markdown"])
        .args(TINY)
        .assert()
        .success();
    let md = stdout_of(&out);
    assert!(md.contains("| operation "));
    assert!(md.contains("|--:|"));
    for name in baseline::names() {
        assert!(md.contains(&format!("| {name} ")), "{name}");
    }
    env.assert_clean();
}

/// A duration cell as the table shows it: at most four digits before the point, and a unit.
fn is_duration(cell: &str) -> bool {
    let Some((number, unit)) = cell.split_once(' ') else {
        return false;
    };
    let whole = number.split('.').next().unwrap();
    ["ns", "µs", "ms", "s"].contains(&unit)
        && (1..=4).contains(&whole.len())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && number.parse::<f64>().is_ok()
}

/// The text table gives each duration a unit and at most four digits before the point (not
/// "188 931 233" ns); where the columns do not fit (a phone's 52, from $COLUMNS here, as no
/// stream is a terminal), each name stands on a line of its own above its figures.
#[test]
fn the_table_shows_readable_units_and_fits_a_phone() {
    let env = Env::new();
    let out = env
        .nexusq()
        .env("COLUMNS", "200")
        .arg("bench")
        .args(TINY)
        .assert()
        .success();
    let text = stdout_of(&out);
    assert!(
        !text.contains(" ns,") && !text.contains("times in ns"),
        "{text}"
    );
    let table: Vec<&str> = text.split("\n\n").nth(1).unwrap().lines().collect();
    assert_eq!(
        table[0].split_whitespace().collect::<Vec<_>>(),
        ["operation", "n", "mean", "median", "p95", "min", "max"]
    );
    assert_eq!(table.len(), 1 + baseline::names().len());
    for (row, name) in table[1..].iter().zip(baseline::names()) {
        // Columns are two spaces or more apart; a number and its unit, one.
        let cells: Vec<&str> = row
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(cells[0], name);
        assert!(cells[1].parse::<u32>().is_ok(), "{row}");
        assert_eq!(cells.len(), 7, "{row}");
        for cell in &cells[2..] {
            assert!(is_duration(cell), "{cell:?} in {row:?}");
        }
    }
    env.assert_clean();

    let out = env
        .nexusq()
        .env("COLUMNS", "52")
        .arg("bench")
        .args(TINY)
        .assert()
        .success();
    let text = stdout_of(&out);
    for line in text.lines() {
        assert!(line.chars().count() <= 52, "{line:?}\n{text}");
    }
    let lines: Vec<&str> = text.lines().collect();
    for name in baseline::names() {
        let at = lines
            .iter()
            .position(|l| *l == name)
            .unwrap_or_else(|| panic!("{name} not on a line of its own:\n{text}"));
        let figures: Vec<&str> = lines[at + 1].split("  ").map(str::trim).collect();
        let figures: Vec<&&str> = figures.iter().filter(|c| !c.is_empty()).collect();
        assert_eq!(figures.len(), 6, "{}", lines[at + 1]);
        assert!(
            figures[1..].iter().all(|c| is_duration(c)),
            "{}",
            lines[at + 1]
        );
    }
    // The notes are wrapped between words: every one whole.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("Vault open: read the file + SHA-256 checksum + parse, no password."));
    env.assert_clean();
}

#[test]
fn json_lines_validate_against_the_schema() {
    let env = Env::new();
    let out = env
        .nexusq()
        .args(["--json", "bench", "--raw"])
        .args(TINY)
        .env("CI", "1")
        .assert()
        .success();
    let records: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(records.len(), 13);
    let validator = schema();
    for r in &records {
        assert_valid(&validator, r);
    }
    let env_record = &records[0];
    assert_eq!(env_record["kind"], "environment");
    assert_eq!(env_record["format"], 2);
    assert_eq!(env_record["program"], "nexusq bench");
    assert_eq!(env_record["runner"], "ci");
    assert_eq!(env_record["workload"]["mode"], "baseline");
    assert_eq!(env_record["workload"]["kdf"]["memory_kib"], 8192);
    assert_eq!(env_record["program_version"], env!("CARGO_PKG_VERSION"));
    let cmd: Vec<&str> = env_record["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        &cmd[cmd.len() - 3..],
        ["8", "--kdf-iterations", "1"],
        "{cmd:?}"
    );
    let names: Vec<String> = records[1..]
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["algorithm"].as_str().unwrap(),
                r["operation"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(names, baseline::names());
    for r in &records[1..] {
        assert_eq!(r["kind"], "result");
        assert_eq!(r["implementation"], "rustcrypto");
        assert_eq!(
            (r["batch"].as_u64(), r["rounds"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(r["warmup"], serde_json::json!({"runs": 0}));
        assert!(r["includes"].is_string());
        let n = r["n"].as_u64().unwrap();
        assert_eq!(r["samples"].as_array().unwrap().len() as u64, n);
        let (min, max) = (r["min"].as_f64().unwrap(), r["max"].as_f64().unwrap());
        for k in ["mean", "median", "p95"] {
            let v = r[k].as_f64().unwrap();
            assert!(min <= v && v <= max, "{k} of {}", r["name"]);
        }
    }
    assert_eq!(records[1]["n"], 2);
    assert_eq!(records[12]["n"], 1);
    // JSON stays in whole nanoseconds, whatever unit the table shows: every sample, and so min
    // and max, is an integer (a median of two may end in .5).
    for r in &records[1..] {
        assert_eq!(r["unit"], "ns");
        for v in r["samples"]
            .as_array()
            .unwrap()
            .iter()
            .chain([&r["min"], &r["max"]])
        {
            let v = v.as_f64().unwrap();
            assert!(v >= 0.0 && v.fract() == 0.0, "{v} in {r}");
        }
    }
    // The library reads back what the binary wrote, as `nexusq report` does.
    let datasets = nexusq_core::tools::bench::evidence::parse("out", &stdout_of(&out)).unwrap();
    assert_eq!(datasets.len(), 1);
    assert_eq!(datasets[0].results.len(), 12);
    env.assert_clean();

    // The schema is not vacuous.
    let mut bad = records[1].clone();
    bad["unit"] = "ms".into();
    assert!(!validator.is_valid(&bad));
    bad = records[0].clone();
    bad.as_object_mut().unwrap().remove("cpu_model");
    assert!(!validator.is_valid(&bad));
}

/// --compare of the native backend against RustCrypto through the library, records validated
/// against the same schema.
#[test]
fn comparison_records_validate_against_the_schema() {
    let rc = nexusq_core::suite::BackendChoice::RustCrypto
        .backend()
        .unwrap();
    let native = nexusq_core::suite::BackendChoice::Native.backend().unwrap();
    let config = compare::Config {
        rounds: 2,
        per_round: 1,
        warmup: 0,
        gate: Gate {
            median: 1.5,
            p95: 2.0,
        },
    };
    let c = compare::run(rc, native, &config, &mut |_| {}).unwrap();
    let validator = schema();
    let env = environment::Environment::collect(
        environment::Build::nexusq(),
        report::compare_workload(c.baseline, c.candidate, &c.config),
    );
    let env_record = serde_json::to_value(Record::Environment(Box::new(env))).unwrap();
    assert_valid(&validator, &env_record);
    assert_eq!(env_record["workload"]["gate_p95"], 2.0);
    let records: Vec<Value> = report::compare_records(&c, true)
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    assert_eq!(records.len(), 27);
    for r in &records {
        assert_valid(&validator, r);
    }
    assert_eq!(records[2]["kind"], "gate");
    assert_eq!(
        (
            records[2]["baseline_n"].as_u64(),
            records[2]["rounds"].as_u64()
        ),
        (Some(2), Some(2))
    );
    for gate in records.iter().filter(|r| r["kind"] == "gate") {
        let (m, p) = (
            gate["median_ratio"].as_f64().unwrap(),
            gate["p95_ratio"].as_f64().unwrap(),
        );
        assert_eq!(gate["median_pass"], m <= 1.5);
        assert_eq!(gate["p95_pass"], p <= 2.0);
        assert_eq!(gate["pass"], m <= 1.5 && p <= 2.0);
    }
    let table = report::compare_table(&c, report::Style::Text);
    assert_in_order(&table, &compare::NAMES);
    assert!(table.contains("gate 1.5 / 2"), "{table}");
}

/// The gate bounds the median and the p95 ratio separately, and says which failed: with an
/// unreachable bound on one and an impossible one on the other, the outcome cannot depend on
/// the machine's speed.
#[test]
fn compare_gates_median_and_p95_separately() {
    let env = Env::new();
    let quick = ["--rounds", "2", "--iterations", "2", "--warmup", "0"];
    for (bounds, failed) in [
        (
            ["--gate-median", "1000", "--gate-p95", "0.000001"],
            "FAIL p95",
        ),
        (
            ["--gate-median", "0.000001", "--gate-p95", "1000"],
            "FAIL median",
        ),
    ] {
        let out = env
            .nexusq()
            .args(["bench", "--compare", "--gate", "1000"])
            .args(quick)
            .args(bounds)
            .assert()
            .code(1);
        let table = stdout_of(&out);
        assert_eq!(
            table.matches(failed).count(),
            compare::NAMES.len(),
            "{table}"
        );
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains("9 of 9 operations are over the gate"), "{err}");
        let what = failed.trim_start_matches("FAIL ");
        assert!(err.contains(&format!("ML-DSA-65 verify ({what})")), "{err}");
        env.assert_clean();
    }
    // --gate alone bounds both.
    let out = env
        .nexusq()
        .args(["--json", "bench", "--compare", "--gate", "0.000001"])
        .args(quick)
        .assert()
        .code(1);
    let gates: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["kind"] == "gate")
        .collect();
    assert_eq!(gates.len(), 9);
    // The error object ends the stream, and the report reads the whole file: it shows the
    // failed gate and the error instead of refusing (docs/evidence.md).
    let stream = stdout_of(&out);
    let last: Value = serde_json::from_str(stream.lines().last().unwrap()).unwrap();
    assert_eq!(last["error"]["code"], 1, "{stream}");
    assert_valid(&schema(), &last);
    let cmp = env.dir.path().join("cmp.jsonl");
    std::fs::write(&cmp, &stream).unwrap();
    let page = env.dir.path().join("cmp.html");
    env.nexusq()
        .arg("report")
        .arg(&cmp)
        .arg("-o")
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains(
            "The run ended with exit code 1 (check_failed): 9 of 9 operations are over the gate"
        ),
        "{html}"
    );
    assert!(html.contains("0 of 9 operations pass."), "{html}");
    for g in &gates {
        assert_eq!(
            (g["gate_median"].as_f64(), g["gate_p95"].as_f64()),
            (Some(0.000001), Some(0.000001))
        );
        assert_eq!(
            (&g["median_pass"], &g["p95_pass"], &g["pass"]),
            (
                &Value::Bool(false),
                &Value::Bool(false),
                &Value::Bool(false)
            )
        );
    }
}

/// `--compare` through the binary: the nine operations in order, then JSON lines. The gate is
/// set far out of reach: this test checks the plumbing, not speed (BENCHMARKS.md has that).
#[test]
fn compare_runs_native_against_rustcrypto() {
    let env = Env::new();
    let quick = [
        "--rounds",
        "1",
        "--iterations",
        "1",
        "--warmup",
        "0",
        "--gate",
        "1000",
    ];
    let out = env
        .nexusq()
        .args(["bench", "--compare"])
        .args(quick)
        .assert()
        .success();
    let table = stdout_of(&out);
    assert_in_order(&table, &compare::NAMES);
    assert!(table.contains("native"), "{table}");
    env.assert_clean();
    let out = env
        .nexusq()
        .args(["--json", "bench", "--compare"])
        .args(quick)
        .assert()
        .success();
    let lines: Vec<serde_json::Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The environment, then per operation one record per backend and one comparison.
    assert_eq!(lines.len(), 1 + 3 * compare::NAMES.len());
    env.nexusq()
        .args(["bench", "--backend", "native"])
        .args(TINY)
        .assert()
        .success();
    env.assert_clean();
}

#[test]
fn unusable_options_are_usage_errors() {
    let env = Env::new();
    for args in [
        &["bench", "--iterations", "0"][..],
        &["bench", "--vault-iterations", "0"],
        &["bench", "--gate", "0"],
        &["bench", "--compare", "--gate-median", "0"],
        &["bench", "--compare", "--gate-p95", "-1"],
        &["bench", "--compare", "--gate-p95", "NaN"],
        &["bench", "--raw"],
        &["--json", "bench", "--markdown"],
        &["bench", "--kdf-memory-mib", "1"],
        &["bench", "--kdf-from-vault", "--kdf-iterations", "1"],
    ] {
        env.nexusq().args(args).assert().code(2);
    }
    // --kdf-from-vault with no vault: the vault error, and still nothing created.
    env.nexusq()
        .args(["bench", "--kdf-from-vault"])
        .assert()
        .code(4);
    env.assert_clean();
}

/// --kdf-from-vault reads the header of the user's vault without a password and leaves the
/// file exactly as it was.
#[test]
fn kdf_from_vault_reads_without_writing() {
    let env = Env::new();
    let home = env.dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let vault = home.join("v.nxq");
    let pw = private_file(&home.join("pw"), "a benchmark test password\n");
    let init = |args: &[&str]| {
        let mut c = common::bin();
        c.env("TMPDIR", env.tmp())
            .arg("--vault")
            .arg(&vault)
            .args(args)
            .timeout(Duration::from_secs(120));
        c
    };
    init(&["init", "--kdf-memory-mib", "9", "--kdf-iterations", "1"])
        .arg("--password-file")
        .arg(&pw)
        .assert()
        .success();
    let before = std::fs::read(&vault).unwrap();
    let modified = std::fs::metadata(&vault).unwrap().modified().unwrap();
    let entries = |p: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let home_before = entries(&home);
    let out = init(&["--json", "bench", "--kdf-from-vault"])
        .args(&TINY[..6])
        .assert()
        .success();
    let first: Value = serde_json::from_str(stdout_of(&out).lines().next().unwrap()).unwrap();
    assert_eq!(first["workload"]["kdf"]["memory_kib"], 9 * 1024);
    assert_eq!(first["workload"]["kdf"]["iterations"], 1);
    assert_eq!(std::fs::read(&vault).unwrap(), before);
    assert_eq!(
        std::fs::metadata(&vault).unwrap().modified().unwrap(),
        modified
    );
    assert_eq!(entries(&home), home_before);
    env.assert_clean();
}

/// SIGINT and SIGTERM while measuring: the throwaway folder is removed and the exit is 128 +
/// the signal number (130, 143), the shells' convention.
#[test]
fn interrupted_runs_remove_the_throwaway_vault() {
    use rustix::process::{Pid, Signal, kill_process};
    // Different delays land the signal in different steps (unlock, rotation, atomic save).
    for (signal, delay_ms) in [(Signal::INT, 0), (Signal::TERM, 60), (Signal::INT, 150)] {
        let env = Env::new();
        let mut child = std::process::Command::new(BIN)
            .env_remove("NEXUSQ_VAULT")
            .env_remove("NEXUSQ_BACKEND")
            .env("TMPDIR", env.tmp())
            .arg("--vault")
            .arg(env.vault())
            .args(["bench", "--iterations", "1", "--warmup", "0"])
            .args(["--vault-iterations", "1000"])
            .args(["--kdf-memory-mib", "8", "--kdf-iterations", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the throwaway vault exists, then interrupt.
        let deadline = Instant::now() + Duration::from_secs(60);
        let vault_exists = || {
            std::fs::read_dir(env.tmp())
                .unwrap()
                .filter_map(|e| e.ok())
                .any(|e| e.path().join("bench.nxq").exists())
        };
        while !vault_exists() {
            assert!(Instant::now() < deadline, "no throwaway vault appeared");
            assert!(child.try_wait().unwrap().is_none(), "bench ended early");
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(delay_ms));
        kill_process(Pid::from_child(&child), signal).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(128 + signal.as_raw()),
            "{signal:?} after {delay_ms} ms"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("interrupted"), "{err}");
        env.assert_clean();
    }
}

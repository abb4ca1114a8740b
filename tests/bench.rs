//! `nexusq bench` through the real binary: no terminal, no vault, tiny counts and a small KDF
//! for the throwaway vault (hidden --kdf-memory-mib / --kdf-iterations) so it stays fast.
//! Every run points TMPDIR at its own folder and checks the throwaway folder is gone after,
//! also after SIGINT / SIGTERM. The --json records are validated against
//! docs/bench.schema.json.

mod common;

use assert_cmd::Command;
use common::{BIN, private_file};
use nexusq::bench::{baseline, compare, environment, report};
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

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/bench.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).expect("a valid draft 2020-12 schema")
}

fn assert_valid(validator: &jsonschema::Validator, record: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(record)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{record}\n{errors:#?}");
}

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
    assert_eq!(env_record["runner"], "ci");
    assert_eq!(env_record["workload"]["kdf"]["memory_kib"], 8192);
    assert_eq!(env_record["nexusq_version"], env!("CARGO_PKG_VERSION"));
    let names: Vec<&str> = records[1..]
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, baseline::names());
    for r in &records[1..] {
        assert_eq!(r["kind"], "operation");
        assert_eq!(r["backend"], "rustcrypto");
        let n = r["count"].as_u64().unwrap();
        assert_eq!(r["samples"].as_array().unwrap().len() as u64, n);
        let (min, max) = (r["min"].as_f64().unwrap(), r["max"].as_f64().unwrap());
        for k in ["mean", "median", "p95"] {
            let v = r[k].as_f64().unwrap();
            assert!(min <= v && v <= max, "{k} of {}", r["name"]);
        }
    }
    assert_eq!(records[1]["count"], 2);
    assert_eq!(records[12]["count"], 1);
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
    let rc = nexusq::suite::BackendChoice::RustCrypto.backend().unwrap();
    let native = nexusq::suite::BackendChoice::Native.backend().unwrap();
    let config = compare::Config {
        rounds: 2,
        per_round: 1,
        warmup: 0,
        gate: 1.5,
    };
    let c = compare::run(rc, native, &config, &mut |_| {}).unwrap();
    let validator = schema();
    let env_record = environment::Environment::collect().to_record(report::compare_workload(
        c.baseline,
        c.candidate,
        &c.config,
    ));
    assert_valid(&validator, &env_record);
    let records = report::compare_records(&c, true);
    assert_eq!(records.len(), 27);
    for r in &records {
        assert_valid(&validator, r);
    }
    assert_eq!(records[2]["kind"], "comparison");
    assert_eq!(records[2]["count"], 2);
    let table = report::compare_table(&c, report::Style::Text);
    assert_in_order(&table, &compare::NAMES);
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

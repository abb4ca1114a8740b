//! The evidence format across its two writers and its reader: every evidence file committed
//! under benches/results/ (real `nexusq bench --json` and `benches/arena --json` output)
//! validates against docs/bench.schema.json and parses with the shared record types; the
//! record types themselves validate for every workload; `nexusq report` renders them,
//! escapes what it reads, and refuses bad input with a clear error and no output file.
//! (tests/cli/report.rs renders the page in a real browser.)

use crate::common;
use crate::evidence_schema::{assert_valid, schema};
use nexusq_core::tools::bench::environment::{Build, Environment};
use nexusq_core::tools::bench::evidence::{
    self, Dataset, Gate, GateCheck, Measurement, Record, Subject, Warmup, Workload,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn results_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results")
}

/// Every committed evidence file, sorted.
fn evidence_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(results_dir())
        .expect("benches/results/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

fn datasets(path: &Path) -> Vec<Dataset> {
    let text = std::fs::read_to_string(path).unwrap();
    evidence::parse(&path.display().to_string(), &text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn committed_evidence_validates_against_the_one_schema() {
    let validator = schema();
    let files = evidence_files();
    let mut programs = BTreeSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let record: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
            assert_valid(&validator, &record);
            if record["kind"] == "environment" {
                programs.insert(record["program"].as_str().unwrap().to_string());
            }
        }
        // And the shared types read every line back.
        let ds = datasets(path);
        assert!(
            ds.iter().all(|d| !d.results.is_empty()),
            "{}",
            path.display()
        );
    }
    assert_eq!(
        programs,
        BTreeSet::from(["nexusq bench".to_string(), "nexusq-arena".to_string()]),
        "benches/results/ holds evidence of both programs: {files:?}"
    );
}

/// The full arena runs (no --filter): at least six implementations of each of ML-KEM and
/// ML-DSA besides nexusq-native's forced variants, SLH-DSA-SHAKE-128f rows, a gate where one
/// was asked for, and across the runs every library of the eight and X-Wing's.
#[test]
fn the_arena_holds_the_field() {
    let mut libraries: BTreeSet<String> = BTreeSet::new();
    let full: Vec<Dataset> = evidence_files()
        .iter()
        .flat_map(|p| datasets(p))
        .filter(|d| {
            matches!(
                &d.environment.workload,
                Workload::Arena { filter: None, .. }
            )
        })
        .collect();
    assert!(
        !full.is_empty(),
        "no unfiltered arena run under benches/results/"
    );
    for d in &full {
        let implementations = |algorithm: &str| -> BTreeSet<&str> {
            d.results
                .iter()
                .filter(|r| r.algorithm == algorithm && r.variant.is_none())
                .map(|r| r.implementation.as_str())
                .collect()
        };
        libraries.extend(d.results.iter().map(|r| r.implementation.clone()));
        for algorithm in ["ML-KEM-768", "ML-KEM-1024", "ML-DSA-65"] {
            let found = implementations(algorithm);
            assert!(found.len() >= 6, "{algorithm}: {found:?}");
            assert!(
                found.contains("nexusq-native") && found.contains("liboqs"),
                "{found:?}"
            );
        }
        // liboqs's SPHINCS+ rows are left out (loudly) on CPUs where its key pair does not
        // draw its seeds through OQS_randombytes (benches/arena/README.md): PQClean's stand
        // for round 3.1 there, beside RustCrypto's FIPS 205 (and OpenSSL's, when built in).
        let slh = implementations("SLH-DSA-SHAKE-128f");
        assert!(
            slh.contains("nexusq-native") && slh.contains("slh-dsa") && slh.len() >= 3,
            "{slh:?}"
        );
        for r in &d.results {
            assert!(
                r.min <= r.median && r.median <= r.p95 && r.p95 <= r.max,
                "{r:?}"
            );
            assert_eq!(
                r.n as u32 % r.rounds,
                0,
                "pooled rounds of equal size: {r:?}"
            );
        }
        if let Workload::Arena {
            gate_against: Some(against),
            ..
        } = &d.environment.workload
        {
            assert!(!d.gates.is_empty());
            assert!(d.gates.iter().all(|g| &g.baseline == against));
        }
    }
    // The eight: OpenSSL and BoringSSL cannot share a binary, so they are in two runs.
    for library in [
        "openssl",
        "boringssl",
        "x-wing",
        "aws-lc-rs",
        "libcrux-ml-kem",
    ] {
        assert!(
            libraries.contains(library),
            "{library} not in {libraries:?}"
        );
    }
}

fn env(workload: Workload) -> Environment {
    Environment::collect(Build::nexusq(), workload)
}

/// The shared record types validate for every workload and shape, and the schema rejects
/// what the types cannot produce.
#[test]
fn shared_record_types_validate() {
    let validator = schema();
    let workloads = [
        Workload::Baseline {
            backend: "native".into(),
            iterations: 20,
            vault_iterations: 3,
            warmup: 2,
            kdf: evidence::Kdf::from(&nexusq_core::vault::KdfParams::DEFAULT),
        },
        Workload::Compare {
            baseline: "rustcrypto".into(),
            candidate: "native".into(),
            rounds: 3,
            iterations: 20,
            warmup: 2,
            gate_median: 1.5,
            gate_p95: 2.0,
        },
        Workload::Arena {
            subject: "nexusq-native".into(),
            samples: 200,
            batch: 10,
            rounds: 3,
            warmup_ms: 50,
            filter: Some("ml-kem".into()),
            gate_against: Some("aws-lc-rs".into()),
            gate_median: Some(1.0),
            gate_p95: Some(1.2),
        },
        Workload::Arena {
            subject: "nexusq-native".into(),
            samples: 1,
            batch: 1,
            rounds: 1,
            warmup_ms: 0,
            filter: None,
            gate_against: None,
            gate_median: None,
            gate_p95: None,
        },
    ];
    for w in workloads {
        let record = serde_json::to_value(Record::Environment(Box::new(env(w)))).unwrap();
        assert_valid(&validator, &record);
    }
    let subject = |implementation, variant| Subject {
        implementation,
        variant,
        algorithm: "ML-DSA-65",
        operation: "sign",
        rounds: 3,
        warmup: Warmup::Ms(50),
        batch: 10,
    };
    let ours =
        Measurement::new(&subject("nexusq-native", None), &[10.5, 11.0, 30.25], true).unwrap();
    let forced = Measurement::new(&subject("nexusq-native", Some("avx2")), &[12.0], false).unwrap();
    let theirs = Measurement::new(&subject("aws-lc-rs", None), &[20.0, 21.0, 22.0], false).unwrap();
    let gate = GateCheck::new(
        &theirs,
        &ours,
        Gate {
            median: 1.0,
            p95: 1.2,
        },
    );
    assert!(gate.median_pass && !gate.p95_pass);
    for r in [
        Record::Result(ours.clone()),
        Record::Result(forced),
        Record::Result(theirs),
        Record::Gate(gate),
    ] {
        assert_valid(&validator, &serde_json::to_value(&r).unwrap());
    }
    let mut bad = serde_json::to_value(Record::Result(ours)).unwrap();
    bad["warmup"] = serde_json::json!({"runs": 1, "ms": 2});
    assert!(!validator.is_valid(&bad));
    bad["warmup"] = serde_json::json!({"ms": 2});
    bad["median"] = Value::Null;
    assert!(!validator.is_valid(&bad));
    let mut bad = serde_json::to_value(Record::Environment(Box::new(env(Workload::Arena {
        subject: "x".into(),
        samples: 1,
        batch: 1,
        rounds: 1,
        warmup_ms: 0,
        filter: None,
        gate_against: None,
        gate_median: None,
        gate_p95: None,
    }))))
    .unwrap();
    bad["workload"]["gate_against"] = "aws-lc-rs".into();
    assert!(!validator.is_valid(&bad), "a gate without its bounds");
    bad["workload"]
        .as_object_mut()
        .unwrap()
        .remove("gate_against");
    bad["format"] = 1.into();
    assert!(!validator.is_valid(&bad));
}

// ---------------------------------------------------------------------------------------------
// `nexusq report` through the binary

fn report(args: &[&Path], out: &Path) -> assert_cmd::assert::Assert {
    common::bin()
        .arg("report")
        .args(args)
        .arg("-o")
        .arg(out)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
}

/// The page from every committed evidence file: a section per dataset, one chart bar per
/// result, a gate table where there are gates, and nothing that reaches outside the file.
#[test]
fn report_renders_the_committed_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.html");
    let files = evidence_files();
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    report(&paths, &out).success();
    let page = std::fs::read_to_string(&out).unwrap();
    let all: Vec<Dataset> = files.iter().flat_map(|p| datasets(p)).collect();
    assert_eq!(
        page.matches("<section class=\"dataset\"").count(),
        all.len()
    );
    let results: usize = all.iter().map(|d| d.results.len()).sum();
    assert_eq!(page.matches("<rect class=\"bar").count(), results);
    assert_eq!(page.matches("<line class=\"p95\"").count(), results);
    assert!(page.contains("shorter is faster"));
    assert_eq!(
        page.matches("<h3>Reproducibility checklist</h3>").count(),
        all.len()
    );
    let gated = all.iter().filter(|d| !d.gates.is_empty()).count();
    assert_eq!(page.matches("<h3>Gate</h3>").count(), gated);
    assert!(page.contains("<h3>Arena</h3>") && page.contains("<h3>Baseline table</h3>"));
    for outside in ["<script", "src=", "href=\"http", "@import", "url("] {
        assert!(!page.contains(outside), "{outside}");
    }
}

/// A hand-made evidence file whose strings are HTML: all of it arrives escaped.
#[test]
fn report_escapes_what_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = env(Workload::Arena {
        subject: "<b>ours</b>".into(),
        samples: 1,
        batch: 1,
        rounds: 1,
        warmup_ms: 0,
        filter: Some("\"><script>alert(1)</script>".into()),
        gate_against: None,
        gate_median: None,
        gate_p95: None,
    });
    e.cpu_model = "<img src=x onerror=alert(2)>".into();
    e.command_line = vec![
        "nexusq-arena".into(),
        "--filter".into(),
        "</code><script>".into(),
    ];
    let m = Measurement::new(
        &Subject {
            implementation: "<script>alert(3)</script>",
            variant: Some("'&"),
            algorithm: "ML-KEM-768",
            operation: "keygen<",
            rounds: 1,
            warmup: Warmup::Runs(0),
            batch: 1,
        },
        &[1.0],
        false,
    )
    .unwrap();
    let text = [Record::Environment(Box::new(e)), Record::Result(m)]
        .iter()
        .map(|r| evidence::line(r) + "\n")
        .collect::<String>();
    let input = dir.path().join("hostile.jsonl");
    std::fs::write(&input, text).unwrap();
    let out = dir.path().join("r.html");
    report(&[&input], &out).success();
    let page = std::fs::read_to_string(&out).unwrap();
    for raw in ["<script", "<img", "<b>ours", "keygen<", "'&"] {
        assert!(!page.contains(raw), "{raw} reached the page unescaped");
    }
    assert!(page.contains("&lt;script&gt;alert(3)&lt;/script&gt; (&#39;&amp;)"));
    assert!(page.contains("&lt;img src=x onerror=alert(2)&gt;"));
}

#[test]
fn report_refuses_bad_input_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let good = evidence_files()[0].clone();
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            write("garbage.jsonl", "{\"kind\":\"environment\"\n"),
            "line 1",
        ),
        (
            write("old.jsonl", "{\"kind\":\"environment\",\"format\":1}\n"),
            "format 1",
        ),
        (write("empty.jsonl", ""), "is empty, not an evidence file"),
        (write("binary.jsonl", "\u{0}\u{1}"), "not a JSON record"),
    ];
    for (path, says) in &cases {
        let a = report(&[&good, path], &out).code(1);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(err.contains(says), "{path:?}: {err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(!out.exists(), "no page from bad input");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            cases.len(),
            "nothing left behind"
        );
    }
    let not_utf8 = dir.path().join("latin1.jsonl");
    std::fs::write(&not_utf8, b"\xff\xfe").unwrap();
    let a = report(&[&not_utf8], &out).code(1);
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("not UTF-8"));
    std::fs::remove_file(&not_utf8).unwrap();
    report(&[&dir.path().join("missing.jsonl")], &out).code(5);
    common::bin().arg("report").assert().code(2);
    assert!(!out.exists());
    // To stdout without -o.
    let a = common::bin().arg("report").arg(&good).assert().success();
    assert!(String::from_utf8_lossy(&a.get_output().stdout).starts_with("<!DOCTYPE html>"));
}

//! The evidence format (docs/bench.schema.json, format 2): the JSON lines that
//! `nexusq bench --json` and `benches/arena --json` write, and `nexusq report` reads. One
//! environment record, then one result record per (implementation, algorithm, operation), and
//! gate records where a run gated one implementation against another. The record types are
//! defined once, here and (the environment record, its workload and the format number) in
//! `bench::environment`; the arena depends on this crate to use them.

use super::environment::Environment;
pub use super::environment::{FORMAT, Kdf, KdfAlgorithm, Workload};
use super::stats;
use serde::{Deserialize, Serialize};

/// One line of an evidence file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Record {
    /// `"kind": "environment"`: starts a dataset.
    Environment(Box<Environment>),
    /// `"kind": "result"`: one measurement.
    Result(Measurement),
    /// `"kind": "gate"`: a candidate gated against a baseline.
    Gate(GateCheck),
}

/// The only unit: nanoseconds per operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Unit {
    /// Nanoseconds, written `"ns"`.
    #[serde(rename = "ns")]
    Ns,
}

/// How each measurement was warmed up before its samples: a number of unmeasured runs, or
/// running for a while.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Warmup {
    /// This many unmeasured runs (`{"runs": N}`).
    Runs(u32),
    /// This many milliseconds of unmeasured running (`{"ms": N}`).
    Ms(u64),
}

/// One (implementation, algorithm, operation): its pooled samples summarized.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    /// "rustcrypto", "native", "nexusq-native", "aws-lc-rs", ...
    pub implementation: String,
    /// A forced code path of the implementation ("avx2"); none for its own choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// "ML-KEM-768", "ML-KEM-768 + X25519", "Vault", ...
    pub algorithm: String,
    /// "keygen", "open", "key rotation", ...
    pub operation: String,
    /// Always nanoseconds per operation.
    pub unit: Unit,
    /// Samples, pooled over the rounds.
    pub n: usize,
    /// Alternating rounds pooled (1 for the baseline table).
    pub rounds: u32,
    /// The warm-up before the samples.
    pub warmup: Warmup,
    /// Operations timed together for one sample (each sample is the batch's time / batch).
    pub batch: u32,
    /// Mean of the samples (ns).
    pub mean: f64,
    /// Median (ns); of an even count, the mean of the middle two.
    pub median: f64,
    /// Nearest rank: the smallest sample with at least 95 % of the samples at or below it.
    pub p95: f64,
    /// Fastest sample (ns).
    pub min: f64,
    /// Slowest sample (ns).
    pub max: f64,
    /// What one operation includes, where the program says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub includes: Option<String>,
    /// Every sample in ns per operation, in the order taken (`--raw`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<Vec<f64>>,
}

/// Who was measured and how (the fields of a measurement that are not statistics).
#[derive(Clone, Debug, PartialEq)]
pub struct Subject<'a> {
    /// As [`Measurement::implementation`].
    pub implementation: &'a str,
    /// As [`Measurement::variant`].
    pub variant: Option<&'a str>,
    /// As [`Measurement::algorithm`].
    pub algorithm: &'a str,
    /// As [`Measurement::operation`].
    pub operation: &'a str,
    /// As [`Measurement::rounds`].
    pub rounds: u32,
    /// As [`Measurement::warmup`].
    pub warmup: Warmup,
    /// As [`Measurement::batch`].
    pub batch: u32,
}

impl Measurement {
    /// Summarize `samples` (ns per operation); `None` when there are none.
    pub fn new(subject: &Subject<'_>, samples: &[f64], raw: bool) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        let s = stats::summarize_ns(samples);
        Some(Measurement {
            implementation: subject.implementation.into(),
            variant: subject.variant.map(str::to_string),
            algorithm: subject.algorithm.into(),
            operation: subject.operation.into(),
            unit: Unit::Ns,
            n: s.count,
            rounds: subject.rounds,
            warmup: subject.warmup,
            batch: subject.batch,
            mean: s.mean_ns,
            median: s.median_ns,
            p95: s.p95_ns,
            min: s.min_ns,
            max: s.max_ns,
            includes: None,
            samples: raw.then(|| samples.to_vec()),
        })
    }

    /// "nexusq-native (avx2)", or the implementation alone.
    pub fn label(&self) -> String {
        label(&self.implementation, self.variant.as_deref())
    }

    /// "ML-KEM-768 keygen": the operation's name as the tables print it.
    pub fn name(&self) -> String {
        format!("{} {}", self.algorithm, self.operation)
    }
}

/// "implementation (variant)".
pub fn label(implementation: &str, variant: Option<&str>) -> String {
    match variant {
        Some(v) => format!("{implementation} ({v})"),
        None => implementation.to_string(),
    }
}

/// The largest acceptable candidate / baseline ratios of the median and of the p95.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gate {
    /// Bound on candidate / baseline of the medians.
    pub median: f64,
    /// Bound on candidate / baseline of the p95s.
    pub p95: f64,
}

impl Gate {
    /// The same bound for both.
    pub fn both(ratio: f64) -> Self {
        Gate {
            median: ratio,
            p95: ratio,
        }
    }

    /// `--gate` for both, `--gate-median` / `--gate-p95` overriding one each; every bound
    /// must be a positive finite ratio.
    pub fn from_options(
        gate: f64,
        median: Option<f64>,
        p95: Option<f64>,
    ) -> std::result::Result<Self, String> {
        let g = Gate {
            median: median.unwrap_or(gate),
            p95: p95.unwrap_or(gate),
        };
        for (v, what) in [
            (gate, "--gate"),
            (g.median, "--gate-median"),
            (g.p95, "--gate-p95"),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{what} {v} is not a positive ratio"));
            }
        }
        Ok(g)
    }
}

/// One operation of a candidate gated against a baseline: both pooled medians and p95s, their
/// ratios, and which bound held.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateCheck {
    /// As the measurements'.
    pub algorithm: String,
    /// As the measurements'.
    pub operation: String,
    /// Labels ("rustcrypto", "aws-lc-rs", "nexusq-native").
    pub baseline: String,
    /// The candidate's label.
    pub candidate: String,
    /// Always nanoseconds per operation.
    pub unit: Unit,
    /// Rounds both were pooled over (the fewer of the two).
    pub rounds: u32,
    /// Pooled samples of the baseline and of the candidate.
    pub baseline_n: usize,
    /// Pooled samples of the candidate.
    pub candidate_n: usize,
    /// The baseline's median (ns).
    pub baseline_median: f64,
    /// The candidate's median (ns).
    pub candidate_median: f64,
    /// The baseline's p95 (ns).
    pub baseline_p95: f64,
    /// The candidate's p95 (ns).
    pub candidate_p95: f64,
    /// candidate / baseline; null when undefined (a zero baseline).
    pub median_ratio: Option<f64>,
    /// candidate / baseline of the p95s; null when undefined.
    pub p95_ratio: Option<f64>,
    /// The bound the median ratio had to stay within.
    pub gate_median: f64,
    /// The bound the p95 ratio had to stay within.
    pub gate_p95: f64,
    /// The median ratio held.
    pub median_pass: bool,
    /// The p95 ratio held.
    pub p95_pass: bool,
    /// Both held.
    pub pass: bool,
}

impl GateCheck {
    /// Gate `candidate` against `baseline` (the same algorithm and operation).
    pub fn new(baseline: &Measurement, candidate: &Measurement, gate: Gate) -> Self {
        let finite = |r: f64| r.is_finite().then_some(r);
        let median_ratio = stats::ratio(candidate.median, baseline.median);
        let p95_ratio = stats::ratio(candidate.p95, baseline.p95);
        let median_pass = stats::within_gate(median_ratio, gate.median);
        let p95_pass = stats::within_gate(p95_ratio, gate.p95);
        GateCheck {
            algorithm: candidate.algorithm.clone(),
            operation: candidate.operation.clone(),
            baseline: baseline.label(),
            candidate: candidate.label(),
            unit: Unit::Ns,
            rounds: candidate.rounds.min(baseline.rounds),
            baseline_n: baseline.n,
            candidate_n: candidate.n,
            baseline_median: baseline.median,
            candidate_median: candidate.median,
            baseline_p95: baseline.p95,
            candidate_p95: candidate.p95,
            median_ratio: finite(median_ratio),
            p95_ratio: finite(p95_ratio),
            gate_median: gate.median,
            gate_p95: gate.p95,
            median_pass,
            p95_pass,
            pass: median_pass && p95_pass,
        }
    }

    /// "ML-KEM-768 keygen": the operation's name as the tables print it.
    pub fn name(&self) -> String {
        format!("{} {}", self.algorithm, self.operation)
    }

    /// "pass", or what failed: "FAIL median", "FAIL p95", "FAIL median and p95".
    pub fn verdict(&self) -> &'static str {
        verdict(self.median_pass, self.p95_pass)
    }
}

/// "pass", or which bound failed.
pub fn verdict(median_pass: bool, p95_pass: bool) -> &'static str {
    match (median_pass, p95_pass) {
        (true, true) => "pass",
        (false, true) => "FAIL median",
        (true, false) => "FAIL p95",
        (false, false) => "FAIL median and p95",
    }
}

/// One run: its environment and what it measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// Where it was read from ("file.jsonl", or "file.jsonl #2" for a second run in a file).
    pub source: String,
    /// The environment record that started it.
    pub environment: Environment,
    /// Its result records, in file order.
    pub results: Vec<Measurement>,
    /// Its gate records, in file order.
    pub gates: Vec<GateCheck>,
    /// Errors the program reported on the same stream (a failed gate under `--json`), in file
    /// order.
    pub errors: Vec<RunError>,
}

/// An error object on an evidence stream: what `nexusq --json` writes on stdout when a command
/// fails (`{"error": {"code", "kind", "message", "hint"}}`, docs/cli.md), for example after a
/// `bench --compare` whose gate failed. It has no `kind` of its own: it is recognised by its
/// `error` member, so the evidence a failing run wrote stays readable (docs/evidence.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunError {
    /// The exit code the program ended with.
    pub code: u8,
    /// Its class (`check_failed`, `usage`, ...: docs/cli.md).
    pub kind: String,
    /// What happened.
    pub message: String,
    /// What to do next.
    #[serde(default)]
    pub hint: String,
}

/// The line an error object arrives as; other members (a command's own fields) are ignored.
#[derive(Deserialize)]
struct ErrorLine {
    error: RunError,
}

/// Why an evidence file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The datasets of an evidence file: every non-empty line a record, each environment record
/// starting a dataset. `source` names the file in each dataset.
pub fn parse(source: &str, text: &str) -> std::result::Result<Vec<Dataset>, ParseError> {
    let mut out: Vec<Dataset> = Vec::new();
    // Errors written before any environment record: the program failed before measuring.
    let mut early: Vec<RunError> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let err = |message: String| ParseError {
            line: i + 1,
            message,
        };
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| err(format!("not a JSON record: {e}")))?;
        if value.get("kind").and_then(|k| k.as_str()) == Some("environment") {
            match value.get("format").and_then(|f| f.as_u64()) {
                Some(f) if f == u64::from(FORMAT) => {}
                Some(f) => {
                    return Err(err(format!(
                        "evidence format {f}; this nexusq reads format {FORMAT}"
                    )));
                }
                None => return Err(err("an environment record without a format".into())),
            }
        }
        if value.get("kind").is_none() && value.get("error").is_some() {
            let line: ErrorLine = serde_json::from_value(value)
                .map_err(|e| err(format!("not an error object: {e}")))?;
            match out.last_mut() {
                Some(d) => d.errors.push(line.error),
                None => early.push(line.error),
            }
            continue;
        }
        let record: Record = serde_json::from_value(value)
            .map_err(|e| err(format!("not an evidence record: {e}")))?;
        match record {
            Record::Environment(environment) => {
                let n = out.iter().filter(|d| d.source.starts_with(source)).count();
                out.push(Dataset {
                    source: if n == 0 {
                        source.to_string()
                    } else {
                        format!("{source} #{}", n + 1)
                    },
                    environment: *environment,
                    results: Vec::new(),
                    gates: Vec::new(),
                    errors: std::mem::take(&mut early),
                });
            }
            Record::Result(m) => match out.last_mut() {
                Some(d) => d.results.push(m),
                None => return Err(err("a result before any environment record".into())),
            },
            Record::Gate(g) => match out.last_mut() {
                Some(d) => d.gates.push(g),
                None => return Err(err("a gate record before any environment record".into())),
            },
        }
    }
    if out.is_empty() {
        let message = match early.first() {
            Some(e) => format!(
                "no environment record: the program stopped before measuring, with exit code {}: \
                 {}",
                e.code, e.message
            ),
            None => "no environment record: not an evidence file".into(),
        };
        return Err(ParseError { line: 0, message });
    }
    Ok(out)
}

/// One record as its JSON line (no newline).
pub fn line(record: &Record) -> String {
    serde_json::to_string(record).expect("plain data")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject() -> Subject<'static> {
        Subject {
            implementation: "nexusq-native",
            variant: Some("avx2"),
            algorithm: "ML-KEM-768",
            operation: "keygen",
            rounds: 3,
            warmup: Warmup::Ms(50),
            batch: 10,
        }
    }

    #[test]
    fn measurement_summarizes_and_round_trips() {
        let m = Measurement::new(&subject(), &[4.0, 1.0, 3.0, 2.0], true).unwrap();
        assert_eq!(
            (m.n, m.median, m.p95, m.min, m.max, m.mean),
            (4, 2.5, 4.0, 1.0, 4.0, 2.5)
        );
        assert_eq!(m.label(), "nexusq-native (avx2)");
        assert_eq!(m.name(), "ML-KEM-768 keygen");
        let text = line(&Record::Result(m.clone()));
        assert!(text.starts_with(r#"{"kind":"result","implementation":"nexusq-native""#));
        assert!(text.contains(r#""warmup":{"ms":50}"#), "{text}");
        let back: Record = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Record::Result(m));
        assert!(Measurement::new(&subject(), &[], false).is_none());
        let bare = Measurement::new(&subject(), &[1.0], false).unwrap();
        assert!(!line(&Record::Result(bare)).contains("samples"));
    }

    #[test]
    fn gate_checks_median_and_p95_separately() {
        let base = Measurement::new(&subject(), &[100.0, 100.0, 100.0, 400.0], false).unwrap();
        let slow_tail = Measurement::new(&subject(), &[100.0, 100.0, 100.0, 900.0], false).unwrap();
        let g = GateCheck::new(&base, &slow_tail, Gate::both(1.5));
        assert_eq!((g.median_ratio, g.p95_ratio), (Some(1.0), Some(2.25)));
        assert!(g.median_pass && !g.p95_pass && !g.pass);
        assert_eq!(g.verdict(), "FAIL p95");
        let g = GateCheck::new(
            &base,
            &slow_tail,
            Gate {
                median: 1.0,
                p95: 2.25,
            },
        );
        assert!(g.pass);
        assert_eq!(g.verdict(), "pass");
        let slow = Measurement::new(&subject(), &[200.0, 200.0, 200.0, 400.0], false).unwrap();
        let g = GateCheck::new(&base, &slow, Gate::both(1.5));
        assert_eq!(g.verdict(), "FAIL median");
        let g = GateCheck::new(
            &base,
            &slow,
            Gate {
                median: 2.0,
                p95: 0.5,
            },
        );
        assert_eq!(g.verdict(), "FAIL p95");
        let g = GateCheck::new(
            &base,
            &slow,
            Gate {
                median: 1.0,
                p95: 0.5,
            },
        );
        assert_eq!(g.verdict(), "FAIL median and p95");
        let zero = Measurement::new(&subject(), &[0.0], false).unwrap();
        let g = GateCheck::new(&zero, &slow, Gate::both(1.5));
        assert_eq!((g.median_ratio, g.pass), (None, false));
    }

    #[test]
    fn gate_options() {
        assert_eq!(Gate::from_options(1.5, None, None), Ok(Gate::both(1.5)));
        assert_eq!(
            Gate::from_options(1.5, Some(1.1), None),
            Ok(Gate {
                median: 1.1,
                p95: 1.5
            })
        );
        assert_eq!(
            Gate::from_options(1.5, None, Some(2.0)),
            Ok(Gate {
                median: 1.5,
                p95: 2.0
            })
        );
        assert!(Gate::from_options(0.0, None, None).is_err());
        assert!(Gate::from_options(1.5, Some(f64::NAN), None).is_err());
        assert!(Gate::from_options(1.5, None, Some(-1.0)).is_err());
    }

    #[test]
    fn parse_splits_datasets_and_names_bad_lines() {
        let env = r#"{"kind":"environment","format":1}"#;
        let e = parse("f", env).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("format 1"), "{e}");
        let e = parse("f", "\n{not json\n").unwrap_err();
        assert_eq!(e.line, 2);
        let m = Measurement::new(&subject(), &[1.0], false).unwrap();
        let e = parse("f", &line(&Record::Result(m))).unwrap_err();
        assert!(e.message.contains("before any environment"), "{e}");
        assert!(
            parse("f", "")
                .unwrap_err()
                .message
                .contains("no environment")
        );
        let e = parse("f", r#"{"kind":"result","implementation":"x"}"#).unwrap_err();
        assert!(e.message.contains("not an evidence record"), "{e}");
    }

    /// What `nexusq --json bench --compare` writes when its gate fails: the records, then the
    /// error object. The error belongs to the dataset; alone, it explains the empty file.
    #[test]
    fn parse_keeps_error_objects_of_a_failed_run() {
        use super::super::environment::{Build, Environment};
        let env = Environment::collect(
            Build::nexusq(),
            Workload::Baseline {
                backend: "rustcrypto".into(),
                iterations: 1,
                vault_iterations: 1,
                warmup: 0,
                kdf: Kdf::from(&crate::vault::KdfParams::DEFAULT),
            },
        );
        let m = Measurement::new(&subject(), &[1.0], false).unwrap();
        let error = r#"{"error":{"code":1,"kind":"check_failed","message":"1 of 9 operations are over the gate","hint":"see the table"}}"#;
        let text = [
            line(&Record::Environment(Box::new(env))),
            line(&Record::Result(m)),
            error.to_string(),
        ]
        .join("\n");
        let datasets = parse("cmp.jsonl", &text).unwrap();
        assert_eq!(datasets.len(), 1);
        assert_eq!(datasets[0].results.len(), 1);
        assert_eq!(
            datasets[0].errors,
            [RunError {
                code: 1,
                kind: "check_failed".into(),
                message: "1 of 9 operations are over the gate".into(),
                hint: "see the table".into(),
            }]
        );
        let e = parse("f", error).unwrap_err();
        assert!(
            e.message
                .contains("stopped before measuring, with exit code 1: 1 of 9"),
            "{e}"
        );
        let e = parse("f", r#"{"error":"x"}"#).unwrap_err();
        assert!(e.message.contains("not an error object"), "{e}");
    }
}

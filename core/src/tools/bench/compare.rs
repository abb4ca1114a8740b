//! `nexusq bench --compare`: two backends over the nine ML-KEM / ML-DSA operations of the
//! Backend trait, in alternating rounds; pooled median and nearest-rank p95 per backend, the
//! candidate / baseline ratios, and a gate on both the median and the p95 ratio (the seed's
//! hosted gate). Written over two `&dyn Backend` so it is the same code whichever backends are
//! compared.

use super::baseline::Progress;
use super::evidence::Gate;
use super::ops::{self, Op};
use super::stats::{Summary, pool, ratio, summarize, within_gate};
use crate::error::Result;
use crate::suite::Backend;
use crate::suite::hybrid_kem::KemLevel;
use std::time::Duration;

/// The nine operations, in order.
pub const NAMES: [&str; 9] = [
    "ML-KEM-768 keygen",
    "ML-KEM-768 encaps",
    "ML-KEM-768 decaps",
    "ML-KEM-1024 keygen",
    "ML-KEM-1024 encaps",
    "ML-KEM-1024 decaps",
    "ML-DSA-65 keygen",
    "ML-DSA-65 sign",
    "ML-DSA-65 verify",
];

/// What each operation includes, for the note under the table.
pub const NOTE: &str = "Bare Backend-trait calls: ML-KEM keygen from (d, z); encaps includes \
    the FIPS 203 key check; decaps expands the key from (d, z); ML-DSA-65 keygen from a 32-byte \
    seed, hedged sign (key expanded from its seed) and verify of a 184-byte message. Inputs are \
    prepared outside the timer. Gate: the pooled median ratio and the pooled p95 ratio \
    candidate/baseline each at most its bound.";

/// The nine operations of one backend, in `NAMES` order.
pub fn operations(backend: &dyn Backend) -> Result<Vec<Op<'_>>> {
    let mut out = Vec::with_capacity(NAMES.len());
    for level in [KemLevel::MlKem768, KemLevel::MlKem1024] {
        out.push(ops::mlkem_keygen(backend, level));
        out.push(ops::mlkem_encaps(backend, level));
        out.push(ops::mlkem_decaps(backend, level)?);
    }
    out.push(ops::mldsa65_keygen(backend));
    out.push(ops::mldsa65_sign(backend));
    out.push(ops::mldsa65_verify(backend)?);
    Ok(out)
}

/// How much to measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Alternating rounds (in each, both backends take `per_round` samples of every operation).
    pub rounds: u32,
    /// Samples per operation, per backend, per round.
    pub per_round: u32,
    /// Unmeasured runs per operation and backend before the first round.
    pub warmup: u32,
    /// The largest acceptable median and p95 ratios candidate / baseline.
    pub gate: Gate,
}

/// One operation compared.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The operation's name, as the table prints it.
    pub name: String,
    /// The baseline's samples, pooled over the rounds and summarized.
    pub baseline: Summary,
    /// The candidate's samples, pooled and summarized.
    pub candidate: Summary,
    /// The baseline's samples, every round's, in the order taken.
    pub baseline_samples: Vec<Duration>,
    /// The candidate's samples, every round's, in the order taken.
    pub candidate_samples: Vec<Duration>,
    /// candidate median / baseline median.
    pub median_ratio: f64,
    /// candidate p95 / baseline p95.
    pub p95_ratio: f64,
    /// The median ratio is within its bound.
    pub median_pass: bool,
    /// The p95 ratio is within its bound.
    pub p95_pass: bool,
    /// Both are.
    pub pass: bool,
}

impl Row {
    /// Pool each backend's rounds, summarize, and compare.
    pub(crate) fn from_rounds(
        name: impl Into<String>,
        baseline_rounds: &[Vec<Duration>],
        candidate_rounds: &[Vec<Duration>],
        gate: Gate,
    ) -> Row {
        let baseline_samples = pool(baseline_rounds);
        let candidate_samples = pool(candidate_rounds);
        let baseline = summarize(&baseline_samples);
        let candidate = summarize(&candidate_samples);
        let median_ratio = ratio(candidate.median_ns, baseline.median_ns);
        let p95_ratio = ratio(candidate.p95_ns, baseline.p95_ns);
        let median_pass = within_gate(median_ratio, gate.median);
        let p95_pass = within_gate(p95_ratio, gate.p95);
        Row {
            name: name.into(),
            baseline,
            candidate,
            baseline_samples,
            candidate_samples,
            median_ratio,
            p95_ratio,
            median_pass,
            p95_pass,
            pass: median_pass && p95_pass,
        }
    }
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The baseline backend's name.
    pub baseline: &'static str,
    /// The candidate backend's name.
    pub candidate: &'static str,
    /// How much was measured, and the gate.
    pub config: Config,
    /// One row per operation.
    pub rows: Vec<Row>,
}

impl Comparison {
    /// Names of the operations over the gate, with what failed ("median", "p95", both).
    pub fn failures(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| !r.pass)
            .map(|r| {
                let what = match (r.median_pass, r.p95_pass) {
                    (false, false) => "median and p95",
                    (false, true) => "median",
                    _ => "p95",
                };
                format!("{} ({what})", r.name)
            })
            .collect()
    }
}

/// Run both backends over the nine operations: warm-up, then `rounds` rounds; within a round
/// each operation runs on both backends back to back, the first backend alternating between
/// rounds so neither always goes first.
pub fn run(
    baseline: &dyn Backend,
    candidate: &dyn Backend,
    config: &Config,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Comparison> {
    let mut ops_a = operations(baseline)?;
    let mut ops_b = operations(candidate)?;
    let total = NAMES.len();
    for (a, b) in ops_a.iter_mut().zip(ops_b.iter_mut()) {
        ops::measure(a, config.warmup, 0)?;
        ops::measure(b, config.warmup, 0)?;
    }
    // [op][round] samples of each backend.
    let mut rounds_a: Vec<Vec<Vec<Duration>>> = vec![Vec::new(); total];
    let mut rounds_b: Vec<Vec<Vec<Duration>>> = vec![Vec::new(); total];
    for round in 0..config.rounds {
        for i in 0..total {
            progress(Progress {
                verb: "measuring",
                what: NAMES[i],
                index: i + 1,
                total,
            });
            let mut sample_a = || ops::measure(&mut ops_a[i], 0, config.per_round);
            if round % 2 == 0 {
                rounds_a[i].push(sample_a()?);
                rounds_b[i].push(ops::measure(&mut ops_b[i], 0, config.per_round)?);
            } else {
                let b = ops::measure(&mut ops_b[i], 0, config.per_round)?;
                rounds_a[i].push(sample_a()?);
                rounds_b[i].push(b);
            }
        }
    }
    let rows = NAMES
        .iter()
        .zip(rounds_a.iter().zip(&rounds_b))
        .map(|(name, (a, b))| Row::from_rounds(*name, a, b, config.gate))
        .collect();
    Ok(Comparison {
        baseline: baseline.name(),
        candidate: candidate.name(),
        config: *config,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::rustcrypto::RustCrypto;

    fn ns(v: &[u64]) -> Vec<Duration> {
        v.iter().copied().map(Duration::from_nanos).collect()
    }

    #[test]
    fn row_pools_rounds_and_gates_median_and_p95() {
        let a = vec![ns(&[100, 100, 110]), ns(&[90, 100, 400])];
        let b = vec![ns(&[150, 160, 140]), ns(&[150, 150, 900])];
        let row = Row::from_rounds(
            "op",
            &a,
            &b,
            Gate {
                median: 1.5,
                p95: 2.25,
            },
        );
        assert_eq!(row.baseline.count, 6);
        assert_eq!(row.baseline.median_ns, 100.0); // 90,100,100,100,110,400
        assert_eq!(row.candidate.median_ns, 150.0); // 140,150,150,150,160,900
        assert_eq!(row.baseline.p95_ns, 400.0);
        assert_eq!(row.candidate.p95_ns, 900.0);
        assert_eq!(row.median_ratio, 1.5);
        assert_eq!(row.p95_ratio, 2.25);
        assert!(row.pass, "1.5 and 2.25 are within gates of 1.5 and 2.25");
        let tight_median = Row::from_rounds(
            "op",
            &a,
            &b,
            Gate {
                median: 1.49,
                p95: 3.0,
            },
        );
        assert!(!tight_median.median_pass && tight_median.p95_pass && !tight_median.pass);
        // The same bound for both (--gate 1.5): the median passes, the p95 does not.
        let both = Row::from_rounds("op", &a, &b, Gate::both(1.5));
        assert!(both.median_pass && !both.p95_pass && !both.pass);
        // A faster candidate passes both.
        let fast = Row::from_rounds("op", &b, &a, Gate::both(1.0));
        assert!((fast.median_ratio - 100.0 / 150.0).abs() < 1e-12);
        assert!(fast.pass);
    }

    #[test]
    fn failures_lists_rows_over_the_gate() {
        let a = vec![ns(&[100])];
        let slow = vec![ns(&[300])];
        let c = Comparison {
            baseline: "x",
            candidate: "y",
            config: Config {
                rounds: 1,
                per_round: 1,
                warmup: 0,
                gate: Gate::both(1.5),
            },
            rows: vec![
                Row::from_rounds("ok", &a, &a, Gate::both(1.5)),
                Row::from_rounds("slow", &a, &slow, Gate::both(1.5)),
                Row::from_rounds(
                    "tail",
                    &a,
                    &slow,
                    Gate {
                        median: 4.0,
                        p95: 2.0,
                    },
                ),
            ],
        };
        assert_eq!(c.failures(), vec!["slow (median and p95)", "tail (p95)"]);
    }

    /// The real comparison code, RustCrypto against itself: every operation measured in every
    /// round for both, and ratios near 1 (not asserted tightly: the machine is shared).
    #[test]
    fn rustcrypto_against_itself() {
        let config = Config {
            rounds: 2,
            per_round: 2,
            warmup: 1,
            gate: Gate::both(1.5),
        };
        let mut seen = Vec::new();
        let c = run(&RustCrypto, &RustCrypto, &config, &mut |p| {
            seen.push((p.what.to_string(), p.index, p.total))
        })
        .unwrap();
        assert_eq!((c.baseline, c.candidate), ("rustcrypto", "rustcrypto"));
        assert_eq!(c.rows.len(), 9);
        assert_eq!(seen.len(), 18);
        assert_eq!(seen[9], ("ML-KEM-768 keygen".to_string(), 1, 9));
        for (row, name) in c.rows.iter().zip(NAMES) {
            assert_eq!(row.name, name);
            assert_eq!(row.baseline.count, 4);
            assert_eq!(row.candidate_samples.len(), 4);
            assert!(row.median_ratio > 0.0 && row.median_ratio.is_finite());
            assert!(row.p95_ratio > 0.0 && row.p95_ratio.is_finite());
        }
    }
}

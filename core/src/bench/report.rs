//! The results as text: the aligned table, the Markdown table for BENCHMARKS.md, and the
//! evidence records of `--json` (`evidence`, layout in docs/bench.schema.json). Returns strings
//! and records; the caller prints them.

use super::baseline::{self, Baseline};
use super::compare::{self, Comparison};
use super::evidence::{self, GateCheck, Kdf, Measurement, Record, Subject, Warmup, Workload};
use super::stats::Summary;
use std::fmt::Write as _;
use std::time::Duration;

/// Plain aligned columns, or a Markdown table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Space-aligned columns, for a terminal.
    Text,
    /// A Markdown table, for BENCHMARKS.md.
    Markdown,
}

/// Whole nanoseconds with the thousands separated by spaces: 1234567.4 -> "1 234 567".
pub fn group_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    let digits = format!("{:.0}", ns.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    if ns < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

/// A ratio to two decimals, "-" when undefined.
pub fn format_ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}")
    } else {
        "-".into()
    }
}

/// A table: header, right-aligned cells except the first column.
fn table(style: Style, header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let pad = |s: &str, w: usize, left: bool| {
        let fill = " ".repeat(w - s.chars().count());
        if left {
            format!("{s}{fill}")
        } else {
            format!("{fill}{s}")
        }
    };
    let line = |cells: &[&str]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| pad(c, widths[i], i == 0))
            .collect();
        match style {
            Style::Text => parts.join("  ").trim_end().to_string(),
            Style::Markdown => format!("| {} |", parts.join(" | ")),
        }
    };
    let mut out = String::new();
    out.push_str(&line(header));
    out.push('\n');
    if style == Style::Markdown {
        let rule: Vec<String> = widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    "-".repeat(w + 2)
                } else {
                    format!("{}:", "-".repeat(w + 1))
                }
            })
            .collect();
        out.push_str(&format!("|{}|\n", rule.join("|")));
    }
    for row in rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        out.push_str(&line(&cells));
        out.push('\n');
    }
    out
}

/// What the baseline run measured, in one line.
pub fn baseline_heading(b: &Baseline) -> String {
    let c = &b.config;
    format!(
        "Backend {}; {} samples per crypto operation, {} per vault operation, {} warm-up run{} \
         of each; throwaway vault with {}; times in ns.",
        b.backend,
        c.iterations,
        c.vault_iterations,
        c.warmup,
        if c.warmup == 1 { "" } else { "s" },
        c.kdf.describe(),
    )
}

fn summary_cells(s: &Summary) -> Vec<String> {
    vec![
        s.count.to_string(),
        group_ns(s.mean_ns),
        group_ns(s.median_ns),
        group_ns(s.p95_ns),
        group_ns(s.min_ns),
        group_ns(s.max_ns),
    ]
}

/// The 12-row table with its heading and the notes on what each row includes.
pub fn baseline_table(b: &Baseline, style: Style) -> String {
    let header = [
        "operation",
        "n",
        "mean ns",
        "median ns",
        "p95 ns",
        "min ns",
        "max ns",
    ];
    let rows: Vec<Vec<String>> = b
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.name.to_string()];
            cells.extend(summary_cells(&r.summary));
            cells
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "{}", baseline_heading(b));
    out.push('\n');
    out.push_str(&table(style, &header, &rows));
    out.push('\n');
    let _ = writeln!(
        out,
        "Mean is the published figure; p95 is nearest-rank. What one sample of each row includes:"
    );
    if style == Style::Markdown {
        out.push('\n');
    }
    for r in &b.rows {
        let _ = match style {
            Style::Text => writeln!(out, "  {}: {}.", r.name, r.includes),
            Style::Markdown => writeln!(out, "- **{}**: {}.", r.name, r.includes),
        };
    }
    out
}

/// The comparison table, its heading and note.
pub fn compare_table(c: &Comparison, style: Style) -> String {
    let (a, b) = (c.baseline, c.candidate);
    let h = [
        "operation".to_string(),
        format!("{a} median ns"),
        format!("{b} median ns"),
        "median ratio".to_string(),
        format!("{a} p95 ns"),
        format!("{b} p95 ns"),
        "p95 ratio".to_string(),
        format!("gate {} / {}", c.config.gate.median, c.config.gate.p95),
    ];
    let header: Vec<&str> = h.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                group_ns(r.baseline.median_ns),
                group_ns(r.candidate.median_ns),
                format_ratio(r.median_ratio),
                group_ns(r.baseline.p95_ns),
                group_ns(r.candidate.p95_ns),
                format_ratio(r.p95_ratio),
                evidence::verdict(r.median_pass, r.p95_pass).to_string(),
            ]
        })
        .collect();
    let mut out = String::new();
    let cfg = &c.config;
    let _ = writeln!(
        out,
        "{b} / {a}: {} alternating rounds of {} samples per operation and backend ({} pooled), \
         {} warm-up run{}; ratios are {b} / {a} (below 1: {b} is faster); the gate bounds the \
         median ratio by {} and the p95 ratio by {}.",
        cfg.rounds,
        cfg.per_round,
        u64::from(cfg.rounds) * u64::from(cfg.per_round),
        cfg.warmup,
        if cfg.warmup == 1 { "" } else { "s" },
        cfg.gate.median,
        cfg.gate.p95,
    );
    out.push('\n');
    out.push_str(&table(style, &header, &rows));
    out.push('\n');
    let _ = writeln!(out, "{}", compare::NOTE);
    out
}

/// The workload of a baseline run's environment record.
pub fn baseline_workload(backend: &str, c: &baseline::Config) -> Workload {
    Workload::Baseline {
        backend: backend.into(),
        iterations: c.iterations,
        vault_iterations: c.vault_iterations,
        warmup: c.warmup,
        kdf: Kdf::from(&c.kdf),
    }
}

/// The workload of a comparison's environment record.
pub fn compare_workload(baseline: &str, candidate: &str, c: &compare::Config) -> Workload {
    Workload::Compare {
        baseline: baseline.into(),
        candidate: candidate.into(),
        rounds: c.rounds,
        iterations: c.per_round,
        warmup: c.warmup,
        gate_median: c.gate.median,
        gate_p95: c.gate.p95,
    }
}

fn ns(samples: &[Duration]) -> Vec<f64> {
    samples.iter().map(|d| d.as_nanos() as f64).collect()
}

/// "ML-KEM-768 keygen" -> ("ML-KEM-768", "keygen"): the operation is the last word.
pub fn split_name(name: &str) -> (&str, &str) {
    name.rsplit_once(' ').unwrap_or((name, ""))
}

/// One result record per baseline row; with `raw`, each with its samples.
pub fn baseline_records(b: &Baseline, raw: bool) -> Vec<Record> {
    b.rows
        .iter()
        .filter_map(|r| {
            let (algorithm, operation) = baseline::algorithm_and_operation(r.name);
            let subject = Subject {
                implementation: b.backend,
                variant: None,
                algorithm,
                operation,
                rounds: 1,
                warmup: Warmup::Runs(b.config.warmup),
                batch: 1,
            };
            let mut m = Measurement::new(&subject, &ns(&r.samples), raw)?;
            m.includes = Some(r.includes.to_string());
            Some(Record::Result(m))
        })
        .collect()
}

/// Per compared operation: a result record for each backend (pooled samples), then its gate
/// record.
pub fn compare_records(c: &Comparison, raw: bool) -> Vec<Record> {
    let mut out = Vec::with_capacity(c.rows.len() * 3);
    for r in &c.rows {
        let (algorithm, operation) = split_name(&r.name);
        let measure = |implementation: &str, samples: &[Duration]| {
            let subject = Subject {
                implementation,
                variant: None,
                algorithm,
                operation,
                rounds: c.config.rounds,
                warmup: Warmup::Runs(c.config.warmup),
                batch: 1,
            };
            Measurement::new(&subject, &ns(samples), raw)
        };
        let (Some(a), Some(b)) = (
            measure(c.baseline, &r.baseline_samples),
            measure(c.candidate, &r.candidate_samples),
        ) else {
            continue;
        };
        let gate = GateCheck::new(&a, &b, c.config.gate);
        out.extend([Record::Result(a), Record::Result(b), Record::Gate(gate)]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::baseline::{Config, Kind, ROWS, Row};
    use crate::bench::stats::summarize;

    fn synthetic() -> Baseline {
        Baseline {
            backend: "rustcrypto",
            config: Config::default(),
            rows: ROWS
                .iter()
                .enumerate()
                .map(|(i, (name, kind, includes))| {
                    let samples: Vec<Duration> = (1..=4)
                        .map(|k| Duration::from_nanos(1000 * (i as u64 + 1) * k))
                        .collect();
                    Row {
                        name,
                        kind: *kind,
                        includes,
                        summary: summarize(&samples),
                        samples,
                    }
                })
                .collect(),
        }
    }

    #[test]
    fn grouping() {
        assert_eq!(group_ns(0.0), "0");
        assert_eq!(group_ns(999.4), "999");
        assert_eq!(group_ns(1000.0), "1 000");
        assert_eq!(group_ns(1_234_567.5), "1 234 568");
        assert_eq!(group_ns(f64::NAN), "-");
        assert_eq!(format_ratio(1.0 / 3.0), "0.33");
        assert_eq!(format_ratio(f64::INFINITY), "-");
    }

    #[test]
    fn tables_have_every_row_in_order() {
        let b = synthetic();
        for style in [Style::Text, Style::Markdown] {
            let t = baseline_table(&b, style);
            let mut at = 0;
            for (name, _, _) in ROWS {
                let found = t[at..].find(name).unwrap_or_else(|| panic!("{name}"));
                at += found + name.len();
            }
            let lanes = crate::vault::KdfParams::for_new_vault().parallelism;
            assert!(t.contains(&format!("64 MiB, t=3, p={lanes}")), "{t}");
        }
        let md = baseline_table(&b, Style::Markdown);
        assert!(md.contains("| operation "));
        assert!(md.contains("|--"));
        assert!(md.contains("| ML-KEM-768 + X25519 keygen  | 4 |"));
        assert!(md.contains("- **Vault open**: read the file"));
        assert_eq!(b.rows[9].kind, Kind::Vault);
    }

    #[test]
    fn records() {
        let b = synthetic();
        let recs = baseline_records(&b, true);
        assert_eq!(recs.len(), 12);
        let Record::Result(first) = &recs[0] else {
            panic!("{:?}", recs[0])
        };
        assert_eq!(first.name(), "ML-KEM-768 + X25519 keygen");
        assert_eq!(
            (first.algorithm.as_str(), first.operation.as_str()),
            ("ML-KEM-768 + X25519", "keygen")
        );
        assert_eq!(first.mean, 2500.0);
        assert_eq!(first.samples, Some(vec![1000.0, 2000.0, 3000.0, 4000.0]));
        assert_eq!(first.warmup, Warmup::Runs(2));
        let Record::Result(last) = &recs[11] else {
            panic!()
        };
        assert_eq!(
            (last.algorithm.as_str(), last.operation.as_str()),
            ("Identity", "key rotation")
        );
        let names: Vec<String> = recs
            .iter()
            .map(|r| match r {
                Record::Result(m) => m.name(),
                _ => panic!(),
            })
            .collect();
        assert_eq!(names, baseline::names());
        let Record::Result(bare) = &baseline_records(&b, false)[0] else {
            panic!()
        };
        assert!(bare.samples.is_none());
        assert_eq!(split_name("ML-DSA-65 sign"), ("ML-DSA-65", "sign"));
    }
}

//! The results as text: the aligned table, the Markdown table for BENCHMARKS.md, and the JSON
//! records of `--json` (layout in docs/bench.schema.json). Returns strings and values; the
//! caller prints them.

use super::baseline::{self, Baseline};
use super::compare::{self, Comparison};
use super::stats::Summary;
use crate::vault::KdfParams;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::time::Duration;

/// Plain aligned columns, or a Markdown table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Text,
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
        format!("gate {}", c.config.gate),
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
                if r.pass { "pass" } else { "FAIL" }.to_string(),
            ]
        })
        .collect();
    let mut out = String::new();
    let cfg = &c.config;
    let _ = writeln!(
        out,
        "{b} / {a}: {} alternating rounds of {} samples per operation and backend ({} pooled), \
         {} warm-up run{}; ratios are {b} / {a} (below 1: {b} is faster).",
        cfg.rounds,
        cfg.per_round,
        u64::from(cfg.rounds) * u64::from(cfg.per_round),
        cfg.warmup,
        if cfg.warmup == 1 { "" } else { "s" },
    );
    out.push('\n');
    out.push_str(&table(style, &header, &rows));
    out.push('\n');
    let _ = writeln!(out, "{}", compare::NOTE);
    out
}

fn kdf_json(p: &KdfParams) -> Value {
    json!({
        "algorithm": "argon2id",
        "version": 19,
        "memory_kib": p.memory_kib,
        "iterations": p.iterations,
        "parallelism": p.parallelism,
    })
}

/// The workload part of the environment record for a baseline run.
pub fn baseline_workload(backend: &str, c: &baseline::Config) -> Value {
    json!({
        "mode": "baseline",
        "backend": backend,
        "iterations": c.iterations,
        "vault_iterations": c.vault_iterations,
        "warmup": c.warmup,
        "kdf": kdf_json(&c.kdf),
    })
}

/// The workload part of the environment record for a comparison.
pub fn compare_workload(baseline: &str, candidate: &str, c: &compare::Config) -> Value {
    json!({
        "mode": "compare",
        "baseline": baseline,
        "candidate": candidate,
        "rounds": c.rounds,
        "iterations": c.per_round,
        "warmup": c.warmup,
        "gate": c.gate,
    })
}

fn ns_samples(samples: &[Duration]) -> Value {
    samples
        .iter()
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .collect::<Vec<u64>>()
        .into()
}

/// A number, or null when undefined (JSON has no NaN).
fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// One operation record.
pub fn operation_record(
    name: &str,
    backend: &str,
    s: &Summary,
    samples: Option<&[Duration]>,
) -> Value {
    let mut v = json!({
        "kind": "operation",
        "name": name,
        "backend": backend,
        "unit": "ns",
        "count": s.count,
        "mean": num(s.mean_ns),
        "median": num(s.median_ns),
        "p95": num(s.p95_ns),
        "min": num(s.min_ns),
        "max": num(s.max_ns),
    });
    if let Some(samples) = samples {
        v["samples"] = ns_samples(samples);
    }
    v
}

/// One record per baseline row; with `raw`, each with its samples.
pub fn baseline_records(b: &Baseline, raw: bool) -> Vec<Value> {
    b.rows
        .iter()
        .map(|r| {
            let mut v =
                operation_record(r.name, b.backend, &r.summary, raw.then_some(&r.samples[..]));
            v["includes"] = r.includes.into();
            v
        })
        .collect()
}

/// Per compared operation: an operation record for each backend (pooled samples), then the
/// comparison record.
pub fn compare_records(c: &Comparison, raw: bool) -> Vec<Value> {
    let mut out = Vec::with_capacity(c.rows.len() * 3);
    for r in &c.rows {
        for (backend, s, samples) in [
            (c.baseline, &r.baseline, &r.baseline_samples),
            (c.candidate, &r.candidate, &r.candidate_samples),
        ] {
            let mut v = operation_record(&r.name, backend, s, raw.then_some(&samples[..]));
            v["rounds"] = c.config.rounds.into();
            out.push(v);
        }
        out.push(json!({
            "kind": "comparison",
            "name": r.name,
            "baseline": c.baseline,
            "candidate": c.candidate,
            "unit": "ns",
            "rounds": c.config.rounds,
            "count": r.baseline.count,
            "baseline_median": num(r.baseline.median_ns),
            "candidate_median": num(r.candidate.median_ns),
            "baseline_p95": num(r.baseline.p95_ns),
            "candidate_p95": num(r.candidate.p95_ns),
            "median_ratio": num(r.median_ratio),
            "p95_ratio": num(r.p95_ratio),
            "gate": c.config.gate,
            "pass": r.pass,
        }));
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
        assert_eq!(recs[0]["name"], "ML-KEM-768 + X25519 keygen");
        assert_eq!(recs[0]["mean"], 2500.0);
        assert_eq!(recs[0]["samples"], json!([1000, 2000, 3000, 4000]));
        assert!(baseline_records(&b, false)[0].get("samples").is_none());
        assert_eq!(num(f64::NAN), Value::Null);
    }
}

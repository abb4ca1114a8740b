//! The results as text: the aligned table, the Markdown table for BENCHMARKS.md, and the
//! evidence records of `--json` (`evidence`, layout in docs/bench.schema.json). Returns strings
//! and records; the caller prints them.

use super::baseline::{self, Baseline};
use super::compare::{self, Comparison};
use super::evidence::{self, GateCheck, Kdf, Measurement, Record, Subject, Warmup, Workload};
use super::stats::Summary;
use std::fmt::Write as _;
use std::time::Duration;

/// Plain aligned columns, the same with each row's name on a line of its own, or a Markdown
/// table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Space-aligned columns, for a terminal.
    Text,
    /// Space-aligned columns with each row's name on a line of its own above its figures, for a
    /// terminal too narrow for [`Style::Text`] (a phone's).
    Stacked,
    /// A Markdown table, for BENCHMARKS.md.
    Markdown,
}

/// A unit a duration is shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

impl Unit {
    const ALL: [Unit; 4] = [Unit::Ns, Unit::Us, Unit::Ms, Unit::S];

    /// The unit that shows `ns` with 1 to 3 digits before the point (seconds from 1 s up).
    /// Decided on the rounded value, so 999.7 µs is "1.00 ms", not "1000 µs".
    pub fn of(ns: f64) -> Unit {
        Unit::ALL
            .into_iter()
            .find(|u| ns.abs() < 999.5 * u.nanos())
            .unwrap_or(Unit::S)
    }

    fn nanos(self) -> f64 {
        match self {
            Unit::Ns => 1.0,
            Unit::Us => 1e3,
            Unit::Ms => 1e6,
            Unit::S => 1e9,
        }
    }

    /// `ns`, `µs`, `ms` or `s`.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Us => "µs",
            Unit::Ms => "ms",
            Unit::S => "s",
        }
    }
}

/// Nanoseconds in a readable unit, three significant digits: "812 ns", "12.3 µs", "1.05 ms",
/// "2.50 s"; "–" when undefined. The one formatter of durations for people: `nexusq report`'s
/// page and `nexusq bench`'s tables.
pub fn time(ns: f64) -> String {
    time_in(ns, Unit::of(ns))
}

/// Nanoseconds in `unit`, three significant digits and more when the value has more digits
/// before the point ("1430 ms"); "–" when undefined.
pub(crate) fn time_in(ns: f64, unit: Unit) -> String {
    if !ns.is_finite() {
        return "–".into();
    }
    let v = ns / unit.nanos();
    let digits = match v.abs() {
        a if a >= 99.95 => 0,
        a if a >= 9.995 => 1,
        a if a >= 0.9995 || a == 0.0 => 2,
        _ => 3,
    };
    format!("{v:.digits$} {}", unit.symbol())
}

/// A row's durations for a table, in one unit so they compare at a glance: the unit of the
/// row's smallest value, unless a value would need more than four digits before the point in
/// it (an outlier over ten times the smallest): that one gets its own unit. Units are padded
/// to two characters, so that in right-aligned columns the numbers end, and the units start,
/// in one column.
pub fn row_times(values: &[f64]) -> Vec<String> {
    let least = values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(f64::INFINITY, f64::min);
    let unit = Unit::of(if least.is_finite() { least } else { 0.0 });
    values
        .iter()
        .map(|&ns| {
            let cell = if (ns / unit.nanos()).abs() < 9999.5 {
                time_in(ns, unit)
            } else {
                time(ns)
            };
            if cell.ends_with(" s") {
                cell + " "
            } else {
                cell
            }
        })
        .collect()
}

/// A ratio to two decimals, "-" when undefined.
pub(crate) fn format_ratio(r: f64) -> String {
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
            // The name alone, then the figures indented under it.
            Style::Stacked => format!("{}\n  {}", cells[0], parts[1..].join("  ").trim_end()),
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
         of each; throwaway vault with {}.",
        b.backend,
        c.iterations,
        c.vault_iterations,
        c.warmup,
        if c.warmup == 1 { "" } else { "s" },
        c.kdf.describe(),
    )
}

fn summary_cells(s: &Summary) -> Vec<String> {
    let mut cells = vec![s.count.to_string()];
    cells.extend(row_times(&[
        s.mean_ns,
        s.median_ns,
        s.p95_ns,
        s.min_ns,
        s.max_ns,
    ]));
    cells
}

/// The 12 rows: operation, n, then mean, median, p95, min and max, each row in one unit
/// ([`row_times`]).
pub fn baseline_rows(b: &Baseline, style: Style) -> String {
    let header = ["operation", "n", "mean", "median", "p95", "min", "max"];
    let rows: Vec<Vec<String>> = b
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![r.name.to_string()];
            cells.extend(summary_cells(&r.summary));
            cells
        })
        .collect();
    table(style, &header, &rows)
}

/// What the figures are, before the notes on what each row includes.
pub const BASELINE_NOTES: &str =
    "Mean is the published figure; p95 is nearest-rank. What one sample of each row includes:";

/// Per row: its name and what one sample includes, as one sentence.
pub fn baseline_includes(b: &Baseline) -> Vec<String> {
    b.rows
        .iter()
        .map(|r| format!("{}: {}.", r.name, r.includes))
        .collect()
}

/// The 12-row table with its heading and the notes on what each row includes.
pub fn baseline_table(b: &Baseline, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", baseline_heading(b));
    out.push('\n');
    out.push_str(&baseline_rows(b, style));
    out.push('\n');
    let _ = writeln!(out, "{BASELINE_NOTES}");
    if style == Style::Markdown {
        out.push('\n');
    }
    for r in &b.rows {
        let _ = match style {
            Style::Text | Style::Stacked => writeln!(out, "  {}: {}.", r.name, r.includes),
            Style::Markdown => writeln!(out, "- **{}**: {}.", r.name, r.includes),
        };
    }
    out
}

/// What the comparison measured and how it is gated, in one paragraph.
pub fn compare_heading(c: &Comparison) -> String {
    let (a, b) = (c.baseline, c.candidate);
    let cfg = &c.config;
    format!(
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
    )
}

/// The compared operations: both backends' medians and p95s, each row in one unit
/// ([`row_times`]), the ratios and the verdict.
pub fn compare_rows(c: &Comparison, style: Style) -> String {
    let (a, b) = (c.baseline, c.candidate);
    let h = [
        "operation".to_string(),
        format!("{a} median"),
        format!("{b} median"),
        "median ratio".to_string(),
        format!("{a} p95"),
        format!("{b} p95"),
        "p95 ratio".to_string(),
        format!("gate {} / {}", c.config.gate.median, c.config.gate.p95),
    ];
    let header: Vec<&str> = h.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| {
            let t = row_times(&[
                r.baseline.median_ns,
                r.candidate.median_ns,
                r.baseline.p95_ns,
                r.candidate.p95_ns,
            ]);
            vec![
                r.name.clone(),
                t[0].clone(),
                t[1].clone(),
                format_ratio(r.median_ratio),
                t[2].clone(),
                t[3].clone(),
                format_ratio(r.p95_ratio),
                evidence::verdict(r.median_pass, r.p95_pass).to_string(),
            ]
        })
        .collect();
    table(style, &header, &rows)
}

/// The comparison table, its heading and note.
pub fn compare_table(c: &Comparison, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", compare_heading(c));
    out.push('\n');
    out.push_str(&compare_rows(c, style));
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
pub(crate) fn split_name(name: &str) -> (&str, &str) {
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
    use crate::tools::bench::baseline::{Config, Kind, ROWS, Row};
    use crate::tools::bench::stats::summarize;

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
    fn times() {
        assert_eq!(time(812.4), "812 ns");
        assert_eq!(time(12_345.0), "12.3 µs");
        assert_eq!(time(1_049_000.0), "1.05 ms");
        assert_eq!(time(188_931_233.0), "189 ms");
        assert_eq!(time(2.5e9), "2.50 s");
        assert_eq!(time(f64::NAN), "–");
        assert_eq!(time(0.0), "0.00 ns");
        // Rounding up to 1000 moves to the next unit; 99.96 rounds to 3 digits, not 4.
        assert_eq!(time(999_700.0), "1.00 ms");
        assert_eq!(time(99_960.0), "100 µs");
        assert_eq!(time(9_996.0), "10.0 µs");
        assert_eq!(time(4_000e9), "4000 s");
        assert_eq!(time_in(1_430_000_000.0, Unit::Ms), "1430 ms");
        assert_eq!(time_in(900_000.0, Unit::Ms), "0.900 ms");
    }

    #[test]
    fn a_row_has_one_unit_but_for_outliers() {
        // Mean, median, p95, min, max: in the unit of the smallest.
        let row = [2_100_000.0, 2_100_000.0, 4_130_000.0, 63_400.0, 4_130_000.0];
        assert_eq!(
            row_times(&row),
            ["2100 µs", "2100 µs", "4130 µs", "63.4 µs", "4130 µs"]
        );
        // Ten thousand of the unit and more: its own unit.
        let row = [600.0, 590.0, 15_000.0];
        assert_eq!(row_times(&row), ["600 ns", "590 ns", "15.0 µs"]);
        // Seconds are padded, so that units start in one column.
        let row = [1.1e9, 1.04e9, 2.16e11];
        assert_eq!(row_times(&row), ["1.10 s ", "1.04 s ", "216 s "]);
        assert_eq!(row_times(&[f64::NAN]), ["–"]);
    }

    #[test]
    fn ratios() {
        assert_eq!(format_ratio(1.0 / 3.0), "0.33");
        assert_eq!(format_ratio(f64::INFINITY), "-");
    }

    #[test]
    fn tables_have_every_row_in_order() {
        let b = synthetic();
        for style in [Style::Text, Style::Stacked, Style::Markdown] {
            let t = baseline_table(&b, style);
            let mut at = 0;
            for (name, _, _) in ROWS {
                let found = t[at..].find(name).unwrap_or_else(|| panic!("{name}"));
                at += found + name.len();
            }
            let lanes = crate::vault::KdfParams::for_new_vault().parallelism;
            assert!(t.contains(&format!("64 MiB, t=3, p={lanes}")), "{t}");
        }
        let stacked = baseline_rows(&b, Style::Stacked);
        let lines: Vec<&str> = stacked.lines().collect();
        assert_eq!(lines[0], "operation");
        assert!(lines[1].starts_with("  n     mean   median"), "{stacked}");
        assert_eq!(lines[2], "ML-KEM-768 + X25519 keygen");
        assert!(lines[3].starts_with("  4  2.50 µs  2.50 µs"), "{stacked}");
        assert_eq!(lines.len(), 2 + 2 * ROWS.len());
        for l in &lines {
            assert!(l.chars().count() <= 52, "{l:?}");
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

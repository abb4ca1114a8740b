//! One dataset's section of the page: environment and limits, its tables, its charts and its
//! reproducibility checklist.

use super::chart::{self, Bar, Scale};
use super::checklist;
use super::html::{Cell, esc, ratio, table, time};
use crate::tools::bench::evidence::{Dataset, GateCheck, Measurement, RunError, Workload};

/// The dataset's heading.
pub fn title(d: &Dataset) -> String {
    let e = &d.environment;
    let what = match &e.workload {
        Workload::Baseline { backend, .. } => {
            format!("nexusq bench: the baseline table ({backend} backend)")
        }
        Workload::Compare {
            baseline,
            candidate,
            ..
        } => format!("nexusq bench --compare: {candidate} against {baseline}"),
        Workload::Arena { subject, .. } => {
            let others = distinct(
                d.results
                    .iter()
                    .filter(|r| &r.implementation != subject)
                    .map(|r| r.implementation.as_str()),
            );
            format!(
                "Arena: {subject} against {} other implementations",
                others.len()
            )
        }
    };
    format!("{what}, {} on {}", date(&e.date), e.cpu_model)
}

fn date(rfc3339: &str) -> &str {
    rfc3339.get(..10).unwrap_or(rfc3339)
}

/// Items in order of first appearance, once each.
fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The implementation the dataset is about, to highlight: the arena's subject, the compared
/// candidate; none for a baseline.
fn subject(d: &Dataset) -> Option<&str> {
    match &d.environment.workload {
        Workload::Arena { subject, .. } => Some(subject),
        Workload::Compare { candidate, .. } => Some(candidate),
        Workload::Baseline { .. } => None,
    }
}

/// The (algorithm, operation) pairs in order of first appearance.
fn operations(d: &Dataset) -> Vec<(&str, &str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for r in &d.results {
        let key = (r.algorithm.as_str(), r.operation.as_str());
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

pub fn section(index: usize, d: &Dataset) -> String {
    let e = &d.environment;
    let mut out = format!(
        "<section class=\"dataset\" id=\"dataset-{index}\">\n<h2>{index}. {}</h2>\n\
         <p class=\"source\">Evidence: <code>{}</code> ({} results, {} gate checks), written by \
         {} {} at git revision <code>{}</code>.</p>\n",
        esc(&title(d)),
        esc(&d.source),
        d.results.len(),
        d.gates.len(),
        esc(&e.program),
        esc(&e.program_version),
        esc(&e.git_revision),
    );
    out += &run_errors(&d.errors);
    out += "<h3>Environment and limits</h3>\n<dl class=\"env\">";
    let facts = [
        ("CPU", format!("{} ({} CPUs)", e.cpu_model, e.cpu_count)),
        (
            "OS",
            format!("{} {} ({})", e.os.sysname, e.os.release, e.os.machine),
        ),
        (
            "Build",
            format!("{} {}, {}", e.build_profile, e.target, e.rustc),
        ),
        (
            "nexusq-native",
            format!(
                "selects {} (available: {})",
                e.native_selected,
                e.native_available.join(", ")
            ),
        ),
        ("Workload", checklist::workload(&e.workload)),
    ];
    for (k, v) in facts {
        out += &format!("<dt>{}</dt><dd>{}</dd>", esc(k), esc(&v));
    }
    out += "</dl>\n<p>Limits of this dataset:</p>\n<ul class=\"limits\">";
    for l in checklist::limits(d) {
        out += &format!("<li>{}</li>", esc(&l));
    }
    out += "</ul>\n";

    match &e.workload {
        Workload::Baseline { .. } => out += &baseline_table(d),
        Workload::Arena { subject, .. } => {
            out += &arena_table(d, subject);
            out += &details("Every result", &results_table(d));
        }
        Workload::Compare { .. } => out += &results_table(d),
    }
    if !d.gates.is_empty() {
        out += &gate_table(&d.gates);
    }
    out += &notes(d);
    out += "<h3>Charts</h3>\n<div class=\"charts\">\n";
    out += &charts(d);
    out += "</div>\n<h3>Reproducibility checklist</h3>\n";
    out += &checklist_table(d);
    out += "</section>\n";
    out
}

fn details(summary: &str, body: &str) -> String {
    format!(
        "<details><summary>{}</summary>\n{body}</details>\n",
        esc(summary)
    )
}

fn stat_cells(m: &Measurement) -> Vec<Cell> {
    vec![
        Cell::num(&m.n.to_string()),
        Cell::num(&time(m.median)),
        Cell::num(&time(m.p95)),
        Cell::num(&time(m.mean)),
        Cell::num(&time(m.min)),
        Cell::num(&time(m.max)),
    ]
}

fn baseline_table(d: &Dataset) -> String {
    let rows: Vec<Vec<Cell>> = d
        .results
        .iter()
        .map(|m| {
            let mut row = vec![Cell::text(&m.name())];
            row.extend(stat_cells(m));
            row
        })
        .collect();
    let mut out = format!(
        "<h3>Baseline table</h3>\n{}",
        table(
            "Per operation: samples, median, nearest-rank p95, mean, min, max",
            &["operation", "n", "median", "p95", "mean", "min", "max"],
            &rows,
        )
    );
    let includes: String = d
        .results
        .iter()
        .filter_map(|m| {
            let inc = m.includes.as_deref()?;
            Some(format!("<li><b>{}</b>: {}</li>", esc(&m.name()), esc(inc)))
        })
        .collect();
    if !includes.is_empty() {
        out += &details(
            "What one sample of each row includes",
            &format!("<ul class=\"notes\">{includes}</ul>\n"),
        );
    }
    out
}

fn results_table(d: &Dataset) -> String {
    let rows: Vec<Vec<Cell>> = d
        .results
        .iter()
        .map(|m| {
            let mut row = vec![Cell::text(&m.label()), Cell::text(&m.name())];
            row.extend(stat_cells(m));
            row.push(Cell::num(&m.rounds.to_string()));
            row.push(Cell::num(&m.batch.to_string()));
            row
        })
        .collect();
    format!(
        "<h3>Results</h3>\n{}",
        table(
            "Per implementation and operation, pooled over the rounds",
            &[
                "implementation",
                "operation",
                "n",
                "median",
                "p95",
                "mean",
                "min",
                "max",
                "rounds",
                "batch"
            ],
            &rows,
        )
    )
}

/// Per operation: the subject, the fastest other implementation by median, and the ratios.
fn arena_table(d: &Dataset, subject: &str) -> String {
    let mut rows = Vec::new();
    for (algorithm, operation) in operations(d) {
        let of_op: Vec<&Measurement> = d
            .results
            .iter()
            .filter(|r| r.algorithm == algorithm && r.operation == operation)
            .collect();
        let ours = of_op
            .iter()
            .find(|r| r.implementation == subject && r.variant.is_none());
        let best = of_op
            .iter()
            .filter(|r| r.implementation != subject)
            .min_by(|a, b| a.median.total_cmp(&b.median));
        let cell = |m: Option<&&Measurement>| {
            Cell::num(&m.map_or("–".into(), |m| {
                format!("{} ({})", time(m.median), time(m.p95))
            }))
        };
        let (rm, rp) = match (ours, best) {
            (Some(o), Some(b)) => (
                Some(o.median / b.median).filter(|r| r.is_finite()),
                Some(o.p95 / b.p95).filter(|r| r.is_finite()),
            ),
            _ => (None, None),
        };
        let class = match rm {
            Some(r) if r <= 1.0 => "pass",
            Some(_) => "fail",
            None => "",
        };
        rows.push(vec![
            Cell::text(&format!("{algorithm} {operation}")),
            cell(ours),
            Cell::text(&best.map_or("–".into(), |b| b.label())),
            cell(best),
            Cell::num(&ratio(rm)).class(if class.is_empty() { "plain" } else { class }),
            Cell::num(&ratio(rp)),
        ]);
    }
    format!(
        "<h3>Arena</h3>\n{}",
        table(
            &format!(
                "{subject} (its run-time choice) against the fastest other implementation of each operation; ratios below 1: {subject} is faster"
            ),
            &[
                "operation",
                &format!("{subject} median (p95)"),
                "best other",
                "its median (p95)",
                "median ratio",
                "p95 ratio"
            ],
            &rows,
        )
    )
}

/// The errors the program ended with (a failed gate), first in the section: the results below
/// are what it measured before it stopped.
fn run_errors(errors: &[RunError]) -> String {
    errors
        .iter()
        .map(|e| {
            let hint = if e.hint.is_empty() {
                String::new()
            } else {
                format!(" <span class=\"hint\">{}</span>", esc(&e.hint))
            };
            format!(
                "<p class=\"verdict fail\">The run ended with exit code {} ({}): {}.{hint}</p>\n",
                e.code,
                esc(&e.kind),
                esc(e.message.trim_end_matches('.')),
            )
        })
        .collect()
}

fn gate_table(gates: &[GateCheck]) -> String {
    let passed = gates.iter().filter(|g| g.pass).count();
    let rows: Vec<Vec<Cell>> = gates
        .iter()
        .map(|g| {
            let bound = |r: Option<f64>, b: f64, ok: bool| {
                Cell::num(&format!("{} ≤ {b}", ratio(r))).class(if ok { "pass" } else { "fail" })
            };
            vec![
                Cell::text(&g.name()),
                Cell::num(&format!(
                    "{} ({})",
                    time(g.baseline_median),
                    time(g.baseline_p95)
                )),
                Cell::num(&format!(
                    "{} ({})",
                    time(g.candidate_median),
                    time(g.candidate_p95)
                )),
                bound(g.median_ratio, g.gate_median, g.median_pass),
                bound(g.p95_ratio, g.gate_p95, g.p95_pass),
                Cell::text(g.verdict()).class(if g.pass { "pass" } else { "fail" }),
            ]
        })
        .collect();
    let (b, c) = gates
        .first()
        .map_or(("", ""), |g| (g.baseline.as_str(), g.candidate.as_str()));
    format!(
        "<h3>Gate</h3>\n<p class=\"verdict {}\">{passed} of {} operations pass.</p>\n{}",
        if passed == gates.len() {
            "pass"
        } else {
            "fail"
        },
        gates.len(),
        table(
            &format!("{c} / {b}: the pooled median and p95 ratios, each against its bound"),
            &[
                "operation",
                &format!("{b} median (p95)"),
                &format!("{c} median (p95)"),
                "median ratio",
                "p95 ratio",
                "result"
            ],
            &rows,
        )
    )
}

/// What the programs said a measurement includes, where it is not the baseline's own column.
fn notes(d: &Dataset) -> String {
    if matches!(d.environment.workload, Workload::Baseline { .. }) {
        return String::new();
    }
    let mut seen: Vec<String> = Vec::new();
    let mut out = String::new();
    for r in &d.results {
        if let Some(inc) = &r.includes {
            let line = format!("{} {}: {inc}", r.label(), r.algorithm);
            if !seen.contains(&line) {
                out += &format!("<li>{}</li>", esc(&line));
                seen.push(line);
            }
        }
    }
    if out.is_empty() {
        out
    } else {
        format!("<p>Notes:</p>\n<ul class=\"notes\">{out}</ul>\n")
    }
}

/// One log-scale chart of every row for a baseline; one chart per operation otherwise.
fn charts(d: &Dataset) -> String {
    let subject = subject(d);
    let bar = |m: &Measurement, label: String| Bar {
        label,
        median: m.median,
        p95: m.p95,
        subject: Some(m.implementation.as_str()) == subject && m.variant.is_none(),
    };
    if matches!(d.environment.workload, Workload::Baseline { .. }) {
        let bars: Vec<Bar> = d.results.iter().map(|m| bar(m, m.name())).collect();
        return chart::bars("The baseline operations", &bars, Scale::Log);
    }
    operations(d)
        .into_iter()
        .map(|(algorithm, operation)| {
            let bars: Vec<Bar> = d
                .results
                .iter()
                .filter(|r| r.algorithm == algorithm && r.operation == operation)
                .map(|m| bar(m, m.label()))
                .collect();
            chart::bars(&format!("{algorithm} {operation}"), &bars, Scale::Linear)
        })
        .collect()
}

fn checklist_table(d: &Dataset) -> String {
    let rows: Vec<Vec<Cell>> = checklist::items(d)
        .into_iter()
        .map(|i| match i.value {
            Some(v) => vec![
                Cell::text(i.what),
                Cell::text(&v),
                Cell::text("recorded").class("pass"),
            ],
            None => vec![
                Cell::text(i.what),
                Cell::text("—"),
                Cell::text("missing").class("missing"),
            ],
        })
        .collect();
    table(
        "What the environment record holds; missing items were not readable on this machine",
        &["item", "value", "status"],
        &rows,
    )
}

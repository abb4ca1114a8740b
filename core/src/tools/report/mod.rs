//! `nexusq report`: one self-contained HTML page from evidence files (docs/evidence.md). A
//! section per dataset: environment and limits, its tables (baseline, gate, arena), SVG charts
//! of the medians with p95 marks, and the reproducibility checklist. No scripts, no fonts, no
//! network: inline CSS and SVG only, so the file reads the same offline and on a phone.
//! Returns the page as a string; the caller writes it.

mod chart;
mod checklist;
pub mod html;
mod sections;

use crate::tools::bench::evidence::Dataset;
use html::esc;

/// The page's style: one column on a phone, charts side by side on a desktop.
const STYLE: &str = "
:root { color-scheme: light; --fg: #1b1f23; --muted: #57606a; --line: #d0d7de; --ours: #c2410c;
  --theirs: #6b8fb3; --pass: #116329; --fail: #b42318; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1200px; padding: 1rem; color: var(--fg);
  font: 16px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; }
h1 { font-size: 1.6rem; margin: .2rem 0 .6rem; }
h2 { font-size: 1.3rem; margin-top: 2.2rem; border-top: 2px solid var(--line); padding-top: 1rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
code { font-size: .9em; overflow-wrap: anywhere; }
.source, .intro { color: var(--muted); }
dl.env { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .4rem 0; }
dl.env dt { font-weight: 600; }
dl.env dd { margin: 0; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .4rem 0 1rem; }
table { border-collapse: collapse; font-size: .88rem; min-width: 100%; }
caption { text-align: left; color: var(--muted); padding: .2rem 0; caption-side: top; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left;
  vertical-align: top; }
th { background: #f6f8fa; white-space: nowrap; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.includes { min-width: 16rem; color: var(--muted); }
.pass { color: var(--pass); font-weight: 600; }
.fail, .missing { color: var(--fail); font-weight: 600; }
.charts { display: grid; grid-template-columns: 1fr; gap: 1rem; }
figure.chart { margin: 0; max-width: 640px; }
figure.chart svg { width: 100%; height: auto; display: block; }
svg text { font: 11px system-ui, sans-serif; fill: var(--fg); }
svg text.title { font-weight: 700; font-size: 12px; }
svg text.note { fill: var(--muted); font-size: 10px; }
svg text.value { fill: var(--muted); }
svg rect.bar { fill: var(--theirs); }
svg rect.bar.subject { fill: var(--ours); }
svg line.p95 { stroke: var(--fg); stroke-width: 2; }
nav ol { padding-left: 1.4rem; }
@media (min-width: 900px) {
  .charts { grid-template-columns: 1fr 1fr; }
}
@media (max-width: 600px) {
  body { padding: .6rem; font-size: 15px; }
  dl.env { grid-template-columns: 1fr; }
  dl.env dd { margin-bottom: .3rem; }
  th, td { padding: .25rem .35rem; }
}
";

/// The whole page for these datasets, in order. Every string from the evidence is escaped.
pub fn render(datasets: &[Dataset]) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <title>nexusq performance evidence</title>\n<style>",
    );
    out += STYLE;
    out += "</style>\n</head>\n<body>\n<header>\n<h1>nexusq performance evidence</h1>\n";
    out += &format!(
        "<p class=\"intro\">Measure the work, publish the context: {} dataset{} from \
         <code>nexusq bench --json</code> and <code>benches/arena --json</code> (the evidence \
         format, docs/evidence.md), each with the machine and the limits it was measured under. \
         Times are per operation; p95 is nearest-rank; in the charts shorter is faster. Made by \
         nexusq report {}.</p>\n<nav><ol>",
        datasets.len(),
        if datasets.len() == 1 { "" } else { "s" },
        esc(crate::tools::bench::environment::build::VERSION),
    );
    for (i, d) in datasets.iter().enumerate() {
        out += &format!(
            "<li><a href=\"#dataset-{}\">{}</a></li>",
            i + 1,
            esc(&sections::title(d))
        );
    }
    out += "</ol></nav>\n</header>\n<main>\n";
    for (i, d) in datasets.iter().enumerate() {
        out += &sections::section(i + 1, d);
    }
    out += "</main>\n</body>\n</html>\n";
    out
}

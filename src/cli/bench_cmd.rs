//! `nexusq bench` (BENCHMARKS.md, "Baseline table"): the baseline table, or `--compare` of the two
//! backends. The measuring is in `nexusq_core::tools::bench`; this checks the options, shows progress on a
//! terminal and prints the results: JSON lines, Markdown, or the table laid out for the
//! terminal's width.

use super::Context;
use super::args::BenchArgs;
use super::error::{Error, Result};
use super::output;
use nexusq_core::suite::BackendChoice;
use nexusq_core::tools::bench::baseline::{self, Progress};
use nexusq_core::tools::bench::environment::{Build, Environment};
use nexusq_core::tools::bench::evidence::{Gate, Record};
use nexusq_core::tools::bench::report::{self, Style};
use nexusq_core::tools::bench::{compare, scratch};
use nexusq_core::vault::{KdfParams, kdf};
use std::io::{IsTerminal, Write};

pub fn run(ctx: &Context, args: &BenchArgs) -> Result<()> {
    check_args(ctx, args)?;
    if args.compare {
        run_compare(ctx, args)
    } else {
        run_baseline(ctx, args)
    }
}

fn check_args(ctx: &Context, args: &BenchArgs) -> Result<()> {
    for (value, option) in [
        (args.iterations, "--iterations"),
        (args.vault_iterations, "--vault-iterations"),
        (args.rounds, "--rounds"),
    ] {
        if value == 0 {
            return Err(Error::usage(
                format!("{option} 0 would measure nothing"),
                format!("pass {option} 1 or more"),
            ));
        }
    }
    gate(args)?;
    if args.markdown && ctx.out.json {
        return Err(Error::usage(
            "--markdown and --json exclude each other",
            "choose one output format",
        ));
    }
    if args.raw && !ctx.out.json {
        return Err(Error::usage(
            "--raw adds the samples to the --json records",
            "pass --json --raw",
        ));
    }
    Ok(())
}

/// The throwaway vault's KDF: the default, the user's vault header (`--kdf-from-vault`, no
/// password, nothing written), or the hidden test options.
fn throwaway_kdf(ctx: &Context, args: &BenchArgs) -> Result<KdfParams> {
    if args.kdf_from_vault {
        let path = ctx.vault_path()?;
        let file = nexusq_core::vault::open(&path)
            .map_err(|e| e.context("--kdf-from-vault reads your vault's header"))?;
        return Ok(file.header.kdf);
    }
    let mut params = KdfParams::for_new_vault();
    if let Some(mib) = args.kdf_memory_mib {
        params.memory_kib = mib.saturating_mul(1024);
    }
    if let Some(t) = args.kdf_iterations {
        params.iterations = t;
    }
    params
        .check_bounds(kdf::device_ram_bytes())
        .map_err(|m| Error::usage(m, "choose --kdf-memory-mib 8..2048, --kdf-iterations 1..64"))?;
    Ok(params)
}

/// The gate of --compare: --gate for both ratios, --gate-median / --gate-p95 for one each.
fn gate(args: &BenchArgs) -> Result<Gate> {
    Gate::from_options(args.gate, args.gate_median, args.gate_p95).map_err(|m| {
        Error::usage(
            m,
            "pass e.g. --gate 1.5 (native may take at most 1.5 times as long, median and p95)",
        )
    })
}

/// One evidence record as a JSON line on stdout.
fn print_record(ctx: &Context, record: &Record) {
    ctx.out
        .json(&serde_json::to_value(record).expect("plain data"));
}

fn run_baseline(ctx: &Context, args: &BenchArgs) -> Result<()> {
    let backend = ctx.backend()?;
    let config = baseline::Config {
        iterations: args.iterations,
        vault_iterations: args.vault_iterations,
        warmup: args.warmup,
        kdf: throwaway_kdf(ctx, args)?,
    };
    // Before measuring: the governor, temperatures and load as the run starts.
    let env = ctx.out.json.then(|| {
        let workload = report::baseline_workload(backend.name(), &config);
        Environment::collect(Build::nexusq(), workload)
    });
    let terminal = std::io::stderr().is_terminal();
    scratch::install_interrupt_handler(move || {
        if terminal {
            eprint!("\r\x1b[2K");
        }
        eprintln!("interrupted; the throwaway benchmark vault was removed");
    })?;
    let mut progress = ProgressLine::new(terminal);
    let result = baseline::run(backend, &config, &mut |p| progress.show(p, None));
    // On Ctrl-C the handler removes the folder (so the run may fail) and exits 128 + signal.
    scratch::wait_if_interrupted();
    progress.clear();
    let b = result?;
    if let Some(env) = env {
        print_record(ctx, &Record::Environment(Box::new(env)));
        for record in report::baseline_records(&b, args.raw) {
            print_record(ctx, &record);
        }
    } else if args.markdown {
        ctx.out
            .data(report::baseline_table(&b, Style::Markdown).trim_end());
    } else {
        show_table(
            ctx,
            &report::baseline_heading(&b),
            |style| report::baseline_rows(&b, style),
            report::BASELINE_NOTES,
            &report::baseline_includes(&b),
        );
    }
    Ok(())
}

fn run_compare(ctx: &Context, args: &BenchArgs) -> Result<()> {
    // Both backends must exist before anything is measured.
    let baseline = BackendChoice::RustCrypto.backend()?;
    let candidate = BackendChoice::Native.backend().map_err(|e| {
        Error::new(
            e.kind(),
            format!("--compare needs the native backend: {}", e.message()),
            "nothing was measured; run `nexusq bench` without --compare for the baseline table",
        )
    })?;
    let config = compare::Config {
        rounds: args.rounds,
        per_round: args.iterations,
        warmup: args.warmup,
        gate: gate(args)?,
    };
    let env = ctx.out.json.then(|| {
        let workload = report::compare_workload(baseline.name(), candidate.name(), &config);
        Environment::collect(Build::nexusq(), workload)
    });
    let mut progress = ProgressLine::new(std::io::stderr().is_terminal());
    let mut round = 0;
    let result = compare::run(baseline, candidate, &config, &mut |p| {
        if p.index == 1 {
            round += 1;
        }
        progress.show(p, Some((round, config.rounds)));
    });
    progress.clear();
    let c = result?;
    if let Some(env) = env {
        print_record(ctx, &Record::Environment(Box::new(env)));
        for record in report::compare_records(&c, args.raw) {
            print_record(ctx, &record);
        }
    } else if args.markdown {
        ctx.out
            .data(report::compare_table(&c, Style::Markdown).trim_end());
    } else {
        show_table(
            ctx,
            &report::compare_heading(&c),
            |style| report::compare_rows(&c, style),
            compare::NOTE,
            &[],
        );
    }
    let failures = c.failures();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Error::check(
            format!(
                "{} of {} operations are over the gate (median ratio {}, p95 ratio {}) on {} \
                 against {}: {}",
                failures.len(),
                c.rows.len(),
                c.config.gate.median,
                c.config.gate.p95,
                c.candidate,
                c.baseline,
                failures.join(", ")
            ),
            "see the table; rerun with more --rounds on a quiet machine to rule out noise",
        ))
    }
}

/// A table for people, laid out for the terminal's width: its heading, the table in columns
/// when they fit, else with each row's name on a line of its own (a phone's terminal), then
/// the note and the indented items under it, the prose wrapped between words.
fn show_table(
    ctx: &Context,
    heading: &str,
    render: impl Fn(Style) -> String,
    note: &str,
    items: &[String],
) {
    let width = output::terminal_width();
    let mut rows = render(Style::Text);
    if rows.lines().any(|l| l.chars().count() > width) {
        rows = render(Style::Stacked);
    }
    let mut out = wrap_paragraph(heading, width, 0);
    out.push(String::new());
    out.extend(rows.lines().map(str::to_string));
    out.push(String::new());
    out.extend(wrap_paragraph(note, width, 0));
    for item in items {
        out.extend(wrap_paragraph(item, width, 2));
    }
    ctx.out.data(&out.join("\n"));
}

/// A paragraph of the table's text wrapped between words to `width`, `indent` spaces before
/// its first line and two more before the others.
fn wrap_paragraph(text: &str, width: usize, indent: usize) -> Vec<String> {
    let rest = if indent > 0 { indent + 2 } else { 0 };
    output::hanging(text, width, &" ".repeat(indent), rest)
}

/// "measuring <op> (k/n)" on stderr, rewritten in place; silent when stderr is not a terminal.
struct ProgressLine {
    on: bool,
    shown: bool,
}

impl ProgressLine {
    fn new(stderr_is_terminal: bool) -> Self {
        ProgressLine {
            on: stderr_is_terminal,
            shown: false,
        }
    }

    fn show(&mut self, p: Progress<'_>, round: Option<(u32, u32)>) {
        if !self.on {
            return;
        }
        let round = round.map_or(String::new(), |(r, n)| format!(", round {r}/{n}"));
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2K{} {} ({}/{}{round})",
            p.verb, p.what, p.index, p.total
        );
        let _ = err.flush();
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

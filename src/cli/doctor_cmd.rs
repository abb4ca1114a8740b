//! `nexusq doctor`: check this installation and say what to do about anything that is off.
//!
//! The facts and checks are `nexusq_core::doctor`'s, which reads only (no password, no lock,
//! no write). Here: what only the command line knows (its vault path, backend, contacts book,
//! terminal and process hardening), the report as a table or as `--json`, and the exit code:
//! 1 when a check is an error and 0 otherwise (warnings included); on exit 1 the `--json`
//! object also carries the `"error"` member of docs/cli.md.

use super::Context;
use super::error::{Error, Result};
use nexusq_core::doctor::{self, Check, PathSource, Report, Status, TerminalFacts};
use serde_json::{Value, json};

pub fn run(ctx: &Context) -> Result<()> {
    let given = doctor::Given {
        vault_path: ctx.vault_path().ok(),
        vault_path_source: doctor::path_source(
            ctx.global.vault.as_deref(),
            std::env::var_os("NEXUSQ_VAULT").as_deref(),
        ),
        contacts_book: ctx.book_path().map_err(Into::into),
        backend: ctx.backend().map_err(Into::into),
        terminal: terminal_facts(),
        hardening_failures: super::hardening::harden_process(),
    };
    let report = doctor::run(&given);
    let (ok, warn, error) = (
        report.count(Status::Ok),
        report.count(Status::Warn),
        report.count(Status::Error),
    );
    let mut json = json!({
        "version": env!("CARGO_PKG_VERSION"),
        "ok": error == 0,
        "counts": { "ok": ok, "warn": warn, "error": error },
        "vault_path": given.vault_path.as_ref().map(|p| p.display().to_string()),
        "vault_path_source": match given.vault_path_source {
            PathSource::Given => "--vault",
            PathSource::Env => "NEXUSQ_VAULT",
            PathSource::Default => "default",
        },
        "identity": identity_json(&report),
        "checks": report.checks.iter().map(check_json).collect::<Vec<_>>(),
    });
    if let Some(p) = &given.vault_path {
        super::output::path_bytes(&mut json, &[("vault_path", p)]);
    }
    let failed = failure(&report);
    match (&failed, json) {
        // One object on stdout: the report beside the error (docs/cli.md).
        (Some(e), Value::Object(fields)) if ctx.global.json => {
            let mut e = e.clone();
            for (k, v) in fields {
                e = e.with_json(&k, v);
            }
            return Err(e);
        }
        (_, json) => ctx.out.json(&json),
    }
    let width = report
        .checks
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0);
    ctx.out
        .data(&format!("nexusq {} doctor", env!("CARGO_PKG_VERSION")));
    for c in &report.checks {
        ctx.out.data(&format!(
            "{:<5}  {:<width$}  {}",
            c.status.as_str(),
            c.name,
            c.detail
        ));
        if !c.hint.is_empty() {
            ctx.out
                .data(&format!("{:<5}  {:<width$}  hint: {}", "", "", c.hint));
        }
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    ctx.out.data(&format!(
        "{}: {ok} ok, {}, {}",
        plural(report.checks.len(), "check"),
        plural(warn, "warning"),
        plural(error, "error")
    ));
    failed.map_or(Ok(()), Err)
}

/// The exit-1 error when any check is an error: names them, points at the hints.
fn failure(report: &Report) -> Option<Error> {
    let failed = report.failed();
    (!failed.is_empty()).then(|| {
        Error::check(
            format!(
                "{} of {} checks failed: {}",
                failed.len(),
                report.checks.len(),
                failed.join(", ")
            ),
            "follow the hint under each failed check above, then run `nexusq doctor` again",
        )
    })
}

fn check_json(c: &Check) -> Value {
    json!({
        "name": c.name,
        "status": c.status.as_str(),
        "detail": c.detail,
        "hint": c.hint,
    })
}

/// The vault's identity and the state of each generation, as `vault open` shows them (`null`
/// without a readable vault).
fn identity_json(report: &Report) -> Value {
    let Some(public) = &report.identity else {
        return Value::Null;
    };
    let states = super::state::generations(public, report.now, None);
    json!({
        "fingerprint": public.root_id().fingerprint().to_string(),
        "revoked": super::state::identity_revoked(public),
        "generations": super::state::rows(public, &states),
    })
}

/// This process's terminal: where prompts and colour would go.
fn terminal_facts() -> TerminalFacts {
    use std::io::IsTerminal;
    TerminalFacts {
        stdin_tty: std::io::stdin().is_terminal(),
        stderr_tty: std::io::stderr().is_terminal(),
        dev_tty: std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .is_ok(),
        no_color: std::env::var_os("NO_COLOR").is_some(),
    }
}

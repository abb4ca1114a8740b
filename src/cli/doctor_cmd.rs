//! `nexusq doctor`: check this installation and say what to do about anything that is off.
//!
//! The facts and checks are `nexusq_core::doctor`'s, which reads only (no password, no lock,
//! no write). Here: what only the command line knows (its vault path, backend, contacts book,
//! terminal and process hardening), the report as a table or as `--json`, and the exit code:
//! 1 when a check is an error and 0 otherwise (warnings included); on exit 1 the `--json`
//! object also carries the `"error"` member of docs/cli.md.

use super::Context;
use super::error::{Error, Result};
use super::output::wrap;
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
    let width = super::output::terminal_width();
    ctx.out
        .data(&format!("nexusq {} doctor", env!("CARGO_PKG_VERSION")));
    for line in check_lines(&report.checks, width) {
        ctx.out.data(&line);
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let summary = format!(
        "{}: {ok} ok, {}, {}",
        plural(report.checks.len(), "check"),
        plural(warn, "warning"),
        plural(error, "error")
    );
    for line in wrap(&summary, width) {
        ctx.out.data(&line);
    }
    failed.map_or(Ok(()), Err)
}

/// Below this many columns for the text beside the names, a detail goes under its check's
/// name instead: a thin column would hold two or three words a line.
const MIN_TEXT_COLUMNS: usize = 40;

/// The checks as lines of at most `width` columns (a word longer than that, such as a path,
/// gets a line of its own), broken between words: status, name and detail, then the hint.
/// Where the width allows, details and hints are a column beside the names, continuation lines
/// under their text; narrower, each check's name stands alone with its detail and hint
/// indented under it.
fn check_lines(checks: &[Check], width: usize) -> Vec<String> {
    const STATUS: usize = "error".len();
    let name_width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let column = STATUS + 2 + name_width + 2;
    let beside = width >= column + MIN_TEXT_COLUMNS;
    let mut out = Vec::new();
    for c in checks {
        let status = c.status.as_str();
        let indent = if beside {
            let first = format!("{status:<STATUS$}  {:<name_width$}  ", c.name);
            block(&mut out, width, first, column, &c.detail);
            column
        } else {
            let under = STATUS + 2;
            out.push(format!("{status:<STATUS$}  {}", c.name));
            block(&mut out, width, " ".repeat(under), under, &c.detail);
            under
        };
        if !c.hint.is_empty() {
            let first = format!("{:indent$}hint: ", "");
            block(&mut out, width, first, indent + "hint: ".len(), &c.hint);
        }
    }
    out
}

/// `text` wrapped into `out`: its first line after `first`, the others indented by `indent`
/// (the width of `first`), none over `width` but for a word longer than the room.
fn block(out: &mut Vec<String>, width: usize, first: String, indent: usize, text: &str) {
    let room = width.saturating_sub(indent).max(1);
    for (i, line) in wrap(text, room).into_iter().enumerate() {
        if i == 0 {
            out.push(format!("{first}{line}"));
        } else {
            out.push(format!("{:indent$}{line}", ""));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &'static str, status: Status, detail: &str, hint: &str) -> Check {
        Check {
            name,
            status,
            detail: detail.into(),
            hint: hint.into(),
        }
    }

    fn checks() -> Vec<Check> {
        vec![
            check(
                "agent",
                Status::Ok,
                "no key agent runs for this vault (commands ask for the password)",
                "",
            ),
            check(
                "revocation_statement",
                Status::Warn,
                "a revocation statement lies beside the vault: \
                 /data/data/com.termux/files/home/.local/share/nexusq/vault.nxq.revocation",
                "move it off the phone (it revokes your identity when published), then rm it",
            ),
        ]
    }

    /// Every line within `width` unless it is one word; the words of every detail and hint
    /// whole and in order.
    fn assert_laid_out(lines: &[String], width: usize) {
        for l in lines {
            assert!(
                l.chars().count() <= width || l.split_whitespace().count() == 1,
                "over {width} columns: {l:?}"
            );
        }
        let words = lines
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for c in checks() {
            let detail = c.detail.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(words.contains(&detail), "{detail:?} in {words:?}");
            assert!(words.contains(&format!("hint: {}", c.hint)) || c.hint.is_empty());
        }
    }

    #[test]
    fn wide_terminals_get_a_column_beside_the_names() {
        let lines = check_lines(&checks(), 80);
        assert_laid_out(&lines, 80);
        assert_eq!(
            lines[0],
            "ok     agent                 no key agent runs for this vault (commands ask for"
        );
        assert_eq!(lines[1], format!("{:29}the password)", ""));
        assert!(lines[2].starts_with("warn   revocation_statement  a revocation"));
        // The path is longer than the column: a line of its own, at the column.
        assert!(lines[3].starts_with(&format!("{:29}/data/data/", "")));
        assert!(lines[4].starts_with(&format!("{:29}hint: move it off", "")));
        // A hint's next lines stand under its text.
        assert!(lines[5].starts_with(&format!("{:35}", "")), "{lines:#?}");
        assert!(!lines[5].starts_with(&format!("{:36}", "")), "{lines:#?}");
    }

    #[test]
    fn phone_terminals_get_details_under_the_names() {
        for width in [52, 40, 30] {
            let lines = check_lines(&checks(), width);
            assert_laid_out(&lines, width);
            assert_eq!(lines[0], "ok     agent");
            assert!(lines[1].starts_with("       no key agent"), "{lines:#?}");
        }
        let lines = check_lines(&checks(), 52);
        assert_eq!(
            lines,
            [
                "ok     agent",
                "       no key agent runs for this vault (commands",
                "       ask for the password)",
                "warn   revocation_statement",
                "       a revocation statement lies beside the vault:",
                "       /data/data/com.termux/files/home/.local/share/nexusq/vault.nxq.revocation",
                "       hint: move it off the phone (it revokes your",
                "             identity when published), then rm it",
            ]
        );
    }
}

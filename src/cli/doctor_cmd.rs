//! `nexusq doctor`: check this installation and say what to do about anything that is off.
//!
//! The facts and checks are `nexusq_core::tools::doctor`'s, which reads only (no password, no lock,
//! no write). Here: what only the command line knows (its vault path, backend, contacts book,
//! terminal and process hardening), the report as a table or as `--json`, and the exit code:
//! 1 when a check is an error and 0 otherwise (warnings included); on exit 1 the `--json`
//! object also carries the `"error"` member of docs/cli.md.

use super::Context;
use super::args::DoctorArgs;
use super::error::{Error, Result};
use super::output::wrap;
use nexusq_core::tools::doctor::{
    self, Check, GitFacts, PathSource, Report, Status, TerminalFacts,
};
use serde_json::{Value, json};
use std::process::Command;

pub fn run(ctx: &Context, args: &DoctorArgs) -> Result<()> {
    // Before any check: without a repository `--git` has nothing to look at.
    let git = args.git.then(git_facts).transpose()?;
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
        git,
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
        let hint = hint_of(c);
        if !hint.is_empty() {
            let first = format!("{:indent$}hint: ", "");
            block(&mut out, width, first, indent + "hint: ".len(), &hint);
        }
    }
    out
}

/// `text` wrapped into `out`: its first line after `first`, the others indented by `indent`
/// (the width of `first`), none over `width` but for a word longer than the room.
fn block(out: &mut Vec<String>, width: usize, first: String, indent: usize, text: &str) {
    out.extend(super::output::hanging(text, width, &first, indent));
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
        "hint": hint_of(c),
    })
}

/// A check's hint, with the command of the step it suggests.
fn hint_of(c: &Check) -> String {
    match c.step.as_ref().map(super::error::step_words) {
        Some(words) if !words.is_empty() => format!("{} ({words})", c.hint),
        _ => c.hint.clone(),
    }
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

/// What git says of the current folder's repository: where it is and the settings
/// nexusq-git-sign depends on, read with `git config --get` as git itself reads them (the
/// repository's, global and system files). No repository, or no git: a usage error.
fn git_facts() -> Result<GitFacts> {
    let leave_out = "run it inside a git repository, or leave out --git";
    let git = |args: &[&str]| {
        Command::new("git").args(args).output().map_err(|e| {
            Error::usage(
                format!("doctor --git runs git, which could not be started: {e}"),
                "install git (on Termux: pkg install git), or leave out --git",
            )
        })
    };
    let line = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stdout)
            .trim_end_matches(['\r', '\n'])
            .to_string()
    };
    // A path as git wrote it: bytes, not necessarily UTF-8.
    let path = |out: &std::process::Output| {
        use std::os::unix::ffi::OsStrExt;
        let bytes = out.stdout.strip_suffix(b"\n").unwrap_or(&out.stdout);
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    };
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let repository = if top.status.success() {
        path(&top)
    } else {
        // A bare repository, or inside .git: no work tree, but settings all the same.
        let dir = git(&["rev-parse", "--absolute-git-dir"])?;
        if !dir.status.success() {
            let said = String::from_utf8_lossy(&top.stderr);
            return Err(Error::usage(
                format!(
                    "doctor --git checks the git repository of the current folder, and git \
                     finds none: {}",
                    super::output::untrusted(said.trim())
                ),
                leave_out,
            ));
        }
        path(&dir)
    };
    // Exit 1 is "not set"; anything else is git's complaint (a value it cannot read as the
    // type asked for), so the value is read again as written, for the check to show.
    let get = |key: &str, bool: bool| -> Result<Option<String>> {
        let mut args = vec!["config"];
        if bool {
            args.push("--type=bool");
        }
        args.extend(["--get", key]);
        let out = git(&args)?;
        Ok(match out.status.code() {
            Some(0) => Some(line(&out)),
            Some(1) => None,
            _ if bool => {
                let raw = git(&["config", "--get", key])?;
                raw.status.success().then(|| line(&raw))
            }
            _ => None,
        })
    };
    let installed = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(doctor::GIT_SIGN_PROGRAM)))
        .filter(|p| p.is_file());
    Ok(GitFacts {
        repository,
        format: get("gpg.format", false)?,
        x509_program: get("gpg.x509.program", false)?,
        signing_key: get("user.signingkey", false)?,
        commit_gpgsign: get("commit.gpgsign", true)?,
        path_var: std::env::var_os("PATH"),
        installed,
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
            step: None,
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

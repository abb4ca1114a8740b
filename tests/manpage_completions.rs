//! The generated man page (`nexusq manpage`) and shell completions
//! (`nexusq completions SHELL`): they render, say what they should, work in bash, and stop
//! quietly when the reader goes away (`| head`).

mod common;

use common::BIN;
use std::process::{Command, Output, Stdio};

/// The commands a user types; every one must be in the man page and the completions.
const SUBCOMMANDS: [&str; 14] = [
    "init",
    "vault",
    "identity",
    "rotate",
    "sign",
    "verify",
    "encapsulate",
    "decapsulate",
    "encrypt",
    "decrypt",
    "bench",
    "doctor",
    "completions",
    "help",
];

fn run(args: &[&str]) -> Output {
    common::bin().args(args).output().unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "nexusq {args:?}: exit {:?}, stderr {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn man_page_has_the_standard_sections_and_the_subcommands() {
    let page = stdout_of(&["manpage"]);
    let th = page
        .lines()
        .find(|l| l.starts_with(".TH "))
        .expect("a .TH title line");
    assert!(th.starts_with(".TH nexusq 1"), "{th}");
    assert!(th.contains(env!("CARGO_PKG_VERSION")), "{th}");
    let sections: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .collect();
    for s in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SUBCOMMANDS"] {
        assert!(sections.contains(&s), "no .SH {s}: {sections:?}");
    }
    // NAME, SYNOPSIS and DESCRIPTION come first, in that order.
    assert_eq!(&sections[..3], &["NAME", "SYNOPSIS", "DESCRIPTION"]);
    let name = page.split(".SH NAME").nth(1).unwrap();
    assert!(name.trim_start().starts_with("nexusq"), "{name}");
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("nexusq\\-{sub}(1)"))
                || page.contains(&format!("\\fB{sub}\\fR")),
            "the man page does not mention `{sub}`"
        );
    }
    // The command that prints it is listed too (issue 17: no longer hidden).
    assert!(page.contains("manpage"));
    for option in ["vault", "password\\-file", "password\\-fd", "json"] {
        assert!(page.contains(&format!("\\-\\-{option}")), "--{option}");
    }
    assert!(page.contains("Exit codes"));
}

/// groff, where installed, reads the page without a warning (-ww: all warnings).
#[test]
fn man_page_renders_without_groff_warnings() {
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("groff is not installed; skipped");
        return;
    }
    let page = stdout_of(&["manpage"]);
    let mut child = Command::new("groff")
        .args(["-t", "-man", "-Tutf8", "-ww"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(page.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    // Bold and underline are overstruck ("N\x08N"): keep the last character of each.
    let mut rendered = String::new();
    for c in String::from_utf8_lossy(&out.stdout).chars() {
        if c == '\x08' {
            rendered.pop();
        } else {
            rendered.push(c);
        }
    }
    assert!(rendered.contains("NAME"), "{rendered}");
    assert!(rendered.contains("nexusq-doctor(1)"), "{rendered}");
}

#[test]
fn completions_render_for_bash_zsh_and_fish() {
    let bash = stdout_of(&["completions", "bash"]);
    assert!(bash.contains("_nexusq()"), "bash: no _nexusq function");
    assert!(bash.contains("complete -F _nexusq"));
    let zsh = stdout_of(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef nexusq"), "zsh: {}", &zsh[..40]);
    let fish = stdout_of(&["completions", "fish"]);
    assert!(fish.contains("complete -c nexusq"));
    for (shell, script) in [("bash", &bash), ("zsh", &zsh), ("fish", &fish)] {
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell} completions lack `{sub}`");
        }
        assert!(
            script.contains("password-file"),
            "{shell} completions lack --password-file"
        );
    }
}

/// The bash completions, loaded into a real bash, complete subcommands and options.
#[test]
fn bash_completions_complete_in_bash() {
    let script = format!(
        r#"
        source <('{BIN}' completions bash)
        complete -p nexusq
        COMP_WORDS=(nexusq do); COMP_CWORD=1; _nexusq nexusq do nexusq
        echo "first: ${{COMPREPLY[*]}}"
        COMP_WORDS=(nexusq vault ""); COMP_CWORD=2; _nexusq nexusq "" vault
        echo "vault: ${{COMPREPLY[*]}}"
        COMP_WORDS=(nexusq vault unlock ""); COMP_CWORD=3; _nexusq nexusq "" unlock
        echo "unlock: ${{COMPREPLY[*]}}"
        "#
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("-F _nexusq nexusq"), "{stdout}");
    assert!(stdout.contains("first: doctor\n"), "{stdout}");
    let vault = stdout.lines().find(|l| l.starts_with("vault:")).unwrap();
    for word in ["open", "unlock", "passwd", "--vault"] {
        assert!(vault.split(' ').any(|w| w == word), "{vault}");
    }
    // Password options are offered where they apply (`vault unlock`), not on `vault` itself.
    assert!(!vault.split(' ').any(|w| w == "--password-file"), "{vault}");
    let unlock = stdout.lines().find(|l| l.starts_with("unlock:")).unwrap();
    for word in ["--password-file", "--password-fd", "--vault"] {
        assert!(unlock.split(' ').any(|w| w == word), "{unlock}");
    }
    assert!(
        !unlock.split(' ').any(|w| w == "--new-password-file"),
        "{unlock}"
    );
}

/// A closed stdout (the reader is gone before anything is written) is EPIPE for every write:
/// no error message, no panic, exit 0.
#[test]
fn closed_stdout_pipe_exits_quietly() {
    for args in [
        &["manpage"][..],
        &["completions", "bash"][..],
        &["completions", "zsh"][..],
        &["completions", "fish"][..],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(BIN)
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "nexusq {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "nexusq {args:?} printed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The way people meet it: `nexusq manpage | head -n 1` under pipefail.
#[test]
fn piping_into_head_is_quiet() {
    for args in ["manpage", "completions bash", "completions fish"] {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "set -o pipefail; '{BIN}' {args} | head -c 1 >/dev/null"
            ))
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{args}: exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Only a vanished reader is quiet: a full disk is still an I/O error (exit 5) with a message.
#[test]
fn other_write_errors_are_still_reported() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("/dev/full is missing; skipped");
        return;
    }
    for args in [&["manpage"][..], &["completions", "bash"][..]] {
        let out = Command::new(BIN)
            .args(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(5), "nexusq {args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("No space left on device"), "{stderr}");
    }
}

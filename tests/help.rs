//! What `--help` shows, through the real binary: an option appears in the help of the commands
//! it applies to and nowhere else; the per-command options still work before the command name;
//! `--backend` and `$NEXUSQ_BACKEND` take only the backends there are.

mod common;

use common::TestVault;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::bin()
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

fn help(command: &[&str]) -> String {
    let mut args = command.to_vec();
    args.push("--help");
    let out = run(&args);
    assert!(out.status.success(), "nexusq {args:?} failed");
    String::from_utf8(out.stdout).unwrap()
}

const PASSWORD: [&str; 2] = ["--password-file", "--password-fd"];
const NEW_PASSWORD: [&str; 2] = ["--new-password-file", "--new-password-fd"];
const WRITER: [&str; 2] = ["--lock-timeout", "--allow-shared-storage"];
const GLOBAL: [&str; 3] = ["--vault", "--backend", "--json"];

/// Every command a user types, and which option groups apply to it.
/// (password, new password, writer)
const COMMANDS: &[(&[&str], bool, bool, bool)] = &[
    (&["init"], true, false, true),
    (&["vault"], false, false, false),
    (&["vault", "open"], false, false, false),
    (&["vault", "unlock"], true, false, false),
    (&["vault", "passwd"], true, true, true),
    (&["identity"], false, false, false),
    (&["identity", "export"], true, false, false),
    (&["identity", "show"], false, false, false),
    (&["identity", "history"], false, false, false),
    (&["identity", "revoke"], true, false, true),
    (&["rotate"], true, false, true),
    (&["sign"], true, false, false),
    (&["verify"], false, false, false),
    (&["encapsulate"], false, false, false),
    (&["decapsulate"], true, false, false),
    (&["encrypt"], false, false, false),
    (&["decrypt"], true, false, false),
    (&["contacts"], false, false, false),
    (&["contacts", "add"], true, false, true),
    (&["contacts", "verify"], true, false, true),
    (&["contacts", "list"], false, false, false),
    (&["contacts", "show"], false, false, false),
    (&["contacts", "remove"], true, false, true),
    (&["contacts", "export"], false, false, false),
    (&["contacts", "update"], true, false, true),
    (&["bench"], false, false, false),
    (&["doctor"], false, false, false),
    (&["completions"], false, false, false),
];

#[test]
fn options_appear_only_in_the_help_of_the_commands_they_apply_to() {
    for &(command, password, new_password, writer) in COMMANDS {
        let text = help(command);
        let groups = [
            (&PASSWORD, password),
            (&NEW_PASSWORD, new_password),
            (&WRITER, writer),
        ];
        for (options, applies) in groups {
            for option in options {
                assert_eq!(
                    text.contains(option),
                    applies,
                    "`nexusq {} --help` {} {option}:\n{text}",
                    command.join(" "),
                    if applies { "lacks" } else { "shows" }
                );
            }
        }
        // The global options are in every command's help.
        for option in GLOBAL {
            assert!(text.contains(option), "{command:?} lacks {option}:\n{text}");
        }
    }
    // The issue's own example.
    assert!(!help(&["encrypt"]).contains("--new-password"));
    // The top-level help lists them all: they are accepted before the command name too.
    let top = help(&[]);
    for option in PASSWORD
        .iter()
        .chain(&NEW_PASSWORD)
        .chain(&WRITER)
        .chain(&GLOBAL)
    {
        assert!(top.contains(option), "nexusq --help lacks {option}:\n{top}");
    }
    // --backend names its values.
    assert!(help(&["sign"]).contains("rustcrypto") && help(&["sign"]).contains("native"));
}

#[test]
fn per_command_options_work_before_the_command_and_are_refused_where_they_do_not_apply() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "me");
    // Before the command name, as DESIGN.md section 5 promises.
    v.cmd()
        .arg("--password-file")
        .arg(&v.pw)
        .args(["--lock-timeout", "5", "vault", "unlock"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--lock-timeout"));
    v.cmd()
        .arg("--password-file")
        .arg(&v.pw)
        .args(["vault", "unlock"])
        .assert()
        .success();
    let new_pw = common::private_file(&dir.path().join("new.pw"), "the new password\n");
    v.cmd()
        .arg("--new-password-file")
        .arg(&new_pw)
        .args(["--lock-timeout", "5", "vault", "passwd"])
        .args(common::SMALL_KDF)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .success();
    v.cmd()
        .args(["vault", "unlock", "--password-file"])
        .arg(&new_pw)
        .assert()
        .success();
    // Given before a command that does not take it: a usage error, not silently ignored.
    let export = v.export();
    v.cmd()
        .arg("--new-password-file")
        .arg(&new_pw)
        .args(["encrypt", "--to"])
        .arg(&export)
        .arg("-o")
        .arg(dir.path().join("out.nxq"))
        .arg(&new_pw)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("does not apply"));
    assert!(!dir.path().join("out.nxq").exists());
    // After it, clap refuses it.
    v.cmd()
        .args(["vault", "open", "--password-file"])
        .arg(&new_pw)
        .assert()
        .code(2);
}

#[test]
fn backend_values_are_checked_from_the_flag_and_the_environment() {
    let out = run(&["--backend", "openssl", "doctor"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("rustcrypto") && stderr.contains("native"),
        "{stderr}"
    );

    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "me");
    for (value, code) in [("native", 0), ("rustcrypto", 0), ("", 0), ("openssl", 2)] {
        let out = v
            .cmd()
            .env("NEXUSQ_BACKEND", value)
            .args(["vault", "unlock", "--password-file"])
            .arg(&v.pw)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(code),
            "NEXUSQ_BACKEND={value:?}: {stderr}"
        );
        if code == 2 {
            assert!(stderr.contains("NEXUSQ_BACKEND"), "{stderr}");
            assert!(stderr.contains("hint:"), "{stderr}");
        }
    }
    // The flag wins over the environment.
    v.cmd()
        .env("NEXUSQ_BACKEND", "openssl")
        .args(["--backend", "native", "vault", "unlock", "--password-file"])
        .arg(&v.pw)
        .assert()
        .success();
}

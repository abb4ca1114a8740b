//! What `--help` shows, through the real binary: an option appears in the help of the commands
//! it applies to and nowhere else; the per-command options still work before the command name,
//! where a command that does not use one says so in a note (docs/cli.md, "Options a command
//! does not use"), and after it are a usage error naming the commands that take them;
//! `--backend` and `$NEXUSQ_BACKEND` take only the backends there are.

use crate::common;
use crate::common::TestVault;
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
    // A password option of another command is not listed.
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

/// The `note:` lines of a command's stderr.
fn notes(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("note:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn per_command_options_work_before_the_command_and_are_ignored_with_a_note_where_unused() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "me");
    // Before the command name, as docs/cli.md promises; --lock-timeout is not used by `vault
    // unlock`, which says so and unlocks.
    let out = v
        .cmd()
        .arg("--password-file")
        .arg(&v.pw)
        .args(["--lock-timeout", "5", "vault", "unlock"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        notes(&out),
        [
            "note: --lock-timeout is not used by `vault unlock` (it is for the commands that \
          change the vault or the contacts book)"
        ]
    );
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
    // Before a command that does not take it: ignored, with one note, and the command runs.
    let export = v.export();
    let out = v
        .cmd()
        .arg("--new-password-file")
        .arg(&new_pw)
        .arg("--password-file")
        .arg(&new_pw)
        .args(["encrypt", "--to"])
        .arg(&export)
        .arg("-o")
        .arg(dir.path().join("out.nxq"))
        .arg(&new_pw)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        notes(&out),
        [
            "note: --password-file and --new-password-file are not used by `encrypt` \
          (--password-file is for the commands that unlock the vault; --new-password-file is \
          for `vault passwd` and `recover`)"
        ]
    );
    assert!(dir.path().join("out.nxq").exists());
    // And with --help, clap's help as always.
    v.cmd()
        .arg("--password-file")
        .arg(&new_pw)
        .args(["bench", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Usage: nexusq bench"));
    // After it, a usage error.
    v.cmd()
        .args(["vault", "open", "--password-file"])
        .arg(&new_pw)
        .assert()
        .code(2);
}

/// An alias that always passes --password-file (`alias nq='nexusq --password-file F'`) works
/// for `contacts list`: the same stdout as without it, as text and as one JSON object, the same
/// exit status, and exactly one note on stderr.
#[test]
fn an_unused_option_before_the_command_changes_nothing_but_one_note() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "me");
    let other = TestVault::new(dir.path(), "alice").export();
    v.cmd()
        .args(["contacts", "add", "alice"])
        .arg(&other)
        .args(["--yes", "--password-file"])
        .arg(&v.pw)
        .assert()
        .success();
    for json in [false, true] {
        let mut plain = v.cmd();
        plain.args(["contacts", "list"]);
        let mut aliased = v.cmd();
        aliased
            .arg("--password-file")
            .arg(&v.pw)
            .args(["contacts", "list"]);
        if json {
            plain.arg("--json");
            aliased.arg("--json");
        }
        let plain = plain.output().unwrap();
        let out = aliased.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, plain.stdout, "json: {json}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.lines().filter(|l| l.starts_with("note:")).count(),
            1,
            "{stderr}"
        );
        assert_eq!(
            notes(&out),
            [
                "note: --password-file is not used by `contacts list` (it is for the commands that \
              unlock the vault)"
            ]
        );
        if json {
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(value["contacts"][0]["name"], "alice");
        }
    }
}

/// After the command name it stays a usage error (exit 2), which names the commands that take
/// the option and says it may go before the command name; under --json, the error object.
#[test]
fn an_unused_option_after_the_command_names_the_commands_that_take_it() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "me");
    for json in [false, true] {
        let mut c = v.cmd();
        c.args(["contacts", "list", "--password-file"]).arg(&v.pw);
        if json {
            c.arg("--json");
        }
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("error: `contacts list` does not take --password-file"),
            "{stderr}"
        );
        for words in [
            "--password-file is for init, vault unlock/passwd",
            "sign",
            "contacts add/verify/remove/recover/update",
            "before the command name every command accepts it",
            "`nexusq --password-file PATH contacts list`",
        ] {
            assert!(stderr.contains(words), "{words}: {stderr}");
        }
        if json {
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(value["error"]["code"], 2);
            assert!(
                value["error"]["hint"]
                    .as_str()
                    .unwrap()
                    .contains("before the command")
            );
        } else {
            assert!(out.stdout.is_empty());
        }
    }
    // Other unknown options stay clap's.
    let out = v
        .cmd()
        .args(["contacts", "list", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument '--bogus'"));
}

/// A password of the other kind, before a command that asks for a password anyway (the new
/// vault's), is refused: the vault must not get another password than the file's.
#[test]
fn a_password_option_of_the_other_kind_is_refused_before_recover_and_init() {
    let dir = tempfile::tempdir().unwrap();
    let pw = common::private_file(&dir.path().join("pw"), "a password\n");
    let new = dir.path().join("new.nxq");
    for (option, command, instead) in [
        ("--password-file", "recover", "--new-password-file"),
        ("--new-password-file", "init", "--password-file"),
    ] {
        let out = common::bin()
            .arg("--vault")
            .arg(&new)
            .arg(option)
            .arg(&pw)
            .arg(command)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{option} {command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("`{command}` does not read {option}")),
            "{stderr}"
        );
        assert!(stderr.contains(instead), "{stderr}");
        assert!(!new.exists());
    }
}

/// A password on stdin before a command that does not read one is refused: `encrypt` would
/// otherwise encrypt it, as its data, to the recipient.
#[test]
fn an_unused_password_on_stdin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "me");
    let export = v.export();
    let out_file = dir.path().join("out.nxq");
    let out = v
        .cmd()
        .args(["--password-fd", "0", "encrypt", "--to"])
        .arg(&export)
        .arg("-o")
        .arg(&out_file)
        .write_stdin("the password\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`encrypt` does not use --password-fd") && stderr.contains("stdin"),
        "{stderr}"
    );
    assert!(!out_file.exists());
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

/// The long option names (`--x`) that `section` of a help text defines: the option lines, which
/// clap indents less than the descriptions under them.
fn defined_options(section: &str) -> Vec<String> {
    section
        .lines()
        .filter(|l| {
            let indent = l.len() - l.trim_start().len();
            (1..8).contains(&indent) && l.trim_start().starts_with('-')
        })
        .flat_map(|l| l.split([' ', ',', '=']))
        .filter(|w| w.starts_with("--"))
        .map(str::to_string)
        .collect()
}

/// Every option clap marks global, as the help shows them under "Global options".
const GLOBAL_ALL: [&str; 4] = ["--vault", "--backend", "--json", "--contacts"];

#[test]
fn each_command_lists_its_own_options_first_and_the_global_ones_under_their_heading() {
    for &(command, ..) in COMMANDS {
        let text = help(command);
        let (own, global) = text.split_once("\nGlobal options:\n").unwrap_or_else(|| {
            panic!("`nexusq {command:?} --help` has no Global options:\n{text}")
        });
        let own = defined_options(own);
        let global = defined_options(global);
        for option in GLOBAL_ALL {
            assert!(
                !own.iter().any(|o| o == option),
                "{command:?}: {option} among its own options:\n{text}"
            );
            assert!(
                global.iter().any(|o| o == option),
                "{command:?}: {option} not under Global options:\n{text}"
            );
        }
        // Nothing else under the heading: the command's own options all come before it.
        for option in &global {
            assert!(
                GLOBAL_ALL.contains(&option.as_str()),
                "{command:?}: {option} under Global options:\n{text}"
            );
        }
        // --help is the command's own, before the heading.
        assert!(own.iter().any(|o| o == "--help"), "{command:?}:\n{text}");
    }
    // The new password only where it is asked for.
    let passwd = help(&["vault", "passwd"]);
    let own = defined_options(passwd.split("\nGlobal options:\n").next().unwrap());
    for option in NEW_PASSWORD.iter().chain(&PASSWORD).chain(&WRITER) {
        assert!(
            own.iter().any(|o| o == option),
            "vault passwd lacks {option}"
        );
    }
    let sign = help(&["sign"]);
    assert!(!sign.contains("--new-password-file"), "{sign}");
    assert!(
        defined_options(&sign)
            .iter()
            .any(|o| o == "--password-file")
    );
}

#[test]
fn identity_summary_names_every_identity_command() {
    let own = help(&["identity"]);
    let summary = own.lines().next().unwrap();
    let commands: Vec<&str> = own
        .split("\nCommands:\n")
        .nth(1)
        .expect("a Commands: list")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .collect();
    assert!(commands.len() >= 4, "{commands:?}");
    for name in ["show", "history", "export", "revoke"] {
        assert!(commands.contains(&name), "{commands:?}");
    }
    let top = help(&[]);
    let listed = top
        .lines()
        .find(|l| l.trim_start().starts_with("identity "))
        .expect("identity in nexusq --help");
    for name in &commands {
        assert!(
            summary.contains(name),
            "`identity --help` summary lacks {name}: {summary}"
        );
        assert!(
            listed.contains(name),
            "`nexusq --help` identity line lacks {name}: {listed}"
        );
    }
}

/// `nexusq ARGS` in a new session (setsid): no controlling terminal, stdin /dev/null; killed
/// if it waits for more than 20 s (it must fail at once).
fn without_terminal(v: &TestVault, runtime: &std::path::Path, args: &[&std::ffi::OsStr]) -> Output {
    use std::io::Read;
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let mut child = std::process::Command::new("setsid")
        .arg("-w")
        .arg(common::BIN)
        .arg("--vault")
        .arg(&v.path)
        .args(args)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env("NO_COLOR", "1")
        .env("XDG_RUNTIME_DIR", runtime)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run setsid (util-linux)");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nexusq {args:?} waited without a terminal");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    Output {
        status,
        stdout,
        stderr: reader.join().unwrap(),
    }
}

/// Without a terminal, the hint names the password options of that command and no others.
#[test]
fn no_terminal_hints_name_only_the_options_of_the_command() {
    use std::ffi::OsStr;
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "me");
    let runtime = tempfile::tempdir().unwrap();
    let doc = common::private_file(&dir.path().join("doc.txt"), "a document\n");
    let os = |s: &'static str| OsStr::new(s);
    let pw = v.pw.as_os_str();
    // (arguments, what the hint must name, what it must not name)
    let cases: Vec<(Vec<&OsStr>, Vec<&str>, Vec<&str>)> = vec![
        (
            vec![os("vault"), os("unlock")],
            vec!["--password-file", "--password-fd"],
            vec!["--new-password", "agent"],
        ),
        (
            vec![os("vault"), os("passwd")],
            vec![
                "--password-file",
                "--new-password-file",
                "--new-password-fd",
            ],
            vec!["agent"],
        ),
        (
            vec![os("vault"), os("passwd"), os("--password-file"), pw],
            vec!["--new-password-file", "--new-password-fd"],
            vec!["--password-file", "--password-fd", "agent"],
        ),
        (
            vec![os("sign"), doc.as_os_str(), os("--no-agent")],
            vec!["--password-file", "--password-fd", "nexusq agent start"],
            vec!["--new-password"],
        ),
        (
            vec![os("agent"), os("start")],
            vec!["--password-file", "--password-fd"],
            vec!["--new-password", "agent start"],
        ),
        (
            vec![os("rotate")],
            vec!["--password-file", "--password-fd"],
            vec!["--new-password", "agent"],
        ),
    ];
    for (args, named, not_named) in cases {
        let out = without_terminal(&v, runtime.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("no terminal"), "{args:?}: {stderr}");
        let hint = stderr
            .lines()
            .find_map(|l| l.strip_prefix("hint: "))
            .unwrap_or_else(|| panic!("{args:?}: no hint: {stderr}"));
        for option in named {
            assert!(
                hint.contains(option),
                "{args:?}: the hint lacks {option}: {hint}"
            );
        }
        for option in not_named {
            assert!(
                !hint.contains(option),
                "{args:?}: the hint names {option}: {hint}"
            );
        }
    }
}

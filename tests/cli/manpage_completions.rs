//! The generated man page (`nexusq manpage`) and shell completions
//! (`nexusq completions SHELL`): they render, say what they should, work in bash, complete
//! contact names in bash, zsh and fish (each shell where installed; .ci/run installs them),
//! and stop quietly when the reader goes away (`| head`).

use crate::common;
use crate::common::BIN;
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

/// Every command path a user can type (`["vault", "passwd"]`), read from the `Commands:` lists
/// of the real binary's help, nested ones too; `help` left out.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut args: Vec<&str> = prefix.iter().map(String::as_str).collect();
        args.push("--help");
        let help = stdout_of(&args);
        let Some(list) = help.split("\nCommands:\n").nth(1) else {
            return;
        };
        let names: Vec<String> = list
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|&n| n != "help")
            .map(str::to_string)
            .collect();
        for name in names {
            let mut path = prefix.to_vec();
            path.push(name);
            out.push(path.clone());
            walk(&path, out);
        }
    }
    let mut out = Vec::new();
    walk(&[], &mut out);
    out
}

/// The `.SH` sections of a page, in order, without quotes.
fn sections(page: &str) -> Vec<String> {
    page.lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .map(|s| s.trim_matches('"').to_string())
        .collect()
}

/// The text of section `name`, up to the next `.SH`.
fn section<'a>(page: &'a str, name: &str) -> &'a str {
    let quoted = format!(".SH \"{name}\"\n");
    let plain = format!(".SH {name}\n");
    let start = page
        .find(&quoted)
        .map(|i| i + quoted.len())
        .or_else(|| page.find(&plain).map(|i| i + plain.len()))
        .unwrap_or_else(|| panic!("no section {name}"));
    let rest = &page[start..];
    &rest[..rest.find("\n.SH ").unwrap_or(rest.len())]
}

/// Every `name(N)` page reference in the roff source (`\fBage\fR(1)` and `age(1)` alike).
fn page_references(page: &str) -> Vec<String> {
    let plain = page
        .replace("\\fR", "")
        .replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\-", "-");
    let bytes = plain.as_bytes();
    let mut refs = Vec::new();
    for (i, w) in bytes.windows(3).enumerate() {
        if w[0] == b'(' && w[1].is_ascii_digit() && w[2] == b')' {
            let before = &plain[..i];
            let name: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if !name.is_empty() {
                refs.push(format!("{name}({})", w[1] as char));
            }
        }
    }
    refs
}

#[test]
fn man_page_has_the_standard_sections_and_every_command() {
    let page = stdout_of(&["manpage"]);
    // Plain ASCII (other characters as groff escapes): man warns about raw UTF-8 in a C locale.
    assert!(page.is_ascii());
    let th = page
        .lines()
        .find(|l| l.starts_with(".TH "))
        .expect("a .TH title line");
    assert!(th.starts_with(".TH nexusq 1"), "{th}");
    assert!(th.contains(env!("CARGO_PKG_VERSION")), "{th}");
    let sections = sections(&page);
    assert_eq!(
        sections,
        [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "COMMANDS",
            "EXAMPLES",
            "ENVIRONMENT",
            "FILES",
            "EXIT STATUS",
            "SEE ALSO"
        ],
    );
    let name = section(&page, "NAME");
    assert!(name.trim_start().starts_with("nexusq \\- "), "{name}");

    // Every command, nested ones too, has its own subsection with its own options.
    let paths = command_paths();
    for sub in SUBCOMMANDS.iter().filter(|&&s| s != "help") {
        assert!(
            paths.iter().any(|p| p == &[sub.to_string()]),
            "{sub} not in --help"
        );
    }
    for path in [
        &["vault", "passwd"][..],
        &["identity", "revoke"],
        &["contacts", "add"],
        &["agent", "start"],
    ] {
        assert!(paths.iter().any(|p| p == path), "{path:?} not in --help");
    }
    let commands = section(&page, "COMMANDS");
    for path in &paths {
        let heading = format!(".SS \"nexusq {}\"", path.join(" "));
        assert!(commands.contains(&heading), "no {heading}");
    }
    assert!(
        !commands.contains("agent serve"),
        "the hidden `agent serve` is listed"
    );
    // Every argument and option says what it is (a `.TP` header followed by text).
    let lines: Vec<&str> = page.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if *line == ".TP" {
            let body = lines.get(i + 2).copied().unwrap_or(".");
            assert!(
                !body.starts_with('.'),
                "{} has no description",
                lines[i + 1]
            );
        }
    }
    let passwd = commands
        .split(".SS \"nexusq vault passwd\"")
        .nth(1)
        .unwrap()
        .split(".SS ")
        .next()
        .unwrap();
    assert!(passwd.contains("\\-\\-new\\-password\\-file"), "{passwd}");
    let sign = commands
        .split(".SS \"nexusq sign\"")
        .nth(1)
        .unwrap()
        .split(".SS ")
        .next()
        .unwrap();
    assert!(sign.contains("\\-\\-password\\-file"), "{sign}");
    assert!(!sign.contains("new\\-password"), "{sign}");
    for option in [
        "vault",
        "backend",
        "json",
        "password\\-file",
        "password\\-fd",
    ] {
        assert!(
            section(&page, "OPTIONS").contains(&format!("\\fB\\-\\-{option}\\fR")),
            "--{option}"
        );
    }

    // EXAMPLES: the everyday tasks.
    let examples = section(&page, "EXAMPLES");
    for task in [
        "nexusq init",
        "identity export",
        "nexusq encrypt",
        "nexusq decrypt",
        "nexusq sign",
        "nexusq verify",
        "agent start",
        "contacts add",
        "gpg.x509.program nexusq\\-git\\-sign",
        "\\-\\-age",
    ] {
        assert!(examples.contains(task), "EXAMPLES lack {task}");
    }

    // ENVIRONMENT: every variable the code reads (`env::var("X")`, `env::var_os("X")`), and the
    // tests' NEXUSQ_VECTORS.
    let environment = section(&page, "ENVIRONMENT");
    let mut read = vec!["NEXUSQ_VECTORS".to_string()];
    for dir in ["src", "core/src", "native/src"] {
        read.extend(env_vars_read_in(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
        ));
    }
    for var in [
        "NEXUSQ_VAULT",
        "NEXUSQ_BACKEND",
        "NO_COLOR",
        "NEXUSQ_CONTACTS",
    ] {
        assert!(
            read.iter().any(|r| r == var),
            "the scan missed {var}: {read:?}"
        );
    }
    for var in &read {
        assert!(
            environment.contains(var.as_str()),
            "ENVIRONMENT lacks {var}"
        );
    }

    let files = section(&page, "FILES");
    for file in [
        "vault.nxq",
        "revocation.asc",
        "contacts.nxq",
        "agent",
        "VAULT.lock",
    ] {
        assert!(files.contains(file), "FILES lack {file}");
    }

    // EXIT STATUS: every code of the table in docs/cli.md.
    let exit = section(&page, "EXIT STATUS");
    let cli_md = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"),
    )
    .unwrap();
    let table = cli_md
        .split("## Exit codes")
        .nth(1)
        .expect("docs/cli.md: ## Exit codes");
    let codes: Vec<&str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .filter(|c| c.starts_with(|ch: char| ch.is_ascii_digit()))
        .collect();
    assert!(codes.len() >= 7, "{codes:?}");
    for code in codes {
        assert!(
            exit.contains(&format!(".TP\n\\fB{code}\\fR\n")),
            "EXIT STATUS lacks {code}"
        );
    }

    // No page that is not there: no .so includes, and only age(1) and git(1), as "if installed".
    assert!(!page.lines().any(|l| l.starts_with(".so")), "a .so line");
    let refs = page_references(&page);
    for r in &refs {
        assert!(
            ["age(1)", "git(1)"].contains(&r.as_str()),
            "the page names {r}"
        );
    }
    assert!(section(&page, "SEE ALSO").contains("If installed"));
}

/// The names in `env::var("X")` and `env::var_os("X")` in the Rust files under `dir`.
fn env_vars_read_in(dir: &std::path::Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            names.extend(env_vars_read_in(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for call in ["env::var(\"", "env::var_os(\""] {
                for piece in text.split(call).skip(1) {
                    let name = piece.split('"').next().unwrap();
                    if !name.is_empty() && !names.iter().any(|n| n == name) {
                        names.push(name.to_string());
                    }
                }
            }
        }
    }
    names
}

/// Every line of EXAMPLES fits 80 columns: in the roff source, and as groff lays the page out
/// for an 80-column terminal (where groff is installed). Long commands continue with ` \`.
#[test]
fn examples_fit_80_columns() {
    let page = stdout_of(&["manpage"]);
    let examples = section(&page, "EXAMPLES");
    for line in examples.lines() {
        assert!(line.chars().count() <= 80, "over 80 columns: {line}");
    }
    // The continuations are there, so the test checks what it should.
    assert!(examples.contains(" \\\\\\fR\n"), "{examples}");
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("groff is not installed; the rendered EXAMPLES are NOT checked");
        return;
    }
    let out = common::pipe_through(
        Command::new("groff").args(["-man", "-Tutf8", "-rLL=80n"]),
        &page,
    );
    assert!(out.status.success());
    let mut rendered = String::new();
    for c in String::from_utf8_lossy(&out.stdout).chars() {
        if c == '\x08' {
            rendered.pop();
        } else {
            rendered.push(c);
        }
    }
    let start = rendered.find("\nEXAMPLES\n").expect("EXAMPLES rendered");
    let end = rendered
        .find("\nENVIRONMENT\n")
        .expect("ENVIRONMENT rendered");
    let shown = &rendered[start..end];
    assert!(shown.contains("nexusq verify report.pdf"), "{shown}");
    for line in shown.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns as rendered: {line}",
            line.chars().count()
        );
    }
}

/// groff, where installed, reads the page without a warning (-ww: all warnings).
#[test]
fn man_page_renders_without_groff_warnings() {
    if Command::new("groff").arg("--version").output().is_err() {
        eprintln!("groff is not installed; skipped");
        return;
    }
    let page = stdout_of(&["manpage"]);
    let out = common::pipe_through(
        Command::new("groff").args(["-t", "-man", "-Tutf8", "-ww"]),
        &page,
    );
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
    for heading in ["NAME", "EXAMPLES", "EXIT STATUS", "nexusq vault passwd"] {
        assert!(rendered.contains(heading), "{rendered}");
    }
    assert!(!rendered.contains("nexusq-doctor"), "{rendered}");

    // man itself (man-db or mandoc), where installed, in a C locale: no warnings either.
    if Command::new("man").arg("--version").output().is_ok() {
        let out = common::pipe_through(
            Command::new("man")
                .args(["--warnings", "-l", "-"])
                .env("MANWIDTH", "80")
                .env("LC_ALL", "C")
                .env("MANPAGER", "cat")
                .env("PAGER", "cat"),
            &page,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && stderr.is_empty(), "man: {stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("EXIT STATUS"));
    }
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

/// A vault `me` whose contacts book holds `alice` and `bob@example.org`, and a file `bob.asc`
/// beside it: where the completions offer names, and files where a file may be given.
struct Book {
    _tmp: tempfile::TempDir,
    dir: std::path::PathBuf,
    me: common::TestVault,
}

impl Book {
    fn new() -> Book {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let me = common::TestVault::new(&dir, "me");
        for (name, who) in [("alice", "a"), ("bob@example.org", "b")] {
            let export = common::TestVault::new(&dir, who).export();
            me.cmd()
                .args(["contacts", "add", name])
                .arg(&export)
                .args(["--yes", "--password-file"])
                .arg(&me.pw)
                .assert()
                .success();
        }
        std::fs::write(dir.join("bob.asc"), "not read\n").unwrap();
        Book { _tmp: tmp, dir, me }
    }

    /// `--vault PATH`, as typed on the command line being completed.
    fn vault(&self) -> String {
        format!("--vault {}", self.me.path.display())
    }

    /// A shell in the book's folder, `nexusq` (the binary under test) first on its PATH, no
    /// vault or contacts book in its environment.
    fn shell(&self, program: &str) -> Command {
        let bin_dir = std::path::Path::new(BIN).parent().unwrap();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![bin_dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        let mut c = Command::new(program);
        c.current_dir(&self.dir)
            .env("PATH", std::env::join_paths(dirs).unwrap())
            .env("HOME", &self.dir)
            .env_remove("NEXUSQ_VAULT")
            .env_remove("NEXUSQ_CONTACTS")
            .env_remove("NEXUSQ_BACKEND");
        c
    }
}

fn installed(shell: &str, test: &str) -> bool {
    let found = Command::new(shell)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!(
            "SKIPPED {test}: {shell} is not installed (apt-get install {shell}; .ci/run installs it)"
        );
    }
    found
}

/// In bash, `--to`, `--identity` and `identity show` offer the contact names and files;
/// `contacts show` and the other NAME arguments only the names. The words are split as bash
/// splits them (at `=` and `@` too); --vault given on the line is used.
#[test]
fn bash_completes_contact_names() {
    let book = Book::new();
    let vault = book.vault();
    // try CUR LINE WORDS...: COMP_WORDS as bash splits LINE (at '=' and '@' too), then
    // _nexusq as bash calls it, with CUR the word readline replaces.
    let script = r#"
        source <(nexusq completions bash)
        try() {
            local cur=$1
            COMP_LINE=$2 COMP_POINT=${#2}
            shift 2
            COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
            COMPREPLY=()
            _nexusq nexusq "$cur" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\n' "${COMPREPLY[*]}"
        }
        v=$VAULT
        try "" "nexusq --vault $v contacts show " nexusq --vault "$v" contacts show ""
        try "" "nexusq --vault $v encrypt --to " nexusq --vault "$v" encrypt --to ""
        try bo "nexusq --vault $v verify --identity bo" nexusq --vault "$v" verify --identity bo
        try a "nexusq --vault $v identity show a" nexusq --vault "$v" identity show a
        try "" "nexusq --vault $v contacts export alice " nexusq --vault "$v" contacts export alice ""
        try a "nexusq --vault $v contacts update a" nexusq --vault "$v" contacts update a
        try @ex "nexusq --vault=$v contacts remove bob@ex" nexusq --vault = "$v" contacts remove bob @ ex
        try @a "nexusq --vault $v encapsulate --to=@a" nexusq --vault "$v" encapsulate --to =@ a
        try --j "nexusq --vault $v contacts show --j" nexusq --vault "$v" contacts show --j
        try "" "nexusq --vault $v/missing contacts show " nexusq --vault "$v/missing" contacts show ""
    "#;
    let out = book
        .shell("bash")
        .arg("-c")
        .arg(script)
        .env("VAULT", book.me.path.display().to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "{stdout}{stderr}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let words = |i: usize| -> Vec<&str> {
        let mut w: Vec<&str> = lines[i].split(' ').collect();
        w.sort_unstable();
        w
    };
    assert_eq!(lines[0], "alice bob@example.org", "{vault}: {stdout}");
    // Names first, then the files of the folder.
    let to = words(1);
    for w in ["alice", "bob@example.org", "bob.asc", "me.nxq"] {
        assert!(to.contains(&w), "--to: {stdout}");
    }
    assert!(lines[1].starts_with("alice bob@example.org "), "{stdout}");
    assert_eq!(words(2), ["bob.asc", "bob@example.org"], "{stdout}");
    assert!(
        words(3).contains(&"alice") && words(3).contains(&"a.nxq"),
        "{stdout}"
    );
    assert_eq!(lines[4], "alice bob@example.org", "{stdout}");
    assert_eq!(lines[5], "alice", "{stdout}");
    // Readline replaces what follows the last '@' or '='.
    assert_eq!(lines[6], "@example.org", "{stdout}");
    assert_eq!(lines[7], "@alice", "{stdout}");
    // Options are clap_complete's, and a book that cannot be read gives no names.
    assert_eq!(lines[8], "--json", "{stdout}");
    assert!(!lines[9].contains("alice"), "{stdout}");
    assert!(lines[9].contains("--vault"), "{stdout}");
}

/// In zsh, at a real terminal: the names are listed for `contacts show`, names and files for
/// `encrypt --to`, and a unique prefix completes to the name.
#[test]
fn zsh_completes_contact_names() {
    if !installed("zsh", "zsh_completes_contact_names") {
        return;
    }
    let book = Book::new();
    let mut c = book.shell("zsh");
    c.args(["-f", "-i"])
        .env("ZDOTDIR", &book.dir)
        .env("TERM", "xterm")
        .env("COLUMNS", "120")
        .env("LINES", "40");
    let mut term = crate::pty::Terminal::spawn(c);
    // The prompt is spelled apart, so that the typed line's echo does not read as it.
    term.type_text(
        "autoload -U compinit && compinit -u -D && source <(nexusq completions zsh) && \
         PS1='re''ady> '\n",
    );
    term.wait_for("ready> ");
    let vault = book.vault();
    let after = |term: &mut crate::pty::Terminal, typed: &str, want: &[&str]| {
        let from = term.shown().len();
        term.type_text(typed);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let shown = term.shown();
            let new = String::from_utf8_lossy(&shown[from..]).to_string();
            if want.iter().all(|w| new.contains(w)) {
                return new;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{typed:?}: the terminal never showed {want:?}; it showed {new:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    after(
        &mut term,
        &format!("nexusq {vault} contacts show \t"),
        &["alice", "bob@example.org"],
    );
    after(&mut term, "\x15", &[]);
    after(
        &mut term,
        &format!("nexusq {vault} encrypt --to bo\t\t"),
        &["bob@example.org", "bob.asc"],
    );
    after(&mut term, "\x15", &[]);
    // One name fits: it is completed on the line (the echo of the rest of it).
    after(
        &mut term,
        &format!("nexusq {vault} contacts remove bob@\t"),
        &["example.org"],
    );
    after(&mut term, "\x15exit\n", &[]);
    let (status, _) = term.finish();
    assert!(status.success());
}

/// In fish, `complete -C` lists the candidates: names (described as contacts) for
/// `contacts show`, names and files for `--to`, `@NAME` after an `@`; $NEXUSQ_VAULT is used.
#[test]
fn fish_completes_contact_names() {
    if !installed("fish", "fish_completes_contact_names") {
        return;
    }
    let book = Book::new();
    let vault = book.vault();
    let script = format!(
        "nexusq completions fish | source
         for line in 'nexusq {vault} contacts show ' 'nexusq encrypt --to bo' \
             'nexusq verify --identity=@' 'nexusq contacts update alice bo' 'nexusq contacts show --js'
             complete -C $line | sort
             echo ==
         end"
    );
    let out = book
        .shell("fish")
        .args(["--no-config", "-c", &script])
        .env("NEXUSQ_VAULT", &book.me.path)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "{stdout}{stderr}"
    );
    let parts: Vec<&str> = stdout.split("==\n").collect();
    assert_eq!(
        parts[0], "alice\tcontact\nbob@example.org\tcontact\n",
        "{stdout}"
    );
    assert_eq!(parts[1], "bob.asc\nbob@example.org\tcontact\n", "{stdout}");
    assert_eq!(
        parts[2], "--identity=@alice\tcontact\n--identity=@bob@example.org\tcontact\n",
        "{stdout}"
    );
    // The FILE of `contacts update NAME FILE` is a file, not a name.
    assert_eq!(parts[3], "bob.asc\n", "{stdout}");
    assert!(parts[4].starts_with("--json\t"), "{stdout}");
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

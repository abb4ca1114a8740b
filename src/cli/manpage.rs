//! nexusq(1), the one man page: the commands and their options come from the clap definitions
//! (every command, nested ones too, so the page cannot drift from `--help`); EXAMPLES,
//! ENVIRONMENT, FILES, EXIT STATUS and SEE ALSO are written here. It names no page we do not
//! ship (clap_mangen's own subcommand list points at nexusq-foo(1) pages, which do not exist).

use super::args::GLOBAL_HEADING;
use clap::{Arg, Command};
use roff::{Inline, Roff, bold, italic, roman};

/// Examples, grouped: (group, [(command line, what it does)]). A `\n` in a command line is
/// where it continues on the next line (` \` and an indent), so that every line of the
/// section fits 80 columns, as `man` shows it and in the roff source
/// (tests/cli/manpage_completions.rs).
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "Create the vault and give your identity to others",
        &[
            (
                "nexusq init",
                "password twice; writes the revocation statement",
            ),
            (
                "nexusq vault open",
                "fingerprint, generations and KDF, no password",
            ),
            (
                "nexusq identity export -o me.asc",
                "your public identity, to share",
            ),
            (
                "nexusq identity show bob.asc",
                "someone's fingerprint, generations",
            ),
        ],
    ),
    (
        "Encrypt and decrypt files",
        &[
            (
                "nexusq encrypt --to bob.asc --to carol.asc\n-o notes.nxq notes.txt",
                "to one or more identities",
            ),
            (
                "nexusq decrypt -o notes.txt notes.nxq",
                "no partial file on failure",
            ),
            (
                "tar c photos | nexusq encrypt --to-self > photos.tar.nxq",
                "streams",
            ),
        ],
    ),
    (
        "Sign and verify",
        &[
            (
                "nexusq sign report.pdf -o report.sig",
                "a detached hybrid signature",
            ),
            (
                "nexusq verify report.pdf --sig report.sig\n--identity alice.asc",
                "exit 1 if it does not verify",
            ),
            (
                "nexusq sign --manifest SHA256SUMS",
                "checks the listed files first",
            ),
        ],
    ),
    (
        "Unlock once per session with the key agent",
        &[
            (
                "nexusq agent start --idle 30m",
                "asks for the password once",
            ),
            (
                "nexusq sign notes.txt -o notes.sig",
                "no password while it runs",
            ),
            ("nexusq lock", "wipe its keys now"),
        ],
    ),
    (
        "If the phone is lost: recovery words",
        &[
            ("nexusq backup phrase", "the 24 words once; asks three back"),
            (
                "nexusq backup shares --threshold 2 --shares 3\n-o share",
                "any 2 of 3 rebuild it",
            ),
            ("nexusq backup check", "the drill; writes nothing"),
            (
                "nexusq --vault new.nxq recover\n--from-export me.asc",
                "types the words, one at a time",
            ),
        ],
    ),
    (
        "Contacts",
        &[
            (
                "nexusq contacts add alice alice.asc",
                "you confirm its fingerprint",
            ),
            (
                "nexusq encrypt --to alice -o f.nxq f.txt",
                "names work like files",
            ),
            ("nexusq contacts list", "every contact, one line each"),
        ],
    ),
    (
        "Sign git commits (nexusq-git-sign is installed beside nexusq)",
        &[
            ("git config gpg.format x509", ""),
            (
                "git config gpg.x509.program nexusq-git-sign",
                "enough to verify",
            ),
            (
                "git config user.signingkey\n\"$(nexusq vault open --json | jq -r .fingerprint)\"",
                "",
            ),
            ("git commit -S -m signed", "then: git verify-commit HEAD"),
            ("nexusq doctor --git", "checks the repository's settings"),
        ],
    ),
    (
        "With age (age-plugin-nexusq is installed beside nexusq)",
        &[
            (
                "nexusq identity export --age > me.age.txt",
                "your age1pq1 recipient",
            ),
            (
                "nexusq decrypt -o notes.txt for-me.age",
                "age files sent to you",
            ),
            (
                "nexusq encrypt --to age1pq1... -o f.age f.txt",
                "to an age user",
            ),
            (
                "nexusq identity export --age-plugin-identity > id.txt",
                "for age",
            ),
            ("age -d -i id.txt f.age", "age decrypts with your vault"),
        ],
    ),
    (
        "In scripts",
        &[
            (
                "nexusq vault unlock\n--password-file ~/.config/nexusq/pw",
                "chmod 600 that file",
            ),
            (
                "nexusq sign --password-fd 3 doc.txt 3<pwfile",
                "an inherited fd",
            ),
            (
                "nexusq --json vault open | jq -r .fingerprint",
                "one JSON object",
            ),
        ],
    ),
];

/// Every environment variable nexusq reads: (name, what it does).
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NEXUSQ_VAULT",
        "The vault file when --vault is not given (also for nexusq-git-sign and \
         age-plugin-nexusq, which take no options).",
    ),
    (
        "NEXUSQ_BACKEND",
        "The crypto backend when --backend is not given: rustcrypto (the default) or native. \
         Any other value is a usage error (exit 2).",
    ),
    (
        "NEXUSQ_CONTACTS",
        "The contacts book when --contacts is not given.",
    ),
    (
        "NEXUSQ_PASSWORD_FILE",
        "For nexusq-git-sign and age-plugin-nexusq only: a file (mode 0600) whose first line \
         is the password. nexusq itself reads passwords only from --password-file, \
         --password-fd or the terminal.",
    ),
    (
        "NEXUSQ_NO_AGENT",
        "For nexusq-git-sign and age-plugin-nexusq, which take no options: when set (to \
         anything but empty or 0), never ask the key agent, as --no-agent does for nexusq's \
         own commands.",
    ),
    (
        "NO_COLOR",
        "When set, messages are never coloured (they are not coloured either when stderr is \
         not a terminal).",
    ),
    (
        "COLUMNS",
        "The width doctor's report and bench's table are laid out for, as --help is, when \
         none of stdout, stderr and stdin is a terminal (a terminal's own width comes first; \
         without either, 100).",
    ),
    (
        "PATH",
        "Where doctor --git finds git, and where it looks for the gpg.x509.program git's \
         settings name, as git would.",
    ),
    (
        "XDG_DATA_HOME",
        "The data folder of the default vault (else ~/.local/share).",
    ),
    (
        "XDG_RUNTIME_DIR",
        "The key agent's socket folder is $XDG_RUNTIME_DIR/nexusq when it is set (absolute).",
    ),
    (
        "XDG_STATE_HOME",
        "Without XDG_RUNTIME_DIR, the key agent's socket folder is \
         $XDG_STATE_HOME/nexusq/agent (absolute; else ~/.local/state/nexusq/agent), a place \
         only you can create, unlike a shared temporary folder.",
    ),
    (
        "TMPDIR",
        "Only when neither XDG_RUNTIME_DIR nor HOME is set, the agent's socket folder is \
         $TMPDIR/nexusq-UID (the system's temporary folder without TMPDIR; Termux sets TMPDIR \
         to $PREFIX/tmp).",
    ),
    (
        "HOME",
        "Where the default data folder and the key agent's folder are, and how prompts \
         shorten the vault's path (~).",
    ),
    (
        "PREFIX, TERMUX_VERSION",
        "Read by doctor to tell Termux from other systems.",
    ),
    (
        "ANDROID_ROOT, ANDROID_DATA",
        "Either set (Android sets both, for Termux too) means nexusq runs on Android: the files \
         a manifest lists are then opened one folder at a time without openat2 (Android's \
         sandbox kills a process that calls it), so no symbolic link below the manifest's \
         folder is followed.",
    ),
    (
        "CI",
        "Read by bench: recorded in its evidence as the kind of runner.",
    ),
    (
        "NEXUSQ_EXPECT_CPU",
        "Tests only: the native backend's CPU choice must be this one (portable, avx2, \
         avx512, neon, neon-sha3), else it stops.",
    ),
    (
        "NEXUSQ_VECTORS",
        "Tests only (cargo test): the folder of the known-answer vectors, else \
         ../shared/vectors beside the checkout.",
    ),
];

/// Files nexusq reads and writes: (path, what it is).
const FILES: &[(&str, &str)] = &[
    (
        "~/.local/share/nexusq/vault.nxq",
        "The vault, unless --vault or $NEXUSQ_VAULT names another ($XDG_DATA_HOME/nexusq/vault.nxq \
         when XDG_DATA_HOME is set). On Termux: \
         /data/data/com.termux/files/home/.local/share/nexusq/vault.nxq. Mode 0600.",
    ),
    (
        "VAULT.revocation.asc",
        "The revocation statement init writes beside the vault (or --revocation-out FILE). Move \
         it off the device: anyone who has it can revoke your identity.",
    ),
    (
        "VAULT.lock",
        "The lock a writer holds while it saves the vault (--lock-timeout).",
    ),
    (
        "contacts.nxq",
        "The contacts book beside the vault, unless --contacts or $NEXUSQ_CONTACTS names \
         another.",
    ),
    (
        "$XDG_RUNTIME_DIR/nexusq/, else ~/.local/state/nexusq/agent/",
        "The key agent's private folder (mode 0700; $XDG_STATE_HOME/nexusq/agent/ when \
         XDG_STATE_HOME is set) with its socket, agent-HASH.sock, one per vault.",
    ),
];

/// The roff source of nexusq(1) for the command line `cmd` (the root `Cli::command()`).
pub fn render(mut cmd: Command) -> String {
    cmd.build();
    let mut page = Roff::new();
    let version = format!("nexusq {}", cmd.get_version().unwrap_or_default());
    // An empty date: a generated page carries none (reproducible builds).
    page.control(
        "TH",
        ["nexusq", "1", "\"\"", version.as_str(), "User Commands"],
    );
    // No hyphenation, ragged right: option names and paths stay whole.
    page.control("nh", []);
    page.control("ad", ["l"]);

    page.control("SH", ["NAME"]);
    page.text([roman(format!(
        "nexusq - {}",
        cmd.get_about().map(|a| a.to_string()).unwrap_or_default()
    ))]);

    page.control("SH", ["SYNOPSIS"]);
    page.text([
        bold("nexusq"),
        roman(" ["),
        italic("global options"),
        roman("] "),
        italic("command"),
        roman(" ["),
        italic("options"),
        roman("] ["),
        italic("arguments"),
        roman("]"),
    ]);
    page.control("br", []);
    page.text([
        bold("nexusq"),
        roman(" "),
        italic("command"),
        roman(" "),
        bold("--help"),
    ]);

    page.control("SH", ["DESCRIPTION"]);
    if let Some(about) = cmd.get_long_about() {
        page.text([roman(about.to_string())]);
    }
    page.control("PP", []);
    page.text([roman(
        "Each command's own options are listed under it in COMMANDS; nexusq COMMAND --help \
         prints the same. The global options below apply to every command and are accepted \
         before or after its name. The password, new-password and saving options belong to \
         some commands only, and are accepted before the command name too, where aliases \
         and scripts put them: there a command that does not use one runs without it and \
         says so in one note on stderr (a password option of the other kind before recover or \
         init, which ask for the new vault's password, is refused). After the name of a \
         command that does not take it, an option is a usage error (exit 2) naming the \
         commands that do.",
    )]);

    page.control("SH", ["OPTIONS"]);
    page.control("SS", [GLOBAL_HEADING]);
    let root_args: Vec<&Arg> = visible_args(&cmd).collect();
    for arg in root_args.iter().filter(|a| is_global(a)) {
        option(&mut page, arg);
    }
    // The per-command groups as the top-level help shows them, each under its heading.
    let mut headings: Vec<&str> = Vec::new();
    for arg in &root_args {
        if let Some(h) = arg.get_help_heading()
            && h != GLOBAL_HEADING
            && !headings.contains(&h)
        {
            headings.push(h);
        }
    }
    for heading in headings {
        page.control("SS", [heading]);
        for arg in root_args
            .iter()
            .filter(|a| a.get_help_heading() == Some(heading))
        {
            option(&mut page, arg);
        }
    }
    page.control("SS", ["Other options"]);
    for arg in root_args.iter().filter(|a| a.get_help_heading().is_none()) {
        option(&mut page, arg);
    }
    option_line(
        &mut page,
        vec![short("h"), roman(", "), long("help")],
        "Print help (a summary with -h); also after any command.",
    );
    option_line(
        &mut page,
        vec![short("V"), roman(", "), long("version")],
        "Print the version.",
    );

    page.control("SH", ["COMMANDS"]);
    commands(&mut page, &cmd);

    page.control("SH", ["EXAMPLES"]);
    for (i, (group, lines)) in EXAMPLES.iter().enumerate() {
        // A paragraph break between groups (mandoc warns about one right after .SH).
        if i > 0 {
            page.control("PP", []);
        }
        page.text([italic(*group)]);
        page.control("RS", ["4"]);
        page.control("nf", []);
        for (command, comment) in *lines {
            let mut parts = command.split('\n').peekable();
            let mut first = true;
            while let Some(part) = parts.next() {
                let indent = if first { "" } else { "    " };
                first = false;
                let mut text = vec![bold(format!("{indent}{part}"))];
                if parts.peek().is_some() {
                    text.push(bold(" \\"));
                } else if !comment.is_empty() {
                    text.push(roman(format!("    # {comment}")));
                }
                page.text(text);
            }
        }
        page.control("fi", []);
        page.control("RE", []);
    }

    page.control("SH", ["ENVIRONMENT"]);
    for (name, text) in ENVIRONMENT {
        page.control("TP", []);
        page.text([bold(*name)]);
        page.text([roman(*text)]);
    }

    page.control("SH", ["FILES"]);
    for (path, text) in FILES {
        page.control("TP", []);
        page.text([italic(*path)]);
        page.text([roman(*text)]);
    }

    page.control("SH", ["EXIT STATUS"]);
    // The one table of exit codes (cli::error), its Markdown quoting dropped.
    for row in super::error::EXIT_CODES {
        let meaning = row.meaning.replace('`', "");
        let mut text = meaning[..1].to_uppercase() + &meaning[1..];
        text.push('.');
        page.control("TP", []);
        page.text([bold(row.code)]);
        page.text([roman(&text)]);
    }
    page.control("PP", []);
    page.text([roman(
        "With --json an error also prints {\"error\": {\"code\": ..., \"kind\": ..., \
         \"message\": ..., \"hint\": ...}} on stdout; the exit code is the same.",
    )]);

    page.control("SH", ["SEE ALSO"]);
    page.text([
        bold("nexusq-git-sign"),
        roman(" and "),
        bold("age-plugin-nexusq"),
        roman(
            ", installed beside nexusq, have no pages of their own: see EXAMPLES. If installed: ",
        ),
        bold("age"),
        roman("(1), "),
        bold("git"),
        roman("(1). The documentation in the source: README.md and docs/cli.md."),
    ]);
    ascii_only(&page.render())
}

/// Plain ASCII: raw UTF-8 makes man warn in a C locale. The `…` of `age1pq1…` becomes `...`;
/// any other character groff's `\[uXXXX]`, which groff and mandoc read in a UTF-8 locale.
fn ascii_only(roff: &str) -> String {
    let mut out = String::with_capacity(roff.len());
    for c in roff.chars() {
        if c.is_ascii() {
            out.push(c);
        } else if c == '\u{2026}' {
            out.push_str("...");
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}

/// The commands under `parent`, each with its usage, description, arguments and own options;
/// a command that has commands of its own lists them after it.
fn commands(page: &mut Roff, parent: &Command) {
    for sub in parent
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_string();
        page.control("SS", [name.as_str()]);
        let usage = sub.clone().render_usage().to_string();
        for line in usage.lines() {
            let line = line.trim_start_matches("Usage:").trim();
            if !line.is_empty() {
                page.text([bold(line)]);
                page.control("br", []);
            }
        }
        page.control("PP", []);
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            page.text([roman(about.to_string())]);
        }
        if sub.has_subcommands() {
            let names: Vec<&str> = sub
                .get_subcommands()
                .filter(|s| !s.is_hide_set() && s.get_name() != "help")
                .map(|s| s.get_name())
                .collect();
            page.control("PP", []);
            page.text([roman(format!("Its commands: {}.", names.join(", ")))]);
        }
        for arg in sub.get_positionals().filter(|a| !a.is_hide_set()) {
            let value = arg
                .get_value_names()
                .map(|v| v.join(" "))
                .unwrap_or_else(|| arg.get_id().to_string());
            let mut header = vec![italic(value)];
            if arg.get_num_args().is_some_and(|r| r.max_values() > 1) {
                header.push(roman("..."));
            }
            option_line(page, header, &help_text(arg));
        }
        for arg in visible_args(sub).filter(|a| !a.is_positional() && !is_global(a)) {
            option(page, arg);
        }
        commands(page, sub);
    }
}

/// The options of `cmd` a user can give (not hidden, not the generated help and version).
fn visible_args(cmd: &Command) -> impl Iterator<Item = &Arg> {
    cmd.get_arguments()
        .filter(|a| !a.is_hide_set() && !matches!(a.get_id().as_str(), "help" | "version"))
}

fn is_global(arg: &Arg) -> bool {
    arg.is_global_set() || arg.get_help_heading() == Some(GLOBAL_HEADING)
}

fn short(s: &str) -> Inline {
    bold(format!("-{s}"))
}

fn long(s: &str) -> Inline {
    bold(format!("--{s}"))
}

/// One `.TP` entry: `-o, --output <FILE>`, then its help.
fn option(page: &mut Roff, arg: &Arg) {
    let mut header = Vec::new();
    if let Some(s) = arg.get_short() {
        header.push(short(&s.to_string()));
    }
    if let Some(l) = arg.get_long() {
        if !header.is_empty() {
            header.push(roman(", "));
        }
        header.push(long(l));
    }
    if arg.get_num_args().is_some_and(|r| r.takes_values())
        && let Some(names) = arg.get_value_names()
    {
        for name in names {
            header.push(roman(" "));
            header.push(italic(name.to_string()));
        }
    }
    let mut text = help_text(arg);
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .filter(|v| !v.is_empty())
        .collect();
    if !defaults.is_empty() && arg.get_num_args().is_some_and(|r| r.takes_values()) {
        text.push_str(&format!(" [default: {}]", defaults.join(", ")));
    }
    option_line(page, header, &text);
    // The values of an enum option, each with its help, as a list inside the entry.
    let values: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    if !values.is_empty() && arg.get_num_args().is_some_and(|r| r.takes_values()) {
        page.control("RS", []);
        for v in values {
            let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
            option_line(page, vec![bold(v.get_name().to_string())], &help);
        }
        page.control("RE", []);
    }
}

fn option_line(page: &mut Roff, header: Vec<Inline>, text: &str) {
    page.control("TP", []);
    page.text(header);
    if !text.is_empty() {
        page.text([roman(text.to_string())]);
    }
}

/// The long help, else the short one, as one paragraph.
fn help_text(arg: &Arg) -> String {
    arg.get_long_help()
        .or(arg.get_help())
        .map(|h| {
            h.to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_becomes_ascii_or_a_groff_escape() {
        assert_eq!(
            ascii_only("age1pq1\u{2026} \u{2014}x"),
            "age1pq1... \\[u2014]x"
        );
    }
}

//! Errors as the command line reports them: the library's error (what happened, what to do,
//! its class) and what only the command line knows about it: the exit code of each class,
//! from the one table of exit codes ([`EXIT_CODES`], from which the man page, `--help` and
//! docs/cli.md's table come), the `--json` error object with a command's extra fields, and a
//! reader of stdout that went away (which ends the command quietly).

use nexusq_core::error::{ErrorKind, Setting, Step};
use std::fmt;

/// One row of the exit-code table.
pub struct ExitRow {
    /// The code, as written ("0", "1", ..., "128+N").
    pub code: &'static str,
    /// The error object's `kind` under `--json` (empty where no error object is printed).
    pub kind: &'static str,
    /// What it means, in full (the man page and docs/cli.md).
    pub meaning: &'static str,
    /// What it means, in a few words (`--help`).
    pub short: &'static str,
}

/// Every exit code of the command line, in order; rows 0 to 5 are indexed by their code.
pub const EXIT_CODES: &[ExitRow] = &[
    ExitRow {
        code: "0",
        kind: "",
        meaning: "success (also: stdout's reader went away, as when `nexusq decrypt f` is piped into `head`)",
        short: "success",
    },
    ExitRow {
        code: "1",
        kind: "check_failed",
        meaning: "a check failed: bad signature, a ciphertext or envelope not authentic or not \
                  for us, a defect in any non-vault input, a revoked identity (signing without \
                  `--force`, or another's as a recipient); `doctor`: a check that is an error",
        short: "a check failed (bad signature, ciphertext or input file)",
    },
    ExitRow {
        code: "2",
        kind: "usage",
        meaning: "the command line or its inputs are unusable as given (a folder as input, no \
                  terminal for a prompt, a refused confirmation)",
        short: "usage error",
    },
    ExitRow {
        code: "3",
        kind: "wrong_password",
        meaning: "the password did not open the vault (or the vault's public part was altered)",
        short: "wrong password",
    },
    ExitRow {
        code: "4",
        kind: "vault",
        meaning: "the vault is missing, corrupted or unsupported; so is a contacts book that \
                  cannot be trusted (docs/contacts.md)",
        short: "vault missing/corrupted/unsupported",
    },
    ExitRow {
        code: "5",
        kind: "io",
        meaning: "any other I/O problem, a busy vault",
        short: "other I/O error or vault busy",
    },
    ExitRow {
        code: "128+N",
        kind: "",
        meaning: "ended by signal N (SIGINT 130, SIGTERM 143, SIGHUP 129): temporary files are \
                  removed first",
        short: "ended by signal N",
    },
];

/// The exit code of a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    /// A check failed.
    CheckFailed = 1,
    /// The command line or its inputs are unusable as given.
    Usage = 2,
    /// The password did not open the vault.
    WrongPassword = 3,
    /// The vault is missing, corrupted or unsupported.
    Vault = 4,
    /// Any other I/O problem.
    Io = 5,
}

impl Exit {
    /// The exit code of a class of library error.
    pub fn of(kind: ErrorKind) -> Exit {
        match kind {
            ErrorKind::CheckFailed => Exit::CheckFailed,
            ErrorKind::Usage => Exit::Usage,
            ErrorKind::WrongPassword => Exit::WrongPassword,
            ErrorKind::Vault => Exit::Vault,
            ErrorKind::Io => Exit::Io,
        }
    }

    /// The process's exit code.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The name of the kind in `--json` errors.
    pub fn kind(self) -> &'static str {
        EXIT_CODES[self as usize].kind
    }
}

impl From<Exit> for ErrorKind {
    fn from(exit: Exit) -> Self {
        match exit {
            Exit::CheckFailed => ErrorKind::CheckFailed,
            Exit::Usage => ErrorKind::Usage,
            Exit::WrongPassword => ErrorKind::WrongPassword,
            Exit::Vault => ErrorKind::Vault,
            Exit::Io => ErrorKind::Io,
        }
    }
}

/// `--help`'s line about exit codes, from [`EXIT_CODES`].
pub fn help_summary() -> String {
    let rows: Vec<String> = EXIT_CODES
        .iter()
        .map(|r| format!("{} {}", r.code, r.short))
        .collect();
    format!("Exit codes: {}.", rows.join(", "))
}

/// docs/cli.md's table, from [`EXIT_CODES`] (a test keeps the document equal to it).
pub fn markdown_table() -> String {
    let mut t = String::from("| code | kind | meaning |\n|---|---|---|\n");
    for r in EXIT_CODES {
        t.push_str(&format!("| {} | {} | {} |\n", r.code, r.kind, r.meaning));
    }
    t
}

/// An error as the command line reports it.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    inner: nexusq_core::error::Error,
    /// Stdout's reader went away (EPIPE): the program ends quietly (docs/cli.md).
    broken_pipe: bool,
    /// Fields a command adds beside `"error"` in its `--json` error object (`verify`'s
    /// `"valid": false`).
    json_extra: serde_json::Map<String, serde_json::Value>,
    /// Such fields given as JSON text already: lists too long to hold as `Value`s (the rows
    /// of `verify --manifest`, docs/robustness.md).
    json_text: Vec<(String, String)>,
}

/// A result whose error is the command line's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How the command line sets what a library hint is about, added to that hint.
pub fn setting_words(setting: Setting) -> &'static str {
    match setting {
        Setting::VaultPath => "--vault PATH or NEXUSQ_VAULT",
        Setting::LockTimeout => "--lock-timeout SECONDS",
        Setting::KdfCosts => "--kdf-memory-mib, --kdf-iterations, --kdf-parallelism",
        Setting::AllowExpired => "--allow-expired",
        Setting::SignerIdentity => "--identity FILE",
        Setting::Backend => "--backend rustcrypto",
        Setting::AllowSharedStorage => "--allow-shared-storage",
        Setting::AllowRevoked => "--force",
        _ => "",
    }
}

/// The command that takes a step a library hint suggests.
pub fn step_words(step: &Step) -> String {
    let command = match step {
        Step::CreateVault => "nexusq init",
        Step::OpenVault => "nexusq vault open",
        Step::ChangePassword => "nexusq vault passwd",
        Step::Rotate => "nexusq rotate",
        Step::StartAgent => "nexusq agent start",
        Step::ExportIdentity => "nexusq identity export",
        Step::ExportFullHistory => "nexusq identity export --full-history",
        Step::ShowIdentity => "nexusq identity show",
        Step::ListContacts => "nexusq contacts list",
        Step::AddContact => "nexusq contacts add NAME FILE",
        Step::UpdateContact(name) => return format!("`nexusq contacts update {name} FILE`"),
        Step::RemoveContact(name) => return format!("`nexusq contacts remove {name}`"),
        Step::RecoverContacts => "nexusq contacts recover",
        Step::UseOpenPgpContact(name) => {
            return format!("`nexusq encrypt --to @{name}`, `nexusq verify --identity @{name}`");
        }
        Step::BackupPhrase => "nexusq backup phrase",
        Step::BackupShares => "nexusq backup shares",
        Step::GivePhrase => "--phrase-file FILE",
        Step::GiveShares => "--share-file FILE, once per share",
        _ => return String::new(),
    };
    format!("`{command}`")
}

impl From<nexusq_core::error::Error> for Error {
    /// The library's error, its hint completed with the command of the step it suggests and
    /// the flag of the setting it is about.
    fn from(inner: nexusq_core::error::Error) -> Self {
        let words: Vec<String> = [
            inner.step().map(step_words),
            inner.setting().map(|s| setting_words(s).to_string()),
        ]
        .into_iter()
        .flatten()
        .filter(|w| !w.is_empty())
        .collect();
        let inner = if words.is_empty() {
            inner
        } else {
            let hint = format!("{} ({})", inner.hint(), words.join("; "));
            inner.reworded_hint(hint)
        };
        Error {
            inner,
            broken_pipe: false,
            json_extra: serde_json::Map::new(),
            json_text: Vec::new(),
        }
    }
}

impl From<Error> for nexusq_core::error::Error {
    /// For a closure the library calls: the message, hint and class (the command line's own
    /// marks are for its output, which the library never writes).
    fn from(e: Error) -> Self {
        e.inner
    }
}

impl Error {
    /// An error of `kind` (a library class, or the exit code it maps to) with its message and
    /// hint.
    pub fn new(
        kind: impl Into<ErrorKind>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        nexusq_core::error::Error::new(kind.into(), message, hint).into()
    }

    /// A failed check (exit 1).
    pub fn check(message: impl Into<String>, hint: impl Into<String>) -> Self {
        nexusq_core::error::Error::check(message, hint).into()
    }

    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        nexusq_core::error::Error::usage(message, hint).into()
    }

    /// A wrong password (exit 3).
    pub fn wrong_password() -> Self {
        nexusq_core::error::Error::wrong_password().into()
    }

    /// A vault that is missing, corrupted or unsupported (exit 4).
    pub fn vault(message: impl Into<String>, hint: impl Into<String>) -> Self {
        nexusq_core::error::Error::vault(message, hint).into()
    }

    /// Any other I/O problem (exit 5).
    pub fn io(message: impl Into<String>, hint: impl Into<String>) -> Self {
        nexusq_core::error::Error::io(message, hint).into()
    }

    /// An I/O error while doing `what` to `path`.
    pub fn io_at(what: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        nexusq_core::error::Error::io_at(what, path, err).into()
    }

    /// A failed write to stdout; a reader that went away (`| head`) is marked so the program
    /// ends quietly instead of reporting it.
    pub fn stdout_write(err: &std::io::Error, hint: impl Into<String>) -> Self {
        let mut e = Self::io(format!("cannot write to stdout: {err}"), hint);
        e.inner = e.inner.caused_by(err.kind());
        e.broken_pipe = err.kind() == std::io::ErrorKind::BrokenPipe;
        e
    }

    /// A key source's failure: its own error (the vault, the password), or the input's,
    /// reported by `input`.
    pub fn from_failure<E>(
        failure: nexusq_core::session::Failure<E>,
        input: impl FnOnce(E) -> Error,
    ) -> Self {
        match failure {
            nexusq_core::session::Failure::Keys(e) => e.into(),
            nexusq_core::session::Failure::Input(e) => input(e),
        }
    }

    /// Did stdout's reader go away?
    pub fn is_broken_pipe(&self) -> bool {
        self.broken_pipe
    }

    /// Add a field beside `"error"` in the `--json` error object.
    pub fn with_json(mut self, key: &str, value: serde_json::Value) -> Self {
        self.json_extra.insert(key.to_string(), value);
        self
    }

    /// [`Error::with_json`] for a value that is JSON text already (written out as it is, never
    /// held as a `Value`): `json` must be one valid JSON value.
    pub fn with_json_text(mut self, key: &str, json: String) -> Self {
        self.json_extra.remove(key);
        self.json_text.retain(|(k, _)| k != key);
        self.json_text.push((key.to_string(), json));
        self
    }

    fn json_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut map = self.json_extra.clone();
        let exit = self.exit();
        map.insert(
            "error".into(),
            serde_json::json!({
                "code": exit.code(),
                "kind": exit.kind(),
                "message": self.message(),
                "hint": self.hint(),
            }),
        );
        map
    }

    /// The `--json` error object: `{"error": {"code", "kind", "message", "hint"}, ...}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut map = self.json_fields();
        for (k, text) in &self.json_text {
            let value = serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
            map.insert(k.clone(), value);
        }
        serde_json::Value::Object(map)
    }

    /// Write [`Error::to_json`]'s object and a line feed to `out`, the JSON-text fields as
    /// they are (a long list is never made into `Value`s).
    pub fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_json_object(out, &self.json_fields(), &self.json_text)
    }

    /// The same error with another hint.
    pub fn reworded_hint(mut self, hint: impl Into<String>) -> Self {
        self.inner = self.inner.reworded_hint(hint);
        self
    }

    /// The same error with another message and hint (exit code and marks kept).
    pub fn reworded(mut self, message: impl Into<String>, hint: impl Into<String>) -> Self {
        self.inner = self.inner.reworded(message, hint);
        self
    }

    /// Prefix the message with context, keeping the hint and exit code.
    pub fn context(mut self, what: impl fmt::Display) -> Self {
        self.inner = self.inner.context(what);
        self
    }

    /// The library's class of the failure.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind()
    }

    /// The exit code it ends the process with.
    pub fn exit(&self) -> Exit {
        Exit::of(self.inner.kind())
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        self.inner.message()
    }

    /// What to do next.
    pub fn hint(&self) -> &str {
        self.inner.hint()
    }
}

/// Write one JSON object and a line feed: `fields`, and `texts`, whose values are JSON text
/// already; keys in the order serde_json's own maps write them (sorted), so the line is the
/// one `serde_json` would write for the same values. A key in both takes `texts`' value.
pub fn write_json_object(
    out: &mut dyn std::io::Write,
    fields: &serde_json::Map<String, serde_json::Value>,
    texts: &[(String, String)],
) -> std::io::Result<()> {
    let mut all: std::collections::BTreeMap<&str, Result<&serde_json::Value, &str>> =
        fields.iter().map(|(k, v)| (k.as_str(), Ok(v))).collect();
    for (k, text) in texts {
        all.insert(k, Err(text));
    }
    out.write_all(b"{")?;
    for (i, (key, value)) in all.into_iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, key)?;
        out.write_all(b":")?;
        match value {
            Ok(v) => serde_json::to_writer(&mut *out, v)?,
            Err(text) => out.write_all(text.as_bytes())?,
        }
    }
    out.write_all(b"}\n")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_fields_are_written_as_given_among_the_others() {
        let e = Error::check("m", "h")
            .with_json("valid", false.into())
            .with_json("files", serde_json::json!(["replaced"]))
            .with_json_text("files", r#"[{"file":"a","ok":true}]"#.into())
            .with_json("zz", 1.into());
        let mut line = Vec::new();
        e.write_json(&mut line).unwrap();
        let mut expected = serde_json::to_string(&e.to_json()).unwrap();
        expected.push('\n');
        assert_eq!(String::from_utf8(line).unwrap(), expected);
        assert_eq!(e.to_json()["files"][0]["file"], "a");
        assert!(expected.starts_with(r#"{"error":{"code":1,"#), "{expected}");
    }

    #[test]
    fn exit_codes_match_the_table() {
        assert_eq!(Exit::CheckFailed.code(), 1);
        assert_eq!(Exit::Usage.code(), 2);
        assert_eq!(Exit::WrongPassword.code(), 3);
        assert_eq!(Exit::Vault.code(), 4);
        assert_eq!(Exit::Io.code(), 5);
        for exit in [
            Exit::CheckFailed,
            Exit::Usage,
            Exit::WrongPassword,
            Exit::Vault,
            Exit::Io,
        ] {
            let row = &EXIT_CODES[exit as usize];
            assert_eq!(row.code, exit.code().to_string());
            assert!(!row.kind.is_empty());
        }
        assert_eq!(Error::vault("m", "h").exit().code(), 4);
    }

    #[test]
    fn docs_cli_md_holds_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let table = markdown_table();
        assert!(
            doc.contains(&table),
            "docs/cli.md's exit codes differ from cli::error::EXIT_CODES; write this:\n{table}"
        );
    }

    #[test]
    fn a_library_hint_suggesting_a_step_gets_the_command_that_takes_it() {
        let core = nexusq_core::error::Error::vault("no vault at v.nxq", "create one")
            .suggests(Step::CreateVault)
            .about(Setting::VaultPath);
        assert!(!core.hint().contains("nexusq"), "the library's own words");
        assert_eq!(
            Error::from(core).hint(),
            "create one (`nexusq init`; --vault PATH or NEXUSQ_VAULT)"
        );
        let core = nexusq_core::error::Error::usage("m", "update bob")
            .suggests(Step::UpdateContact("bob".into()));
        assert_eq!(
            Error::from(core).hint(),
            "update bob (`nexusq contacts update bob FILE`)"
        );
    }

    #[test]
    fn a_library_hint_about_a_setting_gets_the_flag_that_makes_it() {
        let core = nexusq_core::error::Error::io("vault is busy", "or wait longer for the lock")
            .about(Setting::LockTimeout);
        assert!(!core.hint().contains("--"), "the library's own words");
        let e = Error::from(core);
        assert_eq!(
            e.hint(),
            "or wait longer for the lock (--lock-timeout SECONDS)"
        );
        assert_eq!(e.exit(), Exit::Io);
        // A hint the caller reworded is its own: nothing is added.
        let core = nexusq_core::error::Error::usage("m", "h")
            .about(Setting::VaultPath)
            .reworded_hint("mine");
        assert_eq!(Error::from(core).hint(), "mine");
    }

    #[test]
    fn a_closed_stdout_is_marked_and_other_errors_are_not() {
        let gone = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        assert!(Error::stdout_write(&gone, "h").is_broken_pipe());
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert!(!Error::stdout_write(&full, "h").is_broken_pipe());
        assert!(!Error::io_at("write", std::path::Path::new("f"), &gone).is_broken_pipe());
    }
}

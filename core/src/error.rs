//! One error type for the whole program: what happened, what to do next, and the exit code.
//!
//! Messages never contain secret material; callers build them from public facts only.

use std::fmt;

/// Exit codes (docs/cli.md, "Exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    /// A check failed: bad signature, not-authentic ciphertext, any defect in a non-vault input.
    CheckFailed = 1,
    /// The command line or its inputs are unusable as given.
    Usage = 2,
    /// The password did not open the vault (or its public part was altered).
    WrongPassword = 3,
    /// The vault is missing, corrupted or unsupported.
    Vault = 4,
    /// Any other I/O problem, including a busy vault.
    Io = 5,
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The name of the kind in `--json` errors (docs/cli.md).
    pub fn kind(self) -> &'static str {
        match self {
            Exit::CheckFailed => "check_failed",
            Exit::Usage => "usage",
            Exit::WrongPassword => "wrong_password",
            Exit::Vault => "vault",
            Exit::Io => "io",
        }
    }
}

/// An error with a message (what went wrong) and a hint (what to do next).
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    exit: Exit,
    message: String,
    hint: String,
    /// Stdout's reader went away (EPIPE): the program ends quietly (docs/cli.md).
    broken_pipe: bool,
    /// Fields a command adds beside `"error"` in its `--json` error object (`verify`'s
    /// `"valid": false`).
    json_extra: serde_json::Map<String, serde_json::Value>,
    /// Such fields given as JSON text already: lists too long to hold as `Value`s (the rows
    /// of `verify --manifest`, docs/robustness.md).
    json_text: Vec<(String, String)>,
}

/// A result with nexusq's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with its exit code, the message (what happened) and the hint (what to do next).
    pub fn new(exit: Exit, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error {
            exit,
            message: message.into(),
            hint: hint.into(),
            broken_pipe: false,
            json_extra: serde_json::Map::new(),
            json_text: Vec::new(),
        }
    }

    /// A failed write to stdout; a reader that went away (`| head`) is marked so the program
    /// ends quietly instead of reporting it.
    pub fn stdout_write(err: &std::io::Error, hint: impl Into<String>) -> Self {
        let mut e = Self::io(format!("cannot write to stdout: {err}"), hint);
        e.broken_pipe = err.kind() == std::io::ErrorKind::BrokenPipe;
        e
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
        map.insert(
            "error".into(),
            serde_json::json!({
                "code": self.exit.code(),
                "kind": self.exit.kind(),
                "message": self.message,
                "hint": self.hint,
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
        self.hint = hint.into();
        self
    }

    /// The same error with another message and hint (exit code and marks kept).
    pub fn reworded(mut self, message: impl Into<String>, hint: impl Into<String>) -> Self {
        self.message = message.into();
        self.hint = hint.into();
        self
    }

    /// Exit 1: a check failed, or an input that is not the vault is defective.
    pub fn check(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(Exit::CheckFailed, message, hint)
    }

    /// Exit 2: the command line or its inputs are unusable as given.
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(Exit::Usage, message, hint)
    }

    /// Exit 3: the password did not open the vault (or its public part was altered; AES-GCM cannot
    /// tell the two apart).
    pub fn wrong_password() -> Self {
        Self::new(
            Exit::WrongPassword,
            "wrong password, or the vault's public part was altered",
            "try again; if the password is right, restore the vault from a backup",
        )
    }

    /// Exit 4: the vault is missing, corrupted or unsupported.
    pub fn vault(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(Exit::Vault, message, hint)
    }

    /// Exit 5: any other I/O problem, a busy vault included.
    pub fn io(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(Exit::Io, message, hint)
    }

    /// An I/O error while doing `what` to `path`, with a hint chosen by the error kind.
    pub fn io_at(what: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        let hint = match err.kind() {
            ErrorKind::NotFound => "check the path",
            ErrorKind::PermissionDenied => "check the file's and its folder's permissions",
            ErrorKind::AlreadyExists => "choose another path or remove the existing file",
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => "free some space and try again",
            _ => "check the path and the device, then try again",
        };
        // A file name can hold anything, terminal escapes included.
        Self::io(
            format!("cannot {what} {}: {err}", crate::untrusted::path(path)),
            hint,
        )
    }

    /// The exit code this error ends the process with.
    pub fn exit(&self) -> Exit {
        self.exit
    }

    /// What happened.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What to do next.
    pub fn hint(&self) -> &str {
        &self.hint
    }

    /// Prefix the message with context, keeping the hint and exit code.
    pub fn context(mut self, what: impl fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
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
        write!(f, "{}", self.message)?;
        if !self.hint.is_empty() {
            write!(f, "\nhint: {}", self.hint)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Error({:?}: {}; hint: {})",
            self.exit, self.message, self.hint
        )
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_message_and_hint() {
        let e = Error::vault("vault is missing", "run `nexusq init`");
        assert_eq!(e.to_string(), "vault is missing\nhint: run `nexusq init`");
        assert_eq!(e.exit().code(), 4);
    }

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
    fn exit_codes_match_design() {
        assert_eq!(Exit::CheckFailed.code(), 1);
        assert_eq!(Exit::Usage.code(), 2);
        assert_eq!(Exit::WrongPassword.code(), 3);
        assert_eq!(Exit::Vault.code(), 4);
        assert_eq!(Exit::Io.code(), 5);
    }
}

//! Everything the program shows: data on stdout, messages on stderr, colour only on a terminal
//! and never with NO_COLOR.
//!
//! Text that others control (reasons, lines of a hostile file, file names) is shown through
//! [`untrusted`], the one helper that escapes and caps it (defined in the leaf module
//! `nexusq_core::untrusted`, so that error texts built in the library use the same rule). Every
//! message and line of human output also passes [`nexusq_core::untrusted::scrub`] on its way out, a
//! safety net that escapes any terminal control that slipped through. `--json` output is exact:
//! JSON escaping makes it inert.

use nexusq_core::callbacks::Note;
use nexusq_core::untrusted::{NotText, TextStream, scrub};
use serde_json::Value;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

/// Escape and cap a piece of text that someone else controls, for human output.
pub use nexusq_core::untrusted::escape as untrusted;
/// [`untrusted`] for bytes that may not be UTF-8.
pub use nexusq_core::untrusted::escape_bytes as untrusted_bytes;
/// [`untrusted`] for a file name.
pub use nexusq_core::untrusted::path as untrusted_path;

#[derive(Clone, Copy, Debug)]
pub struct Output {
    pub json: bool,
    pub color: bool,
}

impl Output {
    pub fn new(json: bool) -> Self {
        Output {
            json,
            color: use_color(
                std::env::var_os("NO_COLOR").is_some(),
                std::io::stderr().is_terminal(),
            ),
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn warn(&self, msg: &str) {
        stderr_line(&format!(
            "{} {}",
            self.paint("33;1", "warning:"),
            scrub(msg)
        ));
    }

    pub fn note(&self, msg: &str) {
        stderr_line(&scrub(msg));
    }

    /// A note of the library's, in the command line's words: a warning or a note, with the
    /// command that acts on it where there is one.
    pub fn say(&self, note: &Note) {
        let text = match note {
            Note::UnverifiedContact { name, .. } => {
                format!("{note}; `nexusq contacts verify {name} FP` once you have")
            }
            Note::FileIsNewer { contact, .. } => format!(
                "{note}; `nexusq contacts update {} FILE` records it",
                contact.name
            ),
            _ => note.to_string(),
        };
        if note.is_warning() {
            self.warn(&text);
        } else {
            self.note(&text);
        }
    }

    /// An error: on stderr for people; under --json also the error object on stdout
    /// (docs/cli.md). A reader of stdout that went away is not reported at all.
    pub fn error(&self, err: &super::error::Error) {
        if err.is_broken_pipe() {
            return;
        }
        stderr_line(&format!(
            "{} {}",
            self.paint("31;1", "error:"),
            scrub(err.message())
        ));
        if !err.hint().is_empty() {
            stderr_line(&format!(
                "{} {}",
                self.paint("36", "hint:"),
                scrub(err.hint())
            ));
        }
        if self.json {
            let _ = err.write_json(&mut std::io::stdout().lock());
        }
    }

    /// Data for people (stdout); suppressed under --json.
    pub fn data(&self, text: &str) {
        if !self.json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", scrub(text));
        }
    }

    /// Text that is the command's product (an export, armor) on stdout, exactly; a failed
    /// write is an error (a vanished reader is marked as such, see `Error::stdout_write`).
    pub fn raw(&self, text: &str) -> super::error::Result<()> {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| super::error::Error::stdout_write(&e, "check where the output goes"))
    }

    /// The one JSON object of a command (stdout); only under --json.
    pub fn json(&self, value: &Value) {
        if self.json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{value}");
        }
    }

    /// [`Output::json`] of an object with some fields given as JSON text already (lists too
    /// long to hold as `Value`s: `super::error::write_json_object`).
    pub fn json_with_text(
        &self,
        fields: &serde_json::Map<String, Value>,
        texts: &[(String, String)],
    ) {
        if self.json {
            let _ = super::error::write_json_object(&mut std::io::stdout().lock(), fields, texts);
        }
    }
}

/// One line on stderr. A closed or full stderr is ignored: a message nobody can read must not
/// stop (or, as `eprintln!` does, panic) a command half-way.
pub fn stderr_line(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// The width human output is laid out for, found as clap finds it for `--help`: the size of the
/// first of stdout, stderr and stdin that is a terminal, else `$COLUMNS`, else 100. So a report
/// and `--help` wrap alike, also when piped into a pager at a terminal.
pub fn terminal_width() -> usize {
    use rustix::termios::{isatty, tcgetwinsize};
    fn columns(fd: impl std::os::fd::AsFd) -> Option<usize> {
        if !isatty(&fd) {
            return None;
        }
        // Some pseudo-terminals report 0 columns before anyone sets a size.
        let size = tcgetwinsize(&fd).ok()?;
        (size.ws_col > 0 && size.ws_row > 0).then_some(usize::from(size.ws_col))
    }
    columns(std::io::stdout())
        .or_else(|| columns(std::io::stderr()))
        .or_else(|| columns(std::io::stdin()))
        .or_else(|| {
            std::env::var("COLUMNS")
                .ok()?
                .trim()
                .parse()
                .ok()
                .filter(|&c| c > 0)
        })
        .unwrap_or(100)
}

/// `text` wrapped as a paragraph with a hanging indent: its first line after `first`, the
/// others after `indent` spaces, the words in the `width - indent` columns left (a word longer
/// than that gets a line of its own).
pub fn hanging(text: &str, width: usize, first: &str, indent: usize) -> Vec<String> {
    let room = width.saturating_sub(indent).max(1);
    wrap(text, room)
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                format!("{first}{line}")
            } else {
                format!("{:indent$}{line}", "")
            }
        })
        .collect()
}

/// `text` broken at spaces into lines of at most `width` characters, runs of white space
/// collapsed. A word longer than `width` (a path, say) is never split: it gets a line of its own.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if used > 0 && used + 1 + len > width {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += len;
    }
    if used > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// NO_COLOR (any value) or a non-terminal stderr turns colour off.
pub fn use_color(no_color_set: bool, stderr_is_terminal: bool) -> bool {
    !no_color_set && stderr_is_terminal
}

pub use nexusq_core::time::rfc3339 as time;

/// Why [`TerminalGuard`] stopped a write; found in the `io::Error` it returns.
#[derive(Debug)]
pub struct RefusedOnTerminal(pub NotText);

impl std::fmt::Display for RefusedOnTerminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.0.what, self.0.offset)
    }
}

impl std::error::Error for RefusedOnTerminal {}

/// Was this write error a [`TerminalGuard`] refusal?
pub fn refused_on_terminal(err: &io::Error) -> Option<&NotText> {
    err.get_ref()?
        .downcast_ref::<RefusedOnTerminal>()
        .map(|r| &r.0)
}

/// Plaintext on its way to a terminal: each buffer is checked whole, before any of it is
/// written, and refused (an `InvalidData` error carrying [`RefusedOnTerminal`]) when it is not
/// UTF-8 text or holds a control character other than tab, CR and LF. Callers write one
/// authenticated chunk per call, so nothing of a refused chunk reaches the terminal. Disabled,
/// it passes everything through (a file, a pipe, or `-o -`).
pub struct TerminalGuard<W: Write> {
    inner: W,
    check: Option<TextStream>,
}

impl<W: Write> TerminalGuard<W> {
    pub fn new(inner: W, enabled: bool) -> Self {
        TerminalGuard {
            inner,
            check: enabled.then(TextStream::new),
        }
    }

    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for TerminalGuard<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(check) = &mut self.check else {
            return self.inner.write(buf);
        };
        check
            .feed(buf)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, RefusedOnTerminal(e)))?;
        // All of it, so the next call is the next piece of the stream.
        self.inner.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Paths in `--json` output are strings, lossy when a path is not UTF-8; so nothing is lost,
/// such a path also gets `<field>_bytes` beside it: the standard base64 of its bytes
/// (docs/cli.md, "JSON"). `fields` pairs each field of the object `j` with its path.
pub fn path_bytes(j: &mut Value, fields: &[(&str, &Path)]) {
    if let Some(obj) = j.as_object_mut() {
        path_bytes_in(obj, fields);
    }
}

/// [`path_bytes`] on an object's map.
pub fn path_bytes_in(obj: &mut serde_json::Map<String, Value>, fields: &[(&str, &Path)]) {
    use base64::Engine;
    for (name, path) in fields {
        if path.to_str().is_none() {
            let raw = path.as_os_str().as_encoded_bytes();
            obj.insert(
                format!("{name}_bytes"),
                Value::String(base64::engine::general_purpose::STANDARD.encode(raw)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_guard_writes_nothing_of_a_refused_buffer() {
        let mut g = TerminalGuard::new(Vec::new(), true);
        g.write_all(b"line one\n").unwrap();
        let e = g.write_all(b"two\x1b]0;pwned\x07\n").unwrap_err();
        let refused = refused_on_terminal(&e).expect("a refusal");
        assert_eq!(refused.offset, 12);
        assert_eq!(g.into_inner(), b"line one\n");
        // Disabled: bytes pass unchanged.
        let mut g = TerminalGuard::new(Vec::new(), false);
        g.write_all(b"\x1b[2J").unwrap();
        assert_eq!(g.into_inner(), b"\x1b[2J");
        assert!(refused_on_terminal(&io::Error::other("x")).is_none());
    }

    #[test]
    fn wrap_breaks_between_words_and_never_inside_one() {
        let text = "no key agent runs for this vault (commands ask for the password)";
        for width in 1..=text.len() + 1 {
            let lines = wrap(text, width);
            // The same words in the same order: nothing split, nothing lost.
            assert_eq!(lines.join(" "), text, "width {width}");
            for l in &lines {
                assert!(
                    l.chars().count() <= width || !l.contains(' '),
                    "{l:?} is over {width} columns and holds more than one word"
                );
                assert_eq!(l.trim(), l);
            }
        }
        assert_eq!(
            wrap(text, 20),
            [
                "no key agent runs",
                "for this vault",
                "(commands ask for",
                "the password)",
            ]
        );
        // A word longer than the width stands alone; characters, not bytes, are counted.
        assert_eq!(
            wrap("see /a/very/long/path/name here", 10),
            ["see", "/a/very/long/path/name", "here"]
        );
        assert_eq!(wrap("µµµµ µµµµ", 9), ["µµµµ µµµµ"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("a  b\tc", 80), ["a b c"]);
    }

    #[test]
    fn colour_rules() {
        assert!(use_color(false, true));
        assert!(!use_color(true, true));
        assert!(!use_color(false, false));
    }
}

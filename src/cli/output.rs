//! Everything the program shows: data on stdout, messages on stderr, colour only on a terminal
//! and never with NO_COLOR.

use serde_json::Value;
use std::io::{IsTerminal, Write};

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
        eprintln!("{} {msg}", self.paint("33;1", "warning:"));
    }

    pub fn note(&self, msg: &str) {
        eprintln!("{msg}");
    }

    pub fn error(&self, err: &crate::error::Error) {
        eprintln!("{} {}", self.paint("31;1", "error:"), err.message());
        if !err.hint().is_empty() {
            eprintln!("{} {}", self.paint("36", "hint:"), err.hint());
        }
    }

    /// Data for people (stdout); suppressed under --json.
    pub fn data(&self, text: &str) {
        if !self.json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{text}");
        }
    }

    /// The one JSON object of a command (stdout); only under --json.
    pub fn json(&self, value: &Value) {
        if self.json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{value}");
        }
    }
}

/// NO_COLOR (any value) or a non-terminal stderr turns colour off.
pub fn use_color(no_color_set: bool, stderr_is_terminal: bool) -> bool {
    !no_color_set && stderr_is_terminal
}

pub use crate::time::rfc3339 as time;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_rules() {
        assert!(use_color(false, true));
        assert!(!use_color(true, true));
        assert!(!use_color(false, false));
    }
}

//! Yes-or-no questions, asked on the terminal itself (`/dev/tty`), so stdin and stdout stay
//! free for data. Without a terminal nothing is asked: commands then want `--yes`.

use super::error::{Error, Result};
use std::io::{BufRead, Read, Write};

/// Ask `question` on the terminal: `Some(true)` for y/yes (any case), `Some(false)` for any
/// other answer, `None` when there is no terminal to ask on (or it failed). The question is
/// scrubbed of terminal controls; the answer is read up to 256 bytes.
pub fn ask(question: &str) -> Option<bool> {
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    tty.write_all(nexusq_core::untrusted::scrub(question).as_bytes())
        .and_then(|()| tty.flush())
        .ok()?;
    let mut line = String::new();
    std::io::BufReader::new(tty)
        .take(256)
        .read_line(&mut line)
        .ok()?;
    Some(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// Ask `question`; anything but yes, or no terminal, refuses (exit 2) with `refusal` and a
/// hint naming `--yes`.
pub fn confirm(question: &str, refusal: &str) -> Result<()> {
    match ask(question) {
        Some(true) => Ok(()),
        _ => Err(Error::usage(
            refusal.to_string(),
            "pass --yes to confirm in scripts",
        )),
    }
}

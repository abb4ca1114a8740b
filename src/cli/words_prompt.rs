//! Recovery words at the terminal (docs/recovery.md): shown on the terminal itself
//! (`/dev/tty`, never stdout, so a pipe or a log never gets them), then cleared; typed back
//! with echo off, one word at a time, each completed from its first letters.

use super::error::{Error, Result};
use super::password;
use nexusq_core::recovery::words::{self, Completion};
use std::fmt::Write as _;
use std::io::{BufRead, Read, Write};
use zeroize::Zeroizing;

/// Clears the screen and the scrollback, so the words are not left on it.
const CLEAR: &str = "\x1b[H\x1b[2J\x1b[3J";

fn tty() -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(|e| {
            Error::usage(
                format!("no terminal to show the words on: {e}"),
                "write them to a file with -o FILE instead",
            )
        })
}

fn say(tty: &mut std::fs::File, text: &str) -> Result<()> {
    tty.write_all(text.as_bytes())
        .and_then(|()| tty.flush())
        .map_err(|e| Error::io(format!("cannot write to the terminal: {e}"), "try again"))
}

/// Show `words` numbered in columns under `heading`, wait for Enter, then clear the screen.
pub fn show(heading: &str, words: impl Iterator<Item = &'static str>) -> Result<()> {
    let mut tty = tty()?;
    let mut text = Zeroizing::new(String::new());
    text.push_str(heading);
    text.push_str("\n\n");
    let words: Vec<&str> = words.collect();
    // Three columns fit a 52-column phone terminal: "24. abandon   " is 14 wide.
    let rows = words.len().div_ceil(3);
    for r in 0..rows {
        for c in 0..3 {
            if let Some(w) = words.get(c * rows + r) {
                // Straight into the zeroized buffer: no other copy of the words is made.
                let _ = write!(text, "{:>3}. {w:<10}", c * rows + r + 1);
            }
        }
        text.push('\n');
    }
    text.push_str("\nWrite them down on paper, in order. Press Enter when done: ");
    say(&mut tty, &text)?;
    let mut line = String::new();
    std::io::BufReader::new(&tty)
        .take(256)
        .read_line(&mut line)
        .map_err(|e| Error::io(format!("cannot read the terminal: {e}"), "try again"))?;
    say(&mut tty, CLEAR)
}

/// Echo off for the words that follow, until the returned value is dropped.
pub fn hidden() -> Result<password::HiddenInput> {
    password::HiddenInput::start("recovery words")
}

/// One word typed with echo off, completed from its first letters; asked again until it
/// names exactly one word of the list.
pub fn read_word(input: &mut password::HiddenInput, prompt: &str) -> Result<u16> {
    loop {
        let typed = input.read(prompt)?;
        match words::complete(&typed) {
            Completion::Word(index) => return Ok(index),
            Completion::Ambiguous(n) => note(&format!(
                "  {n} words of the list start with those letters: type more of the word"
            )),
            Completion::Unknown => note("  not a word of the BIP39 English list: type it again"),
        }
    }
}

/// `count` words typed one at a time, as text the phrase and share parsers read.
pub fn read_words(what: &str, count: usize) -> Result<Zeroizing<String>> {
    let mut input = hidden()?;
    let mut text = Zeroizing::new(String::new());
    for i in 1..=count {
        let index = read_word(&mut input, &format!("{what}, word {i} of {count}: "))?;
        text.push_str(words::word(index));
        text.push(' ');
    }
    Ok(text)
}

/// A line on the terminal itself (`/dev/tty`); nothing when there is none.
pub fn note(text: &str) {
    if let Ok(mut tty) = tty() {
        let _ = say(&mut tty, &format!("{text}\n"));
    }
}

//! Text that others control, made safe to show on a terminal, or in an HTML page ([`html`]).
//!
//! Certificate and revocation reasons, lines of a hostile file and file names can hold terminal
//! escapes (ESC, CSI, CR, backspace) or Unicode bidi controls that make a terminal show
//! something other than what the bytes say: `\r\e[2K` followed by a fake `fingerprint:` line
//! overwrites the real one. Every such piece goes through [`escape`] before it joins a message
//! or a line of human output, wherever that message is built (this module is a leaf, so the
//! library's error texts use it too; `cli::output` re-exports it for the commands). `--json`
//! output keeps the exact text: JSON escaping already makes it inert.
//!
//! [`scrub`] is the last pass over everything `cli::output` prints, a safety net for text that
//! did not come through [`escape`]: it escapes the same characters but keeps line breaks and
//! tabs, and leaves backslashes alone, so text that was already escaped passes unchanged.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Longest escaped piece shown, in characters, before it is cut.
pub const MAX_SHOWN: usize = 200;

/// Unicode bidi controls (the "Trojan Source" set, plus the marks): they reorder what follows.
fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// C0 and C1 controls, DEL, and bidi controls: characters a terminal acts on instead of
/// showing, or that change how the text around them is shown.
pub fn is_hidden_control(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// The first character of `text` that a reason may not hold, if any (see
/// [`is_hidden_control`]). Reasons are one line of visible text.
pub(crate) fn forbidden_in_reason(text: &str) -> Option<char> {
    text.chars().find(|&c| is_hidden_control(c))
}

/// `U+XXXX`, how messages name a character without showing it.
pub fn describe(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// Pieces of UTF-8 text or single invalid bytes, in order.
enum Piece<'a> {
    Text(&'a str),
    Invalid(u8),
}

/// Escape and cap pieces: backslashes doubled, hidden controls as `\n`, `\r`, `\t` or
/// `\u{..}`, invalid bytes as `\xNN`; at most [`MAX_SHOWN`] characters, then a note of how many
/// bytes were left out.
fn escape_pieces<'a>(pieces: impl Iterator<Item = Piece<'a>>, total_bytes: usize) -> String {
    let mut out = String::new();
    let mut shown_chars = 0usize;
    let mut used_bytes = 0usize;
    for piece in pieces {
        let mut push = |rendered: &str, bytes: usize| -> bool {
            let n = rendered.chars().count();
            if shown_chars + n > MAX_SHOWN {
                return false;
            }
            out.push_str(rendered);
            shown_chars += n;
            used_bytes += bytes;
            true
        };
        match piece {
            Piece::Text(s) => {
                for c in s.chars() {
                    let mut one = String::new();
                    if c == '\\' {
                        one.push_str("\\\\");
                    } else if is_hidden_control(c) {
                        push_escaped(&mut one, c);
                    } else {
                        one.push(c);
                    }
                    if !push(&one, c.len_utf8()) {
                        return cut(out, total_bytes - used_bytes);
                    }
                }
            }
            Piece::Invalid(b) => {
                if !push(&format!("\\x{b:02x}"), 1) {
                    return cut(out, total_bytes - used_bytes);
                }
            }
        }
    }
    out
}

fn cut(mut out: String, left: usize) -> String {
    let _ = write!(out, "… ({left} more bytes not shown)");
    out
}

/// The one way to show text that someone else controls: hidden controls and backslashes
/// escaped, at most [`MAX_SHOWN`] characters.
pub fn escape(text: &str) -> String {
    escape_pieces(std::iter::once(Piece::Text(text)), text.len())
}

/// [`escape`] for bytes that may not be UTF-8 (the first line of a file that is not text).
/// Only the start of a long input is looked at.
pub fn escape_bytes(bytes: &[u8]) -> String {
    // Each shown character consumes at least one input byte.
    let head = &bytes[..bytes.len().min(4 * MAX_SHOWN + 4)];
    let pieces = head.utf8_chunks().flat_map(|chunk| {
        std::iter::once(Piece::Text(chunk.valid()))
            .chain(chunk.invalid().iter().map(|&b| Piece::Invalid(b)))
    });
    escape_pieces(pieces, bytes.len())
}

/// [`escape`] for a file name: whoever named the file chose it. Bytes that are not UTF-8 show
/// as `\xNN`.
pub fn path(p: &std::path::Path) -> String {
    escape_bytes(p.as_os_str().as_encoded_bytes())
}

/// The safety net over whole messages: hidden controls escaped, except line feeds and tabs;
/// backslashes kept (so escaped text is unchanged) and no length cap.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t' || !is_hidden_control(c);
    if text.chars().all(keep) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if keep(c) {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// Where a stream stopped being plain text, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotText {
    /// Offset of the first offending byte in the whole stream.
    pub offset: u64,
    /// What was found there, e.g. "the control character U+001B".
    pub what: String,
}

/// Checks a stream, piece by piece, for what a terminal must not be sent: bytes that are not
/// UTF-8, and control characters (C0, DEL, C1) other than tab, CR and LF. A UTF-8 sequence may
/// be split between pieces.
#[derive(Debug, Default)]
pub struct TextStream {
    /// The start of a UTF-8 sequence that the previous piece cut off.
    carry: Vec<u8>,
    /// Bytes fed before `carry`.
    offset: u64,
}

impl TextStream {
    /// A stream with nothing fed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Check the next piece. On `Err`, the stream is not text from the offset it names.
    pub fn feed(&mut self, piece: &[u8]) -> Result<(), NotText> {
        let mut bytes = std::mem::take(&mut self.carry);
        bytes.extend_from_slice(piece);
        let (valid, problem) = match std::str::from_utf8(&bytes) {
            Ok(s) => (s, None),
            Err(e) => (
                std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid up to here"),
                Some(e),
            ),
        };
        for (i, c) in valid.char_indices() {
            if c.is_control() && !matches!(c, '\t' | '\n' | '\r') {
                return Err(NotText {
                    offset: self.offset + i as u64,
                    what: format!("the control character {}", describe(c)),
                });
            }
        }
        let Some(e) = problem else {
            self.offset += bytes.len() as u64;
            return Ok(());
        };
        let at = e.valid_up_to();
        if e.error_len().is_some() {
            return Err(NotText {
                offset: self.offset + at as u64,
                what: "bytes that are not UTF-8 text".into(),
            });
        }
        // The piece ends inside a sequence: keep its start for the next piece.
        self.offset += at as u64;
        self.carry = bytes[at..].to_vec();
        Ok(())
    }
}

/// `text` with `& < > " '` replaced by character references, and every character that a
/// browser would not show as itself written as its code point, `<U+202E>`: the controls and
/// bidi controls that [`escape`] escapes on a terminal (a right-to-left override in a
/// CPU name can make the text after it read backwards), and the invisible format characters
/// (`is_invisible`). Tab and line feed stay. The result holds no markup, so it may go into
/// an attribute too.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    html_into(&mut out, text);
    out
}

/// [`html`], appended to `out`: no string of its own, for text that must not be copied (the
/// recovery kit's words, written straight into its zeroizing page).
pub fn html_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if is_hidden_control(c) || is_invisible(c) => {
                out.push_str("&lt;");
                out.push_str(&describe(c));
                out.push_str("&gt;");
            }
            c => out.push(c),
        }
    }
}

/// Format characters that draw nothing, so text could hide in them or be split by them
/// unseen: the soft hyphen, the combining grapheme joiner, the Mongolian vowel separator,
/// zero-width space, non-joiner and joiner, the word joiner and invisible operators, the
/// deprecated format controls, the byte order mark, the interlinear annotation marks, and the
/// tag characters (which can spell a hidden ASCII text).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No byte below 0x20 except LF and TAB, no DEL, no C1, no bidi control.
    fn inert(s: &str, allow_newlines: bool) -> bool {
        s.chars()
            .all(|c| !is_hidden_control(c) || (allow_newlines && (c == '\n' || c == '\t')))
    }

    #[test]
    fn escapes_controls_bidi_and_backslashes() {
        let hostile = "ok\r\x1b[3A\x1b[2Kfingerprint: fake\u{9b}31m\u{202e}txt.exe\\n\x7f\n\t";
        let e = escape(hostile);
        assert!(inert(&e, false), "{e:?}");
        assert_eq!(
            e,
            "ok\\r\\u{1b}[3A\\u{1b}[2Kfingerprint: fake\\u{9b}31m\\u{202e}txt.exe\\\\n\\u{7f}\\n\\t"
        );
        // Ordinary text, accents and emoji included, is untouched.
        assert_eq!(escape("phone lost — café 📱"), "phone lost — café 📱");
    }

    #[test]
    fn caps_long_text_and_says_how_much_is_left() {
        let long = "a".repeat(10_000);
        let e = escape(&long);
        assert!(e.starts_with(&"a".repeat(MAX_SHOWN)));
        assert!(e.ends_with("… (9800 more bytes not shown)"), "{e}");
        // Escapes count toward the cap, so many escapes cannot make a long line.
        let e = escape(&"\x1b".repeat(1000));
        assert!(e.chars().count() < MAX_SHOWN + 40, "{e}");
        assert!(inert(&e, false));
        // Exactly at the cap: nothing cut.
        assert_eq!(escape(&"b".repeat(MAX_SHOWN)), "b".repeat(MAX_SHOWN));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_shown_as_hex() {
        assert_eq!(escape_bytes(b"ab\xff\x1bc"), "ab\\xff\\u{1b}c");
        let huge = vec![0x1bu8; 16 << 20];
        let e = escape_bytes(&huge);
        assert!(e.len() < 1000 && inert(&e, false), "{e}");
        assert!(e.ends_with("more bytes not shown)"));
    }

    #[test]
    fn file_names_are_escaped() {
        use std::os::unix::ffi::OsStrExt;
        let p = std::path::Path::new(std::ffi::OsStr::from_bytes(b"dir/a\x1b[2J\xffb.pub"));
        assert_eq!(path(p), "dir/a\\u{1b}[2J\\xffb.pub");
        assert_eq!(
            path(std::path::Path::new("/home/me/alice.pub")),
            "/home/me/alice.pub"
        );
    }

    #[test]
    fn scrub_keeps_lines_and_escaped_text() {
        assert!(matches!(scrub("a\n\tb \\u{1b}"), Cow::Borrowed(_)));
        assert_eq!(scrub("a\x1b[2J\rb\u{2066}\n"), "a\\u{1b}[2J\\rb\\u{2066}\n");
        let once = escape("x\x1by");
        assert_eq!(scrub(&once), once);
    }

    #[test]
    fn reasons_may_not_hold_hidden_controls() {
        assert_eq!(forbidden_in_reason("scheduled rotation"), None);
        assert_eq!(forbidden_in_reason("a\nb"), Some('\n'));
        assert_eq!(forbidden_in_reason("\u{85}"), Some('\u{85}'));
        assert_eq!(forbidden_in_reason("x\u{2067}"), Some('\u{2067}'));
        assert_eq!(describe('\x1b'), "U+001B");
    }

    #[test]
    fn text_streams_refuse_controls_and_non_utf8_across_pieces() {
        let mut t = TextStream::new();
        t.feed(b"plain text\twith tabs\r\n").unwrap();
        t.feed("caf\u{e9} \u{1f4f1}".as_bytes()).unwrap();
        let e = t.feed(b"x\x1b[2J").unwrap_err();
        assert_eq!(e.offset, 22 + 10 + 1);
        assert!(e.what.contains("U+001B"), "{e:?}");
        // A C1 control (U+009B, CSI) split between two pieces.
        let mut t = TextStream::new();
        t.feed(b"ab\xc2").unwrap();
        let e = t.feed(b"\x9b").unwrap_err();
        assert_eq!((e.offset, e.what.contains("U+009B")), (2, true));
        // A multi-byte character split is fine; a raw 0x9b byte is not UTF-8.
        let mut t = TextStream::new();
        t.feed(b"\xe2\x82").unwrap();
        t.feed(b"\xac!").unwrap();
        let e = t.feed(b"\x9b").unwrap_err();
        assert_eq!((e.offset, e.what.contains("UTF-8")), (4, true));
        assert!(TextStream::new().feed(b"\x7f").is_err());
    }
}

//! The age stanza text format, shared by the v1 header and the plugin protocol (C2SP age.md,
//! "Recipient stanza"; age-plugin.md, "IPC protocol"):
//!
//! ```text
//! stanza     = arg-line *full-line final-line
//! arg-line   = "-> " argument *(SP argument) LF        argument = 1*VCHAR
//! full-line  = 64base64char LF
//! final-line = *63base64char LF                         (canonical, unpadded base64)
//! ```
//!
//! Reading is strict: LF only (a CR is refused), bounded line lengths, no padding, canonical
//! base64 (the unused bits of the last character are zero), and a stanza always ends with a
//! short line, which may be empty.

use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use std::io::{self, BufRead};
use zeroize::Zeroizing;

/// Body lines are wrapped at 64 columns.
pub(crate) const BODY_LINE: usize = 64;
/// The longest line read: an mlkem768x25519 argument line is about 1510 bytes; plugin
/// stanzas may carry more.
pub const MAX_LINE: usize = 16 * 1024;

/// One stanza: a tag, its arguments and a body.
#[derive(Clone, PartialEq, Eq)]
pub struct Stanza {
    /// The first argument of the `->` line (the stanza type, such as `mlkem768x25519`).
    pub tag: String,
    /// The remaining arguments.
    pub args: Vec<String>,
    /// The decoded body.
    pub body: Vec<u8>,
}

impl std::fmt::Debug for Stanza {
    // The body may be a wrapped or unwrapped file key: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Stanza {{ tag: {:?}, args: {}, body: {} bytes }}",
            self.tag,
            self.args.len(),
            self.body.len()
        )
    }
}

/// Why a line or stanza was refused (static text: never quotes the input).
#[derive(Debug)]
pub enum FormatError {
    /// The input broke a rule of the format.
    Invalid(&'static str),
    /// The input ended inside the header or frame.
    Truncated,
    /// The input goes on past the limit the [`LineReader`] was given.
    TooLong,
    /// Reading failed.
    Io(io::Error),
}

impl From<io::Error> for FormatError {
    fn from(e: io::Error) -> Self {
        FormatError::Io(e)
    }
}

/// Reads LF-terminated lines of at most [`MAX_LINE`] bytes, and keeps a copy of every byte
/// read when asked (the header MAC covers the header as written).
pub struct LineReader<'a, R: BufRead + ?Sized> {
    inner: &'a mut R,
    /// Every byte read so far, when recording.
    pub recorded: Option<Vec<u8>>,
    /// A limit on the total bytes read (the header bound); `None` for no limit.
    remaining: Option<usize>,
}

impl<'a, R: BufRead + ?Sized> LineReader<'a, R> {
    /// Read lines from `inner`, keeping a copy of every byte if `record`, and failing once more
    /// than `limit` bytes have been read.
    pub fn new(inner: &'a mut R, record: bool, limit: Option<usize>) -> Self {
        LineReader {
            inner,
            recorded: record.then(Vec::new),
            remaining: limit,
        }
    }

    /// Read at most `limit` bytes more from here on (`None`: no limit).
    pub(crate) fn set_limit(&mut self, limit: Option<usize>) {
        self.remaining = limit;
    }

    /// The next line without its LF. `Ok(None)` at the end of the input (nothing read);
    /// [`FormatError::TooLong`] when the input goes on past the limit.
    pub(crate) fn next_line(&mut self) -> Result<Option<Vec<u8>>, FormatError> {
        let mut line = Vec::new();
        let cap = MAX_LINE + 1;
        // The limit, not the line length, is what stops this read.
        let bounded = self.remaining.is_some_and(|r| r < cap);
        let cap = self.remaining.map_or(cap, |r| r.min(cap));
        loop {
            match <&mut R as io::Read>::take(&mut *self.inner, cap as u64)
                .read_until(b'\n', &mut line)
            {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        if line.is_empty() {
            if bounded && self.more_input()? {
                return Err(FormatError::TooLong);
            }
            return Ok(None);
        }
        if let Some(r) = &mut self.remaining {
            *r -= line.len();
        }
        if let Some(rec) = &mut self.recorded {
            rec.extend_from_slice(&line);
        }
        if line.last() != Some(&b'\n') {
            return Err(if line.len() < cap {
                FormatError::Truncated
            } else if bounded {
                FormatError::TooLong
            } else {
                FormatError::Invalid("a line is too long")
            });
        }
        line.pop();
        if line.contains(&b'\r') {
            return Err(FormatError::Invalid(
                "a line contains a carriage return (lines end with LF only)",
            ));
        }
        Ok(Some(line))
    }
}

impl<R: BufRead + ?Sized> LineReader<'_, R> {
    /// Is there input left (without taking any)?
    fn more_input(&mut self) -> Result<bool, FormatError> {
        loop {
            match self.inner.fill_buf() {
                Ok(buf) => return Ok(!buf.is_empty()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

fn is_vchar(b: u8) -> bool {
    (0x21..=0x7e).contains(&b)
}

fn is_base64_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// Split the content of an argument line after "-> ": one or more arguments of VCHARs
/// separated by single spaces. The first is the tag.
pub fn parse_args(rest: &[u8]) -> Result<(String, Vec<String>), FormatError> {
    if rest.is_empty() {
        return Err(FormatError::Invalid("a stanza has no arguments"));
    }
    let mut parts = Vec::new();
    for arg in rest.split(|&b| b == b' ') {
        if arg.is_empty() {
            return Err(FormatError::Invalid(
                "a stanza has an empty argument (double or trailing space)",
            ));
        }
        if !arg.iter().copied().all(is_vchar) {
            return Err(FormatError::Invalid(
                "a stanza argument has a character outside printable ASCII",
            ));
        }
        parts.push(String::from_utf8(arg.to_vec()).expect("printable ASCII"));
    }
    let tag = parts.remove(0);
    Ok((tag, parts))
}

/// Decode canonical unpadded base64 (age's encoding everywhere but the armor).
pub(crate) fn decode_b64(s: &[u8]) -> Option<Vec<u8>> {
    if !s.iter().copied().all(is_base64_char) {
        return None;
    }
    let data = STANDARD_NO_PAD.decode(s).ok()?;
    // The engine refuses non-zero trailing bits; this double-checks canonical form.
    (STANDARD_NO_PAD.encode(&data).as_bytes() == s).then_some(data)
}

/// Canonical unpadded base64.
pub(crate) fn encode_b64(data: &[u8]) -> String {
    STANDARD_NO_PAD.encode(data)
}

/// Read the body lines of a stanza whose argument line was just read: full 64-column lines,
/// then one shorter line (possibly empty) that ends the stanza.
pub(crate) fn read_body<R: BufRead + ?Sized>(
    lines: &mut LineReader<'_, R>,
) -> Result<Vec<u8>, FormatError> {
    // Zeroized: plugin frames carry file keys and the vault password.
    let mut text = Zeroizing::new(Vec::new());
    loop {
        let line = Zeroizing::new(lines.next_line()?.ok_or(FormatError::Truncated)?);
        if line.len() > BODY_LINE {
            return Err(FormatError::Invalid(
                "a stanza body line is longer than 64 columns",
            ));
        }
        if line.starts_with(b"-> ") || line.starts_with(b"---") {
            return Err(FormatError::Invalid(
                "a stanza ends without its short final body line",
            ));
        }
        if !line.iter().copied().all(is_base64_char) {
            return Err(FormatError::Invalid(
                "a stanza body has a character outside unpadded base64",
            ));
        }
        let short = line.len() < BODY_LINE;
        text.extend_from_slice(&line);
        if short {
            break;
        }
    }
    decode_b64(&text).ok_or(FormatError::Invalid(
        "a stanza body is not canonical base64",
    ))
}

impl Stanza {
    /// Read a whole stanza; `first` is its argument line (without LF).
    pub fn read<R: BufRead + ?Sized>(
        first: &[u8],
        lines: &mut LineReader<'_, R>,
    ) -> Result<Stanza, FormatError> {
        let rest = first
            .strip_prefix(b"-> ")
            .ok_or(FormatError::Invalid("a stanza does not start with \"-> \""))?;
        let (tag, args) = parse_args(rest)?;
        let body = read_body(lines)?;
        Ok(Stanza { tag, args, body })
    }

    /// The stanza as written: argument line, 64-column body lines, and the short final line.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"-> ");
        out.extend_from_slice(self.tag.as_bytes());
        for a in &self.args {
            out.push(b' ');
            out.extend_from_slice(a.as_bytes());
        }
        out.push(b'\n');
        let b64 = encode_b64(&self.body);
        let mut rest = b64.as_bytes();
        loop {
            let n = rest.len().min(BODY_LINE);
            out.extend_from_slice(&rest[..n]);
            out.push(b'\n');
            rest = &rest[n..];
            if n < BODY_LINE {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_one(text: &[u8]) -> Result<Stanza, FormatError> {
        let mut input = text;
        let mut lines = LineReader::new(&mut input, false, None);
        let first = lines.next_line()?.ok_or(FormatError::Truncated)?;
        Stanza::read(&first, &mut lines)
    }

    #[test]
    fn encode_read_round_trip_at_line_boundaries() {
        for len in [0usize, 1, 47, 48, 49, 96, 200] {
            let s = Stanza {
                tag: "t".into(),
                args: vec!["a".into(), "b".into()],
                body: (0..len).map(|i| i as u8).collect(),
            };
            let mut out = Vec::new();
            s.encode(&mut out);
            assert_eq!(read_one(&out).unwrap(), s, "{len}");
            // 48 bytes are one full line: an empty final line must follow.
            if len == 48 {
                assert!(out.ends_with(b"\n\n"));
            }
        }
    }

    #[test]
    fn refuses_loose_forms() {
        for bad in [
            &b"-> \n\n"[..],
            b"-> a  b\n\n",
            b"-> a \n\n",
            b"->a\n\n",
            b"-> a\nAA==\n",
            b"-> a\nAB\n",
            b"-> a\r\n\n",
            b"-> a\n",
            b"-> a\n\xff\n",
        ] {
            assert!(read_one(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
        assert_eq!(read_one(b"-> a\nAA\n").unwrap().body, vec![0]);
    }

    #[test]
    fn a_limit_stops_reading_and_says_so() {
        let text = b"-> a\nAAAA\n-> b\nAAAA\n";
        // Exactly the first stanza: it is read, and the second is past the limit.
        let mut input = &text[..];
        let mut lines = LineReader::new(&mut input, false, Some(10));
        let first = lines.next_line().unwrap().unwrap();
        Stanza::read(&first, &mut lines).unwrap();
        assert!(matches!(lines.next_line(), Err(FormatError::TooLong)));
        // A limit that falls inside a line.
        let mut input = &text[..];
        let mut lines = LineReader::new(&mut input, false, Some(7));
        lines.next_line().unwrap();
        assert!(matches!(lines.next_line(), Err(FormatError::TooLong)));
        // The input ending exactly at the limit is a clean end; a new limit reads on.
        let mut input = &text[..10];
        let mut lines = LineReader::new(&mut input, false, Some(10));
        lines.next_line().unwrap();
        lines.next_line().unwrap();
        assert!(lines.next_line().unwrap().is_none());
        let mut input = &text[..];
        let mut lines = LineReader::new(&mut input, false, Some(10));
        lines.next_line().unwrap();
        lines.next_line().unwrap();
        lines.set_limit(Some(10));
        assert_eq!(lines.next_line().unwrap().unwrap(), b"-> b");
    }
}

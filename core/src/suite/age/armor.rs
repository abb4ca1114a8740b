//! age's ASCII armor (C2SP age.md, "ASCII armor"): strict PEM (RFC 7468, section 3) with the
//! label "AGE ENCRYPTED FILE", padded base64 in 64-column lines.
//!
//! Read rules, the strict reading the CCTV testkit expects: up to 1024 bytes of whitespace
//! (space, tab, CR, LF) before the BEGIN line and after the END line, and nothing else around
//! the block; lines end with LF, or all with CRLF as the BEGIN line chose (the END line may
//! also end the input); every body line is 64 characters except the last, which has 1 to 64;
//! padding only at the very end; canonical base64. A defect is an `InvalidData` I/O error
//! carrying an [`ArmorError`], returned again on every later read. Data of the lines before a
//! defect has already been returned: the caller authenticates what it reads (STREAM does).

use crate::armor::LineError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

pub const BEGIN: &str = "-----BEGIN AGE ENCRYPTED FILE-----";
pub const END: &str = "-----END AGE ENCRYPTED FILE-----";
const LINE: usize = 64;
const LINE_BYTES: usize = LINE / 4 * 3;
/// The most whitespace accepted before and after the block.
pub const MAX_WHITESPACE: usize = 1024;

/// Why armored text was refused (static text; the caller adds which input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmorError(pub String);

impl std::fmt::Display for ArmorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArmorError {}

/// Is this I/O error an armor defect found by [`ArmorReader`]?
pub fn armor_error(err: &io::Error) -> Option<&ArmorError> {
    err.get_ref()?.downcast_ref::<ArmorError>()
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Does `prefix` (the first bytes of an input) look like age armor: a PEM-style "-----" line
/// after leading whitespace, or the BEGIN line somewhere in it? The reader then decides, so a
/// damaged BEGIN line or junk before it is an armor failure, not "not an age file".
pub fn looks_armored(prefix: &[u8]) -> bool {
    let start = prefix
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(prefix.len());
    (start <= MAX_WHITESPACE && prefix[start..].starts_with(b"-----"))
        || prefix.windows(BEGIN.len()).any(|w| w == BEGIN.as_bytes())
}

/// Writes armor as data arrives; LF endings. Call [`ArmorWriter::finish`].
pub struct ArmorWriter<W: Write> {
    inner: BufWriter<W>,
    pending: [u8; LINE_BYTES],
    pending_len: usize,
}

impl<W: Write> ArmorWriter<W> {
    pub fn new(inner: W) -> io::Result<Self> {
        let mut inner = BufWriter::new(inner);
        writeln!(inner, "{BEGIN}")?;
        Ok(ArmorWriter {
            inner,
            pending: [0; LINE_BYTES],
            pending_len: 0,
        })
    }

    fn emit_line(&mut self) -> io::Result<()> {
        let mut line = [0u8; LINE + 1];
        let n = STANDARD
            .encode_slice(&self.pending[..self.pending_len], &mut line)
            .expect("48 bytes fit in 64 characters");
        line[n] = b'\n';
        self.pending_len = 0;
        self.inner.write_all(&line[..=n])
    }

    /// Write the last line and the END line, flush, and return the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        if self.pending_len > 0 {
            self.emit_line()?;
        }
        writeln!(self.inner, "{END}")?;
        self.inner.flush()?;
        self.inner.into_inner().map_err(|e| e.into_error())
    }
}

impl<W: Write> Write for ArmorWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while !rest.is_empty() {
            let take = (LINE_BYTES - self.pending_len).min(rest.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&rest[..take]);
            self.pending_len += take;
            rest = &rest[take..];
            if self.pending_len == LINE_BYTES {
                self.emit_line()?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Begin,
    Body,
    Done,
}

/// Reads age armor and yields the binary file.
pub struct ArmorReader<R: Read> {
    inner: BufReader<R>,
    state: State,
    crlf: bool,
    /// A short or padded line was read: only the END line may follow.
    saw_last: bool,
    line: Vec<u8>,
    decoded: [u8; LINE_BYTES],
    pos: usize,
    len: usize,
    failed: Option<ArmorError>,
}

impl<R: Read> ArmorReader<R> {
    pub fn new(inner: R) -> Self {
        ArmorReader {
            inner: BufReader::new(inner),
            state: State::Begin,
            crlf: false,
            saw_last: false,
            line: Vec::with_capacity(LINE + 2),
            decoded: [0; LINE_BYTES],
            pos: 0,
            len: 0,
            failed: None,
        }
    }

    fn fail(&mut self, msg: &str) -> io::Error {
        let e = ArmorError(msg.to_string());
        self.failed = Some(e.clone());
        io::Error::new(io::ErrorKind::InvalidData, e)
    }

    /// One line of at most `limit` bytes, ending included. `Ok(false)`: the input ended
    /// before a LF (what was read is in `self.line`).
    fn read_line(&mut self, limit: usize) -> io::Result<bool> {
        self.line.clear();
        loop {
            match (&mut self.inner)
                .take(limit as u64)
                .read_until(b'\n', &mut self.line)
            {
                Ok(_) => return Ok(self.line.last() == Some(&b'\n')),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Skip leading whitespace (bounded), then read and check the BEGIN line.
    fn read_begin(&mut self) -> io::Result<()> {
        let mut skipped = 0;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Err(self.fail("is empty or only whitespace"));
            }
            let n = buf.iter().take_while(|&&b| is_space(b)).count();
            let done = n < buf.len();
            self.inner.consume(n);
            skipped += n;
            if skipped > MAX_WHITESPACE {
                return Err(self.fail("has too much whitespace before its BEGIN line"));
            }
            if done {
                break;
            }
        }
        let complete = self.read_line(BEGIN.len() + 2)?;
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let (line, crlf) = match line.strip_suffix(b"\r") {
            Some(l) => (l, true),
            None => (line, false),
        };
        if !complete || line != BEGIN.as_bytes() {
            return Err(self.fail(&format!("does not start with \"{BEGIN}\"")));
        }
        self.crlf = crlf;
        self.state = State::Body;
        Ok(())
    }

    /// After the END line: only whitespace (bounded) until the end of the input.
    fn read_trailer(&mut self) -> io::Result<()> {
        let mut seen = 0usize;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(());
            }
            if !buf.iter().all(|&b| is_space(b)) {
                return Err(self.fail("has data after its END line"));
            }
            seen += buf.len();
            let n = buf.len();
            self.inner.consume(n);
            if seen > MAX_WHITESPACE {
                return Err(self.fail("has too much whitespace after its END line"));
            }
        }
    }

    fn read_body_line(&mut self) -> io::Result<()> {
        let limit = LINE.max(END.len()) + 2;
        let complete = self.read_line(limit)?;
        let content: &[u8] = if complete {
            let body = &self.line[..self.line.len() - 1];
            match (self.crlf, body.strip_suffix(b"\r")) {
                (true, Some(b)) => b,
                (false, None) => body,
                _ => return Err(self.fail("mixes LF and CRLF line endings")),
            }
        } else {
            // Only the END line may end the input without a line ending.
            &self.line
        };
        if content == END.as_bytes() {
            self.state = State::Done;
            return self.read_trailer();
        }
        if !complete {
            let msg = if self.line.len() >= limit {
                "has a line longer than 64 characters"
            } else {
                "does not end with its END line (truncated?)"
            };
            return Err(self.fail(msg));
        }
        if self.saw_last {
            return Err(self.fail("has a line after its short or padded last line"));
        }
        if content.is_empty() || content.len() > LINE {
            return Err(self.fail("has a line of the wrong length"));
        }
        let (decoded, n) = match crate::armor::decode_line(content) {
            Ok(d) => d,
            Err(LineError::Invalid) => {
                return Err(self.fail("has invalid base64 (or padding not at the end)"));
            }
            Err(LineError::NonCanonical) => return Err(self.fail("has non-canonical base64")),
        };
        self.saw_last = content.len() < LINE || content.last() == Some(&b'=');
        self.decoded = decoded;
        self.pos = 0;
        self.len = n;
        Ok(())
    }
}

impl<R: Read> Read for ArmorReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = &self.failed {
            return Err(io::Error::new(io::ErrorKind::InvalidData, e.clone()));
        }
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if self.pos < self.len {
                let n = (self.len - self.pos).min(out.len());
                out[..n].copy_from_slice(&self.decoded[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            match self.state {
                State::Begin => self.read_begin()?,
                State::Body => self.read_body_line()?,
                State::Done => return Ok(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(data: &[u8]) -> Vec<u8> {
        let mut w = ArmorWriter::new(Vec::new()).unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap()
    }

    fn decode(text: &[u8]) -> Result<Vec<u8>, ArmorError> {
        let mut out = Vec::new();
        ArmorReader::new(text)
            .read_to_end(&mut out)
            .map_err(|e| armor_error(&e).cloned().expect("armor error"))?;
        Ok(out)
    }

    #[test]
    fn round_trips_lf_crlf_and_whitespace_outside() {
        for len in [0usize, 1, 47, 48, 49, 96, 1000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let lf = encode(&data);
            assert_eq!(decode(&lf).unwrap(), data);
            let crlf = String::from_utf8(lf.clone()).unwrap().replace('\n', "\r\n");
            assert_eq!(decode(crlf.as_bytes()).unwrap(), data);
            let mut spaced = b"\n \t\r\n".to_vec();
            spaced.extend_from_slice(&lf);
            spaced.extend_from_slice(b"\n\r\t \n");
            assert_eq!(decode(&spaced).unwrap(), data);
            assert!(looks_armored(&spaced));
            let no_eol = &lf[..lf.len() - 1];
            assert_eq!(decode(no_eol).unwrap(), data);
        }
    }

    #[test]
    fn refuses_loose_variants() {
        let good = String::from_utf8(encode(&[9u8; 100])).unwrap();
        let bad = [
            good.replacen('\n', "\r\n", 1),
            good.replace(END, &format!(" {END}")),
            format!("x{good}"),
            format!("{good}x"),
            format!("{}{good}", " ".repeat(MAX_WHITESPACE + 1)),
            good.replace("CQkJ\n", "CQkJ \n"),
            good.replace(&format!("{BEGIN}\n"), &format!("{BEGIN}\n\n")),
            good[..good.len() - END.len() - 1].to_string(),
            format!("{BEGIN}\nAQ\n{END}\n"),
            format!("{BEGIN}\nAR==\n{END}\n"),
            format!("{BEGIN}\nAQ==\nAQ==\n{END}\n"),
            good.replace("BEGIN AGE", "BEGIN age"),
        ];
        for (i, b) in bad.iter().enumerate() {
            assert!(decode(b.as_bytes()).is_err(), "variant {i} accepted");
        }
    }
}

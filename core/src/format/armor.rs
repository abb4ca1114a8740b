//! Strict ASCII armor (docs/identity-format.md, section 8; the forgiving reader: docs/cli.md).
//!
//! `-----BEGIN NEXUSQ <KIND>-----`, base64 in 64-character lines with canonical padding,
//! `-----END NEXUSQ <KIND>-----`, and exactly one final line ending. All lines end the same way
//! (LF or CRLF). Nothing else is accepted, so a flipped or truncated file cannot slip through as
//! whitespace or padding: decoding re-encodes and compares byte for byte.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

const LINE: usize = 64;

/// Encode `data` as armored text of the given kind (for example "PUBLIC IDENTITY"), LF endings.
pub fn encode(kind: &str, data: &[u8]) -> String {
    let b64 = STANDARD.encode(data);
    let mut out = String::with_capacity(b64.len() + b64.len() / LINE + 80);
    out.push_str(&format!("-----BEGIN NEXUSQ {kind}-----\n"));
    for chunk in b64.as_bytes().chunks(LINE) {
        // base64 output is ASCII, so every chunk boundary is a char boundary.
        out.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        out.push('\n');
    }
    out.push_str(&format!("-----END NEXUSQ {kind}-----\n"));
    out
}

/// Why armored text was refused; the caller adds what the file was supposed to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmorError(pub String);

/// Decode armored text that must be of the given kind.
pub fn decode(kind: &str, text: &[u8]) -> Result<Vec<u8>, ArmorError> {
    let fail = |m: &str| Err(ArmorError(m.to_string()));
    let text = match std::str::from_utf8(text) {
        Ok(t) => t,
        Err(_) => return fail("not text (invalid UTF-8)"),
    };
    let eol = if text.ends_with("\r\n") {
        "\r\n"
    } else if text.ends_with('\n') {
        "\n"
    } else {
        return fail("does not end with a line ending (truncated?)");
    };
    let body = &text[..text.len() - eol.len()];
    let lines: Vec<&str> = body.split(eol).collect();
    if lines.iter().any(|l| l.contains('\r') || l.contains('\n')) {
        return fail("mixes line endings or has stray line breaks");
    }
    let begin = format!("-----BEGIN NEXUSQ {kind}-----");
    let end = format!("-----END NEXUSQ {kind}-----");
    if lines.first() != Some(&begin.as_str()) {
        return match lines.first() {
            // The line is the file's, so whoever made it chose it: escaped and capped.
            Some(l) if l.starts_with("-----BEGIN NEXUSQ ") => fail(&format!(
                "is a different kind of nexusq file ({}), expected {kind}",
                crate::untrusted::escape(
                    l.trim_start_matches("-----BEGIN NEXUSQ ")
                        .trim_end_matches("-----")
                )
            )),
            _ => fail(&format!("does not start with \"{begin}\"")),
        };
    }
    if lines.len() < 3 || lines.last() != Some(&end.as_str()) {
        return fail(&format!("does not end with \"{end}\" (truncated?)"));
    }
    let body_lines = &lines[1..lines.len() - 1];
    for (i, line) in body_lines.iter().enumerate() {
        let last = i + 1 == body_lines.len();
        if line.is_empty() || line.len() > LINE || (!last && line.len() != LINE) {
            return fail("has a base64 line of the wrong length");
        }
    }
    let joined: String = body_lines.concat();
    let data = match STANDARD.decode(joined.as_bytes()) {
        Ok(d) => d,
        Err(_) => return fail("has invalid base64"),
    };
    // Belt and braces: only the one canonical encoding of `data` is accepted.
    if STANDARD.encode(&data) != joined {
        return fail("has non-canonical base64");
    }
    Ok(data)
}

/// Armor as people paste it: the block of `kind` found among other text (an email body, a
/// chat message), with CRLF or LF line endings and trailing spaces or tabs on any line
/// forgiven. The block itself is then decoded by the strict [`decode`] (canonical base64,
/// exact line lengths), so no byte inside it can change unnoticed. Without a BEGIN line of
/// `kind`, the text goes to [`decode`] as it is, for its precise message.
pub fn decode_pasted(kind: &str, text: &[u8]) -> Result<Vec<u8>, ArmorError> {
    let mut blocks = decode_all(kind, text)?;
    match blocks.len() {
        1 => Ok(blocks.remove(0)),
        n => Err(ArmorError(format!(
            "holds {n} armored {kind} blocks where one was expected"
        ))),
    }
}

/// Every block of `kind` in `text` (several concatenated exports, for example), each decoded
/// strictly as [`decode_pasted`] describes; at least one.
pub(crate) fn decode_all(kind: &str, text: &[u8]) -> Result<Vec<Vec<u8>>, ArmorError> {
    let Ok(t) = std::str::from_utf8(text) else {
        return decode(kind, text).map(|d| vec![d]);
    };
    let begin = format!("-----BEGIN NEXUSQ {kind}-----");
    let end = format!("-----END NEXUSQ {kind}-----");
    let lines: Vec<&str> = t
        .split('\n')
        .map(|l| l.trim_end_matches(['\r', ' ', '\t']))
        .collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] != begin {
            i += 1;
            continue;
        }
        let Some(len) = lines[i..].iter().position(|l| *l == end) else {
            return Err(ArmorError(format!(
                "does not end with \"{end}\" (truncated?)"
            )));
        };
        let mut block = lines[i..=i + len].join("\n");
        block.push('\n');
        blocks.push(decode(kind, block.as_bytes())?);
        i += len + 1;
    }
    if blocks.is_empty() {
        // No block of this kind: the strict decoder says what the text is instead.
        return decode(kind, text).map(|d| vec![d]);
    }
    Ok(blocks)
}

impl std::fmt::Display for ArmorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArmorError {}

// ---------------------------------------------------------------------------------------------
// Streaming armor, for inputs of any size (encrypted files): the same strict rules as `decode`,
// in constant memory.

/// The armor kind of `nexusq encrypt --armor`.
pub const ENCRYPTED_FILE_KIND: &str = "ENCRYPTED FILE";

/// Input bytes per armor line (64 base64 characters).
const LINE_BYTES: usize = LINE / 4 * 3;

/// Why a base64 body line was refused by [`decode_line`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineError {
    /// Not base64 (or padding before the end).
    Invalid,
    /// Base64, but not the one canonical encoding of its bytes.
    NonCanonical,
}

/// Decode one armor body line (1 to 64 characters; the caller checks the length and order
/// rules) and accept only the canonical encoding.
fn decode_line(content: &[u8]) -> Result<([u8; LINE_BYTES], usize), LineError> {
    debug_assert!(!content.is_empty() && content.len() <= LINE);
    let mut decoded = [0u8; LINE_BYTES];
    let n = STANDARD
        .decode_slice(content, &mut decoded)
        .map_err(|_| LineError::Invalid)?;
    let mut again = [0u8; LINE];
    let m = STANDARD
        .encode_slice(&decoded[..n], &mut again)
        .expect("at most 48 bytes");
    if again[..m] != *content {
        return Err(LineError::NonCanonical);
    }
    Ok((decoded, n))
}

/// The rules that tell one armor from another. Both are strict PEM-like text with 64-character
/// canonical base64 lines, read by the one [`ArmorReader`] and written by the one
/// [`ArmorWriter`]; they differ in their BEGIN and END lines and in what may surround them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    begin: String,
    end: String,
    /// Whitespace (space, tab, CR, LF) accepted before the BEGIN line and after the END line:
    /// none for nexusq's armor (exactly one final line ending), up to 1024 bytes for age's.
    whitespace: usize,
    /// nexusq's armor: a body is required, and another kind's BEGIN line is named in the
    /// error. age's: the END line may also end the input without a line ending.
    nexusq: bool,
}

/// age's BEGIN and END lines (C2SP age.md, "ASCII armor").
pub(crate) const AGE_BEGIN: &str = "-----BEGIN AGE ENCRYPTED FILE-----";
/// age's END line.
pub(crate) const AGE_END: &str = "-----END AGE ENCRYPTED FILE-----";
/// The most whitespace age's armor may have before its BEGIN and after its END line.
pub(crate) const AGE_MAX_WHITESPACE: usize = 1024;

impl Profile {
    /// nexusq's armor of one kind (docs/file-encryption.md, "Armor"): `-----BEGIN NEXUSQ
    /// <KIND>-----`, exactly one final line ending, nothing around it.
    pub fn nexusq(kind: &str) -> Profile {
        Profile {
            begin: format!("-----BEGIN NEXUSQ {kind}-----"),
            end: format!("-----END NEXUSQ {kind}-----"),
            whitespace: 0,
            nexusq: true,
        }
    }

    /// age's armor (docs/age.md): the strict reading the CCTV testkit expects, with up to 1024
    /// bytes of whitespace before the BEGIN line and after the END line, and the END line
    /// allowed to end the input.
    pub fn age() -> Profile {
        Profile {
            begin: AGE_BEGIN.into(),
            end: AGE_END.into(),
            whitespace: AGE_MAX_WHITESPACE,
            nexusq: false,
        }
    }

    fn kind(&self) -> &str {
        self.begin
            .trim_start_matches("-----BEGIN NEXUSQ ")
            .trim_end_matches("-----")
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Does `prefix` (the first bytes of an input) look like age armor: a PEM-style "-----" line
/// after leading whitespace, or age's BEGIN line somewhere in it? The reader then decides, so a
/// damaged BEGIN line or junk before it is an armor failure, not "not an age file".
pub(crate) fn looks_like_age(prefix: &[u8]) -> bool {
    let start = prefix
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(prefix.len());
    (start <= AGE_MAX_WHITESPACE && prefix[start..].starts_with(b"-----"))
        || prefix
            .windows(AGE_BEGIN.len())
            .any(|w| w == AGE_BEGIN.as_bytes())
}

/// Writes armored text as data arrives: the BEGIN line at once, a 64-character line per 48
/// bytes, and the last line and the END line on [`ArmorWriter::finish`]. LF endings. For
/// nexusq's armor the output is byte for byte what [`encode`] gives for the same data.
pub struct ArmorWriter<W: Write> {
    inner: BufWriter<W>,
    end: String,
    pending: [u8; LINE_BYTES],
    pending_len: usize,
}

impl<W: Write> ArmorWriter<W> {
    /// Start armored output of `profile` on `inner`: the BEGIN line is written now.
    pub fn new(inner: W, profile: &Profile) -> io::Result<Self> {
        let mut inner = BufWriter::new(inner);
        writeln!(inner, "{}", profile.begin)?;
        Ok(ArmorWriter {
            inner,
            end: profile.end.clone(),
            pending: [0; LINE_BYTES],
            pending_len: 0,
        })
    }

    fn emit_line(&mut self) -> io::Result<()> {
        let mut line = [0u8; LINE + 1];
        let n = STANDARD
            .encode_slice(&self.pending[..self.pending_len], &mut line)
            .expect("48 bytes fit in 64 base64 characters");
        line[n] = b'\n';
        self.pending_len = 0;
        self.inner.write_all(&line[..=n])
    }

    /// Write the last base64 line and the END line, flush, and hand back the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        if self.pending_len > 0 {
            self.emit_line()?;
        }
        writeln!(self.inner, "{}", self.end)?;
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

    /// Flushes whole lines only: a partial line waits for more data or `finish`.
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Is this I/O error an armor defect found by [`ArmorReader`] (rather than a failing device)?
pub fn armor_error(err: &io::Error) -> Option<&ArmorError> {
    err.get_ref()?.downcast_ref::<ArmorError>()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReaderState {
    Begin,
    Body,
    Done,
}

/// Reads armored text of one [`Profile`] and yields the data, line by line: the exact BEGIN
/// line, 64-character base64 lines (the last one 1..=64) with canonical padding, the exact END
/// line, all endings LF or all CRLF (as the BEGIN line chose), and around them only what the
/// profile allows (for nexusq's armor: one final line ending and nothing else, the rules of
/// [`decode`]). A defect is an `InvalidData` I/O error carrying an [`ArmorError`] (see
/// [`armor_error`]); it is returned again on every later read. Data of the lines before a
/// defect has already been returned: the caller authenticates what it reads.
pub struct ArmorReader<R: Read> {
    inner: BufReader<R>,
    profile: Profile,
    crlf: bool,
    state: ReaderState,
    /// The previous body line was short or padded: only the END line may follow.
    saw_last_line: bool,
    saw_body: bool,
    line: Vec<u8>,
    decoded: [u8; LINE_BYTES],
    pos: usize,
    len: usize,
    failed: Option<ArmorError>,
}

impl<R: Read> ArmorReader<R> {
    /// Read the armored text of `profile` from `inner`, yielding the decoded bytes; a defect is an
    /// `io::Error` that carries an [`ArmorError`] (see [`armor_error`]).
    pub fn new(inner: R, profile: Profile) -> Self {
        ArmorReader {
            inner: BufReader::new(inner),
            profile,
            crlf: false,
            state: ReaderState::Begin,
            saw_last_line: false,
            saw_body: false,
            line: Vec::with_capacity(LINE + 3),
            decoded: [0; LINE_BYTES],
            pos: 0,
            len: 0,
            failed: None,
        }
    }

    fn fail(&mut self, msg: impl Into<String>) -> io::Error {
        let e = ArmorError(msg.into());
        self.failed = Some(e.clone());
        io::Error::new(io::ErrorKind::InvalidData, e)
    }

    /// Read one line, line ending included, of at most `limit` bytes. `Ok(false)` at the end
    /// of the input without a line ending (what was read is in `self.line`).
    fn read_line(&mut self, limit: usize) -> io::Result<bool> {
        self.line.clear();
        let limit = u64::try_from(limit).unwrap_or(u64::MAX);
        loop {
            match (&mut self.inner)
                .take(limit)
                .read_until(b'\n', &mut self.line)
            {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.line.last() == Some(&b'\n'))
    }

    /// Skip whitespace, at most the profile's allowance: before the BEGIN line (`before`),
    /// or after the END line, up to the end of the input.
    fn skip_whitespace(&mut self, before: bool) -> io::Result<()> {
        let mut seen = 0usize;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return if before {
                    Err(self.fail("is empty or only whitespace"))
                } else {
                    Ok(())
                };
            }
            let n = buf.iter().take_while(|&&b| is_space(b)).count();
            let other = n < buf.len();
            self.inner.consume(n);
            seen += n;
            if seen > self.profile.whitespace {
                return Err(match (before, self.profile.whitespace) {
                    (false, 0) => self.fail("has data after its END line"),
                    (true, _) => self.fail("has too much whitespace before its BEGIN line"),
                    (false, _) => self.fail("has too much whitespace after its END line"),
                });
            }
            if other {
                return if before {
                    Ok(())
                } else {
                    Err(self.fail("has data after its END line"))
                };
            }
        }
    }

    fn read_begin(&mut self) -> io::Result<()> {
        if self.profile.whitespace > 0 {
            self.skip_whitespace(true)?;
        }
        // Room for another kind's longer BEGIN line, to name it in the error.
        let complete = self.read_line(self.profile.begin.len().max(126) + 2)?;
        let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let (line, crlf) = match line.strip_suffix(b"\r") {
            Some(l) => (l, true),
            None => (line, false),
        };
        if !complete || line != self.profile.begin.as_bytes() {
            let other = line
                .strip_prefix(BEGIN_PREFIX)
                .filter(|_| complete && self.profile.nexusq);
            return Err(match other {
                // The file's own words: escaped and capped.
                Some(rest) => {
                    let msg = format!(
                        "is a different kind of nexusq file ({}), expected {}",
                        crate::untrusted::escape_bytes(rest.strip_suffix(b"-----").unwrap_or(rest)),
                        self.profile.kind()
                    );
                    self.fail(msg)
                }
                None => {
                    let msg = format!("does not start with \"{}\"", self.profile.begin);
                    self.fail(msg)
                }
            });
        }
        self.crlf = crlf;
        self.state = ReaderState::Body;
        Ok(())
    }

    /// The next body line into `decoded`, or the END line (then `state` is `Done`).
    fn read_body_line(&mut self) -> io::Result<()> {
        let limit = self.profile.end.len().max(LINE) + 2;
        let complete = self.read_line(limit)?;
        let content: &[u8] = if complete {
            let body = &self.line[..self.line.len() - 1];
            match (self.crlf, body.strip_suffix(b"\r")) {
                (true, Some(b)) => b,
                (false, None) => body,
                _ => return Err(self.fail("mixes line endings or has stray line breaks")),
            }
        } else if !self.profile.nexusq && self.line == self.profile.end.as_bytes() {
            // age's END line may end the input without a line ending.
            &self.line
        } else {
            let msg = if self.line.len() >= limit {
                "has a base64 line of the wrong length".to_string()
            } else {
                format!("does not end with \"{}\" (truncated?)", self.profile.end)
            };
            return Err(self.fail(msg));
        };
        if content == self.profile.end.as_bytes() {
            if self.profile.nexusq && !self.saw_body {
                let msg = format!("does not end with \"{}\" (truncated?)", self.profile.end);
                return Err(self.fail(msg));
            }
            self.state = ReaderState::Done;
            return self.skip_whitespace(false);
        }
        if self.saw_last_line {
            return Err(self.fail("has a line after its short or padded last line"));
        }
        if content.is_empty() || content.len() > LINE {
            return Err(self.fail("has a base64 line of the wrong length"));
        }
        // Only the one canonical encoding is accepted (the same check as `decode`).
        let (decoded, n) = match decode_line(content) {
            Ok(d) => d,
            Err(LineError::Invalid) => return Err(self.fail("has invalid base64")),
            Err(LineError::NonCanonical) => return Err(self.fail("has non-canonical base64")),
        };
        self.saw_last_line = content.len() < LINE || content.last() == Some(&b'=');
        self.saw_body = true;
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
                ReaderState::Begin => self.read_begin()?,
                ReaderState::Body => self.read_body_line()?,
                ReaderState::Done => return Ok(0),
            }
        }
    }
}

/// What every nexusq armor's BEGIN line starts with.
const BEGIN_PREFIX: &[u8] = b"-----BEGIN NEXUSQ ";

/// The input replayed after sniffing: the bytes looked at, then the rest.
pub(crate) type Replay<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// Read up to `len` bytes from the start of `reader` (fewer only at its end) and hand them back
/// with a reader that yields them again, then the rest: for telling formats apart by their
/// first bytes without losing any.
pub fn peek<R: Read>(mut reader: R, len: usize) -> io::Result<(Vec<u8>, Replay<R>)> {
    let mut peeked = vec![0u8; len];
    let mut got = 0;
    while got < peeked.len() {
        match reader.read(&mut peeked[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    peeked.truncate(got);
    let replay = io::Cursor::new(peeked.clone()).chain(reader);
    Ok((peeked, replay))
}

/// Whether `prefix` starts like a nexusq BEGIN line, of any kind.
pub(crate) fn looks_armored(prefix: &[u8]) -> bool {
    prefix.starts_with(BEGIN_PREFIX)
}

/// An input that is either armored text or binary, told apart by its first bytes
/// ([`maybe_armored`]).
pub enum MaybeArmored<R: Read> {
    /// Armored text, read with [`ArmorReader`] for the expected kind.
    Armored(Box<ArmorReader<Replay<R>>>),
    /// Anything else, passed through as it is.
    Binary(Replay<R>),
}

impl<R: Read> MaybeArmored<R> {
    /// Was the input armored text?
    pub fn is_armored(&self) -> bool {
        matches!(self, MaybeArmored::Armored(_))
    }
}

impl<R: Read> Read for MaybeArmored<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            MaybeArmored::Armored(r) => r.read(buf),
            MaybeArmored::Binary(r) => r.read(buf),
        }
    }
}

/// Look at the first bytes of `reader`: an input that starts like a nexusq BEGIN line (of any
/// kind, so another kind is refused by name) is read as armor of `kind`, anything else as
/// binary. Nothing is lost: the bytes looked at are replayed. Reads at most 18 bytes here.
pub fn maybe_armored<R: Read>(reader: R, kind: &str) -> io::Result<MaybeArmored<R>> {
    let (peeked, replay) = peek(reader, BEGIN_PREFIX.len())?;
    Ok(if looks_armored(&peeked) {
        MaybeArmored::Armored(Box::new(ArmorReader::new(replay, Profile::nexusq(kind))))
    } else {
        MaybeArmored::Binary(replay)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_layout() {
        let s = encode("TEST", &[0u8; 50]);
        let lines: Vec<_> = s.lines().collect();
        assert_eq!(lines[0], "-----BEGIN NEXUSQ TEST-----");
        assert_eq!(lines[1].len(), 64);
        assert_eq!(lines.last().unwrap(), &"-----END NEXUSQ TEST-----");
        assert!(s.ends_with("-----\n"));
    }

    #[test]
    fn crlf_accepted_mixed_refused() {
        let s = encode("TEST", b"hello world");
        let crlf = s.replace('\n', "\r\n");
        assert_eq!(decode("TEST", crlf.as_bytes()).unwrap(), b"hello world");
        let mixed = s.replacen('\n', "\r\n", 1);
        assert!(decode("TEST", mixed.as_bytes()).is_err());
    }

    #[test]
    fn refuses_every_loose_variant() {
        let s = encode("TEST", &[7u8; 100]);
        let bad = [
            s.trim_end().to_string(),                                // no final newline
            format!("{s}\n"),                                        // two final newlines
            format!(" {s}"),                                         // leading space
            s.replace("NEXUSQ TEST-----\n", "NEXUSQ TEST-----\n\n"), // blank line
            s.replace("-----END", " -----END"),
            s.replace("BEGIN NEXUSQ TEST", "BEGIN NEXUSQ OTHER"),
        ];
        for (i, b) in bad.iter().enumerate() {
            assert!(
                decode("TEST", b.as_bytes()).is_err(),
                "variant {i} accepted"
            );
        }
        // Non-canonical padding bits: "AQ==" is canonical for [1]; "AR==" decodes loosely to [1].
        let loose = "-----BEGIN NEXUSQ TEST-----\nAR==\n-----END NEXUSQ TEST-----\n";
        assert!(decode("TEST", loose.as_bytes()).is_err());
        let unpadded = "-----BEGIN NEXUSQ TEST-----\nAQ\n-----END NEXUSQ TEST-----\n";
        assert!(decode("TEST", unpadded.as_bytes()).is_err());
    }

    #[test]
    fn wrong_kind_is_named() {
        let s = encode("SIGNATURE", b"x");
        let e = decode("PUBLIC IDENTITY", s.as_bytes()).unwrap_err();
        assert!(e.0.contains("SIGNATURE"), "{}", e.0);
    }

    /// A hostile first line is named escaped and capped, never echoed whole.
    #[test]
    fn hostile_first_lines_are_escaped_and_capped() {
        let hostile = format!(
            "-----BEGIN NEXUSQ \x08\x1b[2Kfingerprint: evil\u{202e}{}-----\nAQ==\n-----END NEXUSQ X-----\n",
            "\x1b[31m".repeat(100_000)
        );
        let whole = decode("PUBLIC IDENTITY", hostile.as_bytes()).unwrap_err();
        // The streaming reader looks at 128 bytes of the first line at most.
        let short = "-----BEGIN NEXUSQ \x08\x1b[2Kfingerprint: evil\u{202e}-----\nAQ==\n";
        let mut r = ArmorReader::new(short.as_bytes(), Profile::nexusq(K));
        let streamed = armor_error(&r.read(&mut [0u8; 64]).unwrap_err())
            .cloned()
            .unwrap();
        for e in [whole, streamed] {
            assert!(e.0.len() < 600, "{} bytes", e.0.len());
            assert!(
                !e.0.chars().any(crate::untrusted::is_hidden_control),
                "{:?}",
                e.0
            );
            assert!(
                e.0.contains("\\u{8}\\u{1b}[2Kfingerprint: evil\\u{202e}"),
                "{:?}",
                e.0
            );
        }
        // A first line that is not UTF-8 at all.
        let mut r = ArmorReader::new(
            &b"-----BEGIN NEXUSQ \xff\x9b-----\n"[..],
            Profile::nexusq(K),
        );
        let e = armor_error(&r.read(&mut [0u8; 8]).unwrap_err())
            .cloned()
            .unwrap();
        assert!(e.0.contains("\\xff\\x9b"), "{:?}", e.0);
    }

    proptest! {
        #[test]
        fn round_trip(data in proptest::collection::vec(any::<u8>(), 1..2000)) {
            let s = encode("X", &data);
            prop_assert_eq!(decode("X", s.as_bytes()).unwrap(), data);
        }

        #[test]
        fn every_truncation_is_refused(data in proptest::collection::vec(any::<u8>(), 1..200), cut in 0usize..1000) {
            let s = encode("X", &data);
            let cut = cut % s.len();
            prop_assert!(decode("X", &s.as_bytes()[..cut]).is_err());
        }
    }
    // -----------------------------------------------------------------------------------------
    // Streaming armor

    const K: &str = ENCRYPTED_FILE_KIND;

    fn stream_encode(data: &[u8], piece: usize) -> Vec<u8> {
        let mut w = ArmorWriter::new(Vec::new(), &Profile::nexusq(K)).unwrap();
        for p in data.chunks(piece.max(1)) {
            w.write_all(p).unwrap();
        }
        w.finish().unwrap()
    }

    /// Read everything through an `ArmorReader`, `piece` bytes per call.
    fn stream_decode(text: &[u8], piece: usize) -> Result<Vec<u8>, ArmorError> {
        let mut r = ArmorReader::new(text, Profile::nexusq(K));
        let mut out = Vec::new();
        let mut buf = vec![0u8; piece.max(1)];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return Ok(out),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => {
                    let a = armor_error(&e).cloned().expect("an armor error");
                    // Sticky: the next read fails the same way.
                    let again = r.read(&mut buf).unwrap_err();
                    assert_eq!(armor_error(&again), Some(&a));
                    return Err(a);
                }
            }
        }
    }

    #[test]
    fn streaming_writer_equals_encode() {
        for len in (0..200).chain([1000, 4800, 4801, 65536]) {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let whole = encode(K, &data);
            for piece in [1, 5, 48, 49, 1000, 100_000] {
                assert_eq!(
                    stream_encode(&data, piece),
                    whole.as_bytes(),
                    "{len}/{piece}"
                );
            }
        }
    }

    #[test]
    fn streaming_reader_round_trips_lf_and_crlf() {
        for len in (1..200).chain([4800, 4801, 65536]) {
            let data: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
            let lf = encode(K, &data);
            let crlf = lf.replace('\n', "\r\n");
            for piece in [1, 7, 48, 4096] {
                assert_eq!(stream_decode(lf.as_bytes(), piece).unwrap(), data);
                assert_eq!(stream_decode(crlf.as_bytes(), piece).unwrap(), data);
            }
        }
    }

    #[test]
    fn streaming_reader_refuses_every_loose_variant() {
        let s = encode(K, &[7u8; 100]);
        let bad = [
            s.trim_end().to_string(),
            format!("{s}\n"),
            format!("{s}x"),
            format!(" {s}"),
            format!("\u{feff}{s}"),
            s.replace("FILE-----\n", "FILE-----\n\n"),
            s.replace("-----END", " -----END"),
            s.replace("-----END", "\n-----END"),
            s.replace("BEGIN NEXUSQ ENCRYPTED FILE", "BEGIN NEXUSQ SIGNATURE"),
            s.replace("END NEXUSQ ENCRYPTED FILE", "END NEXUSQ SIGNATURE"),
            s.replacen('\n', "\r\n", 1),
            s.replacen('\n', "\r\n", 2),
            s.replace("-----\n", "-----\r\n"),
            format!("-----BEGIN NEXUSQ {K}-----\n-----END NEXUSQ {K}-----\n"),
            format!("-----BEGIN NEXUSQ {K}-----\nAR==\n-----END NEXUSQ {K}-----\n"),
            format!("-----BEGIN NEXUSQ {K}-----\nAQ\n-----END NEXUSQ {K}-----\n"),
            format!("-----BEGIN NEXUSQ {K}-----\nAQ==\nAQ==\n-----END NEXUSQ {K}-----\n"),
            format!("-----BEGIN NEXUSQ {K}-----\nAQ==AQ==\n-----END NEXUSQ {K}-----\n"),
            format!(
                "-----BEGIN NEXUSQ {K}-----\n{}\n-----END NEXUSQ {K}-----\n",
                "A".repeat(68)
            ),
            format!("-----BEGIN NEXUSQ {K}-----\n{}", "A".repeat(100_000)),
            String::new(),
        ];
        for (i, b) in bad.iter().enumerate() {
            assert!(
                decode(K, b.as_bytes()).is_err(),
                "decode accepted variant {i}"
            );
            assert!(
                stream_decode(b.as_bytes(), 64).is_err(),
                "variant {i} accepted"
            );
        }
        let other = encode("SIGNATURE", b"x");
        let e = stream_decode(other.as_bytes(), 64).unwrap_err();
        assert!(e.0.contains("SIGNATURE"), "{}", e.0);
    }

    #[test]
    fn streaming_reader_passes_device_errors_through() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let e = ArmorReader::new(Broken, Profile::nexusq(K))
            .read(&mut [0u8; 10])
            .unwrap_err();
        assert!(armor_error(&e).is_none());
        assert_eq!(e.kind(), io::ErrorKind::Other);
    }

    /// Hands out one byte per read, so sniffing must loop.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            if buf.is_empty() {
                return Ok(0);
            }
            buf[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }

    fn sniff_all(input: &[u8], kind: &str) -> (bool, io::Result<Vec<u8>>) {
        let mut r = maybe_armored(Trickle(input), kind).unwrap();
        let mut out = Vec::new();
        let armored = r.is_armored();
        (armored, r.read_to_end(&mut out).map(|_| out))
    }

    #[test]
    fn maybe_armored_tells_armor_from_binary_and_loses_nothing() {
        let data: Vec<u8> = (0..=255).collect();
        let text = encode(K, &data);
        let (armored, out) = sniff_all(text.as_bytes(), K);
        assert!(armored);
        assert_eq!(out.unwrap(), data);
        // Binary of any length, the empty input and a bare prefix of the BEGIN line pass through.
        for input in [
            &data[..],
            b"",
            b"NXQF",
            &BEGIN_PREFIX[..BEGIN_PREFIX.len() - 1],
        ] {
            let (armored, out) = sniff_all(input, K);
            assert!(!armored);
            assert_eq!(out.unwrap(), input);
        }
        // Another kind of armor is read as armor and refused by name.
        let other = encode("SIGNATURE", b"x");
        let (armored, out) = sniff_all(other.as_bytes(), K);
        assert!(armored);
        let e = out.unwrap_err();
        assert!(armor_error(&e).unwrap().0.contains("SIGNATURE"), "{e}");
        // A device error while sniffing is passed on.
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        assert!(maybe_armored(Broken, K).is_err());
    }

    proptest! {
        /// The streaming reader accepts exactly what `decode` accepts, with the same data, for
        /// armor with one byte changed, deleted or inserted.
        #[test]
        fn streaming_reader_agrees_with_decode(
            data in proptest::collection::vec(any::<u8>(), 1..300),
            crlf in any::<bool>(),
            op in 0u8..3,
            at in 0usize..1000,
            byte in prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'='), Just(b'A'), Just(b'-'), any::<u8>()],
        ) {
            let mut text = encode(K, &data).into_bytes();
            if crlf {
                text = String::from_utf8(text).unwrap().replace('\n', "\r\n").into_bytes();
            }
            let at = at % (text.len() + 1);
            match op {
                0 if at < text.len() => text[at] = byte,
                1 if at < text.len() => { text.remove(at); }
                _ => text.insert(at, byte),
            }
            let whole = decode(K, &text).ok();
            let streamed = stream_decode(&text, 33).ok();
            prop_assert_eq!(whole, streamed);
        }

        #[test]
        fn streaming_every_truncation_is_refused(
            data in proptest::collection::vec(any::<u8>(), 1..200),
            cut in 0usize..1000,
        ) {
            let s = encode(K, &data);
            let cut = cut % s.len();
            prop_assert!(stream_decode(&s.as_bytes()[..cut], 17).is_err());
        }
    }

    // -----------------------------------------------------------------------------------------
    // age's profile

    fn age_encode(data: &[u8]) -> Vec<u8> {
        let mut w = ArmorWriter::new(Vec::new(), &Profile::age()).unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap()
    }

    fn age_decode(text: &[u8]) -> Result<Vec<u8>, ArmorError> {
        let mut out = Vec::new();
        ArmorReader::new(text, Profile::age())
            .read_to_end(&mut out)
            .map_err(|e| armor_error(&e).cloned().expect("armor error"))?;
        Ok(out)
    }

    #[test]
    fn age_round_trips_lf_crlf_and_whitespace_outside() {
        for len in [0usize, 1, 47, 48, 49, 96, 1000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let lf = age_encode(&data);
            assert_eq!(age_decode(&lf).unwrap(), data);
            let crlf = String::from_utf8(lf.clone()).unwrap().replace('\n', "\r\n");
            assert_eq!(age_decode(crlf.as_bytes()).unwrap(), data);
            let mut spaced = b"\n \t\r\n".to_vec();
            spaced.extend_from_slice(&lf);
            spaced.extend_from_slice(b"\n\r\t \n");
            assert_eq!(age_decode(&spaced).unwrap(), data);
            assert!(looks_like_age(&spaced));
            let no_eol = &lf[..lf.len() - 1];
            assert_eq!(age_decode(no_eol).unwrap(), data);
        }
    }

    #[test]
    fn age_refuses_loose_variants() {
        let good = String::from_utf8(age_encode(&[9u8; 100])).unwrap();
        let bad = [
            good.replacen('\n', "\r\n", 1),
            good.replace(AGE_END, &format!(" {AGE_END}")),
            format!("x{good}"),
            format!("{good}x"),
            format!("{}{good}", " ".repeat(AGE_MAX_WHITESPACE + 1)),
            format!("{good}{}", " ".repeat(AGE_MAX_WHITESPACE + 1)),
            good.replace("CQkJ\n", "CQkJ \n"),
            good.replace(&format!("{AGE_BEGIN}\n"), &format!("{AGE_BEGIN}\n\n")),
            good[..good.len() - AGE_END.len() - 1].to_string(),
            format!("{AGE_BEGIN}\nAQ\n{AGE_END}\n"),
            format!("{AGE_BEGIN}\nAR==\n{AGE_END}\n"),
            format!("{AGE_BEGIN}\nAQ==\nAQ==\n{AGE_END}\n"),
            good.replace("BEGIN AGE", "BEGIN age"),
            " \n\t".to_string(),
        ];
        for (i, b) in bad.iter().enumerate() {
            assert!(age_decode(b.as_bytes()).is_err(), "variant {i} accepted");
        }
        // A nexusq armor is not age's, and not named as another nexusq kind either.
        let e = age_decode(encode(K, b"x").as_bytes()).unwrap_err();
        assert!(e.0.contains(AGE_BEGIN), "{}", e.0);
    }
}

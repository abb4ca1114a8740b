//! Big-endian binary encoding shared by every nexusq format.
//!
//! `Reader` never allocates on the strength of a length field: every length is checked against
//! the bytes that remain before anything is copied, so a hostile length costs nothing.
//! [`read_full`] and [`read_chunk`] are the two stream readers both file formats use.

use std::io;

/// What went wrong while decoding; callers turn it into an error with the right exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// A decoding result.
pub(crate) type DecodeResult<T> = Result<T, DecodeError>;

fn err<T>(msg: impl Into<String>) -> DecodeResult<T> {
    Err(DecodeError(msg.into()))
}

/// A cursor over borrowed bytes.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes; `what` names the field when too few remain.
    pub fn take(&mut self, n: usize, what: &str) -> DecodeResult<&'a [u8]> {
        if n > self.remaining() {
            return err(format!(
                "{what} needs {n} bytes but only {} remain (truncated?)",
                self.remaining()
            ));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// The next `N` bytes as an array.
    pub fn array<const N: usize>(&mut self, what: &str) -> DecodeResult<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self, what: &str) -> DecodeResult<u8> {
        Ok(self.take(1, what)?[0])
    }

    /// A big-endian u16.
    pub fn u16(&mut self, what: &str) -> DecodeResult<u16> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    /// A big-endian u32.
    pub fn u32(&mut self, what: &str) -> DecodeResult<u32> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    /// A big-endian u64.
    pub fn u64(&mut self, what: &str) -> DecodeResult<u64> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    /// A u32 length prefix followed by that many bytes; the length is bounded by what remains.
    pub(crate) fn bytes_u32(&mut self, what: &str) -> DecodeResult<&'a [u8]> {
        let len = self.u32(what)? as usize;
        self.take(len, what)
    }

    /// A u16 length prefix followed by that many bytes.
    pub(crate) fn bytes_u16(&mut self, what: &str) -> DecodeResult<&'a [u8]> {
        let len = self.u16(what)? as usize;
        self.take(len, what)
    }

    /// A u32 element count, bounded so that `count * min_element_len` fits in what remains.
    pub(crate) fn count_u32(&mut self, min_element_len: usize, what: &str) -> DecodeResult<usize> {
        let count = self.u32(what)? as usize;
        if count.saturating_mul(min_element_len.max(1)) > self.remaining() {
            return err(format!(
                "{what} claims {count} entries, more than the remaining {} bytes can hold",
                self.remaining()
            ));
        }
        Ok(count)
    }

    /// A u8 format version that must equal `expected`; anything else was made by a newer
    /// nexusq (or is damaged).
    pub fn version(&mut self, expected: u8, what: &str) -> DecodeResult<()> {
        let version = self.u8(what)?;
        if version != expected {
            return err(format!(
                "{what} {version} is not supported (made by a newer nexusq?)"
            ));
        }
        Ok(())
    }

    /// The next bytes must be `tag` (a format's magic).
    pub(crate) fn expect_tag(&mut self, tag: &[u8], what: &str) -> DecodeResult<()> {
        if self.take(tag.len(), what)? != tag {
            return err(format!("{what}: wrong magic bytes"));
        }
        Ok(())
    }

    /// Every format ends exactly where its last field ends.
    pub fn finish(&self, what: &str) -> DecodeResult<()> {
        if self.remaining() != 0 {
            return err(format!(
                "{} unexpected trailing bytes after {what}",
                self.remaining()
            ));
        }
        Ok(())
    }
}

/// Appends big-endian fields to a byte vector.
#[derive(Default)]
pub(crate) struct Writer {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Raw bytes, no length prefix.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }

    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// A big-endian u16.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.bytes(&v.to_be_bytes())
    }

    /// A big-endian u32.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes(&v.to_be_bytes())
    }

    /// A big-endian u64.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.bytes(&v.to_be_bytes())
    }

    /// u32 length prefix, then the bytes. Lengths above u32::MAX cannot occur in nexusq formats.
    pub(crate) fn bytes_u32(&mut self, b: &[u8]) -> &mut Self {
        self.u32(u32::try_from(b.len()).expect("field longer than 4 GiB"));
        self.bytes(b)
    }

    /// u16 length prefix, then the bytes. Panics over 64 KiB, which no nexusq field reaches.
    pub(crate) fn bytes_u16(&mut self, b: &[u8]) -> &mut Self {
        self.u16(u16::try_from(b.len()).expect("field longer than 64 KiB"));
        self.bytes(b)
    }

    /// The bytes written.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
}

// ---------------------------------------------------------------------------------------------
// Streams

/// Fill `buf` from `input` until it is full or the input ends; the number of bytes read.
pub fn read_full<R: io::Read + ?Sized>(input: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Fill `buf` with the next chunk, starting with the byte carried over from the previous call,
/// and look one byte ahead to tell whether this is the last chunk: a short chunk is always
/// last; a full one is last only when nothing follows. Returns (bytes in `buf`, last).
pub fn read_chunk<R: io::Read + ?Sized>(
    input: &mut R,
    buf: &mut [u8],
    carry: &mut Option<u8>,
) -> io::Result<(usize, bool)> {
    let mut filled = 0;
    if let Some(b) = carry.take() {
        buf[0] = b;
        filled = 1;
    }
    filled += read_full(input, &mut buf[filled..])?;
    if filled < buf.len() {
        return Ok((filled, true));
    }
    let mut one = [0u8; 1];
    if read_full(input, &mut one)? == 1 {
        *carry = Some(one[0]);
        return Ok((filled, false));
    }
    Ok((filled, true))
}

/// A payload opened in place chunk by chunk (nexusq's STREAM and age's), for
/// [`ChunkReader`].
pub trait Chunks {
    /// Why a chunk could not be opened.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Open (authenticate and decrypt) the next chunk: `Some(n)` when its plaintext is the
    /// first `n` bytes of [`Chunks::opened`], `None` after the final chunk.
    fn open_next(&mut self) -> Result<Option<usize>, Self::Error>;

    /// The buffer the last chunk was opened in.
    fn opened(&self) -> &[u8];
}

/// [`Chunks`] as a reader: a chunk's bytes are given out only once it has been opened, the
/// end only after the final chunk, and a failure is an `io::Error` that carries the chunk's
/// error (`io::Error::get_ref` and a downcast take it back out).
pub struct ChunkReader<C> {
    chunks: C,
    /// The opened plaintext not read yet: `opened()[start..end]`.
    start: usize,
    end: usize,
}

impl<C> ChunkReader<C> {
    /// Read `chunks`' plaintext.
    pub fn new(chunks: C) -> ChunkReader<C> {
        ChunkReader {
            chunks,
            start: 0,
            end: 0,
        }
    }
}

impl<C: Chunks> io::Read for ChunkReader<C> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.start == self.end {
            match self.chunks.open_next() {
                Ok(Some(len)) => (self.start, self.end) = (0, len),
                Ok(None) => return Ok(0),
                Err(e) => return Err(io::Error::other(e)),
            }
        }
        let n = out.len().min(self.end - self.start);
        out[..n].copy_from_slice(&self.chunks.opened()[self.start..self.start + n]);
        self.start += n;
        Ok(n)
    }
}

impl<C: std::fmt::Debug> std::fmt::Debug for ChunkReader<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.chunks.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hostile_lengths_are_refused_before_copying() {
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff, 1, 2]);
        assert!(r.bytes_u32("blob").is_err());
        let mut r = Reader::new(&[0x40, 0, 0, 0, 1]);
        assert!(r.count_u32(1, "list").is_err());
    }

    #[test]
    fn finish_rejects_trailing_bytes() {
        let mut r = Reader::new(&[1, 2]);
        r.u8("a").unwrap();
        assert!(r.finish("x").is_err());
    }

    proptest! {
        #[test]
        fn fields_round_trip(a: u8, b: u16, c: u32, d: u64, blob in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut w = Writer::new();
            w.u8(a).u16(b).u32(c).u64(d).bytes_u32(&blob).bytes_u16(&blob);
            let buf = w.into_inner();
            let mut r = Reader::new(&buf);
            prop_assert_eq!(r.u8("a").unwrap(), a);
            prop_assert_eq!(r.u16("b").unwrap(), b);
            prop_assert_eq!(r.u32("c").unwrap(), c);
            prop_assert_eq!(r.u64("d").unwrap(), d);
            prop_assert_eq!(r.bytes_u32("e").unwrap(), &blob[..]);
            prop_assert_eq!(r.bytes_u16("f").unwrap(), &blob[..]);
            prop_assert!(r.finish("all").is_ok());
        }

        #[test]
        fn reader_never_panics(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut r = Reader::new(&data);
            let _ = r.u16("a");
            let _ = r.bytes_u32("b");
            let _ = r.count_u32(8, "c");
            let _ = r.bytes_u16("d");
        }
    }
}

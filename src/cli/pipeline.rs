//! The data side of `encrypt` and `decrypt`, one pipeline for nexusq's format and age's: the
//! input (a file or stdin), the output (a regular file all or nothing, stdout or a device as it
//! goes, a terminal only as plain text), armor, and what a failure half-way through says
//! (docs/cli.md, "Outputs, files and modes"; docs/file-encryption.md, section 4). The formats
//! themselves are `nexusq_core::format`; the format-specific halves of the commands (whom to
//! encrypt to, which key opens a header) are `crypt_cmd` and `age_cmd`.

use super::Context;
use super::error::{Error, Result};
use super::io as cio;
use super::output::TerminalGuard;

use nexusq_core::fs::Access;
use nexusq_core::fs::paths::folder_is_shared_storage;
use serde_json::Value;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

/// `--json` prints one object on stdout, which is impossible when the data goes there.
pub(super) fn refuse_json_to_stdout(
    ctx: &Context,
    output: Option<&Path>,
    command: &str,
) -> Result<()> {
    if ctx.global.json && cio::is_stdio(output) {
        return Err(Error::usage(
            format!("`{command} --json` needs -o FILE: stdout carries the data"),
            "pass -o FILE to get the JSON summary, or drop --json",
        ));
    }
    Ok(())
}

/// The error for a failed write of the output: refused at a terminal, or an I/O error.
pub(super) fn write_error(e: &std::io::Error, output: Option<&Path>) -> Error {
    if let Some(found) = super::output::refused_on_terminal(e) {
        return Error::usage(
            format!(
                "refusing to show the decrypted data on the terminal: it holds {} (at byte {}), \
                 which could make the terminal show something else or act on it",
                found.what, found.offset
            ),
            "pass -o FILE to save it, or -o - to print it anyway",
        );
    }
    match output {
        Some(p) if !cio::is_stdio(Some(p)) => Error::io_at("write", p, e),
        _ => Error::stdout_write(e, "check where the output goes"),
    }
}

/// What a finished encryption or decryption wrote.
pub(super) struct Written<'a> {
    /// Bytes of plaintext read (encrypt) or written (decrypt).
    pub(super) bytes: u64,
    /// The input as the user named it ("stdin" for standard input).
    pub(super) input_name: String,
    /// The `-o` path, when the output went to it rather than to stdout.
    pub(super) file: Option<&'a Path>,
}

impl Written<'_> {
    /// Where the output went, for a note: the file, or "stdout".
    pub(super) fn output_name(&self) -> String {
        match self.file {
            Some(p) => p.display().to_string(),
            None => "stdout".into(),
        }
    }

    /// The `--json` summary, printed only when the output is a file (stdout carries the data):
    /// `output` and `bytes`, then the command's own `fields`.
    pub(super) fn json(&self, ctx: &Context, fields: Value) {
        let Some(out) = self.file else { return };
        let mut j = serde_json::json!({
            "output": out.display().to_string(),
            "bytes": self.bytes,
        });
        if let (Some(o), Value::Object(f)) = (j.as_object_mut(), fields) {
            o.extend(f);
        }
        super::output::path_bytes(&mut j, &[("output", out)]);
        ctx.out.json(&j);
    }
}

/// Encrypt `input` to `output` with `run` (which writes its own armor): `binary` output is
/// refused at a terminal unless forced. A file output appears only when all of it is
/// written.
pub(super) fn encrypt<'a>(
    input: Option<&Path>,
    output: Option<&'a Path>,
    binary: bool,
    run: impl FnOnce(&mut dyn Read, &mut dyn Write, &str) -> Result<u64>,
) -> Result<Written<'a>> {
    let input_name = cio::input_name(input);
    let mut reader = cio::open_input(input)?;
    let mut sink = cio::create_output(output, binary, Access::Private)?;
    let bytes = run(&mut reader, &mut sink, &input_name)?;
    let to_file = sink.is_file();
    sink.commit()?;
    Ok(Written {
        bytes,
        input_name,
        file: output.filter(|_| to_file),
    })
}

/// Copy a decrypted plaintext to `out`: a failed read is the plaintext's error (`read_error`
/// says which), a failed write the output's ([`write_error`]). Returns the bytes copied.
pub(super) fn copy_plaintext(
    plaintext: &mut dyn Read,
    out: &mut dyn Write,
    output: Option<&Path>,
    read_error: impl Fn(std::io::Error) -> Error,
) -> Result<u64> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match plaintext.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(e)),
        };
        out.write_all(&buf[..n])
            .map_err(|e| write_error(&e, output))?;
        total += n as u64;
    }
}

/// Write the plaintext of an opened file to `output`. `run` decrypts the payload into the
/// writer it is given, its errors already in the user's words. A regular file appears only
/// when every chunk authenticated; stdout, a device or a FIFO receive each chunk once it has,
/// and a failure then says how many bytes went out before it. At a terminal the plaintext
/// goes only as plain text (anyone who can encrypt to us chooses it); `-o -` forces it.
pub(super) fn decrypt<'a>(
    ctx: &Context,
    input_name: &str,
    output: Option<&'a Path>,
    run: impl FnOnce(&mut dyn Write) -> Result<u64>,
) -> Result<Written<'a>> {
    if let Some(p) = output.filter(|p| !cio::is_stdio(Some(p)))
        && folder_is_shared_storage(p)
    {
        ctx.out.warn(&format!(
            "{} is in Android shared storage, where other apps can read the plaintext",
            super::output::untrusted_path(p)
        ));
    }
    let sink = cio::create_output(output, false, Access::Private)?;
    let to_file = sink.is_file();
    let all_or_nothing = sink.is_all_or_nothing();
    let mut out = Counted {
        inner: terminal_guard(sink, output),
        written: 0,
    };
    match run(&mut out) {
        Ok(bytes) => {
            out.inner.into_inner().commit()?;
            Ok(Written {
                bytes,
                input_name: input_name.to_string(),
                file: output.filter(|_| to_file),
            })
        }
        Err(err) => {
            let written = (!all_or_nothing).then(|| {
                // Whatever authenticated is out; make the count true.
                let _ = out.flush();
                out.written
            });
            // A file output is dropped uncommitted: its temporary file is removed.
            drop(out);
            Err(match written {
                Some(n) => partial_stdout(err, n, output),
                None => err,
            })
        }
    }
}

/// To a terminal (stdout, or an `-o` path such as /dev/tty) the plaintext goes only as plain
/// text, checked chunk by chunk before each is written; `-o -` forces it through.
fn terminal_guard(sink: cio::Sink, output: Option<&Path>) -> TerminalGuard<cio::Sink> {
    let on_terminal = match (&sink, output) {
        (cio::Sink::Stdout(_), None) => std::io::stdout().is_terminal(),
        (cio::Sink::Stdout(_), Some(_)) => false,
        (cio::Sink::File { out, .. }, _) => out.is_terminal(),
    };
    TerminalGuard::new(sink, on_terminal)
}

/// Counts what reached the output, to say how much of it a late failure concerns.
struct Counted<W: Write> {
    inner: W,
    written: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Say that `n` authentic bytes already went out (to stdout, or to an output that is not a
/// regular file) before the error, when there were any.
pub(super) fn partial_stdout(err: Error, n: u64, output: Option<&Path>) -> Error {
    if n == 0 || err.is_broken_pipe() {
        return err;
    }
    let to = match output {
        Some(p) if !cio::is_stdio(Some(p)) => p.display().to_string(),
        _ => "stdout".into(),
    };
    Error::new(
        err.exit(),
        format!(
            "{}; {n} bytes of authentic plaintext before the problem were already written to \
             {to}: they are not the whole file",
            err.message()
        ),
        format!(
            "{}; use -o FILE (a regular file) to get all or nothing",
            err.hint()
        ),
    )
}

/// Would one signature go to a terminal that did not ask for it (no `-o`, no `--json`, stdout
/// a terminal)? A signature is 5-10 KB of armor, so then a named FILE gets FILE.sig beside it
/// as several files do (true), and stdin, which has no name to put it beside, is refused with
/// the way to write it (docs/signature-format.md).
pub(super) fn unasked_terminal_output(
    ctx: &Context,
    output: Option<&Path>,
    input: Option<&PathBuf>,
) -> Result<bool> {
    if output.is_some() || ctx.global.json || !std::io::stdout().is_terminal() {
        return Ok(false);
    }
    match input {
        Some(file) if !cio::is_stdio(Some(file)) => Ok(true),
        _ => Err(Error::usage(
            "not printing a signature of several kilobytes of armor to the terminal",
            "write it to a file with -o SIG, or print it anyway with -o -",
        )),
    }
}

//! Files and streams for the commands: bounded reads of small inputs, FILE-or-stdin inputs,
//! and outputs that appear only when complete (temporary file, then rename).

use crate::error::{Error, Result};
use crate::vault::storage::parent_folder;
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Largest export, signature or envelope nexusq reads (they are tens of KiB).
pub const SMALL_FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// Read a small input file whole; anything larger than `SMALL_FILE_LIMIT` is not what the
/// caller expects (exit 1).
pub fn read_small(path: &Path, what: &str) -> Result<Vec<u8>> {
    let file = File::open(path).map_err(|e| Error::io_at(&format!("read {what}"), path, &e))?;
    let mut bytes = Vec::new();
    file.take(SMALL_FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io_at(&format!("read {what}"), path, &e))?;
    if bytes.len() as u64 > SMALL_FILE_LIMIT {
        return Err(Error::check(
            format!("{} is too large to be {what}", path.display()),
            "check that you passed the right file",
        ));
    }
    Ok(bytes)
}

/// `-`, or no path at all, means stdin (or stdout for an output).
pub fn is_stdio(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p == Path::new("-"))
}

/// How messages name an input: its path, or "stdin".
pub fn input_name(path: Option<&Path>) -> String {
    match path {
        Some(p) if !is_stdio(Some(p)) => p.display().to_string(),
        _ => "stdin".into(),
    }
}

/// `FILE`, or stdin for `-` / nothing.
pub fn open_input(path: Option<&Path>) -> Result<Box<dyn Read>> {
    match path {
        None => Ok(Box::new(std::io::stdin().lock())),
        Some(p) if p == Path::new("-") => Ok(Box::new(std::io::stdin().lock())),
        Some(p) => {
            let f = File::open(p).map_err(|e| Error::io_at("read", p, &e))?;
            if f.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(Error::usage(
                    format!("{} is a folder", p.display()),
                    "pass a file",
                ));
            }
            Ok(Box::new(f))
        }
    }
}

/// Where a command's output goes. A file output is written to a temporary file beside it
/// and renamed into place by [`Sink::commit`]; dropped uncommitted, it leaves nothing behind.
pub enum Sink {
    Stdout(std::io::Stdout),
    File {
        tmp: PathBuf,
        target: PathBuf,
        file: Option<File>,
    },
}

/// `-o FILE`, `-o -` (stdout, even a terminal) or nothing (stdout). Binary output to a
/// terminal is refused unless forced with `-o -`.
pub fn create_output(path: Option<&Path>, binary: bool) -> Result<Sink> {
    match path {
        Some(p) if p == Path::new("-") => Ok(Sink::Stdout(std::io::stdout())),
        None => {
            if binary && std::io::stdout().is_terminal() {
                return Err(Error::usage(
                    "refusing to write binary data to the terminal",
                    "redirect it, pass -o FILE, use --armor for text, or -o - to force it",
                ));
            }
            Ok(Sink::Stdout(std::io::stdout()))
        }
        Some(p) => {
            let tmp = crate::vault::atomic::temp_path(p);
            let file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)
                .map_err(|e| Error::io_at("create", &tmp, &e))?;
            Ok(Sink::File {
                tmp,
                target: p.to_path_buf(),
                file: Some(file),
            })
        }
    }
}

impl Sink {
    pub fn is_file(&self) -> bool {
        matches!(self, Sink::File { .. })
    }

    /// Make the output final: flush stdout, or fsync and rename the temporary file.
    pub fn commit(mut self) -> Result<()> {
        match &mut self {
            Sink::Stdout(s) => s.flush().map_err(|e| {
                Error::io(
                    format!("cannot write to stdout: {e}"),
                    "check where the output goes",
                )
            }),
            Sink::File { tmp, target, file } => {
                let f = file.take().expect("committed once");
                f.sync_all().map_err(|e| Error::io_at("sync", tmp, &e))?;
                drop(f);
                std::fs::rename(&*tmp, &*target)
                    .map_err(|e| Error::io_at("replace", target, &e))?;
                if let Ok(dir) = File::open(parent_folder(target)) {
                    let _ = dir.sync_all();
                }
                // Renamed: nothing left to clean up.
                *tmp = PathBuf::new();
                Ok(())
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::File { file, .. } => file.as_mut().expect("open until commit").write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::File { file, .. } => file.as_mut().map_or(Ok(()), |f| f.flush()),
        }
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Sink::File { tmp, .. } = self
            && !tmp.as_os_str().is_empty()
        {
            let _ = std::fs::remove_file(&*tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_sink_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        let mut sink = create_output(Some(&target), true).unwrap();
        sink.write_all(b"partial").unwrap();
        assert!(!target.exists());
        drop(sink);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "temp file left behind"
        );
        let mut sink = create_output(Some(&target), true).unwrap();
        sink.write_all(b"whole").unwrap();
        sink.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"whole");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

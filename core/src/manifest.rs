//! `sha256sum` manifests (a release's SHA256SUMS): reading one strictly, and checking the files
//! it lists. `nexusq sign --manifest` / `verify --manifest` sign and check the manifest itself
//! as any file; this module is the format and the per-file check (docs/signature-format.md §7).
//!
//! A line is `<64 hex digits> <space> <space or *> <name> LF`, as GNU `sha256sum` writes it
//! (text or binary mode; both hash the bytes). A name holding a backslash or a line break is
//! written with a leading `\` and `\\`, `\n`, `\r` escapes. Names are relative paths below
//! the manifest's folder: absolute names and `..` are refused, and a listed file is opened
//! beneath the folder ([`Folder`]), so a manifest cannot make the verifier read outside it.
//!
//! Nothing here holds a manifest's entries all at once: [`entries`] parses one line at a time
//! and [`validate`] keeps only a hash of each name, so memory grows with the manifest's bytes
//! (at most 16 MiB, which the signature covers) and little else (docs/robustness.md).

use crate::fs::input::{self, OpenError};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

/// The most lines a manifest may have.
pub(crate) const MAX_ENTRIES: usize = 1_000_000;

/// One line of a manifest: a hash and the name of the file it is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The file's SHA-256 as listed.
    pub sha256: [u8; 32],
    /// The name as listed (unescaped), a relative path.
    pub name: PathBuf,
}

/// Why a manifest was refused: the line (1-based) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

/// The entries of a manifest, parsed one line at a time, in order. A malformed line is the
/// last item (its error). Names listed twice are not looked for: [`validate`] does that.
pub struct Entries<'a> {
    rest: &'a [u8],
    line: usize,
    done: bool,
}

/// Parse `text` lazily (see [`Entries`]).
pub fn entries(text: &[u8]) -> Entries<'_> {
    Entries {
        rest: text.strip_suffix(b"\n").unwrap_or(text),
        line: 0,
        done: false,
    }
}

impl Iterator for Entries<'_> {
    type Item = Result<Entry, ManifestError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let err = |line: usize, why: &str| {
            Some(Err(ManifestError {
                line,
                why: why.into(),
            }))
        };
        if self.line == 0 && self.rest.is_empty() {
            self.done = true;
            return err(1, "the manifest is empty");
        }
        self.line += 1;
        let line = match self.rest.iter().position(|&b| b == b'\n') {
            Some(end) => {
                let (line, rest) = (&self.rest[..end], &self.rest[end + 1..]);
                self.rest = rest;
                line
            }
            None => {
                self.done = true;
                self.rest
            }
        };
        if self.line > MAX_ENTRIES {
            self.done = true;
            return err(self.line, "the manifest lists more than a million files");
        }
        match parse_line(line) {
            Ok(entry) => Some(Ok(entry)),
            Err(why) => {
                self.done = true;
                err(self.line, why)
            }
        }
    }
}

/// Check a whole manifest without keeping its entries: every line well formed, no name listed
/// twice (found through a set of the names' SHA-256, not the names). The number of entries.
pub fn validate(text: &[u8]) -> Result<usize, ManifestError> {
    let mut seen = std::collections::HashSet::new();
    let mut count = 0;
    for entry in entries(text) {
        let entry = entry?;
        count += 1;
        if !seen.insert(name_key(&entry.name)) {
            return Err(ManifestError {
                line: count,
                why: "this name is listed twice".into(),
            });
        }
    }
    Ok(count)
}

/// A name's identity as `Path` equality sees it (by components: `a//b` is `a/b`): the SHA-256
/// of its components, each followed by `/` (which no component holds; a leading `./`, which
/// `Path` keeps, is the component `.`).
fn name_key(name: &Path) -> [u8; 32] {
    let mut h = Sha256::new();
    for c in name.components() {
        match c {
            Component::Normal(part) => h.update(part.as_encoded_bytes()),
            _ => h.update(c.as_os_str().as_encoded_bytes()),
        }
        h.update(b"/");
    }
    h.finalize().into()
}

fn parse_line(line: &[u8]) -> Result<Entry, &'static str> {
    let (escaped, line) = match line.strip_prefix(b"\\") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    if line.len() < 67 || line[64] != b' ' || !matches!(line[65], b' ' | b'*') {
        return Err("not a sha256sum line (<64 hex digits>, two spaces or \" *\", the name)");
    }
    let mut sha256 = [0u8; 32];
    hex_decode(&line[..64], &mut sha256).ok_or("the hash is not 64 hexadecimal digits")?;
    let raw = &line[66..];
    let name = if escaped {
        unescape(raw).ok_or("the name has an unknown backslash escape")?
    } else {
        raw.to_vec()
    };
    if name.contains(&0) || (name.contains(&b'\r') && !escaped) {
        return Err("the name holds a NUL or carriage-return byte");
    }
    use std::os::unix::ffi::OsStringExt;
    let name = PathBuf::from(std::ffi::OsString::from_vec(name));
    if !name
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        || name.components().next().is_none()
    {
        return Err("the name is absolute or climbs out of the manifest's folder (..)");
    }
    Ok(Entry { sha256, name })
}

fn hex_decode(hex: &[u8], out: &mut [u8; 32]) -> Option<()> {
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    for (o, pair) in out.iter_mut().zip(hex.chunks(2)) {
        *o = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(())
}

fn unescape(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut it = raw.iter();
    while let Some(&b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        out.push(match it.next()? {
            b'\\' => b'\\',
            b'n' => b'\n',
            b'r' => b'\r',
            _ => return None,
        });
    }
    Some(out)
}

/// SHA-256 of a stream, in 64 KiB pieces (constant memory).
pub(crate) fn sha256_reader(input: impl Read) -> std::io::Result<[u8; 32]> {
    Ok(crate::identity::signature::stream_hash::<Sha256>(input)?.into())
}

/// Where an entry's file is: its name below the manifest's folder.
pub fn path_of(manifest: &Path, entry: &Entry) -> PathBuf {
    manifest.parent().unwrap_or(Path::new("")).join(&entry.name)
}

/// Why a listed file does not check.
#[derive(Debug)]
pub enum FileProblem {
    /// It was not opened: missing or unreadable, not a regular file (a FIFO, a device, a
    /// folder), or reached through a symbolic link that leaves the manifest's folder.
    Open(OpenError),
    /// Reading it failed.
    Read(std::io::Error),
    /// Its SHA-256 is not the one listed.
    Modified,
}

/// The folder a manifest's names are relative to, opened once: its own path may go through
/// links (the user typed it); the names below it may not leave it ([`input::open_beneath`]).
pub struct Folder {
    fd: OwnedFd,
}

impl Folder {
    /// The folder of the manifest at `manifest`.
    pub fn of(manifest: &Path) -> std::io::Result<Folder> {
        Ok(Folder {
            fd: input::open_folder(crate::fs::parent_folder(manifest))?,
        })
    }

    /// Check one listed file: a regular file beneath the folder whose SHA-256 is the listed
    /// one. Never waits on a FIFO or a device.
    pub fn check(&self, entry: &Entry) -> Result<(), FileProblem> {
        let file = input::open_beneath(self.fd.as_fd(), &entry.name).map_err(FileProblem::Open)?;
        let sha256 = sha256_reader(file).map_err(FileProblem::Read)?;
        if sha256 == entry.sha256 {
            Ok(())
        } else {
            Err(FileProblem::Modified)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    /// Every entry, or the first error.
    fn parse(text: &[u8]) -> Result<Vec<Entry>, ManifestError> {
        validate(text)?;
        entries(text).collect()
    }

    #[test]
    fn reads_what_sha256sum_writes() {
        let text = format!("{H}  a.txt\n{H} *dir/b.bin\n\\{H}  new\\nline\\\\x\n");
        assert_eq!(validate(text.as_bytes()), Ok(3));
        let e = parse(text.as_bytes()).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].name, Path::new("a.txt"));
        assert_eq!(e[1].name, Path::new("dir/b.bin"));
        assert_eq!(e[2].name, Path::new("new\nline\\x"));
        assert_eq!(e[0].sha256, sha256_reader(&b""[..]).unwrap());
        assert_eq!(
            path_of(Path::new("rel/SUMS"), &e[1]),
            Path::new("rel/dir/b.bin")
        );
        // Without the final line ending too.
        assert_eq!(parse(format!("{H}  a").as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn refuses_what_it_cannot_trust() {
        for (text, line) in [
            (String::new(), 1),
            (format!("{H}  a\n\n"), 2),
            (format!("{H} a\n"), 1),
            (format!("{}  a\n", &H[..63]), 1),
            (format!("{}g  a\n", &H[..63]), 1),
            (format!("{H}  /etc/passwd\n"), 1),
            (format!("{H}  ../up\n"), 1),
            (format!("{H}  a/../../up\n"), 1),
            (format!("{H}  a\n{H}  a\n"), 2),
            (format!("\\{H}  bad\\q\n"), 1),
            (format!("SHA256 (a) = {H}\n"), 1),
        ] {
            let e = parse(text.as_bytes()).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e:?}");
        }
    }

    #[test]
    fn entries_come_one_line_at_a_time_and_stop_at_the_first_bad_line() {
        let text = format!("{H}  a\n{H}  b\nnot a line\n{H}  c\n");
        let mut it = entries(text.as_bytes());
        assert_eq!(it.next().unwrap().unwrap().name, Path::new("a"));
        assert_eq!(it.next().unwrap().unwrap().name, Path::new("b"));
        assert_eq!(it.next().unwrap().unwrap_err().line, 3);
        assert!(it.next().is_none());
        assert_eq!(validate(text.as_bytes()).unwrap_err().line, 3);
        // The same name spelt twice (as `Path` compares them) is one name listed twice.
        let twice = format!("{H}  d/x\n{H}  y\n{H}  d//x/\n");
        assert_eq!(validate(twice.as_bytes()).unwrap_err().line, 3);
        let distinct = format!("{H}  d/x\n{H}  dx\n{H}  ./d/x\n");
        assert_eq!(validate(distinct.as_bytes()), Ok(3));
    }

    #[test]
    fn listed_files_are_regular_files_inside_the_folder() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let rel = dir.path().join("rel");
        std::fs::create_dir(&rel).unwrap();
        std::fs::write(rel.join("a"), b"").unwrap();
        std::fs::write(rel.join("b"), b"changed").unwrap();
        std::fs::write(dir.path().join("secret"), b"").unwrap();
        symlink(dir.path(), rel.join("up")).unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, rel.join("p"), rustix::fs::Mode::RUSR).unwrap();
        let text = format!("{H}  a\n{H}  b\n{H}  up/secret\n{H}  p\n{H}  gone\n");
        let folder = Folder::of(&rel.join("SUMS")).unwrap();
        let got: Vec<_> = entries(text.as_bytes())
            .map(|e| folder.check(&e.unwrap()))
            .collect();
        assert!(got[0].is_ok());
        assert!(matches!(got[1], Err(FileProblem::Modified)));
        assert!(
            matches!(
                got[2],
                Err(FileProblem::Open(OpenError::Outside | OpenError::Link))
            ),
            "{:?}",
            got[2]
        );
        assert!(matches!(
            got[3],
            Err(FileProblem::Open(OpenError::NotRegular(input::Kind::Fifo)))
        ));
        assert!(matches!(got[4], Err(FileProblem::Open(OpenError::Io(_)))));
    }
}

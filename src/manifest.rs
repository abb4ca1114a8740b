//! `sha256sum` manifests (a release's SHA256SUMS): reading one strictly, and checking a file
//! against its line. `nexusq sign --manifest` / `verify --manifest` sign and check the
//! manifest itself as any file; this module is only the format (docs/signature-format.md §7).
//!
//! A line is `<64 hex digits> <space> <space or *> <name> LF`, as GNU `sha256sum` writes it
//! (text or binary mode; both hash the bytes). A name holding a backslash or a line break is
//! written with a leading `\` and `\\`, `\n`, `\r` escapes. Names are relative paths below
//! the manifest's folder: absolute names and `..` are refused, so a manifest cannot make the
//! verifier read outside it.

use sha2::Sha256;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The most lines a manifest may have.
pub const MAX_ENTRIES: usize = 1_000_000;

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
    pub line: usize,
    pub why: String,
}

/// Parse a whole manifest. Every line must be well formed; names must be unique.
pub fn parse(text: &[u8]) -> Result<Vec<Entry>, ManifestError> {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    if body.is_empty() {
        return Err(ManifestError {
            line: 1,
            why: "the manifest is empty".into(),
        });
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        let err = |why: &str| ManifestError {
            line: i + 1,
            why: why.into(),
        };
        if entries.len() >= MAX_ENTRIES {
            return Err(err("the manifest lists more than a million files"));
        }
        let entry = parse_line(line).map_err(err)?;
        if !seen.insert(entry.name.clone()) {
            return Err(err("this name is listed twice"));
        }
        entries.push(entry);
    }
    Ok(entries)
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
pub fn sha256_reader(input: impl Read) -> std::io::Result<[u8; 32]> {
    Ok(crate::identity::signature::stream_hash::<Sha256>(input)?.into())
}

/// Where an entry's file is: its name below the manifest's folder.
pub fn path_of(manifest: &Path, entry: &Entry) -> PathBuf {
    manifest.parent().unwrap_or(Path::new("")).join(&entry.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    #[test]
    fn reads_what_sha256sum_writes() {
        let text = format!("{H}  a.txt\n{H} *dir/b.bin\n\\{H}  new\\nline\\\\x\n");
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
}

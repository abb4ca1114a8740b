//! Crash-safe replacement of a file: write `<file>.tmp.<random>` (create-new, 0600) in the same
//! folder, fsync it, rename it over the target, fsync the folder. A process killed at any
//! instant leaves the old file or the new one, whole. The caller holds the vault lock.

use crate::error::{Error, Result};
use crate::secret::random_array;
use crate::vault::storage::parent_folder;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// `<target>.tmp.<16 random hex digits>`, beside the target.
pub fn temp_path(target: &Path) -> PathBuf {
    let suffix: [u8; 8] = random_array();
    let hex: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let mut name = target.as_os_str().to_os_string();
    name.push(format!(".tmp.{hex}"));
    PathBuf::from(name)
}

/// Create `path` with mode 0600, failing if it exists; for files that must never replace
/// another (the revocation statement written by init).
pub fn create_new_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io_at("create", path, &e))?;
    let written = f.write_all(bytes).and_then(|_| f.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(path);
        return Err(Error::io_at("write", path, &e));
    }
    Ok(())
}

/// Atomically replace (or create) `target` with `bytes`: the vault, and exports with `-o`
/// (scripts re-export to the same file).
pub fn replace(target: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(target);
    let result = write_then_rename(&tmp, target, bytes);
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_then_rename(tmp: &Path, target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(tmp)
        .map_err(|e| Error::io_at("create the temporary file", tmp, &e))?;
    f.write_all(bytes)
        .map_err(|e| Error::io_at("write", tmp, &e))?;
    f.sync_all().map_err(|e| Error::io_at("sync", tmp, &e))?;
    drop(f);
    std::fs::rename(tmp, target).map_err(|e| Error::io_at("replace", target, &e))?;
    let folder = parent_folder(target);
    File::open(folder)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io_at("sync the folder", folder, &e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_whole_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("v.nxq");
        replace(&target, b"one").unwrap();
        replace(&target, b"two").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn failure_removes_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        // Renaming a file over a non-empty directory fails after the temp file was written.
        let target = dir.path().join("occupied");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("x"), b"x").unwrap();
        assert!(replace(&target, b"data").is_err());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("occupied")]);
    }

    #[test]
    fn create_new_refuses_existing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.asc");
        create_new_private(&p, b"a").unwrap();
        assert!(create_new_private(&p, b"b").is_err());
        assert_eq!(std::fs::read(&p).unwrap(), b"a");
    }
}

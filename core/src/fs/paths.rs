//! Paths in general: a file's folder, where a chain of symbolic links ends, and Android shared
//! storage (docs/vault-format.md, section 11). Plain functions over paths, so they are tested on
//! any host.

use std::io;
use std::path::{Component, Path, PathBuf};

/// Folders that other Android apps can read (the FUSE and sdcardfs views of the same storage
/// included). Decided on the realpath, so symlinks such as Termux's `~/storage/shared` are
/// caught.
pub(crate) const SHARED_STORAGE_ROOTS: [&str; 8] = [
    "/storage",
    "/sdcard",
    "/mnt/sdcard",
    "/mnt/media_rw",
    "/data/media",
    "/mnt/user",
    "/mnt/runtime",
    "/mnt/pass_through",
];

/// Adopted storage (an SD card formatted as internal): `/mnt/expand/<volume uuid>/media`.
const EXPAND: &str = "/mnt/expand";

/// Is this already-resolved path inside Android shared storage?
pub fn is_shared_storage(realpath: &Path) -> bool {
    if SHARED_STORAGE_ROOTS
        .iter()
        .any(|root| realpath.starts_with(root))
    {
        return true;
    }
    // /mnt/expand/*/media: the volume folder itself holds app data, which is private.
    realpath.strip_prefix(EXPAND).is_ok_and(|rest| {
        let mut c = rest.components();
        matches!(c.next(), Some(Component::Normal(_)))
            && c.next() == Some(Component::Normal("media".as_ref()))
    })
}

/// Resolve `path` itself (its symbolic links, then its folder) and decide whether it is
/// shared storage. A folder that cannot be resolved is judged by the path as given.
pub fn folder_is_shared_storage(path: &Path) -> bool {
    let path = resolve_links(path).unwrap_or_else(|_| path.to_path_buf());
    let folder = parent_folder(&path);
    match std::fs::canonicalize(folder) {
        Ok(real) => is_shared_storage(&real),
        Err(_) => is_shared_storage(&path),
    }
}

/// The folder a file lives in; "." for a bare file name.
pub fn parent_folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Most links followed before giving up (Linux's limit).
const MAX_LINKS: usize = 40;

/// Where `path` ends after following its symbolic links (the last component's, hop by hop):
/// the path itself when it is no link. The end need not exist (a dangling link names the file
/// to create). The folders on the way are not resolved, so a relative path stays relative.
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let next = std::fs::read_link(&p)?;
                p = if next.is_absolute() {
                    next
                } else {
                    parent_folder(&p).join(next)
                };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from(rustix::io::Errno::LOOP))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_storage_roots() {
        for p in [
            "/storage/emulated/0/vault.nxq",
            "/sdcard/Download/x",
            "/mnt/media_rw/ABCD-1234/v",
            "/data/media/0/v",
            "/storage",
            "/mnt/user/0/emulated/0/v",
            "/mnt/runtime/default/emulated/0/v",
            "/mnt/runtime/write/emulated/0/v",
            "/mnt/pass_through/0/emulated/0/v",
            "/mnt/expand/0123-4567-89ab/media/0/v",
            "/mnt/expand/0123-4567-89ab/media",
        ] {
            assert!(is_shared_storage(Path::new(p)), "{p}");
        }
        for p in [
            "/data/data/com.termux/files/home/.local/share/nexusq/vault.nxq",
            "/storagex/v",
            "/home/u/sdcard/v",
            "/tmp/v",
            "/mnt/userdata/v",
            "/mnt/expand/0123-4567-89ab/user/0/com.termux/files/home/v",
            "/mnt/expand/media/v",
            "/mnt/expand/0123/mediax/v",
        ] {
            assert!(!is_shared_storage(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn symlink_into_shared_storage_is_resolved() {
        // A symlinked folder is judged by where it points. Simulated with a temp dir standing in
        // for the target: the link's realpath is the temp dir, not shared.
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        assert!(!folder_is_shared_storage(&link.join("vault.nxq")));
    }

    #[test]
    fn links_are_followed_to_their_end() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("real")).unwrap();
        std::fs::write(d.join("real/v.nxq"), b"v").unwrap();
        std::os::unix::fs::symlink("real/v.nxq", d.join("one")).unwrap();
        std::os::unix::fs::symlink(d.join("one"), d.join("two")).unwrap();
        assert_eq!(resolve_links(&d.join("two")).unwrap(), d.join("real/v.nxq"));
        assert_eq!(
            resolve_links(&d.join("real/v.nxq")).unwrap(),
            d.join("real/v.nxq")
        );
        // Dangling: the file the link names, to be created.
        std::os::unix::fs::symlink("real/new", d.join("dangling")).unwrap();
        assert_eq!(
            resolve_links(&d.join("dangling")).unwrap(),
            d.join("real/new")
        );
        // A loop.
        std::os::unix::fs::symlink("loop2", d.join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", d.join("loop2")).unwrap();
        assert!(resolve_links(&d.join("loop1")).is_err());
        assert_eq!(resolve_links(Path::new("bare")).unwrap(), Path::new("bare"));
    }
}

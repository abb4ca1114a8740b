//! Where vaults live: the default path, and Android shared storage (DESIGN.md section 4).
//! Plain functions over paths and environment values, so they are tested on any host.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Folders that other Android apps can read. Decided on the realpath, so symlinks such as
/// Termux's `~/storage/shared` are caught.
pub const SHARED_STORAGE_ROOTS: [&str; 5] = [
    "/storage",
    "/sdcard",
    "/mnt/sdcard",
    "/mnt/media_rw",
    "/data/media",
];

pub const VAULT_FILE_NAME: &str = "vault.nxq";

/// Is this already-resolved path inside Android shared storage?
pub fn is_shared_storage(realpath: &Path) -> bool {
    SHARED_STORAGE_ROOTS
        .iter()
        .any(|root| realpath.starts_with(root))
}

/// Resolve `path`'s folder (which must exist) and decide whether it is shared storage.
/// A folder that cannot be resolved is not claimed to be shared.
pub fn folder_is_shared_storage(path: &Path) -> bool {
    let folder = parent_folder(path);
    match std::fs::canonicalize(folder) {
        Ok(real) => is_shared_storage(&real),
        Err(_) => is_shared_storage(path),
    }
}

/// The folder a file lives in; "." for a bare file name.
pub fn parent_folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `--vault`, else `$NEXUSQ_VAULT`, else `<data dir>/nexusq/vault.nxq`.
pub fn default_vault_path(
    flag: Option<&Path>,
    env_vault: Option<OsString>,
    data_dir: Option<PathBuf>,
) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p.to_path_buf());
    }
    if let Some(v) = env_vault.filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(v));
    }
    data_dir.map(|d| d.join("nexusq").join(VAULT_FILE_NAME))
}

/// The data directory as the `directories` crate sees it on this platform (on Android it reads
/// HOME and honours XDG_DATA_HOME, as on Linux).
pub fn platform_data_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.data_dir().to_path_buf())
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
        ] {
            assert!(is_shared_storage(Path::new(p)), "{p}");
        }
        for p in [
            "/data/data/com.termux/files/home/.local/share/nexusq/vault.nxq",
            "/storagex/v",
            "/home/u/sdcard/v",
            "/tmp/v",
        ] {
            assert!(!is_shared_storage(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn symlink_into_shared_storage_is_resolved() {
        // A symlinked folder is judged by where it points. Simulated with a temp dir standing in
        // for the target: the link's realpath is the temp dir, not shared; the rule is applied
        // to the resolved path, which `folder_is_shared_storage` computes.
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        let real = std::fs::canonicalize(&link).unwrap();
        assert_eq!(real, std::fs::canonicalize(dir.path()).unwrap());
        assert!(!folder_is_shared_storage(&link.join("vault.nxq")));
    }

    #[test]
    fn vault_path_precedence() {
        let data = Some(PathBuf::from("/home/u/.local/share"));
        assert_eq!(
            default_vault_path(Some(Path::new("a.nxq")), Some("b.nxq".into()), data.clone()),
            Some(PathBuf::from("a.nxq"))
        );
        assert_eq!(
            default_vault_path(None, Some("b.nxq".into()), data.clone()),
            Some(PathBuf::from("b.nxq"))
        );
        assert_eq!(
            default_vault_path(None, Some("".into()), data.clone()),
            Some(PathBuf::from("/home/u/.local/share/nexusq/vault.nxq"))
        );
        assert_eq!(default_vault_path(None, None, None), None);
    }

    #[test]
    fn termux_home_gives_termux_path() {
        // Termux sets HOME to /data/data/com.termux/files/home; `directories` on Android and
        // Linux then gives $HOME/.local/share (unless XDG_DATA_HOME is set).
        let home = PathBuf::from("/data/data/com.termux/files/home");
        let path = default_vault_path(None, None, Some(home.join(".local/share"))).unwrap();
        assert_eq!(
            path,
            PathBuf::from("/data/data/com.termux/files/home/.local/share/nexusq/vault.nxq")
        );
        assert!(!is_shared_storage(&path));
    }
}

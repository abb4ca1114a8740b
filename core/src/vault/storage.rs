//! Where vaults live: the default path (docs/vault-format.md). Plain functions over paths and
//! environment values, so they are tested on any host. Shared-storage detection is in
//! `crate::fs::paths`, since it applies to every file nexusq writes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// File name of the default vault inside `<data dir>/nexusq/`.
pub(crate) const VAULT_FILE_NAME: &str = "vault.nxq";

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

/// Where a new vault's revocation statement goes unless the user says otherwise: beside the
/// vault, as `<vault>.revocation.asc` (docs/security.md).
pub fn revocation_path(vault: &Path) -> PathBuf {
    let mut s = vault.as_os_str().to_os_string();
    s.push(".revocation.asc");
    PathBuf::from(s)
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
        assert!(!crate::fs::paths::is_shared_storage(&path));
    }
}

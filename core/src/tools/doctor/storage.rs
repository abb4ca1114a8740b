//! The vault as a file: what `stat` says about it and its folder, who may read or swap it, where
//! it really lives (links, Android shared storage) and what was left beside it.

use super::Check;
use std::path::{Path, PathBuf};

/// What `stat` says about the vault and its folder (None: missing or unreadable).
#[derive(Clone, Debug, Default)]
pub(super) struct VaultFacts {
    pub(super) exists: bool,
    pub(super) is_file: bool,
    pub(super) file_mode: Option<u32>,
    pub(super) file_uid: Option<u32>,
    pub(super) folder_mode: Option<u32>,
    pub(super) error: Option<String>,
    /// The file's size in bytes.
    pub(super) len: u64,
    /// Its first bytes (up to 4): the magic, when it is a vault.
    pub(super) head: Vec<u8>,
    /// Where the path leads when it is a symbolic link (fully resolved).
    pub(super) link_target: Option<PathBuf>,
    /// `<vault>.revocation.asc` files found beside the path or the link's target.
    pub(super) revocation_beside: Vec<PathBuf>,
}

impl VaultFacts {
    pub(super) fn read(path: &Path) -> VaultFacts {
        use std::os::unix::fs::MetadataExt;
        let mut facts = VaultFacts::default();
        match std::fs::metadata(path) {
            Ok(m) => {
                facts.exists = true;
                facts.is_file = m.is_file();
                facts.file_mode = Some(m.mode() & 0o7777);
                facts.file_uid = Some(m.uid());
                facts.len = m.len();
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => facts.error = Some(e.to_string()),
        }
        facts.folder_mode = std::fs::metadata(crate::fs::parent_folder(path))
            .ok()
            .map(|m| m.mode() & 0o7777);
        if facts.is_file {
            use std::io::Read;
            let mut head = Vec::new();
            if let Ok(f) = std::fs::File::open(path) {
                let _ = f.take(4).read_to_end(&mut head);
            }
            facts.head = head;
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            facts.link_target = crate::fs::resolve_links(path).ok();
        }
        let mut candidates = vec![crate::vault::storage::revocation_path(path)];
        if let Some(t) = &facts.link_target {
            candidates.push(crate::vault::storage::revocation_path(t));
        }
        candidates.dedup();
        facts.revocation_beside = candidates.into_iter().filter(|p| p.exists()).collect();
        facts
    }

    /// Starts with the vault magic (a nexusq vault, perhaps damaged further in).
    pub(super) fn looks_like_vault(&self) -> bool {
        self.head.as_slice() == crate::vault::format::MAGIC
    }
}

/// A vault reached through a symbolic link: saves go to the link's target (the link stays),
/// but backups, permissions and anyone who can change the link decide which file that is.
pub(super) fn vault_link_check(path: &Path, facts: &VaultFacts) -> Check {
    let name = "vault_link";
    match &facts.link_target {
        None => Check::ok(name, format!("{} is not a symbolic link", path.display())),
        Some(target) => Check::warn(
            name,
            format!(
                "{} is a symbolic link to {}; nexusq saves to {} and keeps the link",
                path.display(),
                target.display(),
                target.display()
            ),
            format!(
                "point --vault / NEXUSQ_VAULT at {} itself, so no one who can change the link \
                 can swap the vault, and back up that file",
                target.display()
            ),
        ),
    }
}

/// The vault file should be 0600 and ours; its folder should not be readable or writable by
/// group or others (a writable folder lets others replace the vault).
pub(super) fn permissions_check(path: &Path, facts: &VaultFacts, our_uid: u32) -> Check {
    let name = "vault_permissions";
    let folder = crate::fs::parent_folder(path);
    let mut problems = Vec::new();
    let mut hints = Vec::new();
    let mut parts = Vec::new();
    if let Some(mode) = facts.file_mode.filter(|_| facts.is_file) {
        parts.push(format!("file {:o}", mode & 0o777));
        if mode & 0o077 != 0 {
            problems.push(format!(
                "the vault file is mode {:o}: group or others have access to it",
                mode & 0o777
            ));
            hints.push(format!("chmod 600 {}", path.display()));
        }
    }
    if let Some(uid) = facts.file_uid.filter(|&u| u != our_uid) {
        problems.push(format!(
            "the vault file belongs to uid {uid}, not to you (uid {our_uid})"
        ));
        hints.push("copy the vault to a file of your own".to_string());
    }
    match facts.folder_mode {
        Some(mode) => {
            parts.push(format!("folder {:o}", mode & 0o777));
            if mode & 0o066 != 0 {
                problems.push(format!(
                    "its folder {} is mode {:o}: group or others can read or write it",
                    folder.display(),
                    mode & 0o777
                ));
                hints.push(format!("chmod 700 {}", folder.display()));
            }
        }
        None => parts.push(format!(
            "folder {} does not exist yet (`nexusq init` creates it with mode 700)",
            folder.display()
        )),
    }
    if problems.is_empty() {
        Check::ok(name, parts.join(", "))
    } else {
        Check::warn(name, problems.join("; "), hints.join("; "))
    }
}

/// Android shared storage, decided on the realpath of the vault's folder.
pub(super) fn shared_storage_check(path: &Path, data_dir: Option<&Path>) -> Check {
    let name = "shared_storage";
    let folder = crate::fs::parent_folder(path);
    let real = std::fs::canonicalize(folder).ok();
    let shown = real.as_deref().unwrap_or(folder);
    if crate::fs::folder_is_shared_storage(path) {
        let target = data_dir
            .map(|d| format!("{}/nexusq/vault.nxq", d.display()))
            .unwrap_or_else(|| "Termux's home".to_string());
        Check::warn(
            name,
            format!(
                "the vault's folder is in Android shared storage ({}), where other apps can \
                 read it; nexusq refuses to save there without --allow-shared-storage",
                shown.display()
            ),
            format!("move the vault to {target} and keep only backup copies in shared storage"),
        )
    } else {
        Check::ok(
            name,
            format!("{} is not in Android shared storage", shown.display()),
        )
    }
}

/// `init`'s revocation statement left beside the vault: a thief who takes the phone gets both.
pub(super) fn revocation_beside_check(path: &Path, facts: &VaultFacts) -> Check {
    let name = "revocation_statement";
    match facts.revocation_beside.as_slice() {
        [] => Check::ok(
            name,
            format!(
                "no revocation statement beside {} (keep yours off this device)",
                path.display()
            ),
        ),
        found => {
            let shown: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
            Check::warn(
                name,
                format!(
                    "a revocation statement lies beside the vault: {}; whoever takes this \
                     device can revoke your identity with it",
                    shown.join(", ")
                ),
                format!(
                    "copy it somewhere safe off this device (another computer, paper), then \
                     delete it here: rm {}",
                    shown.join(" ")
                ),
            )
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::Status;
    use super::*;

    /// Facts of a vault file (with the magic) and its folder; `None`: missing.
    pub(in super::super) fn facts(file_mode: Option<u32>, folder_mode: Option<u32>) -> VaultFacts {
        VaultFacts {
            exists: file_mode.is_some(),
            is_file: file_mode.is_some(),
            file_mode,
            file_uid: file_mode.map(|_| 1000),
            folder_mode,
            len: 4096,
            head: crate::vault::format::MAGIC.to_vec(),
            ..VaultFacts::default()
        }
    }

    #[test]
    fn permissions() {
        let p = Path::new("/home/u/.local/share/nexusq/vault.nxq");
        let ok = permissions_check(p, &facts(Some(0o600), Some(0o700)), 1000);
        assert_eq!(ok.status, Status::Ok, "{ok:?}");
        assert!(ok.hint.is_empty());

        let loose = permissions_check(p, &facts(Some(0o644), Some(0o700)), 1000);
        assert_eq!(loose.status, Status::Warn);
        assert!(
            loose
                .hint
                .contains("chmod 600 /home/u/.local/share/nexusq/vault.nxq")
        );

        let folder = permissions_check(p, &facts(Some(0o600), Some(0o755)), 1000);
        assert_eq!(folder.status, Status::Warn);
        assert!(
            folder
                .hint
                .contains("chmod 700 /home/u/.local/share/nexusq")
        );
        // Group/other search permission alone lets nobody list or change the folder.
        let x_only = permissions_check(p, &facts(Some(0o600), Some(0o711)), 1000);
        assert_eq!(x_only.status, Status::Ok);

        let foreign = permissions_check(p, &facts(Some(0o600), Some(0o700)), 0);
        assert_eq!(foreign.status, Status::Warn);
        assert!(foreign.detail.contains("uid 1000"));

        let missing = permissions_check(p, &facts(None, None), 1000);
        assert_eq!(missing.status, Status::Ok);
        assert!(missing.detail.contains("does not exist yet"));
    }

    #[test]
    fn links_and_statements_beside_the_vault() {
        let p = Path::new("/x/vault.nxq");
        let plain = facts(Some(0o600), Some(0o700));
        assert_eq!(vault_link_check(p, &plain).status, Status::Ok);
        assert_eq!(revocation_beside_check(p, &plain).status, Status::Ok);
        let linked = VaultFacts {
            link_target: Some(PathBuf::from("/y/real.nxq")),
            revocation_beside: vec![PathBuf::from("/y/real.nxq.revocation.asc")],
            ..plain
        };
        let c = vault_link_check(p, &linked);
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("/y/real.nxq"), "{c:?}");
        let c = revocation_beside_check(p, &linked);
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("rm /y/real.nxq.revocation.asc"), "{c:?}");
    }

    #[test]
    fn shared_storage_is_flagged_with_the_way_out() {
        let c = shared_storage_check(
            Path::new("/storage/emulated/0/nexusq/vault.nxq"),
            Some(Path::new("/data/data/com.termux/files/home/.local/share")),
        );
        assert_eq!(c.status, Status::Warn);
        assert!(c.detail.contains("--allow-shared-storage"));
        assert!(
            c.hint
                .contains("/data/data/com.termux/files/home/.local/share/nexusq/vault.nxq")
        );
        let dir = tempfile::tempdir().unwrap();
        let c = shared_storage_check(&dir.path().join("v.nxq"), None);
        assert_eq!(c.status, Status::Ok);
    }
}

//! Which public identity a vault held when it was last unlocked on this device
//! (docs/vault-format.md, "Exports without the password"). The public section can be read
//! without the password, but only an unlock authenticates it; `identity export` without one
//! warns when the public identity is not the one last authenticated here: the file changed
//! since, or it came from elsewhere (a copy, shared storage) and was never unlocked here.
//!
//! The records are per user, not beside the vault, so a vault copied in does not bring one
//! along: `<state dir>/nexusq/seen/<SHA-256 of the vault's path>`, holding the SHA-256 of the
//! full export. They say nothing secret: a digest of a public identity.

use crate::error::Result;
use crate::identity::PublicIdentity;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The records of one user.
#[derive(Clone, Debug)]
pub struct Seen {
    dir: PathBuf,
}

impl Seen {
    /// Records kept in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Seen { dir: dir.into() }
    }

    /// The platform's place for them: the state directory (`$XDG_STATE_HOME`, else
    /// `~/.local/state`), else the data directory, then `nexusq/seen`.
    pub fn platform() -> Option<Self> {
        let base = directories::BaseDirs::new()?;
        let root = base.state_dir().unwrap_or(base.data_dir());
        Some(Seen::at(root.join("nexusq").join("seen")))
    }

    fn record(&self, vault: &Path) -> PathBuf {
        // The same vault under another spelling of its path is the same record.
        let vault = std::fs::canonicalize(vault).unwrap_or_else(|_| vault.to_path_buf());
        let name = hex::encode(Sha256::digest(vault.as_os_str().as_encoded_bytes()));
        self.dir.join(name)
    }

    /// `public` was just authenticated (an unlock) or written (a new vault, a rotation) at
    /// `vault`.
    pub fn remember(&self, vault: &Path, public: &PublicIdentity) -> Result<()> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .map_err(|e| crate::error::Error::io_at("create the folder", &self.dir, &e))?;
        crate::fs::replace(
            &self.record(vault),
            digest(public).as_bytes(),
            crate::fs::Access::Private,
        )
    }

    /// Is `public` what `vault` held when it was last unlocked here?
    pub fn knows(&self, vault: &Path, public: &PublicIdentity) -> bool {
        std::fs::read(self.record(vault)).is_ok_and(|b| b == digest(public).as_bytes())
    }
}

/// [`Seen::remember`] in the platform's place, best effort: a record that cannot be written
/// costs only a warning at the next export, never the command that unlocked.
pub fn remember_here(vault: &Path, public: &PublicIdentity) {
    if let Some(seen) = Seen::platform() {
        let _ = seen.remember(vault, public);
    }
}

/// [`Seen::knows`] in the platform's place.
pub fn known_here(vault: &Path, public: &PublicIdentity) -> bool {
    Seen::platform().is_some_and(|seen| seen.knows(vault, public))
}

fn digest(public: &PublicIdentity) -> String {
    hex::encode(Sha256::digest(public.export(true).to_armor().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::NewIdentity;
    use crate::suite::rustcrypto::RustCrypto;

    #[test]
    fn a_record_knows_its_vault_and_identity_only() {
        let tmp = tempfile::tempdir().unwrap();
        let seen = Seen::at(tmp.path().join("state/seen"));
        let backend = &RustCrypto;
        let one = NewIdentity::generate(backend, 1_000_000).public;
        let two = NewIdentity::generate(backend, 1_000_000).public;
        let vault = tmp.path().join("v.nxq");
        std::fs::write(&vault, b"x").unwrap();
        assert!(!seen.knows(&vault, &one), "nothing recorded yet");
        seen.remember(&vault, &one).unwrap();
        assert!(seen.knows(&vault, &one));
        assert!(
            !seen.knows(&vault, &two),
            "another identity in the same file"
        );
        assert!(
            !seen.knows(&tmp.path().join("other.nxq"), &one),
            "the same identity in another file was never unlocked there"
        );
        // Another spelling of the same path.
        assert!(seen.knows(&tmp.path().join("state/../v.nxq"), &one));
        seen.remember(&vault, &two).unwrap();
        assert!(seen.knows(&vault, &two) && !seen.knows(&vault, &one));
    }
}

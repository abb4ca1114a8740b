//! Where the vault is, whether a vault lies there, and the state of its identity.

use super::Check;
use super::storage::VaultFacts;
use crate::identity::PublicIdentity;
use std::ffi::OsStr;
use std::path::Path;

/// How the vault path was chosen: given by the caller (`--vault`), then `$NEXUSQ_VAULT`, then
/// the default (docs/vault-format.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSource {
    /// The caller named the path.
    Given,
    /// `$NEXUSQ_VAULT`.
    Env,
    /// The default in the data folder.
    Default,
}

/// The same precedence as [`crate::vault::storage::default_vault_path`]: a given path, else a
/// non-empty `$NEXUSQ_VAULT`, else the default.
pub fn path_source(given: Option<&Path>, env_vault: Option<&OsStr>) -> PathSource {
    if given.is_some() {
        PathSource::Given
    } else if env_vault.is_some_and(|v| !v.is_empty()) {
        PathSource::Env
    } else {
        PathSource::Default
    }
}

/// Where the vault is and how that was decided.
pub(super) fn vault_path_check(
    path: Option<&Path>,
    source: PathSource,
    data_dir: Option<&Path>,
) -> Check {
    let Some(path) = path else {
        return Check::error(
            "vault_path",
            "cannot tell where the vault lives: no --vault, no NEXUSQ_VAULT and no home folder",
            "pass --vault PATH or set NEXUSQ_VAULT (is HOME set?)",
        );
    };
    let how = match source {
        PathSource::Given => "from --vault".to_string(),
        PathSource::Env => "from NEXUSQ_VAULT".to_string(),
        PathSource::Default => match data_dir {
            Some(d) => format!(
                "the default, as neither --vault nor NEXUSQ_VAULT is set; data folder {} from \
                 XDG_DATA_HOME or HOME",
                d.display()
            ),
            None => "the default".to_string(),
        },
    };
    let relative = if path.is_relative() {
        ", relative to the current folder"
    } else {
        ""
    };
    Check::ok(
        "vault_path",
        format!("{} ({how}{relative})", path.display()),
    )
}

/// Whether a vault lies at the path: none yet is a warning, anything else there an error.
pub(super) fn vault_file_check(path: &Path, facts: &VaultFacts) -> Check {
    let name = "vault_file";
    if let Some(e) = &facts.error {
        return Check::error(
            name,
            format!("cannot inspect {}: {e}", path.display()),
            "check the permissions of the vault and of every folder above it",
        );
    }
    if !facts.exists {
        return Check::warn(
            name,
            format!("no vault at {}", path.display()),
            "run `nexusq init` to create one, or point --vault / NEXUSQ_VAULT at yours",
        );
    }
    if !facts.is_file {
        return Check::error(
            name,
            format!("{} is not a regular file", path.display()),
            "point --vault at the vault file itself",
        );
    }
    if facts.len == 0 {
        return Check::error(
            name,
            format!("{} is empty (0 bytes), not a vault", path.display()),
            "restore the vault from a backup; if you never had one there, remove the empty file \
             and run `nexusq init`",
        );
    }
    if !facts.looks_like_vault() {
        return Check::error(
            name,
            format!(
                "{} is not a nexusq vault ({} bytes, no NXQV header)",
                path.display(),
                facts.len
            ),
            "point --vault / NEXUSQ_VAULT at your vault file; this one is something else",
        );
    }
    Check::ok(
        name,
        format!("{} exists ({} bytes)", path.display(), facts.len),
    )
}

/// `vault_state` when there is no identity to read: nothing to say without a vault; a vault
/// that cannot be read was already reported by `vault_file` or `vault_kdf`.
pub(super) fn no_identity_check(unreadable: bool) -> Check {
    if unreadable {
        Check::warn(
            "vault_state",
            "the vault cannot be read, so neither can its identity's state",
            "see vault_file and vault_kdf above",
        )
    } else {
        Check::ok("vault_state", "no vault yet, so no identity")
    }
}

/// The identity's own state: revoked, newest generation expired (others cannot encrypt to
/// it), or soon to expire; older generations' states in the detail.
pub(super) fn vault_state_check(public: &PublicIdentity, now: u64) -> Check {
    let name = "vault_state";
    let newest = public.newest();
    let fp = public.root_id().fingerprint();
    let listing: Vec<String> = crate::identity::state::generations(public, now, None)
        .iter()
        .map(|s| match s.concerns() {
            words if words.is_empty() => format!("g{}", s.generation),
            words => format!("g{} [{}]", s.generation, words.join(", ")),
        })
        .collect();
    let summary = format!(
        "identity {fp}, {} generation{}: {}",
        listing.len(),
        if listing.len() == 1 { "" } else { "s" },
        listing.join(", ")
    );
    if crate::identity::peer::is_revoked(public) {
        return Check::error(
            name,
            format!("{summary}; the identity is revoked"),
            "nobody should encrypt to it or trust its signatures; make a new identity with \
             `nexusq --vault NEW.nxq init` and tell your contacts",
        );
    }
    let (g, until) = (newest.generation, crate::time::rfc3339(newest.not_after));
    if newest.is_expired(now) {
        return Check::error(
            name,
            format!("{summary}; the newest generation (g{g}) expired on {until}"),
            "run `nexusq rotate` to certify a new generation, then send your contacts the new \
             `nexusq identity export`",
        );
    }
    const SOON: u64 = 30 * 24 * 3600;
    if newest.not_after.saturating_sub(now) < SOON {
        return Check::warn(
            name,
            format!("{summary}; the newest generation (g{g}) expires on {until}"),
            "run `nexusq rotate` before then, and send your contacts the new export",
        );
    }
    Check::ok(name, format!("{summary}; newest g{g} valid until {until}"))
}

/// `recovery` when there is no identity to read (as [`no_identity_check`]).
pub(super) fn no_recovery_check(unreadable: bool) -> Check {
    if unreadable {
        Check::warn(
            "recovery",
            "the vault cannot be read, so neither can what it records of its recovery words",
            "see vault_file and vault_kdf above",
        )
    } else {
        Check::ok("recovery", "no vault yet, so no recovery words")
    }
}

/// Whether the identity's recovery words were ever made and confirmed (never the words:
/// dates only, from the vault's public section; docs/recovery.md).
pub(super) fn recovery_check(file: &crate::vault::VaultFile) -> Check {
    let name = "recovery";
    if !file.has_master() {
        return Check::warn(
            name,
            "this vault (format 1) has no master secret, so no recovery phrase can rebuild it",
            "keep an encrypted copy of the vault file off the phone; an identity made with \
             `nexusq init` by this version has a recovery phrase (docs/recovery.md)",
        );
    }
    let b = &file.backups;
    let date = |t: u64| crate::time::rfc3339(t).chars().take(10).collect::<String>();
    let mut said = Vec::new();
    if b.phrase_confirmed != 0 {
        said.push(format!(
            "recovery phrase confirmed at a terminal on {}",
            date(b.phrase_confirmed)
        ));
    } else if b.phrase_shown != 0 {
        said.push(format!(
            "recovery phrase written out on {}, never confirmed at a terminal",
            date(b.phrase_shown)
        ));
    }
    if b.shares_written != 0 {
        said.push(format!(
            "{}-of-{} shares written on {}",
            b.shares_threshold,
            b.shares_count,
            date(b.shares_written)
        ));
    }
    if said.is_empty() {
        return Check::warn(
            name,
            "no recovery phrase or shares were ever made for this identity: if the phone is \
             lost, so is the identity",
            "run `nexusq backup phrase` (or `nexusq backup shares`) and keep the words on paper",
        );
    }
    let text = said.join("; ");
    if b.phrase_confirmed == 0 && b.shares_written == 0 {
        return Check::warn(
            name,
            text,
            "drill the recovery with `nexusq backup check`, or confirm the words with `nexusq \
             backup phrase` at a terminal",
        );
    }
    Check::ok(name, text)
}

/// One generation's state in the words `vault open` uses: "" when nothing is wrong, else e.g.
/// " [signing revoked, expired]". Without the password, retirement is unknown and not shown.
#[cfg(test)]
mod tests {
    use super::super::Status;
    use super::super::storage::tests::facts;
    use super::*;

    #[test]
    fn path_source_follows_the_documented_order() {
        let given = Path::new("a.nxq");
        assert_eq!(
            path_source(Some(given), Some(OsStr::new("b"))),
            PathSource::Given
        );
        assert_eq!(path_source(None, Some(OsStr::new("b"))), PathSource::Env);
        assert_eq!(path_source(None, Some(OsStr::new(""))), PathSource::Default);
        assert_eq!(path_source(None, None), PathSource::Default);
    }

    #[test]
    fn vault_path_check_names_how_it_was_chosen() {
        let data = Path::new("/data/data/com.termux/files/home/.local/share");
        let p = data.join("nexusq/vault.nxq");
        let c = vault_path_check(Some(&p), PathSource::Default, Some(data));
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("the default"), "{c:?}");
        let c = vault_path_check(Some(&p), PathSource::Env, Some(data));
        assert!(c.detail.contains("NEXUSQ_VAULT"), "{c:?}");
        let c = vault_path_check(Some(Path::new("v.nxq")), PathSource::Given, None);
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("from --vault, relative"), "{c:?}");
        assert_eq!(
            vault_path_check(None, PathSource::Default, None).status,
            Status::Error
        );
    }

    #[test]
    fn vault_file_states() {
        let p = Path::new("/x/vault.nxq");
        assert_eq!(
            vault_file_check(p, &facts(Some(0o600), Some(0o700))).status,
            Status::Ok
        );
        let missing = vault_file_check(p, &facts(None, Some(0o700)));
        assert_eq!(missing.status, Status::Warn);
        assert!(missing.hint.contains("nexusq init"));
        let dir = VaultFacts {
            exists: true,
            is_file: false,
            ..VaultFacts::default()
        };
        assert_eq!(vault_file_check(p, &dir).status, Status::Error);
        let empty = VaultFacts {
            len: 0,
            head: Vec::new(),
            ..facts(Some(0o600), Some(0o700))
        };
        let c = vault_file_check(p, &empty);
        assert_eq!(c.status, Status::Error);
        assert!(c.detail.contains("is empty (0 bytes)"), "{c:?}");
        let foreign = VaultFacts {
            head: b"PK\x03\x04".to_vec(),
            ..facts(Some(0o600), Some(0o700))
        };
        let c = vault_file_check(p, &foreign);
        assert_eq!(c.status, Status::Error);
        assert!(c.detail.contains("not a nexusq vault"), "{c:?}");
    }
}

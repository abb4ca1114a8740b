//! A git repository's setup for `nexusq-git-sign` (README "Sign your git commits" and
//! "Verifying only"), for `nexusq doctor --git`. The caller runs git and hands in what
//! `git config` says; here the values are judged and the configured program is looked for.
//!
//! git picks the program that checks a signature by the signature's armor, whatever
//! `gpg.format` says: nexusq's begins `-----BEGIN SIGNED MESSAGE-----`, which git files under
//! x509, so verifying needs `gpg.x509.program` alone (without it git runs gpgsm, which fails
//! with "ksba_cms_parse failed"). Signing also needs `gpg.format x509` and `user.signingkey`.

use super::Check;
use crate::identity::{Fingerprint, RootId};
use crate::untrusted;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The program's name, as installed beside nexusq.
pub const PROGRAM: &str = "nexusq-git-sign";

/// What the caller found out with git, in the current folder's repository.
#[derive(Clone, Debug, Default)]
pub struct GitFacts {
    /// The repository: its top folder, or its git folder when it has no work tree.
    pub repository: PathBuf,
    /// `gpg.format`, as `git config --get` reads it (repository, global and system files).
    pub format: Option<String>,
    /// `gpg.x509.program`.
    pub x509_program: Option<String>,
    /// `user.signingkey`.
    pub signing_key: Option<String>,
    /// `commit.gpgsign` as `git config --type=bool` gives it (`true` or `false`), or as written
    /// when git cannot read it as a boolean.
    pub commit_gpgsign: Option<String>,
    /// `$PATH`, along which git finds a program named without a slash.
    pub path_var: Option<std::ffi::OsString>,
    /// The nexusq-git-sign beside the running nexusq, when there is one.
    pub installed: Option<PathBuf>,
}

/// The git checks, in the report's order. `own` is the vault's identity when it could be read.
pub(super) fn git_checks(facts: &GitFacts, own: Option<&RootId>) -> Vec<Check> {
    let found = facts
        .x509_program
        .as_deref()
        .and_then(|p| find_program(p, facts.path_var.as_deref()));
    vec![
        Check::ok(
            "git_repository",
            format!(
                "{}: git's settings for it (its own, global and system) are checked below",
                untrusted::path(&facts.repository)
            ),
        ),
        program_check(
            facts.x509_program.as_deref(),
            found.as_deref(),
            facts.installed.as_deref(),
        ),
        format_check(facts.format.as_deref(), facts.signing_key.as_deref()),
        signing_key_check(facts.format.as_deref(), facts.signing_key.as_deref(), own),
        gpgsign_check(facts.commit_gpgsign.as_deref()),
    ]
}

/// The executable file git runs for `program`: along `path_var` for a bare name, else the path
/// itself (relative to the current folder), as git looks for it.
fn find_program(program: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    fn executable(p: &Path) -> bool {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    if program.is_empty() {
        return None;
    }
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(path_var?)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

fn program_check(value: Option<&str>, found: Option<&Path>, installed: Option<&Path>) -> Check {
    let name = "git_x509_program";
    let set_it = "git config gpg.x509.program nexusq-git-sign (with --global: for every \
                  repository)";
    let Some(value) = value else {
        return Check::warn(
            name,
            "gpg.x509.program is not set: git checks nexusq's signatures (x509 to git) with \
             gpgsm, which cannot read them (\"ksba_cms_parse failed\")",
            set_it,
        );
    };
    let shown = untrusted::escape(value);
    if Path::new(value).file_name() != Some(OsStr::new(PROGRAM)) {
        return Check::warn(
            name,
            format!(
                "gpg.x509.program is {shown}, not {PROGRAM}: git checks nexusq's signatures with \
                 it"
            ),
            set_it,
        );
    }
    match found {
        Some(path) => Check::ok(
            name,
            format!(
                "gpg.x509.program {shown} runs {}: git signs with it and checks signatures \
                 against your vault's identity and your contacts",
                untrusted::path(path)
            ),
        ),
        None => {
            let where_ = if value.contains('/') {
                "at that path"
            } else {
                "on PATH"
            };
            let hint = match installed {
                Some(p) => format!(
                    "git config gpg.x509.program {} (the one beside this nexusq)",
                    untrusted::path(p)
                ),
                None => format!(
                    "install {PROGRAM} beside nexusq (`cargo install --locked --path .` installs \
                     both), or set gpg.x509.program to its full path"
                ),
            };
            Check::warn(
                name,
                format!(
                    "gpg.x509.program is {shown}, but no executable {PROGRAM} is {where_}: git \
                     can neither sign nor check signatures with it"
                ),
                hint,
            )
        }
    }
}

/// The program git signs with under a `gpg.format`, or None for a format git does not know.
fn signer_of(format: Option<&str>) -> Option<&'static str> {
    match format {
        None | Some("openpgp") => Some("gpg"),
        Some("ssh") => Some("ssh-keygen"),
        Some("x509") => Some("gpg.x509.program"),
        Some(_) => None,
    }
}

fn format_check(format: Option<&str>, signing_key: Option<&str>) -> Check {
    let name = "git_format";
    let hint = "git config gpg.format x509";
    let shown = format.map_or("not set (openpgp)".to_string(), untrusted::escape);
    match signer_of(format) {
        Some(_) if format == Some("x509") => Check::ok(
            name,
            "gpg.format x509: git signs with gpg.x509.program (verifying does not need it)",
        ),
        None => Check::warn(
            name,
            format!("gpg.format is {shown}, which git does not know (openpgp, x509 or ssh)"),
            hint,
        ),
        Some(signer) if signing_key.is_some_and(|k| Fingerprint::parse(k).is_some()) => {
            Check::warn(
                name,
                format!(
                    "gpg.format is {shown}, so git signs with {signer}, although \
                     user.signingkey is a nexusq fingerprint"
                ),
                hint,
            )
        }
        Some(signer) => Check::ok(
            name,
            format!(
                "gpg.format is {shown}: git signs with {signer}; verifying needs no gpg.format, \
                 and to sign with nexusq: {hint}"
            ),
        ),
    }
}

fn signing_key_check(format: Option<&str>, key: Option<&str>, own: Option<&RootId>) -> Check {
    let name = "git_signing_key";
    let own_fp = own.map(|r| r.fingerprint().to_string());
    let hint = format!(
        "git config user.signingkey {}",
        own_fp
            .as_deref()
            .unwrap_or("<your fingerprint> (`nexusq vault open` shows it)")
    );
    if format != Some("x509") {
        return Check::ok(
            name,
            match key {
                None => "user.signingkey is not set; only signing with nexusq needs it".into(),
                Some(k) => format!(
                    "user.signingkey is {}, for signing with {} (gpg.format), not with nexusq",
                    untrusted::escape(k),
                    signer_of(format).unwrap_or("no program")
                ),
            },
        );
    }
    let Some(key) = key else {
        return Check::warn(
            name,
            "user.signingkey is not set: git passes your committer name and e-mail instead, \
             which nexusq-git-sign refuses",
            hint,
        );
    };
    let Some(fp) = Fingerprint::parse(key) else {
        return Check::warn(
            name,
            format!(
                "user.signingkey {} is not a nexusq fingerprint: nexusq-git-sign refuses it",
                untrusted::escape(key)
            ),
            hint,
        );
    };
    match own {
        Some(own) if fp.matches(own) => Check::ok(
            name,
            format!("user.signingkey is this vault's identity, {fp}"),
        ),
        Some(own) => Check::warn(
            name,
            format!(
                "user.signingkey is {fp}, but this vault holds {}: nexusq-git-sign refuses to \
                 sign with it",
                own.fingerprint()
            ),
            format!(
                "{hint}, or set NEXUSQ_VAULT to the vault of {fp} (nexusq-git-sign reads \
                 NEXUSQ_VAULT or the default vault, not --vault)"
            ),
        ),
        None => Check::ok(
            name,
            format!("user.signingkey is {fp}; there is no readable vault here to compare it with"),
        ),
    }
}

/// git's booleans as `git config --type=bool` writes them (and as people do).
fn boolean(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

fn gpgsign_check(value: Option<&str>) -> Check {
    let name = "git_commit_gpgsign";
    match value.map(|v| (v, boolean(v))) {
        Some((_, Some(true))) => Check::ok(name, "commit.gpgsign true: git signs every commit"),
        Some((v, None)) => Check::warn(
            name,
            format!(
                "commit.gpgsign is {}, which is not a boolean: git refuses to commit",
                untrusted::escape(v)
            ),
            "git config commit.gpgsign true (or false)",
        ),
        _ => Check::ok(
            name,
            "commit.gpgsign is not true: commits are signed only with `git commit -S`; `git \
             config commit.gpgsign true` signs every one",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::doctor::Status;

    fn facts() -> GitFacts {
        GitFacts {
            repository: "/home/me/repo".into(),
            ..GitFacts::default()
        }
    }

    fn by_name<'a>(checks: &'a [Check], name: &str) -> &'a Check {
        checks.iter().find(|c| c.name == name).unwrap()
    }

    /// A folder holding an executable nexusq-git-sign and a non-executable one elsewhere.
    fn programs() -> (tempfile::TempDir, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let exe = bin.join(PROGRAM);
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let plain = dir.path().join(PROGRAM);
        std::fs::write(&plain, "not a program\n").unwrap();
        (dir, bin)
    }

    #[test]
    fn programs_are_found_as_git_finds_them() {
        let (dir, bin) = programs();
        let path = std::env::join_paths([dir.path().join("none"), bin.clone()]).unwrap();
        assert_eq!(find_program(PROGRAM, Some(&path)), Some(bin.join(PROGRAM)));
        // Not executable, not there, no PATH, empty: not found.
        let plain = dir.path().join(PROGRAM);
        assert_eq!(find_program(plain.to_str().unwrap(), Some(&path)), None);
        assert_eq!(find_program("other", Some(&path)), None);
        assert_eq!(find_program(PROGRAM, None), None);
        assert_eq!(find_program("", Some(&path)), None);
        let full = bin.join(PROGRAM);
        assert_eq!(find_program(full.to_str().unwrap(), None), Some(full));
    }

    #[test]
    fn a_verifier_needs_only_the_program() {
        let (_dir, bin) = programs();
        // Nothing set: the program check warns with the command that fixes it; the signing
        // checks are content (verifying needs none of them).
        let checks = git_checks(&facts(), None);
        let program = by_name(&checks, "git_x509_program");
        assert_eq!(program.status, Status::Warn);
        assert!(program.detail.contains("gpgsm"), "{}", program.detail);
        assert!(
            program
                .hint
                .starts_with("git config gpg.x509.program nexusq-git-sign")
        );
        for name in [
            "git_repository",
            "git_format",
            "git_signing_key",
            "git_commit_gpgsign",
        ] {
            assert_eq!(by_name(&checks, name).status, Status::Ok, "{name}");
        }
        assert!(
            by_name(&checks, "git_repository")
                .detail
                .starts_with("/home/me/repo: ")
        );

        let verifier = GitFacts {
            x509_program: Some(PROGRAM.into()),
            path_var: Some(bin.clone().into_os_string()),
            ..facts()
        };
        let checks = git_checks(&verifier, None);
        assert!(checks.iter().all(|c| c.status == Status::Ok), "{checks:#?}");
        let program = by_name(&checks, "git_x509_program");
        assert!(program.detail.contains(bin.join(PROGRAM).to_str().unwrap()));

        // Named right but not found: where to find it.
        let missing = GitFacts {
            path_var: Some("/nonexistent".into()),
            installed: Some("/opt/nexusq/bin/nexusq-git-sign".into()),
            ..verifier.clone()
        };
        let program = git_checks(&missing, None).remove(1);
        assert_eq!(program.status, Status::Warn);
        assert!(program.detail.contains("on PATH"), "{}", program.detail);
        assert_eq!(
            program.hint,
            "git config gpg.x509.program /opt/nexusq/bin/nexusq-git-sign (the one beside this \
             nexusq)"
        );
        let missing = GitFacts {
            installed: None,
            ..missing
        };
        assert!(git_checks(&missing, None)[1].hint.contains("cargo install"));

        // Another program: named in the warning.
        let gpgsm = GitFacts {
            x509_program: Some("gpgsm".into()),
            ..verifier
        };
        let program = git_checks(&gpgsm, None).remove(1);
        assert_eq!(program.status, Status::Warn);
        assert!(program.detail.contains("is gpgsm, not nexusq-git-sign"));
    }

    #[test]
    fn a_signer_needs_the_format_and_the_vault_s_fingerprint() {
        let own = RootId([7; 32]);
        let fp = own.fingerprint().to_string();
        let other = RootId([8; 32]).fingerprint().to_string();
        let signer = |format: Option<&str>, key: Option<&str>| GitFacts {
            format: format.map(str::to_string),
            signing_key: key.map(str::to_string),
            ..facts()
        };
        let status = |f: &GitFacts, name: &str| by_name(&git_checks(f, Some(&own)), name).clone();

        let ok = signer(Some("x509"), Some(&fp));
        assert_eq!(status(&ok, "git_format").status, Status::Ok);
        let key = status(&ok, "git_signing_key");
        assert_eq!(key.status, Status::Ok);
        assert!(key.detail.contains(&fp));

        // The key is a nexusq fingerprint but git would sign with gpg.
        let no_format = status(&signer(None, Some(&fp)), "git_format");
        assert_eq!(no_format.status, Status::Warn);
        assert_eq!(no_format.hint, "git config gpg.format x509");
        let unknown = status(&signer(Some("pgp"), None), "git_format");
        assert_eq!(unknown.status, Status::Warn);

        // x509 without a key, with another's, with a gpg key id: the vault's fingerprint is
        // the fix.
        for key in [None, Some(other.as_str()), Some("0xDEADBEEF")] {
            let c = status(&signer(Some("x509"), key), "git_signing_key");
            assert_eq!(c.status, Status::Warn, "{key:?}");
            assert!(
                c.hint
                    .starts_with(&format!("git config user.signingkey {fp}")),
                "{c:?}"
            );
        }
        let c = status(&signer(Some("x509"), Some(&other)), "git_signing_key");
        assert!(c.hint.contains("NEXUSQ_VAULT"), "{c:?}");
        // Without a vault, no fingerprint to suggest.
        let c = by_name(
            &git_checks(&signer(Some("x509"), None), None),
            "git_signing_key",
        )
        .clone();
        assert!(c.hint.contains("nexusq vault open"), "{c:?}");
        // Signing with gpg: the key is none of nexusq's business.
        let c = status(
            &signer(Some("openpgp"), Some("0xDEADBEEF")),
            "git_signing_key",
        );
        assert_eq!(c.status, Status::Ok);
    }

    #[test]
    fn commit_gpgsign_is_read_as_git_reads_it() {
        let with = |v: &str| {
            let f = GitFacts {
                commit_gpgsign: Some(v.into()),
                ..facts()
            };
            by_name(&git_checks(&f, None), "git_commit_gpgsign").clone()
        };
        assert!(with("true").detail.contains("signs every commit"));
        assert!(with("false").detail.contains("git commit -S"));
        let bad = with("sometimes");
        assert_eq!(bad.status, Status::Warn);
        assert!(bad.hint.contains("git config commit.gpgsign true"));
        assert_eq!(boolean("Yes"), Some(true));
        assert_eq!(boolean("off"), Some(false));
    }
}

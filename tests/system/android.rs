//! Android and Termux specifics, tested on the host (README "Termux"): the default vault
//! path with HOME and PREFIX set the way Termux sets them (the real binary, with a temporary
//! folder standing in for /data/data/com.termux/files), shared-storage refusal at library
//! level, and no `/tmp` assumption anywhere in the program's source.

use crate::common::{BIN, SMALL_KDF, private_file};
use assert_cmd::Command;
use nexusq_core::vault::{self, SaveOptions, storage};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A stand-in for Termux's files folder: `<tmp>/data/data/com.termux/files/{home,usr}`.
struct Termux {
    _dir: tempfile::TempDir,
    home: PathBuf,
    prefix: PathBuf,
}

impl Termux {
    fn new() -> Termux {
        let dir = tempfile::tempdir().unwrap();
        let files = dir.path().join("data/data/com.termux/files");
        let home = files.join("home");
        let prefix = files.join("usr");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(prefix.join("tmp")).unwrap();
        // Termux's home is private to the app.
        fs::set_permissions(&home, fs::Permissions::from_mode(0o700)).unwrap();
        Termux {
            _dir: dir,
            home,
            prefix,
        }
    }

    /// The binary with Termux's environment: HOME, PREFIX, TMPDIR=$PREFIX/tmp, no
    /// XDG_DATA_HOME, no NEXUSQ_VAULT.
    fn nexusq(&self) -> Command {
        let mut c = Command::new(BIN);
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("PREFIX", &self.prefix)
            .env("TMPDIR", self.prefix.join("tmp"))
            .env("TERMUX_VERSION", "0.118.1")
            .timeout(Duration::from_secs(120));
        c
    }

    fn default_vault(&self) -> PathBuf {
        self.home.join(".local/share/nexusq/vault.nxq")
    }
}

fn doctor(cmd: &mut Command) -> Value {
    let out = cmd.args(["doctor", "--json"]).assert().success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

fn check<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
}

#[test]
fn termux_home_gives_the_default_vault_path() {
    let t = Termux::new();
    let r = doctor(&mut t.nexusq());
    assert_eq!(r["vault_path"], t.default_vault().display().to_string());
    assert_eq!(r["vault_path_source"], "default");
    let platform = check(&r, "platform")["detail"].as_str().unwrap();
    assert!(platform.contains("Termux (PREFIX="), "{platform}");
    assert_eq!(check(&r, "shared_storage")["status"], "ok");

    // `vault open` names the same path when there is no vault.
    let out = t.nexusq().args(["vault", "open"]).assert().code(4);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(&format!("no vault at {}", t.default_vault().display())),
        "{stderr}"
    );
}

#[test]
fn xdg_data_home_and_nexusq_vault_take_precedence_on_termux() {
    let t = Termux::new();
    let xdg = t.home.join("xdg-data");
    let r = doctor(t.nexusq().env("XDG_DATA_HOME", &xdg));
    assert_eq!(
        r["vault_path"],
        xdg.join("nexusq/vault.nxq").display().to_string()
    );
    // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
    let r = doctor(t.nexusq().env("XDG_DATA_HOME", "relative/data"));
    assert_eq!(r["vault_path"], t.default_vault().display().to_string());
    let mine = t.home.join("mine.nxq");
    let r = doctor(t.nexusq().env("NEXUSQ_VAULT", &mine));
    assert_eq!(r["vault_path"], mine.display().to_string());
    assert_eq!(r["vault_path_source"], "NEXUSQ_VAULT");
}

/// `init` with the default path on "Termux": the folders are made private, the vault is 0600,
/// and doctor finds nothing wrong with its place or its permissions.
#[test]
fn init_on_termux_creates_a_private_default_vault() {
    let t = Termux::new();
    let pw = private_file(&t.home.join("pw"), "correct horse battery staple\n");
    t.nexusq()
        .arg("init")
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&pw)
        .assert()
        .success();
    let vault = t.default_vault();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&vault), 0o600);
    assert_eq!(mode(vault.parent().unwrap()), 0o700);
    let r = doctor(&mut t.nexusq());
    for name in ["vault_file", "vault_permissions", "shared_storage"] {
        assert_eq!(check(&r, name)["status"], "ok", "{name}: {r}");
    }
}

#[test]
fn default_vault_path_with_termux_values() {
    let home = Path::new("/data/data/com.termux/files/home");
    let data = home.join(".local/share");
    let path = storage::default_vault_path(None, None, Some(data.clone())).unwrap();
    assert_eq!(
        path,
        Path::new("/data/data/com.termux/files/home/.local/share/nexusq/vault.nxq")
    );
    assert!(!nexusq_core::fs::is_shared_storage(&path));
    // NEXUSQ_VAULT, then --vault, win over the data folder; an empty NEXUSQ_VAULT does not.
    let env = Some("/data/data/com.termux/files/home/v.nxq".into());
    assert_eq!(
        storage::default_vault_path(None, env.clone(), Some(data.clone())).unwrap(),
        Path::new("/data/data/com.termux/files/home/v.nxq")
    );
    assert_eq!(
        storage::default_vault_path(Some(Path::new("x.nxq")), env, Some(data.clone())).unwrap(),
        Path::new("x.nxq")
    );
    assert_eq!(
        storage::default_vault_path(None, Some("".into()), Some(data)).unwrap(),
        path
    );
    // Termux's ~/storage/shared is a symlink into shared storage: its realpath is caught.
    assert!(nexusq_core::fs::is_shared_storage(Path::new(
        "/storage/emulated/0/nexusq"
    )));
}

#[test]
fn saving_into_shared_storage_is_refused_unless_allowed() {
    for path in [
        "/storage/emulated/0/nexusq/vault.nxq",
        "/sdcard/vault.nxq",
        "/mnt/media_rw/ABCD-1234/vault.nxq",
        "/data/media/0/vault.nxq",
    ] {
        let err =
            vault::check_save_location(Path::new(path), &SaveOptions::default()).expect_err(path);
        assert_eq!(err.kind(), nexusq_core::error::ErrorKind::Usage, "{path}");
        let said = format!("{} {}", err.message(), err.hint());
        assert!(said.contains("shared storage"), "{path}: {said}");
        // The hint is in the library's words; the command line names the flag of the setting.
        assert!(said.contains("allow shared storage"), "{path}: {said}");
        assert_eq!(
            err.setting(),
            Some(nexusq_core::error::Setting::AllowSharedStorage),
            "{path}"
        );
        let allowed = SaveOptions {
            allow_shared_storage: true,
            ..SaveOptions::default()
        };
        assert!(vault::check_save_location(Path::new(path), &allowed).is_ok());
    }
    let home = tempfile::tempdir().unwrap();
    assert!(
        vault::check_save_location(&home.path().join("vault.nxq"), &SaveOptions::default()).is_ok()
    );
}

// ---------------------------------------------------------------------------------------------
// No /tmp assumption: Termux has no /tmp (its temporary folder is $PREFIX/tmp, in TMPDIR).

/// The files that make up the program and its scripts (tests and benches excluded).
fn program_sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs" || e == "sh") {
                out.push(p);
            }
        }
    }
    let root = Path::new(ROOT);
    let mut out = Vec::new();
    for dir in ["src", "core/src", "native/src", "termux"] {
        walk(&root.join(dir), &mut out);
    }
    for file in ["core/build.rs", ".ci/run"] {
        if root.join(file).exists() {
            out.push(root.join(file));
        }
    }
    out.sort();
    out
}

/// The source without `#[cfg(test)]` items (skipped by brace matching) and without whole-line
/// comments.
fn without_tests(source: &str) -> Vec<(usize, &str)> {
    let mut kept = Vec::new();
    let mut lines = source.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip the item the attribute applies to: up to its closing brace, or to the `;`
            // of a one-line item.
            let mut depth = 0i32;
            let mut opened = false;
            for (_, l) in lines.by_ref() {
                for c in l.chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth -= 1,
                        _ => {}
                    }
                }
                if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        kept.push((i + 1, line));
    }
    kept
}

/// An absolute `/tmp` path: "/tmp" at the start of a word (not `$PREFIX/tmp`).
fn names_absolute_tmp(line: &str) -> bool {
    line.match_indices("/tmp").any(|(at, _)| {
        let before = line[..at].chars().last();
        let after = line[at + 4..].chars().next();
        let starts_word = !before.is_some_and(|c| c.is_alphanumeric() || "_}).$~".contains(c));
        let ends_word = !after.is_some_and(|c| c.is_alphanumeric() || c == '_');
        starts_word && ends_word
    })
}

#[test]
fn no_tmp_assumption_in_the_program_source() {
    assert!(names_absolute_tmp(r#"let p = "/tmp/x";"#));
    assert!(names_absolute_tmp("cd /tmp"));
    assert!(!names_absolute_tmp("$PREFIX/tmp"));
    assert!(!names_absolute_tmp("${PREFIX}/tmp"));
    assert!(!names_absolute_tmp("/tmpfs"));
    assert!(without_tests("#[cfg(test)]\nmod tests {\n    \"/tmp\"\n}\nfn f() {}").len() == 1);

    let sources = program_sources();
    assert!(sources.len() > 20, "{sources:?}");
    let mut found = Vec::new();
    for path in &sources {
        let text = fs::read_to_string(path).unwrap();
        let is_rust = path.extension().is_some_and(|e| e == "rs");
        let lines: Vec<(usize, &str)> = if is_rust {
            without_tests(&text)
        } else {
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim_start().starts_with('#'))
                .map(|(i, l)| (i + 1, l))
                .collect()
        };
        for (n, line) in lines {
            if names_absolute_tmp(line) {
                found.push(format!("{}:{n}: {}", path.display(), line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "Termux has no /tmp; use std::env::temp_dir() (TMPDIR) instead:\n{}",
        found.join("\n")
    );
}

//! The Termux scripts (README "Termux"): `termux/build.sh` cannot be built here (no Android
//! NDK), so it is linted — `bash -n`, the fields and steps termux-packages requires, its
//! layout rules — and its make steps are run against stand-ins for cargo and the NDK build.
//! `termux/install.sh` is run with a fake `pkg` (and a fake `cargo`) on PATH, twice.

use crate::common::BIN;
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn termux_dir() -> PathBuf {
    Path::new(ROOT).join("termux")
}

fn recipe() -> PathBuf {
    termux_dir().join("build.sh")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// The directories of this machine's PATH that hold none of the commands the tests fake, so a
/// real `pkg`, `cargo` or `nexusq` cannot leak into a test.
fn system_path() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|d| {
            !["pkg", "cargo", "nexusq"]
                .iter()
                .any(|c| d.join(c).exists())
        })
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

fn write_executable(path: &Path, content: &str) {
    fs::write(path, content).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// What the real binary prints for these arguments.
fn generated(args: &[&str]) -> Vec<u8> {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    out.stdout
}

fn cargo_toml_field(field: &str) -> String {
    let manifest = fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    let package = manifest.split("[package]").nth(1).unwrap();
    package
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == field).then(|| v.trim().trim_matches('"').to_string())
        })
        .unwrap_or_else(|| panic!("no {field} in [package]"))
}

// ---------------------------------------------------------------------------------------------
// Every script

#[test]
fn every_termux_script_passes_bash_n() {
    let mut scripts: Vec<PathBuf> = fs::read_dir(termux_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sh"))
        .collect();
    scripts.sort();
    let names: Vec<String> = scripts
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for required in ["build.sh", "install.sh"] {
        assert!(names.iter().any(|n| n == required), "{required}: {names:?}");
    }
    for script in &scripts {
        let out = Command::new("bash").arg("-n").arg(script).output().unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "bash -n {}: {}",
            script.display(),
            describe(&out)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// termux/build.sh: the fields and steps termux-packages needs

/// Source the recipe in a clean bash and return every TERMUX_PKG_* variable it sets, plus the
/// bodies of the functions it defines (as `declare -f` prints them, under "fn:NAME").
fn sourced_recipe() -> BTreeMap<String, String> {
    let script = r#"
        set -eu
        . "$1"
        for v in ${!TERMUX_PKG_@}; do
            printf 'var:%s\0%s\0' "$v" "${!v}"
        done
        for f in $(declare -F | awk '{print $3}'); do
            printf 'fn:%s\0%s\0' "$f" "$(declare -f "$f")"
        done
    "#;
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg("bash")
        .arg(recipe())
        .env_clear()
        .env("PATH", system_path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sourcing build.sh: {}",
        describe(&out)
    );
    let fields: Vec<String> = text(&out.stdout).split('\0').map(str::to_string).collect();
    fields
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| (c[0].trim_start_matches("var:").to_string(), c[1].clone()))
        .collect()
}

#[test]
fn build_recipe_defines_the_required_fields() {
    let r = sourced_recipe();
    let get = |k: &str| {
        r.get(k)
            .unwrap_or_else(|| panic!("build.sh does not set {k}; it sets {:?}", r.keys()))
            .as_str()
    };

    let homepage = get("TERMUX_PKG_HOMEPAGE");
    assert!(homepage.starts_with("https://"), "{homepage}");
    let description = get("TERMUX_PKG_DESCRIPTION");
    assert!(
        !description.is_empty() && description.len() <= 100,
        "termux-packages wants 1..=100 characters: {description:?}"
    );
    // The licences are Cargo.toml's, in termux-packages' comma-separated SPDX form.
    let licenses: Vec<&str> = get("TERMUX_PKG_LICENSE").split(", ").collect();
    let cargo_licenses = cargo_toml_field_workspace("license");
    let cargo_licenses: Vec<&str> = cargo_licenses.split(" OR ").collect();
    assert_eq!(licenses, cargo_licenses);
    assert!(!get("TERMUX_PKG_MAINTAINER").is_empty());
    assert_eq!(get("TERMUX_PKG_VERSION"), cargo_toml_field("version"));
    let srcurl = get("TERMUX_PKG_SRCURL");
    assert!(srcurl.starts_with("https://"), "{srcurl}");
    assert!(
        srcurl.contains(get("TERMUX_PKG_VERSION")),
        "the source URL names the version: {srcurl}"
    );
    let sha = get("TERMUX_PKG_SHA256");
    assert!(
        sha.len() == 64
            && sha
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "TERMUX_PKG_SHA256 must be 64 lowercase hex digits: {sha:?}"
    );
    // Set, even if empty: nexusq is pure Rust and needs only Android's libc.
    get("TERMUX_PKG_DEPENDS");
    assert_eq!(get("TERMUX_PKG_BUILD_IN_SRC"), "true");
}

/// Cargo.toml's `[workspace.package]` value of `field`.
fn cargo_toml_field_workspace(field: &str) -> String {
    let manifest = fs::read_to_string(Path::new(ROOT).join("Cargo.toml")).unwrap();
    let section = manifest.split("[workspace.package]").nth(1).unwrap();
    section
        .lines()
        .take_while(|l| !l.starts_with('['))
        .find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == field).then(|| v.trim().trim_matches('"').to_string())
        })
        .unwrap_or_else(|| panic!("no {field} in [workspace.package]"))
}

#[test]
fn build_recipe_sets_up_rust_builds_locked_for_the_target_and_installs_everything() {
    let r = sourced_recipe();
    let body = |f: &str| {
        r.get(&format!("fn:{f}"))
            .unwrap_or_else(|| panic!("build.sh does not define {f}()"))
            .clone()
    };
    let make = body("termux_step_make");
    assert!(make.contains("termux_setup_rust"), "{make}");
    for part in [
        "cargo build",
        "--release",
        "--locked",
        "--target \"$CARGO_TARGET_NAME\"",
    ] {
        assert!(
            make.contains(part),
            "termux_step_make lacks {part:?}:\n{make}"
        );
    }
    let install = body("termux_step_make_install");
    for part in [
        "$TERMUX_PREFIX/bin",
        "target/$CARGO_TARGET_NAME/release/nexusq",
        "target/$CARGO_TARGET_NAME/release/age-plugin-nexusq",
        "manpage > \"$TERMUX_PREFIX/share/man/man1/nexusq.1\"",
        "completions bash > \"$TERMUX_PREFIX/share/bash-completion/completions/nexusq\"",
        "completions zsh > \"$TERMUX_PREFIX/share/zsh/site-functions/_nexusq\"",
        "completions fish > \"$TERMUX_PREFIX/share/fish/vendor_completions.d/nexusq.fish\"",
    ] {
        assert!(
            install.contains(part),
            "termux_step_make_install lacks {part:?}:\n{install}"
        );
    }
}

/// termux-packages' own lint rules for the file itself: tabs for indentation, no trailing
/// whitespace, exactly one final newline, not executable.
#[test]
fn build_recipe_follows_the_termux_packages_layout_rules() {
    let path = recipe();
    let content = fs::read_to_string(&path).unwrap();
    for (i, line) in content.lines().enumerate() {
        let n = i + 1;
        assert!(
            !line.starts_with(' '),
            "build.sh:{n}: indent with tabs: {line:?}"
        );
        assert!(
            !line.starts_with('\t') || !line.trim_start_matches('\t').starts_with(' '),
            "build.sh:{n}: mixed indentation: {line:?}"
        );
        assert_eq!(line.trim_end(), line, "build.sh:{n}: trailing whitespace");
    }
    assert!(
        content.ends_with('\n') && !content.ends_with("\n\n"),
        "build.sh must end with exactly one newline"
    );
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o111,
        0,
        "build.sh must not be executable ({mode:o})"
    );
}

/// Run the recipe's make steps with stand-ins: `termux_setup_rust` is a no-op, a fake `cargo`
/// logs its arguments (for `build`) or runs the real binary (for `run`, the host build), and
/// the "target" binary is the real one. Both the on-device path (run the target binary) and
/// the cross path (a host build through `cargo run`) must install the same man page and
/// completions as the real binary prints.
#[test]
fn build_recipe_steps_install_the_binary_man_page_and_completions() {
    for on_device in ["true", "false"] {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        let prefix = tmp.path().join("usr");
        let shims = tmp.path().join("shims");
        let log = tmp.path().join("cargo.log");
        let release = src.join("target/aarch64-linux-android/release");
        fs::create_dir_all(&release).unwrap();
        fs::create_dir_all(&prefix).unwrap();
        fs::create_dir_all(&shims).unwrap();
        fs::copy(BIN, release.join("nexusq")).unwrap();
        fs::copy(
            env!("CARGO_BIN_EXE_age-plugin-nexusq"),
            release.join("age-plugin-nexusq"),
        )
        .unwrap();
        write_executable(
            &shims.join("cargo"),
            &format!(
                r#"#!/usr/bin/env bash
printf 'cargo %s [RUSTFLAGS=%s]\n' "$*" "${{RUSTFLAGS-unset}}" >> '{log}'
if [ "$1" = run ]; then
    while [ "$1" != -- ]; do shift; done
    shift
    exec '{bin}' "$@"
fi
"#,
                log = log.display(),
                bin = BIN
            ),
        );
        let script = r#"
            set -euo pipefail
            . "$1"
            termux_setup_rust() { echo "termux_setup_rust" >> "$LOG"; }
            termux_step_make
            termux_step_make_install
        "#;
        let out = Command::new("bash")
            .arg("-c")
            .arg(script)
            .arg("bash")
            .arg(recipe())
            .current_dir(&src)
            .env_clear()
            .env("PATH", format!("{}:{}", shims.display(), system_path()))
            .env("HOME", tmp.path())
            .env("LOG", &log)
            .env("TERMUX_PREFIX", &prefix)
            .env("TERMUX_ON_DEVICE_BUILD", on_device)
            .env("TERMUX_PKG_MAKE_PROCESSES", "2")
            .env("CARGO_TARGET_NAME", "aarch64-linux-android")
            .env("RUSTFLAGS", "-C link-arg=--for-android-only")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "on device {on_device}: {}",
            describe(&out)
        );
        let log = fs::read_to_string(&log).unwrap();
        assert!(log.starts_with("termux_setup_rust\n"), "{log}");
        assert!(
            log.contains("cargo build --jobs 2 --release --locked --target aarch64-linux-android"),
            "{log}"
        );
        let host_runs = log.lines().filter(|l| l.starts_with("cargo run")).count();
        if on_device == "true" {
            assert_eq!(host_runs, 0, "{log}");
        } else {
            // Four generated files; the host build does not see the Android RUSTFLAGS.
            assert_eq!(host_runs, 4, "{log}");
            assert!(
                log.lines()
                    .filter(|l| l.starts_with("cargo run"))
                    .all(|l| l.contains("--release --locked") && l.ends_with("[RUSTFLAGS=unset]")),
                "{log}"
            );
        }
        for name in ["bin/nexusq", "bin/age-plugin-nexusq"] {
            let bin = prefix.join(name);
            assert_eq!(
                fs::metadata(&bin).unwrap().permissions().mode() & 0o777,
                0o700,
                "{name}"
            );
        }
        for (file, args) in [
            ("share/man/man1/nexusq.1", &["manpage"][..]),
            (
                "share/bash-completion/completions/nexusq",
                &["completions", "bash"][..],
            ),
            (
                "share/zsh/site-functions/_nexusq",
                &["completions", "zsh"][..],
            ),
            (
                "share/fish/vendor_completions.d/nexusq.fish",
                &["completions", "fish"][..],
            ),
        ] {
            let installed = fs::read(prefix.join(file))
                .unwrap_or_else(|e| panic!("{file} (on device {on_device}): {e}"));
            assert_eq!(installed, generated(args), "{file} (on device {on_device})");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// termux/install.sh

/// A stand-in phone: HOME and PREFIX in a temporary folder, and shims for `pkg` (logs, and
/// `pkg install -y rust` makes `cargo` appear) and `cargo` (logs; `cargo install` puts a
/// `nexusq` into $CARGO_HOME/bin that runs the real binary, except `bench`, which fails like
/// a broken smoke check so the warning path is exercised).
struct Phone {
    dir: tempfile::TempDir,
}

impl Phone {
    fn new(with_pkg: bool) -> Phone {
        let dir = tempfile::tempdir().unwrap();
        let p = Phone { dir };
        for d in ["home", "usr", "shims", "cargo"] {
            fs::create_dir_all(p.path(d)).unwrap();
        }
        let cargo_shim = format!(
            r#"#!/usr/bin/env bash
printf 'cargo %s (in %s)\n' "$*" "$PWD" >> '{log}'
case "$1" in
--version) echo "cargo 1.0.0 (fake)" ;;
install)
    mkdir -p "$CARGO_HOME/bin"
    cat > "$CARGO_HOME/bin/nexusq" <<'EOF'
#!/usr/bin/env bash
if [ "${{1-}}" = bench ]; then
    echo "fake bench failure" >&2
    exit 7
fi
exec '{bin}' "$@"
EOF
    chmod 755 "$CARGO_HOME/bin/nexusq"
    printf '#!/bin/sh\nexit 0\n' > "$CARGO_HOME/bin/age-plugin-nexusq"
    chmod 755 "$CARGO_HOME/bin/age-plugin-nexusq"
    ;;
esac
"#,
            log = p.path("log").display(),
            bin = BIN
        );
        fs::write(p.path("cargo-shim"), &cargo_shim).unwrap();
        if with_pkg {
            write_executable(
                &p.path("shims/pkg"),
                &format!(
                    r#"#!/usr/bin/env bash
printf 'pkg %s\n' "$*" >> '{log}'
if [ "$*" = "install -y rust" ]; then
    cp '{shim}' '{shims}/cargo'
    chmod 755 '{shims}/cargo'
fi
"#,
                    log = p.path("log").display(),
                    shim = p.path("cargo-shim").display(),
                    shims = p.path("shims").display()
                ),
            );
        }
        p
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn log(&self) -> String {
        fs::read_to_string(self.path("log")).unwrap_or_default()
    }

    fn install(&self) -> Output {
        Command::new("bash")
            .arg(termux_dir().join("install.sh"))
            .current_dir(self.dir.path())
            .env_clear()
            .env(
                "PATH",
                format!("{}:{}", self.path("shims").display(), system_path()),
            )
            .env("HOME", self.path("home"))
            .env("PREFIX", self.path("usr"))
            .env("CARGO_HOME", self.path("cargo"))
            .output()
            .unwrap()
    }

    /// Every file under PREFIX with its bytes.
    fn prefix_files(&self) -> BTreeMap<String, Vec<u8>> {
        fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
            for e in fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, root, out);
                } else {
                    let rel = p.strip_prefix(root).unwrap().display().to_string();
                    out.insert(rel, fs::read(&p).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.path("usr"), &self.path("usr"), &mut out);
        out
    }
}

#[test]
fn install_refuses_politely_without_pkg() {
    let phone = Phone::new(false);
    let out = phone.install();
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let err = text(&out.stderr);
    assert!(err.contains("Termux"), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert!(
        err.contains(&format!("cargo install --locked --path {ROOT}")),
        "the Linux hint names this checkout: {err}"
    );
    // ... and installs the man page, making its folder first (a fresh home has none).
    assert!(
        err.contains("mkdir -p ") && err.contains("/share/man/man1 && nexusq manpage > "),
        "the Linux hint installs the man page: {err}"
    );
    assert!(phone.log().is_empty(), "{}", phone.log());
    assert!(phone.prefix_files().is_empty());
}

#[test]
fn install_with_fake_pkg_installs_rust_builds_and_is_idempotent() {
    let phone = Phone::new(true);
    let first = phone.install();
    assert!(first.status.success(), "{}", describe(&first));

    let log = phone.log();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "pkg install -y rust", "{log}");
    // Both binaries of the package: nexusq and the age plugin beside it.
    let out = String::from_utf8_lossy(&first.stdout);
    assert!(
        out.contains("/age-plugin-nexusq (the age plugin"),
        "{}",
        describe(&first)
    );
    assert!(
        lines.contains(&format!("cargo install --locked --path . (in {ROOT})").as_str()),
        "{log}"
    );

    let files = phone.prefix_files();
    let expected: BTreeMap<String, Vec<u8>> = [
        ("share/man/man1/nexusq.1", &["manpage"][..]),
        (
            "share/bash-completion/completions/nexusq",
            &["completions", "bash"][..],
        ),
        (
            "share/zsh/site-functions/_nexusq",
            &["completions", "zsh"][..],
        ),
        (
            "share/fish/vendor_completions.d/nexusq.fish",
            &["completions", "fish"][..],
        ),
    ]
    .into_iter()
    .map(|(f, args)| (f.to_string(), generated(args)))
    .collect();
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    assert!(
        files == expected,
        "installed files differ from nexusq's output"
    );

    // The smoke check failed (the fake bench exits 7): a warning, not a failure.
    let err = text(&first.stderr);
    assert!(
        err.contains("warning: the smoke check `nexusq bench --iterations 3` failed (exit 7)"),
        "{err}"
    );
    let out = text(&first.stdout);
    let vault = phone.path("home/.local/share/nexusq/vault.nxq");
    for needle in [
        "Next steps:",
        "nexusq init",
        &vault.display().to_string(),
        "termux-setup-storage",
        "~/storage/shared",
        "nexusq vault unlock",
        "nexusq doctor",
        // ~/.cargo/bin (here $CARGO_HOME/bin) is not on PATH yet.
        &format!("put {}/bin on your PATH", phone.path("cargo").display()),
    ] {
        assert!(out.contains(needle), "stdout lacks {needle:?}:\n{out}");
    }

    // Second run: rust is there now (no second pkg call), same files, no leftovers.
    let second = phone.install();
    assert!(second.status.success(), "{}", describe(&second));
    let log = phone.log();
    assert_eq!(log.matches("pkg ").count(), 1, "{log}");
    assert_eq!(log.matches("cargo install").count(), 2, "{log}");
    assert!(text(&second.stdout).contains("Rust is installed"));
    assert!(phone.prefix_files() == expected);
}

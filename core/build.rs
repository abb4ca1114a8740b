//! Build facts for `nexusq bench --json` (core/src/bench/environment.rs): the target triple,
//! the rustc version, the git revision and the versions of the crypto crates from Cargo.lock.
//! Nothing here may fail the build: whatever cannot be found is "unknown".

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates whose versions a benchmark record names.
const CRYPTO_CRATES: &[&str] = &[
    "ml-kem",
    "ml-dsa",
    "slh-dsa",
    "ed25519-dalek",
    "x25519-dalek",
    "curve25519-dalek",
    "aes-gcm",
    "aes",
    "argon2",
    "hkdf",
    "hmac",
    "sha2",
    "sha3",
    "shake",
    "getrandom",
];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    // The workspace's root (Cargo.lock, .git) is this package's folder or the one above it.
    let root = manifest_dir
        .ancestors()
        .take(2)
        .find(|d| d.join("Cargo.lock").exists())
        .unwrap_or(&manifest_dir)
        .to_path_buf();
    println!("cargo:rerun-if-changed=build.rs");

    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=NEXUSQ_BUILD_TARGET={target}");

    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let rustc_version = run(Command::new(rustc).arg("--version")).unwrap_or_else(unknown);
    println!("cargo:rustc-env=NEXUSQ_BUILD_RUSTC={rustc_version}");

    // The flags cargo compiles this crate with (RUSTFLAGS, build.rustflags), space-separated.
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    println!(
        "cargo:rustc-env=NEXUSQ_BUILD_RUSTFLAGS={}",
        rustflags.replace('\x1f', " ")
    );

    println!(
        "cargo:rustc-env=NEXUSQ_BUILD_GIT={}",
        git_revision(&root).unwrap_or_else(unknown)
    );

    let lock = root.join("Cargo.lock");
    if lock.exists() {
        println!("cargo:rerun-if-changed={}", lock.display());
    }
    let crates = std::fs::read_to_string(&lock)
        .map(|text| crate_versions(&text))
        .unwrap_or_default();
    // name=version pairs separated by ';' (parsed back in core/src/bench/environment.rs).
    let list: Vec<String> = CRYPTO_CRATES
        .iter()
        .map(|name| {
            let v = crates
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .unwrap_or("unknown");
            format!("{name}={v}")
        })
        .collect();
    println!("cargo:rustc-env=NEXUSQ_BUILD_CRATES={}", list.join(";"));
}

fn unknown() -> String {
    "unknown".into()
}

/// The trimmed stdout of a command that succeeded.
fn run(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty() && !text.contains('\n')).then(|| text.to_string())
}

/// `git rev-parse --short HEAD`, only when the workspace is itself a git checkout (not a crate
/// unpacked inside someone else's repository). Re-run when HEAD or the branch it names moves.
fn git_revision(dir: &Path) -> Option<String> {
    if !dir.join(".git").exists() {
        return None;
    }
    let git = |args: &[&str]| run(Command::new("git").current_dir(dir).args(args));
    // Only watch files that exist: a missing rerun-if-changed path reruns every build.
    let watch = |path: Option<String>| {
        if let Some(p) = path {
            let p = dir.join(p);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    };
    watch(git(&["rev-parse", "--git-path", "HEAD"]));
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch(git(&["rev-parse", "--git-path", &branch]));
        watch(git(&["rev-parse", "--git-path", "packed-refs"]));
    }
    git(&["rev-parse", "--short", "HEAD"])
}

/// The versions of nexusq's own dependencies, from Cargo.lock. A dependency listed as
/// "name version" (several versions in the lock) takes that version; "name" alone takes the
/// only one. Crates that are not direct dependencies take their version when it is unique.
fn crate_versions(lock: &str) -> Vec<(String, String)> {
    let packages = parse_lock(lock);
    let unique = |name: &str| {
        let mut found = packages.iter().filter(|p| p.name == name);
        match (found.next(), found.next()) {
            (Some(p), None) => Some(p.version.clone()),
            _ => None,
        }
    };
    let own = packages.iter().find(|p| p.name == "nexusq-core");
    let mut out = Vec::new();
    for name in CRYPTO_CRATES {
        let direct = own.and_then(|p| {
            p.dependencies.iter().find_map(|d| {
                let mut parts = d.split_whitespace();
                (parts.next() == Some(name)).then(|| parts.next().map(str::to_string))
            })
        });
        let version = match direct {
            Some(Some(v)) => Some(v),
            _ => unique(name),
        };
        if let Some(v) = version {
            out.push((name.to_string(), v));
        }
    }
    out
}

struct Package {
    name: String,
    version: String,
    dependencies: Vec<String>,
}

/// Just enough TOML for Cargo.lock's `[[package]]` tables.
fn parse_lock(text: &str) -> Vec<Package> {
    let mut packages: Vec<Package> = Vec::new();
    let mut in_package = false;
    let mut in_deps = false;
    let unquote = |s: &str| {
        s.trim()
            .trim_end_matches(',')
            .trim()
            .trim_matches('"')
            .to_string()
    };
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') && !in_deps {
            in_package = line == "[[package]]";
            if in_package {
                packages.push(Package {
                    name: String::new(),
                    version: String::new(),
                    dependencies: Vec::new(),
                });
            }
            continue;
        }
        let Some(pkg) = packages.last_mut().filter(|_| in_package) else {
            continue;
        };
        if in_deps {
            if line.starts_with(']') {
                in_deps = false;
            } else if !line.is_empty() {
                pkg.dependencies.push(unquote(line));
            }
        } else if let Some((key, value)) = line.split_once('=') {
            match key.trim() {
                "name" => pkg.name = unquote(value),
                "version" => pkg.version = unquote(value),
                "dependencies" => {
                    let value = value.trim();
                    if value.starts_with('[') && value.ends_with(']') {
                        pkg.dependencies = value[1..value.len() - 1]
                            .split(',')
                            .map(unquote)
                            .filter(|s| !s.is_empty())
                            .collect();
                    } else {
                        in_deps = true;
                    }
                }
                _ => {}
            }
        }
    }
    packages
}

//! Records the toolchain, target, flags, git revision and locked library versions for the
//! environment record.

use std::{env, fs, process::Command};

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=RUSTFLAGS");
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    println!("cargo:rustc-env=ARENA_RUSTC={}", version.trim());
    println!(
        "cargo:rustc-env=ARENA_TARGET={}",
        env::var("TARGET").unwrap()
    );
    println!(
        "cargo:rustc-env=ARENA_RUSTFLAGS={}",
        flags.replace('\x1f', " ")
    );

    println!("cargo:rustc-env=ARENA_GIT={}", git_revision());

    // `name = "x"` is followed by `version = "y"` in every [[package]] entry of Cargo.lock.
    let lock = fs::read_to_string("Cargo.lock").unwrap_or_default();
    let mut versions = Vec::new();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("name = ") else {
            continue;
        };
        let name = name.trim_matches('"');
        let wanted = [
            "ml-kem",
            "aws-lc-rs",
            "aws-lc-sys",
            "libcrux-ml-kem",
            "pqcrypto-mlkem",
            "ml-dsa",
            "libcrux-ml-dsa",
            "pqcrypto-mldsa",
            "oqs",
            "oqs-sys",
            "slh-dsa",
            "pqcrypto-sphincsplus",
            "x-wing",
            "boring",
            "boring-sys",
            "nexusq-core",
            "nexusq-native",
            // Locked whether or not the feature is on: recorded only when it is.
            "openssl-src",
            "openssl-sys",
        ];
        // BoringSSL is in Cargo.lock whether or not the `boring` feature built it.
        let boring = name.starts_with("boring");
        let openssl = env::var_os("CARGO_FEATURE_OPENSSL").is_some();
        if name.starts_with("openssl") && !openssl {
            continue;
        }
        if wanted.contains(&name)
            && (!boring || env::var_os("CARGO_FEATURE_BORING").is_some())
            && let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = "))
        {
            versions.push(format!("{name}={}", v.trim_matches('"')));
        }
    }
    println!("cargo:rustc-env=ARENA_VERSIONS={}", versions.join(","));
}

/// `git rev-parse --short HEAD` of the checkout the arena is in, or "unknown"; rebuilt when
/// HEAD moves.
fn git_revision() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    for path in [
        git(&["rev-parse", "--git-path", "HEAD"]),
        git(&["rev-parse", "--symbolic-full-name", "HEAD"])
            .and_then(|branch| git(&["rev-parse", "--git-path", &branch])),
    ]
    .into_iter()
    .flatten()
    {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into())
}

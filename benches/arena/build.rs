//! Records the toolchain, target, flags and locked library versions for the environment record.

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
            "slh-dsa",
            "pqcrypto-sphincsplus",
        ];
        if wanted.contains(&name)
            && let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = "))
        {
            versions.push(format!("{name}={}", v.trim_matches('"')));
        }
    }
    println!("cargo:rustc-env=ARENA_VERSIONS={}", versions.join(","));
}

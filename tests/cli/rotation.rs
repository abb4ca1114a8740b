//! Key rotation through the real binary: history, parallel rotations, sudden death, and
//! the cross-generation promises of docs/signature-format.md, section 4.

use crate::common;
use crate::common::TestVault;
use nexusq_core::secret::{Password, random_array};
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::vault::{self, Argon2id};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

const PASSWORD: &str = "rotation test password";

/// A [`TestVault`] `v.nxq` in its own temporary folder, password [`PASSWORD`].
struct Vault {
    _tmp: tempfile::TempDir,
    v: TestVault,
}

impl std::ops::Deref for Vault {
    type Target = TestVault;
    fn deref(&self) -> &TestVault {
        &self.v
    }
}

impl Vault {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let v = TestVault::with_password(tmp.path(), "v", PASSWORD);
        Vault { _tmp: tmp, v }
    }

    fn rotate(&self, extra: &[&str]) -> std::process::Output {
        self.cmd()
            .arg("rotate")
            .arg("--password-file")
            .arg(&self.pw)
            .args(extra)
            .output()
            .unwrap()
    }

    fn generation(&self) -> u64 {
        self.open_json()["generation"].as_u64().unwrap()
    }

    /// Library-level unlock: the vault is whole and its secrets match its public keys.
    fn unlocks(&self) -> bool {
        let pw = Password::new(Zeroizing::new(PASSWORD.into()));
        vault::open(&self.path)
            .and_then(|f| f.unlock(&pw, &Argon2id, &RustCrypto))
            .and_then(|u| u.root(&RustCrypto).map(|_| ()))
            .is_ok()
    }
}

#[test]
fn twenty_rotations_keep_a_verified_history() {
    let v = Vault::new();
    let fp = v.fingerprint();
    // The export of generation 1, taken before any rotation.
    let gen1 = v.dir.join("gen1.pub");
    v.cmd()
        .args(["identity", "export", "-o"])
        .arg(&gen1)
        .assert()
        .success();
    // A file encrypted to every generation's export, as people holding it would.
    let mut encrypted = Vec::new();
    for i in 0..=20 {
        let export = v.dir.join(format!("gen{}.pub", i + 1));
        if i > 0 {
            let out = v.rotate(&["--reason", &format!("rotation {i}"), "--validity", "30"]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            v.cmd()
                .args(["identity", "export", "-o"])
                .arg(&export)
                .assert()
                .success();
        }
        let plain = v.dir.join(format!("plain{}", i + 1));
        std::fs::write(&plain, format!("sent to generation {}", i + 1)).unwrap();
        let enc = v.dir.join(format!("enc{}", i + 1));
        v.cmd()
            .arg("encrypt")
            .arg("--to")
            .arg(&export)
            .arg("-o")
            .arg(&enc)
            .arg(&plain)
            .assert()
            .success();
        encrypted.push((plain, enc));
    }
    assert_eq!(v.generation(), 21);
    // Every one of them still decrypts with the vault at generation 21.
    for (plain, enc) in &encrypted {
        let out = v
            .cmd()
            .arg("decrypt")
            .arg("--password-file")
            .arg(&v.pw)
            .arg(enc)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            enc.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, std::fs::read(plain).unwrap());
    }
    // A signature made at generation 21 verifies with the export taken at generation 1.
    let msg = v.dir.join("msg");
    std::fs::write(&msg, "signed at generation 21").unwrap();
    let sig = v.dir.join("msg.sig");
    v.cmd()
        .arg("sign")
        .arg(&msg)
        .arg("-o")
        .arg(&sig)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .success();
    let out = v
        .cmd()
        .arg("--json")
        .arg("verify")
        .arg(&msg)
        .arg("--sig")
        .arg(&sig)
        .arg("--identity")
        .arg(&gen1)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["valid"], true);
    assert_eq!(r["generation"], 21);
    assert_eq!(r["fingerprint"], fp);
    assert_eq!(
        v.open_json()["fingerprint"],
        fp,
        "the fingerprint never changes"
    );
    let out = v
        .cmd()
        .args(["identity", "history", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let h: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(h["chain_verified"], true);
    let gens = h["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 21);
    assert_eq!(gens[5]["reason"], "rotation 5");
    assert_eq!(gens[20]["status"], "newest");
    assert_eq!(gens[3]["status"], "superseded");
    assert!(v.unlocks());
    // A full-history export verifies as a chain for anyone.
    let full = v.dir.join("full.pub");
    v.cmd()
        .args(["identity", "export", "--full-history", "-o"])
        .arg(&full)
        .assert()
        .success();
    let out = v
        .cmd()
        .args(["--json", "identity", "show"])
        .arg(&full)
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["full_history"], true);
    assert_eq!(s["generations"].as_array().unwrap().len(), 21);
}

#[test]
fn four_parallel_rotations_lose_nothing() {
    let v = Vault::new();
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut c = std::process::Command::new(common::BIN);
            c.env_remove("NEXUSQ_VAULT").arg("--vault").arg(&v.path);
            c.args(["rotate", "--lock-timeout", "60", "--password-file"])
                .arg(&v.pw);
            c.stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut succeeded = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        match out.status.code() {
            Some(0) => succeeded += 1,
            other => eprintln!(
                "a rotation failed ({other:?}): {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    assert_eq!(
        succeeded, 4,
        "with a 60 s lock timeout every rotation should get its turn"
    );
    assert_eq!(v.generation(), 1 + succeeded);
    assert!(v.unlocks());
    let out = v
        .cmd()
        .args(["identity", "history", "--json"])
        .output()
        .unwrap();
    let h: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(h["chain_verified"], true);
}

#[test]
fn sigkill_during_rotation_never_leaves_half_a_generation() {
    let v = Vault::new();
    let start = Instant::now();
    assert!(v.rotate(&[]).status.success());
    let full = start.elapsed();
    let mut generation = 2;
    for round in 0..25 {
        let mut child = std::process::Command::new(common::BIN);
        child.env_remove("NEXUSQ_VAULT").arg("--vault").arg(&v.path);
        child.args(["rotate", "--password-file"]).arg(&v.pw);
        let mut child = child
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let delay = u64::from_le_bytes(random_array()) % (full.as_micros() as u64 * 6 / 5).max(1);
        std::thread::sleep(Duration::from_micros(delay));
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            v.unlocks(),
            "round {round}: the vault does not unlock after a kill at {delay} µs"
        );
        let now = v.generation();
        assert!(
            now == generation || now == generation + 1,
            "round {round}: generation {now}"
        );
        generation = now;
    }
    eprintln!("25 kills over {full:?}: generation went from 2 to {generation}");
}

#[test]
fn retiring_and_usage_errors() {
    let v = Vault::new();
    for _ in 0..3 {
        assert!(v.rotate(&[]).status.success());
    }
    // No terminal and no --yes: refused, nothing changes.
    let before = std::fs::read(&v.path).unwrap();
    let out = v.rotate(&["--retire-older-than", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&v.path).unwrap(), before);
    let out = v.rotate(&["--retire-older-than", "2", "--yes", "--json"]);
    assert!(out.status.success());
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["generation"], 5);
    assert_eq!(r["retired"], serde_json::json!([1, 2, 3]));
    assert!(v.unlocks());
    assert_eq!(
        v.rotate(&["--retire-older-than", "0", "--yes"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        v.rotate(&["--reason", &"x".repeat(201)]).status.code(),
        Some(2)
    );
    assert_eq!(v.rotate(&["--validity", "0"]).status.code(), Some(2));
    let wrong = v.dir.join("wrong");
    std::fs::write(&wrong, "nope\n").unwrap();
    assert_eq!(
        v.cmd()
            .arg("rotate")
            .arg("--password-file")
            .arg(&wrong)
            .output()
            .unwrap()
            .status
            .code(),
        Some(3)
    );
}

#[test]
fn revoke_publishes_the_statement_from_init() {
    let v = Vault::new();
    let statement = PathBuf::from(format!("{}.revocation.asc", v.path.display()));
    let out_path = v.dir.join("revoked.pub");
    v.cmd()
        .args(["identity", "revoke", "--yes"])
        .arg(&statement)
        .arg("--password-file")
        .arg(&v.pw)
        .arg("-o")
        .arg(&out_path)
        .assert()
        .success();
    let out = v
        .cmd()
        .args(["--json", "identity", "show"])
        .arg(&out_path)
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["revoked"], true);
    // Later exports carry it too, and encryption to it is refused.
    let later = v.dir.join("later.pub");
    // A revoked identity's export is what its owner must share: no --force needed, and a
    // warning says what it carries (docs/cli.md). Its age recipient alone is refused.
    let out = v
        .cmd()
        .args(["identity", "export", "-o"])
        .arg(&later)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("carries the revocation"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    v.cmd()
        .args(["identity", "export", "--age"])
        .assert()
        .code(1);
    let ct = v.dir.join("c.env");
    v.cmd()
        .arg("encapsulate")
        .arg("--to")
        .arg(&later)
        .arg("-o")
        .arg(&ct)
        .assert()
        .code(1);
    // Another identity's statement is refused.
    let other = Vault::new();
    let foreign = PathBuf::from(format!("{}.revocation.asc", other.path.display()));
    v.cmd()
        .args(["identity", "revoke", "--yes"])
        .arg(&foreign)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .code(1);
    // Not a revocation at all.
    v.cmd()
        .args(["identity", "revoke", "--yes"])
        .arg(&later)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .code(1);
}

/// Every root operation on `--backend native` interoperates with the default backend: a vault
/// made, rotated (with a revocation) and revoked on one backend has certificates and
/// revocations the other verifies (identity history, identity show, signature verification,
/// encapsulation to it), and the other backend can rotate it further.
#[test]
fn root_operations_interoperate_across_backends() {
    let tmp = tempfile::tempdir().unwrap();
    for (maker, other) in [("native", "rustcrypto"), ("rustcrypto", "native")] {
        let pw = tmp.path().join(format!("{maker}.pw"));
        let v = TestVault {
            dir: tmp.path().to_path_buf(),
            path: tmp.path().join(format!("{maker}.nxq")),
            pw: common::private_file(&pw, format!("{PASSWORD}\n")),
        };
        v.cmd()
            .args(["--backend", maker, "init"])
            .args(common::SMALL_KDF)
            .arg("--password-file")
            .arg(&v.pw)
            .assert()
            .success();
        let run = |backend: &str, args: &[&str]| {
            let o = v
                .cmd()
                .args(["--backend", backend])
                .args(args)
                .arg("--password-file")
                .arg(&v.pw)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{backend} {args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            o.stdout
        };
        run(
            maker,
            &["rotate", "--compromised", "--reason", "made by the maker"],
        );
        run(other, &["rotate", "--reason", "made by the other"]);
        for backend in [maker, other] {
            // `identity history` reads the public section only: no password option.
            let o = v
                .cmd()
                .args(["--backend", backend, "--json", "identity", "history"])
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{backend}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let h: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(h["chain_verified"], true, "{backend}: {h}");
            assert_eq!(h["generations"].as_array().unwrap().len(), 3);
            assert_eq!(h["revocation_count"], 1);
        }
        // A signature by generation 3, verified on both backends against the vault and
        // against an export made by the maker.
        let data = v.dir.join(format!("{maker}.data"));
        std::fs::write(&data, b"signed across backends").unwrap();
        let sig = v.dir.join(format!("{maker}.sig"));
        let mut sign = vec!["sign".to_string(), data.display().to_string()];
        sign.extend(["-o".into(), sig.display().to_string()]);
        run(maker, &sign.iter().map(String::as_str).collect::<Vec<_>>());
        let export = v.dir.join(format!("{maker}.export"));
        run(
            maker,
            &[
                "identity",
                "export",
                "--full-history",
                "-o",
                &export.display().to_string(),
            ],
        );
        for backend in [maker, other] {
            for identity in [None, Some(&export)] {
                let mut c = v.cmd();
                c.args(["--backend", backend, "verify"])
                    .arg(&data)
                    .arg("--sig")
                    .arg(&sig);
                if let Some(p) = identity {
                    c.arg("--identity").arg(p);
                }
                c.assert().success();
            }
            let shown: serde_json::Value = serde_json::from_slice(
                &v.cmd()
                    .args(["--backend", backend, "--json", "identity", "show"])
                    .arg(&export)
                    .output()
                    .unwrap()
                    .stdout,
            )
            .unwrap();
            assert_eq!(shown["revoked"], false, "{backend}: {shown}");
            let ct = v.dir.join(format!("{maker}-{backend}.env"));
            v.cmd()
                .args(["--backend", backend, "encapsulate", "--to"])
                .arg(&export)
                .arg("-o")
                .arg(&ct)
                .assert()
                .success();
        }
        // The whole-identity revocation from init, published by the other backend, verified
        // by the maker.
        let statement = format!("{}.revocation.asc", v.path.display());
        let revoked = v.dir.join(format!("{maker}.revoked"));
        run(
            other,
            &[
                "identity",
                "revoke",
                "--yes",
                &statement,
                "-o",
                &revoked.display().to_string(),
            ],
        );
        let shown: serde_json::Value = serde_json::from_slice(
            &v.cmd()
                .args(["--backend", maker, "--json", "identity", "show"])
                .arg(&revoked)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        assert_eq!(shown["revoked"], true, "{shown}");
        assert_eq!(shown["revocations"].as_array().unwrap().len(), 2, "{shown}");
    }
}

#[test]
fn expired_exports_are_refused_unless_allowed() {
    // An injectable clock: rotate through the library with "now" ten days ago and a one-day
    // validity, so the newest certificate expired nine days ago without any sleeping.
    let v = Vault::new();
    let pw = Password::new(Zeroizing::new(PASSWORD.into()));
    let ten_days_ago = nexusq_core::time::now() - 10 * 86_400;
    let rotation = nexusq_core::identity::rotation::RotateOptions {
        reason: "short-lived".into(),
        validity_days: 1,
        ..Default::default()
    };
    vault::rotate(
        &v.path,
        &pw,
        &Default::default(),
        &rotation,
        &RustCrypto,
        ten_days_ago,
    )
    .unwrap();
    let export = v.dir.join("expired.pub");
    v.cmd()
        .args(["identity", "export", "-o"])
        .arg(&export)
        .assert()
        .success();
    let plain = v.dir.join("p");
    std::fs::write(&plain, "x").unwrap();
    let enc = v.dir.join("p.nxq");
    let out = v
        .cmd()
        .arg("encrypt")
        .arg("--to")
        .arg(&export)
        .arg("-o")
        .arg(&enc)
        .arg(&plain)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("expired") && stderr.contains("fresh export"),
        "{stderr}"
    );
    assert!(!enc.exists());
    let ct = v.dir.join("k.env");
    v.cmd()
        .arg("encapsulate")
        .arg("--to")
        .arg(&export)
        .arg("-o")
        .arg(&ct)
        .assert()
        .code(1);
    // With --allow-expired it goes through, and the owner decrypts it.
    v.cmd()
        .arg("encrypt")
        .arg("--allow-expired")
        .arg("--to")
        .arg(&export)
        .arg("-o")
        .arg(&enc)
        .arg(&plain)
        .assert()
        .success();
    let out = v
        .cmd()
        .arg("decrypt")
        .arg("--password-file")
        .arg(&v.pw)
        .arg(&enc)
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"x");
    // An expired generation no longer signs: verifiers refuse a signing time after its validity
    // (docs/signature-format.md, section 4), so `sign` says to rotate instead of making one.
    let sig = v.dir.join("p.sig");
    let out = v
        .cmd()
        .arg("sign")
        .arg(&plain)
        .arg("-o")
        .arg(&sig)
        .arg("--password-file")
        .arg(&v.pw)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("expired") && stderr.contains("nexusq rotate"),
        "{stderr}"
    );
    assert!(!sig.exists());
    // After a rotation it signs again, and the old export (which knows only the expired
    // generation) accepts the new generation's signature through the certificate chain.
    assert!(v.rotate(&[]).status.success());
    v.cmd()
        .arg("sign")
        .arg(&plain)
        .arg("-o")
        .arg(&sig)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .success();
    v.cmd()
        .arg("verify")
        .arg(&plain)
        .arg("--sig")
        .arg(&sig)
        .arg("--identity")
        .arg(&export)
        .assert()
        .success();
}

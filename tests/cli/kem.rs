//! `encapsulate`, `decapsulate` and `identity show` through the real binary.

use crate::common;
use crate::common::TestVault;
use assert_cmd::Command;
use std::path::Path;

/// The binary with a clean environment and NO_COLOR=1.
fn bin() -> Command {
    let mut c = common::bin();
    c.env("NO_COLOR", "1");
    c
}

/// `decapsulate` with the vault's password file.
trait Decapsulate {
    fn decapsulate(&self, ct: &Path, extra: &[&str]) -> std::process::Output;
}

impl Decapsulate for TestVault {
    fn decapsulate(&self, ct: &Path, extra: &[&str]) -> std::process::Output {
        self.cmd()
            .arg("decapsulate")
            .arg(ct)
            .args(extra)
            .arg("--password-file")
            .arg(&self.pw)
            .output()
            .unwrap()
    }
}

fn encapsulate(to: &Path, out: &Path, extra: &[&str]) -> String {
    let o = bin()
        .arg("encapsulate")
        .arg("--to")
        .arg(to)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ss = String::from_utf8(o.stdout).unwrap();
    assert_eq!(ss.trim().len(), 64, "{ss}");
    ss.trim().to_string()
}

fn secret(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn round_trip_both_suites_and_raw() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "alice");
    let to = a.export();
    for suite in ["mlkem768-x25519", "mlkem1024-x25519"] {
        let ct = dir.path().join(format!("{suite}.env"));
        let o = bin()
            .arg("encapsulate")
            .arg("--to")
            .arg(&to)
            .arg("-o")
            .arg(&ct)
            .args(["--suite", suite])
            .output()
            .unwrap();
        assert!(o.status.success());
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains(&a.fingerprint()),
            "peer fingerprint on stderr: {stderr}"
        );
        let ss = String::from_utf8(o.stdout).unwrap().trim().to_string();
        assert_eq!(secret(&a.decapsulate(&ct, &[])), ss);
        // Raw: bare ciphertext of the right length, decapsulated with --generation.
        let raw = dir.path().join(format!("{suite}.raw"));
        let ss = encapsulate(&to, &raw, &["--suite", suite, "--raw"]);
        let len = std::fs::metadata(&raw).unwrap().len();
        assert_eq!(
            len,
            if suite.starts_with("mlkem768") {
                1120
            } else {
                1600
            }
        );
        assert_eq!(
            secret(&a.decapsulate(&raw, &["--raw", "--generation", "1", "--suite", suite])),
            ss
        );
    }
    // JSON carries the same secret.
    let ct = dir.path().join("j.env");
    let o = bin()
        .arg("--json")
        .arg("encapsulate")
        .arg("--to")
        .arg(&to)
        .arg("-o")
        .arg(&ct)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["generation"], 1);
    let o = a
        .cmd()
        .arg("--json")
        .arg("decapsulate")
        .arg(&ct)
        .arg("--password-file")
        .arg(&a.pw)
        .output()
        .unwrap();
    let w: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["shared_secret"], w["shared_secret"]);
    assert_eq!(w["confirmed"], true);
}

#[test]
fn wrong_recipient_and_tampering_are_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "alice");
    let b = TestVault::new(dir.path(), "bob");
    let ct = dir.path().join("to-alice.env");
    encapsulate(&a.export(), &ct, &[]);
    let o = b.decapsulate(&ct, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not for this vault"));

    // Flips across the envelope (header, ciphertext, tag) and truncations: exit 1, no secret.
    let original = std::fs::read(&ct).unwrap();
    let bad = dir.path().join("bad.env");
    let positions: Vec<usize> = (0..original.len())
        .step_by(original.len() / 40)
        .chain([original.len() - 1])
        .collect();
    for pos in positions {
        let mut bytes = original.clone();
        bytes[pos] ^= 0x10;
        std::fs::write(&bad, &bytes).unwrap();
        let o = a.decapsulate(&bad, &[]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "flip at {pos}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.stdout.is_empty(), "flip at {pos} printed a secret");
    }
    for cut in [
        0,
        3,
        4,
        5,
        40,
        41,
        500,
        original.len() - 33,
        original.len() - 1,
    ] {
        std::fs::write(&bad, &original[..cut]).unwrap();
        let o = a.decapsulate(&bad, &[]);
        assert_eq!(o.status.code(), Some(1), "truncated to {cut}");
    }
    let mut longer = original.clone();
    longer.push(0);
    std::fs::write(&bad, &longer).unwrap();
    assert_eq!(a.decapsulate(&bad, &[]).status.code(), Some(1));
    // A generation the vault does not have.
    let raw = dir.path().join("r.raw");
    encapsulate(&a.export(), &raw, &["--raw"]);
    assert_eq!(
        a.decapsulate(&raw, &["--raw", "--generation", "7"])
            .status
            .code(),
        Some(1)
    );
    // A raw ciphertext of the wrong length.
    assert_eq!(
        a.decapsulate(&ct, &["--raw", "--generation", "1"])
            .status
            .code(),
        Some(1)
    );
    // A missing file is an I/O error.
    assert_eq!(
        a.decapsulate(&dir.path().join("nope"), &[]).status.code(),
        Some(5)
    );
}

#[test]
fn expect_fingerprint_and_bad_exports() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "alice");
    let b = TestVault::new(dir.path(), "bob");
    let to = a.export();
    let ct = dir.path().join("c.env");
    // Matching fingerprint, typed without dashes in upper case.
    let typed = a.fingerprint().replace('-', "").to_uppercase();
    encapsulate(&to, &ct, &["--expect-fingerprint", &typed]);
    // Someone else's fingerprint: exit 1, nothing written.
    std::fs::remove_file(&ct).unwrap();
    bin()
        .arg("encapsulate")
        .arg("--to")
        .arg(&to)
        .arg("-o")
        .arg(&ct)
        .args(["--expect-fingerprint", &b.fingerprint()])
        .assert()
        .code(1);
    assert!(!ct.exists());
    // Not a fingerprint at all: usage error.
    bin()
        .arg("encapsulate")
        .arg("--to")
        .arg(&to)
        .arg("-o")
        .arg(&ct)
        .args(["--expect-fingerprint", "xyz"])
        .assert()
        .code(2);
    // A damaged export: exit 1 for encapsulate and identity show.
    let text = std::fs::read_to_string(&to).unwrap();
    let damaged = dir.path().join("damaged.pub");
    for bad in [
        text.replacen('A', "B", 1),
        text[..text.len() / 2].to_string(),
        text.replace("PUBLIC IDENTITY", "SIGNATURE"),
        String::new(),
    ] {
        std::fs::write(&damaged, &bad).unwrap();
        bin()
            .arg("encapsulate")
            .arg("--to")
            .arg(&damaged)
            .arg("-o")
            .arg(&ct)
            .assert()
            .code(1);
        bin()
            .args(["identity", "show"])
            .arg(&damaged)
            .assert()
            .code(1);
    }
    assert!(!ct.exists());
}

#[test]
fn identity_show_reports_the_export() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "alice");
    let to = a.export();
    let o = bin().args(["identity", "show"]).arg(&to).output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains(&format!("fingerprint: {}", a.fingerprint())),
        "{text}"
    );
    assert!(text.contains("generation 1: created"), "{text}");
    let o = bin()
        .args(["--json", "identity", "show"])
        .arg(&to)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["fingerprint"], a.fingerprint());
    assert_eq!(v["generation"], 1);
    assert_eq!(v["revoked"], false);
    assert_eq!(v["generations"][0]["expired"], false);
}

/// `--backend native` and the default interoperate byte for byte: each side decapsulates what
/// the other encapsulated, for both suites, and both backends derive the same export.
#[test]
fn backends_interoperate() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "alice");
    let to = a.export();
    let export_with = |backend: &str| {
        let o = a
            .cmd()
            .args([
                "--backend",
                backend,
                "identity",
                "export",
                "--password-file",
            ])
            .arg(&a.pw)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o.stdout
    };
    assert_eq!(export_with("native"), export_with("rustcrypto"));
    for suite in ["mlkem768-x25519", "mlkem1024-x25519"] {
        for (from, to_backend) in [
            ("native", "rustcrypto"),
            ("rustcrypto", "native"),
            ("native", "native"),
        ] {
            let ct = dir.path().join(format!("{suite}-{from}.env"));
            let ss = encapsulate(&to, &ct, &["--suite", suite, "--backend", from]);
            assert_eq!(
                secret(&a.decapsulate(&ct, &["--backend", to_backend])),
                ss,
                "{suite}: {from} -> {to_backend}"
            );
        }
    }
}

//! OpenPGP (docs/openpgp.md) through the binary: the certificate export, messages both ways,
//! detached signatures, what `vault open` and `identity show` say, and hostile input. The
//! other implementation (pysequoia) is in tests/interop/sequoia.rs.

use crate::common::TestVault;
use std::path::{Path, PathBuf};

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fails(out: &std::process::Output, code: i32, needle: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
    err
}

fn export(v: &TestVault, extra: &[&str]) -> PathBuf {
    let out = v.dir.join(format!(
        "{}-{}.asc",
        v.path.file_stem().unwrap().to_string_lossy(),
        extra.len()
    ));
    let _ = std::fs::remove_file(&out);
    let o = v
        .cmd()
        .args(["identity", "export", "--openpgp", "--password-file"])
        .arg(&v.pw)
        .args(extra)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    ok(&o);
    out
}

fn openpgp_fp(v: &TestVault) -> String {
    v.open_json()["openpgp_fingerprint"]
        .as_str()
        .unwrap()
        .to_string()
}

fn decrypt(v: &TestVault, file: &Path) -> std::process::Output {
    v.cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg(file)
        .arg("-o")
        .arg("-")
        .output()
        .unwrap()
}

#[test]
fn export_is_an_armored_v6_certificate_with_a_stable_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let cert = export(&v, &["--user-id", "Alice <alice@example.org>"]);
    let text = std::fs::read_to_string(&cert).unwrap();
    assert!(text.starts_with("-----BEGIN PGP PUBLIC KEY BLOCK-----"));
    let fp = openpgp_fp(&v);
    assert_eq!(fp.len(), 64, "a v6 fingerprint: {fp}");
    // `identity show` of the certificate names the same fingerprint, its keys, the user ID.
    let out = v
        .cmd()
        .args(["identity", "show", "--json"])
        .arg(&cert)
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(j["openpgp_fingerprint"], fp.as_str());
    assert_eq!(j["user_id"], "Alice <alice@example.org>");
    let algos: Vec<&str> = j["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["algorithm"].as_str().unwrap())
        .collect();
    assert_eq!(algos.len(), 3, "{algos:?}");
    assert!(
        j["keys"]
            .as_array()
            .unwrap()
            .iter()
            .all(|k| k["post_quantum"] == true)
    );
    // The same fingerprint after a rotation, and the new generation's subkeys are there.
    ok(&v
        .cmd()
        .args(["rotate", "--password-file"])
        .arg(&v.pw)
        .output()
        .unwrap());
    assert_eq!(openpgp_fp(&v), fp);
    let again = export(&v, &[]);
    let out = v
        .cmd()
        .args(["identity", "show", "--json"])
        .arg(&again)
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(j["openpgp_fingerprint"], fp.as_str());
    assert!(j["user_id"].is_null());
    let encrypting = j["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["usage"] == "encrypt")
        .count();
    assert_eq!(encrypting, 2, "both generations still decrypt: {j}");
    // vault open prints it for people too.
    let out = v.cmd().args(["vault", "open"]).output().unwrap();
    let text = ok(&out);
    assert!(text.contains("openpgp:"), "{text}");
}

#[test]
fn messages_to_the_certificate_decrypt_streaming_and_armored() {
    let dir = tempfile::tempdir().unwrap();
    let alice = TestVault::new(dir.path(), "alice");
    let bob = TestVault::new(dir.path(), "bob");
    let cert = export(&alice, &[]);
    let plain = dir.path().join("plain.bin");
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&plain, &data).unwrap();
    for armor in [false, true] {
        let ct = dir.path().join(format!("msg-{armor}.pgp"));
        let mut c = bob.cmd();
        c.args(["encrypt", "--to"]).arg(&cert).arg("-o").arg(&ct);
        if armor {
            c.arg("--armor");
        }
        ok(&c.arg(&plain).output().unwrap());
        let head = std::fs::read(&ct).unwrap();
        assert_eq!(head.starts_with(b"-----BEGIN PGP MESSAGE-----"), armor);
        let out = dir.path().join(format!("out-{armor}"));
        let o = alice
            .cmd()
            .args(["decrypt", "--json", "--password-file"])
            .arg(&alice.pw)
            .arg("-o")
            .arg(&out)
            .arg(&ct)
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
        assert_eq!(j["format"], "openpgp");
        assert_eq!(j["post_quantum_only"], true);
        assert_eq!(std::fs::read(&out).unwrap(), data);
        // Bob's vault holds no key for it.
        let o = decrypt(&bob, &ct);
        fails(&o, 1, "not for this identity");
    }
}

#[test]
fn a_rotated_identity_still_opens_messages_to_its_old_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let old = export(&v, &[]);
    let msg = dir.path().join("old.pgp");
    let plain = dir.path().join("p.txt");
    std::fs::write(&plain, "to generation 1\n").unwrap();
    ok(&v
        .cmd()
        .args(["encrypt", "--to"])
        .arg(&old)
        .arg("-o")
        .arg(&msg)
        .arg(&plain)
        .output()
        .unwrap());
    ok(&v
        .cmd()
        .args(["rotate", "--password-file"])
        .arg(&v.pw)
        .output()
        .unwrap());
    let o = decrypt(&v, &msg);
    assert_eq!(ok(&o), "to generation 1\n");
    assert!(String::from_utf8_lossy(&o.stderr).contains("superseded"));
    // To itself with --openpgp --to-self: the newest generation.
    let own = dir.path().join("own.pgp");
    ok(&v
        .cmd()
        .args(["encrypt", "--openpgp", "--to-self", "-o"])
        .arg(&own)
        .arg(&plain)
        .output()
        .unwrap());
    assert_eq!(ok(&decrypt(&v, &own)), "to generation 1\n");
}

#[test]
fn detached_signatures_verify_against_the_certificate_only() {
    let dir = tempfile::tempdir().unwrap();
    let alice = TestVault::new(dir.path(), "alice");
    let bob = TestVault::new(dir.path(), "bob");
    let cert = export(&alice, &[]);
    let bob_cert = export(&bob, &[]);
    let data = dir.path().join("release.tar");
    std::fs::write(&data, b"release bytes").unwrap();
    let sig = dir.path().join("release.tar.asc");
    let o = alice
        .cmd()
        .args(["sign", "--openpgp", "--json", "--password-file"])
        .arg(&alice.pw)
        .arg("-o")
        .arg(&sig)
        .arg(&data)
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(j["openpgp_fingerprint"], openpgp_fp(&alice).as_str());
    assert!(
        std::fs::read_to_string(&sig)
            .unwrap()
            .starts_with("-----BEGIN PGP SIGNATURE-----")
    );
    let verify = |id: &Path, file: &Path| {
        bob.cmd()
            .args(["verify", "--json", "--sig"])
            .arg(&sig)
            .arg("--identity")
            .arg(id)
            .arg(file)
            .output()
            .unwrap()
    };
    let j: serde_json::Value = serde_json::from_str(&ok(&verify(&cert, &data))).unwrap();
    assert_eq!(j["valid"], true);
    assert_eq!(j["algorithm"], "ML-DSA-65+Ed25519");
    // Another certificate, or changed data: exit 1.
    fails(&verify(&bob_cert, &data), 1, "");
    let changed = dir.path().join("changed.tar");
    std::fs::write(&changed, b"release bytez").unwrap();
    fails(&verify(&cert, &changed), 1, "");
    // A nexusq export cannot check an OpenPGP signature: said plainly.
    fails(
        &verify(&alice.export(), &data),
        2,
        "not an OpenPGP certificate",
    );
    // Without --identity: the way is named.
    let o = bob
        .cmd()
        .args(["verify", "--sig"])
        .arg(&sig)
        .arg(&data)
        .output()
        .unwrap();
    fails(&o, 2, "--identity");
}

#[test]
fn formats_do_not_mix_and_ml_kem_1024_has_no_openpgp_form() {
    let dir = tempfile::tempdir().unwrap();
    let alice = TestVault::new(dir.path(), "alice");
    let bob = TestVault::new(dir.path(), "bob");
    let cert = export(&alice, &[]);
    let plain = dir.path().join("p");
    std::fs::write(&plain, "x").unwrap();
    let o = bob
        .cmd()
        .args(["encrypt", "--to"])
        .arg(&cert)
        .arg("--to")
        .arg(bob.export())
        .arg(&plain)
        .output()
        .unwrap();
    fails(&o, 2, "cannot be a recipient of an OpenPGP message");
    let o = bob
        .cmd()
        .args(["encrypt", "--suite", "mlkem1024-x25519", "--to"])
        .arg(&cert)
        .arg(&plain)
        .output()
        .unwrap();
    fails(&o, 2, "ML-KEM-1024");
    let o = bob
        .cmd()
        .args(["encrypt", "--openpgp", "--to"])
        .arg(bob.export())
        .arg(&plain)
        .output()
        .unwrap();
    fails(&o, 2, "not an OpenPGP certificate");
}

#[test]
fn hostile_messages_are_refused_without_plaintext() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let cert = export(&v, &[]);
    let plain = dir.path().join("p");
    std::fs::write(&plain, vec![7u8; 200_000]).unwrap();
    let msg = dir.path().join("m.pgp");
    ok(&v
        .cmd()
        .args(["encrypt", "--to"])
        .arg(&cert)
        .arg("-o")
        .arg(&msg)
        .arg(&plain)
        .output()
        .unwrap());
    let good = std::fs::read(&msg).unwrap();
    let out = dir.path().join("out");
    for (what, bytes) in [
        ("a flipped byte in the data", {
            let mut b = good.clone();
            let n = b.len();
            b[n - 100] ^= 0x40;
            b
        }),
        ("a truncated message", good[..good.len() - 50].to_vec()),
        ("a damaged PKESK", {
            let mut b = good.clone();
            b[40] ^= 0xff;
            b
        }),
        ("a lone packet header", vec![0xc1, 0xff, 0xff, 0xff, 0xff]),
    ] {
        let bad = dir.path().join("bad.pgp");
        std::fs::write(&bad, &bytes).unwrap();
        let o = v
            .cmd()
            .args(["decrypt", "--password-file"])
            .arg(&v.pw)
            .arg("-o")
            .arg(&out)
            .arg(&bad)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!out.exists(), "{what}: plaintext was left behind");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{what}: {err}");
    }
    // RFC 9980's SEIPD v1 sample (a v4 key's message): refused, nothing written.
    if nexusq_testkit::available() {
        let v1 = nexusq_testkit::vector_path("openpgp-pqc/v4-eddsa-sample-message-v1.asc");
        let o = v
            .cmd()
            .args(["decrypt", "--password-file"])
            .arg(&v.pw)
            .arg("-o")
            .arg(&out)
            .arg(&v1)
            .output()
            .unwrap();
        fails(&o, 1, "SEIPD v1");
        assert!(!out.exists());
    }
}

/// A contact holding an OpenPGP certificate is a recipient and a signer by name.
#[test]
fn openpgp_contacts_encrypt_and_verify_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let alice = TestVault::new(dir.path(), "alice");
    let bob = TestVault::new(dir.path(), "bob");
    let cert = export(&alice, &["--user-id", "Alice <alice@example.org>"]);
    let fp = openpgp_fp(&alice);
    ok(&bob
        .cmd()
        .args(["contacts", "add", "alice"])
        .arg(&cert)
        .args(["--expect-fingerprint", &fp, "--password-file"])
        .arg(&bob.pw)
        .output()
        .unwrap());
    let plain = dir.path().join("p.txt");
    std::fs::write(&plain, "to a contact by name\n").unwrap();
    let msg = dir.path().join("m.pgp");
    let o = bob
        .cmd()
        .args(["encrypt", "--to", "@alice", "-o"])
        .arg(&msg)
        .arg(&plain)
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(ok(&decrypt(&alice, &msg)), "to a contact by name\n");
    let sig = dir.path().join("p.txt.asc");
    ok(&alice
        .cmd()
        .args(["sign", "--openpgp", "--password-file"])
        .arg(&alice.pw)
        .arg("-o")
        .arg(&sig)
        .arg(&plain)
        .output()
        .unwrap());
    let o = bob
        .cmd()
        .args(["verify", "--sig"])
        .arg(&sig)
        .args(["--identity", "@alice"])
        .arg(&plain)
        .output()
        .unwrap();
    let text = ok(&o);
    assert!(text.contains("good OpenPGP signature"), "{text}");
    assert!(text.contains("contact alice"), "{text}");
    // An OpenPGP contact and a nexusq export in one run: refused.
    let o = bob
        .cmd()
        .args(["encrypt", "--to", "@alice", "--to"])
        .arg(bob.export())
        .arg(&plain)
        .output()
        .unwrap();
    fails(&o, 2, "cannot be a recipient of an OpenPGP message");
}

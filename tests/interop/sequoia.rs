//! Interop with pysequoia (Sequoia's Python binding on its RustCrypto backend), an independent
//! OpenPGP implementation, in every direction (docs/openpgp.md): it reads our RFC 9980
//! certificate and encrypts to it, we decrypt; we encrypt to its fresh RFC 9980 key, it
//! decrypts; detached signatures verify both ways; after a rotation, messages to the old and
//! to the new certificate both decrypt.
//!
//! Sequoia's packet parser is the one nexusq links too, so this leg checks our keys, combiner
//! and signatures against another build of the same code, not another parser: the RFC 9980
//! vectors (`core/src/format/openpgp/tests.rs`) come from the draft's own implementations.
//!
//! Needs a Python with `pip install pysequoia`, named by `NEXUSQ_PYSEQUOIA` (`.ci/run` makes a
//! venv). Without it the tests skip loudly, unless `NEXUSQ_REQUIRE_PYSEQUOIA=1`.

use crate::common::TestVault;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NEXUSQ_PYSEQUOIA").map(PathBuf::from) {
        return Some(p);
    }
    if std::env::var("NEXUSQ_REQUIRE_PYSEQUOIA").as_deref() == Ok("1") {
        panic!("NEXUSQ_REQUIRE_PYSEQUOIA=1 but NEXUSQ_PYSEQUOIA names no Python");
    }
    let _ = std::io::stderr().write_all(
        b"\n##########################################################################\n\
          SKIPPED: pysequoia interop (set NEXUSQ_PYSEQUOIA to a Python with\n\
          `pip install pysequoia`, or NEXUSQ_REQUIRE_PYSEQUOIA=1 to fail instead)\n\
          ##########################################################################\n",
    );
    None
}

/// Run tests/sequoia/peer.py with `args`; its stdout.
fn peer(py: &Path, args: &[&Path]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sequoia/peer.py");
    let out = Command::new(py).arg(script).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "pysequoia {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn ok(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "nexusq: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn export(v: &TestVault, name: &str) -> PathBuf {
    let out = v.dir.join(name);
    ok(v.cmd()
        .args([
            "identity",
            "export",
            "--openpgp",
            "--user-id",
            "Alice <alice@example.org>",
        ])
        .arg("--password-file")
        .arg(&v.pw)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap());
    out
}

fn decrypt(v: &TestVault, msg: &Path) -> Vec<u8> {
    let out = v.dir.join("decrypted");
    let _ = std::fs::remove_file(&out);
    ok(v.cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg("-o")
        .arg(&out)
        .arg(msg)
        .output()
        .unwrap());
    std::fs::read(out).unwrap()
}

#[test]
fn sequoia_reads_our_certificate_and_encrypts_to_it_across_a_rotation() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let old = export(&v, "old.asc");
    // Sequoia names the same fingerprint and sees our three post-quantum keys.
    let inspect = peer(&py, &[Path::new("inspect"), &old]);
    // Sequoia writes the hex in lower case, nexusq's JSON in upper case.
    let want = v.open_json()["openpgp_fingerprint"]
        .as_str()
        .unwrap()
        .to_ascii_lowercase();
    assert_eq!(inspect.lines().next(), Some(want.as_str()), "{inspect}");
    assert!(
        inspect.contains("PublicKey PublicKeyAlgorithm.SLHDSA128f"),
        "{inspect}"
    );
    assert!(
        inspect.contains("PublicSubkey PublicKeyAlgorithm.MLDSA65_Ed25519"),
        "{inspect}"
    );
    assert!(
        inspect.contains("PublicSubkey PublicKeyAlgorithm.MLKEM768_X25519"),
        "{inspect}"
    );

    let plain = dir.path().join("plain");
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(&plain, &data).unwrap();
    let to_old = dir.path().join("to-old.pgp");
    peer(&py, &[Path::new("encrypt"), &old, &plain, &to_old]);
    assert_eq!(decrypt(&v, &to_old), data);

    ok(v.cmd()
        .args(["rotate", "--password-file"])
        .arg(&v.pw)
        .output()
        .unwrap());
    let new = export(&v, "new.asc");
    let to_new = dir.path().join("to-new.pgp");
    peer(&py, &[Path::new("encrypt"), &new, &plain, &to_new]);
    assert_eq!(decrypt(&v, &to_new), data);
    assert_eq!(decrypt(&v, &to_old), data, "generation 1 still decrypts");
    let inspect = peer(&py, &[Path::new("inspect"), &new]);
    assert_eq!(
        inspect.lines().next(),
        Some(want.as_str()),
        "same fingerprint"
    );
}

/// A message that also went to a classical key opens, with the warning that it is only as
/// safe as that key; a classical certificate alone is refused as a recipient.
#[test]
fn a_message_also_to_a_classical_key_opens_with_a_warning() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let ours = export(&v, "alice.asc");
    let (tsk, classic) = (dir.path().join("c.tsk"), dir.path().join("c.asc"));
    peer(&py, &[Path::new("gen-classic"), &tsk, &classic]);
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"two recipients").unwrap();
    let msg = dir.path().join("both.pgp");
    peer(&py, &[Path::new("encrypt"), &ours, &classic, &plain, &msg]);
    let out = v
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg("-o")
        .arg("-")
        .arg(&msg)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(ok(out), "two recipients");
    assert!(err.contains("not post-quantum only"), "{err}");
    // Only to the classical key: nothing for us to open, and said so.
    let only = dir.path().join("classic.pgp");
    peer(&py, &[Path::new("encrypt"), &classic, &plain, &only]);
    let out = v
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg(&only)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not encrypted to any post-quantum"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // And we never encrypt to it.
    let out = v
        .cmd()
        .args(["encrypt", "--to"])
        .arg(&classic)
        .arg(&plain)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("ML-KEM-768+X25519"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn we_encrypt_to_a_fresh_sequoia_key_and_it_decrypts() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let (tsk, cert) = (dir.path().join("bob.tsk"), dir.path().join("bob.asc"));
    peer(&py, &[Path::new("gen"), &tsk, &cert]);
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"for bob, post-quantum\n".repeat(1000)).unwrap();
    for armor in [false, true] {
        let msg = dir.path().join(format!("to-bob-{armor}.pgp"));
        let mut c = v.cmd();
        c.args(["encrypt", "--to"]).arg(&cert).arg("-o").arg(&msg);
        if armor {
            c.arg("--armor");
        }
        ok(c.arg(&plain).output().unwrap());
        let out = dir.path().join(format!("bob-{armor}.out"));
        peer(&py, &[Path::new("decrypt"), &tsk, &msg, &out]);
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&plain).unwrap());
    }
}

#[test]
fn signatures_verify_both_ways() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let ours = export(&v, "alice.asc");
    let data = dir.path().join("release.tar");
    std::fs::write(&data, b"release 1.0").unwrap();

    // Ours, checked by Sequoia.
    let sig = dir.path().join("ours.asc");
    ok(v.cmd()
        .args(["sign", "--openpgp", "--password-file"])
        .arg(&v.pw)
        .arg("-o")
        .arg(&sig)
        .arg(&data)
        .output()
        .unwrap());
    peer(&py, &[Path::new("verify"), &ours, &data, &sig]);

    // Sequoia's, checked by us; and not by the wrong certificate.
    let (tsk, cert) = (dir.path().join("bob.tsk"), dir.path().join("bob.asc"));
    peer(&py, &[Path::new("gen"), &tsk, &cert]);
    let theirs = dir.path().join("theirs.asc");
    peer(&py, &[Path::new("sign"), &tsk, &data, &theirs]);
    let verify = |id: &Path| {
        v.cmd()
            .args(["verify", "--sig"])
            .arg(&theirs)
            .arg("--identity")
            .arg(id)
            .arg(&data)
            .output()
            .unwrap()
    };
    let good = ok(verify(&cert));
    assert!(good.contains("good OpenPGP signature"), "{good}");
    assert_eq!(verify(&ours).status.code(), Some(1));
}

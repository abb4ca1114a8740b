//! Interop with rpgp (crate `pgp`, feature `pqc`), an OpenPGP implementation whose packet
//! parser and serializer share no code with Sequoia's (docs/openpgp.md): it reads our RFC 9980
//! certificate and encrypts to it, we decrypt; we encrypt to its fresh RFC 9980 key (armored
//! and binary), it decrypts; detached signatures verify both ways; after a rotation, a message
//! to the old certificate still decrypts.
//!
//! rpgp's ML-KEM, ML-DSA and SLH-DSA are RustCrypto's crates, in older versions than the ones
//! nexusq's default backend links: independent packets, not fully independent primitives.
//!
//! Needs the peer in tests/rpgp-peer (its own workspace, since rpgp's ml-kem 0.2 cannot share
//! our lock file), built and named by `NEXUSQ_RPGP_PEER` (`.ci/run` builds it). Without it the
//! tests skip loudly, unless `NEXUSQ_REQUIRE_RPGP=1`.

use crate::common::TestVault;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn rpgp() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NEXUSQ_RPGP_PEER").map(PathBuf::from) {
        return Some(p);
    }
    if std::env::var("NEXUSQ_REQUIRE_RPGP").as_deref() == Ok("1") {
        panic!("NEXUSQ_REQUIRE_RPGP=1 but NEXUSQ_RPGP_PEER names no rpgp-peer binary");
    }
    let _ = std::io::stderr().write_all(
        b"\n##########################################################################\n\
          SKIPPED: rpgp interop (set NEXUSQ_RPGP_PEER to a binary built with\n\
          `cargo build --release --manifest-path tests/rpgp-peer/Cargo.toml`,\n\
          or NEXUSQ_REQUIRE_RPGP=1 to fail instead)\n\
          ##########################################################################\n",
    );
    None
}

/// Run the rpgp peer with `args`; its stdout.
fn peer(bin: &Path, args: &[&Path]) -> String {
    let out = Command::new(bin).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "rpgp {args:?}: {}",
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
fn rpgp_reads_our_certificate_and_encrypts_to_it_across_a_rotation() {
    let Some(bin) = rpgp() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let old = export(&v, "old.asc");
    // rpgp checks the self-signatures, names the same fingerprint and sees our three keys.
    let inspect = peer(&bin, &[Path::new("inspect"), &old]);
    let want = v.open_json()["openpgp_fingerprint"]
        .as_str()
        .unwrap()
        .to_ascii_lowercase();
    assert_eq!(
        inspect.lines().next().map(str::to_ascii_lowercase),
        Some(want.clone()),
        "{inspect}"
    );
    assert!(inspect.contains("primary SlhDsaShake128f"), "{inspect}");
    assert!(inspect.contains("subkey MlDsa65Ed25519"), "{inspect}");
    assert!(inspect.contains("subkey MlKem768X25519"), "{inspect}");

    let plain = dir.path().join("plain");
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(&plain, &data).unwrap();
    let to_old = dir.path().join("to-old.asc");
    peer(&bin, &[Path::new("encrypt"), &old, &plain, &to_old]);
    assert_eq!(decrypt(&v, &to_old), data);

    ok(v.cmd()
        .args(["rotate", "--password-file"])
        .arg(&v.pw)
        .output()
        .unwrap());
    let new = export(&v, "new.asc");
    let to_new = dir.path().join("to-new.asc");
    peer(&bin, &[Path::new("encrypt"), &new, &plain, &to_new]);
    assert_eq!(decrypt(&v, &to_new), data);
    // rpgp picked the new generation's subkey.
    let out = v
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg("-o")
        .arg(dir.path().join("to-new.out"))
        .arg(&to_new)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    ok(out);
    assert!(err.contains("generation 2"), "{err}");
    assert_eq!(decrypt(&v, &to_old), data, "generation 1 still decrypts");
    let inspect = peer(&bin, &[Path::new("inspect"), &new]);
    assert_eq!(
        inspect.lines().next().map(str::to_ascii_lowercase),
        Some(want),
        "same fingerprint"
    );
}

#[test]
fn we_encrypt_to_a_fresh_rpgp_key_and_it_decrypts() {
    let Some(bin) = rpgp() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let (tsk, cert) = (dir.path().join("carol.tsk"), dir.path().join("carol.asc"));
    peer(&bin, &[Path::new("gen"), &tsk, &cert]);
    let inspect = peer(&bin, &[Path::new("inspect"), &cert]);
    assert!(inspect.contains("subkey MlKem768X25519"), "{inspect}");
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"for carol, post-quantum\n".repeat(1000)).unwrap();
    for armor in [false, true] {
        let msg = dir.path().join(format!("to-carol-{armor}.pgp"));
        let mut c = v.cmd();
        c.args(["encrypt", "--to"]).arg(&cert).arg("-o").arg(&msg);
        if armor {
            c.arg("--armor");
        }
        ok(c.arg(&plain).output().unwrap());
        let out = dir.path().join(format!("carol-{armor}.out"));
        peer(&bin, &[Path::new("decrypt"), &tsk, &msg, &out]);
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&plain).unwrap());
    }
}

#[test]
fn signatures_verify_both_ways() {
    let Some(bin) = rpgp() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "alice");
    let ours = export(&v, "alice.asc");
    let data = dir.path().join("release.tar");
    std::fs::write(&data, b"release 1.0").unwrap();

    // Ours, checked by rpgp; and not over other data.
    let sig = dir.path().join("ours.asc");
    ok(v.cmd()
        .args(["sign", "--openpgp", "--password-file"])
        .arg(&v.pw)
        .arg("-o")
        .arg(&sig)
        .arg(&data)
        .output()
        .unwrap());
    peer(&bin, &[Path::new("verify"), &ours, &data, &sig]);
    let other = dir.path().join("other.tar");
    std::fs::write(&other, b"release 1.1").unwrap();
    let bad = Command::new(&bin)
        .arg("verify")
        .args([&ours, &other, &sig])
        .output()
        .unwrap();
    assert!(
        !bad.status.success(),
        "rpgp accepted a signature of other data"
    );

    // rpgp's, checked by us; and not by the wrong certificate.
    let (tsk, cert) = (dir.path().join("carol.tsk"), dir.path().join("carol.asc"));
    peer(&bin, &[Path::new("gen"), &tsk, &cert]);
    let theirs = dir.path().join("theirs.asc");
    peer(&bin, &[Path::new("sign"), &tsk, &data, &theirs]);
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

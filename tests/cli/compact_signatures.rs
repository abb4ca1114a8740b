//! Compact signatures, many files with one unlock, and signed manifests
//! (docs/signature-format.md sections 7-9): the library's compact policy, then the real binary.
//!
//! CLI tests: each has its own temporary folder and vault (small Argon2 parameters) and a clean
//! environment (tests/common).

use crate::common;
use crate::common::TestVault;
use nexusq_core::identity::signature::{self, CompactSignature, Refusal, Signature, Trust};
use nexusq_core::identity::{Certificate, NewIdentity, PublicIdentity};
use nexusq_core::suite::rustcrypto::RustCrypto;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::sync::OnceLock;
use tempfile::TempDir;

const DATA: &[u8] = b"a compact signature names its certificate\n";
const T0: u64 = 1_800_000_000;

// ---------------------------------------------------------------------------------------------
// Library: one victim and one attacker identity.

struct Fixture {
    victim: NewIdentity,
    attacker: NewIdentity,
    compact: CompactSignature,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let victim = NewIdentity::generate(&RustCrypto, T0);
        let attacker = NewIdentity::generate(&RustCrypto, T0);
        let full = signature::sign_newest(
            &RustCrypto,
            &victim.public,
            &victim.secrets,
            &signature::digest(DATA),
            T0 + 10,
            &[5; 32],
        )
        .unwrap();
        Fixture {
            compact: full.compact(),
            victim,
            attacker,
        }
    })
}

fn trust(identity: &PublicIdentity) -> Trust<'_> {
    Trust::Identity {
        identity,
        expected: None,
    }
}

#[test]
fn compact_verifies_like_the_full_signature() {
    let f = fixture();
    let sig = Signature::Compact(f.compact.clone());
    let ok = signature::verify_signature(
        &RustCrypto,
        trust(&f.victim.public),
        &sig,
        &signature::digest(DATA),
    )
    .unwrap();
    assert_eq!(ok.root_id, f.victim.public.root_id());
    assert_eq!((ok.generation, ok.signed_at), (1, T0 + 10));
    // The full form of the same signature gives the same answer.
    let full = f.compact.with_certificate(&f.victim.public).unwrap();
    assert_eq!(
        signature::verify(
            &RustCrypto,
            trust(&f.victim.public),
            &full,
            &signature::digest(DATA)
        )
        .unwrap(),
        ok
    );
    // Other data: BAD.
    let e = signature::verify_classified(
        &RustCrypto,
        trust(&f.victim.public),
        &sig,
        &signature::digest(b"other"),
    )
    .unwrap_err();
    assert_eq!(e.kind, Refusal::Bad);
    assert!(e.error.message().contains("BAD signature"), "{e:?}");
}

#[test]
fn compact_cannot_be_re_attributed_to_another_root() {
    let f = fixture();
    let digest = signature::digest(DATA);
    // As it is, against the attacker's identity: refused, naming the real signer.
    let e = signature::verify_signature(
        &RustCrypto,
        trust(&f.attacker.public),
        &Signature::Compact(f.compact.clone()),
        &digest,
    )
    .unwrap_err();
    assert_eq!(e.kind(), nexusq_core::error::ErrorKind::CheckFailed);
    let victim_fp = f.victim.public.root_id().fingerprint().to_string();
    assert!(e.message().contains(&victim_fp), "{e:?}");
    // The attacker certifies the victim's signing key under the attacker's root (generation
    // 1) and renames the signature: the certificate verifies, the signature does not, since
    // the victim signed a context naming the victim's root_id.
    let stolen_keys = f.victim.secrets.generations[0]
        .public_keys(&RustCrypto)
        .unwrap();
    let attacker_cert = Certificate::issue(
        f.attacker.keys.root(),
        &RustCrypto,
        f.attacker.public.root_id(),
        1,
        T0,
        T0 + 10_000_000,
        stolen_keys,
        [0; 32],
        String::new(),
    );
    let attacker_id = PublicIdentity {
        root_pk: f.attacker.public.root_pk,
        certificates: vec![attacker_cert],
        revocations: vec![],
    };
    let renamed = CompactSignature {
        root_id: attacker_id.root_id(),
        ..f.compact.clone()
    };
    let e = signature::verify_classified(
        &RustCrypto,
        trust(&attacker_id),
        &Signature::Compact(renamed),
        &digest,
    )
    .unwrap_err();
    assert_eq!(e.kind, Refusal::Bad);
    assert!(e.error.message().contains("BAD signature"), "{e:?}");
    // Nor to another generation of the same identity, nor another time.
    let moved = CompactSignature {
        signed_at: T0 + 11,
        ..f.compact.clone()
    };
    assert!(
        signature::verify_signature(
            &RustCrypto,
            trust(&f.victim.public),
            &Signature::Compact(moved),
            &digest
        )
        .is_err()
    );
}

#[test]
fn compact_needs_the_generation_s_certificate() {
    let f = fixture();
    let digest = signature::digest(DATA);
    let later = CompactSignature {
        generation: 2,
        ..f.compact.clone()
    };
    let e = signature::verify_classified(
        &RustCrypto,
        trust(&f.victim.public),
        &Signature::Compact(later),
        &digest,
    )
    .unwrap_err();
    assert_eq!(e.kind, Refusal::NoKey);
    assert!(
        e.error.message().contains("generation 2")
            && e.error.message().contains("generation(s) 1 only"),
        "{e:?}"
    );
    assert!(e.error.hint().contains("newer export"), "{e:?}");
    // The fingerprint alone cannot verify a compact signature: it says what to pass.
    let fp = f.victim.public.root_id().fingerprint();
    let e = signature::verify_signature(
        &RustCrypto,
        Trust::Fingerprint(fp),
        &Signature::Compact(f.compact.clone()),
        &digest,
    )
    .unwrap_err();
    assert!(e.message().contains("compact signature"), "{e:?}");
    // The library's hint says what to do in its words; the command line names the flag.
    assert!(e.hint().contains("signer's export"), "{e:?}");
    assert_eq!(
        e.setting(),
        Some(nexusq_core::error::Setting::SignerIdentity)
    );
}

// ---------------------------------------------------------------------------------------------
// The binary.

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sign_compact(v: &TestVault, file: &Path, sig: &Path) {
    v.cmd()
        .args(["sign", "--compact", "--password-file"])
        .arg(&v.pw)
        .arg(file)
        .arg("-o")
        .arg(sig)
        .assert()
        .success();
}

#[test]
fn cli_compact_round_trip_with_the_vault_and_an_export_and_size_bound() {
    let tmp = TempDir::new().unwrap();
    let alice = TestVault::new(tmp.path(), "alice");
    let bob = TestVault::new(tmp.path(), "bob");
    let data = tmp.path().join("data.txt");
    fs::write(&data, DATA).unwrap();
    let sig = tmp.path().join("data.txt.sig");
    sign_compact(&alice, &data, &sig);
    // Under 5,000 bytes armored (docs/signature-format.md, section 1.1).
    let len = fs::metadata(&sig).unwrap().len();
    assert!(len < 5_000, "compact signature is {len} bytes");
    assert_eq!(len, 4_704);
    // The signer's own vault.
    let out = alice
        .cmd()
        .arg("verify")
        .arg(&data)
        .arg("--sig")
        .arg(&sig)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let fp = alice.fingerprint();
    assert!(stdout(&out).contains(&format!("good signature from {fp}")));
    // Someone else, with the signer's export.
    let out = bob
        .cmd()
        .args(["verify", "--json"])
        .arg(&data)
        .arg("--sig")
        .arg(&sig)
        .arg("--identity")
        .arg(alice.export())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["valid"].as_bool(), v["fingerprint"].as_str()),
        (Some(true), Some(fp.as_str()))
    );
    // Bob's own vault does not know Alice: refused, naming her.
    let out = bob
        .cmd()
        .arg("verify")
        .arg(&data)
        .arg("--sig")
        .arg(&sig)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(&fp), "{}", stderr(&out));
    // The fingerprint alone is not enough for a compact signature: exit 1, saying what to do.
    let out = bob
        .cmd()
        .arg("verify")
        .arg(&data)
        .arg("--sig")
        .arg(&sig)
        .arg("--expect-fingerprint")
        .arg(&fp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--identity"), "{}", stderr(&out));
    // The full signature of the same data is much bigger and verifies by fingerprint.
    let full = tmp.path().join("full.sig");
    alice
        .cmd()
        .args(["sign", "--password-file"])
        .arg(&alice.pw)
        .arg(&data)
        .arg("-o")
        .arg(&full)
        .assert()
        .success();
    assert!(fs::metadata(&full).unwrap().len() > 30_000);
    bob.cmd()
        .arg("verify")
        .arg(&data)
        .arg("--sig")
        .arg(&full)
        .arg("--expect-fingerprint")
        .arg(&fp)
        .assert()
        .success();
}

#[test]
fn cli_compact_with_an_old_export_is_refused_clearly() {
    let tmp = TempDir::new().unwrap();
    let alice = TestVault::new(tmp.path(), "alice");
    let bob = TestVault::new(tmp.path(), "bob");
    let old_export = alice.export();
    alice
        .cmd()
        .args(["rotate", "--password-file"])
        .arg(&alice.pw)
        .assert()
        .success();
    let data = tmp.path().join("data.txt");
    fs::write(&data, DATA).unwrap();
    let sig = tmp.path().join("data.sig");
    sign_compact(&alice, &data, &sig);
    let out = bob
        .cmd()
        .arg("verify")
        .arg(&data)
        .arg("--sig")
        .arg(&sig)
        .arg("--identity")
        .arg(&old_export)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("generation 2") && err.contains("generation(s) 1 only"),
        "{err}"
    );
    assert!(err.contains("newer export"), "{err}");
    // A fresh export holds generation 2.
    let new_export = tmp.path().join("alice-new.pub");
    alice
        .cmd()
        .args(["identity", "export", "-o"])
        .arg(&new_export)
        .assert()
        .success();
    bob.cmd()
        .arg("verify")
        .arg(&data)
        .arg("--sig")
        .arg(&sig)
        .arg("--identity")
        .arg(&new_export)
        .assert()
        .success();
}

/// `sign A B C ...` unlocks once: the password comes through a pipe (`--password-fd 0`) that
/// holds it once, so a second unlock would find it empty.
#[test]
fn cli_many_files_one_unlock_and_reports() {
    let tmp = TempDir::new().unwrap();
    let v = TestVault::new(tmp.path(), "v");
    let names = ["a.txt", "b.txt", "c.bin"];
    let files: Vec<_> = names
        .iter()
        .map(|n| {
            let p = tmp.path().join(n);
            fs::write(&p, format!("contents of {n}\n")).unwrap();
            p
        })
        .collect();
    let password = fs::read_to_string(&v.pw).unwrap();
    let out = v
        .cmd()
        .args(["sign", "--compact", "--password-fd", "0"])
        .args(&files)
        .write_stdin(password)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    for f in &files {
        let sig = format!("{}.sig", f.display());
        assert!(Path::new(&sig).exists(), "{sig}");
    }
    let out = v.cmd().arg("verify").args(&files).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).matches("good signature").count(), 3);

    // A modified file is reported by name; the others still are good; exit 1.
    fs::write(&files[1], "changed\n").unwrap();
    fs::remove_file(tmp.path().join("c.bin.sig")).unwrap();
    let out = v.cmd().arg("verify").args(&files).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("b.txt: FAILED: BAD signature"), "{err}");
    assert!(
        err.contains("c.bin: FAILED") && err.contains("no signature"),
        "{err}"
    );
    assert!(stdout(&out).contains("a.txt: good signature"));
    // --json: one object with a list.
    let out = v
        .cmd()
        .args(["verify", "--json"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["valid"], false);
    let list = j["files"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(
        list.iter()
            .map(|f| f["valid"].as_bool().unwrap())
            .collect::<Vec<_>>(),
        [true, false, false]
    );
    // Each file's name is said once, in front of what is wrong with it.
    assert!(!err.contains("b.txt: FAILED: b.txt"), "{err}");
    assert!(!err.contains("c.bin: FAILED: c.bin:"), "{err}");

    // One file: the error line alone, said once; a data file that is not there is a missing
    // input (exit 5), even with no signature beside it.
    let out = v.cmd().arg("verify").arg(&files[1]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.matches("BAD signature").count(), 1, "{err}");
    assert!(!err.contains("FAILED"), "{err}");
    let gone = tmp.path().join("gone.txt");
    let out = v.cmd().arg("verify").arg(&gone).output().unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("there is no such file"), "{err}");
    assert!(
        !err.contains(".sig"),
        "the signature is not what is wrong: {err}"
    );
    assert_eq!(err.matches("gone.txt").count(), 1, "{err}");
    let out = v
        .cmd()
        .arg("verify")
        .arg(&files[0])
        .arg(&gone)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("gone.txt: FAILED: there is no such file"),
        "{}",
        stderr(&out)
    );

    // --output-dir, and verify --sig-dir finds them there.
    let dir = tmp.path().join("sigs");
    fs::create_dir(&dir).unwrap();
    v.cmd()
        .args(["sign", "--password-file"])
        .arg(&v.pw)
        .arg("--output-dir")
        .arg(&dir)
        .args(&files)
        .assert()
        .success();
    assert!(dir.join("b.txt.sig").exists());
    v.cmd()
        .arg("verify")
        .arg("--sig-dir")
        .arg(&dir)
        .args(&files)
        .assert()
        .success();
    // -o with several files is a usage error, before any password is read.
    v.cmd()
        .args(["sign", "-o", "x.sig"])
        .args(&files)
        .assert()
        .code(2);
}

/// The KDF runs counted through the library: the same command, in this process, runs Argon2id
/// once for five files.
#[test]
fn many_files_run_the_kdf_once() {
    use clap::Parser;
    let tmp = TempDir::new().unwrap();
    let v = TestVault::new(tmp.path(), "kdf");
    let mut args = vec![
        "nexusq".to_string(),
        "--vault".into(),
        v.path.display().to_string(),
        "sign".into(),
        "--compact".into(),
        "--password-file".into(),
        v.pw.display().to_string(),
    ];
    for i in 0..5 {
        let p = tmp.path().join(format!("f{i}"));
        fs::write(&p, [i as u8; 100]).unwrap();
        args.push(p.display().to_string());
    }
    let cli = nexusq::cli::args::Cli::try_parse_from(&args).unwrap();
    let before = nexusq_core::vault::Argon2id::runs();
    nexusq::cli::run(cli).unwrap();
    assert_eq!(nexusq_core::vault::Argon2id::runs() - before, 1);
    for i in 0..5 {
        assert!(tmp.path().join(format!("f{i}.sig")).exists());
    }
}

#[test]
fn cli_manifest_sign_and_verify() {
    let tmp = TempDir::new().unwrap();
    let v = TestVault::new(tmp.path(), "rel");
    let rel = tmp.path().join("release");
    fs::create_dir_all(rel.join("sub")).unwrap();
    fs::write(rel.join("app.tar.gz"), b"archive bytes").unwrap();
    fs::write(rel.join("sub/notes.txt"), b"notes").unwrap();
    // A real sha256sum writes the manifest (binary mode for one line).
    let sums = std::process::Command::new("sha256sum")
        .current_dir(&rel)
        .args(["app.tar.gz", "-b", "sub/notes.txt"])
        .output()
        .expect("sha256sum (coreutils) is installed");
    assert!(sums.status.success());
    let manifest = rel.join("SHA256SUMS");
    fs::write(&manifest, &sums.stdout).unwrap();
    v.cmd()
        .args(["sign", "--compact", "--password-file"])
        .arg(&v.pw)
        .arg("--manifest")
        .arg(&manifest)
        .assert()
        .success();
    assert!(rel.join("SHA256SUMS.sig").exists());
    let out = v
        .cmd()
        .arg("verify")
        .arg("--manifest")
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("notes.txt: OK"), "{}", stdout(&out));

    // A listed file modified: reported by name, exit 1.
    fs::write(rel.join("sub/notes.txt"), b"notes, changed").unwrap();
    let out = v
        .cmd()
        .arg("verify")
        .arg("--manifest")
        .arg(&manifest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("notes.txt: FAILED") && stderr(&out).contains("modified"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("app.tar.gz: OK"));
    // And `sign --manifest` refuses a manifest that no longer matches its files.
    let out = v
        .cmd()
        .args(["sign", "--password-file"])
        .arg(&v.pw)
        .arg("--manifest")
        .arg(&manifest)
        .arg("-o")
        .arg(tmp.path().join("other.sig"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!tmp.path().join("other.sig").exists());
    // The manifest itself edited (the modified file's new hash written in): BAD signature.
    let sums = std::process::Command::new("sha256sum")
        .current_dir(&rel)
        .args(["app.tar.gz", "sub/notes.txt"])
        .output()
        .unwrap();
    fs::write(&manifest, &sums.stdout).unwrap();
    let out = v
        .cmd()
        .arg("verify")
        .arg("--manifest")
        .arg(&manifest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("BAD signature"), "{}", stderr(&out));
    // A listed name that climbs out of the folder is refused even when signed.
    let evil = rel.join("EVIL");
    fs::write(
        &evil,
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  ../x\n",
    )
    .unwrap();
    let out = v
        .cmd()
        .args(["sign", "--password-file"])
        .arg(&v.pw)
        .arg("--manifest")
        .arg(&evil)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("line 1"), "{}", stderr(&out));
}

/// A manifest names files inside its folder only: a symbolic link on the way out of it is
/// refused (even with the outside file's true hash listed), a FIFO in place of a listed file
/// is refused at once instead of waited on; the folder itself may be reached through a link.
#[test]
fn cli_manifest_files_stay_in_the_folder_and_a_fifo_is_refused_at_once() {
    use sha2::Digest;
    let sha = |b: &[u8]| hex::encode(sha2::Sha256::digest(b));
    let tmp = TempDir::new().unwrap();
    let v = TestVault::new(tmp.path(), "rel");
    let rel = tmp.path().join("release");
    fs::create_dir(&rel).unwrap();
    fs::write(rel.join("app.tar.gz"), b"archive bytes").unwrap();
    fs::write(tmp.path().join("outside.txt"), b"not part of the release").unwrap();
    std::os::unix::fs::symlink("..", rel.join("up")).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        rel.join("pipe"),
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    let manifest = rel.join("SHA256SUMS");
    fs::write(
        &manifest,
        format!(
            "{}  app.tar.gz\n{}  up/outside.txt\n{}  pipe\n",
            sha(b"archive bytes"),
            sha(b"not part of the release"),
            sha(b"")
        ),
    )
    .unwrap();
    let refused = |err: &str| {
        assert!(
            err.contains("up/outside.txt: a symbolic link on its way leads out of the folder")
                || err.contains(
                    "up/outside.txt: a symbolic link is on its way, and links are not followed"
                ),
            "{err}"
        );
        assert!(
            err.contains("pipe: it is a named pipe (FIFO), not a regular file: refused"),
            "{err}"
        );
    };

    // `sign --manifest` refuses it, and writes nothing.
    let out = common::output_within(
        v.cmd()
            .args(["sign", "--password-file"])
            .arg(&v.pw)
            .arg("--manifest")
            .arg(&manifest),
        30,
        "sign --manifest with a FIFO listed",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    refused(&stderr(&out));
    assert!(!rel.join("SHA256SUMS.sig").exists());

    // Signed anyway as a plain file, `verify --manifest` reports each file: exit 1.
    v.cmd()
        .args(["sign", "--password-file"])
        .arg(&v.pw)
        .arg(&manifest)
        .arg("-o")
        .arg(rel.join("SHA256SUMS.sig"))
        .assert()
        .success();
    let out = common::output_within(
        v.cmd().arg("verify").arg("--manifest").arg(&manifest),
        30,
        "verify --manifest with a FIFO listed",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("app.tar.gz: OK"), "{}", stdout(&out));
    refused(&stderr(&out));
    assert!(
        stderr(&out).contains("2 of 3 listed files did not verify"),
        "{}",
        stderr(&out)
    );
    let out = common::output_within(
        v.cmd()
            .args(["verify", "--json", "--manifest"])
            .arg(&manifest),
        30,
        "verify --manifest --json with a FIFO listed",
    );
    assert_eq!(out.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["valid"], false);
    assert_eq!(j["error"]["code"], 1);
    let rows = j["files"].as_array().unwrap();
    let ok: Vec<bool> = rows.iter().map(|r| r["ok"].as_bool().unwrap()).collect();
    assert_eq!(ok, [true, false, false]);
    assert!(rows[2]["error"].as_str().unwrap().contains("named pipe"));

    // The manifest's own folder through a link the user typed: its files check.
    let good = rel.join("GOODSUMS");
    fs::write(&good, format!("{}  app.tar.gz\n", sha(b"archive bytes"))).unwrap();
    v.cmd()
        .args(["sign", "--password-file"])
        .arg(&v.pw)
        .arg("--manifest")
        .arg(&good)
        .assert()
        .success();
    let current = tmp.path().join("current");
    std::os::unix::fs::symlink(&rel, &current).unwrap();
    let out = common::output_within(
        v.cmd()
            .arg("verify")
            .arg("--manifest")
            .arg(current.join("GOODSUMS")),
        30,
        "verify --manifest through a linked folder",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("current/app.tar.gz: OK"),
        "{}",
        stdout(&out)
    );
}

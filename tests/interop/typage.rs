//! Interop with typage (npm `age-encryption` 0.3.x), an independent age implementation, in
//! every direction: typage encrypts to `nexusq identity export --age` and nexusq
//! decrypts; nexusq encrypts to a typage-generated recipient and typage decrypts; armored both
//! ways; several recipients; a file sent to generation 1 decrypts after two rotations.
//!
//! Needs node and a folder where `npm install age-encryption@0.3` ran, named by
//! `NEXUSQ_TYPAGE_DIR` (`.ci/run` makes one). Without it the tests skip loudly, unless
//! `NEXUSQ_REQUIRE_TYPAGE=1`, when they fail.

use crate::common::{TestVault, bin};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn typage_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NEXUSQ_TYPAGE_DIR").map(PathBuf::from);
    let ok = dir
        .as_ref()
        .is_some_and(|d| d.join("node_modules/age-encryption/package.json").exists());
    if ok {
        return dir;
    }
    if std::env::var("NEXUSQ_REQUIRE_TYPAGE").as_deref() == Ok("1") {
        panic!("NEXUSQ_REQUIRE_TYPAGE=1 but NEXUSQ_TYPAGE_DIR has no node_modules/age-encryption");
    }
    // Straight to stderr, past the test harness's capture, so the skip is seen.
    let _ = std::io::stderr().write_all(
        b"\n##########################################################################\n\
          SKIPPED: typage interop (set NEXUSQ_TYPAGE_DIR to a folder with\n\
          `npm install age-encryption@0.3`, or NEXUSQ_REQUIRE_TYPAGE=1 to fail instead)\n\
          ##########################################################################\n",
    );
    None
}

/// Run the typage script with `args`, `stdin` in; its stdout.
fn typage(dir: &Path, args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/typage/interop.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .arg(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "typage {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn recipient(v: &TestVault) -> String {
    let out = v
        .cmd()
        .args(["identity", "export", "--age", "--password-file"])
        .arg(&v.pw)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn nexusq_decrypt(v: &TestVault, file: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.age");
    std::fs::write(&path, file).unwrap();
    let out = v
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 % 256) as u8).collect()
}

#[test]
fn typage_encrypts_nexusq_decrypts_binary_armored_several_recipients() {
    let Some(t) = typage_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "a");
    let b = TestVault::new(dir.path(), "b");
    let (ra, rb) = (recipient(&a), recipient(&b));
    for (i, len) in [0usize, 1, 65535, 65536, 65537, 200_000]
        .into_iter()
        .enumerate()
    {
        let plain = data(len);
        let armored = i % 2 == 1;
        let mut args = vec!["encrypt"];
        if armored {
            args.push("--armor");
        }
        args.extend([ra.as_str(), rb.as_str()]);
        let file = typage(&t, &args, &plain);
        assert_eq!(
            file.starts_with(b"-----BEGIN AGE ENCRYPTED FILE-----"),
            armored
        );
        assert_eq!(nexusq_decrypt(&a, &file), plain, "{len}");
        assert_eq!(nexusq_decrypt(&b, &file), plain, "{len}");
    }
}

#[test]
fn nexusq_encrypts_typage_decrypts_binary_armored_several_recipients() {
    let Some(t) = typage_dir() else { return };
    let keys: Vec<(String, String)> = (0..2)
        .map(|_| {
            let out = String::from_utf8(typage(&t, &["keygen"], b"")).unwrap();
            let mut l = out.lines();
            (l.next().unwrap().to_string(), l.next().unwrap().to_string())
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let rfile = dir.path().join("recipients");
    std::fs::write(&rfile, format!("# the second\n{}\n", keys[1].1)).unwrap();
    for (i, len) in [0usize, 1, 65536, 65537, 150_000].into_iter().enumerate() {
        let plain = data(len);
        let armored = i % 2 == 0;
        let mut c = bin();
        c.args(["encrypt", "--to", &keys[0].1, "-R"]).arg(&rfile);
        if armored {
            c.arg("--armor");
        }
        let out = c.write_stdin(plain.clone()).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (id, _) in &keys {
            let mut args = vec!["decrypt"];
            if armored {
                args.push("--armor");
            }
            args.push(id);
            assert_eq!(typage(&t, &args, &out.stdout), plain, "{len} {armored}");
        }
    }
}

#[test]
fn a_typage_file_to_generation_1_decrypts_after_two_rotations() {
    let Some(t) = typage_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "g");
    let r1 = recipient(&v);
    let file = typage(&t, &["encrypt", "--armor", &r1], b"sent to generation one");
    for _ in 0..2 {
        v.cmd()
            .args(["rotate", "--password-file"])
            .arg(&v.pw)
            .assert()
            .success();
    }
    assert_ne!(recipient(&v), r1);
    assert_eq!(nexusq_decrypt(&v, &file), b"sent to generation one");
}

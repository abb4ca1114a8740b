//! `nexusq encrypt` / `nexusq decrypt` through the real binary: round trips, several
//! recipients, armor, refusals with their exit codes, all-or-nothing `-o`, a sample of flips and
//! truncations, and a large file streamed through a pipe in constant memory.
//!
//! Every test has its own temporary folder, passes `--vault <tmp>/<name>.nxq`, creates vaults
//! with small Argon2 parameters, and removes NEXUSQ_VAULT / NEXUSQ_BACKEND from the environment.

use crate::common;
use crate::common::{BIN, SMALL_KDF, private_file};
use assert_cmd::Command;
use assert_cmd::assert::OutputAssertExt;
use predicates::str::contains;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tempfile::TempDir;

const PASSWORD: &str = "correct horse battery staple";
const TIMEOUT: Duration = Duration::from_secs(120);
const CHUNK: usize = 65536;
const BEGIN: &str = "-----BEGIN NEXUSQ ENCRYPTED FILE-----\n";

// ---------------------------------------------------------------------------------------------
// Helpers

fn nexusq() -> Command {
    let mut c = common::bin();
    c.timeout(TIMEOUT);
    c
}

/// One test's folder and password file.
struct Env {
    dir: TempDir,
    pw: PathBuf,
}

/// A vault in the test's folder, initialised, with its public export.
struct Vault {
    path: PathBuf,
    export: PathBuf,
    fingerprint: String,
    pw: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        let pw = private_file(&dir.path().join("pw"), format!("{PASSWORD}\n").as_bytes());
        Env { dir, pw }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, content: &[u8]) -> PathBuf {
        let p = self.path(name);
        fs::write(&p, content).unwrap();
        p
    }

    /// `init` a vault `<name>.nxq` and `identity export -o <name>.pub`.
    fn vault(&self, name: &str) -> Vault {
        let path = self.path(&format!("{name}.nxq"));
        let out = nexusq()
            .arg("--vault")
            .arg(&path)
            .arg("init")
            .args(SMALL_KDF)
            .arg("--password-file")
            .arg(&self.pw)
            .assert()
            .success();
        let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let fingerprint = stdout
            .lines()
            .find_map(|l| l.strip_prefix("fingerprint:"))
            .expect("init prints the fingerprint")
            .trim()
            .to_string();
        let export = self.path(&format!("{name}.pub"));
        nexusq()
            .arg("--vault")
            .arg(&path)
            .args(["identity", "export", "--password-file"])
            .arg(&self.pw)
            .arg("-o")
            .arg(&export)
            .assert()
            .success();
        Vault {
            path,
            export,
            fingerprint,
            pw: self.pw.clone(),
        }
    }

    /// Names of the files in this test's folder, sorted.
    fn listing(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Vault {
    /// `nexusq --vault <vault> --password-file <pw> decrypt`.
    fn decrypt(&self) -> Command {
        let mut c = nexusq();
        c.arg("--vault")
            .arg(&self.path)
            .arg("--password-file")
            .arg(&self.pw)
            .arg("decrypt");
        c
    }
}

/// `nexusq encrypt --to A --to B ...`.
fn encrypt_to(recipients: &[&Vault]) -> Command {
    let mut c = nexusq();
    c.arg("encrypt");
    for r in recipients {
        c.arg("--to").arg(&r.export);
    }
    c
}

/// Deterministic pseudo-random bytes (xorshift64*).
struct Prng(u64);

impl Prng {
    fn new(seed: u64) -> Prng {
        Prng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let v = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; len];
    Prng::new(seed).fill(&mut v);
    v
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(bytes: &[u8]) -> Value {
    let s = String::from_utf8(bytes.to_vec()).unwrap();
    serde_json::from_str(s.trim_end()).unwrap_or_else(|e| panic!("not JSON ({e}): {s:?}"))
}

/// The exit code, insisting that the process exited (a signal is a bug) and did not panic.
fn code(o: &Output) -> i32 {
    let c = o
        .status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {}", stderr(o)));
    assert_ne!(c, 101, "panicked: {}", stderr(o));
    assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
    c
}

// ---------------------------------------------------------------------------------------------
// Round trips

#[test]
fn round_trip_file_to_file_and_stdin_to_stdout() {
    let env = Env::new();
    let a = env.vault("a");
    let plain = data(3 * CHUNK + 123, 1);
    let input = env.write("plain", &plain);
    let ct = env.path("plain.nxqf");

    let out = encrypt_to(&[&a])
        .arg(&input)
        .arg("-o")
        .arg(&ct)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(out.stdout.is_empty(), "data went to stdout with -o");
    let err = stderr(&out);
    assert!(err.contains(&a.fingerprint), "{err}");
    assert!(err.contains("generation 1"), "{err}");
    let file = fs::read(&ct).unwrap();
    assert_eq!(&file[..5], b"NXQF\x01");
    assert_eq!(file[21], 1, "one recipient stanza");
    assert_eq!(
        fs::metadata(&ct).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let decrypted = env.path("decrypted");
    a.decrypt()
        .arg(&ct)
        .arg("-o")
        .arg(&decrypted)
        .assert()
        .success()
        .stdout("");
    assert!(fs::read(&decrypted).unwrap() == plain);

    // stdin -> stdout, both ways (stdout is a pipe here, so binary output is allowed).
    let ct2 = encrypt_to(&[&a])
        .write_stdin(plain.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(&ct2[..4], b"NXQF");
    assert_ne!(ct2, file, "a fresh file key and salt every time");
    let out = a.decrypt().write_stdin(ct2).assert().success();
    assert!(out.get_output().stdout == plain);
    // `-` names stdin and stdout explicitly.
    let ct3 = encrypt_to(&[&a])
        .args(["-", "-o", "-"])
        .write_stdin(plain.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = a
        .decrypt()
        .args(["-", "-o", "-"])
        .write_stdin(ct3)
        .assert()
        .success();
    assert!(out.get_output().stdout == plain);
}

#[test]
fn empty_input_round_trips() {
    let env = Env::new();
    let a = env.vault("a");
    let ct = encrypt_to(&[&a])
        .write_stdin(Vec::new())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // header (22 + 2 + 1120 + 48 + 32) + one empty final chunk (its 16-byte tag).
    assert_eq!(ct.len(), 22 + 2 + 1120 + 48 + 32 + 16);
    a.decrypt()
        .write_stdin(ct.clone())
        .assert()
        .success()
        .stdout("");
    let ctf = env.write("empty.nxqf", &ct);
    let out = env.path("out");
    a.decrypt().arg(&ctf).arg("-o").arg(&out).assert().success();
    assert_eq!(fs::read(&out).unwrap(), b"");
}

#[test]
fn three_recipients_each_decrypt_and_others_cannot() {
    let env = Env::new();
    let (a, b, c, d) = (
        env.vault("a"),
        env.vault("b"),
        env.vault("c"),
        env.vault("d"),
    );
    let plain = data(CHUNK + 1, 2);
    let out = encrypt_to(&[&a, &b, &c])
        .arg("--expect-fingerprint")
        .arg(&a.fingerprint)
        .arg("--expect-fingerprint")
        .arg(b.fingerprint.to_uppercase().replace('-', ""))
        .arg("--expect-fingerprint")
        .arg(&c.fingerprint)
        .write_stdin(plain.clone())
        .assert()
        .success()
        .get_output()
        .clone();
    let err = stderr(&out);
    for v in [&a, &b, &c] {
        assert!(err.contains(&v.fingerprint), "{err}");
    }
    let ct = out.stdout;
    assert_eq!(ct[21], 3);
    for v in [&a, &b, &c] {
        let o = v.decrypt().write_stdin(ct.clone()).assert().success();
        assert!(o.get_output().stdout == plain);
    }
    // d is not a recipient: exit 1, nothing on stdout, nothing left with -o.
    let before = env.listing();
    let o = d
        .decrypt()
        .arg("-o")
        .arg(env.path("nope"))
        .write_stdin(ct)
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("not encrypted to any key this vault holds"));
    drop(o);
    assert_eq!(env.listing(), before);
}

/// Files to an old export still decrypt after `rotate` (the superseded generation's keys are
/// kept), and stop decrypting once that generation is retired.
#[test]
fn superseded_generation_decrypts_and_retired_does_not() {
    let env = Env::new();
    let a = env.vault("a");
    let rotate = |extra: &[&str]| {
        nexusq()
            .arg("--vault")
            .arg(&a.path)
            .arg("--password-file")
            .arg(&a.pw)
            .arg("rotate")
            .args(extra)
            .assert()
            .success();
    };
    let old = encrypt_to(&[&a])
        .write_stdin(b"to generation 1".to_vec())
        .assert()
        .success()
        .stderr(contains("generation 1"))
        .get_output()
        .stdout
        .clone();
    rotate(&[]);
    let new_export = env.path("a2.pub");
    nexusq()
        .arg("--vault")
        .arg(&a.path)
        .args(["identity", "export", "--password-file"])
        .arg(&a.pw)
        .arg("-o")
        .arg(&new_export)
        .assert()
        .success();
    // The old and the new export of one identity: one stanza, to the newest generation.
    let new = nexusq()
        .arg("encrypt")
        .arg("--to")
        .arg(&a.export)
        .arg("--to")
        .arg(&new_export)
        .write_stdin(b"to generation 2".to_vec())
        .assert()
        .success()
        .stderr(contains("generation 2"))
        .get_output()
        .stdout
        .clone();
    assert_eq!(new[21], 1);
    a.decrypt()
        .write_stdin(old.clone())
        .assert()
        .success()
        .stdout("to generation 1")
        .stderr(contains("superseded"));
    let o = a.decrypt().write_stdin(new.clone()).assert().success();
    assert!(!stderr(o.get_output()).contains("superseded"));
    // Keep the newest two generations (2 and 3): generation 1's keys are erased.
    rotate(&["--retire-older-than", "2", "--yes"]);
    a.decrypt()
        .write_stdin(old)
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("not encrypted to any key"));
    a.decrypt()
        .write_stdin(new)
        .assert()
        .success()
        .stdout("to generation 2");
}

/// Two copies of one vault rotated separately certify two different generation-2 keys: exports
/// of both, given together, are a fork and are refused.
#[test]
fn exports_that_fork_a_generation_are_refused() {
    let env = Env::new();
    let a = env.vault("a");
    let copy = env.path("copy.nxq");
    fs::copy(&a.path, &copy).unwrap();
    let mut exports = Vec::new();
    for (vault, name) in [(&a.path, "a2.pub"), (&copy, "copy2.pub")] {
        for args in [
            vec!["rotate".to_string()],
            vec!["identity".into(), "export".into(), "-o".into(), name.into()],
        ] {
            nexusq()
                .current_dir(env.dir.path())
                .arg("--vault")
                .arg(vault)
                .arg("--password-file")
                .arg(&a.pw)
                .args(&args)
                .assert()
                .success();
        }
        exports.push(env.path(name));
    }
    nexusq()
        .arg("encrypt")
        .arg("--to")
        .arg(&exports[0])
        .arg("--to")
        .arg(&exports[1])
        .write_stdin(b"x".to_vec())
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("fork"));
    // Each alone is fine.
    encrypt_to(&[&a]).write_stdin(Vec::new()).assert().success();
    nexusq()
        .arg("encrypt")
        .arg("--to")
        .arg(&exports[1])
        .write_stdin(Vec::new())
        .assert()
        .success();
}

#[test]
fn wrong_recipient_exits_1_before_any_output() {
    let env = Env::new();
    let (a, b) = (env.vault("a"), env.vault("b"));
    let ct = encrypt_to(&[&a])
        .write_stdin(b"for a only".to_vec())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    b.decrypt()
        .write_stdin(ct)
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("not encrypted to any key"));
}

#[test]
fn both_suites_round_trip() {
    let env = Env::new();
    let a = env.vault("a");
    let plain = data(2 * CHUNK, 3);
    for (suite, id, ct_len) in [
        ("mlkem768-x25519", 1u8, 1120),
        ("mlkem1024-x25519", 2, 1600),
    ] {
        let ct = encrypt_to(&[&a])
            .args(["--suite", suite])
            .write_stdin(plain.clone())
            .assert()
            .success()
            .stderr(contains(suite))
            .get_output()
            .stdout
            .clone();
        assert_eq!(&ct[22..24], &[0, id]);
        assert_eq!(ct.len(), 22 + 2 + ct_len + 48 + 32 + 2 * (CHUNK + 16));
        let o = a
            .decrypt()
            .write_stdin(ct)
            .assert()
            .success()
            .stderr(contains(suite));
        assert!(o.get_output().stdout == plain);
    }
    nexusq()
        .arg("encrypt")
        .arg("--to")
        .arg(&a.export)
        .args(["--suite", "mlkem512"])
        .write_stdin(Vec::new())
        .assert()
        .code(2);
}

#[test]
fn armor_round_trip_and_strictness() {
    let env = Env::new();
    let a = env.vault("a");
    let plain = data(CHUNK + 1000, 4);
    let out = encrypt_to(&[&a])
        .arg("--armor")
        .write_stdin(plain.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).expect("armor is text");
    assert!(text.starts_with(BEGIN));
    assert!(text.ends_with("-----END NEXUSQ ENCRYPTED FILE-----\n"));
    let lines: Vec<&str> = text.lines().collect();
    for l in &lines[1..lines.len() - 2] {
        assert_eq!(l.len(), 64);
    }
    let o = a.decrypt().write_stdin(text.clone()).assert().success();
    assert!(o.get_output().stdout == plain);
    // From a file, and with CRLF line endings.
    let asc = env.write("ct.asc", text.as_bytes());
    let o = a.decrypt().arg(&asc).assert().success();
    assert!(o.get_output().stdout == plain);
    let crlf = text.replace('\n', "\r\n");
    let o = a.decrypt().write_stdin(crlf.clone()).assert().success();
    assert!(o.get_output().stdout == plain);
    // Loose variants are refused with exit 1 and nothing on stdout.
    let bad = [
        format!("{text}\n"),
        text.trim_end().to_string(),
        text.replacen('\n', "\r\n", 2),
        text.replacen("\n", "\n\n", 2),
        text[..text.len() / 2].to_string(),
        text.replace("ENCRYPTED FILE-----\n", "SIGNATURE-----\n"),
    ];
    for (i, b) in bad.iter().enumerate() {
        let o = a
            .decrypt()
            .arg("-o")
            .arg(env.path("out"))
            .write_stdin(b.clone())
            .output()
            .unwrap();
        assert_eq!(code(&o), 1, "variant {i}: {}", stderr(&o));
        assert!(!env.path("out").exists(), "variant {i} left output");
    }
    // --armor to a file, then --json summaries.
    let asc2 = env.path("ct2.asc");
    let o = encrypt_to(&[&a])
        .args(["--armor", "--json", "-o"])
        .arg(&asc2)
        .write_stdin(plain.clone())
        .assert()
        .success();
    let v = json(&o.get_output().stdout);
    assert_eq!(v["armor"], true);
    assert_eq!(v["recipients"][0]["fingerprint"], a.fingerprint.as_str());
    assert_eq!(v["recipients"][0]["generation"], 1);
    assert_eq!(v["bytes"], plain.len());
    assert!(fs::read_to_string(&asc2).unwrap().starts_with(BEGIN));
    let dec = env.path("dec");
    let o = a
        .decrypt()
        .arg("--json")
        .arg(&asc2)
        .arg("-o")
        .arg(&dec)
        .assert()
        .success();
    let v = json(&o.get_output().stdout);
    assert_eq!(v["bytes"], plain.len());
    assert_eq!(v["generation"], 1);
    assert_eq!(v["armor"], true);
    assert!(fs::read(&dec).unwrap() == plain);
    // --json needs -o: stdout carries the data.
    encrypt_to(&[&a])
        .arg("--json")
        .write_stdin(Vec::new())
        .assert()
        .code(2)
        .stdout(predicates::str::contains(r#""kind":"usage""#));
    // Nothing but the error object (docs/cli.md) goes to stdout.
    a.decrypt()
        .arg("--json")
        .arg(&asc2)
        .assert()
        .code(2)
        .stdout(predicates::str::starts_with(r#"{"error":{"code":2"#));
}

#[test]
fn expect_fingerprint_and_duplicate_recipients() {
    let env = Env::new();
    let (a, b) = (env.vault("a"), env.vault("b"));
    // Mismatch: exit 1, nothing written.
    let out = env.path("out");
    encrypt_to(&[&a, &b])
        .arg("--expect-fingerprint")
        .arg(&a.fingerprint)
        .arg("-o")
        .arg(&out)
        .write_stdin(b"x".to_vec())
        .assert()
        .code(1)
        .stderr(contains(&b.fingerprint));
    assert!(!out.exists());
    // A malformed fingerprint is a usage error.
    encrypt_to(&[&a])
        .args(["--expect-fingerprint", "not-a-fingerprint"])
        .write_stdin(b"x".to_vec())
        .assert()
        .code(2);
    // The same identity twice collapses into one stanza, with a note.
    let copy = env.path("a-copy.pub");
    fs::copy(&a.export, &copy).unwrap();
    let o = nexusq()
        .arg("encrypt")
        .arg("--to")
        .arg(&a.export)
        .arg("--to")
        .arg(&copy)
        .write_stdin(b"once".to_vec())
        .assert()
        .success()
        .stderr(contains("same identity"));
    let ct = o.get_output().stdout.clone();
    assert_eq!(ct[21], 1);
    a.decrypt()
        .write_stdin(ct)
        .assert()
        .success()
        .stdout("once");
    // Not an export at all: exit 1. A missing export: exit 5.
    let junk = env.write("junk.pub", b"hello");
    nexusq()
        .arg("encrypt")
        .arg("--to")
        .arg(&junk)
        .write_stdin(Vec::new())
        .assert()
        .code(1);
    nexusq()
        .arg("encrypt")
        .arg("--to")
        .arg(env.path("missing.pub"))
        .write_stdin(Vec::new())
        .assert()
        .code(5);
}

#[test]
fn encrypt_without_recipients_is_a_usage_error() {
    // The 64-recipient limit needs 65 distinct identities (65 vaults); the library's unit tests
    // cover it. Here: no --to at all.
    nexusq()
        .arg("encrypt")
        .write_stdin(Vec::new())
        .assert()
        .code(2);
}

#[test]
fn output_file_is_all_or_nothing() {
    let env = Env::new();
    let a = env.vault("a");
    let plain = data(3 * CHUNK, 5);
    let ct = encrypt_to(&[&a])
        .write_stdin(plain.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    // A flip in the last chunk: chunks 0 and 1 authenticate, chunk 2 does not.
    let mut bad = ct.clone();
    let last = bad.len() - 5;
    bad[last] ^= 0x40;
    let bad_file = env.write("bad.nxqf", &bad);
    let target = env.path("plain.out");
    fs::write(&target, b"previous content").unwrap();
    let before = env.listing();
    a.decrypt()
        .arg(&bad_file)
        .arg("-o")
        .arg(&target)
        .assert()
        .code(1)
        .stderr(contains("chunk 2"));
    assert_eq!(env.listing(), before, "a temporary file was left behind");
    assert_eq!(fs::read(&target).unwrap(), b"previous content");
    // To stdout the authentic chunks are already out, and the error says so.
    let o = a.decrypt().write_stdin(bad).assert().code(1);
    let o = o.get_output();
    assert_eq!(o.stdout.len(), 2 * CHUNK);
    assert!(o.stdout == plain[..2 * CHUNK]);
    let err = stderr(o);
    assert!(err.contains("131072 bytes"), "{err}");
    assert!(err.contains("already written to stdout"), "{err}");
    // Truncated at a chunk boundary: the same, with "truncated".
    let cut = ct.len() - (CHUNK + 16);
    let o = a.decrypt().write_stdin(ct[..cut].to_vec()).assert().code(1);
    assert!(stderr(o.get_output()).contains("truncated"));
    // Trailing bytes.
    let mut long = ct.clone();
    long.extend_from_slice(b"more");
    let o = a.decrypt().write_stdin(long).assert().code(1);
    drop(o);
}

#[test]
fn sample_of_flips_and_truncations_exit_1() {
    let env = Env::new();
    let a = env.vault("a");
    let plain = data(CHUNK + 500, 6);
    let ct = encrypt_to(&[&a])
        .write_stdin(plain)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let header = 22 + 2 + 1120 + 48 + 32;
    let flips = [
        0,
        3,
        4,
        5,
        20,
        21,
        22,
        23,
        24,
        600,
        24 + 1119,
        24 + 1120,
        24 + 1120 + 47,
        header - 32,
        header - 1,
        header,
        header + 1000,
        header + CHUNK + 15,
        header + CHUNK + 16,
        ct.len() - 1,
    ];
    let target = env.path("out");
    let mut cases: Vec<(String, Vec<u8>)> = flips
        .iter()
        .map(|&p| {
            let mut b = ct.clone();
            b[p] ^= 1 << (p % 8);
            (format!("flip at {p}"), b)
        })
        .collect();
    for cut in [
        0,
        1,
        4,
        21,
        22,
        600,
        header - 1,
        header,
        header + 15,
        header + 16,
        header + CHUNK + 16,
        ct.len() - 1,
    ] {
        cases.push((format!("cut at {cut}"), ct[..cut].to_vec()));
    }
    for (name, bytes) in cases {
        let o = a
            .decrypt()
            .arg("-o")
            .arg(&target)
            .write_stdin(bytes)
            .output()
            .unwrap();
        assert_eq!(code(&o), 1, "{name}: {}", stderr(&o));
        assert!(!target.exists(), "{name}: output left behind");
        assert!(stderr(&o).contains("hint:"), "{name}: no hint");
    }
    assert!(
        env.listing().iter().all(|n| !n.contains(".tmp.")),
        "{:?}",
        env.listing()
    );
}

#[test]
fn password_must_not_come_from_the_data_on_stdin() {
    let env = Env::new();
    let a = env.vault("a");
    let ct = encrypt_to(&[&a])
        .write_stdin(b"x".to_vec())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let ctf = env.write("ct", &ct);
    nexusq()
        .arg("--vault")
        .arg(&a.path)
        .args(["decrypt", "--password-fd", "0"])
        .write_stdin(ct.clone())
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("stdin"));
    // The same file as the password file is refused too.
    let shared = env.write("both", &ct);
    // The file itself as fd 0 (`pipe_stdin` would copy it through a pipe, and then the outcome
    // hung on whether the random ciphertext happened to read as a password).
    let mut same = std::process::Command::new(BIN);
    same.env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .arg("--vault")
        .arg(&a.path)
        .arg("decrypt")
        .arg("--password-file")
        .arg(&shared)
        .stdin(fs::File::open(&shared).unwrap());
    // std's `output`, not assert_cmd's (which replaces stdin with its own).
    same.output()
        .unwrap()
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("stdin"));
    // With the data in a file, fd 0 may carry the password.
    nexusq()
        .arg("--vault")
        .arg(&a.path)
        .args(["decrypt", "--password-fd", "0"])
        .arg(&ctf)
        .write_stdin(format!("{PASSWORD}\n"))
        .assert()
        .success()
        .stdout("x");
    // No terminal and no password option: exit 2 at once, never a hang.
    let start = Instant::now();
    let o = std::process::Command::new("setsid")
        .arg("-w")
        .arg(BIN)
        .arg("--vault")
        .arg(&a.path)
        .arg("decrypt")
        .arg(&ctf)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .stdin(Stdio::null())
        .output()
        .expect("run setsid (util-linux)");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--password-file"));
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn inputs_that_are_not_encrypted_files() {
    let env = Env::new();
    let a = env.vault("a");
    for (name, bytes) in [
        ("empty", Vec::new()),
        ("text", b"hello world\n".to_vec()),
        ("export", fs::read(&a.export).unwrap()),
        ("vault", fs::read(&a.path).unwrap()),
        ("newer version", b"NXQF\x02rest".to_vec()),
    ] {
        let o = a.decrypt().write_stdin(bytes).output().unwrap();
        assert_eq!(code(&o), 1, "{name}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    let o = a
        .decrypt()
        .write_stdin(b"NXQF\x02".to_vec())
        .output()
        .unwrap();
    assert!(stderr(&o).contains("newer nexusq"), "{}", stderr(&o));
    a.decrypt().arg(env.path("missing")).assert().code(5);
}

// ---------------------------------------------------------------------------------------------
// A large file through a pipe, in constant memory

/// Peak resident memory (VmHWM, KiB) of a running process, polled until it exits.
fn watch_peak_rss(pid: u32, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut peak = 0u64;
        let path = format!("/proc/{pid}/status");
        while !stop.load(Ordering::Relaxed) {
            let Ok(status) = fs::read_to_string(&path) else {
                break;
            };
            let Some(kib) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            else {
                break; // a zombie has no memory left to report
            };
            peak = peak.max(kib);
            std::thread::sleep(Duration::from_millis(5));
        }
        peak
    })
}

struct PipeRun {
    encrypt_kib: u64,
    decrypt_kib: u64,
    seconds: f64,
}

/// `nexusq encrypt | nexusq decrypt` over `len` pseudo-random bytes generated on the fly; the
/// output is hashed on the fly and compared with the input's hash.
fn pipe_through(a: &Vault, len: u64) -> PipeRun {
    let start = Instant::now();
    let mut enc = std::process::Command::new(BIN)
        .arg("encrypt")
        .arg("--to")
        .arg(&a.export)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut dec = std::process::Command::new(BIN)
        .arg("--vault")
        .arg(&a.path)
        .arg("--password-file")
        .arg(&a.pw)
        .arg("decrypt")
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .stdin(Stdio::from(enc.stdout.take().unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let enc_peak = watch_peak_rss(enc.id(), stop.clone());
    let dec_peak = watch_peak_rss(dec.id(), stop.clone());

    let mut enc_in = enc.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let mut prng = Prng::new(len);
        let mut hash = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut left = len;
        while left > 0 {
            let n = left.min(buf.len() as u64) as usize;
            prng.fill(&mut buf[..n]);
            hash.update(&buf[..n]);
            enc_in.write_all(&buf[..n]).expect("feed nexusq encrypt");
            left -= n as u64;
        }
        drop(enc_in);
        hash.finalize()
    });
    let mut dec_out = dec.stdout.take().unwrap();
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        let n = dec_out.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
        total += n as u64;
    }
    let want = feeder.join().unwrap();
    let enc_status = enc.wait().unwrap();
    let mut dec_err = String::new();
    dec.stderr
        .take()
        .unwrap()
        .read_to_string(&mut dec_err)
        .unwrap();
    let dec_status = dec.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    let run = PipeRun {
        encrypt_kib: enc_peak.join().unwrap(),
        decrypt_kib: dec_peak.join().unwrap(),
        seconds: start.elapsed().as_secs_f64(),
    };
    assert!(enc_status.success(), "encrypt failed");
    assert!(dec_status.success(), "decrypt failed: {dec_err}");
    assert_eq!(total, len);
    assert_eq!(hash.finalize(), want, "the output differs from the input");
    run
}

#[test]
fn large_file_streams_through_a_pipe_in_constant_memory() {
    let env = Env::new();
    let a = env.vault("a");
    const MIB: u64 = 1 << 20;
    let small = pipe_through(&a, 16 * MIB);
    let large = pipe_through(&a, 256 * MIB);
    for (name, mib, r) in [("16 MiB", 16, &small), ("256 MiB", 256, &large)] {
        eprintln!(
            "{name}: encrypt peak RSS {} KiB, decrypt peak RSS {} KiB, {:.1} s ({:.0} MiB/s)",
            r.encrypt_kib,
            r.decrypt_kib,
            r.seconds,
            mib as f64 / r.seconds
        );
    }
    for r in [&small, &large] {
        assert!(r.encrypt_kib > 0 && r.decrypt_kib > 0, "no memory figures");
        // Far below the file size: the decryptor also runs Argon2id with 8 MiB.
        assert!(
            r.encrypt_kib < 48 * 1024,
            "encrypt used {} KiB",
            r.encrypt_kib
        );
        assert!(
            r.decrypt_kib < 48 * 1024,
            "decrypt used {} KiB",
            r.decrypt_kib
        );
    }
    // And it does not grow with the input: 16x the data, at most 4 MiB more.
    assert!(
        large.encrypt_kib <= small.encrypt_kib + 4096,
        "encrypt grew from {} to {} KiB",
        small.encrypt_kib,
        large.encrypt_kib
    );
    assert!(
        large.decrypt_kib <= small.decrypt_kib + 4096,
        "decrypt grew from {} to {} KiB",
        small.decrypt_kib,
        large.decrypt_kib
    );
}

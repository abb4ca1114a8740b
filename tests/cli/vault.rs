//! Command-line tests: run the real `nexusq` binary the way a user or a script would, and check
//! exit codes (docs/cli.md), what goes to stdout and stderr, and the bytes on disk.
//!
//! Every test has its own temporary folder, passes `--vault <tmp>/v.nxq`, creates vaults with
//! small Argon2 parameters, and removes NEXUSQ_VAULT / NEXUSQ_BACKEND from the environment.

use crate::common;
use crate::common::{BIN, SMALL_KDF, new_vault_lanes, private_file};
use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;
use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

const PASSWORD: &str = "correct horse battery staple";
/// Generous: a hang is what these guard against, not slowness on a loaded machine.
const TIMEOUT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------------
// Helpers

/// The binary with a clean environment (no NEXUSQ_VAULT, no NEXUSQ_BACKEND) and a timeout.
fn nexusq() -> Command {
    let mut c = common::bin();
    c.timeout(TIMEOUT);
    c
}

/// One test's folder, vault path and (mode 0600) password file.
struct Env {
    dir: TempDir,
    vault: PathBuf,
    pw: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        let vault = dir.path().join("v.nxq");
        let pw = private_file(&dir.path().join("pw"), format!("{PASSWORD}\n"));
        Env { dir, vault, pw }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A private (0600) password file in this test's folder.
    fn password_file(&self, name: &str, content: &str) -> PathBuf {
        private_file(&self.path(name), content)
    }

    /// `nexusq --vault <vault>`.
    fn cmd(&self) -> Command {
        let mut c = nexusq();
        c.arg("--vault").arg(&self.vault);
        c
    }

    /// `init` with small KDF parameters; returns the fingerprint it printed.
    fn init(&self) -> String {
        let out = self
            .cmd()
            .arg("init")
            .args(SMALL_KDF)
            .arg("--password-file")
            .arg(&self.pw)
            .assert()
            .success();
        let stdout = text(&out.get_output().stdout);
        let fp = stdout
            .lines()
            .find_map(|l| l.strip_prefix("fingerprint:"))
            .unwrap_or_else(|| panic!("no fingerprint line in init's output:\n{stdout}"))
            .trim()
            .to_string();
        assert!(is_fingerprint(&fp), "bad fingerprint {fp:?}");
        fp
    }

    fn bytes(&self) -> Vec<u8> {
        fs::read(&self.vault).expect("read the vault")
    }

    fn lock(&self) -> PathBuf {
        suffixed(&self.vault, ".lock")
    }

    fn revocation(&self) -> PathBuf {
        suffixed(&self.vault, ".revocation.asc")
    }

    /// `vault unlock --password-file FILE` as an assertion.
    fn unlock_with(&self, pw: &Path) -> assert_cmd::assert::Assert {
        self.cmd()
            .args(["vault", "unlock", "--password-file"])
            .arg(pw)
            .assert()
    }

    /// `vault open --json`, parsed.
    fn open_json(&self) -> Value {
        let out = self
            .cmd()
            .args(["vault", "open", "--json"])
            .assert()
            .success();
        json(&out.get_output().stdout)
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

fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

fn json(bytes: &[u8]) -> Value {
    let s = text(bytes);
    let v: Value =
        serde_json::from_str(s.trim_end()).unwrap_or_else(|e| panic!("not JSON ({e}): {s:?}"));
    assert!(v.is_object(), "not a JSON object: {s}");
    v
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// 8 groups of 4 lowercase base32 characters joined by '-'.
fn is_fingerprint(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 8
        && groups.iter().all(|g| {
            g.len() == 4
                && g.bytes()
                    .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
        })
}

/// Strict armor: BEGIN line, 64-character base64 lines (the last one 1..=64), END line, one LF.
fn check_armor(armored: &str, kind: &str) {
    let begin = format!("-----BEGIN NEXUSQ {kind}-----\n");
    let end = format!("-----END NEXUSQ {kind}-----\n");
    assert!(armored.starts_with(&begin), "no BEGIN line: {armored:.80}");
    assert!(armored.ends_with(&end), "no END line + LF at the end");
    assert!(!armored.contains('\r'), "CR in the armor");
    let body = &armored[begin.len()..armored.len() - end.len()];
    let lines: Vec<&str> = body.lines().collect();
    assert!(!lines.is_empty(), "empty armor body");
    assert!(body.ends_with('\n'));
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        if last {
            assert!(
                (1..=64).contains(&line.len()),
                "last line of {} chars",
                line.len()
            );
        } else {
            assert_eq!(line.len(), 64, "line {i} is {} chars: {line:?}", line.len());
        }
        assert!(
            line.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='),
            "not base64: {line:?}"
        );
    }
}

/// Run the binary in a new session (no controlling terminal), stdin from /dev/null; kill it
/// after `timeout`. Returns the output and how long it took.
fn run_without_terminal(args: &[&std::ffi::OsStr], timeout: Duration) -> (Output, Duration) {
    // Not a process-group leader, so `setsid` calls setsid(2) itself and execs the binary
    // (no fork): killing the child on timeout kills nexusq.
    let mut child = std::process::Command::new("setsid")
        .arg("-w")
        .arg(BIN)
        .args(args)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run setsid (util-linux)");
    let start = Instant::now();
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nexusq hung without a terminal (killed after {timeout:?})");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    let output = Output {
        status,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    };
    (output, elapsed)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

// ---------------------------------------------------------------------------------------------
// 1. init

#[test]
fn init_creates_vault_lock_and_revocation_and_prints_fingerprint() {
    let env = Env::new();
    let out = env
        .cmd()
        .arg("init")
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success()
        // Small parameters are accepted, with a warning that names the floor by memory and
        // passes (lanes do not make parameters weaker).
        .stderr(contains(
            "weaker than the default (Argon2id v1.3, 64 MiB, t=3, any p)",
        ))
        .stderr(contains("revocation statement"));
    let stdout = text(&out.get_output().stdout);
    let fp = stdout
        .lines()
        .find_map(|l| l.strip_prefix("fingerprint: "))
        .expect("fingerprint line")
        .trim();
    assert!(is_fingerprint(fp), "{fp:?}");
    assert!(stdout.contains("generation:  1"), "{stdout}");

    assert!(env.vault.is_file());
    assert_eq!(mode(&env.vault), 0o600, "vault mode");
    assert_eq!(&env.bytes()[..4], b"NXQV");
    assert!(env.lock().is_file(), "no lock file");
    assert_eq!(mode(&env.lock()), 0o600, "lock file mode");
    assert!(env.revocation().is_file(), "no revocation statement");
    // A public file (docs/cli.md): 0644 less the umask.
    assert_eq!(
        mode(&env.revocation()),
        common::public_file_mode(),
        "revocation file mode"
    );
    let rev = fs::read_to_string(env.revocation()).unwrap();
    check_armor(&rev, "REVOCATION");
    // Nothing else left behind (no temporary files).
    assert_eq!(
        env.listing(),
        ["pw", "v.nxq", "v.nxq.lock", "v.nxq.revocation.asc"]
    );
    // The fingerprint is the vault's.
    assert_eq!(env.open_json()["fingerprint"], fp);
}

/// `init --calibrate-ms` chooses memory first (whole MiB, within a quarter of the RAM and 1 GiB),
/// then passes, with the device's lanes; a pinned `--kdf-memory-mib` leaves only the passes.
/// What it chooses depends on this machine's speed, so only the rules are checked.
#[test]
fn init_calibrates_memory_passes_and_lanes() {
    let env = Env::new();
    env.cmd()
        .args(["init", "--calibrate-ms", "150", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success()
        .stderr(contains("calibrating Argon2id for about 150 ms"))
        .stderr(contains("chose Argon2id v1.3"));
    let v = env.open_json();
    let m = v["kdf"]["memory_kib"].as_u64().unwrap();
    let t = v["kdf"]["iterations"].as_u64().unwrap();
    assert!(
        (8192..=1024 * 1024).contains(&m) && m.is_multiple_of(1024),
        "{m}"
    );
    assert!((1..=64).contains(&t), "{t}");
    assert_eq!(v["kdf"]["parallelism"], new_vault_lanes());
    // Passes grow only once the memory is at its cap.
    assert!(t == 1 || m == 1024 * 1024, "m={m} t={t}");

    let env = Env::new();
    env.cmd()
        .args(["init", "--calibrate-ms", "150", "--kdf-memory-mib", "16"])
        .args(["--kdf-parallelism", "1", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success();
    let v = env.open_json();
    assert_eq!(v["kdf"]["memory_kib"], 16384);
    assert_eq!(v["kdf"]["parallelism"], 1);
    env.unlock_with(&env.pw).success();
}

#[test]
fn init_json_gives_one_object() {
    let env = Env::new();
    let out = env
        .cmd()
        .args(["init", "--json"])
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success();
    let v = json(&out.get_output().stdout);
    let fp = v["fingerprint"].as_str().expect("fingerprint string");
    assert!(is_fingerprint(fp), "{fp:?}");
    assert_eq!(v["generation"], 1);
    assert_eq!(v["kdf"]["memory_kib"], 8192);
    assert_eq!(v["kdf"]["iterations"], 1);
    assert_eq!(v["kdf"]["parallelism"], new_vault_lanes());
    assert_eq!(v["kdf"]["algorithm"], "argon2id");
    assert_eq!(
        v["revocation"].as_str().unwrap(),
        env.revocation().to_str().unwrap()
    );
    assert!(env.revocation().is_file());
    assert_eq!(env.open_json()["fingerprint"], fp);
}

#[test]
fn init_revocation_out_writes_there() {
    let env = Env::new();
    let rev = env.path("elsewhere.asc");
    env.cmd()
        .arg("init")
        .args(SMALL_KDF)
        .arg("--revocation-out")
        .arg(&rev)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success()
        .stderr(contains("elsewhere.asc"));
    check_armor(&fs::read_to_string(&rev).unwrap(), "REVOCATION");
    assert_eq!(mode(&rev), common::public_file_mode());
    assert!(
        !env.revocation().exists(),
        "default revocation path used too"
    );
}

#[test]
fn loose_password_file_permissions_warn_and_private_ones_do_not() {
    let env = Env::new();
    let loose = env.password_file("loose", &format!("{PASSWORD}\n"));
    fs::set_permissions(&loose, fs::Permissions::from_mode(0o644)).unwrap();
    env.init();
    env.unlock_with(&loose)
        .success()
        .stderr(contains("readable by other users"))
        .stderr(contains("chmod 600"));
    env.unlock_with(&env.pw)
        .success()
        .stderr(contains("readable by other users").not());
}

// ---------------------------------------------------------------------------------------------
// 2. init refusals

#[test]
fn second_init_is_refused_and_leaves_the_vault_untouched() {
    let env = Env::new();
    let fp = env.init();
    let before = env.bytes();
    let rev_before = fs::read(env.revocation()).unwrap();
    let other = env.password_file("other", "another password\n");
    env.cmd()
        .arg("init")
        .args(SMALL_KDF)
        .arg("--revocation-out")
        .arg(env.path("second.asc"))
        .arg("--password-file")
        .arg(&other)
        .assert()
        .code(2)
        .stderr(contains("already exists"))
        .stderr(contains("hint:"));
    assert_eq!(env.bytes(), before, "the vault changed");
    assert_eq!(fs::read(env.revocation()).unwrap(), rev_before);
    assert!(!env.path("second.asc").exists());
    assert_eq!(env.open_json()["fingerprint"], fp);
    env.unlock_with(&env.pw).success();
}

#[test]
fn init_with_existing_revocation_file_is_refused_before_touching_anything() {
    let env = Env::new();
    fs::write(env.revocation(), b"precious").unwrap();
    env.cmd()
        .arg("init")
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .code(2)
        .stderr(contains("already exists"))
        .stderr(contains("--revocation-out"));
    assert_eq!(fs::read(env.revocation()).unwrap(), b"precious");
    assert!(!env.vault.exists(), "a vault was created");
    assert!(!env.lock().exists(), "the lock file was created");
    assert_eq!(env.listing(), ["pw", "v.nxq.revocation.asc"]);
}

#[test]
fn init_in_a_missing_folder_is_refused() {
    let env = Env::new();
    nexusq()
        .arg("--vault")
        .arg(env.path("no/such/folder/v.nxq"))
        .arg("init")
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .code(2)
        .stderr(contains("does not exist"));
    assert_eq!(env.listing(), ["pw"]);
}

// ---------------------------------------------------------------------------------------------
// 3. vault open

#[test]
fn vault_open_without_password_shows_the_identity() {
    let env = Env::new();
    let fp = env.init();
    // No password option and stdin closed: open never asks for one.
    let out = env
        .cmd()
        .args(["vault", "open"])
        .assert()
        .success()
        .stdout(contains("intact (not authenticated: unlock checks it)"))
        .stdout(contains(format!("fingerprint: {fp}")))
        .stdout(contains("Argon2id"))
        .stderr(contains("weaker than the default"));
    assert!(!text(&out.get_output().stdout).contains("Password"));

    let v = env.open_json();
    assert_eq!(v["fingerprint"], fp.as_str());
    assert_eq!(v["generation"], 1);
    assert_eq!(v["kdf"]["memory_kib"], 8192);
    assert_eq!(v["kdf"]["iterations"], 1);
    assert_eq!(v["kdf"]["parallelism"], new_vault_lanes());
    let created = v["created"].as_str().expect("created string");
    assert!(
        created.len() >= 20 && created.ends_with('Z') && created.contains('T'),
        "created is not an RFC 3339 UTC time: {created}"
    );
}

#[test]
fn vault_open_missing_vault_exits_4_with_init_hint() {
    let env = Env::new();
    env.cmd()
        .args(["vault", "open"])
        .assert()
        .code(4)
        .stderr(contains("nexusq init"))
        .stdout(predicate::str::is_empty());
    // The other commands say the same before asking for a password.
    env.cmd()
        .args(["vault", "unlock"])
        .assert()
        .code(4)
        .stderr(contains("nexusq init"));
    env.cmd().args(["identity", "export"]).assert().code(4);
    assert!(!env.vault.exists());
}

#[test]
fn vault_open_not_a_vault_exits_4() {
    let env = Env::new();
    fs::write(&env.vault, b"this is a shopping list, not a vault\n").unwrap();
    env.cmd()
        .args(["vault", "open"])
        .assert()
        .code(4)
        .stderr(contains("not a nexusq vault"));
    // Also a file that starts like a vault but is garbage.
    let mut fake = b"NXQV".to_vec();
    fake.extend(std::iter::repeat_n(0xa5u8, 5000));
    fs::write(&env.vault, &fake).unwrap();
    env.cmd().args(["vault", "open"]).assert().code(4);
}

#[test]
fn vault_open_empty_file_exits_4() {
    let env = Env::new();
    fs::write(&env.vault, b"").unwrap();
    env.cmd()
        .args(["vault", "open"])
        .assert()
        .code(4)
        .stderr(contains("error:"));
    env.unlock_with(&env.pw).code(4);
}

// ---------------------------------------------------------------------------------------------
// 4. vault unlock

#[test]
fn unlock_right_wrong_and_empty_passwords() {
    let env = Env::new();
    let fp = env.init();
    env.unlock_with(&env.pw)
        .success()
        .stdout(contains("unlocked"))
        .stdout(contains(fp.as_str()));
    let out = env
        .cmd()
        .args(["vault", "unlock", "--json", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success();
    let v = json(&out.get_output().stdout);
    assert_eq!(v["unlocked"], true);
    assert_eq!(v["fingerprint"], fp.as_str());

    let wrong = env.password_file("wrong", "not the password\n");
    env.unlock_with(&wrong)
        .code(3)
        .stderr(contains("wrong password"))
        .stdout(predicate::str::is_empty());
    // The password is the first line only: trailing text on later lines is ignored, but
    // a different first line is wrong.
    let two_lines = env.password_file("two", &format!("{PASSWORD}\nsomething else\n"));
    env.unlock_with(&two_lines).success();
    let crlf = env.password_file("crlf", &format!("{PASSWORD}\r\n"));
    env.unlock_with(&crlf).success();
    let prefix = env.password_file("prefix", &format!("{PASSWORD}x\n"));
    env.unlock_with(&prefix).code(3);

    let empty = env.password_file("empty", "");
    env.unlock_with(&empty).code(2).stderr(contains("empty"));
    let empty_line = env.password_file("empty-line", "\nsecond line\n");
    env.unlock_with(&empty_line)
        .code(2)
        .stderr(contains("empty"));

    env.unlock_with(&env.path("no-such-password-file"))
        .code(2)
        .stderr(contains("--password-file"));
}

#[test]
fn unlock_with_password_fd() {
    let env = Env::new();
    let fp = env.init();
    // A file on fd 3.
    Command::new("bash")
        .arg("-c")
        .arg(r#""$0" --vault "$1" vault unlock --password-fd 3 3<"$2""#)
        .arg(BIN)
        .arg(&env.vault)
        .arg(&env.pw)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .timeout(TIMEOUT)
        .assert()
        .success()
        .stdout(contains("unlocked"))
        .stdout(contains(fp.as_str()));
    // A pipe on fd 3.
    Command::new("bash")
        .arg("-c")
        .arg(r#""$0" --vault "$1" vault unlock --password-fd 3 3< <(printf '%s\n' "$2")"#)
        .arg(BIN)
        .arg(&env.vault)
        .arg(PASSWORD)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .timeout(TIMEOUT)
        .assert()
        .success()
        .stdout(contains("unlocked"));
    // A wrong password on fd 3.
    Command::new("bash")
        .arg("-c")
        .arg(r#""$0" --vault "$1" vault unlock --password-fd 3 3< <(printf 'nope\n')"#)
        .arg(BIN)
        .arg(&env.vault)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .timeout(TIMEOUT)
        .assert()
        .code(3)
        .stderr(contains("wrong password"));
    // A descriptor that was not inherited.
    env.cmd()
        .args(["vault", "unlock", "--password-fd", "57"])
        .assert()
        .code(2)
        .stderr(contains("file descriptor 57"));
}

#[test]
fn unlock_without_terminal_fails_fast_with_hint() {
    let env = Env::new();
    env.init();
    let (out, elapsed) = run_without_terminal(
        &[
            os("--vault"),
            env.vault.as_os_str(),
            os("vault"),
            os("unlock"),
        ],
        Duration::from_secs(20),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("--password-file"), "{stderr}");
    assert!(stderr.contains("no terminal"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");

    // init without a terminal fails the same way, and creates nothing.
    let other = env.path("w.nxq");
    let (out, _) = run_without_terminal(
        &[
            os("--vault"),
            other.as_os_str(),
            os("init"),
            os("--kdf-memory-mib"),
            os("8"),
            os("--kdf-iterations"),
            os("1"),
        ],
        Duration::from_secs(20),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--password-file"));
    assert!(!other.exists());
    assert!(!suffixed(&other, ".revocation.asc").exists());
}

// ---------------------------------------------------------------------------------------------
// 5. vault passwd

#[test]
fn passwd_changes_password_and_both_salts() {
    let env = Env::new();
    let fp = env.init();
    let before = env.bytes();
    let new_pw = env.password_file("new", "a brand new passphrase\n");
    env.cmd()
        .args(["vault", "passwd", "--password-file"])
        .arg(&env.pw)
        .arg("--new-password-file")
        .arg(&new_pw)
        .assert()
        .success()
        .stdout(contains("password changed"));
    let after = env.bytes();
    assert_ne!(before[24..56], after[24..56], "Argon2 salt unchanged");
    assert_ne!(before[56..88], after[56..88], "seal salt unchanged");
    assert_eq!(after[..4], *b"NXQV");
    assert_eq!(mode(&env.vault), 0o600, "vault mode after passwd");

    env.unlock_with(&env.pw)
        .code(3)
        .stderr(contains("wrong password"));
    env.unlock_with(&new_pw)
        .success()
        .stdout(contains(fp.as_str()));
    // Without --kdf-* options the parameters become at least the default (64 MiB, t=3); the
    // lanes stay the vault's.
    let v = env.open_json();
    assert_eq!(v["fingerprint"], fp.as_str());
    assert_eq!(v["kdf"]["memory_kib"], 65536);
    assert_eq!(v["kdf"]["iterations"], 3);
    assert_eq!(v["kdf"]["parallelism"], new_vault_lanes());
    // No temporary file left behind.
    assert_eq!(
        env.listing(),
        ["new", "pw", "v.nxq", "v.nxq.lock", "v.nxq.revocation.asc"]
    );
}

#[test]
fn passwd_with_kdf_options_changes_parameters() {
    let env = Env::new();
    env.init();
    let new_pw = env.password_file("new", "another passphrase\n");
    let out = env
        .cmd()
        .args([
            "vault",
            "passwd",
            "--kdf-memory-mib",
            "16",
            "--kdf-iterations",
            "2",
            "--json",
            "--password-file",
        ])
        .arg(&env.pw)
        .arg("--new-password-file")
        .arg(&new_pw)
        .assert()
        .success();
    let v = json(&out.get_output().stdout);
    assert_eq!(v["changed"], true);
    assert_eq!(v["kdf"]["memory_kib"], 16384);
    assert_eq!(v["kdf"]["iterations"], 2);
    let v = env.open_json();
    assert_eq!(v["kdf"]["memory_kib"], 16384);
    assert_eq!(v["kdf"]["iterations"], 2);
    assert_eq!(v["kdf"]["parallelism"], new_vault_lanes());
    let bytes = env.bytes();
    assert_eq!(
        bytes[11..15],
        16384u32.to_be_bytes(),
        "memory in the header"
    );
    assert_eq!(
        bytes[15..19],
        2u32.to_be_bytes(),
        "iterations in the header"
    );
    env.unlock_with(&new_pw).success();
    env.unlock_with(&env.pw).code(3);
}

#[test]
fn passwd_with_wrong_old_password_or_bad_parameters_changes_nothing() {
    let env = Env::new();
    env.init();
    let before = env.bytes();
    let wrong = env.password_file("wrong", "wrong\n");
    let new_pw = env.password_file("new", "new passphrase\n");
    env.cmd()
        .args(["vault", "passwd", "--password-file"])
        .arg(&wrong)
        .arg("--new-password-file")
        .arg(&new_pw)
        .assert()
        .code(3);
    assert_eq!(env.bytes(), before);
    env.cmd()
        .args([
            "vault",
            "passwd",
            "--kdf-memory-mib",
            "4",
            "--password-file",
        ])
        .arg(&env.pw)
        .arg("--new-password-file")
        .arg(&new_pw)
        .assert()
        .code(2)
        .stderr(contains("--kdf-memory-mib"));
    assert_eq!(env.bytes(), before);
    env.unlock_with(&env.pw).success();
}

#[test]
fn passwd_without_new_password_and_terminal_exits_2() {
    let env = Env::new();
    env.init();
    let before = env.bytes();
    let (out, elapsed) = run_without_terminal(
        &[
            os("--vault"),
            env.vault.as_os_str(),
            os("vault"),
            os("passwd"),
            os("--password-file"),
            env.pw.as_os_str(),
        ],
        Duration::from_secs(20),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("new password"), "{stderr}");
    assert!(stderr.contains("--new-password-file"), "{stderr}");
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
    assert_eq!(env.bytes(), before, "the vault changed");
}

// ---------------------------------------------------------------------------------------------
// 6. identity export

#[test]
fn identity_export_without_password_warns_with_fingerprint() {
    let env = Env::new();
    let fp = env.init();
    // Right after init the public part is the one this device wrote: nothing to warn about.
    let out = env
        .cmd()
        .args(["identity", "export"])
        .assert()
        .success()
        .stderr(contains("warning:").not());
    let armored = text(&out.get_output().stdout);
    check_armor(&armored, "PUBLIC IDENTITY");

    // The same vault at a path never unlocked here (a copy from elsewhere): the warning, with
    // the fingerprint to check; an unlock there authenticates it, and the warning goes.
    let copy = env.path("copy.nxq");
    fs::copy(&env.vault, &copy).unwrap();
    let export_copy = || {
        let mut c = nexusq();
        c.args(["--vault"]).arg(&copy).args(["identity", "export"]);
        c
    };
    export_copy()
        .assert()
        .success()
        .stderr(contains("warning:"))
        .stderr(contains("never unlocked here"))
        .stderr(contains(fp.as_str()))
        .stderr(contains("--unlock"));
    nexusq()
        .arg("--vault")
        .arg(&copy)
        .args(["vault", "unlock", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success();
    export_copy()
        .assert()
        .success()
        .stderr(contains("warning:").not());

    // Another identity's file put in its place: the public part changed since the last
    // unlock, so the warning is back, naming the new file's fingerprint.
    let other = Env::new();
    let other_fp = other.init();
    fs::copy(&other.vault, &copy).unwrap();
    export_copy()
        .assert()
        .success()
        .stderr(contains("not the one last unlocked"))
        .stderr(contains(other_fp.as_str()));

    // With a password: checked by unlock first, same text, no warning.
    let out = env
        .cmd()
        .args(["identity", "export", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success()
        .stderr(contains("not authenticated").not())
        .stderr(contains("warning:").not());
    assert_eq!(text(&out.get_output().stdout), armored);

    // -o FILE writes the same text, and nothing to stdout.
    let file = env.path("me.pub.asc");
    env.cmd()
        .args(["identity", "export", "-o"])
        .arg(&file)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success()
        .stdout(predicate::str::is_empty());
    assert_eq!(fs::read_to_string(&file).unwrap(), armored);

    // --json carries the same armor.
    let out = env
        .cmd()
        .args(["identity", "export", "--json"])
        .assert()
        .success();
    let v = json(&out.get_output().stdout);
    assert_eq!(v["fingerprint"], fp.as_str());
    assert_eq!(v["armor"], true);
    assert_eq!(v["export"], armored.as_str());
    assert_eq!(v["authenticated"], false);
}

#[test]
fn identity_export_with_wrong_password_writes_nothing() {
    let env = Env::new();
    env.init();
    let wrong = env.password_file("wrong", "wrong\n");
    let file = env.path("me.pub.asc");
    env.cmd()
        .args(["identity", "export", "-o"])
        .arg(&file)
        .arg("--password-file")
        .arg(&wrong)
        .assert()
        .code(3)
        .stderr(contains("wrong password"))
        .stdout(predicate::str::is_empty());
    assert!(!file.exists(), "an output file was created");
    assert!(
        !env.listing().iter().any(|n| n.contains("me.pub")),
        "{:?}",
        env.listing()
    );
    env.cmd()
        .args(["identity", "export", "--password-file"])
        .arg(&wrong)
        .assert()
        .code(3)
        .stdout(predicate::str::is_empty());
}

// ---------------------------------------------------------------------------------------------
// 7. backends

#[test]
fn backend_selection() {
    let env = Env::new();
    // The native backend creates and unlocks vaults like the default one.
    env.cmd()
        .args(["--backend", "native", "init"])
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success();
    env.cmd()
        .args(["vault", "unlock", "--backend", "native", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success()
        .stdout(contains("unlocked"));
    env.cmd()
        .args(["vault", "unlock", "--backend", "bogus", "--password-file"])
        .arg(&env.pw)
        .assert()
        .code(2)
        .stderr(contains("bogus"));
    env.cmd()
        .args([
            "vault",
            "unlock",
            "--backend",
            "rustcrypto",
            "--password-file",
        ])
        .arg(&env.pw)
        .assert()
        .success();
    env.cmd()
        .env("NEXUSQ_BACKEND", "rustcrypto")
        .args(["vault", "unlock", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success()
        .stdout(contains("unlocked"));
    env.cmd()
        .env("NEXUSQ_BACKEND", "native")
        .args(["vault", "unlock", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success();
    env.cmd()
        .env("NEXUSQ_BACKEND", "bogus")
        .args(["vault", "unlock", "--password-file"])
        .arg(&env.pw)
        .assert()
        .code(2);
    // The option wins over the environment.
    env.cmd()
        .env("NEXUSQ_BACKEND", "native")
        .args([
            "vault",
            "unlock",
            "--backend",
            "rustcrypto",
            "--password-file",
        ])
        .arg(&env.pw)
        .assert()
        .success();
}

// ---------------------------------------------------------------------------------------------
// 8. NEXUSQ_VAULT

#[test]
fn nexusq_vault_env_is_used_without_vault_option() {
    let env = Env::new();
    let out = nexusq()
        .env("NEXUSQ_VAULT", &env.vault)
        .arg("init")
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success();
    assert!(env.vault.is_file(), "init ignored NEXUSQ_VAULT");
    let fp = text(&out.get_output().stdout)
        .lines()
        .find_map(|l| l.strip_prefix("fingerprint: ").map(str::to_string))
        .unwrap();
    let out = nexusq()
        .env("NEXUSQ_VAULT", &env.vault)
        .args(["vault", "open", "--json"])
        .assert()
        .success();
    let v = json(&out.get_output().stdout);
    assert_eq!(v["fingerprint"], fp.as_str());
    assert_eq!(v["vault"], env.vault.to_str().unwrap());
    nexusq()
        .env("NEXUSQ_VAULT", &env.vault)
        .args(["vault", "unlock", "--password-file"])
        .arg(&env.pw)
        .assert()
        .success();
    // --vault wins over the environment.
    nexusq()
        .env("NEXUSQ_VAULT", env.path("missing.nxq"))
        .arg("--vault")
        .arg(&env.vault)
        .args(["vault", "open"])
        .assert()
        .success()
        .stdout(contains(fp.as_str()));
    nexusq()
        .env("NEXUSQ_VAULT", env.path("missing.nxq"))
        .args(["vault", "open"])
        .assert()
        .code(4)
        .stderr(contains("missing.nxq"));
}

// ---------------------------------------------------------------------------------------------
// 9. the writers' lock

#[test]
fn passwd_waits_for_the_lock_then_reports_busy() {
    use rustix::fs::{FlockOperation, flock};
    let env = Env::new();
    env.init();
    let before = env.bytes();
    let new_pw = env.password_file("new", "new passphrase\n");
    let held = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(env.lock())
        .expect("open the lock file");
    flock(&held, FlockOperation::LockExclusive).expect("lock");

    let start = Instant::now();
    env.cmd()
        .args(["vault", "passwd", "--lock-timeout", "1", "--password-file"])
        .arg(&env.pw)
        .arg("--new-password-file")
        .arg(&new_pw)
        .assert()
        .code(5)
        .stderr(contains("vault is busy"))
        .stderr(contains("--lock-timeout"));
    let elapsed = start.elapsed();
    assert!(
        elapsed >= Duration::from_millis(950),
        "gave up after {elapsed:?}"
    );
    assert!(elapsed < Duration::from_secs(8), "waited {elapsed:?}");
    assert_eq!(env.bytes(), before, "the vault changed");
    // Readers do not wait for writers.
    env.cmd().args(["vault", "open"]).assert().success();

    drop(held);
    env.cmd()
        .args(["vault", "passwd", "--lock-timeout", "1", "--password-file"])
        .arg(&env.pw)
        .arg("--new-password-file")
        .arg(&new_pw)
        .assert()
        .success();
    env.unlock_with(&new_pw).success();
}

#[test]
fn bad_lock_timeout_is_a_usage_error() {
    let env = Env::new();
    env.init();
    let before = env.bytes();
    let new_pw = env.password_file("new", "new passphrase\n");
    for bad in ["-1", "nan", "1e9"] {
        env.cmd()
            .args(["vault", "passwd", "--password-file"])
            .arg(&env.pw)
            .arg("--new-password-file")
            .arg(&new_pw)
            .arg(format!("--lock-timeout={bad}"))
            .assert()
            .code(2);
    }
    assert_eq!(env.bytes(), before);
}

// ---------------------------------------------------------------------------------------------
// 10. completions, help, usage errors

#[test]
fn completions_help_and_usage_errors() {
    let out = nexusq()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(contains("nexusq"));
    assert!(out.get_output().stdout.len() > 100);
    nexusq()
        .args(["completions", "zsh"])
        .assert()
        .success()
        .stdout(contains("nexusq"));
    nexusq().args(["completions", "klingon"]).assert().code(2);

    nexusq()
        .arg("--help")
        .assert()
        .success()
        .stdout(contains("Usage"))
        .stdout(contains("Exit codes"));
    nexusq()
        .args(["vault", "--help"])
        .assert()
        .success()
        .stdout(contains("unlock"));
    nexusq()
        .arg("--version")
        .assert()
        .success()
        .stdout(contains("nexusq"));

    nexusq()
        .arg("frobnicate")
        .assert()
        .code(2)
        .stderr(contains("frobnicate"))
        .stdout(predicate::str::is_empty());
    nexusq().assert().code(2);
    nexusq()
        .args(["vault", "open", "--no-such-option"])
        .assert()
        .code(2);
    // --password-file and --password-fd conflict.
    nexusq()
        .args([
            "vault",
            "unlock",
            "--password-file",
            "x",
            "--password-fd",
            "3",
        ])
        .assert()
        .code(2);
}

// ---------------------------------------------------------------------------------------------
// 11. no colour

#[test]
fn no_escape_sequences_when_not_a_terminal_or_no_color() {
    let env = Env::new();
    env.init();
    let wrong = env.password_file("wrong", "wrong\n");
    for no_color in [true, false] {
        let mut runs: Vec<Output> = Vec::new();
        let mut c = env.cmd();
        c.args(["vault", "open"]); // a warning (weak KDF)
        let mut d = env.cmd();
        d.args(["vault", "unlock", "--password-file"]).arg(&wrong); // error + hint
        let mut e = nexusq();
        e.args(["--vault"])
            .arg(env.path("missing"))
            .args(["vault", "open"]);
        // A copy never unlocked here: export warns.
        let copy = env.path("copy.nxq");
        fs::copy(&env.vault, &copy).unwrap();
        let mut f = nexusq();
        f.arg("--vault").arg(&copy).args(["identity", "export"]); // warning
        for cmd in [&mut c, &mut d, &mut e, &mut f] {
            if no_color {
                cmd.env("NO_COLOR", "1");
            } else {
                cmd.env_remove("NO_COLOR");
            }
            runs.push(cmd.output().unwrap());
        }
        for out in runs {
            let stderr = text(&out.stderr);
            assert!(!stderr.is_empty(), "expected a message on stderr");
            assert!(
                stderr.contains("warning:") || stderr.contains("error:"),
                "{stderr}"
            );
            assert!(!stderr.contains('\x1b'), "escape in stderr: {stderr:?}");
            assert!(!out.stdout.contains(&0x1b), "escape in stdout");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 12. corruption through the binary

/// Regions of a vault file: (name, start, end).
fn regions(bytes: &[u8]) -> Vec<(&'static str, usize, usize)> {
    let parsed = nexusq_core::vault::format::parse(bytes, None).expect("a valid vault");
    let aad_end = parsed.header_len;
    let public_len = u32::from_be_bytes(bytes[112..116].try_into().unwrap()) as usize;
    assert_eq!(116 + public_len + 8, aad_end, "layout assumption");
    let root_end = aad_end + parsed.root_ciphertext().len();
    let secret_end = root_end + parsed.secret_ciphertext.len();
    assert_eq!(secret_end + 32, bytes.len());
    vec![
        ("fixed header", 0, 24),
        ("argon2 salt", 24, 56),
        ("seal salt", 56, 88),
        ("nonces", 88, 112),
        ("public section length", 112, 116),
        ("public section", 116, 116 + public_len),
        ("section lengths", aad_end - 8, aad_end),
        ("secret ciphertext", root_end, secret_end),
        ("root ciphertext", aad_end, root_end),
        ("checksum", secret_end, bytes.len()),
    ]
}

fn flip_positions(bytes: &[u8]) -> Vec<usize> {
    let r = regions(bytes);
    let (_, p0, p1) = r[5];
    let (_, s0, s1) = r[7];
    let (_, q0, q1) = r[8];
    let n = bytes.len();
    let mut v = vec![
        0,      // magic
        3,      // magic
        5,      // format version
        6,      // KDF algorithm
        10,     // Argon2 version
        13,     // Argon2 memory (0x20 -> stays within bounds)
        18,     // Argon2 iterations
        22,     // Argon2 parallelism
        23,     // salt length
        40,     // salt
        70,     // seal salt
        95,     // secret nonce
        105,    // root nonce
        115,    // public section length
        p0 + 3, // creation time
        p0 + (p1 - p0) / 4,
        p0 + (p1 - p0) / 2,
        p1 - 1,
        s0 - 5, // secret ciphertext length
        s0 - 1, // root ciphertext length
        s0,
        s0 + (s1 - s0) / 2,
        s1 - 1, // secret tag
        q0,
        q1 - 1, // root tag
        n - 32, // checksum
        n - 1,
    ];
    v.sort_unstable();
    v.dedup();
    v
}

/// `vault unlock --password-file` on the current file; returns (exit code, stderr), after checking
/// that it did not panic and printed nothing on stdout.
fn unlock_outcome(env: &Env, what: &str) -> (Option<i32>, String) {
    let out = env
        .cmd()
        .args(["vault", "unlock", "--password-file"])
        .arg(&env.pw)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert_ne!(out.status.code(), Some(101), "{what}: panic");
    assert!(out.status.code().is_some(), "{what}: killed by a signal");
    if out.status.code() != Some(0) {
        assert!(out.stdout.is_empty(), "{what}: output on stdout");
        assert!(stderr.contains("error:"), "{what}: {stderr}");
    }
    (out.status.code(), stderr)
}

/// The root ciphertext's range: `vault unlock` authenticates it (it is part of the secret
/// section's associated data) without decrypting it.
fn root_range(bytes: &[u8]) -> std::ops::Range<usize> {
    let (_, q0, q1) = regions(bytes)[8];
    q0..q1
}

#[test]
fn flipped_bytes_are_detected() {
    let env = Env::new();
    env.init();
    let original = env.bytes();
    let positions = flip_positions(&original);
    assert!(positions.len() >= 20);
    let root = root_range(&original);
    let new_pw = env.password_file("new", "new passphrase\n");
    let masks = [0x01u8, 0x80, 0xff];
    for (i, &pos) in positions.iter().enumerate() {
        let mask = masks[i % masks.len()];
        let what = format!("flip at {pos} of {} (^{mask:#04x})", original.len());
        let mut bytes = original.clone();
        bytes[pos] ^= mask;

        // As is: the checksum (or the magic) catches it; no password needed.
        fs::write(&env.vault, &bytes).unwrap();
        let out = env.cmd().args(["vault", "open"]).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{what}: vault open: {stderr}");
        assert!(stderr.contains("error:"), "{stderr}");
        assert!(out.stdout.is_empty());
        let (code, stderr) = unlock_outcome(&env, &what);
        assert_eq!(code, Some(4), "{what}: vault unlock: {stderr}");

        // With the checksum recomputed: unlock must still refuse, as 3 or 4, never a panic.
        nexusq_core::vault::format::fix_checksum(&mut bytes);
        if bytes == original {
            // The flip was in the checksum itself: recomputing restores the vault.
            assert!(pos >= original.len() - 32, "{what}");
            continue;
        }
        fs::write(&env.vault, &bytes).unwrap();
        if root.contains(&pos) {
            // The commands that decrypt the root must refuse it too, and change nothing.
            env.cmd()
                .args(["vault", "passwd", "--password-file"])
                .arg(&env.pw)
                .arg("--new-password-file")
                .arg(&new_pw)
                .args(SMALL_KDF)
                .assert()
                .code(predicate::in_iter([3, 4]));
            assert_eq!(env.bytes(), bytes, "{what}: passwd changed the vault");
        }
        let (code, stderr) = unlock_outcome(&env, &format!("{what}, checksum fixed"));
        assert!(
            code == Some(3) || code == Some(4),
            "{what} with fixed checksum: vault unlock gave {code:?}\n{stderr}"
        );
    }
    // The untouched vault still works (the test itself did not break it).
    fs::write(&env.vault, &original).unwrap();
    env.unlock_with(&env.pw).success();
}

#[test]
fn root_section_flip_is_detected_by_unlock() {
    let env = Env::new();
    env.init();
    let original = env.bytes();
    let root = root_range(&original);
    for pos in [root.start, root.start + 20, root.end - 17, root.end - 1] {
        let mut bytes = original.clone();
        bytes[pos] ^= 0x01;
        nexusq_core::vault::format::fix_checksum(&mut bytes);
        fs::write(&env.vault, &bytes).unwrap();
        let what = format!("root ciphertext flip at {pos}, checksum fixed");
        let (code, stderr) = unlock_outcome(&env, &what);
        assert!(
            code == Some(3) || code == Some(4),
            "{what}: vault unlock gave {code:?}\n{stderr}"
        );
    }
}

#[test]
fn truncated_and_extended_vaults_are_detected() {
    let env = Env::new();
    env.init();
    let original = env.bytes();
    let n = original.len();
    let r = regions(&original);
    let aad_end = r[6].2;
    let mut lengths = vec![
        0,
        1,
        3,
        4,
        6,
        24,
        100,
        116,
        n / 2,
        aad_end,
        aad_end + 1,
        n - 32 - 28,
        n - 33,
        n - 32,
        n - 1,
    ];
    lengths.sort_unstable();
    lengths.dedup();
    assert!(lengths.len() >= 10);
    for &len in &lengths {
        fs::write(&env.vault, &original[..len]).unwrap();
        let out = env.cmd().args(["vault", "open"]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(4),
            "truncated to {len}: {}",
            text(&out.stderr)
        );

        // Truncated body with a valid checksum appended: the length fields catch it.
        if len >= 4 && len < n - 32 {
            let mut bytes = original[..len].to_vec();
            bytes.extend_from_slice(&[0u8; 32]);
            nexusq_core::vault::format::fix_checksum(&mut bytes);
            fs::write(&env.vault, &bytes).unwrap();
            let out = env
                .cmd()
                .args(["vault", "unlock", "--password-file"])
                .arg(&env.pw)
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(4),
                "body truncated to {len}, checksum fixed: {}",
                text(&out.stderr)
            );
        }
    }
    // One byte appended, with and without a recomputed checksum.
    let mut longer = original.clone();
    longer.push(0);
    fs::write(&env.vault, &longer).unwrap();
    env.cmd().args(["vault", "open"]).assert().code(4);
    let mut longer = original[..n - 32].to_vec();
    longer.push(0);
    longer.extend_from_slice(&[0u8; 32]);
    nexusq_core::vault::format::fix_checksum(&mut longer);
    fs::write(&env.vault, &longer).unwrap();
    env.cmd().args(["vault", "open"]).assert().code(4);
    env.unlock_with(&env.pw).code(4);

    fs::write(&env.vault, &original).unwrap();
    env.unlock_with(&env.pw).success();
}

/// Public files (exports, signatures) are 0644 less the umask; encrypted and decrypted files
/// stay 0600 (docs/cli.md, "Outputs, files and modes").
#[test]
fn public_outputs_are_0644_private_ones_0600() {
    let env = Env::new();
    env.init();
    let public = common::public_file_mode();
    let export = env.path("me.asc");
    env.cmd()
        .args(["identity", "export", "-o"])
        .arg(&export)
        .assert()
        .success();
    assert_eq!(mode(&export), public, "export");

    let doc = env.path("doc.txt");
    fs::write(&doc, b"the text\n").unwrap();
    let sig = env.path("doc.sig");
    env.cmd()
        .arg("sign")
        .arg(&doc)
        .arg("-o")
        .arg(&sig)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success();
    assert_eq!(mode(&sig), public, "sign -o");
    let other = env.path("other.txt");
    fs::write(&other, b"more\n").unwrap();
    env.cmd()
        .arg("sign")
        .arg(&doc)
        .arg(&other)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success();
    assert_eq!(mode(&suffixed(&other, ".sig")), public, "sign FILE...");

    let ct = env.path("doc.nxq");
    env.cmd()
        .args(["encrypt", "--to"])
        .arg(&export)
        .arg(&doc)
        .arg("-o")
        .arg(&ct)
        .assert()
        .success();
    assert_eq!(mode(&ct), 0o600, "encrypted file");
    let plain = env.path("doc.out");
    env.cmd()
        .arg("decrypt")
        .arg(&ct)
        .arg("-o")
        .arg(&plain)
        .arg("--password-file")
        .arg(&env.pw)
        .assert()
        .success();
    assert_eq!(mode(&plain), 0o600, "decrypted file");
    assert_eq!(fs::read(&plain).unwrap(), b"the text\n");
}

/// A weak new password is said to be weak, from a terminal (typed twice) and from a file alike,
/// with what to do; it is never refused. A passphrase passes without a word.
#[test]
fn weak_new_passwords_are_warned_about_never_refused() {
    let weak_said = |stderr: &str| {
        stderr.contains("warning: this password is weak")
            && stderr.contains("four or more random words")
            && stderr.contains("nexusq vault passwd")
    };
    // At a terminal: `a`, typed twice.
    let env = Env::new();
    let mut c = std::process::Command::new(BIN);
    c.arg("--vault")
        .arg(&env.vault)
        .arg("init")
        .args(SMALL_KDF)
        .current_dir(env.dir.path())
        .env_remove("NEXUSQ_VAULT")
        .env("NO_COLOR", "1")
        .env("XDG_STATE_HOME", common::state_home());
    let mut t = crate::pty::Terminal::spawn(c);
    t.wait_for("assword");
    t.type_text("a\n");
    t.wait_for("again");
    t.type_text("a\n");
    let (status, shown) = t.finish();
    let shown = String::from_utf8_lossy(&shown);
    assert!(status.success(), "{shown}");
    assert!(weak_said(&shown), "{shown}");
    assert!(env.vault.exists());

    // From a file, as scripts pass it: the same warning on stderr.
    let env = Env::new();
    let weak = env.password_file("weak", "a\n");
    let out = env
        .cmd()
        .arg("init")
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&weak)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(weak_said(&text(&out.stderr)), "{}", text(&out.stderr));
    assert!(!weak_said(&text(&out.stdout)), "the warning is not data");

    // A passphrase: no word about it; then `vault passwd` to a weak one warns too.
    let env = Env::new();
    let out = env
        .cmd()
        .arg("init")
        .args(SMALL_KDF)
        .arg("--password-file")
        .arg(&env.pw)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!weak_said(&text(&out.stderr)), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("password is weak"));
    let qwerty = env.password_file("qwerty", "qwerty12\n");
    let out = env
        .cmd()
        .args(["vault", "passwd", "--password-file"])
        .arg(&env.pw)
        .arg("--new-password-file")
        .arg(&qwerty)
        .args(SMALL_KDF)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(weak_said(&text(&out.stderr)), "{}", text(&out.stderr));
}

//! git commit and tag signing with `nexusq-git-sign` as git's `gpg.x509.program` (
//! README "Sign your git commits"): a real git in a temporary repository, configured as the
//! README says, with its own HOME so no user or system configuration leaks in. Also verifying
//! only, with the README's one line, and `nexusq doctor --git` on both setups.

use crate::common;
use crate::common::TestVault;
use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

const GIT_SIGN: &str = env!("CARGO_BIN_EXE_nexusq-git-sign");

struct Repo {
    _tmp: TempDir,
    dir: PathBuf,
    home: PathBuf,
    vault: TestVault,
    fingerprint: String,
}

impl Repo {
    /// A repository whose commits are signed by a fresh vault's identity.
    fn new() -> Repo {
        let tmp = TempDir::new().unwrap();
        let vault = TestVault::new(tmp.path(), "signer");
        let fingerprint = vault.fingerprint();
        let dir = tmp.path().join("repo");
        let home = tmp.path().join("home");
        fs::create_dir_all(&dir).unwrap();
        fs::create_dir_all(&home).unwrap();
        let repo = Repo {
            dir,
            home,
            vault,
            fingerprint,
            _tmp: tmp,
        };
        repo.ok(&["init", "-q", "-b", "main"]);
        for (k, v) in [
            ("user.name", "Test Signer"),
            ("user.email", "signer@example.invalid"),
            ("gpg.format", "x509"),
            ("gpg.x509.program", GIT_SIGN),
            ("user.signingkey", &repo.fingerprint.clone()),
        ] {
            repo.ok(&["config", k, v]);
        }
        repo
    }

    /// git in the repository, with NEXUSQ_VAULT and NEXUSQ_PASSWORD_FILE for the signer, in
    /// a new session (setsid: no controlling terminal, so no prompt can hang the test).
    fn git(&self, args: &[&str]) -> Command {
        let mut c = Command::new("setsid");
        c.args(["-w", "git"])
            .args(args)
            .current_dir(&self.dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C")
            .env("NEXUSQ_VAULT", &self.vault.path)
            .env("NEXUSQ_PASSWORD_FILE", &self.vault.pw)
            .stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.git(args).output().expect("git runs")
    }

    #[track_caller]
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "git {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn commit(&self, name: &str, extra: &[&str]) {
        fs::write(self.dir.join(name), format!("file {name}\n")).unwrap();
        self.ok(&["add", name]);
        let mut args = vec!["commit", "-q", "-m", name];
        args.extend_from_slice(extra);
        self.ok(&args);
    }

    /// Write an object with `git hash-object -w`; its id.
    fn write_object(&self, kind: &str, body: &[u8]) -> String {
        use std::io::Write;
        let mut child = self
            .git(&["hash-object", "-t", kind, "-w", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(body).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn signed_commit_verifies_and_shows_the_fingerprint() {
    let repo = Repo::new();
    repo.commit("a.txt", &["-S"]);
    let object = repo.ok(&["cat-file", "commit", "HEAD"]);
    assert!(
        object.contains("gpgsig -----BEGIN SIGNED MESSAGE-----"),
        "{object}"
    );
    // A compact signature: the whole commit object stays small.
    assert!(object.len() < 5_500, "{} bytes", object.len());

    let out = repo.run(&["verify-commit", "HEAD"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&repo.fingerprint), "{}", text(&out));
    // --raw shows the status lines git parsed.
    let raw = text(&repo.run(&["verify-commit", "--raw", "HEAD"]));
    assert!(
        raw.contains("[GNUPG:] NEWSIG")
            && raw.contains("[GNUPG:] GOODSIG ")
            && raw.contains("TRUST_FULLY"),
        "{raw}"
    );

    let log = repo.ok(&["log", "--show-signature", "-1"]);
    assert!(log.contains(&repo.fingerprint), "{log}");
    assert!(log.contains("good signature"), "{log}");
    // git's own reading of the status: G(ood), key and fingerprint, trust.
    let fmt = repo.ok(&["log", "-1", "--format=%G?|%GK|%GF|%GP|%GT"]);
    let fp = &repo.fingerprint;
    assert_eq!(fmt.trim(), format!("G|{fp}|{fp}|{fp}|fully"));
}

#[test]
fn an_altered_commit_fails_verification() {
    let repo = Repo::new();
    repo.commit("a.txt", &["-S"]);
    let object = repo.ok(&["cat-file", "commit", "HEAD"]);
    // Same tree, parents and signature, another message: a new object with the old signature.
    let altered = object.replace("\na.txt\n", "\na.txt (altered)\n");
    assert_ne!(altered, object);
    let id = repo.write_object("commit", altered.as_bytes());
    let out = repo.run(&["verify-commit", &id]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("BAD signature"), "{}", text(&out));
    let fmt = repo.ok(&["log", "-1", "--format=%G?", &id]);
    assert_eq!(fmt.trim(), "B");
    // An unsigned commit does not verify either.
    repo.commit("b.txt", &[]);
    assert!(!repo.run(&["verify-commit", "HEAD"]).status.success());
}

#[test]
fn signed_tag_verifies_and_an_altered_one_fails() {
    let repo = Repo::new();
    repo.commit("a.txt", &[]);
    repo.ok(&["tag", "-s", "v1", "-m", "release one"]);
    let out = repo.run(&["verify-tag", "v1"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&repo.fingerprint), "{}", text(&out));
    let object = repo.ok(&["cat-file", "tag", "v1"]);
    assert!(object.contains("-----BEGIN SIGNED MESSAGE-----"));
    let altered = object.replace("release one", "release 0ne");
    let id = repo.write_object("tag", altered.as_bytes());
    let out = repo.run(&["verify-tag", &id]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("BAD signature"), "{}", text(&out));
}

#[test]
fn another_identity_s_commit_cannot_be_verified_here() {
    let repo = Repo::new();
    repo.commit("a.txt", &["-S"]);
    // The verifier's vault is someone else's: the signer is unknown (ERRSIG), not good.
    let other = TestVault::new(repo.vault.dir.as_path(), "other");
    let out = repo
        .git(&["verify-commit", "--raw", "HEAD"])
        .env("NEXUSQ_VAULT", &other.path)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("[GNUPG:] ERRSIG "), "{}", text(&out));
    assert!(!text(&out).contains("GOODSIG"));
}

#[test]
fn signing_fails_cleanly_without_a_password_or_with_the_wrong_key() {
    let repo = Repo::new();
    fs::write(repo.dir.join("a.txt"), "a\n").unwrap();
    repo.ok(&["add", "a.txt"]);
    // No NEXUSQ_PASSWORD_FILE and no terminal (setsid): refused, saying what to do.
    let out = repo
        .git(&["commit", "-q", "-S", "-m", "a"])
        .env_remove("NEXUSQ_PASSWORD_FILE")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let t = text(&out);
    assert!(
        t.contains("NEXUSQ_PASSWORD_FILE") && t.contains("no terminal"),
        "{t}"
    );
    // A wrong password: refused.
    let wrong = repo.vault.dir.join("wrong.pw");
    common::private_file(&wrong, "not the password\n");
    let out = repo
        .git(&["commit", "-q", "-S", "-m", "a"])
        .env("NEXUSQ_PASSWORD_FILE", &wrong)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", text(&out));
    // A signing key that is not this vault's fingerprint: refused.
    repo.ok(&[
        "config",
        "user.signingkey",
        "aaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaa",
    ]);
    let out = repo.run(&["commit", "-q", "-S", "-m", "a"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("not git's signing key"),
        "{}",
        text(&out)
    );
    // Nothing was committed by the failures.
    assert!(
        !repo
            .run(&["rev-parse", "--verify", "-q", "HEAD"])
            .status
            .success()
    );
}

/// The program's own surface, as git drives it, without git: status lines on the named fd.
#[test]
fn program_speaks_gpg_status_on_the_named_fd() {
    let repo = Repo::new();
    let payload = b"tree 0000\nauthor x\n\nmessage\n";
    let run = |args: &[&str], stdin: &[u8]| {
        use std::io::Write;
        let mut child = Command::new(GIT_SIGN)
            .args(args)
            .env_clear()
            .env("NEXUSQ_VAULT", &repo.vault.path)
            .env("NEXUSQ_PASSWORD_FILE", &repo.vault.pw)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A refusal may come before the payload is read: then the pipe is closed early.
        let _ = child.stdin.take().unwrap().write_all(stdin);
        child.wait_with_output().unwrap()
    };
    let out = run(&["--status-fd=2", "-bsau", &repo.fingerprint], payload);
    assert!(out.status.success(), "{}", text(&out));
    let sig = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(sig.starts_with("-----BEGIN SIGNED MESSAGE-----\n"), "{sig}");
    assert!(sig.ends_with("-----END SIGNED MESSAGE-----\n"));
    assert!(sig.len() < 5_000, "{}", sig.len());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\n[GNUPG:] SIG_CREATED ") || err.starts_with("[GNUPG:] SIG_CREATED "),
        "{err}"
    );

    let sig_file = repo.vault.dir.join("payload.sig");
    fs::write(&sig_file, &sig).unwrap();
    let verify = |data: &[u8]| {
        run(
            &["--status-fd=1", "--verify", sig_file.to_str().unwrap(), "-"],
            data,
        )
    };
    let good = verify(payload);
    assert!(good.status.success(), "{}", text(&good));
    let status = String::from_utf8_lossy(&good.stdout);
    assert!(
        status.starts_with("[GNUPG:] NEWSIG\n[GNUPG:] GOODSIG "),
        "{status}"
    );
    let bad = verify(b"tree 0000\nauthor y\n\nmessage\n");
    assert_eq!(bad.status.code(), Some(1));
    let status = String::from_utf8_lossy(&bad.stdout);
    assert!(
        status.contains("[GNUPG:] BADSIG ") && !status.contains("GOODSIG"),
        "{status}"
    );
    // A damaged signature file: ERRSIG, exit 1.
    fs::write(
        &sig_file,
        sig.replacen('A', "B", 1)
            .replace("SIGNED MESSAGE", "SIGNED  MESSAGE"),
    )
    .unwrap();
    let damaged = verify(payload);
    assert_eq!(damaged.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&damaged.stdout).contains("[GNUPG:] ERRSIG "));
    // Not git's command line: usage, exit 2.
    assert_eq!(run(&["--frobnicate"], b"").status.code(), Some(2));
}

/// Starts the signer's agent with its sockets in `HOME/run`; the guard stops it.
fn start_agent(repo: &Repo) -> (PathBuf, AgentGuard<'_>) {
    use std::os::unix::fs::PermissionsExt;
    let run = repo.home.join("run");
    fs::create_dir(&run).unwrap();
    fs::set_permissions(&run, fs::Permissions::from_mode(0o700)).unwrap();
    let out = common::bin()
        .args(["agent", "start", "--idle", "60s", "--password-file"])
        .arg(&repo.vault.pw)
        .env("NEXUSQ_VAULT", &repo.vault.path)
        .env("XDG_RUNTIME_DIR", &run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let guard = AgentGuard(repo, run.clone());
    (run, guard)
}

/// Stops the test's agent however the test ends.
struct AgentGuard<'a>(&'a Repo, PathBuf);

impl Drop for AgentGuard<'_> {
    fn drop(&mut self) {
        let _ = common::bin()
            .args(["agent", "stop"])
            .env("NEXUSQ_VAULT", &self.0.vault.path)
            .env("XDG_RUNTIME_DIR", &self.1)
            .output();
    }
}

#[test]
fn signing_uses_a_running_agent_and_needs_no_password() {
    let repo = Repo::new();
    let (run, _guard) = start_agent(&repo);

    fs::write(repo.dir.join("a.txt"), "a\n").unwrap();
    repo.ok(&["add", "a.txt"]);
    // No password file and no terminal: only the agent can sign.
    let out = repo
        .git(&["commit", "-q", "-S", "-m", "a"])
        .env_remove("NEXUSQ_PASSWORD_FILE")
        .env("XDG_RUNTIME_DIR", &run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = repo.run(&["verify-commit", "HEAD"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&repo.fingerprint), "{}", text(&out));

    // A signed commit of a new file NAME with no password: it must fail cleanly, asking for one.
    let fails_for_want_of_a_password = |name: &str, no_agent: bool| {
        fs::write(repo.dir.join(name), format!("{name}\n")).unwrap();
        repo.ok(&["add", name]);
        let mut git = repo.git(&["commit", "-q", "-S", "-m", name]);
        git.env_remove("NEXUSQ_PASSWORD_FILE")
            .env("XDG_RUNTIME_DIR", &run);
        if no_agent {
            git.env("NEXUSQ_NO_AGENT", "1");
        }
        let out = git.output().unwrap();
        assert!(!out.status.success(), "{}", text(&out));
        assert!(
            text(&out).contains("NEXUSQ_PASSWORD_FILE"),
            "{}",
            text(&out)
        );
    };

    // NEXUSQ_NO_AGENT=1 passes over the running agent: no password, so a clean failure.
    fails_for_want_of_a_password("n.txt", true);
    repo.ok(&["reset", "-q", "n.txt"]);
    fs::remove_file(repo.dir.join("n.txt")).unwrap();

    // With the agent stopped, the same commit needs the password again and fails cleanly.
    drop(_guard);
    fails_for_want_of_a_password("b.txt", false);
}

/// A contact's commits verify: TRUST_UNDEFINED while the contact is unverified (added with
/// `--yes`), TRUST_FULLY once `contacts verify` compared the fingerprint.
#[test]
fn a_contact_s_commit_verifies_and_is_trusted_once_verified() {
    let repo = Repo::new();
    repo.commit("a.txt", &["-S"]);
    let other = TestVault::new(repo.vault.dir.as_path(), "other");
    let contacts = |args: &[&str]| {
        other
            .cmd()
            .arg("contacts")
            .args(args)
            .arg("--password-file")
            .arg(&other.pw)
            .assert()
            .success();
    };
    let export = repo.vault.export();
    contacts(&["add", "signer", export.to_str().unwrap(), "--yes"]);
    let verify = || {
        repo.git(&["verify-commit", "--raw", "HEAD"])
            .env("NEXUSQ_VAULT", &other.path)
            .output()
            .unwrap()
    };
    let out = verify();
    assert!(out.status.success(), "{}", text(&out));
    let raw = text(&out);
    assert!(raw.contains("[GNUPG:] GOODSIG "), "{raw}");
    assert!(raw.contains("TRUST_UNDEFINED"), "{raw}");
    assert!(raw.contains("signer (nexusq contact"), "{raw}");
    assert!(!raw.contains("TRUST_FULLY"), "{raw}");
    // The line people read names the contact, and says it is unverified.
    let human = || {
        text(
            &repo
                .git(&["verify-commit", "HEAD"])
                .env("NEXUSQ_VAULT", &other.path)
                .output()
                .unwrap(),
        )
    };
    let shown = human();
    assert!(
        shown.contains(&format!(
            "good signature from signer ({}, generation 1; unverified contact)",
            repo.fingerprint
        )),
        "{shown}"
    );

    contacts(&["verify", "signer", &repo.fingerprint]);
    let raw = text(&verify());
    assert!(raw.contains("[GNUPG:] GOODSIG "), "{raw}");
    assert!(raw.contains("TRUST_FULLY"), "{raw}");
    let shown = human();
    assert!(
        shown.contains(&format!(
            "good signature from signer ({}, generation 1)",
            repo.fingerprint
        )),
        "{shown}"
    );
    let fmt = repo
        .git(&["log", "-1", "--format=%G?|%GT"])
        .env("NEXUSQ_VAULT", &other.path)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&fmt.stdout).trim(), "G|fully");
}

/// A revoked identity signs no commit: `nexusq-git-sign` refuses as `nexusq sign` does, with
/// the same message, whether the password or a running agent would have signed.
#[test]
fn a_revoked_identity_signs_no_commit_with_or_without_the_agent() {
    let repo = Repo::new();
    repo.commit("a.txt", &["-S"]);
    let statement = PathBuf::from(format!("{}.revocation.asc", repo.vault.path.display()));
    repo.vault
        .cmd()
        .args(["identity", "revoke", "--yes"])
        .arg(&statement)
        .arg("--password-file")
        .arg(&repo.vault.pw)
        .arg("-o")
        .arg(repo.home.join("revoked.pub"))
        .assert()
        .success();
    let message = "is revoked, so others refuse its signatures";
    // nexusq sign's refusal, for comparison.
    let data = repo.home.join("data");
    fs::write(&data, "x").unwrap();
    let out = repo
        .vault
        .cmd()
        .args(["sign", "--password-file"])
        .arg(&repo.vault.pw)
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains(message), "{}", text(&out));
    let head = repo.ok(&["rev-parse", "HEAD"]);
    let refused = |name: &str, git: &mut Command| {
        fs::write(repo.dir.join(name), format!("{name}\n")).unwrap();
        repo.ok(&["add", name]);
        let out = git.output().unwrap();
        assert!(!out.status.success(), "{}", text(&out));
        assert!(text(&out).contains(message), "{}", text(&out));
        assert_eq!(repo.ok(&["rev-parse", "HEAD"]), head, "no commit was made");
        repo.ok(&["reset", "-q", name]);
    };
    refused("b.txt", &mut repo.git(&["commit", "-q", "-S", "-m", "b"]));
    // An agent started after the revocation (it still decrypts for its owner) signs nothing
    // for git either.
    let (run, _guard) = start_agent(&repo);
    let mut git = repo.git(&["commit", "-q", "-S", "-m", "c"]);
    git.env_remove("NEXUSQ_PASSWORD_FILE")
        .env("XDG_RUNTIME_DIR", &run);
    refused("c.txt", &mut git);
}

/// At a terminal (tmux), with no agent and no NEXUSQ_PASSWORD_FILE, the signer asks on the
/// terminal in words that say whose password it is (inside `git commit -S` a bare
/// "Password:" reads like git's or ssh's), then signs.
#[test]
fn the_terminal_prompt_names_nexusq_and_the_vault() {
    use std::time::{Duration, Instant};
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!(
            "SKIPPED the_terminal_prompt_names_nexusq_and_the_vault: tmux is not installed \
             (apt-get install tmux); the signer's terminal prompt is NOT tested"
        );
        return;
    }
    let repo = Repo::new();
    let tmp = repo.dir.parent().unwrap().to_path_buf();
    let (socket, rc, sig) = (tmp.join("tmux.sock"), tmp.join("rc"), tmp.join("sig"));
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(args)
            .output()
            .unwrap()
    };
    let q = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let script = format!(
        "printf 'tree 0000\\n\\nmessage\\n' | env -u NEXUSQ_PASSWORD_FILE NEXUSQ_NO_AGENT=1 \
         HOME='{}' NEXUSQ_VAULT='{}' '{GIT_SIGN}' --status-fd=2 -bsau {} > '{}' 2>/dev/null; \
         echo $? > '{}'",
        q(&repo.home),
        q(&repo.vault.path),
        repo.fingerprint,
        q(&sig),
        q(&rc)
    );
    let out = tmux(&[
        "new-session",
        "-d",
        "-x",
        "120",
        "-y",
        "20",
        "-s",
        "sign",
        "sh",
        "-c",
        &script,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let start = Instant::now();
    let pane = loop {
        let pane = tmux(&["capture-pane", "-p", "-J", "-t", "sign"]);
        let pane = String::from_utf8_lossy(&pane.stdout).to_string();
        if pane.contains("password for") {
            break pane;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no prompt: {pane}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let vault = q(&repo.vault.path);
    assert!(
        pane.contains(&format!("nexusq password for {vault}:")),
        "the prompt names nexusq and the vault: {pane}"
    );
    assert!(!pane.contains("\nPassword:"), "{pane}");
    tmux(&["send-keys", "-t", "sign", "password of signer", "Enter"]);
    let start = Instant::now();
    while !rc.exists() || fs::read_to_string(&rc).unwrap().trim().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the signer did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = tmux(&["kill-server"]);
    assert_eq!(fs::read_to_string(&rc).unwrap().trim(), "0");
    assert!(
        fs::read_to_string(&sig)
            .unwrap()
            .starts_with("-----BEGIN SIGNED MESSAGE-----\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Verifying only, and `nexusq doctor --git`

/// git in `dir` with its own HOME and no system configuration, NEXUSQ_VAULT `vault`, PATH
/// `path` (as given to git and so to nexusq-git-sign).
fn git_at(dir: &Path, home: &Path, vault: &Path, path: &OsStr, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .env("NEXUSQ_VAULT", vault)
        .stdin(Stdio::null())
        .output()
        .expect("git runs")
}

/// `nexusq doctor --git --json` in `dir`, in the same environment as [`git_at`]: the report
/// and the exit code.
fn doctor_git(dir: &Path, home: &Path, vault: &Path, path: &OsStr) -> (Value, Option<i32>) {
    let out = Command::new(common::BIN)
        .args(["doctor", "--git", "--json"])
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .env("NEXUSQ_VAULT", vault)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (report, out.status.code())
}

/// The check named `name` of a doctor report.
fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report}"))
}

const GIT_CHECKS: [&str; 5] = [
    "git_repository",
    "git_x509_program",
    "git_format",
    "git_signing_key",
    "git_commit_gpgsign",
];

/// Someone who only verifies: a clone with none of the signer's settings and its own HOME.
/// git runs gpgsm for nexusq's signatures until gpg.x509.program names nexusq-git-sign; that
/// one line (README "Verifying only"), a vault and the signer as a contact are all it takes,
/// and `doctor --git` says so.
#[test]
fn a_verifier_needs_only_gpg_x509_program_and_doctor_git_says_so() {
    let repo = Repo::new();
    repo.commit("a.txt", &["-S"]);
    let tmp = repo.dir.parent().unwrap().to_path_buf();
    let home = tmp.join("verifier-home");
    fs::create_dir(&home).unwrap();
    let clone = tmp.join("clone");
    let verifier = TestVault::new(&tmp, "verifier");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let git = |args: &[&str]| git_at(&clone, &home, &verifier.path, &path, args);
    let cloned = git_at(
        &tmp,
        &home,
        &verifier.path,
        &path,
        &["clone", "-q", repo.dir.to_str().unwrap(), "clone"],
    );
    assert!(cloned.status.success(), "{}", text(&cloned));
    verifier
        .cmd()
        .args(["contacts", "add", "signer"])
        .arg(repo.vault.export())
        .args(["--expect-fingerprint", &repo.fingerprint, "--password-file"])
        .arg(&verifier.pw)
        .assert()
        .success();

    // Nothing set: git does not hand the signature to nexusq-git-sign.
    let out = git(&["verify-commit", "HEAD"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("good signature"), "{}", text(&out));
    let (report, code) = doctor_git(&clone, &home, &verifier.path, &path);
    assert_eq!(code, Some(0), "warnings only: {report}");
    let program = check(&report, "git_x509_program");
    assert_eq!(program["status"], "warn", "{program}");
    assert!(
        program["hint"]
            .as_str()
            .unwrap()
            .starts_with("git config gpg.x509.program nexusq-git-sign"),
        "{program}"
    );
    for name in [
        "git_repository",
        "git_format",
        "git_signing_key",
        "git_commit_gpgsign",
    ] {
        assert_eq!(check(&report, name)["status"], "ok", "{name}: {report}");
    }
    let shown = check(&report, "git_repository")["detail"].as_str().unwrap();
    assert!(shown.contains("clone"), "{shown}");

    // The verifier's one line, with the test build's program: good and fully trusted, and no
    // gpg.format or user.signingkey anywhere.
    assert!(
        git(&["config", "gpg.x509.program", GIT_SIGN])
            .status
            .success()
    );
    // Without a vault of one's own, the program says what verifying needs (it takes no
    // options, so not `nexusq verify`'s --identity).
    let no_vault = tmp.join("no-vault.nxq");
    let out = git_at(&clone, &home, &no_vault, &path, &["verify-commit", "HEAD"]);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(said.contains("no vault at"), "{said}");
    assert!(said.contains("nexusq init"), "{said}");
    assert!(said.contains("nexusq contacts add"), "{said}");
    assert!(!said.contains("--identity"), "{said}");
    let out = git(&["verify-commit", "HEAD"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("good signature from signer"),
        "{}",
        text(&out)
    );
    let out = git(&["log", "-1", "--format=%G?|%GT"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "G|fully");
    for key in ["gpg.format", "user.signingkey"] {
        assert_eq!(
            git(&["config", "--get", key]).status.code(),
            Some(1),
            "{key}"
        );
    }
    let (report, code) = doctor_git(&clone, &home, &verifier.path, &path);
    assert_eq!(code, Some(0));
    for name in GIT_CHECKS {
        assert_eq!(check(&report, name)["status"], "ok", "{name}: {report}");
    }
    assert!(
        check(&report, "git_x509_program")["detail"]
            .as_str()
            .unwrap()
            .contains(GIT_SIGN),
        "{report}"
    );

    // By name, found along PATH as git finds it; not on PATH: a warning whose hint names the
    // program installed beside this nexusq.
    assert!(
        git(&["config", "gpg.x509.program", "nexusq-git-sign"])
            .status
            .success()
    );
    let bin_dir = Path::new(GIT_SIGN).parent().unwrap();
    let with_bin = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf()).chain(std::env::split_paths(&path)),
    )
    .unwrap();
    let (report, _) = doctor_git(&clone, &home, &verifier.path, &with_bin);
    assert_eq!(
        check(&report, "git_x509_program")["status"],
        "ok",
        "{report}"
    );
    let without: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("nexusq-git-sign").exists())
        .collect();
    let without = std::env::join_paths(without).unwrap();
    let (report, _) = doctor_git(&clone, &home, &verifier.path, &without);
    let program = check(&report, "git_x509_program");
    assert_eq!(program["status"], "warn", "{program}");
    assert_eq!(
        program["hint"],
        format!("git config gpg.x509.program {GIT_SIGN} (the one beside this nexusq)")
    );
}

/// The signer's setup (README "Sign your git commits") passes every git check; a signing key
/// that is not the vault's identity is flagged with the command that fixes it.
#[test]
fn doctor_git_checks_a_signer_s_setup() {
    let repo = Repo::new();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let (report, code) = doctor_git(&repo.dir, &repo.home, &repo.vault.path, &path);
    assert_eq!(code, Some(0), "{report}");
    for name in GIT_CHECKS {
        assert_eq!(check(&report, name)["status"], "ok", "{name}: {report}");
    }
    let key = check(&report, "git_signing_key")["detail"]
        .as_str()
        .unwrap();
    assert!(key.contains(&repo.fingerprint), "{key}");

    let other = TestVault::new(repo.dir.parent().unwrap(), "other").fingerprint();
    repo.ok(&["config", "user.signingkey", &other]);
    repo.ok(&["config", "commit.gpgsign", "sometimes"]);
    let (report, code) = doctor_git(&repo.dir, &repo.home, &repo.vault.path, &path);
    assert_eq!(code, Some(0), "{report}");
    let key = check(&report, "git_signing_key");
    assert_eq!(key["status"], "warn", "{key}");
    assert!(
        key["hint"]
            .as_str()
            .unwrap()
            .starts_with(&format!("git config user.signingkey {}", repo.fingerprint)),
        "{key}"
    );
    let gpgsign = check(&report, "git_commit_gpgsign");
    assert_eq!(gpgsign["status"], "warn", "{gpgsign}");
    assert!(gpgsign["detail"].as_str().unwrap().contains("sometimes"));

    // Without --json: the same checks, one line each.
    let out = Command::new(common::BIN)
        .args(["doctor", "--git"])
        .current_dir(&repo.dir)
        .env_clear()
        .env("PATH", &path)
        .env("HOME", &repo.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NEXUSQ_VAULT", &repo.vault.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    for name in GIT_CHECKS {
        assert!(
            shown
                .lines()
                .any(|l| l.split_whitespace().nth(1) == Some(name)),
            "{name}: {shown}"
        );
    }
}

/// `doctor --git` outside any repository: a usage error (exit 2) that says so, before any
/// check runs; `--json` gives the error object.
#[test]
fn doctor_git_outside_a_repository_is_a_usage_error() {
    let tmp = TempDir::new().unwrap();
    let run = |json: bool| {
        let mut c = Command::new(common::BIN);
        c.args(["doctor", "--git"])
            .current_dir(tmp.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            // No repository above the folder counts either.
            .env("GIT_CEILING_DIRECTORIES", tmp.path().parent().unwrap())
            .env("LC_ALL", "C");
        if json {
            c.arg("--json");
        }
        c.output().unwrap()
    };
    let out = run(false);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("git finds none"), "{stderr}");
    assert!(stderr.contains("not a git repository"), "{stderr}");
    assert!(stderr.contains("leave out --git"), "{stderr}");
    assert!(out.stdout.is_empty(), "no report: {}", text(&out));
    let out = run(true);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "usage", "{v}");
}

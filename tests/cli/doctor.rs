//! `nexusq doctor`: runs the real binary against vaults in temporary folders and checks the
//! report — every check present with a status, detail and hint; the right verdicts for loose
//! permissions, weak or unreadable parameters, a missing, empty, foreign or linked vault, a
//! revocation statement beside it, a revoked or expired identity and shared storage; exit 1
//! when a check is an error, else 0; and that it never asks for a password or touches the vault.

use crate::common;
use crate::common::{BIN, SMALL_KDF, private_file};
use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);

const CHECKS: [&str; 18] = [
    "platform",
    "vault_path",
    "vault_file",
    "vault_link",
    "vault_permissions",
    "shared_storage",
    "revocation_statement",
    "vault_kdf",
    "vault_state",
    "recovery",
    "unlock_time",
    "device_ram",
    "cpu_features",
    "native_backend",
    "terminal",
    "process_hardening",
    "agent",
    "contacts_book",
];

fn nexusq() -> Command {
    let mut c = common::bin();
    c.timeout(TIMEOUT);
    c
}

struct Env {
    dir: tempfile::TempDir,
    vault: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        // A private folder, as `init` makes for the default path.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
        let vault = dir.path().join("v.nxq");
        Env { dir, vault }
    }

    /// A vault with small Argon2 parameters (8 MiB, t = 1: weaker than the default).
    fn init(&self) {
        let pw = private_file(
            &self.dir.path().join("pw"),
            "correct horse battery staple\n",
        );
        nexusq()
            .arg("--vault")
            .arg(&self.vault)
            .arg("init")
            .args(SMALL_KDF)
            .arg("--password-file")
            .arg(&pw)
            .assert()
            .success();
    }

    fn doctor_json(&self) -> Value {
        doctor_json(nexusq().arg("--vault").arg(&self.vault))
    }
}

/// Run `doctor --json` (one JSON object on one line; exit 1 with an "error" member when a check
/// is an error, else 0) and check the shape of every check.
fn doctor_json(cmd: &mut Command) -> Value {
    let out = cmd.args(["doctor", "--json"]).output().unwrap();
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one JSON object:\n{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let checks = v["checks"].as_array().expect("checks array");
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, CHECKS, "every check, in order");
    for c in checks {
        let status = c["status"].as_str().unwrap();
        assert!(["ok", "warn", "error"].contains(&status), "{c}");
        assert!(!c["detail"].as_str().unwrap().is_empty(), "{c}");
        let hint = c["hint"].as_str().expect("hint is a string");
        if status != "ok" {
            assert!(!hint.is_empty(), "a non-ok check needs a hint: {c}");
        }
    }
    let count = |s: &str| checks.iter().filter(|c| c["status"] == s).count() as u64;
    assert_eq!(v["counts"]["ok"], count("ok"));
    assert_eq!(v["counts"]["warn"], count("warn"));
    assert_eq!(v["counts"]["error"], count("error"));
    assert_eq!(v["ok"], count("error") == 0);
    if count("error") == 0 {
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(v.get("error").is_none(), "{stdout}");
    } else {
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert_eq!(v["error"]["code"], 1);
        assert_eq!(v["error"]["kind"], "check_failed");
        let message = v["error"]["message"].as_str().unwrap();
        for c in checks.iter().filter(|c| c["status"] == "error") {
            assert!(message.contains(c["name"].as_str().unwrap()), "{message}");
        }
    }
    v
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}"))
}

fn status(report: &Value, name: &str) -> String {
    check(report, name)["status"].as_str().unwrap().to_string()
}

fn detail(report: &Value, name: &str) -> String {
    check(report, name)["detail"].as_str().unwrap().to_string()
}

fn hint(report: &Value, name: &str) -> String {
    check(report, name)["hint"].as_str().unwrap().to_string()
}

/// The folder's files with their bytes and modification times.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let m = fs::metadata(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
                m.modified().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn fresh_vault_report() {
    let env = Env::new();
    env.init();
    let r = env.doctor_json();
    assert_eq!(r["vault_path"], env.vault.display().to_string());
    assert_eq!(r["vault_path_source"], "--vault");
    assert!(detail(&r, "vault_path").contains("from --vault"));
    assert_eq!(status(&r, "vault_file"), "ok");
    assert_eq!(status(&r, "vault_permissions"), "ok", "{r}");
    assert!(detail(&r, "vault_permissions").contains("file 600"));
    assert_eq!(status(&r, "shared_storage"), "ok");
    assert_eq!(status(&r, "vault_link"), "ok");
    // init left its revocation statement beside the vault: flagged, with the way out.
    let rev = format!("{}.revocation.asc", env.vault.display());
    assert_eq!(status(&r, "revocation_statement"), "warn");
    assert!(detail(&r, "revocation_statement").contains(&rev));
    assert!(hint(&r, "revocation_statement").contains(&format!("rm {rev}")));
    // The identity's state, in the check and as data.
    assert_eq!(status(&r, "vault_state"), "ok", "{r}");
    assert!(
        detail(&r, "vault_state").contains("1 generation: g1"),
        "{r}"
    );
    assert!(
        detail(&r, "vault_state").contains("newest g1 valid until"),
        "{r}"
    );
    let fp = r["identity"]["fingerprint"].as_str().unwrap();
    assert!(detail(&r, "vault_state").contains(fp));
    assert_eq!(r["identity"]["revoked"], false);
    assert_eq!(r["identity"]["generations"][0]["expired"], false);
    assert_eq!(r["identity"]["generations"][0]["retired"], Value::Null);
    // 8 MiB, t = 1 is below the default: flagged, with the way up.
    assert_eq!(status(&r, "vault_kdf"), "warn");
    assert!(detail(&r, "vault_kdf").contains("8 MiB, t=1"));
    assert!(
        detail(&r, "vault_kdf")
            .contains("weaker than the default (Argon2id v1.3, 64 MiB, t=3, any p)")
    );
    assert!(hint(&r, "vault_kdf").contains("nexusq vault passwd"));
    assert!(detail(&r, "vault_kdf").contains("this device allows up to"));
    // The unlock was timed with the vault's parameters.
    let unlock = detail(&r, "unlock_time");
    assert!(unlock.contains("the vault's parameters"), "{unlock}");
    assert!(unlock.contains("8 MiB, t=1"), "{unlock}");
    assert!(unlock.contains(" ms "), "{unlock}");
    assert!(detail(&r, "device_ram").contains("MiB"));
    let native = detail(&r, "native_backend");
    let selected = nexusq_native::selected().name();
    assert!(
        native.contains(&format!("runs {selected} for ML-KEM")),
        "{native}"
    );
    assert!(native.contains("rustcrypto runs"), "{native}");
    let cpu = detail(&r, "cpu_features");
    #[cfg(target_arch = "x86_64")]
    for f in ["aes-ni", "avx2", "avx512f"] {
        assert!(cpu.contains(f), "{cpu}");
    }
    #[cfg(target_arch = "aarch64")]
    for f in ["aes", "pmull", "sha3", "asimd"] {
        assert!(cpu.contains(f), "{cpu}");
    }
    let _ = cpu;
    // The test runs the binary without a terminal on stdin/stderr.
    let terminal = detail(&r, "terminal");
    assert!(terminal.contains("stderr is a terminal: no"), "{terminal}");
    assert!(hint(&r, "terminal").contains("--password-file"));
    assert_eq!(status(&r, "process_hardening"), "ok");
}

#[test]
fn doctor_never_asks_for_a_password_and_never_touches_the_vault() {
    let env = Env::new();
    env.init();
    let before = snapshot(env.dir.path());
    // No controlling terminal and stdin from /dev/null: a password prompt would fail (exit 2);
    // doctor must not need one.
    let start = Instant::now();
    let out = std::process::Command::new("setsid")
        .arg("-w")
        .arg(BIN)
        .arg("--vault")
        .arg(&env.vault)
        .arg("doctor")
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .stdin(Stdio::null())
        .output()
        .expect("run setsid (util-linux)");
    assert!(start.elapsed() < TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.to_lowercase().contains("password:"), "{stderr}");
    // The report wraps its details (at $COLUMNS, else 100, without a terminal): read it as
    // words.
    let words = words(&stdout);
    assert!(words.contains("/dev/tty opens: no"), "{stdout}");
    assert!(
        words.contains("no terminal to ask for a password"),
        "{stdout}"
    );
    // Nothing written, no lock file made, nothing renamed.
    assert_eq!(snapshot(env.dir.path()), before);
}

/// `text`'s words, one space between each.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At a phone's 52-column terminal (tmux) the report keeps to 52 columns, breaking lines only
/// between words: the terminal's width wins over $COLUMNS, as for `--help`.
#[test]
fn the_report_fits_a_52_column_terminal() {
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!(
            "SKIPPED the_report_fits_a_52_column_terminal: tmux is not installed (apt-get install \
             tmux); doctor at a narrow terminal is NOT tested"
        );
        return;
    }
    let env = Env::new();
    let (socket, rc) = (env.dir.path().join("tmux.sock"), env.dir.path().join("rc"));
    let tmux = |args: &[&str]| {
        std::process::Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(args)
            .output()
            .unwrap()
    };
    let q = |p: &Path| p.to_str().unwrap().to_string();
    // The shell stays after the report, so that the pane can still be read.
    let script = format!(
        "'{BIN}' --vault '{}' doctor; echo $? > '{}'; exec sleep 120",
        q(&env.vault),
        q(&rc)
    );
    let out = tmux(&[
        "new-session",
        "-d",
        "-x",
        "52",
        "-y",
        "150",
        "-s",
        "doctor",
        "env",
        "NO_COLOR=1",
        "COLUMNS=200",
        "sh",
        "-c",
        &script,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let start = Instant::now();
    while !rc.exists() || fs::read_to_string(&rc).unwrap().trim().is_empty() {
        assert!(start.elapsed() < TIMEOUT, "doctor did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    // -J joins the lines the terminal wrapped itself, so a line too long shows as one.
    let pane = tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", "doctor"]);
    let _ = tmux(&["kill-server"]);
    let pane = String::from_utf8_lossy(&pane.stdout).to_string();
    // A missing vault is a warning, not an error.
    assert_eq!(fs::read_to_string(&rc).unwrap().trim(), "0", "{pane}");
    assert!(pane.contains("18 checks: "), "{pane}");
    let vault = q(&env.vault);
    for line in pane.lines() {
        let line = line.trim_end();
        assert!(
            line.chars().count() <= 52 || line.split_whitespace().count() == 1,
            "over 52 columns: {line:?}\n{pane}"
        );
    }
    // Every check's line, and known texts whole: no word broken across lines.
    for name in CHECKS {
        assert!(
            pane.lines()
                .any(|l| l.split_whitespace().nth(1) == Some(name)),
            "no line for {name}:\n{pane}"
        );
    }
    let words = words(&pane);
    for text in [
        "no key agent runs for this vault (commands ask for the password)",
        &format!("no vault at {vault}"),
        "hint: run `nexusq init` to create one, or point --vault / NEXUSQ_VAULT at yours",
        "core dumps off (RLIMIT_CORE 0) and not dumpable (PR_SET_DUMPABLE 0) before any \
         password is read",
    ] {
        assert!(words.contains(text), "{text:?} not whole in:\n{pane}");
    }
}

#[test]
fn human_report_lists_every_check_with_hints_and_a_summary() {
    let env = Env::new();
    env.init();
    let out = nexusq()
        .arg("--vault")
        .arg(&env.vault)
        .arg("doctor")
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(out.get_output().stderr.is_empty());
    assert!(stdout.starts_with("nexusq "), "{stdout}");
    for name in CHECKS {
        assert!(
            stdout
                .lines()
                .any(|l| l.split_whitespace().nth(1) == Some(name)),
            "no line for {name}:\n{stdout}"
        );
    }
    assert!(stdout.contains("hint: "), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("18 checks: "), "{last}");
    assert!(last.contains("warning"), "{last}");
}

#[test]
fn missing_vault_is_a_warning_and_the_default_parameters_are_timed() {
    let env = Env::new();
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_file"), "warn");
    assert!(hint(&r, "vault_file").contains("nexusq init"));
    assert_eq!(status(&r, "vault_kdf"), "ok");
    assert!(detail(&r, "vault_kdf").contains("no vault yet"));
    let lanes = common::new_vault_lanes();
    assert!(detail(&r, "vault_kdf").contains(&format!("64 MiB, t=3, p={lanes}")));
    assert!(detail(&r, "unlock_time").contains("the default parameters"));
    assert!(detail(&r, "vault_permissions").contains("folder"));
    assert!(!env.vault.exists());
}

#[test]
fn loose_permissions_are_flagged_with_chmod_hints() {
    let env = Env::new();
    env.init();
    fs::set_permissions(&env.vault, fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(env.dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_permissions"), "warn");
    let h = hint(&r, "vault_permissions");
    assert!(
        h.contains(&format!("chmod 600 {}", env.vault.display())),
        "{h}"
    );
    assert!(
        h.contains(&format!("chmod 700 {}", env.dir.path().display())),
        "{h}"
    );
    assert!(detail(&r, "vault_permissions").contains("644"));
    // Doctor reports; it does not fix.
    let mode = fs::metadata(&env.vault).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644);
}

#[test]
fn unreadable_vault_is_an_error_but_doctor_still_reports() {
    let env = Env::new();
    fs::write(&env.vault, b"this is not a vault").unwrap();
    fs::set_permissions(&env.vault, fs::Permissions::from_mode(0o600)).unwrap();
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_kdf"), "error");
    assert!(detail(&r, "vault_kdf").contains("cannot read the vault header"));
    assert_eq!(status(&r, "vault_file"), "error");
    assert!(
        detail(&r, "vault_file").contains("not a nexusq vault"),
        "{r}"
    );
    assert_eq!(status(&r, "vault_state"), "warn");
    assert_eq!(r["identity"], Value::Null);
    assert_eq!(r["ok"], false);
    // Timed with the default parameters instead.
    assert!(detail(&r, "unlock_time").contains("the default parameters"));

    // A folder where the vault should be.
    let env = Env::new();
    fs::create_dir(&env.vault).unwrap();
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_file"), "error");
}

#[test]
fn environment_choices_are_reported() {
    let env = Env::new();
    env.init();
    // NEXUSQ_VAULT chooses the vault; NEXUSQ_BACKEND chooses the backend.
    let r = doctor_json(
        nexusq()
            .env("NEXUSQ_VAULT", &env.vault)
            .env("NEXUSQ_BACKEND", "native"),
    );
    assert_eq!(r["vault_path_source"], "NEXUSQ_VAULT");
    assert!(detail(&r, "vault_path").contains("from NEXUSQ_VAULT"));
    assert_eq!(status(&r, "native_backend"), "ok");
    assert!(detail(&r, "native_backend").contains("native runs"), "{r}");
    // NO_COLOR is noticed.
    let r = doctor_json(nexusq().arg("--vault").arg(&env.vault).env("NO_COLOR", "1"));
    assert!(detail(&r, "terminal").contains("NO_COLOR"));
}

#[test]
fn shared_storage_vault_path_is_flagged() {
    // /storage does not exist on a Linux host; the rule is applied to the path as given when
    // its folder cannot be resolved, and to the realpath when it can.
    let r = doctor_json(
        nexusq()
            .arg("--vault")
            .arg("/storage/emulated/0/nexusq/vault.nxq"),
    );
    assert_eq!(status(&r, "shared_storage"), "warn");
    assert!(detail(&r, "shared_storage").contains("--allow-shared-storage"));
    assert!(hint(&r, "shared_storage").contains("move the vault"));
}

#[test]
fn an_empty_vault_file_fails_and_says_so() {
    let env = Env::new();
    private_file(&env.vault, b"");
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_file"), "error");
    assert!(
        detail(&r, "vault_file").contains("is empty (0 bytes)"),
        "{r}"
    );
    assert!(hint(&r, "vault_file").contains("backup"));
    // Text mode: the report on stdout, the failure on stderr, exit 1.
    let out = nexusq()
        .arg("--vault")
        .arg(&env.vault)
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("is empty (0 bytes)"), "{stdout}");
    assert!(stderr.contains("checks failed: vault_file"), "{stderr}");
}

#[test]
fn a_vault_reached_through_a_link_is_flagged() {
    let env = Env::new();
    env.init();
    let link = env.dir.path().join("link.nxq");
    std::os::unix::fs::symlink(&env.vault, &link).unwrap();
    let r = doctor_json(nexusq().arg("--vault").arg(&link));
    assert_eq!(status(&r, "vault_link"), "warn", "{r}");
    assert!(detail(&r, "vault_link").contains("is a symbolic link to"));
    assert!(hint(&r, "vault_link").contains(&env.vault.display().to_string()));
    // The statement beside the link's target is found too.
    assert_eq!(status(&r, "revocation_statement"), "warn");
    assert_eq!(status(&r, "vault_file"), "ok");
}

#[test]
fn a_moved_statement_satisfies_doctor() {
    let env = Env::new();
    env.init();
    let rev = PathBuf::from(format!("{}.revocation.asc", env.vault.display()));
    fs::rename(&rev, env.dir.path().join("elsewhere.asc")).unwrap();
    let r = env.doctor_json();
    assert_eq!(status(&r, "revocation_statement"), "ok", "{r}");
}

#[test]
fn a_revoked_identity_fails() {
    let env = Env::new();
    env.init();
    let pw = env.dir.path().join("pw");
    let rev = PathBuf::from(format!("{}.revocation.asc", env.vault.display()));
    nexusq()
        .arg("--vault")
        .arg(&env.vault)
        .args(["identity", "revoke", "--yes", "--password-file"])
        .arg(&pw)
        .arg(&rev)
        .assert()
        .success();
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_state"), "error", "{r}");
    assert!(detail(&r, "vault_state").contains("the identity is revoked"));
    assert!(hint(&r, "vault_state").contains("init"));
    assert_eq!(r["identity"]["revoked"], true);
    assert_eq!(r["ok"], false);
}

#[test]
fn an_expired_or_expiring_newest_generation_is_flagged() {
    use nexusq_core::secret::Password;
    use nexusq_core::suite::rustcrypto::RustCrypto;
    let rotate = |env: &Env, now: u64, days: u32| {
        let pw = Password::new(zeroize::Zeroizing::new(
            fs::read_to_string(env.dir.path().join("pw"))
                .unwrap()
                .trim_end()
                .to_string(),
        ));
        let options = nexusq_core::identity::rotation::RotateOptions {
            reason: "test".into(),
            validity_days: days,
            ..Default::default()
        };
        nexusq_core::vault::rotate(
            &env.vault,
            &pw,
            &Default::default(),
            &options,
            &RustCrypto,
            now,
        )
        .unwrap();
    };
    // Rotated ten days ago with one day of validity: the newest expired nine days ago.
    let env = Env::new();
    env.init();
    rotate(&env, nexusq_core::time::now() - 10 * 86_400, 1);
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_state"), "error", "{r}");
    assert!(detail(&r, "vault_state").contains("(g2) expired on"), "{r}");
    assert!(detail(&r, "vault_state").contains("g2 [expired]"), "{r}");
    assert!(hint(&r, "vault_state").contains("nexusq rotate"));
    assert_eq!(r["identity"]["generations"][1]["expired"], true);

    // Twenty days left: a warning, not a failure.
    let env = Env::new();
    env.init();
    rotate(&env, nexusq_core::time::now(), 20);
    let r = env.doctor_json();
    assert_eq!(status(&r, "vault_state"), "warn", "{r}");
    assert!(detail(&r, "vault_state").contains("(g2) expires on"), "{r}");
}

//! The fixture the integration tests share: the `nexusq` binary with a clean environment,
//! private (0600) files, and a vault initialised in a test's folder with small Argon2
//! parameters. `browser`: headless Chromium for the pages nexusq writes.
//!
//! Each test binary (`tests/*/main.rs`) compiles this module on its own and uses only part of it.
#![allow(dead_code)]

pub mod browser;

use assert_cmd::Command;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_nexusq");

/// Argon2 parameters small enough for tests (8 MiB, one pass): hidden `init` flags.
pub const SMALL_KDF: [&str; 4] = ["--kdf-memory-mib", "8", "--kdf-iterations", "1"];

/// The Argon2id lanes a new vault gets on this machine: min(4, cores).
#[allow(dead_code)]
pub fn new_vault_lanes() -> u64 {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4) as u64
}

/// The binary with NEXUSQ_VAULT and NEXUSQ_BACKEND removed from its environment, and COLUMNS:
/// with no terminal, reports are laid out for 100 columns whatever the shell running the tests.
pub fn bin() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env_remove("COLUMNS");
    // Which vaults were unlocked (`nexusq_core::vault::seen`) is kept per user: the tests'
    // records go to the target folder, not to this machine's home.
    c.env("XDG_STATE_HOME", state_home());
    c
}

/// The state folder of the tests' runs of nexusq.
pub fn state_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("state")
}

/// Creates `path`, which must not exist yet, with mode 0600 and `contents`.
pub fn private_file(path: &Path, contents: impl AsRef<[u8]>) -> PathBuf {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .expect("create a private file");
    f.write_all(contents.as_ref()).unwrap();
    // The umask may have narrowed the mode; make it exactly 0600.
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).unwrap();
    path.to_path_buf()
}

/// A vault `<dir>/<name>.nxq`, initialised with [`SMALL_KDF`], and its password file
/// `<dir>/<name>.pw` (mode 0600).
pub struct TestVault {
    /// The folder holding the vault, its password file and its export.
    pub dir: PathBuf,
    /// The vault file.
    pub path: PathBuf,
    /// The password file.
    pub pw: PathBuf,
}

impl TestVault {
    /// A vault whose password is `password of <name>`.
    pub fn new(dir: &Path, name: &str) -> TestVault {
        TestVault::with_password(dir, name, &format!("password of {name}"))
    }

    /// A vault whose password is `password`.
    pub fn with_password(dir: &Path, name: &str, password: &str) -> TestVault {
        let pw = private_file(&dir.join(format!("{name}.pw")), format!("{password}\n"));
        let v = TestVault {
            dir: dir.to_path_buf(),
            path: dir.join(format!("{name}.nxq")),
            pw,
        };
        // The fixture is made on the native backend (the same bytes, differentially tested
        // in native/tests): RustCrypto's SLH-DSA takes ~0.15 s a signature and init makes
        // two, for hundreds of vaults. The commands under test use the default backend.
        v.cmd()
            .args(["--backend", "native", "init"])
            .args(SMALL_KDF)
            .arg("--password-file")
            .arg(&v.pw)
            .assert()
            .success();
        v
    }

    /// `nexusq --vault <vault>`, clean environment, NO_COLOR=1.
    pub fn cmd(&self) -> Command {
        let mut c = bin();
        c.env("NO_COLOR", "1").arg("--vault").arg(&self.path);
        c
    }

    /// The public export `<dir>/<name>.pub`, made by `identity export -o` on first use.
    pub fn export(&self) -> PathBuf {
        let out = self.dir.join(format!(
            "{}.pub",
            self.path.file_stem().unwrap().to_string_lossy()
        ));
        if !out.exists() {
            self.cmd()
                .args(["identity", "export", "-o"])
                .arg(&out)
                .assert()
                .success();
        }
        out
    }

    /// `vault open --json`, parsed; asserts that it succeeded.
    pub fn open_json(&self) -> serde_json::Value {
        let out = self
            .cmd()
            .args(["vault", "open", "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The fingerprint `vault open --json` reports.
    pub fn fingerprint(&self) -> String {
        self.open_json()["fingerprint"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// The mode nexusq gives a public file (docs/cli.md, "Outputs, files and modes"): 0644 less
/// this process's umask, which the binary under test inherits.
pub fn public_file_mode() -> u32 {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let umask = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .map(|v| u32::from_str_radix(v.trim(), 8).expect("octal umask"))
        .expect("a Umask line (Linux 4.7 or later)");
    0o644 & !umask
}

/// Run `cmd` with `input` on its stdin; its output.
pub fn pipe_through(cmd: &mut std::process::Command, input: &str) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Run `cmd` to its end, killing it after `secs` seconds: a command that had to be killed
/// hung, and the test fails saying so (instead of hanging itself).
pub fn output_within(cmd: &mut Command, secs: u64, what: &str) -> std::process::Output {
    let out = cmd
        .timeout(std::time::Duration::from_secs(secs))
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some(),
        "{what}: still running after {secs} s, killed (it hangs); stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

//! Saves under concurrency and sudden death, through the real binary
//! (docs/vault-format.md, section 9): a process killed with SIGKILL at random points leaves the
//! old or the new vault, whole; a writer that waited for the lock sees the first writer's result;
//! concurrent writers never corrupt the vault or lose an update.

use crate::common::{BIN, SMALL_KDF, private_file};
use nexusq_core::secret::{Password, random_array};
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::vault;
use nexusq_core::vault::kdf::{Argon2id, KdfParams};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    vault: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let f = Fixture {
            vault: root.join("v.nxq"),
            root,
            _dir: dir,
        };
        let out = f
            .cmd(&["init", "--password-file"])
            .arg(f.pw("A"))
            .args(SMALL_KDF)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        f
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.arg("--vault").arg(&self.vault).args(args);
        c.env_remove("NEXUSQ_VAULT").env_remove("NEXUSQ_BACKEND");
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    }

    /// A password file holding `name`, mode 0600.
    fn pw(&self, name: &str) -> PathBuf {
        let p = self.root.join(format!("pw-{name}"));
        if !p.exists() {
            private_file(&p, format!("password {name}\n"));
        }
        p
    }

    fn passwd(&self, from: &str, to: &str) -> Child {
        self.cmd(&["vault", "passwd", "--password-file"])
            .arg(self.pw(from))
            .arg("--new-password-file")
            .arg(self.pw(to))
            .args(SMALL_KDF)
            .args(["--lock-timeout", "60"])
            .spawn()
            .unwrap()
    }

    /// Does the vault on disk unlock (and give its root) with this password?
    fn unlocks_with(&self, name: &str) -> bool {
        let pw = password(name);
        let Ok(file) = vault::open(&self.vault) else {
            return false;
        };
        match file.unlock(&pw, &Argon2id, &RustCrypto) {
            Ok(u) => u.root(&RustCrypto).is_ok(),
            Err(_) => false,
        }
    }
}

fn password(name: &str) -> Password {
    Password::new(Zeroizing::new(format!("password {name}")))
}

fn random_below(n: u64) -> u64 {
    u64::from_le_bytes(random_array()) % n.max(1)
}

#[test]
fn sigkill_at_random_points_never_loses_the_vault() {
    let f = Fixture::new();
    // How long one uninterrupted passwd takes here, to spread the kills over all of it.
    let start = Instant::now();
    let status = f.passwd("A", "B").wait().unwrap();
    assert!(status.success());
    let full = start.elapsed();
    let mut current = "B";
    let (mut old_kept, mut new_landed) = (0, 0);
    for round in 0..60 {
        let next = if current == "A" { "B" } else { "A" };
        let mut child = f.passwd(current, next);
        let delay = random_below((full.as_micros() as u64) * 6 / 5);
        std::thread::sleep(Duration::from_micros(delay));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let with_current = f.unlocks_with(current);
        let with_next = f.unlocks_with(next);
        assert!(
            with_current ^ with_next,
            "round {round}: after a kill at {delay} µs the vault unlocks with old: {with_current}, new: {with_next}"
        );
        if with_next {
            new_landed += 1;
            current = next;
        } else {
            old_kept += 1;
        }
    }
    eprintln!(
        "60 kills over {full:?}: old vault kept {old_kept} times, new vault landed {new_landed} times"
    );
    // Leftover temp files are possible after SIGKILL; the vault itself is whole.
    assert!(f.unlocks_with(current));
}

#[test]
fn a_waiting_writer_sees_the_first_writers_result() {
    let f = Fixture::new();
    // Hold the writers' lock ourselves, as a first writer would.
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(vault::lock::lock_path(&f.vault))
        .unwrap();
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let mut waiter = f.passwd("A", "B");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "the second writer did not wait for the lock"
    );
    // As the first writer: re-encrypt the vault under password C, atomically, then release.
    replace_password(&f.vault, "A", "C");
    drop(lock);
    let status = waiter.wait().unwrap();
    // It read the vault after taking the lock, so it saw C's vault and its password A failed.
    assert_eq!(
        status.code(),
        Some(3),
        "the waiter must see the first writer's vault"
    );
    assert!(f.unlocks_with("C"));
    assert!(!f.unlocks_with("B"));
}

fn replace_password(path: &Path, from: &str, to: &str) {
    let unlocked = vault::open(path)
        .unwrap()
        .unlock(&password(from), &Argon2id, &RustCrypto)
        .unwrap();
    let root = unlocked.root(&RustCrypto).unwrap();
    let params = KdfParams {
        memory_kib: 8192,
        iterations: 1,
        parallelism: 1,
    };
    let bytes = unlocked.reseal(&root, &password(to), params).unwrap();
    nexusq_core::fs::replace(path, &bytes, nexusq_core::fs::Access::Private).unwrap();
}

#[test]
fn concurrent_writers_serialise_and_lose_nothing() {
    let f = Fixture::new();
    let names = ["B1", "B2", "B3", "B4"];
    let children: Vec<Child> = names.iter().map(|n| f.passwd("A", n)).collect();
    let mut winners = Vec::new();
    for (name, child) in names.iter().zip(children) {
        let out = child.wait_with_output().unwrap();
        match out.status.code() {
            Some(0) => winners.push(*name),
            // Every later writer read the winner's vault under the lock: A no longer opens it.
            Some(3) => {}
            other => panic!(
                "{name}: unexpected exit {other:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    assert_eq!(
        winners.len(),
        1,
        "exactly one passwd from A can succeed: {winners:?}"
    );
    assert!(f.unlocks_with(winners[0]));
    assert!(!f.unlocks_with("A"));
}

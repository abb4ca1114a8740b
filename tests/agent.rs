//! `nexusq agent` (issue 18, docs/agent.md): the real binary, real sockets, a private
//! XDG_RUNTIME_DIR per test and small Argon2 parameters.

mod common;

use assert_cmd::Command;
use common::{BIN, TestVault};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Fx {
    _tmp: tempfile::TempDir,
    v: TestVault,
    run: PathBuf,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
        let v = TestVault::new(tmp.path(), "me");
        Fx { _tmp: tmp, v, run }
    }

    fn dir(&self) -> &Path {
        &self.v.dir
    }

    fn cmd(&self) -> Command {
        let mut c = self.v.cmd();
        c.env("XDG_RUNTIME_DIR", &self.run);
        c
    }

    /// `nexusq --vault V ARGS` in a new session with stdin from a /dev/null of our own (no
    /// terminal, nothing to read a password from).
    fn detached(&self, args: &[&str]) -> std::process::Output {
        let null = self.dir().join("null");
        if !null.exists() {
            std::fs::write(&null, b"").unwrap();
        }
        std::process::Command::new("setsid")
            .arg(BIN)
            .arg("--vault")
            .arg(&self.v.path)
            .args(args)
            .env("XDG_RUNTIME_DIR", &self.run)
            .env("NO_COLOR", "1")
            .env_remove("NEXUSQ_VAULT")
            .current_dir(self.dir())
            .stdin(std::fs::File::open(&null).unwrap())
            .output()
            .expect("run setsid (util-linux)")
    }

    fn start(&self, extra: &[&str]) -> std::process::Output {
        let out = self
            .cmd()
            .args(["agent", "start", "--password-file"])
            .arg(&self.v.pw)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn status(&self) -> Option<serde_json::Value> {
        let out = self
            .cmd()
            .args(["agent", "status", "--json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        match out.status.code() {
            Some(0) => Some(v),
            Some(1) => {
                assert_eq!(v["running"], false, "{v}");
                None
            }
            other => panic!(
                "agent status exited {other:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }

    fn pid(&self) -> u32 {
        self.status().expect("an agent runs")["pid"]
            .as_u64()
            .unwrap() as u32
    }

    fn socket(&self) -> PathBuf {
        let s = self.status().expect("an agent runs");
        PathBuf::from(s["socket"].as_str().unwrap())
    }

    fn sockets(&self) -> Vec<PathBuf> {
        match std::fs::read_dir(self.run.join("nexusq")) {
            Ok(d) => d.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn verify(&self, file: &str, sig: &str) -> serde_json::Value {
        let out = self
            .cmd()
            .current_dir(self.dir())
            .args(["verify", "--json", file, "--sig", sig])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

impl Drop for Fx {
    fn drop(&mut self) {
        // Never leave an agent behind.
        let _ = self.cmd().arg("lock").output();
    }
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn wait_until(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

fn alive(pid: u32) -> bool {
    // A zombie is gone for our purposes: its /proc entry says state Z.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

#[test]
fn unlocked_once_then_sign_decrypt_decapsulate_need_no_password() {
    let fx = Fx::new();
    let out = fx.start(&[]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("agent listening on"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let status = fx.status().expect("running");
    assert_eq!(status["fingerprint"], fx.v.fingerprint());
    assert_eq!(status["generation"], 1);
    assert!(status["idle_seconds_left"].as_u64().unwrap() <= 900);
    // A second start says so and leaves the first agent.
    let pid = fx.pid();
    let again = fx.start(&[]);
    assert!(
        stderr(&again).contains("already serves"),
        "{}",
        stderr(&again)
    );
    assert_eq!(fx.pid(), pid);

    fx.file("data.txt", "signed without a password\n");
    let o = fx.detached(&["sign", "data.txt", "-o", "data.sig"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = fx.verify("data.txt", "data.sig");
    assert_eq!(v["valid"], true);
    assert_eq!(v["generation"], 1);

    let export = fx.v.export();
    fx.file("plain.txt", "for my eyes\n");
    fx.cmd()
        .current_dir(fx.dir())
        .args(["encrypt", "plain.txt", "-o", "plain.nxq", "--to"])
        .arg(&export)
        .assert()
        .success();
    let o = fx.detached(&["decrypt", "plain.nxq"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"for my eyes\n");

    let enc = fx
        .cmd()
        .current_dir(fx.dir())
        .args(["encapsulate", "-o", "kem.ct", "--to"])
        .arg(&export)
        .output()
        .unwrap();
    assert!(enc.status.success());
    let o = fx.detached(&["decapsulate", "kem.ct"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, enc.stdout, "the same shared secret");

    // --no-agent: the password path, which has no password here (exit 2, as before).
    for args in [
        &["sign", "--no-agent", "data.txt"][..],
        &["decrypt", "--no-agent", "plain.nxq"][..],
        &["decapsulate", "--no-agent", "kem.ct"][..],
    ] {
        let o = fx.detached(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("no terminal"), "{}", stderr(&o));
    }
}

#[test]
fn idle_timeout_ends_the_agent_and_removes_its_socket() {
    let fx = Fx::new();
    fx.start(&["--idle", "2s"]);
    let socket = fx.socket();
    assert!(socket.exists());
    std::thread::sleep(Duration::from_secs(4));
    assert!(
        !socket.exists(),
        "socket still there after the idle timeout"
    );
    assert!(fx.status().is_none());
    fx.file("d", "x");
    let o = fx.detached(&["sign", "d"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn max_lifetime_ends_a_busy_agent() {
    let fx = Fx::new();
    fx.start(&["--idle", "1m", "--max", "3s"]);
    let socket = fx.socket();
    fx.file("d", "x");
    let started = Instant::now();
    let mut signed = 0;
    // Kept busy: a signature every few hundred milliseconds.
    while started.elapsed() < Duration::from_millis(2500) {
        let o = fx.detached(&["sign", "d"]);
        if o.status.success() {
            signed += 1;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(signed >= 2, "the agent served only {signed} signatures");
    assert!(
        wait_until(Duration::from_secs(3), || !socket.exists()),
        "socket still there after --max"
    );
    let o = fx.detached(&["sign", "d"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn stop_and_lock_wipe_and_end_it() {
    let fx = Fx::new();
    fx.start(&[]);
    let (pid, socket) = (fx.pid(), fx.socket());
    fx.cmd().args(["agent", "stop"]).assert().success();
    assert!(!socket.exists());
    assert!(wait_until(Duration::from_secs(2), || !alive(pid)));
    fx.start(&[]);
    let pid = fx.pid();
    fx.cmd().arg("lock").assert().success();
    assert!(fx.sockets().is_empty());
    assert!(wait_until(Duration::from_secs(2), || !alive(pid)));
    // Nothing running: stop is not an error.
    fx.cmd().arg("lock").assert().success();
}

#[test]
fn a_killed_agent_costs_little_and_its_socket_is_cleaned_up() {
    let fx = Fx::new();
    fx.start(&[]);
    let (pid, socket) = (fx.pid(), fx.socket());
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(wait_until(Duration::from_secs(2), || !alive(pid)));
    assert!(socket.exists(), "SIGKILL cannot remove the socket");
    fx.file("d", "x");
    let t = Instant::now();
    let o = fx.detached(&["sign", "d"]);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.matches("key agent could not be used").count(), 1, "{e}");
    // The next start cleans the stale socket and serves again.
    let out = fx.start(&[]);
    assert!(
        stderr(&out).contains("stale agent socket"),
        "{}",
        stderr(&out)
    );
    let o = fx.detached(&["sign", "d"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_wedged_agent_times_out_and_the_command_falls_back() {
    let fx = Fx::new();
    fx.start(&[]);
    let pid = fx.pid().to_string();
    std::process::Command::new("kill")
        .args(["-STOP", &pid])
        .status()
        .unwrap();
    fx.file("d", "x");
    let t = Instant::now();
    let o = fx.detached(&["sign", "d"]);
    let took = t.elapsed();
    std::process::Command::new("kill")
        .args(["-CONT", &pid])
        .status()
        .unwrap();
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("did not answer"), "{}", stderr(&o));
    // With a password it still signs.
    let o = fx
        .cmd()
        .current_dir(fx.dir())
        .args(["sign", "d", "--no-agent", "--password-file"])
        .arg(&fx.v.pw)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn sigterm_wipes_and_removes_the_socket() {
    for signal in ["-TERM", "-INT", "-HUP"] {
        let fx = Fx::new();
        fx.start(&[]);
        let (pid, socket) = (fx.pid(), fx.socket());
        std::process::Command::new("kill")
            .args([signal, &pid.to_string()])
            .status()
            .unwrap();
        assert!(
            wait_until(Duration::from_secs(2), || !alive(pid)),
            "{signal}: still running"
        );
        assert!(!socket.exists(), "{signal}: socket left behind");
        assert!(fx.sockets().is_empty());
    }
}

/// Raw protocol: one request frame, the response body (None: closed unanswered).
fn raw(socket: &Path, bytes: &[u8]) -> Option<Vec<u8>> {
    let mut s = UnixStream::connect(socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = s.write_all(bytes);
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    if out.len() < 4 {
        return None;
    }
    Some(out[4..].to_vec())
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = (body.len() as u32).to_be_bytes().to_vec();
    f.extend_from_slice(body);
    f
}

const STATUS: [u8; 2] = [1, 0x01];

#[test]
fn hostile_requests_get_an_error_or_a_close_and_the_agent_keeps_serving() {
    let fx = Fx::new();
    fx.start(&[]);
    let socket = fx.socket();
    let is_error = |body: Option<Vec<u8>>| body.is_some_and(|b| b.len() >= 2 && b[1] == 0x80);
    assert!(
        is_error(raw(&socket, &frame(b"\x01\x7fgarbage"))),
        "unknown kind"
    );
    assert!(
        is_error(raw(&socket, &frame(b"\x09\x01"))),
        "unknown version"
    );
    assert!(
        is_error(raw(&socket, &frame(&[1, 0x02, 0, 1, 2]))),
        "truncated sign"
    );
    assert!(is_error(raw(
        &socket,
        &frame(&[1, 0x03, 0, 0, 0, 1, 0, 1, 0xff, 0xff])
    )));
    assert!(
        is_error(raw(&socket, &[0x7f, 0xff, 0xff, 0xff])),
        "oversized length"
    );
    assert!(
        raw(&socket, &[0, 0, 0, 10, 1, 1]).is_none(),
        "cut frame: closed"
    );
    assert!(raw(&socket, b"").is_none(), "nothing sent: closed");
    // Decapsulation with a key it does not have, and a wrong-length ciphertext.
    let mut decap = vec![1, 0x03, 0, 0, 0, 99, 0, 1, 0, 4];
    decap.extend_from_slice(b"abcd");
    assert!(is_error(raw(&socket, &frame(&decap))));
    // Slow loris: a byte every 400 ms is cut off after the 2 s request deadline.
    let mut slow = UnixStream::connect(&socket).unwrap();
    let t = Instant::now();
    let mut closed = false;
    let mut sign = vec![1u8, 0x02];
    sign.extend_from_slice(&[0; 72]);
    for b in frame(&sign) {
        if slow.write_all(&[b]).is_err() {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(400));
        if t.elapsed() > Duration::from_secs(4) {
            break;
        }
    }
    let mut rest = Vec::new();
    slow.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let n = slow.read_to_end(&mut rest).unwrap_or(0);
    assert!(closed || n == 0, "a slow sender got an answer");
    assert!(t.elapsed() < Duration::from_secs(6));
    // Still serving.
    let body = raw(&socket, &frame(&STATUS)).expect("status answered");
    assert_eq!(body[1], 0x81);

    // 20 clients at once: all get signatures that verify.
    fx.file("d", "twenty at once\n");
    let handles: Vec<_> = (0..20)
        .map(|i| {
            let mut c = std::process::Command::new(BIN);
            c.arg("--vault")
                .arg(&fx.v.path)
                .args(["sign", "d", "-o", &format!("d.{i}.sig")])
                .env("XDG_RUNTIME_DIR", &fx.run)
                .env_remove("NEXUSQ_VAULT")
                .current_dir(fx.dir())
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    for h in handles {
        let o = h.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for i in 0..20 {
        assert_eq!(fx.verify("d", &format!("d.{i}.sig"))["valid"], true);
    }
}

#[test]
fn after_rotate_it_never_signs_with_the_superseded_key() {
    let fx = Fx::new();
    fx.start(&[]);
    fx.file("d", "x");
    // rotate stops the agent: its keys are from before.
    let o = fx
        .cmd()
        .args(["rotate", "--password-file"])
        .arg(&fx.v.pw)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stopped the key agent"),
        "{}",
        stderr(&o)
    );
    assert!(fx.status().is_none());
    let o = fx.detached(&["sign", "d"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // A vault rotated behind the agent's back (another copy, renamed over): the agent sees
    // the changed file and stops; sign needs the password, then signs with generation 3.
    fx.start(&[]);
    let pid = fx.pid();
    let copy = fx.dir().join("copy.nxq");
    std::fs::copy(&fx.v.path, &copy).unwrap();
    common::bin()
        .arg("--vault")
        .arg(&copy)
        .args(["rotate", "--password-file"])
        .arg(&fx.v.pw)
        .assert()
        .success();
    std::fs::rename(&copy, &fx.v.path).unwrap();
    let o = fx.detached(&["sign", "d", "-o", "d.sig"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("vault changed"), "{}", stderr(&o));
    assert!(wait_until(Duration::from_secs(2), || !alive(pid)));
    assert!(fx.sockets().is_empty());
    fx.start(&[]);
    let o = fx.detached(&["sign", "d", "-o", "d.sig"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fx.verify("d", "d.sig")["generation"], 3);
}

#[test]
fn another_uid_is_closed_unanswered() {
    if !rustix::process::getuid().is_root() {
        eprintln!("SKIPPED: needs root to run the agent as uid 65534");
        return;
    }
    use std::os::unix::process::CommandExt;
    let fx = Fx::new();
    let nobody = 65534;
    // A folder and a vault that uid 65534 owns.
    let home = fx.dir().join("nobody");
    std::fs::create_dir(&home).unwrap();
    std::fs::set_permissions(fx.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = home.join("run");
    std::fs::create_dir(&run).unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
    let vault = home.join("v.nxq");
    std::fs::copy(&fx.v.path, &vault).unwrap();
    let pw = home.join("pw");
    std::fs::copy(&fx.v.pw, &pw).unwrap();
    for p in [&home, &run, &vault, &pw] {
        std::os::unix::fs::chown(p, Some(nobody), Some(nobody)).unwrap();
    }
    let as_nobody = |args: &[&str]| {
        let mut c = std::process::Command::new(BIN);
        c.arg("--vault")
            .arg(&vault)
            .args(args)
            .env("XDG_RUNTIME_DIR", &run)
            .env("HOME", &home)
            .env_remove("NEXUSQ_VAULT")
            .current_dir(&home)
            .uid(nobody)
            .gid(nobody);
        c.output().unwrap()
    };
    let o = as_nobody(&[
        "agent",
        "start",
        "--idle",
        "30s",
        "--password-file",
        pw.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let sockets: Vec<_> = std::fs::read_dir(run.join("nexusq"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(sockets.len(), 1);
    // Root connects (root may open any socket file): no answer, the connection is closed.
    assert!(raw(&sockets[0], &frame(&STATUS)).is_none(), "answered root");
    // Its own user is served.
    let o = as_nobody(&["agent", "status"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = as_nobody(&["lock"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

//! `nexusq agent` (docs/agent.md): the real binary, real sockets, a private
//! XDG_RUNTIME_DIR per test and small Argon2 parameters.

use crate::common;
use crate::common::{BIN, TestVault};
use assert_cmd::Command;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Fx {
    _tmp: tempfile::TempDir,
    v: TestVault,
    run: PathBuf,
    /// Set (Some) or removed (None) after XDG_RUNTIME_DIR, in every command of the fixture.
    env: Vec<(&'static str, Option<PathBuf>)>,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
        let v = TestVault::new(tmp.path(), "me");
        Fx {
            _tmp: tmp,
            v,
            run,
            env: Vec::new(),
        }
    }

    fn dir(&self) -> &Path {
        &self.v.dir
    }

    fn apply_env(&self, c: &mut std::process::Command) {
        c.env("XDG_RUNTIME_DIR", &self.run);
        for (k, v) in &self.env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
    }

    fn cmd(&self) -> Command {
        let mut c = std::process::Command::new(BIN);
        c.env_remove("NEXUSQ_VAULT")
            .env_remove("NEXUSQ_BACKEND")
            .env("NO_COLOR", "1")
            .arg("--vault")
            .arg(&self.v.path);
        self.apply_env(&mut c);
        Command::from_std(c)
    }

    /// `nexusq --vault V ARGS` in a new session with stdin from a /dev/null of our own (no
    /// terminal, nothing to read a password from).
    fn detached(&self, args: &[&str]) -> std::process::Output {
        let null = self.dir().join("null");
        if !null.exists() {
            std::fs::write(&null, b"").unwrap();
        }
        let mut c = std::process::Command::new("setsid");
        c.arg(BIN)
            .arg("--vault")
            .arg(&self.v.path)
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("NEXUSQ_VAULT")
            .current_dir(self.dir())
            .stdin(std::fs::File::open(&null).unwrap());
        self.apply_env(&mut c);
        c.output().expect("run setsid (util-linux)")
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
        // Never leave an agent behind; bounded, so that a failed test cannot hang here.
        let _ = self.lock_within(Duration::from_secs(30));
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
    // --quiet (the ~/.bashrc recipe): silent when one already serves, as when it starts one.
    let quiet = fx.start(&["--quiet"]);
    assert_eq!(
        (quiet.stdout.as_slice(), quiet.stderr.as_slice()),
        (&b""[..], &b""[..]),
        "{}",
        stderr(&quiet)
    );
    assert_eq!(fx.pid(), pid);
    let replaced = fx.start(&["--quiet", "--replace"]);
    assert_eq!(
        (replaced.stdout.as_slice(), replaced.stderr.as_slice()),
        (&b""[..], &b""[..]),
        "{}",
        stderr(&replaced)
    );
    assert_ne!(fx.pid(), pid);

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

/// OpenPGP through the agent (docs/openpgp.md): a message to the certificate decrypts and a
/// detached signature is made with no password, and both check out.
#[test]
fn openpgp_decrypt_and_sign_need_no_password_while_it_runs() {
    let fx = Fx::new();
    let cert = fx.dir().join("me.asc");
    fx.v.cmd()
        .args(["identity", "export", "--openpgp", "--password-file"])
        .arg(&fx.v.pw)
        .arg("-o")
        .arg(&cert)
        .assert()
        .success();
    fx.start(&[]);
    fx.file("plain.txt", "OpenPGP, no password\n");
    fx.cmd()
        .current_dir(fx.dir())
        .args(["encrypt", "plain.txt", "--armor", "-o", "plain.asc", "--to"])
        .arg(&cert)
        .assert()
        .success();
    let o = fx.detached(&["decrypt", "plain.asc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"OpenPGP, no password\n");
    let o = fx.detached(&["sign", "--openpgp", "plain.txt", "-o", "plain.txt.asc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = fx
        .cmd()
        .current_dir(fx.dir())
        .args([
            "verify",
            "plain.txt",
            "--sig",
            "plain.txt.asc",
            "--identity",
        ])
        .arg(&cert)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // Without the agent there is no password to be had here: exit 2, as for nexusq files.
    let o = fx.detached(&["decrypt", "--no-agent", "plain.asc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
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

/// The two OpenPGP operations through a running agent, with the library's client: the
/// signature checked against the vault's certificate, the key-encryption key that the vault's
/// own X-Wing key gives (unlocked here with the password); malformed requests are refused.
#[test]
fn the_agent_makes_openpgp_signatures_and_key_encryption_keys() {
    use nexusq_core::agent::client::{self, Lookup};
    use nexusq_core::secret::Password;
    use nexusq_core::suite::hybrid_kem::{self, Decapsulate as _, KemLevel};
    use nexusq_core::suite::hybrid_sig;
    use nexusq_core::suite::rustcrypto::RustCrypto;
    let fx = Fx::new();
    fx.start(&[]);
    let socket = fx.socket();
    let Lookup::Ready(agent) = client::find_at(&socket, Duration::from_secs(10)) else {
        panic!("the agent at {} does not answer", socket.display());
    };
    let password = std::fs::read_to_string(&fx.v.pw).unwrap();
    let password = Password::new(zeroize::Zeroizing::new(
        password.trim_end_matches('\n').to_string(),
    ));
    let vault = nexusq_core::vault::open(&fx.v.path)
        .unwrap()
        .unlock(&password, &nexusq_core::vault::Argon2id, &RustCrypto)
        .unwrap();
    let public = vault.file.public.clone();
    let cert = public.newest().clone();
    let keys = vault.into_decryption_keys();

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for n in [32, 64] {
        let digest = vec![0x5a; n];
        let (g, sig) = agent
            .sign_openpgp(&RustCrypto, &public, &digest, now)
            .unwrap();
        assert_eq!(g, cert.generation);
        assert!(hybrid_sig::verify_openpgp(
            &RustCrypto,
            &cert.keys.mldsa65_ed25519,
            &digest,
            &sig
        ));
    }
    let e = agent
        .sign_openpgp(&RustCrypto, &public, &[1; 32], cert.not_after + 86_400)
        .unwrap_err();
    assert!(e.contains("expired"), "{e}");

    let (ct, ss) =
        hybrid_kem::encapsulate(&RustCrypto, KemLevel::MlKem768, &cert.keys.xwing).unwrap();
    let want = keys
        .find(cert.generation, KemLevel::MlKem768)
        .unwrap()
        .key()
        .decapsulate_openpgp(&ct)
        .unwrap();
    let kek = agent.decapsulate_openpgp(cert.generation, &ct).unwrap();
    assert_eq!(kek.expose(), want.expose());
    assert_ne!(kek.expose(), ss.expose());
    let remote = agent.remote_keys(Some(KemLevel::MlKem768));
    let key = remote
        .iter()
        .find(|k| k.generation == cert.generation)
        .unwrap();
    assert_eq!(
        key.decapsulate_openpgp_ct(&ct).unwrap().expose(),
        want.expose()
    );
    assert!(!key.failed());
    // ML-KEM-1024 keys have no OpenPGP combiner: refused here, without asking the agent.
    for k in agent.remote_keys(Some(KemLevel::MlKem1024)) {
        assert!(k.decapsulate_openpgp_ct(&[0; 1600]).is_err());
        assert!(!k.failed());
    }

    // Malformed: digests of 31 and 65 bytes, a digest shorter than its length, a
    // ciphertext one byte short, a generation it does not have.
    let is_error = |body: Option<Vec<u8>>| body.is_some_and(|b| b.len() >= 2 && b[1] == 0x80);
    for n in [31u8, 65] {
        let mut req = vec![1, 0x05, n];
        req.extend(std::iter::repeat_n(1, usize::from(n)));
        req.extend_from_slice(&now.to_be_bytes());
        assert!(is_error(raw(&socket, &frame(&req))), "{n}");
    }
    assert!(is_error(raw(&socket, &frame(&[1, 0x05, 64, 1, 2, 3]))));
    for (g, len) in [(cert.generation, 1119), (99, 1120)] {
        let mut req = vec![1, 0x03];
        req.extend_from_slice(&g.to_be_bytes());
        req.extend_from_slice(&[0x80, 0x23]);
        req.extend_from_slice(&(len as u16).to_be_bytes());
        req.extend(std::iter::repeat_n(7, len));
        assert!(is_error(raw(&socket, &frame(&req))), "{g} {len}");
    }
    let body = raw(&socket, &frame(&STATUS)).expect("status answered");
    assert_eq!(body[1], 0x81);
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
    // Its socket (beside it, its pid file).
    let sockets: Vec<_> = std::fs::read_dir(run.join("nexusq"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sock"))
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

// ---------------------------------------------------------------------------------------------
// age-plugin-nexusq (docs/agent.md, "The age plugin"): the agent first (only the stanzas' KEM
// ciphertexts cross its socket), the password when it is forced off (NEXUSQ_NO_AGENT), dead,
// wedged, of another identity or silent half-way, said once with a `msg` frame.

use crate::plugin_frames::{frame as pframe, said, stanza_frames};

const PLUGIN: &str = env!("CARGO_BIN_EXE_age-plugin-nexusq");

/// An age file to the vault's newest X-Wing key, the plugin identity line naming the vault,
/// and the first phase of the conversation age has with the plugin about that file.
struct AgeCase {
    file: PathBuf,
    identity: PathBuf,
    phase1: String,
}

impl Fx {
    fn age_case(&self, name: &str, text: &str) -> AgeCase {
        let r = self
            .cmd()
            .args(["identity", "export", "--age"])
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", stderr(&r));
        let r = String::from_utf8(r.stdout).unwrap().trim().to_string();
        let file = self.dir().join(format!("{name}.age"));
        common::bin()
            .args(["encrypt", "--to", &r, "-o"])
            .arg(&file)
            .write_stdin(text)
            .assert()
            .success();
        let identity = self.dir().join(format!("{name}-identity.txt"));
        self.cmd()
            .args(["identity", "export", "--age-plugin-identity", "-o"])
            .arg(&identity)
            .assert()
            .success();
        let line = std::fs::read_to_string(&identity).unwrap();
        let phase1 = pframe("add-identity", &[line.trim()], b"")
            + &stanza_frames(&std::fs::read(&file).unwrap(), "0")
            + &pframe("done", &[], b"");
        AgeCase {
            file,
            identity,
            phase1,
        }
    }

    /// `age-plugin-nexusq --age-plugin=identity-v1` in a new session (no terminal), stdin from
    /// a file holding the whole client side of the conversation; no password file unless
    /// `pw`. Its frames and stderr, and how long it took.
    fn plugin(
        &self,
        input: &str,
        pw: Option<&Path>,
        env: &[(&str, &str)],
    ) -> (Vec<(String, Vec<u8>)>, String, Duration) {
        let script = self.dir().join("plugin-input");
        std::fs::write(&script, input).unwrap();
        let mut c = std::process::Command::new("setsid");
        c.arg(PLUGIN)
            .arg("--age-plugin=identity-v1")
            .env("XDG_RUNTIME_DIR", &self.run)
            .env_remove("NEXUSQ_VAULT")
            .env_remove("NEXUSQ_BACKEND")
            .env_remove("NEXUSQ_NO_AGENT")
            .env_remove("NEXUSQ_PASSWORD_FILE")
            .envs(env.iter().copied())
            .current_dir(self.dir())
            .stdin(std::fs::File::open(&script).unwrap());
        if let Some(pw) = pw {
            c.env("NEXUSQ_PASSWORD_FILE", pw);
        }
        let t = Instant::now();
        let o = c.output().expect("run setsid (util-linux)");
        let took = t.elapsed();
        assert!(
            o.status.success(),
            "plugin exited {:?}: {}",
            o.status,
            stderr(&o)
        );
        let err = stderr(&o);
        (said(&String::from_utf8(o.stdout).unwrap()), err, took)
    }
}

fn heads(frames: &[(String, Vec<u8>)]) -> Vec<&str> {
    frames.iter().map(|(h, _)| h.as_str()).collect()
}

/// The text of the `msg` frames.
fn messages(frames: &[(String, Vec<u8>)]) -> Vec<String> {
    frames
        .iter()
        .filter(|(h, _)| h == "msg")
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect()
}

fn ok() -> String {
    pframe("ok", &[], b"")
}

fn fail() -> String {
    pframe("fail", &[], b"")
}

#[test]
fn the_age_plugin_uses_the_agent_and_needs_the_password_without_it() {
    let fx = Fx::new();
    let case = fx.age_case("a", "for the plugin");
    // The file key, as the password path finds it.
    let (by_password, _, _) = fx.plugin(&(case.phase1.clone() + &ok()), Some(&fx.v.pw), &[]);
    assert_eq!(heads(&by_password), ["file-key 0", "done"]);
    let file_key = by_password[0].1.clone();
    assert_eq!(file_key.len(), 16);

    // With an agent: no password anywhere, none asked for, the same file key.
    fx.start(&[]);
    let (frames, err, _) = fx.plugin(&(case.phase1.clone() + &ok()), None, &[]);
    assert_eq!(heads(&frames), ["file-key 0", "done"], "{err}");
    assert_eq!(frames[0].1, file_key);

    // NEXUSQ_NO_AGENT=1: the password path; age is asked, and without an answer (`fail`, as
    // age without a terminal) it is an identity error and no key.
    let input = case.phase1.clone() + &fail() + &ok();
    let (frames, _, _) = fx.plugin(&input, None, &[("NEXUSQ_NO_AGENT", "1")]);
    assert_eq!(
        heads(&frames),
        ["request-secret", "error identity 0", "done"]
    );
    assert!(String::from_utf8_lossy(&frames[1].1).contains("no password"));
    // ... and with a password file it decrypts, saying nothing about the agent.
    let (frames, _, _) = fx.plugin(
        &(case.phase1.clone() + &ok()),
        Some(&fx.v.pw),
        &[("NEXUSQ_NO_AGENT", "1")],
    );
    assert_eq!(heads(&frames), ["file-key 0", "done"]);
    assert_eq!(frames[0].1, file_key);
    // "0" or empty leaves the agent on.
    for off in ["0", ""] {
        let (frames, _, _) = fx.plugin(
            &(case.phase1.clone() + &ok()),
            None,
            &[("NEXUSQ_NO_AGENT", off)],
        );
        assert_eq!(heads(&frames), ["file-key 0", "done"], "{off:?}");
    }
    // A file for someone else: the agent is asked, nothing matches, no password is asked.
    let other = Fx::new();
    let theirs = other.age_case("b", "not for me");
    let input = theirs.phase1.replace(
        theirs.phase1.lines().next().unwrap(),
        case.phase1.lines().next().unwrap(),
    );
    let (frames, _, _) = fx.plugin(&input, None, &[]);
    assert_eq!(heads(&frames), ["done"]);
}

#[test]
fn the_age_plugin_falls_back_quickly_from_a_dead_or_wedged_agent() {
    let fx = Fx::new();
    let case = fx.age_case("a", "for the plugin");
    fx.start(&[]);
    let pid = fx.pid();
    std::process::Command::new("kill")
        .args(["-STOP", &pid.to_string()])
        .status()
        .unwrap();
    // Wedged: the status request times out; no password here, so age is asked.
    let input = case.phase1.clone() + &ok() + &fail() + &ok();
    let (frames, _, took) = fx.plugin(&input, None, &[]);
    std::process::Command::new("kill")
        .args(["-CONT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(
        heads(&frames),
        ["msg", "request-secret", "error identity 0", "done"]
    );
    let m = messages(&frames);
    assert!(
        m[0].contains("key agent could not be used") && m[0].contains("did not answer"),
        "{m:?}"
    );

    // Killed: a stale socket, refused at once.
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(wait_until(Duration::from_secs(2), || !alive(pid)));
    let (frames, _, took) = fx.plugin(&input, None, &[]);
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(
        heads(&frames),
        ["msg", "request-secret", "error identity 0", "done"]
    );
    // Mostly "nobody listens"; while the killed agent's last threads exit, its socket may
    // still take the connection and then reset it.
    assert!(
        messages(&frames)[0].contains("key agent could not be used"),
        "{frames:?}"
    );
    // With a password file it decrypts, saying it once.
    let (frames, _, _) = fx.plugin(&(case.phase1.clone() + &ok() + &ok()), Some(&fx.v.pw), &[]);
    assert_eq!(heads(&frames), ["msg", "file-key 0", "done"]);
}

/// Serve `answers` (response bodies) to the next connections on `socket`, one each after
/// reading its request; `None` closes that connection unanswered. Gives up after 10 s
/// without a connection (a client that never came must fail the test, not hang it).
fn stand_in_agent(socket: &Path, answers: Vec<Option<Vec<u8>>>) -> std::thread::JoinHandle<()> {
    let listener = std::os::unix::net::UnixListener::bind(socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        for answer in answers {
            let deadline = Instant::now() + Duration::from_secs(10);
            let mut conn = loop {
                match listener.accept() {
                    Ok((c, _)) => break c,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() > deadline {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => panic!("accept: {e}"),
                }
            };
            conn.set_nonblocking(false).unwrap();
            conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut len = [0u8; 4];
            conn.read_exact(&mut len).unwrap();
            let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
            conn.read_exact(&mut body).unwrap();
            if let Some(a) = answer {
                conn.write_all(&frame(&a)).unwrap();
            }
        }
    })
}

#[test]
fn the_age_plugin_uses_the_password_when_the_agent_stops_half_way_or_serves_another_identity() {
    let fx = Fx::new();
    let case = fx.age_case("a", "for the plugin");
    fx.start(&[]);
    let socket = fx.socket();
    // The real agent's status answer, replayed by a stand-in that then hangs up on the
    // decapsulation request: the agent "died" between the two.
    let status = raw(&socket, &frame(&STATUS)).expect("a status answer");
    fx.cmd().arg("lock").assert().success();
    let folder = socket.parent().unwrap();
    std::fs::create_dir_all(folder).unwrap();
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    let server = stand_in_agent(&socket, vec![Some(status), None]);
    let (frames, _, _) = fx.plugin(&(case.phase1.clone() + &ok() + &ok()), Some(&fx.v.pw), &[]);
    server.join().unwrap();
    assert_eq!(heads(&frames), ["msg", "file-key 0", "done"]);
    let m = messages(&frames);
    assert!(m[0].contains("stopped answering"), "{m:?}");
    std::fs::remove_file(&socket).unwrap();

    // An agent for this path that serves another identity (the vault file was replaced by
    // another vault): not used, said once.
    fx.start(&[]);
    let other = TestVault::new(fx.dir(), "other");
    std::fs::rename(&other.path, &fx.v.path).unwrap();
    let case = fx.age_case("b", "for the other vault");
    let (frames, _, _) = fx.plugin(&(case.phase1 + &ok() + &ok()), Some(&other.pw), &[]);
    assert_eq!(heads(&frames), ["msg", "file-key 0", "done"]);
    assert!(
        messages(&frames)[0].contains("key agent could not be used"),
        "{frames:?}"
    );
}

// The reference age (Go), when NEXUSQ_AGE_BIN names it (`.ci/run` installs Debian's), through
// the plugin with the agent: no password, no terminal.
#[test]
fn reference_age_decrypts_through_the_plugin_with_the_agent() {
    let Some(age) = std::env::var_os("NEXUSQ_AGE_BIN").map(PathBuf::from) else {
        let _ = std::io::stderr().write_all(
            b"\n######## SKIPPED: the reference age with the agent (set NEXUSQ_AGE_BIN) ########\n",
        );
        return;
    };
    let fx = Fx::new();
    let case = fx.age_case("a", "decrypted by age through the agent");
    let plugin_dir = Path::new(PLUGIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        plugin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let stdin = fx.file("age-stdin", "");
    let age_d = |pw: Option<&Path>, no_agent: bool| {
        let mut c = std::process::Command::new("setsid");
        c.arg(&age)
            .arg("-d")
            .arg("-i")
            .arg(&case.identity)
            .arg(&case.file)
            .env("PATH", &path)
            .env("XDG_RUNTIME_DIR", &fx.run)
            .env_remove("NEXUSQ_VAULT")
            .env_remove("NEXUSQ_PASSWORD_FILE")
            .env_remove("NEXUSQ_NO_AGENT")
            .current_dir(fx.dir())
            .stdin(std::fs::File::open(&stdin).unwrap());
        if let Some(pw) = pw {
            c.env("NEXUSQ_PASSWORD_FILE", pw);
        }
        if no_agent {
            c.env("NEXUSQ_NO_AGENT", "1");
        }
        let t = Instant::now();
        let o = c.output().expect("run setsid (util-linux)");
        (o, t.elapsed())
    };
    fx.start(&[]);
    let (o, _) = age_d(None, false);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"decrypted by age through the agent");
    assert!(!stderr(&o).contains("agent"), "{}", stderr(&o));

    // Forced off: the password is needed; with no terminal age cannot ask, a clean failure.
    let (o, took) = age_d(None, true);
    assert!(!o.status.success());
    assert!(o.stdout.is_empty());
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let (o, _) = age_d(Some(&fx.v.pw), true);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"decrypted by age through the agent");

    // Killed: the plugin says so once (age shows the message) and uses the password file.
    let pid = fx.pid();
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(wait_until(Duration::from_secs(2), || !alive(pid)));
    let (o, _) = age_d(Some(&fx.v.pw), false);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"decrypted by age through the agent");
    let e = stderr(&o);
    assert_eq!(e.matches("key agent could not be used").count(), 1, "{e}");
}

// ---------------------------------------------------------------------------------------------
// The agent really stops and keeps nothing it should not (docs/agent.md, docs/security.md
// section 11): a stopped or wedged agent is ended, not just its socket removed; only its own
// socket is removed; its lifetime counts a sleeping phone's time; it holds no descriptor of
// its starter; its key thread's memory is locked; its folder cannot be squatted.

/// The descriptors `/proc/<pid>/fd` lists, as their link targets; None when that folder cannot
/// be read (the agent is not dumpable: only root, with CAP_SYS_PTRACE, may look).
fn open_files(pid: u32) -> Option<Vec<String>> {
    let dir = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    Some(
        dir.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .map(|t| t.display().to_string())
            .collect(),
    )
}

#[test]
fn the_background_agent_keeps_no_descriptor_of_its_starter() {
    let fx = Fx::new();
    // fd 3: the password file (--password-fd 3); fd 4: the write end of a pipe of ours.
    let (reader, writer) = std::io::pipe().unwrap();
    let pipe_inode = rustix::fs::fstat(&reader).unwrap().st_ino;
    let mut c = std::process::Command::new("bash");
    c.arg("-c")
        .arg(r#"exec 3<"$1" 4>&0 </dev/null; exec "$0" --vault "$2" agent start --password-fd 3"#)
        .arg(BIN)
        .arg(&fx.v.pw)
        .arg(&fx.v.path)
        .env("XDG_RUNTIME_DIR", &fx.run)
        .env("NO_COLOR", "1")
        .env_remove("NEXUSQ_VAULT")
        .stdin(std::process::Stdio::from(writer));
    let o = c.output().unwrap();
    drop(c);
    assert!(o.status.success(), "{}", stderr(&o));
    let pid = fx.pid();
    // Every write end is closed once `start` has exited, unless the agent kept one: then the
    // pipe never reports a hang-up.
    let mut fds = [rustix::event::PollFd::new(
        &reader,
        rustix::event::PollFlags::IN,
    )];
    let timeout = rustix::event::Timespec {
        tv_sec: 5,
        tv_nsec: 0,
    };
    let ready = rustix::event::poll(&mut fds, Some(&timeout)).unwrap();
    assert_eq!(
        ready, 1,
        "the agent still holds the write end of its starter's pipe"
    );
    assert!(fds[0].revents().contains(rustix::event::PollFlags::HUP));
    match open_files(pid) {
        Some(files) => {
            let pw = std::fs::canonicalize(&fx.v.pw)
                .unwrap()
                .display()
                .to_string();
            assert!(!files.contains(&pw), "the password file is open: {files:?}");
            let pipe = format!("pipe:[{pipe_inode}]");
            assert!(!files.contains(&pipe), "the pipe is open: {files:?}");
        }
        None => eprintln!(
            "\n######## PARTLY SKIPPED: /proc/{pid}/fd of the non-dumpable agent is readable \
             only by root; the pipe was checked, the password file not ########\n"
        ),
    }
    // It serves as usual.
    fx.file("d", "x");
    let o = fx.detached(&["sign", "d"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The memory mapping (its smaps entry) that holds `addr` in process `pid`.
fn mapping_of(pid: u32, addr: u64) -> Option<String> {
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).ok()?;
    let mut current: Option<(bool, String)> = None;
    let mut found = None;
    for line in smaps.lines() {
        let head = line.split_whitespace().next().unwrap_or("");
        if let Some((lo, hi)) = head.split_once('-')
            && let (Ok(lo), Ok(hi)) = (u64::from_str_radix(lo, 16), u64::from_str_radix(hi, 16))
        {
            if let Some((true, text)) = current.take() {
                found = Some(text);
            }
            current = Some((lo <= addr && addr < hi, String::new()));
        }
        if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    if let Some((true, text)) = current {
        found = Some(text);
    }
    found
}

#[test]
fn the_key_thread_runs_on_locked_memory() {
    let fx = Fx::new();
    fx.start(&[]);
    let status = fx.status().unwrap();
    let pid = status["pid"].as_u64().unwrap() as u32;
    if status["memory_locked"] != true {
        eprintln!(
            "\n######## SKIPPED: the key thread's locked stack: mlockall failed here \
             (RLIMIT_MEMLOCK too small, no CAP_IPC_LOCK) ########\n"
        );
        return;
    }
    let tasks: Vec<u32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    let key_thread = tasks.iter().copied().find(|t| {
        std::fs::read_to_string(format!("/proc/{pid}/task/{t}/comm"))
            .is_ok_and(|c| c.trim() == "nexusq-agent-ke")
    });
    let Some(tid) = key_thread else {
        panic!("the agent has no key thread (threads: {tasks:?})");
    };
    // An idle thread waits in a system call; its stack pointer is the second to last field.
    let syscall = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/syscall"));
    let Ok(syscall) = syscall else {
        eprintln!(
            "\n######## SKIPPED: the key thread's stack pointer: /proc/{pid}/task/{tid}/syscall \
             is readable only with CAP_SYS_PTRACE ########\n"
        );
        return;
    };
    let fields: Vec<&str> = syscall.split_whitespace().collect();
    assert!(fields.len() >= 3, "{syscall}");
    let sp = u64::from_str_radix(fields[fields.len() - 2].trim_start_matches("0x"), 16).unwrap();
    let mapping = mapping_of(pid, sp).expect("the stack's mapping");
    let flags = mapping
        .lines()
        .find_map(|l| l.strip_prefix("VmFlags:"))
        .unwrap_or("");
    assert!(
        flags.split_whitespace().any(|f| f == "lo"),
        "the key thread's stack is not locked:\n{mapping}"
    );
}

/// libfaketime, which `.ci/run` installs (Debian's `faketime`): None, said loudly, without it.
fn libfaketime() -> Option<PathBuf> {
    let found = [
        "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.exists());
    if found.is_none() {
        eprintln!(
            "\n######## SKIPPED: the wall-clock expiry under libfaketime (install Debian's \
             faketime) ########\n"
        );
    }
    found
}

#[test]
fn the_agent_stops_when_the_wall_clock_passes_its_expiry() {
    let Some(lib) = libfaketime() else {
        return;
    };
    let fx = Fx::new();
    // The agent's wall clock (libc's CLOCK_REALTIME) is read from this file at every call;
    // its monotonic and boot clocks are left alone (and rustix reads them without libc).
    let clock = fx.file("faketime", "+0\n");
    let o = fx
        .cmd()
        .args([
            "agent",
            "start",
            "--idle",
            "1h",
            "--max",
            "1h",
            "--password-file",
        ])
        .arg(&fx.v.pw)
        .env("LD_PRELOAD", &lib)
        .env("FAKETIME_TIMESTAMP_FILE", &clock)
        .env("FAKETIME_NO_CACHE", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (pid, socket) = (fx.pid(), fx.socket());
    // Two hours later by the wall clock only (a phone whose other clocks stood still): past
    // the expiry `status` reports.
    std::fs::write(&clock, "+2h\n").unwrap();
    assert!(
        wait_until(Duration::from_secs(10), || !alive(pid)),
        "the agent outlived its wall-clock expiry"
    );
    assert!(!socket.exists());
    fx.file("d", "x");
    let o = fx.detached(&["sign", "d"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Is this test run by root? Else it says loudly that `what` is skipped.
fn root_or_skip(what: &str) -> bool {
    if rustix::process::getuid().is_root() {
        return true;
    }
    eprintln!("\n######## SKIPPED {what}: not root ########\n");
    false
}

/// `setpriv` (util-linux) runs a command as another uid with no passwd entry needed.
fn as_uid(uid: u32, program: &str) -> std::process::Command {
    let mut c = std::process::Command::new("setpriv");
    c.arg(format!("--reuid={uid}"))
        .arg(format!("--regid={uid}"))
        .arg("--clear-groups")
        .arg(program);
    c
}

#[test]
fn without_xdg_runtime_dir_another_users_folder_in_tmp_does_not_block_the_agent() {
    if !root_or_skip("a squatted agent folder in a shared temporary folder") {
        return;
    }
    let mut fx = Fx::new();
    // A shared temporary folder (mode 1777, like /tmp) where uid 4242, a real process of
    // another user, made the folder the agent used to take: $TMPDIR/nexusq-<our uid>.
    std::fs::set_permissions(fx.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let tmp = fx.dir().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let squatted = tmp.join(format!("nexusq-{}", rustix::process::getuid().as_raw()));
    let o = as_uid(4242, "mkdir")
        .arg("-m")
        .arg("0700")
        .arg(&squatted)
        .output()
        .expect("run setpriv (util-linux)");
    assert!(o.status.success(), "{}", stderr(&o));
    use std::os::unix::fs::MetadataExt;
    assert_eq!(std::fs::metadata(&squatted).unwrap().uid(), 4242);
    let home = fx.dir().join("home");
    std::fs::create_dir(&home).unwrap();
    fx.env = vec![
        ("XDG_RUNTIME_DIR", None),
        ("XDG_STATE_HOME", None),
        ("HOME", Some(home.clone())),
        ("TMPDIR", Some(tmp.clone())),
    ];
    fx.start(&["--idle", "1m"]);
    let socket = fx.socket();
    let folder = home.join(".local/state/nexusq/agent");
    assert_eq!(socket.parent(), Some(folder.as_path()));
    assert_eq!(
        std::fs::metadata(&folder).unwrap().mode() & 0o777,
        0o700,
        "{}",
        folder.display()
    );
    // Commands find it there and sign without a password.
    fx.file("d", "signed through the agent in the home folder\n");
    let o = fx.detached(&["sign", "d", "-o", "d.sig"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fx.verify("d", "d.sig")["valid"], true);
    // XDG_STATE_HOME, when set, is used instead.
    fx.cmd().arg("lock").assert().success();
    let state = fx.dir().join("state");
    fx.env.push(("XDG_STATE_HOME", Some(state.clone())));
    fx.start(&["--idle", "1m"]);
    assert_eq!(
        fx.socket().parent(),
        Some(state.join("nexusq/agent").as_path())
    );
    let o = fx.detached(&["sign", "d"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_socket_path_too_long_for_a_socket_address_is_refused_with_a_hint() {
    let mut fx = Fx::new();
    let long = fx.dir().join("r".repeat(60)).join("u".repeat(60));
    std::fs::create_dir_all(&long).unwrap();
    std::fs::set_permissions(&long, std::fs::Permissions::from_mode(0o700)).unwrap();
    fx.env.push(("XDG_RUNTIME_DIR", Some(long)));
    let o = fx
        .cmd()
        .args(["agent", "start", "--password-file"])
        .arg(&fx.v.pw)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("107"), "{e}");
    assert!(e.contains("XDG_RUNTIME_DIR"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

fn signal(sig: &str, pid: u32) {
    let ok = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} {pid}");
}

/// Run `cmd`; its output, or None if it has not ended within `limit` (it is killed then).
fn within(limit: Duration, cmd: &mut std::process::Command) -> Option<std::process::Output> {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    if !wait_until(limit, || child.try_wait().ok().flatten().is_some()) {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    child.wait_with_output().ok()
}

impl Fx {
    /// `nexusq lock`, killed if it has not ended within `limit`.
    fn lock_within(&self, limit: Duration) -> Option<std::process::Output> {
        let mut c = std::process::Command::new(BIN);
        c.arg("--vault")
            .arg(&self.v.path)
            .arg("lock")
            .env("NO_COLOR", "1")
            .env_remove("NEXUSQ_VAULT");
        self.apply_env(&mut c);
        within(limit, &mut c)
    }

    /// `nexusq lock`; a failed test if it hangs (30 s).
    fn lock(&self) -> std::process::Output {
        self.lock_within(Duration::from_secs(30))
            .expect("`nexusq lock` hung for 30 s")
    }
}

#[test]
fn lock_ends_a_stopped_agent_and_claims_no_removal_it_did_not_do() {
    let fx = Fx::new();
    fx.start(&[]);
    let (pid, socket) = (fx.pid(), fx.socket());
    // A frozen Termux process: it still completes connections, and never answers.
    signal("-STOP", pid);
    let o = fx.lock();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!("pid {pid}")) && e.contains("did not answer"),
        "{e}"
    );
    assert!(e.contains("ended it"), "{e}");
    assert!(!e.contains("removed"), "{e}");
    assert!(!alive(pid), "lock succeeded, but the agent still runs");
    assert!(!socket.exists());
    assert!(fx.sockets().is_empty(), "{:?}", fx.sockets());
    // Resumed, nothing signs without a password any more.
    let _ = std::process::Command::new("kill")
        .args(["-CONT", &pid.to_string()])
        .status();
    fx.file("d", "x");
    let o = fx.detached(&["sign", "d"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn lock_returns_and_ends_a_stopped_agent_whose_backlog_is_full() {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    let fx = Fx::new();
    fx.start(&[]);
    let (pid, socket) = (fx.pid(), fx.socket());
    signal("-STOP", pid);
    // Fill its listen backlog: then a connection fails at once (EAGAIN) instead of queueing.
    let addr = SocketAddrUnix::new(&socket).unwrap();
    let mut held = Vec::new();
    let full = loop {
        let fd = rustix::net::socket_with(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
            None,
        )
        .unwrap();
        match rustix::net::connect(&fd, &addr) {
            Ok(()) => held.push(fd),
            Err(rustix::io::Errno::AGAIN) => break true,
            Err(e) => panic!("connect: {e}"),
        }
        if held.len() > 5000 {
            break false;
        }
    };
    assert!(
        full,
        "the backlog never filled ({} connections)",
        held.len()
    );
    let o = fx.lock();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(e.contains(&format!("pid {pid}")), "{e}");
    assert!(!alive(pid), "lock succeeded, but the agent still runs");
    drop(held);
    assert!(!socket.exists());
}

#[test]
fn start_ends_a_stopped_agent_instead_of_orphaning_it() {
    let fx = Fx::new();
    fx.start(&[]);
    let old = fx.pid();
    signal("-STOP", old);
    let o = fx.start(&[]);
    let e = stderr(&o);
    assert!(
        e.contains(&format!("pid {old}")) && e.contains("ended it"),
        "{e}"
    );
    assert!(
        !alive(old),
        "the stopped agent was left running with its keys"
    );
    let new = fx.pid();
    assert_ne!(new, old);
    // The same with --replace, for an agent that answers and one that does not.
    fx.start(&["--replace"]);
    assert!(wait_until(Duration::from_secs(2), || !alive(new)));
    let newer = fx.pid();
    signal("-STOP", newer);
    fx.start(&["--replace"]);
    assert!(!alive(newer));
    fx.file("d", "x");
    let o = fx.detached(&["sign", "d"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn lock_ends_an_agent_that_lost_its_socket() {
    let fx = Fx::new();
    fx.start(&[]);
    let (pid, socket) = (fx.pid(), fx.socket());
    std::fs::remove_file(&socket).unwrap();
    let o = fx.lock();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!("pid {pid}")) && e.contains("lost its socket"),
        "{e}"
    );
    assert!(
        !alive(pid),
        "an agent without a socket still holds its keys"
    );
}

#[test]
fn lock_never_signals_a_process_that_is_not_the_agent() {
    let fx = Fx::new();
    fx.start(&[]);
    let socket = fx.socket();
    fx.lock();
    // This test process listens on the agent's socket (and never answers); no pid file.
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    std::fs::set_permissions(
        socket.parent().unwrap(),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let o = fx.lock();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(5), "{e}");
    assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
    assert!(!e.contains("removed"), "{e}");
    assert!(socket.exists());
}

#[test]
fn an_agent_removes_only_its_own_socket_and_pid_file() {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| {
        let m = std::fs::symlink_metadata(p).unwrap();
        (m.dev(), m.ino())
    };
    // The signal path (SIGTERM) and the normal one (idle timeout).
    for by_signal in [true, false] {
        let fx = Fx::new();
        fx.start(&["--idle", "3s"]);
        let (pid, socket) = (fx.pid(), fx.socket());
        let pid_file = socket.with_extension("pid");
        assert!(pid_file.exists(), "no pid file beside {}", socket.display());
        // Its socket and pid file are replaced (moved aside; another process's in their
        // place) while it runs.
        std::fs::rename(&socket, socket.with_extension("moved")).unwrap();
        let _theirs = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let other_pid_file = socket.with_extension("other");
        std::fs::write(&other_pid_file, "1 1\n").unwrap();
        std::fs::rename(&other_pid_file, &pid_file).unwrap();
        let (socket_id, pid_file_id) = (id(&socket), id(&pid_file));
        if by_signal {
            signal("-TERM", pid);
        }
        assert!(
            wait_until(Duration::from_secs(8), || !alive(pid)),
            "the agent did not end"
        );
        assert!(
            socket.exists(),
            "by_signal {by_signal}: it removed another's socket"
        );
        assert_eq!(id(&socket), socket_id);
        assert!(
            pid_file.exists(),
            "by_signal {by_signal}: it removed another's pid file"
        );
        assert_eq!(id(&pid_file), pid_file_id);
    }
}

#[test]
fn the_agent_of_a_revoked_identity_refuses_to_sign_and_still_decapsulates() {
    let fx = Fx::new();
    // Sent to this identity before it was revoked.
    let export = fx.v.export();
    let enc = fx
        .cmd()
        .current_dir(fx.dir())
        .args(["encapsulate", "-o", "kem.ct", "--to"])
        .arg(&export)
        .output()
        .unwrap();
    assert!(enc.status.success(), "{}", stderr(&enc));
    let statement = format!("{}.revocation.asc", fx.v.path.display());
    fx.cmd()
        .args(["identity", "revoke", "--yes", &statement, "--password-file"])
        .arg(&fx.v.pw)
        .assert()
        .success();
    fx.start(&[]);
    fx.file("d", "x");
    // What `nexusq sign` says without the agent ...
    let o = fx
        .cmd()
        .current_dir(fx.dir())
        .args(["sign", "d", "--no-agent", "--password-file"])
        .arg(&fx.v.pw)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    let said = e.lines().next().unwrap().strip_prefix("error: ").unwrap();
    assert!(said.contains("revoked"), "{e}");
    // ... the agent says too, to a sign request on its socket.
    let mut sign = vec![1u8, 0x02];
    sign.extend_from_slice(&[7; 64]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    sign.extend_from_slice(&now.to_be_bytes());
    let body = raw(&fx.socket(), &frame(&sign)).expect("an answer");
    assert_eq!(body[1], 0x80, "the agent signed for a revoked identity");
    let len = u16::from_be_bytes([body[2], body[3]]) as usize;
    assert_eq!(std::str::from_utf8(&body[4..4 + len]).unwrap(), said);
    // It still decapsulates: the owner opens what was sent before, with no password.
    let o = fx.detached(&["decapsulate", "kem.ct"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, enc.stdout, "the same shared secret");
    assert!(fx.status().is_some(), "the refusal stopped the agent");
}

//! age through the real binaries (docs/age.md): `identity export --age`, `identity show --age`,
//! `encrypt` to age recipients, `decrypt` of age files (vault and `-i`), the 19 hybrid CCTV
//! vectors with `-i`, and `age-plugin-nexusq` in a scripted conversation.

use crate::common;
use crate::common::{TestVault, bin};
use crate::plugin_frames;
use crate::plugin_frames::{frame, stanza_frames};
use nexusq_core::format::age::recipient::PluginIdentity;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PLUGIN: &str = env!("CARGO_BIN_EXE_age-plugin-nexusq");

fn age_recipient(v: &TestVault) -> String {
    let out = v
        .cmd()
        .args(["identity", "export", "--age", "--password-file"])
        .arg(&v.pw)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("age1pq1") && text.ends_with('\n'));
    text.trim().to_string()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn export_age_text_json_and_file_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "a");
    let r = age_recipient(&v);
    let out = v
        .cmd()
        .args(["--json", "identity", "export", "--age", "--password-file"])
        .arg(&v.pw)
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["age_recipient"], r.as_str());
    assert_eq!(j["generation"], 1);
    assert_eq!(j["fingerprint"], v.fingerprint().as_str());
    let file = dir.path().join("r.txt");
    v.cmd()
        .args(["identity", "export", "--age", "-o"])
        .arg(&file)
        .args(["--password-file"])
        .arg(&v.pw)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), format!("{r}\n"));
    // Someone's nexusq export gives the same recipient.
    let shown = bin()
        .args(["identity", "show", "--age"])
        .arg(v.export())
        .output()
        .unwrap();
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert_eq!(String::from_utf8(shown.stdout).unwrap().trim(), r);
    // A revoked export is refused, as `encrypt` refuses it.
    let statement = format!("{}.revocation.asc", v.path.display());
    let revoked = dir.path().join("revoked.pub");
    v.cmd()
        .args(["identity", "revoke", "--yes", &statement, "--password-file"])
        .arg(&v.pw)
        .arg("-o")
        .arg(&revoked)
        .assert()
        .success();
    let o = bin()
        .args(["identity", "show", "--age"])
        .arg(&revoked)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("revoked"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn encrypt_to_age_recipients_and_decrypt_with_the_vault() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "a");
    let b = TestVault::new(dir.path(), "b");
    let ra = age_recipient(&a);
    let plain: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 251) as u8).collect();
    let input = dir.path().join("plain");
    std::fs::write(&input, &plain).unwrap();
    let rfile = dir.path().join("recipients.txt");
    std::fs::write(&rfile, format!("# b\n\n{}\n", age_recipient(&b))).unwrap();

    // --to age1pq1… plus -R file, armored; then --age with a nexusq export, binary.
    let armored = dir.path().join("m.age.asc");
    bin()
        .args(["encrypt", "--armor", "--to", &ra, "-R"])
        .arg(&rfile)
        .arg("-o")
        .arg(&armored)
        .arg(&input)
        .assert()
        .success();
    let text = std::fs::read_to_string(&armored).unwrap();
    assert!(text.starts_with("-----BEGIN AGE ENCRYPTED FILE-----\n"));
    let binary = dir.path().join("m.age");
    bin()
        .args(["encrypt", "--age", "--to"])
        .arg(a.export())
        .arg("-o")
        .arg(&binary)
        .arg(&input)
        .assert()
        .success();
    assert!(
        std::fs::read(&binary)
            .unwrap()
            .starts_with(b"age-encryption.org/v1\n")
    );

    for (v, file) in [(&a, &armored), (&b, &armored), (&a, &binary)] {
        let out = dir.path().join("out");
        let _ = std::fs::remove_file(&out);
        v.cmd()
            .args(["decrypt", "--password-file"])
            .arg(&v.pw)
            .arg("-o")
            .arg(&out)
            .arg(file)
            .assert()
            .success();
        assert_eq!(std::fs::read(&out).unwrap(), plain);
    }
    // Armored with CRLF, from stdin, to stdout, native backend.
    let crlf = text.replace('\n', "\r\n");
    let out = b
        .cmd()
        .args(["--backend", "native", "decrypt", "--password-file"])
        .arg(&b.pw)
        .write_stdin(crlf)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, plain);
    // b is not a recipient of the binary file: no match, exit 1, nothing left behind.
    let out_path = dir.path().join("never");
    let o = b
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&b.pw)
        .arg("-o")
        .arg(&out_path)
        .arg(&binary)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not encrypted to any"),
        "{}",
        stderr(&o)
    );
    assert!(!out_path.exists());
    assert_eq!(
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".tmp"))
            .count(),
        0
    );
}

#[test]
fn classic_and_ssh_recipients_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p");
    std::fs::write(&input, b"x").unwrap();
    for bad in [
        "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHsKLqeplhpW+uObz5dvMgjz1OxfM/XXUB+VHtZ6isGN",
    ] {
        let o = bin()
            .args(["encrypt", "--to", bad])
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("post-quantum") && e.contains("hint:"), "{e}");
        assert!(o.stdout.is_empty());
    }
    // Mixing one in a recipients file is refused too, naming the line.
    let seed_vault = TestVault::new(dir.path(), "m");
    let rf = dir.path().join("r");
    std::fs::write(
        &rf,
        format!(
            "{}\nage1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj\n",
            age_recipient(&seed_vault)
        ),
    )
    .unwrap();
    let o = bin()
        .args(["encrypt", "-R"])
        .arg(&rf)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    // --expect-fingerprint cannot vouch for a bare age1pq1 key.
    let o = bin()
        .args(["encrypt", "--expect-fingerprint", &seed_vault.fingerprint()])
        .args(["--to", &age_recipient(&seed_vault)])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // But it still applies to exports written as age.
    let other = TestVault::new(dir.path(), "o");
    let o = bin()
        .args([
            "encrypt",
            "--age",
            "--expect-fingerprint",
            &seed_vault.fingerprint(),
        ])
        .arg("--to")
        .arg(other.export())
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

#[test]
fn a_file_to_generation_1_decrypts_after_two_rotations_until_retired() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "r");
    let r1 = age_recipient(&v);
    let file = dir.path().join("old.age");
    bin()
        .args(["encrypt", "--to", &r1, "-o"])
        .arg(&file)
        .write_stdin("for generation one")
        .assert()
        .success();
    for _ in 0..2 {
        v.cmd()
            .args(["rotate", "--password-file"])
            .arg(&v.pw)
            .assert()
            .success();
    }
    assert_ne!(age_recipient(&v), r1);
    let o = v
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"for generation one");
    assert!(stderr(&o).contains("generation 1"), "{}", stderr(&o));
    v.cmd()
        .args([
            "rotate",
            "--yes",
            "--retire-older-than",
            "3",
            "--password-file",
        ])
        .arg(&v.pw)
        .assert()
        .success();
    let o = v
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

// ---------------------------------------------------------------------------------------------
// The 19 hybrid CCTV vectors through `nexusq decrypt -i`.

fn vectors_dir() -> std::path::PathBuf {
    nexusq_testkit::vector_path("cctv/age/testdata")
}

#[test]
fn the_19_hybrid_vectors_through_the_cli_with_identity_files() {
    nexusq_testkit::skip_without_vectors!();
    let dir = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("hybrid") || n == "armor_hybrid")
        .collect();
    names.sort();
    assert_eq!(names.len(), 19);
    for name in &names {
        let raw = std::fs::read(vectors_dir().join(name)).unwrap();
        let split = raw.windows(2).position(|w| w == b"\n\n").unwrap();
        let head = std::str::from_utf8(&raw[..split]).unwrap();
        let mut body = raw[split + 2..].to_vec();
        let get = |k: &str| {
            head.lines()
                .filter_map(|l| l.strip_prefix(k))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        if get("compressed: ").first().map(String::as_str) == Some("zlib") {
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(&body[..])
                .read_to_end(&mut out)
                .unwrap();
            body = out;
        }
        let expect = get("expect: ").remove(0);
        let payload = get("payload: ").first().cloned();
        let ids = dir.path().join(format!("{name}.key"));
        std::fs::write(&ids, get("identity: ").join("\n") + "\n").unwrap();
        let file = dir.path().join(format!("{name}.age"));
        std::fs::write(&file, &body).unwrap();

        // To stdout: what is released must match the payload hash (success and payload
        // failure); with -o, nothing is left behind on failure.
        let o = bin()
            .args(["decrypt", "-i"])
            .arg(&ids)
            .arg(&file)
            .output()
            .unwrap();
        let e = stderr(&o);
        assert!(!e.contains("panicked"), "{name}: {e}");
        let out_path = dir.path().join(format!("{name}.out"));
        let o2 = bin()
            .args(["decrypt", "-i"])
            .arg(&ids)
            .arg("-o")
            .arg(&out_path)
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), o2.status.code(), "{name}");
        let words = match expect.as_str() {
            "success" => {
                assert!(o.status.success(), "{name}: {e}");
                assert_eq!(
                    Some(hex::encode(Sha256::digest(&o.stdout))),
                    payload,
                    "{name}"
                );
                assert_eq!(std::fs::read(&out_path).unwrap(), o.stdout, "{name}");
                continue;
            }
            "no match" => "not encrypted to any",
            "header failure" => "malformed age header",
            "HMAC failure" => "header MAC",
            "payload failure" => "chunk",
            "armor failure" => "armor",
            other => panic!("{name}: {other}"),
        };
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(e.contains(words) && e.contains("hint:"), "{name}: {e}");
        assert!(!out_path.exists(), "{name}: output left behind");
        if expect == "payload failure" {
            assert_eq!(
                Some(hex::encode(Sha256::digest(&o.stdout))),
                payload,
                "{name}"
            );
        } else {
            assert!(o.stdout.is_empty(), "{name}");
        }
    }
}

#[test]
fn identity_files_need_no_vault_and_bad_ones_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let id = dir.path().join("id");
    std::fs::write(&id, "# nothing\nAGE-SECRET-KEY-PQ-1NOTAKEY\n").unwrap();
    let file = dir.path().join("f.age");
    std::fs::write(
        &file,
        b"age-encryption.org/v1\n-> X25519 AAAA\n\n--- AAAA\n",
    )
    .unwrap();
    let o = bin()
        .args(["decrypt", "-i"])
        .arg(&id)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("line 2"));
    // -i with a nexusq file.
    let nx = dir.path().join("n");
    std::fs::write(&nx, b"NXQF\x01").unwrap();
    std::fs::write(
        &id,
        "AGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG\n",
    )
    .unwrap();
    let o = bin()
        .args(["decrypt", "-i"])
        .arg(&id)
        .arg(&nx)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A passphrase file is "not supported", exit 1, before anything else (the testkit's).
    if !nexusq_testkit::available() {
        return;
    }
    let scrypt = std::fs::read(vectors_dir().join("scrypt")).unwrap();
    let split = scrypt.windows(2).position(|w| w == b"\n\n").unwrap();
    std::fs::write(&file, &scrypt[split + 2..]).unwrap();
    let o = bin()
        .args(["decrypt", "-i"])
        .arg(&id)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("passphrase"), "{}", stderr(&o));
}

// ---------------------------------------------------------------------------------------------
// age-plugin-nexusq, scripted: the frames age would send, all written up front.

fn run_plugin(
    env_pw: Option<&Path>,
    vault: &Path,
    input: &str,
) -> (std::process::ExitStatus, String, String) {
    let mut c = Command::new(PLUGIN);
    c.arg("--age-plugin=identity-v1")
        .env_remove("NEXUSQ_PASSWORD_FILE")
        .env("NEXUSQ_VAULT", vault);
    if let Some(p) = env_pw {
        c.env("NEXUSQ_PASSWORD_FILE", p);
    }
    let out = common::pipe_through(&mut c, input);
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr(&out),
    )
}

#[test]
fn plugin_binary_scripted_conversations() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "p");
    let r = age_recipient(&v);
    let o = bin()
        .args(["encrypt", "--to", &r])
        .write_stdin("through the plugin")
        .output()
        .unwrap();
    let file = o.stdout;
    let id = v
        .cmd()
        .args(["identity", "export", "--age-plugin-identity"])
        .output()
        .unwrap();
    assert!(id.status.success(), "{}", stderr(&id));
    let id = String::from_utf8(id.stdout).unwrap().trim().to_string();
    assert!(id.starts_with("AGE-PLUGIN-NEXUSQ-1"), "{id}");
    let phase1 = format!(
        "{}{}{}{}",
        frame("add-identity", &[&id], b""),
        frame("grease-me", &["x"], b"junk"),
        stanza_frames(&file, "0"),
        frame("done", &[], b"")
    );

    // 1. Password from NEXUSQ_PASSWORD_FILE: one file-key frame, then done.
    let (st, out, err) = run_plugin(
        Some(&v.pw),
        &v.path,
        &(phase1.clone() + &frame("ok", &[], b"")),
    );
    assert!(st.success(), "{err}");
    assert!(out.starts_with("-> file-key 0\n"), "{out}");
    assert!(out.ends_with("-> done\n\n"), "{out}");

    // 2. No password file: the plugin asks age (request-secret); age answers.
    let password = std::fs::read_to_string(&v.pw).unwrap();
    let answers = frame("ok", &[], password.trim_end().as_bytes()) + &frame("ok", &[], b"");
    let (st, out, err) = run_plugin(None, &v.path, &(phase1.clone() + &answers));
    assert!(st.success(), "{err}");
    assert!(out.starts_with("-> request-secret\n"), "{out}");
    assert!(out.contains("-> file-key 0\n"), "{out}");

    // 3. A wrong password: an identity error that age shows, no key, no hang.
    let answers = frame("ok", &[], b"not the password") + &frame("ok", &[], b"");
    let (st, out, err) = run_plugin(None, &v.path, &(phase1.clone() + &answers));
    assert!(st.success(), "{err}");
    assert!(
        out.contains("-> error identity 0\n") && !out.contains("file-key"),
        "{out}"
    );

    // 4. Only unknown stanza types: nothing asked, just done.
    let other = format!(
        "{}{}{}",
        frame("add-identity", &[&id], b""),
        frame("recipient-stanza", &["0", "example.com/enigma"], b"x"),
        frame("done", &[], b"")
    );
    let (st, out, _) = run_plugin(None, &v.path, &other);
    assert!(st.success());
    assert_eq!(out, "-> done\n\n");

    // 5. A malformed frame: exit 1 with a message, no panic.
    let (st, out, err) = run_plugin(None, &v.path, "-> add-identity x\r\n\n");
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(
        err.contains("protocol error") && !err.contains("panicked"),
        "{err}"
    );
    assert!(out.is_empty());

    // 6. An unknown state machine is refused.
    let o = Command::new(PLUGIN)
        .arg("--age-plugin=recipient-v1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

/// The phase 1 an age client sends for `file` (one of `v`'s age files) to the plugin identity
/// `id`.
fn phase1_for(id: &str, file: &[u8]) -> String {
    format!(
        "{}{}{}",
        frame("add-identity", &[id], b""),
        stanza_frames(file, "0"),
        frame("done", &[], b"")
    )
}

/// An age file to `v`'s own age recipient.
fn age_file_to(v: &TestVault) -> Vec<u8> {
    let o = bin()
        .args(["encrypt", "--to", &age_recipient(v)])
        .write_stdin("for the plugin")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    o.stdout
}

/// The plugin's answer to a client whose reply to `request-secret` is 200 MB long: a protocol
/// error once 64 KiB of it are read, never the whole reply in memory.
#[test]
fn plugin_refuses_a_200_mb_reply_after_reading_64_kib() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "p");
    let file = age_file_to(&v);
    let id = PluginIdentity {
        vault: Some(v.path.as_os_str().as_encoded_bytes().to_vec()),
    }
    .encode();
    let head = phase1_for(&id, &file) + "-> ok\n";
    let mut child = Command::new(PLUGIN)
        .arg("--age-plugin=identity-v1")
        .env_remove("NEXUSQ_PASSWORD_FILE")
        .env("NEXUSQ_NO_AGENT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The body, 64 KiB of base64 lines at a time, until the plugin stops reading (EPIPE).
    let feeder = std::thread::spawn(move || {
        let chunk = format!("{}\n", "A".repeat(64)).repeat(1008);
        let mut sent = 0u64;
        if stdin.write_all(head.as_bytes()).is_err() {
            return sent;
        }
        while sent < 200 << 20 && stdin.write_all(chunk.as_bytes()).is_ok() {
            sent += chunk.len() as u64;
        }
        sent
    });
    let out = wait_within(child, 60);
    let sent = feeder.join().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("protocol error: a reply of the client is longer than 64 KiB"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("-> request-secret\n"));
    // What the pipe and the plugin's buffer hold, past the 64 KiB read.
    assert!(sent < 1 << 20, "the plugin took {sent} bytes of the reply");
}

/// `child`'s output, killed (and the test failed) if it runs `secs` seconds.
fn wait_within(mut child: std::process::Child, secs: u64) -> std::process::Output {
    let read = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut b);
            }
            b
        })
    };
    let stdout = read(child.stdout.take().map(|s| Box::new(s) as _));
    let stderr = read(child.stderr.take().map(|s| Box::new(s) as _));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {secs} s, killed (it hangs)");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// An identity naming a vault that is a FIFO: age is told at once (an identity error saying
/// what the file is), the plugin does not wait for a writer.
#[test]
fn plugin_refuses_a_vault_that_is_a_fifo_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "p");
    let file = age_file_to(&v);
    let fifo = dir.path().join("vault-pipe");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    let id = PluginIdentity {
        vault: Some(fifo.as_os_str().as_encoded_bytes().to_vec()),
    }
    .encode();
    let out = common::output_within(
        assert_cmd::Command::new(PLUGIN)
            .arg("--age-plugin=identity-v1")
            .env_remove("NEXUSQ_PASSWORD_FILE")
            .env("NEXUSQ_NO_AGENT", "1")
            .write_stdin(phase1_for(&id, &file) + &frame("ok", &[], b"")),
        30,
        "age-plugin-nexusq with a FIFO as the vault",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let said = plugin_frames::said(&String::from_utf8_lossy(&out.stdout));
    let tags: Vec<&str> = said.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tags, ["error identity 0", "done"]);
    let why = String::from_utf8_lossy(&said[0].1);
    assert!(
        why.contains("is not a vault file: it is a named pipe (FIFO), not a regular file"),
        "{why}"
    );
}

// ---------------------------------------------------------------------------------------------
// The reference age (Go) when it is at hand: `NEXUSQ_AGE_BIN` names it (`.ci/run` installs
// Debian's). Any age with plugin support runs age-plugin-nexusq; age 1.3 or later also
// encrypts to and decrypts from nexusq's age1pq1 keys directly.

fn age_bin() -> Option<PathBuf> {
    let bin = std::env::var_os("NEXUSQ_AGE_BIN").map(PathBuf::from);
    if bin.is_none() {
        use std::io::Write;
        let _ = std::io::stderr().write_all(
            b"\n######## SKIPPED: the reference age tests (set NEXUSQ_AGE_BIN to an age binary) ########\n",
        );
    }
    bin
}

#[test]
fn reference_age_decrypts_through_the_plugin_and_interoperates() {
    let Some(age) = age_bin() else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "ref");
    let r = age_recipient(&v);
    let file = dir.path().join("to-vault.age");
    bin()
        .args(["encrypt", "--armor", "--to", &r, "-o"])
        .arg(&file)
        .write_stdin("decrypted by age through the plugin")
        .assert()
        .success();
    let id = dir.path().join("plugin-identity.txt");
    v.cmd()
        .args(["identity", "export", "--age-plugin-identity", "-o"])
        .arg(&id)
        .assert()
        .success();
    let plugin_dir = Path::new(PLUGIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        plugin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run_age = |args: &[&std::ffi::OsStr], pw: Option<&Path>| {
        let mut c = Command::new(&age);
        c.args(args)
            .env("PATH", &path)
            .env_remove("NEXUSQ_VAULT")
            .stdin(Stdio::null());
        match pw {
            Some(p) => c.env("NEXUSQ_PASSWORD_FILE", p),
            None => c.env_remove("NEXUSQ_PASSWORD_FILE"),
        };
        c.output().unwrap()
    };
    let o = run_age(
        &[
            "-d".as_ref(),
            "-i".as_ref(),
            id.as_os_str(),
            file.as_os_str(),
        ],
        Some(&v.pw),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"decrypted by age through the plugin");
    // A wrong password: age reports the plugin's error, exit non-zero, no hang.
    let bad = common::private_file(&dir.path().join("bad.pw"), "wrong\n");
    let o = run_age(
        &[
            "-d".as_ref(),
            "-i".as_ref(),
            id.as_os_str(),
            file.as_os_str(),
        ],
        Some(&bad),
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("wrong password"), "{}", stderr(&o));

    // age 1.3 and later know age1pq1 natively.
    let version = Command::new(&age).arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&version.stdout)
        .trim()
        .trim_start_matches('v')
        .to_string();
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) < (1, 3) {
        use std::io::Write;
        let _ = std::io::stderr().write_all(
            format!(
                "\n######## SKIPPED: age {version} predates age1pq1 recipients (1.3) ########\n"
            )
            .as_bytes(),
        );
        return;
    }
    let rfile = dir.path().join("r.txt");
    std::fs::write(&rfile, format!("{r}\n")).unwrap();
    let plain = dir.path().join("plain");
    std::fs::write(&plain, vec![7u8; 70_000]).unwrap();
    let by_age = dir.path().join("by-age.age");
    let o = run_age(
        &[
            "-R".as_ref(),
            rfile.as_os_str(),
            "-o".as_ref(),
            by_age.as_os_str(),
            plain.as_os_str(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = v
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg(&by_age)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, vec![7u8; 70_000]);
    // And age decrypts nexusq's file to an age-keygen -pq key.
    let keys = dir.path().join("keys.txt");
    let keygen = age.with_file_name("age-keygen");
    let o = Command::new(&keygen)
        .args(["-pq", "-o"])
        .arg(&keys)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = Command::new(&keygen).arg("-y").arg(&keys).output().unwrap();
    let theirs = String::from_utf8(o.stdout).unwrap().trim().to_string();
    let o = bin()
        .args(["encrypt", "--to", &theirs])
        .arg(&plain)
        .output()
        .unwrap();
    assert!(o.status.success());
    let enc = dir.path().join("by-nexusq.age");
    std::fs::write(&enc, &o.stdout).unwrap();
    let o = run_age(
        &[
            "-d".as_ref(),
            "-i".as_ref(),
            keys.as_os_str(),
            enc.as_os_str(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, vec![7u8; 70_000]);
}

//! `-o PATH` by what PATH is (docs/file-encryption.md "Outputs"), with the real
//! binary: a character device and a FIFO are written into and stay what they are; a
//! `/dev/stdout`-style link writes into our own descriptor at its offset; a symbolic link is
//! followed and its target replaced in its own folder (the link stays); a folder is refused;
//! an existing vault is never overwritten. And a vault that is a symbolic link: writers lock
//! and save its target, `vault open` says so.
//!
//! And inputs read whole (docs/cli.md, "Inputs"): a pipe or device the user names (`--sig`,
//! `--to`, `identity show`, `contacts add`, through a shell's process substitution) is read as
//! `cat` reads it, capped in size; the vault and files nexusq finds itself (`FILE.sig`) must be
//! regular files, refused at once with what they are, never waited on.
//!
//! Every special file is made in a temporary folder (the machine's own /dev/null and
//! /dev/stdout are never aimed at).

use crate::common;
use crate::common::{TestVault, bin};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// A vault, its export and a plaintext in a new folder.
struct Env {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    vault: TestVault,
    export: PathBuf,
    plain: PathBuf,
}

const PLAIN: &[u8] = b"a document that goes through a special file\n";

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        let vault = TestVault::new(&path, "me");
        let export = vault.export();
        let plain = path.join("doc.txt");
        std::fs::write(&plain, PLAIN).unwrap();
        Env {
            _dir: dir,
            dir: path,
            vault,
            export,
            plain,
        }
    }

    /// `encrypt --to <export> -o <out> <plain>`.
    fn encrypt_to(&self, out: &Path) -> std::process::Output {
        self.vault
            .cmd()
            .arg("encrypt")
            .arg("--to")
            .arg(&self.export)
            .arg("-o")
            .arg(out)
            .arg(&self.plain)
            .output()
            .unwrap()
    }

    /// Decrypt `cipher` (bytes) with the vault; the plaintext.
    fn decrypt(&self, cipher: &[u8]) -> Vec<u8> {
        let c = self.dir.join("check.nxq");
        std::fs::write(&c, cipher).unwrap();
        let out = self
            .vault
            .cmd()
            .args(["decrypt", "--password-file"])
            .arg(&self.vault.pw)
            .arg(&c)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        std::fs::remove_file(&c).unwrap();
        out.stdout
    }

    /// Names in the folder holding temporary files, if any.
    fn temps(&self, folder: &Path) -> Vec<String> {
        std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp."))
            .collect()
    }
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_character_device_is_written_into_and_stays_a_device() {
    let env = Env::new();
    let node = env.dir.join("null");
    // The null device's numbers (1, 3) in our own folder.
    let made = rustix::fs::mknodat(
        rustix::fs::CWD,
        &node,
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        rustix::fs::makedev(1, 3),
    );
    if let Err(e) = made {
        eprintln!("skipped: cannot mknod a character device here ({e}); needs root");
        return;
    }
    let before = std::fs::metadata(&node).unwrap();
    let out = env.encrypt_to(&node);
    assert!(out.status.success(), "{}", stderr(&out));
    let after = std::fs::symlink_metadata(&node).unwrap();
    assert!(after.file_type().is_char_device(), "replaced: {after:?}");
    assert_eq!(after.rdev(), before.rdev());
    assert_eq!(after.ino(), before.ino());
    assert!(env.temps(&env.dir).is_empty());
}

#[test]
fn a_fifo_gets_the_data_and_stays_a_fifo() {
    let env = Env::new();
    let fifo = env.dir.join("pipe");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    // The reader waits on the pipe as a user's `cat pipe > file` would.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            File::open(&fifo).unwrap().read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let out = env.encrypt_to(&fifo);
    assert!(out.status.success(), "{}", stderr(&out));
    let cipher = reader.join().unwrap();
    assert!(
        cipher.starts_with(b"NXQF"),
        "the reader got {} bytes",
        cipher.len()
    );
    assert_eq!(env.decrypt(&cipher), PLAIN);
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(env.temps(&env.dir).is_empty());
}

#[test]
fn stdout_style_links_write_into_our_descriptor_at_its_offset() {
    let env = Env::new();
    let cipher = env.dir.join("doc.nxq");
    assert!(env.encrypt_to(&cipher).status.success());
    // Links in our folder to the process's own stdout, as /dev/stdout is.
    for (name, to) in [("to-proc", "/proc/self/fd/1"), ("to-dev-fd", "/dev/fd/1")] {
        let link = env.dir.join(name);
        std::os::unix::fs::symlink(to, &link).unwrap();
        // stdout is a log opened for appending: the plaintext goes after what is there.
        let log = env.dir.join(format!("{name}.log"));
        std::fs::write(&log, b"before\n").unwrap();
        let append = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let out = std::process::Command::new(common::BIN)
            .env_remove("NEXUSQ_VAULT")
            .env_remove("NEXUSQ_BACKEND")
            .arg("--vault")
            .arg(&env.vault.path)
            .args(["decrypt", "--password-file"])
            .arg(&env.vault.pw)
            .arg("-o")
            .arg(&link)
            .arg(&cipher)
            .stdout(append)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let mut expected = b"before\n".to_vec();
        expected.extend_from_slice(PLAIN);
        assert_eq!(std::fs::read(&log).unwrap(), expected, "{name}");
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new(to), "{name}");
        assert!(env.temps(&env.dir).is_empty());
    }
}

#[test]
fn a_symlink_is_followed_and_its_target_replaced_in_its_own_folder() {
    let env = Env::new();
    let elsewhere = env.dir.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let target = elsewhere.join("doc.nxq");
    std::fs::write(&target, b"an older encryption").unwrap();
    let links = env.dir.join("links");
    std::fs::create_dir(&links).unwrap();
    let link = links.join("doc.nxq");
    std::os::unix::fs::symlink("../elsewhere/doc.nxq", &link).unwrap();
    let out = env.encrypt_to(&link);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(env.decrypt(&std::fs::read(&target).unwrap()), PLAIN);
    assert!(env.temps(&elsewhere).is_empty() && env.temps(&links).is_empty());

    // A dangling link names the file to create.
    let dangling = links.join("new.nxq");
    std::os::unix::fs::symlink("../elsewhere/new.nxq", &dangling).unwrap();
    assert!(env.encrypt_to(&dangling).status.success());
    assert_eq!(
        env.decrypt(&std::fs::read(elsewhere.join("new.nxq")).unwrap()),
        PLAIN
    );
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_regular_file_is_still_replaced_whole() {
    let env = Env::new();
    let out_path = env.dir.join("doc.nxq");
    std::fs::write(&out_path, b"old").unwrap();
    let ino = std::fs::metadata(&out_path).unwrap().ino();
    assert!(env.encrypt_to(&out_path).status.success());
    let meta = std::fs::metadata(&out_path).unwrap();
    assert_ne!(meta.ino(), ino, "not replaced by a rename");
    assert_eq!(meta.mode() & 0o777, 0o600);
    assert_eq!(env.decrypt(&std::fs::read(&out_path).unwrap()), PLAIN);
    assert!(env.temps(&env.dir).is_empty());
}

#[test]
fn a_folder_is_refused() {
    let env = Env::new();
    let out = env.encrypt_to(&env.dir);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("it is a folder"), "{}", stderr(&out));
    assert!(env.temps(&env.dir).is_empty());
}

#[test]
fn encrypt_onto_a_vault_is_refused_and_the_vault_kept() {
    let env = Env::new();
    let before = std::fs::read(&env.vault.path).unwrap();
    let link = env.dir.join("link.nxq");
    std::os::unix::fs::symlink(&env.vault.path, &link).unwrap();
    for target in [&env.vault.path, &link] {
        let out = env.encrypt_to(target);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("it is a nexusq vault"), "{err}");
        assert!(err.contains("hint: choose another -o path"), "{err}");
    }
    // Also decrypt -o (plaintext over the vault would lose it the same way).
    let cipher = env.dir.join("doc.nxq");
    assert!(env.encrypt_to(&cipher).status.success());
    let out = env
        .vault
        .cmd()
        .args(["decrypt", "--password-file"])
        .arg(&env.vault.pw)
        .arg("-o")
        .arg(&env.vault.path)
        .arg(&cipher)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read(&env.vault.path).unwrap(), before);
    assert!(env.temps(&env.dir).is_empty());
}

#[test]
fn a_symlinked_vault_is_saved_through_its_link() {
    let dir = tempfile::tempdir().unwrap();
    let real_dir = dir.path().join("dotfiles");
    let home = dir.path().join("home");
    std::fs::create_dir(&real_dir).unwrap();
    std::fs::create_dir(&home).unwrap();
    let real = TestVault::new(&real_dir, "vault");
    let link = home.join("vault.nxq");
    std::os::unix::fs::symlink(&real.path, &link).unwrap();
    let via_link = |args: &[&str]| {
        bin()
            .env("NO_COLOR", "1")
            .arg("--vault")
            .arg(&link)
            .args(args)
            .arg("--password-file")
            .arg(&real.pw)
            .output()
            .unwrap()
    };
    let out = via_link(&["rotate", "--reason", "through the link"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = via_link(&[
        "vault",
        "passwd",
        "--new-password-file",
        real.pw.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The link is still a link, the real vault has the new generation, the lock is beside it.
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(real.open_json()["generation"], 2);
    assert!(real_dir.join("vault.nxq.lock").exists());
    assert!(!home.join("vault.nxq.lock").exists());
    let names: Vec<_> = std::fs::read_dir(&home).unwrap().collect();
    assert_eq!(names.len(), 1, "only the link in its folder");

    // vault open says where saves go.
    let out = bin()
        .env("NO_COLOR", "1")
        .arg("--vault")
        .arg(&link)
        .args(["vault", "open"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("a symbolic link to {}", real.path.display())),
        "{text}"
    );
    let out = bin()
        .arg("--vault")
        .arg(&link)
        .args(["vault", "open", "--json"])
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["target"], real.path.display().to_string());
    assert_eq!(real.open_json()["target"], serde_json::Value::Null);
}

#[test]
fn init_through_a_dangling_link_creates_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let real_dir = dir.path().join("dotfiles");
    std::fs::create_dir(&real_dir).unwrap();
    let link = dir.path().join("vault.nxq");
    std::os::unix::fs::symlink("dotfiles/real.nxq", &link).unwrap();
    let pw = common::private_file(&dir.path().join("pw"), "a password\n");
    let out = bin()
        .arg("--vault")
        .arg(&link)
        .arg("init")
        .args(common::SMALL_KDF)
        .arg("--password-file")
        .arg(&pw)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(real_dir.join("real.nxq").is_file());
    assert!(real_dir.join("real.nxq.lock").is_file());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// Special files made in `dir` where a file is read whole: a FIFO nobody writes to, and, as
/// root, a character device with /dev/null's numbers. Each with how nexusq names its kind.
fn special_inputs(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut made = Vec::new();
    let fifo = dir.join("input-pipe");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    made.push((fifo, "a named pipe (FIFO)"));
    let node = dir.join("input-null");
    match rustix::fs::mknodat(
        rustix::fs::CWD,
        &node,
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        rustix::fs::makedev(1, 3),
    ) {
        Ok(()) => made.push((node, "a character device")),
        Err(e) => eprintln!(
            "SKIPPED the character-device half: cannot mknod a device here ({e}); needs root"
        ),
    }
    made
}

#[test]
fn a_vault_or_a_file_found_beside_that_is_a_fifo_or_device_is_refused_at_once() {
    let env = Env::new();
    for (special, kind) in special_inputs(&env.dir) {
        let shown = special.display();
        let mut vault_open = bin();
        vault_open
            .env("NO_COLOR", "1")
            .arg("--vault")
            .arg(&special)
            .args(["vault", "open"]);
        // `verify FILE` finds FILE.sig beside it: nexusq found it, nobody named it.
        let data = env.dir.join(format!(
            "{}-data",
            special.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&data, PLAIN).unwrap();
        let beside = PathBuf::from(format!("{}.sig", data.display()));
        std::os::unix::fs::symlink(&special, &beside).unwrap();
        let mut verify = env.vault.cmd();
        verify.arg("verify").arg(&data);
        for (what, cmd, code, says) in [
            (
                "--vault",
                &mut vault_open,
                4,
                format!("{shown} is not a vault file: it is {kind}, not a regular file"),
            ),
            (
                "verify FILE (FILE.sig)",
                &mut verify,
                5,
                format!("it is {kind}, not a regular file"),
            ),
        ] {
            let out = common::output_within(cmd, 15, &format!("{what} {kind}"));
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(code), "{what} {kind}: {err}");
            assert!(err.contains(&says), "{what} {kind}: {err}");
            assert!(err.contains("hint: "), "{what} {kind}: {err}");
        }
        let meta = std::fs::symlink_metadata(&special).unwrap();
        assert!(meta.file_type().is_fifo() || meta.file_type().is_char_device());
    }
}

/// `bash -c SCRIPT` with the vault's nexusq as `$NQ` (the test binary, its clean environment):
/// for process substitution, which only a shell makes.
fn bash(env: &Env, script: &str) -> std::process::Output {
    let mut cmd = std::process::Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .current_dir(&env.dir)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env("NO_COLOR", "1")
        .env("XDG_STATE_HOME", common::state_home())
        .env("NQ", common::BIN)
        .env("V", &env.vault.path)
        .env("PW", &env.vault.pw);
    let out = cmd.output().unwrap();
    assert!(
        out.status.code().is_some(),
        "killed by a signal: {}",
        stderr(&out)
    );
    out
}

#[test]
fn pipes_named_on_the_command_line_are_read_like_files() {
    let env = Env::new();
    let bob_dir = env.dir.join("bob");
    std::fs::create_dir(&bob_dir).unwrap();
    let bob = TestVault::new(&bob_dir, "bob");
    let bob_pub = bob.export();
    let sig = env.dir.join("doc.txt.sig");
    env.vault
        .cmd()
        .args(["sign", "--password-file"])
        .arg(&env.vault.pw)
        .arg("-o")
        .arg(&sig)
        .arg(&env.plain)
        .assert()
        .success();
    let cert = env.dir.join("bob.asc");
    bob.cmd()
        .args(["identity", "export", "--openpgp", "--password-file"])
        .arg(&bob.pw)
        .arg("-o")
        .arg(&cert)
        .assert()
        .success();
    let bob_fp = bob.fingerprint();
    let b = bob_pub.display();
    let c = cert.display();
    let sig_shown = sig.display();
    let me = env.export.display();
    for (what, script, says) in [
        (
            "encrypt --to <(export)",
            format!(r#""$NQ" --vault "$V" encrypt --to <(cat '{b}') -o to-bob.nxq doc.txt"#),
            format!("encrypting to {bob_fp}"),
        ),
        (
            "encrypt --to <(OpenPGP certificate)",
            format!(r#""$NQ" --vault "$V" encrypt --to <(cat '{c}') -o to-bob.pgp doc.txt"#),
            String::new(),
        ),
        (
            "identity show <(export)",
            format!(r#""$NQ" --vault "$V" identity show <(cat '{b}')"#),
            bob_fp.clone(),
        ),
        (
            "identity show <(OpenPGP certificate)",
            format!(r#""$NQ" --vault "$V" identity show <(cat '{c}')"#),
            String::new(),
        ),
        (
            "verify --sig <(sig) --identity <(export)",
            format!(
                r#""$NQ" --vault "$V" verify doc.txt --sig <(cat '{sig_shown}') --identity <(cat '{me}')"#
            ),
            "good signature".to_string(),
        ),
        (
            "contacts add bob <(export)",
            format!(
                r#""$NQ" --vault "$V" --password-file "$PW" contacts add bob <(cat '{b}') --expect-fingerprint {bob_fp}"#
            ),
            String::new(),
        ),
    ] {
        let out = bash(&env, &script);
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert_eq!(out.status.code(), Some(0), "{what}: {all}");
        assert!(all.contains(&says), "{what}: {all}");
    }
    // What went through the pipes worked: bob decrypts, and the contact is bob.
    for file in ["to-bob.nxq", "to-bob.pgp"] {
        let out = bob
            .cmd()
            .args(["decrypt", "--password-file"])
            .arg(&bob.pw)
            .arg(env.dir.join(file))
            .output()
            .unwrap();
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        assert_eq!(out.stdout, PLAIN, "{file}");
    }
    let list = env
        .vault
        .cmd()
        .args(["contacts", "list", "--names"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&list.stdout).trim(), "bob");

    // A pipe has no size to check first: it is read up to the cap, then refused.
    let out = bash(
        &env,
        r#""$NQ" --vault "$V" identity show <(head -c 17000000 /dev/zero)"#,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is too large to be a public identity"),
        "{}",
        stderr(&out)
    );
}

/// A named FIFO is waited on as `cat` waits: the command reads what a late writer writes. A
/// character device is read too (an empty one is an empty input).
#[test]
fn a_named_fifo_is_read_once_a_writer_comes_and_a_device_is_read() {
    let env = Env::new();
    let fifo = env.dir.join("export-pipe");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    let child = std::process::Command::new(common::BIN)
        .env_remove("NEXUSQ_VAULT")
        .env("XDG_STATE_HOME", common::state_home())
        .arg("--vault")
        .arg(&env.vault.path)
        .args(["identity", "show"])
        .arg(&fifo)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The writer comes once nexusq waits as a reader: a non-blocking open for writing fails
    // (ENXIO) until then. Never longer than 20 s, so a nexusq that does not read fails here.
    let start = std::time::Instant::now();
    let mut writer = loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&fifo)
        {
            Ok(f) => break f,
            Err(_) if start.elapsed() < std::time::Duration::from_secs(20) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            Err(e) => panic!("nexusq never opened the FIFO to read it: {e}"),
        }
    };
    std::io::Write::write_all(&mut writer, &std::fs::read(&env.export).unwrap()).unwrap();
    drop(writer);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&env.vault.fingerprint()));
    for (special, kind) in special_inputs(&env.dir) {
        if kind != "a character device" {
            continue;
        }
        let out = env
            .vault
            .cmd()
            .arg("verify")
            .arg(&env.plain)
            .arg("--sig")
            .arg(&special)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("is empty, not a signature"),
            "{}",
            stderr(&out)
        );
    }
}

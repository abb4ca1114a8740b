//! `-o PATH` by what PATH is (docs/file-encryption.md "Outputs"), with the real
//! binary: a character device and a FIFO are written into and stay what they are; a
//! `/dev/stdout`-style link writes into our own descriptor at its offset; a symbolic link is
//! followed and its target replaced in its own folder (the link stays); a folder is refused;
//! an existing vault is never overwritten. And a vault that is a symbolic link: writers lock
//! and save its target, `vault open` says so.
//!
//! And inputs read whole (a vault, `--sig`, `identity show`, `decrypt -i`): a FIFO or a
//! device there is refused at once with what it is, never waited on (docs/cli.md, "Inputs").
//!
//! Every special file is made in a temporary folder (the machine's own /dev/null and
//! /dev/stdout are never aimed at).

use crate::common;
use crate::common::{TestVault, bin};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
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
fn a_fifo_or_device_where_a_file_is_read_whole_is_refused_at_once() {
    let env = Env::new();
    // An age file's first line is all `decrypt` reads before the identity files.
    let age_file = env.dir.join("file.age");
    std::fs::write(&age_file, b"age-encryption.org/v1\n").unwrap();
    let save_it = "hint: save it to a file first, or pass it on stdin as `-`";
    for (special, kind) in special_inputs(&env.dir) {
        let shown = special.display();
        let mut vault_open = bin();
        vault_open
            .env("NO_COLOR", "1")
            .arg("--vault")
            .arg(&special)
            .args(["vault", "open"]);
        let mut verify = env.vault.cmd();
        verify
            .arg("verify")
            .arg("--sig")
            .arg(&special)
            .arg(&env.plain);
        let mut show = env.vault.cmd();
        show.args(["identity", "show"]).arg(&special);
        let mut decrypt = env.vault.cmd();
        decrypt.args(["decrypt", "-i"]).arg(&special).arg(&age_file);
        for (what, cmd, code, says) in [
            (
                "--vault",
                &mut vault_open,
                4,
                format!("{shown} is not a vault file: it is {kind}, not a regular file"),
            ),
            (
                "verify --sig",
                &mut verify,
                5,
                format!("cannot read a signature from {shown}: it is {kind}"),
            ),
            (
                "identity show",
                &mut show,
                5,
                format!("cannot read a public identity from {shown}: it is {kind}"),
            ),
            (
                "decrypt -i",
                &mut decrypt,
                5,
                format!("cannot read an age identity file from {shown}: it is {kind}"),
            ),
        ] {
            let out = common::output_within(cmd, 15, &format!("{what} {kind}"));
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(code), "{what} {kind}: {err}");
            assert!(err.contains(&says), "{what} {kind}: {err}");
            assert!(err.contains("hint: "), "{what} {kind}: {err}");
            if code == 5 {
                assert!(err.contains(save_it), "{what} {kind}: {err}");
            }
        }
        let meta = std::fs::symlink_metadata(&special).unwrap();
        assert!(meta.file_type().is_fifo() || meta.file_type().is_char_device());
    }
}

//! Text that someone else controls never reaches a terminal as terminal controls (docs/security.md,
//! "Text from others on your terminal"): certificate and revocation reasons in an attacker's
//! export, the first line of a hostile armored file, file names, and decrypted plaintext. The
//! commands run at a real terminal (a pseudo-terminal, `common/pty.rs`), and what the terminal
//! received must hold no byte below 0x20 other than LF and TAB (NO_COLOR is set, so nexusq's own
//! colours are off).

use crate::common;
use crate::common::{BIN, TestVault};
use crate::pty;
use nexusq_core::identity::signature::{self, DetachedSignature};
use nexusq_core::identity::{
    Certificate, NewIdentity, PublicIdentity, Revocation, RevocationScope, certificate, revocation,
};
use nexusq_core::suite::rustcrypto::RustCrypto;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The attack docs/security.md describes: return to the start of the line, go up, erase it, and
/// print a fingerprint line of the attacker's choosing over the real one.
fn overwrite_fingerprint(fake: &str) -> String {
    format!("\r\x1b[3A\x1b[2Kfingerprint: {fake}")
}

/// `nexusq` with a clean environment and no colour, at a terminal.
fn at_terminal(args: &[&std::ffi::OsStr]) -> (Option<i32>, Vec<u8>) {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env("NO_COLOR", "1")
        .args(args);
    let (status, shown) = pty::run(cmd);
    (status.code(), shown)
}

macro_rules! os {
    ($($a:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($a)),*] };
}

/// The terminal got nothing it would act on: no C0 control but LF and TAB, no DEL, and (read
/// as text) no C1 or bidi control.
#[track_caller]
fn assert_inert(shown: &[u8]) {
    let bad = pty::control_bytes(shown);
    let text = String::from_utf8_lossy(shown);
    assert!(
        bad.is_empty(),
        "control bytes {bad:x?} reached the terminal:\n{text}"
    );
    let hidden: Vec<char> = text
        .chars()
        .filter(|&c| c != '\n' && c != '\t' && nexusq_core::untrusted::is_hidden_control(c))
        .collect();
    assert!(
        hidden.is_empty(),
        "{hidden:?} reached the terminal:\n{text}"
    );
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// An attacker's identity whose certificate (version 1: written before reasons were checked,
/// so still readable) and revocation statement carry terminal escapes in their reasons, and a
/// signature of generation 1 over `data`.
struct Attacker {
    id: NewIdentity,
    export: PublicIdentity,
    sig: DetachedSignature,
    cert_reason: String,
    revocation_reason: String,
}

fn attacker(victim_fp: &str, data: &[u8]) -> Attacker {
    let now = nexusq_core::time::now();
    let id = NewIdentity::generate(&RustCrypto, now - 1_000);
    let root_id = id.public.root_id();
    let cert_reason = overwrite_fingerprint(victim_fp);
    let mut cert = id.public.newest().clone();
    cert.version = certificate::VERSION_1;
    cert.reason = cert_reason.clone();
    cert.signature = id
        .keys
        .root()
        .sign(&RustCrypto, &cert.to_be_signed(), certificate::CONTEXT);
    let revocation_reason = format!("\x1b]0;owned\x07\u{202e}{}", "\x1b[1A".repeat(30));
    let mut rev = Revocation {
        root_id,
        scope: RevocationScope::SigningKeysBefore(2),
        created: now - 100,
        reason: revocation_reason.clone(),
        signature: Vec::new(),
    };
    rev.signature = id
        .keys
        .root()
        .sign(&RustCrypto, &rev.to_be_signed(), revocation::CONTEXT);
    let export = PublicIdentity {
        root_pk: id.public.root_pk,
        certificates: vec![cert.clone()],
        revocations: vec![rev],
    };
    let sig = signature::sign(
        &RustCrypto,
        &id.public.root_pk,
        &cert,
        id.secrets.generations[0].sig.as_ref().unwrap(),
        &signature::digest(data),
        now - 500,
        &[5; 32],
    )
    .unwrap();
    Attacker {
        id,
        export,
        sig,
        cert_reason,
        revocation_reason,
    }
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, content).unwrap();
    p
}

#[test]
fn reasons_in_an_export_cannot_rewrite_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let victim = TestVault::new(dir.path(), "victim");
    let victim_fp = victim.fingerprint();
    let data = write(dir.path(), "data.txt", "a contract\n");
    let a = attacker(&victim_fp, b"a contract\n");
    let attacker_fp = a.export.root_id().fingerprint().to_string();
    let export = write(dir.path(), "attacker.pub", a.export.to_armor());

    // identity show, the command the docs say to run before comparing fingerprints.
    let (code, shown) = at_terminal(os!["identity", "show", &export]);
    assert_eq!(code, Some(0), "{}", text(&shown));
    assert_inert(&shown);
    let shown = text(&shown);
    let fingerprint_lines: Vec<&str> = shown
        .lines()
        .filter(|l| l.starts_with("fingerprint:"))
        .collect();
    assert_eq!(
        fingerprint_lines,
        [format!("fingerprint: {attacker_fp}")],
        "{shown}"
    );
    // The reasons are there, visibly escaped, the long one capped.
    assert!(
        shown.contains("reason: \\r\\u{1b}[3A\\u{1b}[2Kfingerprint: "),
        "{shown}"
    );
    assert!(shown.contains("\\u{1b}]0;owned\\u{7}\\u{202e}"), "{shown}");
    assert!(shown.contains("more bytes not shown"), "{shown}");

    // --json keeps the exact text (JSON escaping makes it inert).
    let out = common::bin()
        .args(["identity", "show", "--json"])
        .arg(&export)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!out.stdout.contains(&0x1b), "raw ESC in JSON");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["generations"][0]["reason"], a.cert_reason.as_str());
    assert_eq!(v["revocations"][0]["reason"], a.revocation_reason.as_str());

    // verify refuses the revoked generation and names the reason, escaped.
    let sig = write(dir.path(), "contract.sig", a.sig.to_armor());
    let (code, shown) = at_terminal(os!["verify", &data, "--sig", &sig, "--identity", &export]);
    assert_eq!(code, Some(1), "{}", text(&shown));
    assert_inert(&shown);
    assert!(
        text(&shown).contains("revoked") && text(&shown).contains("\\u{1b}]0;owned"),
        "{}",
        text(&shown)
    );

    // A version 2 certificate may not hold such a reason at all: a damaged export.
    let mut cert = a.id.public.newest().clone();
    cert.reason = a.cert_reason.clone();
    cert.signature =
        a.id.keys
            .root()
            .sign(&RustCrypto, &cert.to_be_signed(), certificate::CONTEXT);
    let v2 = PublicIdentity {
        certificates: vec![cert],
        revocations: vec![],
        ..a.export.clone()
    };
    let damaged = write(dir.path(), "v2.pub", v2.to_armor());
    let (code, shown) = at_terminal(os!["identity", "show", &damaged]);
    assert_eq!(code, Some(1), "{}", text(&shown));
    assert_inert(&shown);
    assert!(
        text(&shown).contains("damaged public identity") && text(&shown).contains("U+000D"),
        "{}",
        text(&shown)
    );
    let _: &Certificate = a.export.newest();
}

#[test]
fn a_hostile_first_line_is_escaped_and_capped() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    let fp = v.fingerprint();
    // 2.4 MB on one line, most of it terminal escapes (clear the screen, red, up).
    let line = format!(
        "-----BEGIN NEXUSQ {}-----\nAQ==\n-----END NEXUSQ X-----\n",
        "\x1b[2J\x1b[31m\x1b[1A".repeat(200_000)
    );
    let hostile = write(dir.path(), "hostile.asc", &line);
    let data = write(dir.path(), "data", "x");
    let good_sig = dir.path().join("data.sig");
    v.cmd()
        .arg("sign")
        .arg(&data)
        .arg("-o")
        .arg(&good_sig)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .success();
    let vault = v.path.clone();
    let pw = v.pw.clone();
    let ct = dir.path().join("ct");
    let cases: Vec<Vec<&std::ffi::OsStr>> = vec![
        os!["identity", "show", &hostile].to_vec(),
        os![
            "verify",
            &data,
            "--sig",
            &hostile,
            "--expect-fingerprint",
            &fp
        ]
        .to_vec(),
        os!["verify", &data, "--sig", &good_sig, "--identity", &hostile].to_vec(),
        os!["encrypt", "--to", &hostile, "-o", &ct, &data].to_vec(),
        os![
            "--vault",
            &vault,
            "decrypt",
            "--password-file",
            &pw,
            &hostile
        ]
        .to_vec(),
        os![
            "--vault",
            &vault,
            "identity",
            "revoke",
            &hostile,
            "--password-file",
            &pw
        ]
        .to_vec(),
    ];
    for args in cases {
        let (code, shown) = at_terminal(&args);
        assert_eq!(code, Some(1), "{args:?}: {}", text(&shown));
        assert_inert(&shown);
        assert!(
            shown.len() < 2_000,
            "{args:?}: {} bytes shown:\n{}",
            shown.len(),
            text(&shown)
        );
    }
    // The non-streaming reader names the kind it found: escaped and capped.
    let (_, shown) = at_terminal(os!["identity", "show", &hostile]);
    assert!(
        text(&shown).contains("different kind of nexusq file (\\u{1b}[2J\\u{1b}[31m"),
        "{}",
        text(&shown)
    );
}

#[test]
fn file_names_are_escaped_in_messages() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"id\x1b]0;pwned\x07\x1b[2J\xff.pub");
    let garbage = dir.path().join(name);
    fs::write(&garbage, "not an export\n").unwrap();
    let missing = dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"gone\x1b[2J.pub"));
    for file in [&garbage, &missing] {
        let (code, shown) = at_terminal(os!["identity", "show", file]);
        assert!(matches!(code, Some(1) | Some(5)), "{}", text(&shown));
        assert_inert(&shown);
        assert!(text(&shown).contains("\\u{1b}[2J"), "{}", text(&shown));
    }
    let (_, shown) = at_terminal(os!["identity", "show", &garbage]);
    assert!(text(&shown).contains("\\xff.pub"), "{}", text(&shown));
}

#[test]
fn rotate_refuses_a_reason_with_controls() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    let before = fs::read(&v.path).unwrap();
    for reason in [
        overwrite_fingerprint("x").as_str(),
        "two\nlines",
        "rtl \u{202e}txt",
    ] {
        let (code, shown) = at_terminal(os![
            "--vault",
            &v.path,
            "rotate",
            "--password-file",
            &v.pw,
            "--reason",
            reason
        ]);
        assert_eq!(code, Some(2), "{}", text(&shown));
        assert_inert(&shown);
        assert!(
            text(&shown).contains("control character U+"),
            "{}",
            text(&shown)
        );
        assert_eq!(fs::read(&v.path).unwrap(), before, "the vault changed");
    }
    // A plain reason with accents and punctuation is fine.
    v.cmd()
        .args(["rotate", "--password-file"])
        .arg(&v.pw)
        .args(["--reason", "téléphone perdu — rotated (weekly)"])
        .assert()
        .success();
}

/// Encrypt `plain` to the vault's own export; the armored-or-binary ciphertext file.
fn encrypt_to(v: &TestVault, name: &str, plain: &[u8]) -> PathBuf {
    let input = write(&v.dir, &format!("{name}.plain"), plain);
    let ct = v.dir.join(format!("{name}.nxqf"));
    v.cmd()
        .arg("encrypt")
        .arg("--to")
        .arg(v.export())
        .arg("-o")
        .arg(&ct)
        .arg(&input)
        .assert()
        .success();
    ct
}

#[test]
fn decrypt_to_a_terminal_refuses_control_bytes_before_writing_them() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    let decrypt = |ct: &Path, extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> =
            os!["--vault", &v.path, "decrypt", "--password-file", &v.pw].to_vec();
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        args.push(ct.as_os_str());
        at_terminal(&args)
    };

    // One chunk holding an OSC sequence (it sets the window title, and worse on some
    // terminals): refused, and nothing of it shown, not even the text before the escape.
    let hostile = b"hello \x1b]0;owned\x07 world\n";
    let ct = encrypt_to(&v, "one", hostile);
    let (code, shown) = decrypt(&ct, &[]);
    assert_eq!(code, Some(2), "{}", text(&shown));
    assert_inert(&shown);
    let shown = text(&shown);
    assert!(!shown.contains("hello"), "{shown}");
    assert!(
        shown.contains("refusing to show the decrypted data")
            && shown.contains("U+001B")
            && shown.contains("-o FILE")
            && shown.contains("-o -"),
        "{shown}"
    );

    // The escape in the second 64 KiB chunk: the first (authentic, plain) chunk is out, the
    // second is refused whole, and the message says how much went out.
    let mut two = vec![b'a'; 65_536];
    two.extend_from_slice(b"\n\x1b[2Jgotcha");
    let ct = encrypt_to(&v, "two", &two);
    let (code, shown) = decrypt(&ct, &[]);
    assert_eq!(code, Some(2));
    assert_inert(&shown);
    assert!(!text(&shown).contains("gotcha"));
    assert!(text(&shown).contains("65536 bytes"), "{}", text(&shown));
    assert!(shown.iter().filter(|&&b| b == b'a').count() >= 65_536);

    // Bytes that are not UTF-8 (a C1 CSI as a raw byte) are refused too.
    let ct = encrypt_to(&v, "raw", b"price \x9b31m");
    let (code, shown) = decrypt(&ct, &[]);
    assert_eq!(code, Some(2));
    assert_inert(&shown);
    assert!(text(&shown).contains("not UTF-8"), "{}", text(&shown));

    // Plain text, tabs and CRLF line endings included, is shown.
    let ct = encrypt_to(
        &v,
        "plain",
        "une ligne\tavec tab\r\nzweite Zeile ✓\n".as_bytes(),
    );
    let (code, shown) = decrypt(&ct, &[]);
    assert_eq!(code, Some(0), "{}", text(&shown));
    assert!(text(&shown).contains("zweite Zeile ✓"));

    // An `-o` path that is a terminal (here this terminal's own /dev/pts/N) is checked too.
    let ct = encrypt_to(&v, "to-tty", hostile);
    let pty = pty::Pty::open();
    let mut cmd = Command::new(BIN);
    cmd.env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env("NO_COLOR", "1")
        .arg("--vault")
        .arg(&v.path)
        .args(["decrypt", "--password-file"])
        .arg(&v.pw)
        .arg("-o")
        .arg(pty.path())
        .arg(&ct);
    let (status, shown) = pty.spawn(cmd).finish();
    assert_eq!(status.code(), Some(2), "{}", text(&shown));
    assert_inert(&shown);
    assert!(!text(&shown).contains("hello"));

    // `-o -` forces it through, as the hint says.
    let ct = encrypt_to(&v, "forced", hostile);
    let (code, shown) = decrypt(&ct, &["-o", "-"]);
    assert_eq!(code, Some(0), "{}", text(&shown));
    assert!(shown.windows(hostile.len()).any(|w| w == hostile));

    // Not a terminal (a pipe): unchanged bytes, as before.
    let out = v
        .cmd()
        .arg("decrypt")
        .arg("--password-file")
        .arg(&v.pw)
        .arg(&ct)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, hostile);
}

#[test]
fn age_decrypt_to_a_terminal_is_guarded_like_nexusq_files() {
    // An age file's plaintext is chosen by whoever encrypted it, exactly like ours.
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    let hostile = b"hello \x1b]0;owned\x07 world\n";
    let input = write(&v.dir, "age.plain", hostile);
    let ct = v.dir.join("m.age");
    v.cmd()
        .args(["encrypt", "--age", "--to"])
        .arg(v.export())
        .arg("-o")
        .arg(&ct)
        .arg(&input)
        .assert()
        .success();
    assert!(
        fs::read(&ct)
            .unwrap()
            .starts_with(b"age-encryption.org/v1\n")
    );
    let (code, shown) = at_terminal(os![
        "--vault",
        &v.path,
        "decrypt",
        "--password-file",
        &v.pw,
        &ct
    ]);
    assert_eq!(code, Some(2), "{}", text(&shown));
    assert_inert(&shown);
    let shown = text(&shown);
    assert!(!shown.contains("hello"), "{shown}");
    assert!(
        shown.contains("refusing to show the decrypted data") && shown.contains("-o -"),
        "{shown}"
    );
    let (code, shown) = at_terminal(os![
        "--vault",
        &v.path,
        "decrypt",
        "--password-file",
        &v.pw,
        "-o",
        "-",
        &ct
    ]);
    assert_eq!(code, Some(0), "{}", text(&shown));
    assert!(shown.windows(hostile.len()).any(|w| w == hostile));
}

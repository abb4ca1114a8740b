//! Recovery (docs/recovery.md): the phrase and k-of-n shares rebuild the identity into a new
//! vault, with an export's certificates (the same export bytes, old files decrypt, new
//! signatures verify against the old export, rotation continues the chain), and every bad
//! input (one share short, shares of two identities, a changed word) is exit 1 with nothing
//! written. Also the drill (`backup check`), the kit, `doctor` and vaults of format 1.

use crate::common::{SMALL_KDF, TestVault, bin, private_file};
use std::fs;
use std::path::{Path, PathBuf};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `nexusq --vault <path> recover ...` with a new password file and small Argon2 costs.
fn recover(dir: &Path, path: &Path, args: &[&str]) -> std::process::Output {
    let pw = dir.join("new.pw");
    if !pw.exists() {
        private_file(&pw, "new password\n");
    }
    bin()
        .env("NO_COLOR", "1")
        .arg("--vault")
        .arg(path)
        .arg("recover")
        .args(args)
        .args(SMALL_KDF)
        .arg("--new-password-file")
        .arg(&pw)
        .output()
        .unwrap()
}

fn recovered(dir: &Path, name: &str) -> TestVault {
    TestVault {
        dir: dir.to_path_buf(),
        path: dir.join(format!("{name}.nxq")),
        pw: dir.join("new.pw"),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Does `text` show the phrase? Single words are English and may appear in any sentence, so
/// this looks for two consecutive words of it, or one numbered as on the phrase screen.
fn shows_words(text: &str, words: &[String]) -> bool {
    let flat: Vec<&str> = text.split_whitespace().collect();
    let flat = flat.join(" ");
    words
        .windows(2)
        .any(|w| flat.contains(&format!("{} {}", w[0], w[1])))
        || words
            .iter()
            .enumerate()
            .any(|(i, w)| flat.contains(&format!("{}. {w}", i + 1)))
}

/// `backup shares --threshold k --shares n -o prefix` of `v`, which must succeed.
fn write_shares(v: &TestVault, k: u8, n: u8, prefix: &Path) {
    v.cmd()
        .args(["backup", "shares", "--threshold", &k.to_string()])
        .args(["--shares", &n.to_string(), "-o", s(prefix)])
        .args(["--password-file", s(&v.pw)])
        .assert()
        .success();
}

/// `backup phrase -o file` of `v`, which must succeed.
fn write_phrase(v: &TestVault, file: &Path) {
    v.cmd()
        .args([
            "backup",
            "phrase",
            "-o",
            s(file),
            "--password-file",
            s(&v.pw),
        ])
        .assert()
        .success();
}

/// `v` decrypts the file the story encrypted to generation 1.
fn decrypts_old_file(v: &TestVault, file: &Path) {
    let out = v
        .cmd()
        .args(["decrypt", "--password-file", s(&v.pw)])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, b"sent to generation 1\n");
}

/// The identity after `init`, a file encrypted to generation 1, two rotations, both exports,
/// the phrase and 2-of-3 shares.
struct Story {
    dir: tempfile::TempDir,
    me: TestVault,
    old_file: PathBuf,
    plain_export: Vec<u8>,
    full_export: PathBuf,
    phrase: PathBuf,
    shares: Vec<PathBuf>,
}

fn story() -> Story {
    let dir = tempfile::tempdir().unwrap();
    let me = TestVault::new(dir.path(), "me");
    let d = dir.path();
    fs::write(d.join("old.txt"), "sent to generation 1\n").unwrap();
    me.cmd()
        .args(["encrypt", "--to-self", "-o"])
        .arg(d.join("old.nxe"))
        .arg(d.join("old.txt"))
        .assert()
        .success();
    for _ in 0..2 {
        me.cmd()
            .args(["rotate", "--password-file", s(&me.pw)])
            .assert()
            .success();
    }
    let full_export = d.join("me.full.pub");
    me.cmd()
        .args([
            "identity",
            "export",
            "--full-history",
            "-o",
            s(&full_export),
        ])
        .assert()
        .success();
    let plain_export = fs::read(me.export()).unwrap();
    let phrase = d.join("phrase.txt");
    write_phrase(&me, &phrase);
    write_shares(&me, 2, 3, &d.join("share"));
    let shares = (1..=3).map(|i| d.join(format!("share.{i}"))).collect();
    Story {
        old_file: d.join("old.nxe"),
        plain_export,
        full_export,
        phrase,
        shares,
        dir,
        me,
    }
}

#[test]
fn the_phrase_and_an_export_rebuild_the_whole_identity() {
    use std::os::unix::fs::PermissionsExt;
    let st = story();
    let d = st.dir.path();
    let fp = st.me.fingerprint();
    // The phrase file: 24 words, private.
    let words = fs::read_to_string(&st.phrase).unwrap();
    assert_eq!(words.split_whitespace().count(), 24);
    assert_eq!(
        fs::metadata(&st.phrase).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // The phone is gone.
    fs::remove_file(&st.me.path).unwrap();
    let out = recover(
        d,
        &d.join("back.nxq"),
        &[
            "--phrase-file",
            s(&st.phrase),
            "--from-export",
            s(&st.full_export),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("contacts book"),
        "says what it did not bring back: {err}"
    );
    let back = recovered(d, "back");
    assert_eq!(back.fingerprint(), fp);
    // The same export bytes, plain and full.
    let again = back.cmd().args(["identity", "export"]).output().unwrap();
    assert_eq!(again.stdout, st.plain_export, "the same plain export");
    let full = back
        .cmd()
        .args(["identity", "export", "--full-history"])
        .output()
        .unwrap();
    assert_eq!(full.stdout, fs::read(&st.full_export).unwrap());
    // The file sent to generation 1 decrypts.
    decrypts_old_file(&back, &st.old_file);
    // A new signature verifies against the export contacts already hold.
    fs::write(d.join("doc.txt"), "signed after recovery\n").unwrap();
    back.cmd()
        .args(["sign", "--password-file", s(&back.pw), "-o"])
        .arg(d.join("doc.txt.sig"))
        .arg(d.join("doc.txt"))
        .assert()
        .success();
    bin()
        .arg("verify")
        .arg(d.join("doc.txt"))
        .arg("--sig")
        .arg(d.join("doc.txt.sig"))
        .arg("--identity")
        .arg(st.me.export())
        .assert()
        .success();
    // And rotation continues the chain: generation 4, and the chain verifies.
    back.cmd()
        .args(["rotate", "--password-file", s(&back.pw)])
        .assert()
        .success();
    let history = back
        .cmd()
        .args(["identity", "history", "--json"])
        .output()
        .unwrap();
    assert!(history.status.success(), "{}", stderr(&history));
    let h: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    assert_eq!(h["generations"].as_array().unwrap().len(), 4, "{h}");
}

/// The export people actually have (plain: the newest certificate only) brings back every
/// generation: the words derive generations 1 and 2 too, for decryption, and the file sent to
/// generation 1 before both rotations opens.
#[test]
fn a_plain_export_brings_back_every_generation_and_says_which_have_no_certificate() {
    let st = story();
    let d = st.dir.path();
    let out = recover(
        d,
        &d.join("back.nxq"),
        &[
            "--phrase-file",
            s(&st.phrase),
            "--from-export",
            s(&st.me.export()),
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["generations"], serde_json::json!([3]), "{j}");
    assert_eq!(j["decryption_only"], serde_json::json!([1, 2]), "{j}");
    assert!(
        stderr(&out).contains("generations 1, 2 came back for decryption only"),
        "{}",
        stderr(&out)
    );
    let back = recovered(d, "back");
    decrypts_old_file(&back, &st.old_file);
    // A vault holding generations without a certificate is format 3, and unlocks.
    assert_eq!(fs::read(&back.path).unwrap()[4..6], [0, 3]);
    back.cmd()
        .args(["vault", "unlock", "--password-file", s(&back.pw)])
        .assert()
        .success();
    let again = back.cmd().args(["identity", "export"]).output().unwrap();
    assert_eq!(again.stdout, st.plain_export);
    // Its history begins at generation 3, and says why rather than "broken".
    let out = back.cmd().args(["identity", "history"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("recovered from an export"), "{text}");
    // Rotation continues from there.
    back.cmd()
        .args(["rotate", "--password-file", s(&back.pw)])
        .assert()
        .success();
}

#[test]
fn without_an_export_the_root_and_generation_1_come_back() {
    let st = story();
    let d = st.dir.path();
    let out = recover(
        d,
        &d.join("back.nxq"),
        &["--phrase-file", s(&st.phrase), "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["fingerprint"].as_str().unwrap(), st.me.fingerprint());
    assert_eq!(j["generations"], serde_json::json!([1]));
    assert!(stderr(&out).contains("--from-export"));
    // Generation 1's keys are the original ones: the old file decrypts.
    let back = recovered(d, "back");
    decrypts_old_file(&back, &st.old_file);
    assert!(stderr(&out).contains("--generations N"), "{}", stderr(&out));

    // A file sent to the newest generation (3) needs its keys: told how many generations
    // there were, recovery brings them back without any export.
    let new_file = d.join("new.nxe");
    fs::write(d.join("new.txt"), "sent to generation 3\n").unwrap();
    bin()
        .args(["encrypt", "--to"])
        .arg(st.me.export())
        .arg("-o")
        .arg(&new_file)
        .arg(d.join("new.txt"))
        .assert()
        .success();
    let decrypt = |v: &TestVault| {
        v.cmd()
            .args(["decrypt", "--password-file", s(&v.pw)])
            .arg(&new_file)
            .output()
            .unwrap()
    };
    assert_eq!(decrypt(&back).status.code(), Some(1));
    let out = recover(
        d,
        &d.join("all.nxq"),
        &[
            "--phrase-file",
            s(&st.phrase),
            "--generations",
            "3",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["generations"], serde_json::json!([1]), "{j}");
    assert_eq!(j["decryption_only"], serde_json::json!([2, 3]), "{j}");
    let all = recovered(d, "all");
    decrypts_old_file(&all, &st.old_file);
    let opened = decrypt(&all);
    assert!(opened.status.success(), "{}", stderr(&opened));
    assert_eq!(opened.stdout, b"sent to generation 3\n");
    // Rotation never certifies a number the vault already holds: it goes on at 4.
    let out = all
        .cmd()
        .args(["rotate", "--password-file", s(&all.pw), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["generation"], 4, "{j}");
    let opened = decrypt(&all);
    assert!(opened.status.success(), "{}", stderr(&opened));
}

#[test]
fn any_two_of_three_shares_rebuild_it() {
    let st = story();
    let d = st.dir.path();
    for (i, (a, b)) in [(0, 2), (1, 2), (1, 0)].iter().enumerate() {
        let path = d.join(format!("s{i}.nxq"));
        let out = recover(
            d,
            &path,
            &[
                "--share-file",
                s(&st.shares[*a]),
                "--share-file",
                s(&st.shares[*b]),
                "--from-export",
                s(&st.full_export),
            ],
        );
        assert!(out.status.success(), "shares {a}+{b}: {}", stderr(&out));
        let back = recovered(d, &format!("s{i}"));
        let again = back.cmd().args(["identity", "export"]).output().unwrap();
        assert_eq!(again.stdout, st.plain_export);
    }
}

/// Exit 1, a message naming the problem, no vault written.
fn refused(d: &Path, args: &[&str], says: &str) {
    let path = d.join("refused.nxq");
    let out = recover(d, &path, args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
    assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    assert!(!path.exists(), "{args:?} wrote a vault");
    assert!(
        fs::read_dir(d).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("refused")),
        "{args:?} left a file"
    );
}

#[test]
fn bad_words_are_refused_and_nothing_is_written() {
    let st = story();
    let d = st.dir.path();
    // One share is too few.
    refused(d, &["--share-file", s(&st.shares[1])], "needed");
    // Shares of two identities.
    let other = TestVault::new(d, "other");
    write_shares(&other, 2, 2, &d.join("other"));
    refused(
        d,
        &[
            "--share-file",
            s(&st.shares[0]),
            "--share-file",
            s(&d.join("other.1")),
        ],
        "different identities",
    );
    // One changed word of the phrase: the checksum fails (or the word is unknown).
    let words: Vec<String> = fs::read_to_string(&st.phrase)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut changed = words.clone();
    changed[5] = if words[5] == "abandon" {
        "ability"
    } else {
        "abandon"
    }
    .to_string();
    let bad_phrase = private_file(&d.join("bad-phrase.txt"), changed.join(" ") + "\n");
    refused(d, &["--phrase-file", s(&bad_phrase)], "checksum");
    // Errors never carry the words.
    let out = recover(
        d,
        &d.join("refused.nxq"),
        &["--phrase-file", s(&bad_phrase)],
    );
    assert!(!shows_words(&stderr(&out), &changed), "words in the error");
    // One changed word of a share.
    let share: Vec<String> = fs::read_to_string(&st.shares[0])
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut changed = share.clone();
    changed[10] = if share[10] == "zoo" { "zone" } else { "zoo" }.to_string();
    let bad = private_file(&d.join("bad-share.txt"), changed.join(" ") + "\n");
    refused(
        d,
        &["--share-file", s(&bad), "--share-file", s(&st.shares[1])],
        "checksum",
    );
    // An export of another identity.
    refused(
        d,
        &[
            "--phrase-file",
            s(&st.phrase),
            "--from-export",
            s(&other.export()),
        ],
        "the export is of",
    );
    // An existing file is never overwritten.
    let before = fs::read(&st.me.path).unwrap();
    let out = recover(d, &st.me.path, &["--phrase-file", s(&st.phrase)]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read(&st.me.path).unwrap(), before);
}

#[test]
fn the_drill_says_whether_the_words_rebuild_this_vault() {
    let st = story();
    let d = st.dir.path();
    let out = st
        .me
        .cmd()
        .args(["backup", "check", "--phrase-file", s(&st.phrase)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("generations 1, 2, 3"));
    let out = st
        .me
        .cmd()
        .args(["backup", "check", "--share-file", s(&st.shares[2])])
        .args(["--share-file", s(&st.shares[0]), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["recovers"], true);
    // Another identity's words: exit 1, and the vault is untouched.
    let other = TestVault::new(d, "other");
    let phrase = d.join("other-phrase.txt");
    write_phrase(&other, &phrase);
    let before = fs::read(&st.me.path).unwrap();
    let out = st
        .me
        .cmd()
        .args(["backup", "check", "--phrase-file", s(&phrase)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("do not rebuild this vault's identity"));
    assert_eq!(fs::read(&st.me.path).unwrap(), before);
}

#[test]
fn the_phrase_stays_out_of_json_pipes_and_existing_files() {
    let dir = tempfile::tempdir().unwrap();
    let me = TestVault::new(dir.path(), "me");
    let pw = ["--password-file", s(&me.pw)];
    // No terminal and no -o: refused before the password.
    let out = me
        .cmd()
        .args(["backup", "phrase"])
        .args(pw)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("-o FILE"));
    let out = me
        .cmd()
        .args(["backup", "phrase", "--json"])
        .args(pw)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // -o never overwrites.
    let taken = private_file(&dir.path().join("taken.txt"), "mine\n");
    let out = me
        .cmd()
        .args(["backup", "phrase", "-o", s(&taken)])
        .args(pw)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(&taken).unwrap(), "mine\n");
    // With -o and --json: the JSON says where, never the words.
    let file = dir.path().join("p.txt");
    let out = me
        .cmd()
        .args(["backup", "phrase", "--json", "-o", s(&file)])
        .args(pw)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let words: Vec<String> = fs::read_to_string(&file)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(words.len(), 24);
    let all = [out.stdout.clone(), out.stderr.clone()].concat();
    assert!(
        !shows_words(&String::from_utf8_lossy(&all), &words),
        "the phrase in the output"
    );
}

#[test]
fn doctor_reports_the_backups_and_rotate_warns_about_retiring() {
    let dir = tempfile::tempdir().unwrap();
    let me = TestVault::new(dir.path(), "me");
    let doctor = |v: &TestVault| {
        let out = v.cmd().args(["doctor", "--json"]).output().unwrap();
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        j["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "recovery")
            .cloned()
            .unwrap_or_else(|| panic!("no recovery check: {j}"))
    };
    let c = doctor(&me);
    assert_eq!(c["status"], "warn", "{c}");
    assert!(
        c["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("no recovery phrase")
            || c.to_string().contains("no recovery phrase"),
        "{c}"
    );
    write_shares(&me, 2, 3, &dir.path().join("sh"));
    let c = doctor(&me);
    assert_eq!(c["status"], "ok", "{c}");
    assert!(c.to_string().contains("2-of-3 shares written"), "{c}");
}

#[test]
fn a_vault_of_format_1_says_what_a_phrase_cannot_do() {
    use nexusq_core::identity::{NewIdentity, RootKeys};
    use nexusq_core::suite::rustcrypto::RustCrypto;
    use nexusq_core::vault::{self, BackupRecord, Facts, KdfParams, KeyDerivation, format};
    let dir = tempfile::tempdir().unwrap();
    // A vault as nexusq wrote it before format 2: random root, random generation 1.
    let id = NewIdentity::generate(&RustCrypto, nexusq_core::time::now());
    let random = RootKeys::random(nexusq_core::suite::root_sig::RootSecret::generate());
    let mut id = id;
    let root_pk = random.root().public_key(&RustCrypto);
    let fresh = nexusq_core::identity::GenerationSecrets::generate(1);
    let keys = fresh.public_keys(&RustCrypto).unwrap();
    let now = nexusq_core::time::now();
    let cert = nexusq_core::identity::Certificate::issue(
        random.root(),
        &RustCrypto,
        nexusq_core::identity::RootId::of(&root_pk),
        1,
        now,
        now + 86_400 * 30,
        keys,
        [0; 32],
        String::new(),
    );
    id.public = nexusq_core::PublicIdentity {
        root_pk,
        certificates: vec![cert],
        revocations: vec![],
    };
    id.secrets.generations = vec![fresh];
    let params = KdfParams {
        memory_kib: 8 * 1024,
        iterations: 1,
        parallelism: 1,
    };
    let salt = [3u8; 32];
    let pw = private_file(&dir.path().join("old.pw"), "old password\n");
    let key = nexusq_core::vault::Argon2id
        .derive(
            &nexusq_core::secret::Password::new(zeroize::Zeroizing::new("old password".into())),
            &salt,
            &params,
        )
        .unwrap();
    let bytes = vault::seal_vault(
        params,
        salt,
        &key,
        &Facts {
            version: format::FORMAT_V1,
            created: now,
            backups: BackupRecord::default(),
        },
        &id.public,
        &id.secrets,
        &random,
    );
    let path = dir.path().join("old.nxq");
    fs::write(&path, bytes).unwrap();
    let old = TestVault {
        dir: dir.path().to_path_buf(),
        path: path.clone(),
        pw,
    };
    // It unlocks and rotates, and stays at format 1.
    old.cmd()
        .args(["rotate", "--password-file", s(&old.pw)])
        .assert()
        .success();
    assert_eq!(&fs::read(&path).unwrap()[4..6], &[0, 1]);
    // backup phrase says plainly why not, and what to do instead.
    let out = old
        .cmd()
        .args(["backup", "phrase", "-o"])
        .arg(dir.path().join("p.txt"))
        .args(["--password-file", s(&old.pw)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("format 1") && err.contains("copy of the vault"),
        "{err}"
    );
    assert!(!dir.path().join("p.txt").exists());
}

#[test]
fn the_kit_is_a_private_self_contained_page() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let me = TestVault::new(dir.path(), "me");
    let kit = dir.path().join("kit.html");
    me.cmd()
        .args(["backup", "kit", "-o", s(&kit), "--password-file", s(&me.pw)])
        .assert()
        .success();
    assert_eq!(
        fs::metadata(&kit).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let html = fs::read_to_string(&kit).unwrap();
    assert!(html.contains(&me.fingerprint()));
    assert!(html.contains("Content-Security-Policy"));
    assert!(!html.contains("<script"));
    // The words on the page are the phrase's.
    let phrase = dir.path().join("p.txt");
    write_phrase(&me, &phrase);
    for w in fs::read_to_string(&phrase).unwrap().split_whitespace() {
        assert!(html.contains(w), "{w} missing from the kit");
    }
    // A kit of shares: one page per share given.
    write_shares(&me, 2, 2, &dir.path().join("sh"));
    let kit2 = dir.path().join("kit2.html");
    me.cmd()
        .args(["backup", "kit", "-o", s(&kit2)])
        .args(["--share-file", s(&dir.path().join("sh.1"))])
        .args(["--share-file", s(&dir.path().join("sh.2"))])
        .assert()
        .success();
    let html = fs::read_to_string(&kit2).unwrap();
    assert!(
        html.contains("share 1 of 2") || html.contains("Share 1 of 2"),
        "share pages"
    );
}

// ---------------------------------------------------------------------------------------------
// At a real terminal: the words shown once, cleared, three asked back; and typed one at a time
// with echo off, completed from their first letters.

fn at_terminal(v: &TestVault, args: &[&str]) -> crate::pty::Terminal {
    let mut c = std::process::Command::new(crate::common::BIN);
    c.arg("--vault")
        .arg(&v.path)
        .args(args)
        .current_dir(&v.dir)
        .env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env("NO_COLOR", "1");
    crate::pty::Terminal::spawn(c)
}

/// The numbered words of the screen `backup phrase` shows, in order.
fn shown_words(shown: &str) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    let tokens: Vec<&str> = shown.split_whitespace().collect();
    for w in tokens.windows(2) {
        if let Some(n) = w[0].strip_suffix('.').and_then(|n| n.parse::<usize>().ok())
            && w[1].chars().all(|c| c.is_ascii_lowercase())
        {
            found.push((n, w[1].to_string()));
        }
    }
    found.sort();
    found.dedup();
    found.into_iter().map(|(_, w)| w).collect()
}

#[test]
fn at_a_terminal_the_phrase_is_shown_once_and_three_words_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let me = TestVault::new(dir.path(), "me");
    let mut t = at_terminal(&me, &["backup", "phrase", "--password-file", s(&me.pw)]);
    t.wait_for("Press Enter when done");
    let shown = String::from_utf8_lossy(&t.shown()).into_owned();
    assert!(
        shown.contains("retire"),
        "the screen says what the words can do"
    );
    let words = shown_words(&shown);
    assert_eq!(words.len(), 24, "{shown}");
    t.type_text("\n");
    t.wait_for("\x1b[3J");
    for i in 0..3 {
        // The next question: "Word N: ", the i+1-th since the screen was cleared.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let asked = loop {
            let shown = String::from_utf8_lossy(&t.shown()).into_owned();
            let after = shown.rsplit("\x1b[3J").next().unwrap().to_string();
            if after.matches("Word ").count() == i + 1 && after.trim_end().ends_with(':') {
                let last = after.rsplit("Word ").next().unwrap();
                break last
                    .trim_end()
                    .trim_end_matches(':')
                    .parse::<usize>()
                    .unwrap();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no question {i}: {after:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        // The first four letters are enough.
        let w = &words[asked - 1];
        t.type_text(&format!("{}\n", &w[..w.len().min(4)]));
    }
    let (status, shown) = t.finish();
    let shown = String::from_utf8_lossy(&shown);
    assert!(status.success(), "{shown}");
    assert!(shown.contains("written down and confirmed"), "{shown}");
    let after_clear = shown.rsplit("\x1b[3J").next().unwrap();
    assert!(
        !shows_words(after_clear, &words),
        "the words are still on screen"
    );
    assert!(
        shows_words(&shown, &words),
        "the check sees the words when they are shown"
    );
    let out = me.cmd().args(["doctor", "--json"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("recovery phrase confirmed at a terminal"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn at_a_terminal_recover_reads_the_words_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let me = TestVault::new(dir.path(), "me");
    let phrase = dir.path().join("p.txt");
    write_phrase(&me, &phrase);
    let words: Vec<String> = fs::read_to_string(&phrase)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    private_file(&dir.path().join("new.pw"), "new password\n");
    let back = recovered(dir.path(), "back");
    let mut args = vec!["recover", "--new-password-file", "new.pw"];
    args.extend(SMALL_KDF);
    let mut t = at_terminal(&back, &args);
    // A word that is not on the list, and letters that fit many words, are asked again.
    t.wait_for("word 1 of 24: ");
    t.type_text("qqqq\n");
    t.wait_for("not a word of the BIP39 English list");
    t.type_text("a\n");
    t.wait_for("type more of the word");
    let start = |w: &String| w[..w.len().min(4)].to_string();
    // The first two words typed ahead of their prompts, as a fast typist does: echo stays
    // off between the words, so they are neither shown nor lost.
    t.type_text(&format!("{}\n{}\n", start(&words[0]), start(&words[1])));
    for (i, w) in words.iter().enumerate().skip(2) {
        t.wait_for(&format!("word {} of 24: ", i + 1));
        t.type_text(&format!("{}\n", start(w)));
    }
    let (status, shown) = t.finish();
    let shown = String::from_utf8_lossy(&shown);
    assert!(status.success(), "{shown}");
    // Echo is off: no word appears on the terminal.
    let typed_ahead = &shown[shown.find("type more of the word").unwrap()..];
    for w in &words[..2] {
        assert!(
            !typed_ahead.contains(&format!("\n{}", start(w))),
            "{w} typed ahead was echoed: {typed_ahead}"
        );
    }
    for w in &words {
        assert!(
            !shown.contains(&format!("of 24: {}", start(w))),
            "{w} echoed"
        );
    }
    assert_eq!(back.fingerprint(), me.fingerprint());
}

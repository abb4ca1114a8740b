//! Five trust gaps, each closed and checked: a revocation a relay
//! cannot strip, signing times inside the certificate's validity, `--expect-fingerprint` for
//! every recipient, confirmations that still hold under the vault's lock (with a real second
//! process in between), and `identity revoke` saying what it did.

use crate::common;
use crate::common::{BIN, TestVault};
use crate::pty;
use nexusq_core::identity::signature::{self, DetachedSignature, Trust};
use nexusq_core::identity::{
    Certificate, GenerationSecrets, NewIdentity, PublicIdentity, Revocation, RevocationScope,
    certificate, public, revocation, rotation,
};
use nexusq_core::secret::Password;
use nexusq_core::suite::hybrid_sig;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::vault::{self, Argon2id};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use zeroize::Zeroizing;

const DATA: &[u8] = b"pay 10 to bob\n";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, content).unwrap();
    p
}

fn password_of(v: &TestVault) -> Password {
    let line = fs::read_to_string(&v.pw).unwrap();
    Password::new(Zeroizing::new(line.trim_end().to_string()))
}

fn export_to(v: &TestVault, name: &str) -> PathBuf {
    let p = v.dir.join(name);
    v.cmd()
        .args(["identity", "export", "-o"])
        .arg(&p)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .success();
    p
}

fn sign(v: &TestVault, data: &Path, name: &str) -> PathBuf {
    let sig = v.dir.join(name);
    v.cmd()
        .arg("sign")
        .arg(data)
        .arg("-o")
        .arg(&sig)
        .arg("--password-file")
        .arg(&v.pw)
        .assert()
        .success();
    sig
}

fn rotate(v: &TestVault, extra: &[&str]) {
    v.cmd()
        .arg("rotate")
        .arg("--password-file")
        .arg(&v.pw)
        .args(extra)
        .assert()
        .success();
}

fn verify(v: &TestVault, data: &Path, sig: &Path, identity: &Path) -> std::process::Output {
    v.cmd()
        .arg("verify")
        .arg(data)
        .arg("--sig")
        .arg(sig)
        .arg("--identity")
        .arg(identity)
        .output()
        .unwrap()
}

fn read_export(path: &Path) -> PublicIdentity {
    let raw =
        nexusq_core::format::armor::decode(public::ARMOR_KIND, &fs::read(path).unwrap()).unwrap();
    PublicIdentity::decode(&raw).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Revocations that cannot be stripped

#[test]
fn stripping_the_statement_from_a_compromised_export_does_not_revive_the_old_key() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    let data = write(dir.path(), "data", DATA);
    let before = export_to(&v, "before.pub");
    let sig1 = sign(&v, &data, "g1.sig");
    rotate(&v, &["--compromised", "--reason", "phone stolen"]);

    // The relay's edit: decode the export, drop the revocation statement, re-armor.
    let mut stripped = read_export(&export_to(&v, "after.pub"));
    assert_eq!(
        stripped.revocations.len(),
        1,
        "the statement is still written"
    );
    assert_eq!(stripped.newest().signing_revoked_before, 2);
    stripped.revocations.clear();
    let stripped_path = write(dir.path(), "stripped.pub", stripped.to_armor());
    let out = verify(&v, &data, &sig1, &stripped_path);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("generation 1")
            && err.contains("revoked")
            && err.contains("certificate of generation 2"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // `identity show` says what the certificate carries.
    let out = v
        .cmd()
        .args(["identity", "show"])
        .arg(&stripped_path)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        text(&out.stdout).contains("revokes the signing keys of generations before 2"),
        "{}",
        text(&out.stdout)
    );

    // Later plain rotations carry the fact forward: the newest certificate alone is enough.
    rotate(&v, &[]);
    let mut later = read_export(&export_to(&v, "later.pub"));
    assert_eq!(later.newest().generation, 3);
    later.revocations.clear();
    let later_path = write(dir.path(), "later-stripped.pub", later.to_armor());
    assert_eq!(verify(&v, &data, &sig1, &later_path).status.code(), Some(1));
    let sig3 = sign(&v, &data, "g3.sig");
    assert_eq!(verify(&v, &data, &sig3, &later_path).status.code(), Some(0));

    // What remains, and security.md says so: whoever relays exports can withhold the new
    // one; an export from before the compromise still accepts the old key.
    assert_eq!(verify(&v, &data, &sig1, &before).status.code(), Some(0));
}

#[test]
fn version_1_certificates_still_verify() {
    let now = nexusq_core::time::now();
    let id = NewIdentity::generate(&RustCrypto, now - 1_000);
    let root_id = id.public.root_id();
    // Generation 1 as nexusq wrote it before version 2: no revocation field.
    let mut v1 = id.public.newest().clone();
    v1.version = certificate::VERSION_1;
    v1.signature = id
        .keys
        .root()
        .sign(&RustCrypto, &v1.to_be_signed(), certificate::CONTEXT);
    assert_eq!(v1.encode()[4], 1);
    let old = PublicIdentity {
        root_pk: id.public.root_pk,
        certificates: vec![v1.clone()],
        revocations: vec![],
    };
    let parsed =
        nexusq_core::identity::peer::parse_export(old.to_armor().as_bytes(), "old", &RustCrypto)
            .unwrap();
    assert_eq!(parsed, old);
    let seeds1 = id.secrets.generations[0].sig.as_ref().unwrap();
    let digest = signature::digest(DATA);
    let sig1 = signature::sign(
        &RustCrypto,
        &id.public.root_pk,
        &v1,
        seeds1,
        &digest,
        now,
        &[1; 32],
    )
    .unwrap();
    let sig1 = DetachedSignature::parse(sig1.to_armor().as_bytes(), "sig").unwrap();
    let trust = |identity| Trust::Identity {
        identity,
        expected: None,
    };
    assert!(signature::verify(&RustCrypto, trust(&old), &sig1, &digest).is_ok());
    let fp = root_id.fingerprint();
    assert!(signature::verify(&RustCrypto, Trust::Fingerprint(fp), &sig1, &digest).is_ok());
    // A version 2 generation chained to it: both verify, the old one superseded.
    let gen2 = GenerationSecrets::generate(2);
    let cert2 = Certificate::issue(
        id.keys.root(),
        &RustCrypto,
        root_id,
        2,
        now - 500,
        now + 86_400,
        gen2.public_keys(&RustCrypto).unwrap(),
        v1.hash(),
        String::new(),
    );
    let mixed = PublicIdentity {
        certificates: vec![v1, cert2.clone()],
        ..old.clone()
    };
    mixed.check_structure().unwrap();
    mixed.verify_signatures(&RustCrypto).unwrap();
    let ok = signature::verify(&RustCrypto, trust(&mixed), &sig1, &digest).unwrap();
    assert!(ok.superseded);
    // And the version 1 statement still revokes generation 1 where it is all there is.
    let statement = Revocation::issue(
        id.keys.root(),
        &RustCrypto,
        root_id,
        RevocationScope::SigningKeysBefore(2),
        now,
        "compromised".into(),
    );
    let with_statement = PublicIdentity {
        revocations: vec![statement],
        ..mixed.clone()
    };
    assert!(signature::verify(&RustCrypto, trust(&with_statement), &sig1, &digest).is_err());
}

// ---------------------------------------------------------------------------------------------
// Signing time inside the certificate's window

/// A signature over DATA claiming `signed_at`, made with the key directly (the holder of a
/// signing key can write any time; `sign` cannot be made to).
fn signed_at(id: &NewIdentity, signed_at: u64) -> DetachedSignature {
    let cert = id.public.newest();
    let seeds = id.secrets.generations[0].sig.as_ref().unwrap();
    let ctx = signature::context(&id.public.root_id(), 1, signed_at);
    DetachedSignature {
        root_pk: id.public.root_pk,
        signed_at,
        certificate: cert.clone(),
        signature: hybrid_sig::sign_prehashed(
            &RustCrypto,
            &seeds.mldsa_xi,
            &seeds.ed25519,
            &signature::digest(DATA),
            &ctx,
            &[3; 32],
        )
        .unwrap(),
    }
}

#[test]
fn a_signing_time_outside_the_certificate_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let now = nexusq_core::time::now();
    let id = NewIdentity::generate(&RustCrypto, now - 86_400);
    let cert = id.public.newest().clone();
    let export = write(dir.path(), "id.pub", id.public.to_armor());
    let data = write(dir.path(), "data", DATA);
    let fp = id.public.root_id().fingerprint().to_string();
    let year = 365 * 86_400;
    let cases = [
        (cert.created - year, Some(1), "before generation 1"),
        (cert.created - 600, Some(1), "before generation 1"),
        (cert.created - 60, Some(0), ""),
        (cert.created + 10, Some(0), ""),
        (cert.not_after + 60, Some(0), ""),
        (cert.not_after + 600, Some(1), "after generation 1"),
    ];
    for (t, code, word) in cases {
        let sig = write(dir.path(), "s.sig", signed_at(&id, t).to_armor());
        for trust in [
            ["--identity", export.to_str().unwrap()],
            ["--expect-fingerprint", &fp],
        ] {
            let out = common::bin()
                .arg("verify")
                .arg(&data)
                .arg("--sig")
                .arg(&sig)
                .args(trust)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), code, "{t}: {}", text(&out.stderr));
            if code == Some(1) {
                let err = text(&out.stderr);
                assert!(err.contains(word) && err.contains("(claimed)"), "{err}");
                assert!(err.contains("minutes of clock skew"), "{err}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// --expect-fingerprint means every one

#[test]
fn every_expected_fingerprint_must_be_a_recipient() {
    let dir = tempfile::tempdir().unwrap();
    let a = TestVault::new(dir.path(), "a");
    let b = TestVault::new(dir.path(), "b");
    let (fa, fb) = (a.fingerprint(), b.fingerprint());
    let a_pub = a.export();
    let b_pub = b.export();
    let data = write(dir.path(), "data", DATA);
    let encrypt = |to: &[&Path], out: &Path| {
        let mut c = common::bin();
        c.arg("encrypt");
        for t in to {
            c.arg("--to").arg(t);
        }
        c.args(["--expect-fingerprint", &fa, "--expect-fingerprint", &fb])
            .arg("-o")
            .arg(out)
            .arg(&data)
            .output()
            .unwrap()
    };
    let good = dir.path().join("good.nxqf");
    assert!(encrypt(&[&a_pub, &b_pub], &good).status.success());
    // B's file replaced by a copy of A's: the two collapse into one recipient, and B would be
    // dropped without a word.
    let swapped = write(dir.path(), "b-swapped.pub", fs::read(&a_pub).unwrap());
    let ct = dir.path().join("ct.nxqf");
    let out = encrypt(&[&a_pub, &swapped], &ct);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("no recipient has the expected fingerprint {fb}")),
        "{err}"
    );
    assert!(!ct.exists());
    // Encapsulate: one recipient, two expectations.
    let env = dir.path().join("k.env");
    let out = common::bin()
        .arg("encapsulate")
        .arg("--to")
        .arg(&a_pub)
        .args(["--expect-fingerprint", &fa, "--expect-fingerprint", &fb])
        .arg("-o")
        .arg(&env)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(&fb), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "no secret printed");
    assert!(!env.exists());
}

// ---------------------------------------------------------------------------------------------
// What was confirmed, checked under the lock

/// `nexusq --vault <v>` at a terminal, NO_COLOR.
fn terminal_cmd(v: &TestVault, args: &[&str]) -> pty::Terminal {
    let mut c = Command::new(BIN);
    c.env_remove("NEXUSQ_VAULT")
        .env_remove("NEXUSQ_BACKEND")
        .env("NO_COLOR", "1")
        .arg("--vault")
        .arg(&v.path)
        .args(args);
    pty::Terminal::spawn(c)
}

#[test]
fn a_rotation_between_confirmation_and_lock_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    rotate(&v, &[]);
    rotate(&v, &[]);
    let pw = v.pw.to_str().unwrap().to_string();
    // The user asks to keep the newest 2 (counting the new one) and is shown 1, 2.
    let mut user = terminal_cmd(
        &v,
        &["rotate", "--retire-older-than", "2", "--password-file", &pw],
    );
    user.wait_for("generations 1, 2 from this vault?");
    user.wait_for("[y/N] ");
    // Meanwhile the weekly job rotates (a real second process): now 1, 2, 3 would go.
    rotate(&v, &[]);
    let after_job = fs::read(&v.path).unwrap();
    user.type_text("y\n");
    let (status, shown) = user.finish();
    assert_eq!(status.code(), Some(5), "{}", text(&shown));
    let shown = text(&shown);
    assert!(
        shown.contains("changed after you confirmed")
            && shown.contains("generations 1, 2, 3 instead of the confirmed 1, 2")
            && shown.contains("nothing was changed"),
        "{shown}"
    );
    assert_eq!(fs::read(&v.path).unwrap(), after_job, "the vault changed");
    assert_eq!(v.open_json()["generation"], 4);

    // The same through the library, the set confirmed from a read before the lock.
    let pwd = password_of(&v);
    let confirmed = rotation::retire_set(&vault::open(&v.path).unwrap().public, 2);
    assert_eq!(confirmed, vec![1, 2, 3]);
    rotate(&v, &[]); // the second process again
    let snapshot = fs::read(&v.path).unwrap();
    let opts = rotation::RotateOptions {
        validity_days: 30,
        retire_older_than: Some(2),
        confirmed_retire: Some(confirmed),
        ..Default::default()
    };
    let now = nexusq_core::time::now();
    let e = vault::rotate(&v.path, &pwd, &Default::default(), &opts, &RustCrypto, now).unwrap_err();
    assert_eq!(e.kind(), nexusq_core::error::ErrorKind::Io);
    assert_eq!(fs::read(&v.path).unwrap(), snapshot);
    // Confirmed against the current state, it goes through and retires exactly that.
    let opts = rotation::RotateOptions {
        confirmed_retire: Some(rotation::retire_set(
            &vault::open(&v.path).unwrap().public,
            2,
        )),
        ..opts
    };
    let (report, _) =
        vault::rotate(&v.path, &pwd, &Default::default(), &opts, &RustCrypto, now).unwrap();
    assert_eq!(report.retired, vec![1, 2, 3, 4]);
}

#[test]
fn passwd_stops_when_the_kdf_changed_while_it_waited() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    let pw = v.pw.to_str().unwrap().to_string();
    // --kdf-iterations 2 keeps the memory it reads now (8 MiB); the new password is typed.
    let mut user = terminal_cmd(
        &v,
        &[
            "vault",
            "passwd",
            "--password-file",
            &pw,
            "--kdf-iterations",
            "2",
        ],
    );
    user.wait_for("New password for ");
    // Meanwhile another passwd (a real second process) raises the memory to 9 MiB.
    v.cmd()
        .args(["vault", "passwd", "--password-file"])
        .arg(&v.pw)
        .arg("--new-password-file")
        .arg(&v.pw)
        .args(["--kdf-memory-mib", "9", "--kdf-iterations", "1"])
        .assert()
        .success();
    let after_other = fs::read(&v.path).unwrap();
    user.type_text("a new password\n");
    user.wait_for(" again: ");
    user.type_text("a new password\n");
    let (status, shown) = user.finish();
    assert_eq!(status.code(), Some(5), "{}", text(&shown));
    let shown = text(&shown);
    assert!(
        shown.contains("password hashing changed") && shown.contains("nothing was changed"),
        "{shown}"
    );
    assert_eq!(fs::read(&v.path).unwrap(), after_other);
    let header = vault::open(&v.path).unwrap().header;
    assert_eq!(
        (header.kdf.memory_kib, header.kdf.iterations),
        (9 * 1024, 1)
    );
    assert!(
        vault::open(&v.path)
            .unwrap()
            .unlock(&password_of(&v), &Argon2id, &RustCrypto)
            .is_ok()
    );
    // Without the race, the same command works (here with the password file as the new one).
    v.cmd()
        .args(["vault", "passwd", "--password-file"])
        .arg(&v.pw)
        .arg("--new-password-file")
        .arg(&v.pw)
        .args(["--kdf-iterations", "2"])
        .assert()
        .success();
    let header = vault::open(&v.path).unwrap().header;
    assert_eq!(
        (header.kdf.memory_kib, header.kdf.iterations),
        (9 * 1024, 2)
    );
}

// ---------------------------------------------------------------------------------------------
// identity revoke says what it did

#[test]
fn revoking_signing_keys_does_not_claim_the_identity_is_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let v = TestVault::new(dir.path(), "v");
    rotate(&v, &[]);
    let fp = v.fingerprint();
    let unlocked = vault::open(&v.path)
        .unwrap()
        .unlock(&password_of(&v), &Argon2id, &RustCrypto)
        .unwrap();
    let root = unlocked.root(&RustCrypto).unwrap();
    let statement = Revocation::issue(
        root.root(),
        &RustCrypto,
        unlocked.file.public.root_id(),
        RevocationScope::SigningKeysBefore(2),
        nexusq_core::time::now(),
        "old phone".into(),
    );
    drop(unlocked);
    let file = write(
        dir.path(),
        "before2.asc",
        nexusq_core::format::armor::encode(revocation::ARMOR_KIND, &statement.encode()),
    );
    let out = v
        .cmd()
        .args(["identity", "revoke", "--yes"])
        .arg(&file)
        .arg("--password-file")
        .arg(&v.pw)
        .arg("-o")
        .arg(dir.path().join("out.pub"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("signing keys of generations before 2")
            && err.contains("the identity itself is not revoked"),
        "{err}"
    );
    assert!(
        !err.contains(&format!("identity {fp} is now marked revoked")),
        "{err}"
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["revoked"], false);
    assert_eq!(j["scope"], "signing keys before generation 2");
    assert_eq!(j["newly_added"], true);
    // The identity is indeed still usable: encrypting to the new export works.
    let data = write(dir.path(), "data", DATA);
    common::bin()
        .arg("encrypt")
        .arg("--to")
        .arg(dir.path().join("out.pub"))
        .arg("-o")
        .arg(dir.path().join("ct"))
        .arg(&data)
        .assert()
        .success();
}

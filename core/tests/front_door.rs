//! The library's front door, used as a program outside the crate uses it (the public API
//! only): Encryptor, Decryptor, Signer and Verifier, with one Policy. Two throwaway vaults,
//! alice and bob, each with the other in the contacts book.

use nexusq_core::contacts::{ContactKey, store};
use nexusq_core::identity::signature::Signature;
use nexusq_core::recipients::{AgeRecipient, RecipientKind, Recipients};
use nexusq_core::session::AgentUse;
use nexusq_core::suite::hybrid_kem::KemLevel;
use nexusq_core::vault::{self, Argon2id, SaveOptions};
use nexusq_core::{
    Backend, BackendChoice, DecryptError, Decryptor, EncryptError, Encryptor, ErrorKind, Format,
    KdfParams, KeySource, KnownPassword, Password, Policy, PublicIdentity, Signer, Verifier,
};
use std::io::Read;
use std::path::{Path, PathBuf};

const PASSWORD: &str = "correct horse battery staple";

fn backend() -> &'static dyn Backend {
    BackendChoice::Native.backend().unwrap()
}

fn now() -> u64 {
    nexusq_core::time::now()
}

/// A vault at DIR/NAME.nxq, with the cheapest Argon2id a vault may name.
fn new_vault(dir: &Path, name: &str) -> (PathBuf, PublicIdentity) {
    // One folder each: the contacts book lives beside its vault.
    let folder = dir.join(name);
    std::fs::create_dir(&folder).unwrap();
    let path = folder.join("vault.nxq");
    let params = KdfParams {
        memory_kib: vault::kdf::MIN_MEMORY_KIB,
        iterations: 1,
        parallelism: 1,
    };
    let created = vault::create(
        &path,
        &password(),
        params,
        &SaveOptions::default(),
        backend(),
        now(),
        |_| Ok(()),
    )
    .unwrap();
    (path, created.public)
}

fn password() -> Password {
    Password::new(PASSWORD.to_string().into())
}

/// Add `them` to the book of the vault at `path` as `name`, verified.
fn add_contact(path: &Path, name: &str, them: &PublicIdentity) {
    let unlocked = vault::open(path)
        .unwrap()
        .unlock(&password(), &Argon2id, backend())
        .unwrap();
    let owner = store::Owner {
        vault: path,
        public: &unlocked.file.public,
        secrets: &unlocked.secrets,
    };
    let key = ContactKey::Identity(them.export(false));
    store::modify(
        &store::default_path(path),
        &SaveOptions::default(),
        &owner,
        backend(),
        now(),
        |book| book.add(name, key, true, now()).map(|_| ()),
    )
    .unwrap();
}

struct Pair {
    _dir: tempfile::TempDir,
    alice: PathBuf,
    bob: PathBuf,
}

fn pair() -> Pair {
    let dir = tempfile::tempdir().unwrap();
    let (alice, alice_id) = new_vault(dir.path(), "alice");
    let (bob, bob_id) = new_vault(dir.path(), "bob");
    add_contact(&alice, "bob", &bob_id);
    add_contact(&bob, "alice", &alice_id);
    Pair {
        _dir: dir,
        alice,
        bob,
    }
}

/// Encrypt to the contact NAME of the vault at `path`, in `asked` (or the format it calls for).
fn encrypt_to_contact(path: &Path, name: &str, asked: Option<Format>, armor: bool) -> Vec<u8> {
    let own = vault::open(path).unwrap().public;
    let book = store::load(&store::default_path(path), Some(&own), backend())
        .unwrap()
        .book;
    let callbacks = KnownPassword::new(PASSWORD);
    let mut to = Recipients::new(Vec::new());
    to.add_contact(book.get(name).unwrap(), now(), &callbacks)
        .unwrap();
    let to = to.finish_all().unwrap();
    let policy = Policy::default();
    let encryptor = Encryptor::new(&to.all(), asked, KemLevel::MlKem768, now(), &policy).unwrap();
    let mut file = Vec::new();
    let n = encryptor
        .encrypt(backend(), &mut &b"meet at noon"[..], &mut file, armor)
        .unwrap();
    assert_eq!(n, 12);
    file
}

fn decrypt(
    path: &Path,
    file: &[u8],
    policy: &Policy,
) -> Result<(Vec<u8>, nexusq_core::Opened), DecryptError> {
    let callbacks = KnownPassword::new(PASSWORD);
    let mut keys = KeySource::open(path, backend(), AgentUse::Never, &callbacks).unwrap();
    let decryptor = Decryptor::new(file).expect("read from memory");
    let mut plaintext = decryptor.decrypt(&mut keys, &callbacks, policy, now())?;
    let mut out = Vec::new();
    plaintext
        .read_to_end(&mut out)
        .map_err(|e| DecryptError::from_read(plaintext.opened().format, e))?;
    Ok((out, plaintext.opened().clone()))
}

#[test]
fn encryptor_writes_to_a_contact_in_nexusq_and_age_and_the_decryptor_opens_both() {
    let p = pair();
    for (asked, format, armor) in [
        (None, Format::Nexusq, false),
        (None, Format::Nexusq, true),
        (Some(Format::Age), Format::Age, false),
        (Some(Format::Age), Format::Age, true),
    ] {
        let file = encrypt_to_contact(&p.alice, "bob", asked, armor);
        let (plain, opened) = decrypt(&p.bob, &file, &Policy::default()).unwrap();
        assert_eq!(plain, b"meet at noon");
        assert_eq!((opened.format, opened.armored), (format, armor));
        assert_eq!(opened.generation, Some(1));
        assert!(!opened.superseded);
        assert!(!opened.sender_authenticated);
        // Not for alice: her keys open nothing, and say so as a typed error.
        assert!(decrypt(&p.alice, &file, &Policy::default()).is_err());
    }
}

#[test]
fn encryptor_to_oneself_in_openpgp_and_the_decryptor_opens_it() {
    let p = pair();
    let own = vault::open(&p.alice).unwrap().public;
    let mut to = Recipients::new(Vec::new());
    to.add_own(own, &p.alice, backend()).unwrap();
    let to = to.finish_all().unwrap();
    let policy = Policy::default();
    let asked = Some(Format::OpenPgp);
    let encryptor = Encryptor::new(&to.all(), asked, KemLevel::MlKem768, now(), &policy).unwrap();
    assert_eq!(encryptor.format(), Format::OpenPgp);
    let mut file = Vec::new();
    encryptor
        .encrypt(backend(), &mut &b"a note to self"[..], &mut file, true)
        .unwrap();
    assert!(file.starts_with(b"-----BEGIN PGP MESSAGE-----"));
    let (plain, opened) = decrypt(&p.alice, &file, &Policy::default()).unwrap();
    assert_eq!(plain, b"a note to self");
    assert_eq!(opened.format, Format::OpenPgp);

    // A policy without OpenPGP reads none.
    let nexusq_only = Policy {
        formats: vec![Format::Nexusq],
        ..Policy::default()
    };
    match decrypt(&p.alice, &file, &nexusq_only) {
        Err(DecryptError::NotAllowed(Format::OpenPgp)) => {}
        other => panic!("{:?}", other.map(|(_, o)| o)),
    }
}

#[test]
fn encryptor_follows_the_recipients_format_and_refuses_a_mix() {
    let p = pair();
    let own = vault::open(&p.bob).unwrap().public;
    let xwing = own.newest().keys.xwing.clone();
    let mut to = Recipients::new(Vec::new());
    to.add_age(AgeRecipient { public_key: xwing }, "bob's age key".into());
    let to = to.finish_all().unwrap();
    let policy = Policy::default();
    let level = KemLevel::MlKem768;
    // An age key calls for age.
    let encryptor = Encryptor::new(&to.all(), None, level, now(), &policy).unwrap();
    assert_eq!(encryptor.format(), Format::Age);
    let mut file = Vec::new();
    encryptor
        .encrypt(backend(), &mut &b"x"[..], &mut file, false)
        .unwrap();
    assert_eq!(decrypt(&p.bob, &file, &policy).unwrap().0, b"x");
    // ...and cannot be in an OpenPGP message: refused, naming the recipient and the format.
    match Encryptor::new(&to.all(), Some(Format::OpenPgp), level, now(), &policy) {
        Err(EncryptError::Mixed {
            index: 0,
            kind: RecipientKind::AgeKey,
            format: Format::OpenPgp,
        }) => {}
        other => panic!("{:?}", other.err()),
    }
    // Age has one hybrid KEM.
    assert!(matches!(
        Encryptor::new(&to.all(), None, KemLevel::MlKem1024, now(), &policy),
        Err(EncryptError::Level(Format::Age))
    ));
    // Nobody at all.
    let nobody = Recipients::new(Vec::new()).finish_all().unwrap();
    assert!(matches!(
        Encryptor::new(&nobody.all(), None, level, now(), &policy),
        Err(EncryptError::NoRecipient(Format::Nexusq))
    ));
}

#[test]
fn signer_signs_and_the_verifier_judges_against_the_book() {
    let p = pair();
    let callbacks = KnownPassword::new(PASSWORD);
    let mut keys = KeySource::open(&p.alice, backend(), AgentUse::Never, &callbacks).unwrap();
    let sig = Signer::new(&mut keys, Policy::default())
        .sign(&b"the minutes"[..], now(), &callbacks)
        .unwrap();
    drop(keys);
    let sig = Signature::parse(sig.to_armor().as_bytes(), "the signature").unwrap();

    // Bob's book knows alice: a good signature, by his contact alice.
    let verifier = Verifier::for_vault(&p.bob, backend())
        .unwrap()
        .with_default_book(backend())
        .unwrap();
    let trusted = verifier.signer_of(&sig).unwrap();
    assert_eq!(trusted.contact.as_ref().unwrap().name, "alice");
    assert!(trusted.is_fully_trusted());
    let ok = trusted
        .verify(backend(), &sig, &b"the minutes"[..])
        .unwrap();
    assert_eq!(ok.verified.generation, 1);
    assert!(!ok.newer_than_book);
    let e = trusted
        .verify(backend(), &sig, &b"the minutes, edited"[..])
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CheckFailed);

    // Without the book, alice is nobody bob trusts.
    let alone = Verifier::for_vault(&p.bob, backend()).unwrap();
    let unknown = alone.signer_of(&sig).err().unwrap();
    assert_eq!(unknown.signer, sig.root_id());
}

#[test]
fn signer_refuses_a_revoked_identity_unless_the_policy_allows_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vault.nxq");
    let params = KdfParams {
        memory_kib: vault::kdf::MIN_MEMORY_KIB,
        iterations: 1,
        parallelism: 1,
    };
    let mut statement = None;
    let opts = SaveOptions::default();
    vault::create(&path, &password(), params, &opts, backend(), now(), |r| {
        statement = Some(r.clone());
        Ok(())
    })
    .unwrap();
    vault::publish_revocation(&path, &password(), &opts, statement.unwrap(), backend()).unwrap();

    let callbacks = KnownPassword::new(PASSWORD);
    let mut keys = KeySource::open(&path, backend(), AgentUse::Never, &callbacks).unwrap();
    let mut signer = Signer::new(&mut keys, Policy::default());
    let e = signer.check().unwrap_err();
    assert!(
        e.message()
            .contains("is revoked, so others refuse its signatures")
    );
    let e = signer.sign(&b"x"[..], now(), &callbacks).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CheckFailed);
    let anyway = Policy {
        allow_revoked: true,
        ..Policy::default()
    };
    Signer::new(&mut keys, anyway)
        .sign(&b"x"[..], now(), &callbacks)
        .unwrap();
}

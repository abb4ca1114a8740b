//! All 143 CCTV age testkit vectors (../shared/vectors/cctv/age/testdata, README.md there)
//! through the library decryptor, `nexusq_core::format::age`.
//!
//! Every `success` vector with X25519 or hybrid identities decrypts to its payload hash; every
//! failure vector fails with its class; for `payload failure` the plaintext released before the
//! error matches the payload hash. Passphrase (scrypt) files are unsupported: their
//! `success` and `no match` vectors must fail with the "unsupported" class (the header-failure
//! ones still fail as header failures, structure being checked first). No other aliasing.

use nexusq_core::format::age::{self, ErrorClass, Format, Identity};
use nexusq_core::suite::Backend;
use nexusq_core::suite::native::Native;
use nexusq_core::suite::rustcrypto::RustCrypto;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::PathBuf;

fn dir() -> PathBuf {
    nexusq_testkit::vector_path("cctv/age/testdata")
}

struct Vector {
    name: String,
    expect: String,
    payload: Option<String>,
    identities: Vec<String>,
    passphrases: usize,
    armored: bool,
    file: Vec<u8>,
}

fn load(name: &str) -> Vector {
    let raw = std::fs::read(dir().join(name)).unwrap();
    let split = raw
        .windows(2)
        .position(|w| w == b"\n\n")
        .expect("a blank line ends the vector's header");
    let head = std::str::from_utf8(&raw[..split]).unwrap();
    let mut body = raw[split + 2..].to_vec();
    let mut v = Vector {
        name: name.into(),
        expect: String::new(),
        payload: None,
        identities: vec![],
        passphrases: 0,
        armored: false,
        file: vec![],
    };
    let mut compressed = false;
    for line in head.lines() {
        let (k, val) = line.split_once(": ").unwrap();
        match k {
            "expect" => v.expect = val.into(),
            "payload" => v.payload = Some(val.into()),
            "identity" => v.identities.push(val.into()),
            "passphrase" => v.passphrases += 1,
            "armored" => v.armored = val == "yes",
            "compressed" => {
                assert_eq!(val, "zlib");
                compressed = true
            }
            "file key" | "comment" => {}
            other => panic!("{name}: unknown key {other}"),
        }
    }
    if compressed {
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(&body[..])
            .read_to_end(&mut out)
            .unwrap();
        body = out;
    }
    v.file = body;
    v
}

fn names() -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    n.sort();
    n
}

/// Decrypt through the library as `nexusq decrypt` does: recognise armor, else binary.
fn run(backend: &dyn Backend, v: &Vector) -> (Result<age::Decrypted, age::AgeError>, Vec<u8>) {
    let ids: Vec<Identity> = v
        .identities
        .iter()
        .map(|s| age::recipient::parse_identity(s).unwrap())
        .collect();
    let keys: Vec<_> = ids.iter().map(|i| i.expand(backend)).collect();
    let refs: Vec<_> = keys.iter().map(age::Key::as_ref).collect();
    let format = age::sniff(&v.file[..v.file.len().min(age::SNIFF_LEN)]).unwrap_or(Format::Binary);
    let mut input = age::reader(&v.file[..], format);
    let mut out = Vec::new();
    let r = age::decrypt(&refs, &mut input, &mut out);
    (r, out)
}

fn hash(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

fn check(backend: &dyn Backend, v: &Vector) {
    let (r, out) = run(backend, v);
    // scrypt_uppercase has a passphrase but its stanza type is "Scrypt", an unknown type: it
    // is a plain "no match".
    let scrypt = v.passphrases > 0 && v.name != "scrypt_uppercase";
    let want = match (v.expect.as_str(), scrypt) {
        ("success", false) => None,
        ("success" | "no match", true) => Some(ErrorClass::Unsupported),
        ("no match", false) => Some(ErrorClass::NoMatch),
        ("HMAC failure", _) => Some(ErrorClass::Hmac),
        ("header failure", _) => Some(ErrorClass::Header),
        ("payload failure", _) => Some(ErrorClass::Payload),
        ("armor failure", _) => Some(ErrorClass::Armor),
        (e, _) => panic!("{}: unknown expectation {e}", v.name),
    };
    match (want, r) {
        (None, Ok(d)) => {
            assert_eq!(Some(hash(&out)), v.payload, "{}: payload", v.name);
            assert_eq!(d.bytes, out.len() as u64);
        }
        (Some(class), Err(e)) => {
            assert_eq!(e.class(), class, "{}: {e}", v.name);
            if class == ErrorClass::Payload {
                assert_eq!(
                    Some(hash(&out)),
                    v.payload,
                    "{}: released plaintext",
                    v.name
                );
            } else {
                assert!(out.is_empty(), "{}: released plaintext on {e}", v.name);
            }
        }
        (want, got) => panic!("{}: expected {want:?}, got {got:?}", v.name),
    }
}

#[test]
fn all_143_vectors_through_the_library() {
    nexusq_testkit::skip_without_vectors!();
    let names = names();
    assert_eq!(names.len(), 143);
    let mut hybrid = 0;
    for name in &names {
        let v = load(name);
        check(&RustCrypto, &v);
        if v.identities
            .iter()
            .any(|i| i.starts_with("AGE-SECRET-KEY-PQ-"))
        {
            check(&Native, &v);
            hybrid += 1;
        }
    }
    // hybrid*, armor_hybrid, and the hybrid_x25519_arg vector with both identity kinds.
    assert!(hybrid >= 19, "{hybrid}");
}

#[test]
fn the_19_hybrid_vectors_are_all_there() {
    nexusq_testkit::skip_without_vectors!();
    let n = names()
        .into_iter()
        .filter(|n| n.starts_with("hybrid") || n == "armor_hybrid")
        .count();
    assert_eq!(n, 19);
}

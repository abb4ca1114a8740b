//! A command-line OpenPGP peer on rpgp for nexusq's interop tests (tests/interop/rpgp.rs).
//! Files in, files out; exits non-zero with a message on any failure.
//!
//! ```text
//! rpgp-peer gen TSK CERT          v6 key: ML-DSA-65+Ed25519 primary, ML-KEM-768+X25519 subkey
//! rpgp-peer inspect CERT          primary fingerprint (hex), then one line per key
//! rpgp-peer encrypt CERT IN OUT   armored SEIPD v2 (AES-256, OCB) message, PKESK v6, to the
//!                                 newest ML-KEM-768+X25519 subkey
//! rpgp-peer decrypt TSK IN OUT    binary or armored message
//! rpgp-peer sign TSK IN SIG       armored detached signature by the primary key
//! rpgp-peer verify CERT IN SIG    exit 0 iff SIG is a good signature of IN by a key of CERT
//! ```

use std::fs;
use std::io::BufReader;
use std::process::ExitCode;

use pgp::{
    composed::{
        ArmorOptions, Deserializable, DetachedSignature, EncryptionCaps, KeyType, Message,
        MessageBuilder, SecretKeyParamsBuilder, SignedPublicKey, SignedSecretKey,
        SubkeyParamsBuilder,
    },
    crypto::{
        aead::{AeadAlgorithm, ChunkSize},
        hash::HashAlgorithm,
        public_key::PublicKeyAlgorithm,
        sym::SymmetricKeyAlgorithm,
    },
    types::{KeyDetails, KeyVersion, Password},
};
use rand::thread_rng;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["gen", tsk, cert] => gen(tsk, cert),
        ["inspect", cert] => inspect(cert),
        ["encrypt", cert, input, out] => encrypt(cert, input, out),
        ["decrypt", tsk, input, out] => decrypt(tsk, input, out),
        ["sign", tsk, input, sig] => sign(tsk, input, sig),
        ["verify", cert, input, sig] => verify(cert, input, sig),
        _ => Err(
            "usage: rpgp-peer gen TSK CERT | inspect CERT | encrypt CERT IN OUT | \
                  decrypt TSK IN OUT | sign TSK IN SIG | verify CERT IN SIG"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rpgp-peer: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read_cert(path: &str) -> Result<SignedPublicKey> {
    let (cert, _) = SignedPublicKey::from_reader_single(BufReader::new(fs::File::open(path)?))?;
    cert.verify_bindings()?;
    Ok(cert)
}

fn read_tsk(path: &str) -> Result<SignedSecretKey> {
    let (tsk, _) = SignedSecretKey::from_reader_single(BufReader::new(fs::File::open(path)?))?;
    tsk.verify_bindings()?;
    Ok(tsk)
}

fn gen(tsk: &str, cert: &str) -> Result<()> {
    let params = SecretKeyParamsBuilder::default()
        .version(KeyVersion::V6)
        .key_type(KeyType::MlDsa65Ed25519)
        .can_certify(true)
        .can_sign(true)
        .can_encrypt(EncryptionCaps::None)
        .primary_user_id("Carol <carol@example.org>".into())
        .passphrase(None)
        .preferred_symmetric_algorithms([SymmetricKeyAlgorithm::AES256].into_iter().collect())
        .preferred_hash_algorithms(
            [HashAlgorithm::Sha3_512, HashAlgorithm::Sha3_256]
                .into_iter()
                .collect(),
        )
        .preferred_aead_algorithms(
            [(SymmetricKeyAlgorithm::AES256, AeadAlgorithm::Ocb)]
                .into_iter()
                .collect(),
        )
        .subkey(
            SubkeyParamsBuilder::default()
                .version(KeyVersion::V6)
                .key_type(KeyType::MlKem768X25519)
                .can_encrypt(EncryptionCaps::All)
                .passphrase(None)
                .build()?,
        )
        .build()?;
    let key = params.generate(thread_rng())?;
    key.verify_bindings()?;
    fs::write(tsk, key.to_armored_string(ArmorOptions::default())?)?;
    let public = SignedPublicKey::from(key);
    fs::write(cert, public.to_armored_string(ArmorOptions::default())?)?;
    Ok(())
}

fn inspect(cert: &str) -> Result<()> {
    let cert = read_cert(cert)?;
    println!("{}", cert.primary_key.fingerprint());
    println!("primary {:?}", cert.primary_key.algorithm());
    for sub in &cert.public_subkeys {
        println!("subkey {:?}", sub.key.algorithm());
    }
    Ok(())
}

fn encrypt(cert: &str, input: &str, out: &str) -> Result<()> {
    let cert = read_cert(cert)?;
    // The newest ML-KEM-768+X25519 subkey (the last of equals): after a rotation, nexusq's
    // certificate holds one per generation.
    let sub = cert
        .public_subkeys
        .iter()
        .filter(|s| s.key.algorithm() == PublicKeyAlgorithm::MlKem768X25519)
        .max_by_key(|s| s.key.created_at())
        .ok_or("the certificate has no ML-KEM-768+X25519 subkey")?;
    let mut rng = thread_rng();
    let mut builder = MessageBuilder::from_bytes("", fs::read(input)?).seipd_v2(
        &mut rng,
        SymmetricKeyAlgorithm::AES256,
        AeadAlgorithm::Ocb,
        ChunkSize::default(),
    );
    builder.encrypt_to_key(&mut rng, sub)?;
    fs::write(
        out,
        builder.to_armored_string(&mut rng, ArmorOptions::default())?,
    )?;
    Ok(())
}

fn decrypt(tsk: &str, input: &str, out: &str) -> Result<()> {
    let tsk = read_tsk(tsk)?;
    let (msg, _) = Message::from_reader(BufReader::new(fs::File::open(input)?))?;
    let mut msg = msg.decrypt(&Password::empty(), &tsk)?;
    if msg.is_compressed() {
        msg = msg.decompress()?;
    }
    // Reading to the end checks the AEAD tags (or the MDC).
    fs::write(out, msg.as_data_vec()?)?;
    Ok(())
}

fn sign(tsk: &str, input: &str, sig: &str) -> Result<()> {
    let tsk = read_tsk(tsk)?;
    let signature = DetachedSignature::sign_binary_data(
        thread_rng(),
        &tsk.primary_key,
        &Password::empty(),
        HashAlgorithm::Sha3_512,
        &fs::read(input)?[..],
    )?;
    fs::write(sig, signature.to_armored_string(ArmorOptions::default())?)?;
    Ok(())
}

fn verify(cert: &str, input: &str, sig: &str) -> Result<()> {
    let cert = read_cert(cert)?;
    let data = fs::read(input)?;
    let (signature, _) =
        DetachedSignature::from_reader_single(BufReader::new(fs::File::open(sig)?))?;
    if signature.verify(&cert, &data).is_ok() {
        println!("good signature by the primary key {}", cert.fingerprint());
        return Ok(());
    }
    for sub in &cert.public_subkeys {
        if signature.verify(sub, &data).is_ok() {
            println!("good signature by the subkey {}", sub.key.fingerprint());
            return Ok(());
        }
    }
    Err("no key of the certificate made a good signature of this file".into())
}

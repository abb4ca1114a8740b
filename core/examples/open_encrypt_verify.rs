//! The common path through the library, end to end: open and unlock a vault, encrypt a message
//! to an export with nexusq's file format and decrypt it back, sign data and verify the
//! signature under the trust policy. Everything goes through `nexusq_core`.
//!
//! ```sh
//! cargo run -p nexusq-core --example open_encrypt_verify
//! cargo run -p nexusq-core --example open_encrypt_verify -- VAULT PASSWORD_FILE
//! ```
//!
//! Without arguments it creates a throwaway vault in a new temporary folder, with Argon2id's
//! smallest allowed cost so it takes about a second, and removes the folder at the end. With a
//! vault and a file whose first line is its password (as `--password-file` reads it), it uses
//! that vault and writes nothing.
//!
//! The formats and rules are in the repository's docs: docs/vault-format.md,
//! docs/identity-format.md, docs/file-encryption.md and docs/signature-format.md.

use nexusq_core::format::armor;
use nexusq_core::format::nexusq as encrypted_file;
use nexusq_core::identity::signature::{self, Signature, Trust};
use nexusq_core::identity::{peer, revocation};
use nexusq_core::suite::hybrid_kem::KemLevel;
use nexusq_core::time::rfc3339;
use nexusq_core::vault::{self, Argon2id, SaveOptions};
use nexusq_core::{BackendChoice, Error, KdfParams, Password};
use std::path::PathBuf;
use std::process::ExitCode;
use zeroize::Zeroizing;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    // The backend that computes ML-KEM, ML-DSA and SLH-DSA: RustCrypto by default,
    // BackendChoice::Native for nexusq-native. Both give the same bytes.
    let backend = BackendChoice::default().backend()?;
    let now = nexusq_core::time::now();
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();

    // 1. A vault: a throwaway one, or the one given.
    let scratch;
    let (path, password) = match args.as_slice() {
        [] => {
            let dir = tempfile::Builder::new()
                .prefix("nexusq-example-")
                .tempdir()?;
            let path = dir.path().join("vault.nxq");
            let password = Password::new(Zeroizing::new("correct horse battery staple".into()));
            // The smallest cost a vault may name (8 MiB, one pass, one lane): fine for a vault
            // that lives a second, far too cheap for a real one (see KdfParams::for_new_vault).
            let params = KdfParams {
                memory_kib: vault::kdf::MIN_MEMORY_KIB,
                iterations: 1,
                parallelism: 1,
            };
            // `init` hands over the revocation statement of the whole identity before the
            // vault is in place; a real caller keeps it somewhere safe.
            let revocation_path = dir.path().join("vault.nxq.revocation.asc");
            let created = vault::create(
                &path,
                &password,
                params,
                &SaveOptions::default(),
                backend,
                now,
                |statement| {
                    let text = armor::encode(revocation::ARMOR_KIND, &statement.encode());
                    std::fs::write(&revocation_path, text)
                        .map_err(|e| Error::io_at("write", &revocation_path, &e))
                },
            )?;
            println!(
                "created a throwaway vault: {} ({})",
                created.path.display(),
                created.params.describe()
            );
            scratch = Some(dir);
            (path, password)
        }
        [path, password_file] => {
            scratch = None;
            (path.clone(), read_password(password_file)?)
        }
        _ => return Err("usage: open_encrypt_verify [VAULT PASSWORD_FILE]".into()),
    };

    // 2. Open (no password: the header and the public identity), then unlock (Argon2id, then
    //    AES-GCM; every kept seed is checked against the certified public keys).
    let file = vault::open(&path)?;
    println!(
        "opened {}: identity {}, generation {}",
        path.display(),
        file.public.root_id().fingerprint(),
        file.public.newest().generation
    );
    let unlocked = file.unlock(&password, &Argon2id, backend)?;
    println!(
        "unlocked it: {} decapsulation keys (two per generation that still decrypts)",
        unlocked.decryption_keys().len()
    );

    // 3. The vault's export, as `nexusq identity export` writes it, read back as a
    //    correspondent reads it: strict armor, the structure, every root signature.
    let export = unlocked.file.public.export(false).to_armor();
    let recipient = peer::parse_export(export.as_bytes(), "the export", backend)?;
    let fingerprint = recipient.root_id().fingerprint();
    println!(
        "read the export ({} bytes of armor): {fingerprint}",
        export.len()
    );

    // 4. Encrypt to the export's newest X-Wing key (a revoked identity or an expired
    //    certificate is refused here), then decrypt with the unlocked vault's keys.
    let message = b"meet at the usual place, 7 pm";
    let (certificate, key) = peer::encryption_key(&recipient, KemLevel::MlKem768, now, false)?;
    let mut encrypted = Vec::new();
    encrypted_file::encrypt(
        backend,
        &[(KemLevel::MlKem768, key)],
        &mut &message[..],
        &mut encrypted,
    )?;
    println!(
        "encrypted {} bytes to generation {}: {} bytes in nexusq's file format",
        message.len(),
        certificate.generation,
        encrypted.len()
    );
    let mut input = &encrypted[..];
    let header = encrypted_file::Header::read(&mut input)?;
    let (opened, used) = unlocked.decryption_keys().open_file_header(&header)?;
    let mut decrypted = Vec::new();
    opened.decrypt_payload(&mut input, &mut decrypted)?;
    if decrypted != message {
        return Err("the decrypted message differs from the one encrypted".into());
    }
    println!(
        "decrypted it with generation {}'s {} key: {:?}",
        used.generation(),
        used.level().suite().name(),
        String::from_utf8_lossy(&decrypted)
    );

    // 5. Sign with the newest generation, as `nexusq sign` does, and verify the armored
    //    signature under a root the verifier trusts: here the export read in step 3, with the
    //    fingerprint compared too (`--identity FILE --expect-fingerprint FP`).
    let data = b"release 1.0.0\n";
    let digest = signature::digest(data);
    let made = signature::sign_newest(
        backend,
        &unlocked.file.public,
        &unlocked.secrets,
        &digest,
        now,
        &nexusq_core::secret::random_array(),
    )?;
    let armored = made.to_armor();
    let received = Signature::parse(armored.as_bytes(), "the signature")?;
    let trust = Trust::Identity {
        identity: &recipient,
        expected: Some(fingerprint),
    };
    let verified = signature::verify_signature(backend, trust, &received, &digest)?;
    println!(
        "good signature by {} (generation {}, signed at {})",
        verified.fingerprint(),
        verified.generation,
        rfc3339(verified.signed_at)
    );
    let other = signature::digest(b"release 1.0.1\n");
    match signature::verify_signature(backend, trust, &received, &other) {
        Ok(_) => return Err("the signature verified over other data".into()),
        Err(e) => println!(
            "the same signature over other data is refused: {}",
            e.message()
        ),
    }

    // 6. Clean up: the secrets are zeroized on drop, the throwaway folder is removed.
    drop(unlocked);
    if let Some(dir) = scratch {
        let shown = dir.path().display().to_string();
        dir.close()?;
        println!("removed {shown}");
    }
    Ok(())
}

/// The first line of `path`, without its line ending, as the vault's password.
fn read_password(path: &PathBuf) -> Result<Password, Box<dyn std::error::Error>> {
    let bytes = Zeroizing::new(std::fs::read(path)?);
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|_| "the password is not UTF-8")?;
    Ok(Password::new(Zeroizing::new(text.to_owned())))
}

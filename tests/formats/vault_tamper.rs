//! Library-level tamper sweep (docs/security.md, "Hostile vaults"): every single-byte change and
//! every truncation of a vault is rejected, first by the checksum (`vault open`, exit 4), and again
//! with the checksum recomputed after the change, where unlock must reject it (exit 3 or 4). Never
//! a panic.

use nexusq_core::error::{ErrorKind, Result};
use nexusq_core::secret::{Password, SecretBytes};
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::vault::kdf::{Argon2id, KdfParams, KeyDerivation, SALT_LEN};
use nexusq_core::vault::{self, SaveOptions, format};
use std::cell::RefCell;
use std::collections::HashMap;
use zeroize::Zeroizing;

const SMALL: KdfParams = KdfParams {
    memory_kib: 8 * 1024,
    iterations: 1,
    parallelism: 1,
};

/// Argon2id, memoised on (salt, parameters): the sweep changes the KDF inputs only in the few
/// bytes that hold them, so thousands of unlocks cost a handful of derivations.
type KdfInputs = ([u8; SALT_LEN], u32, u32, u32);

#[derive(Default)]
struct CachedArgon2 {
    cache: RefCell<HashMap<KdfInputs, SecretBytes<32>>>,
}

impl KeyDerivation for CachedArgon2 {
    fn derive(
        &self,
        pw: &Password,
        salt: &[u8; SALT_LEN],
        p: &KdfParams,
    ) -> Result<SecretBytes<32>> {
        let k = (*salt, p.memory_kib, p.iterations, p.parallelism);
        if let Some(v) = self.cache.borrow().get(&k) {
            return Ok(v.clone());
        }
        let v = Argon2id.derive(pw, salt, p)?;
        self.cache.borrow_mut().insert(k, v.clone());
        Ok(v)
    }
}

fn password() -> Password {
    Password::new(Zeroizing::new("tamper test password".into()))
}

fn make_vault() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.nxq");
    vault::create(
        &path,
        &password(),
        SMALL,
        &SaveOptions::default(),
        &RustCrypto,
        1_800_000_000,
        |_| Ok(()),
    )
    .unwrap();
    std::fs::read(&path).unwrap()
}

/// Parse, then (if the parse passes) the everyday unlock, which does not decrypt the root
/// section; the exit code of the first refusal.
fn refusal(bytes: &[u8], kdf: &CachedArgon2) -> Option<ErrorKind> {
    let file = match format::parse(bytes, None) {
        Ok(f) => f,
        Err(e) => return Some(e.kind()),
    };
    file.unlock(&password(), kdf, &RustCrypto)
        .err()
        .map(|e| e.kind())
}

#[test]
fn untouched_vault_unlocks_and_opens_its_root() {
    let bytes = make_vault();
    assert_eq!(refusal(&bytes, &CachedArgon2::default()), None);
    let unlocked = format::parse(&bytes, None)
        .unwrap()
        .unlock(&password(), &Argon2id, &RustCrypto)
        .unwrap();
    assert!(unlocked.root(&RustCrypto).is_ok());
}

#[test]
fn every_byte_flip_is_rejected_by_the_checksum_and_after_it_by_unlock() {
    let original = make_vault();
    let kdf = CachedArgon2::default();
    let mut by_exit: HashMap<ErrorKind, usize> = HashMap::new();
    for i in 0..original.len() {
        for mask in [0xffu8, 0x01] {
            let mut bytes = original.clone();
            bytes[i] ^= mask;
            // As the file is: `vault open` refuses it, exit 4.
            let open = format::parse(&bytes, None);
            assert_eq!(
                open.as_ref().map(|_| ()).map_err(|e| e.kind()),
                Err(ErrorKind::Vault),
                "byte {i} ^ {mask:#x} passed the checksum"
            );
            // With the checksum recomputed: unlock refuses it, exit 3 or 4.
            format::fix_checksum(&mut bytes);
            if bytes == original {
                continue; // the flip was inside the checksum itself
            }
            let exit = refusal(&bytes, &kdf);
            assert!(
                matches!(exit, Some(ErrorKind::WrongPassword | ErrorKind::Vault)),
                "byte {i} ^ {mask:#x} with a fixed checksum gave {exit:?}"
            );
            *by_exit.entry(exit.unwrap()).or_default() += 1;
        }
    }
    // Both kinds of refusal happen: bounds/structure (4) and authentication (3).
    assert!(
        by_exit[&ErrorKind::Vault] > 0 && by_exit[&ErrorKind::WrongPassword] > 0,
        "{by_exit:?}"
    );
}

#[test]
fn every_truncation_is_rejected_with_and_without_a_fixed_checksum() {
    let original = make_vault();
    let kdf = CachedArgon2::default();
    let body = &original[..original.len() - format::CHECKSUM_LEN];
    for len in 0..original.len() {
        let cut = &original[..len];
        assert_eq!(
            format::parse(cut, None).map(|_| ()).map_err(|e| e.kind()),
            Err(ErrorKind::Vault),
            "truncation to {len} bytes accepted"
        );
    }
    for len in 0..body.len() {
        let mut cut = body[..len].to_vec();
        cut.extend_from_slice(&[0u8; format::CHECKSUM_LEN]);
        format::fix_checksum(&mut cut);
        let exit = refusal(&cut, &kdf);
        assert!(
            matches!(exit, Some(ErrorKind::WrongPassword | ErrorKind::Vault)),
            "body truncated to {len} bytes with a fixed checksum gave {exit:?}"
        );
    }
}

#[test]
fn appended_bytes_are_rejected() {
    let mut bytes = make_vault();
    bytes.push(0);
    assert!(format::parse(&bytes, None).is_err());
    format::fix_checksum(&mut bytes);
    assert!(format::parse(&bytes, None).is_err());
}

#[test]
fn every_save_draws_fresh_seal_salt_and_nonces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.nxq");
    vault::create(
        &path,
        &password(),
        SMALL,
        &SaveOptions::default(),
        &RustCrypto,
        1,
        |_| Ok(()),
    )
    .unwrap();
    let first = vault::open(&path).unwrap();
    let unlocked = vault::open(&path)
        .unwrap()
        .unlock(&password(), &Argon2id, &RustCrypto)
        .unwrap();
    let root = unlocked.root(&RustCrypto).unwrap();
    let mut headers = vec![first.header.clone()];
    for _ in 0..5 {
        let bytes = unlocked.encode(&root);
        let parsed = format::parse(&bytes, None).unwrap();
        // Same password, same Argon2 salt: only the seal salt and nonces are new.
        assert_eq!(parsed.header.salt, first.header.salt);
        headers.push(parsed.header);
    }
    // passwd: new Argon2 salt as well.
    let new_pw = Password::new(Zeroizing::new("another password".into()));
    vault::change_password(
        &path,
        &password(),
        &new_pw,
        Some(SMALL),
        None,
        &SaveOptions::default(),
        &RustCrypto,
    )
    .unwrap();
    let after = vault::open(&path).unwrap();
    assert_ne!(after.header.salt, first.header.salt);
    headers.push(after.header);
    for (i, a) in headers.iter().enumerate() {
        assert_ne!(a.secret_nonce, a.root_nonce);
        for b in &headers[i + 1..] {
            assert_ne!(a.seal_salt, b.seal_salt);
            assert_ne!(a.secret_nonce, b.secret_nonce);
            assert_ne!(a.root_nonce, b.root_nonce);
        }
    }
}

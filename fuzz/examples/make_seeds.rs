//! Writes the seed corpora (corpus/<target>/seed-*) and the fixtures (fixtures/*) the targets
//! compare against, all made with the library. Run from fuzz/: `cargo run --example make_seeds`.
//! Random keys and nonces: every run gives other bytes; commit the output of one run.

use nexusq_core::format::nexusq;
use nexusq_core::identity::envelope;
use nexusq_core::identity::signature::{self, DetachedSignature};
use nexusq_core::identity::{NewIdentity, RootId};
use nexusq_core::secret::SecretBytes;
use nexusq_core::suite::hybrid_kem::{self, KemLevel};
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::vault::KeyDerivation;
use nexusq_core::vault::kdf::KdfParams;
use nexusq_fuzz::*;
use std::fs;

const NOW: u64 = 1_790_000_000;

fn write(dir: &str, name: &str, bytes: &[u8]) {
    fs::create_dir_all(dir).unwrap();
    fs::write(format!("{dir}/{name}"), bytes).unwrap();
}

fn main() {
    let backend = &RustCrypto;
    let id = NewIdentity::generate(backend, NOW);

    // Vault: sealed under FastKdf(VAULT_PASSWORD), smallest allowed Argon2id parameters.
    let params = KdfParams {
        memory_kib: nexusq_core::vault::kdf::MIN_MEMORY_KIB,
        iterations: 1,
        parallelism: 1,
    };
    let salt = [0x5a; 32];
    let key = FastKdf
        .derive(&password(VAULT_PASSWORD), &salt, &params)
        .unwrap();
    let facts = nexusq_core::vault::format::Facts {
        version: if id.keys.master().is_some() {
            nexusq_core::vault::format::FORMAT_VERSION
        } else {
            nexusq_core::vault::format::FORMAT_V1
        },
        created: NOW,
        backups: Default::default(),
    };
    let vault = nexusq_core::vault::seal_vault(
        params,
        salt,
        &key,
        &facts,
        &id.public,
        &id.secrets,
        &id.keys,
    );
    write("fixtures", "vault.nxq", &vault);
    write("corpus/vault", "seed-vault.nxq", &vault);
    write(
        "corpus/vault",
        "seed-secret-section.bin",
        &id.secrets.encode(),
    );

    // Public identity: raw and armored, with the revocation statement published too.
    let raw = id.public.encode();
    write("fixtures", "identity.bin", &raw);
    write("corpus/identity", "seed-identity.bin", &raw);
    write(
        "corpus/identity",
        "seed-identity.asc",
        id.public.to_armor().as_bytes(),
    );
    let mut revoked = id.public.clone();
    revoked.revocations.push(id.revocation.clone());
    write("corpus/identity", "seed-revoked.bin", &revoked.encode());

    // Detached signature of SIGNED_MESSAGE.
    let sig = signature::sign_newest(
        backend,
        &id.public,
        &id.secrets,
        &signature::digest(SIGNED_MESSAGE),
        NOW + 60,
        &[7; 32],
    )
    .unwrap();
    let _ = DetachedSignature::decode(&sig.encode()).unwrap();
    write("fixtures", "signature.bin", &sig.encode());
    write("corpus/signature", "seed-signature.bin", &sig.encode());
    write(
        "corpus/signature",
        "seed-signature.asc",
        sig.to_armor().as_bytes(),
    );

    // KEM envelopes and bare hybrid ciphertexts for the fixed keys.
    for (level, s, name) in [
        (KemLevel::MlKem768, XWING_SEED, "768"),
        (KemLevel::MlKem1024, MLKEM1024_SEED, "1024"),
    ] {
        let pk = hybrid_kem::public_key(backend, level, &seed(s));
        let (ct, ss) = hybrid_kem::encapsulate(backend, level, &pk).unwrap();
        let env = envelope::seal(level, RootId([0x33; 32]), 1, &ct, &ss);
        write("fixtures", &format!("envelope-{name}.bin"), &env);
        write("corpus/kem", &format!("seed-envelope-{name}.bin"), &env);
        write("corpus/kem", &format!("seed-ciphertext-{name}.bin"), &ct);
    }

    // Encrypted files for the fixed keys: one recipient of each suite, several lengths
    // (empty, short, exactly one chunk, one chunk and a byte), and one armored.
    let pk768 = hybrid_kem::public_key(backend, KemLevel::MlKem768, &seed(XWING_SEED));
    let pk1024 = hybrid_kem::public_key(backend, KemLevel::MlKem1024, &seed(MLKEM1024_SEED));
    let other = hybrid_kem::public_key(backend, KemLevel::MlKem768, &SecretBytes::random());
    let cases: [(&str, &[(KemLevel, &[u8])], u64); 5] = [
        ("empty-768", &[(KemLevel::MlKem768, &pk768[..])], 0),
        ("short-1024", &[(KemLevel::MlKem1024, &pk1024[..])], 100),
        (
            "two-recipients",
            &[
                (KemLevel::MlKem768, &other[..]),
                (KemLevel::MlKem768, &pk768[..]),
            ],
            1000,
        ),
        (
            "one-chunk",
            &[(KemLevel::MlKem768, &pk768[..])],
            nexusq::CHUNK_LEN as u64,
        ),
        (
            "two-chunks",
            &[(KemLevel::MlKem1024, &pk1024[..])],
            nexusq::CHUNK_LEN as u64 + 1,
        ),
    ];
    for (name, recipients, len) in cases {
        let plain: Vec<u8> = (0..len).map(plaintext_byte).collect();
        let mut out = Vec::new();
        nexusq::encrypt(backend, recipients, &mut &plain[..], &mut out).unwrap();
        write("corpus/file_decrypt", &format!("seed-{name}.nxq"), &out);
    }
    let plain: Vec<u8> = (0..40).map(plaintext_byte).collect();
    let mut armored = nexusq_core::format::armor::ArmorWriter::new(
        Vec::new(),
        &nexusq_core::format::armor::Profile::nexusq(
            nexusq_core::format::armor::ENCRYPTED_FILE_KIND,
        ),
    )
    .unwrap();
    nexusq::encrypt(
        backend,
        &[(KemLevel::MlKem768, &pk768[..])],
        &mut &plain[..],
        &mut armored,
    )
    .unwrap();
    let armored = armored.finish().unwrap();
    write("corpus/file_decrypt", "seed-armored.asc", &armored);

    // Native ML-KEM: mode byte, then a ciphertext / encapsulation key (see the target).
    {
        use nexusq_native::{mlkem768, mlkem1024};
        let (ek, _) = mlkem768::keygen_internal(&[1; 32], &[2; 32]);
        let (ct, _) = mlkem768::encapsulate_internal(&ek, &[3; 32]);
        write(
            "corpus/native_mlkem",
            "seed-ct-768.bin",
            &[&[0u8][..], ct.as_bytes()].concat(),
        );
        write(
            "corpus/native_mlkem",
            "seed-ek-768.bin",
            &[&[2u8][..], ek.as_bytes()].concat(),
        );
        write(
            "corpus/native_mlkem",
            "seed-dk-768.bin",
            &[&[4u8][..], &[9u8; 64]].concat(),
        );
        let (ek, _) = mlkem1024::keygen_internal(&[1; 32], &[2; 32]);
        let (ct, _) = mlkem1024::encapsulate_internal(&ek, &[3; 32]);
        write(
            "corpus/native_mlkem",
            "seed-ct-1024.bin",
            &[&[1u8][..], ct.as_bytes()].concat(),
        );
        write(
            "corpus/native_mlkem",
            "seed-ek-1024.bin",
            &[&[3u8][..], ek.as_bytes()].concat(),
        );
    }

    // Native ML-DSA: mode, context length, context, [key], signature, message (see the target).
    {
        use nexusq_native::mldsa65;
        let (vk, sk) = mldsa65::keygen_internal(&[1; 32]);
        let ctx = b"fuzz";
        let msg = b"a message";
        let sig = mldsa65::sign(&sk, msg, ctx, &[0; 32]).unwrap();
        let fixed = [&[0u8, 4][..], ctx, sig.as_bytes(), msg].concat();
        write("corpus/native_mldsa", "seed-fixed-key.bin", &fixed);
        let (vk2, sk2) = mldsa65::keygen_internal(&[2; 32]);
        let sig2 = mldsa65::sign(&sk2, msg, b"", &[5; 32]).unwrap();
        let any = [&[1u8, 0][..], vk2.as_bytes(), sig2.as_bytes(), msg].concat();
        write("corpus/native_mldsa", "seed-any-key.bin", &any);
        let _ = vk;
    }

    // Native SLH-DSA: mode, context length, context, then a key, signature and message, or a
    // patch of the fixed key's signature (see the target).
    {
        use nexusq_native::slhdsa_shake128f as slh;
        let (vk, sk) = slh::keygen_internal(&[4; 16], &[5; 16], &[6; 16]);
        let ctx = b"fuzz";
        let msg = b"a message";
        let sig = slh::sign(&sk, msg, ctx, Some(&[7; 16])).unwrap();
        let any = [&[1u8, 4][..], ctx, vk.as_bytes(), sig.as_bytes(), msg].concat();
        write("corpus/native_slhdsa", "seed-any-key.bin", &any);
        let patch = [&[2u8, 0][..], &8000u16.to_le_bytes(), &[0x80; 4]].concat();
        write("corpus/native_slhdsa", "seed-patch.bin", &patch);
        write(
            "corpus/native_slhdsa",
            "seed-signing-key.bin",
            sk.as_bytes(),
        );
    }
    eprintln!("seeds and fixtures written");
}

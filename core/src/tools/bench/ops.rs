//! The operations benchmarks time, and the two ways of sampling them (one after another, or in
//! alternating rounds). Each operation prepares its inputs outside the timed region and
//! returns the duration of exactly the part it names. Shared by `nexusq bench` and the
//! `cargo bench` targets.

use super::scratch::ThrowawayVault;
use crate::error::{Error, Result};
use crate::format::nexusq;
use crate::identity::rotation::RotateOptions;
use crate::secret::{SecretBytes, fill_random, random_array};
use crate::suite::Backend;
use crate::suite::hybrid_kem::{self, KemLevel};
use crate::suite::hybrid_sig;
use crate::suite::root_sig::{self, RootSecret};
use crate::vault::{self, Argon2id, KeyDerivation};
use aes_gcm::aead::{AeadInOut, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce, Tag};
use std::path::Path;
use std::time::{Duration, Instant};

/// One timed sample of an operation, its inputs prepared outside the timed region.
type Sampler<'a> = Box<dyn FnMut() -> Result<Duration> + 'a>;

/// A named operation that can be sampled repeatedly.
pub struct Op<'a> {
    name: String,
    sample: Sampler<'a>,
}

impl<'a> Op<'a> {
    /// An operation called `name` whose `sample` runs it once and returns the time of the part it
    /// names.
    pub fn new(name: impl Into<String>, sample: impl FnMut() -> Result<Duration> + 'a) -> Self {
        Op {
            name: name.into(),
            sample: Box::new(sample),
        }
    }

    /// The same operation under another name.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The row name, such as "ML-KEM-768 keygen".
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One timed run.
    pub fn sample(&mut self) -> Result<Duration> {
        (self.sample)()
    }
}

impl std::fmt::Debug for Op<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Op({:?})", self.name)
    }
}

/// The wall-clock time of `f`, its result kept from being optimised away.
pub fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    std::hint::black_box(f());
    start.elapsed()
}

/// `warmup` unmeasured runs, then `n` samples.
pub fn measure(op: &mut Op<'_>, warmup: u32, n: u32) -> Result<Vec<Duration>> {
    for _ in 0..warmup {
        op.sample()?;
    }
    (0..n).map(|_| op.sample()).collect()
}

/// `warmup` unmeasured runs of every operation, then `rounds` rounds in which each operation in
/// turn takes `per_round` samples, so drift on a shared machine hits every operation alike.
/// Returns, per operation, its samples of each round: `[op][round][sample]`.
pub fn alternate(
    ops: &mut [Op<'_>],
    rounds: u32,
    per_round: u32,
    warmup: u32,
) -> Result<Vec<Vec<Vec<Duration>>>> {
    for op in ops.iter_mut() {
        for _ in 0..warmup {
            op.sample()?;
        }
    }
    let mut out: Vec<Vec<Vec<Duration>>> = vec![Vec::with_capacity(rounds as usize); ops.len()];
    for _ in 0..rounds {
        for (i, op) in ops.iter_mut().enumerate() {
            out[i].push(measure(op, 0, per_round)?);
        }
    }
    Ok(out)
}

/// A benchmark operation gave a wrong result: a bug, not a measurement.
pub fn failed(what: &str, why: impl std::fmt::Display) -> Error {
    Error::check(
        format!("{what} failed while benchmarking: {why}"),
        "this is a bug in nexusq or its backend; please report it",
    )
}

/// "ML-KEM-768" or "ML-KEM-1024".
pub(crate) fn mlkem_name(level: KemLevel) -> &'static str {
    match level {
        KemLevel::MlKem768 => "ML-KEM-768",
        KemLevel::MlKem1024 => "ML-KEM-1024",
    }
}

// ---------------------------------------------------------------------------------------------
// Hybrid KEMs (through the backend), as nexusq uses them

/// Public key from a fresh 32-byte seed: SHAKE256 expansion + ML-KEM keygen + X25519 base point.
pub(crate) fn hybrid_keygen(backend: &dyn Backend, level: KemLevel) -> Op<'_> {
    Op::new(
        format!("{} + X25519 keygen", mlkem_name(level)),
        move || {
            let seed = SecretBytes::<32>::random();
            Ok(time(|| hybrid_kem::public_key(backend, level, &seed)))
        },
    )
}

/// Encapsulation to a fixed public key, its 64 bytes of randomness drawn before the timer:
/// FIPS 203 key check + ML-KEM encaps + two X25519 + SHA3-256 combiner.
pub fn hybrid_encaps(backend: &dyn Backend, level: KemLevel) -> Op<'_> {
    let name = format!("{} + X25519 encaps", mlkem_name(level));
    let pk = hybrid_kem::public_key(backend, level, &SecretBytes::random());
    Op::new(name.clone(), move || {
        let eseed = SecretBytes::<64>::random();
        let mut result = None;
        let t = time(|| result = Some(hybrid_kem::encapsulate_derand(backend, level, &pk, &eseed)));
        result
            .expect("ran")
            .map_err(|e| failed(&name, e))
            .map(|_| t)
    })
}

/// Decapsulation with the key expanded once, as an unlocked vault keeps it: ML-KEM decaps +
/// one X25519 + combiner.
pub fn hybrid_decaps(backend: &dyn Backend, level: KemLevel) -> Result<Op<'_>> {
    let name = format!("{} + X25519 decaps", mlkem_name(level));
    let key = hybrid_kem::DecapsulationKey::from_seed(backend, level, &SecretBytes::random());
    let (ct, ss) =
        hybrid_kem::encapsulate(backend, level, key.public_key()).map_err(|e| failed(&name, e))?;
    Ok(Op::new(name.clone(), move || {
        let mut result = None;
        let t = time(|| result = Some(key.decapsulate(&ct)));
        match result.expect("ran") {
            Ok(got) if got.expose() == ss.expose() => Ok(t),
            Ok(_) => Err(failed(&name, "the shared secrets differ")),
            Err(e) => Err(failed(&name, e)),
        }
    }))
}

/// Decapsulation from the 32-byte seed, expanding the key each time (what nexusq did before
/// it kept expanded keys): SHAKE256 + ML-KEM key from (d, z) + decaps + two X25519 + combiner.
pub fn hybrid_decaps_from_seed(backend: &dyn Backend, level: KemLevel) -> Result<Op<'_>> {
    let name = format!("{} + X25519 decaps from seed", mlkem_name(level));
    let seed = SecretBytes::<32>::random();
    let pk = hybrid_kem::public_key(backend, level, &seed);
    let (ct, ss) = hybrid_kem::encapsulate(backend, level, &pk).map_err(|e| failed(&name, e))?;
    Ok(Op::new(name.clone(), move || {
        let mut result = None;
        let t = time(|| result = Some(hybrid_kem::decapsulate(backend, level, &seed, &ct)));
        match result.expect("ran") {
            Ok(got) if got.expose() == ss.expose() => Ok(t),
            Ok(_) => Err(failed(&name, "the shared secrets differ")),
            Err(e) => Err(failed(&name, e)),
        }
    }))
}

// ---------------------------------------------------------------------------------------------
// Bare ML-KEM and ML-DSA through the Backend trait (for comparing backends)

/// ML-KEM KeyGen_internal from fresh (d, z).
pub(crate) fn mlkem_keygen(backend: &dyn Backend, level: KemLevel) -> Op<'_> {
    Op::new(format!("{} keygen", mlkem_name(level)), move || {
        let (d, z): ([u8; 32], [u8; 32]) = (random_array(), random_array());
        Ok(time(|| backend.mlkem_keygen(level, &d, &z)))
    })
}

/// ML-KEM encapsulation (with its key check) to a fixed key, m drawn before the timer.
pub fn mlkem_encaps(backend: &dyn Backend, level: KemLevel) -> Op<'_> {
    let name = format!("{} encaps", mlkem_name(level));
    let ek = backend.mlkem_keygen(level, &random_array(), &random_array());
    Op::new(name.clone(), move || {
        let m: [u8; 32] = random_array();
        let mut result = None;
        let t = time(|| result = Some(backend.mlkem_encaps(level, &ek, &m)));
        result
            .expect("ran")
            .map_err(|e| failed(&name, format!("{e:?}")))
            .map(|_| t)
    })
}

/// ML-KEM decapsulation with the key given as (d, z), as the backend interface takes it.
pub fn mlkem_decaps(backend: &dyn Backend, level: KemLevel) -> Result<Op<'_>> {
    let name = format!("{} decaps", mlkem_name(level));
    let (d, z): ([u8; 32], [u8; 32]) = (random_array(), random_array());
    let ek = backend.mlkem_keygen(level, &d, &z);
    let (ct, ss) = backend
        .mlkem_encaps(level, &ek, &random_array())
        .map_err(|e| failed(&name, format!("{e:?}")))?;
    Ok(Op::new(name.clone(), move || {
        let mut result = None;
        let t = time(|| result = Some(backend.mlkem_decaps(level, &d, &z, &ct)));
        match result.expect("ran") {
            Ok(got) if got.expose() == ss.expose() => Ok(t),
            Ok(_) => Err(failed(&name, "the shared secrets differ")),
            Err(e) => Err(failed(&name, format!("{e:?}"))),
        }
    }))
}

/// ML-DSA-65 KeyGen_internal from a fresh 32-byte seed.
pub(crate) fn mldsa65_keygen(backend: &dyn Backend) -> Op<'_> {
    Op::new("ML-DSA-65 keygen", move || {
        let xi: [u8; 32] = random_array();
        Ok(time(|| backend.mldsa65_keygen(&xi)))
    })
}

/// The message and context the bare ML-DSA operations use: nexusq's composite message
/// representative (184 bytes) under the composite label.
fn mldsa_message() -> Vec<u8> {
    hybrid_sig::message_representative(&hybrid_sig::prehash(b"nexusq benchmark"), &[0x42; 57])
        .expect("57-byte context")
}

/// Hedged ML-DSA-65 signature (key expanded from its seed, as the backend interface takes it),
/// rnd drawn before the timer.
pub fn mldsa65_sign(backend: &dyn Backend) -> Op<'_> {
    let xi: [u8; 32] = random_array();
    let msg = mldsa_message();
    Op::new("ML-DSA-65 sign", move || {
        let rnd: [u8; 32] = random_array();
        let mut result = None;
        let t = time(|| {
            result = Some(backend.mldsa65_sign(&xi, &msg, hybrid_sig::LABEL, &rnd));
        });
        result
            .expect("ran")
            .map_err(|e| failed("ML-DSA-65 sign", format!("{e:?}")))
            .map(|_| t)
    })
}

/// ML-DSA-65 verification of a valid signature.
pub(crate) fn mldsa65_verify(backend: &dyn Backend) -> Result<Op<'_>> {
    let xi: [u8; 32] = random_array();
    let msg = mldsa_message();
    let vk = backend.mldsa65_keygen(&xi);
    let sig = backend
        .mldsa65_sign(&xi, &msg, hybrid_sig::LABEL, &random_array())
        .map_err(|e| failed("ML-DSA-65 sign", format!("{e:?}")))?;
    Ok(Op::new("ML-DSA-65 verify", move || {
        let mut ok = false;
        let t = time(|| ok = backend.mldsa65_verify(&vk, &msg, hybrid_sig::LABEL, &sig));
        if ok {
            Ok(t)
        } else {
            Err(failed("ML-DSA-65 verify", "a valid signature was rejected"))
        }
    }))
}

// ---------------------------------------------------------------------------------------------
// Shared primitives

/// SLH-DSA-SHAKE-128f KeyGen_internal from fresh 48 bytes of seeds (the root key).
pub(crate) fn slh_dsa_keygen(backend: &dyn Backend) -> Op<'_> {
    Op::new("SLH-DSA-SHAKE-128f keygen", move || {
        let root = RootSecret::from_seeds(SecretBytes::<{ root_sig::SEED_LEN }>::random());
        Ok(time(|| root.public_key(backend)))
    })
}

/// Ed25519 signature of nexusq's 184-byte composite message representative, key prepared.
pub(crate) fn ed25519_sign() -> Op<'static> {
    use ed25519_dalek::Signer as _;
    let key = ed25519_dalek::SigningKey::from_bytes(&random_array());
    let msg = mldsa_message();
    Op::new("Ed25519 sign", move || Ok(time(|| key.sign(&msg))))
}

/// Strict Ed25519 verification (as nexusq verifies) of a valid signature, key prepared.
pub(crate) fn ed25519_verify() -> Op<'static> {
    use ed25519_dalek::Signer as _;
    let key = ed25519_dalek::SigningKey::from_bytes(&random_array());
    let vk = key.verifying_key();
    let msg = mldsa_message();
    let sig = key.sign(&msg);
    Op::new("Ed25519 verify", move || {
        let mut ok = false;
        let t = time(|| ok = vk.verify_strict(&msg, &sig).is_ok());
        if ok {
            Ok(t)
        } else {
            Err(failed("Ed25519 verify", "a valid signature was rejected"))
        }
    })
}

/// AES-256-GCM encryption of one `len`-byte buffer in place, tag computed; nonce from a
/// counter.
pub fn aes_gcm_encrypt(len: usize) -> Op<'static> {
    let cipher = Aes256Gcm::new_from_slice(&random_array::<32>()).expect("32-byte key");
    let mut buf = vec![0u8; len];
    fill_random(&mut buf);
    let mut counter: u64 = 0;
    Op::new("AES-256-GCM encrypt", move || {
        counter += 1;
        let mut nonce = [0u8; 12];
        nonce[4..].copy_from_slice(&counter.to_be_bytes());
        let nonce = Nonce::from(nonce);
        let mut result = None;
        let t = time(|| {
            result = Some(cipher.encrypt_inout_detached(&nonce, b"", (&mut buf[..]).into()))
        });
        result
            .expect("ran")
            .map_err(|e| failed("AES-256-GCM encrypt", e))
            .map(|_| t)
    })
}

/// AES-256-GCM decryption of one `len`-byte buffer in place, tag checked; a fresh ciphertext
/// is made before the timer.
pub(crate) fn aes_gcm_decrypt(len: usize) -> Op<'static> {
    let cipher = Aes256Gcm::new_from_slice(&random_array::<32>()).expect("32-byte key");
    let mut plain = vec![0u8; len];
    fill_random(&mut plain);
    let mut buf = plain.clone();
    let mut counter: u64 = 0;
    Op::new("AES-256-GCM decrypt", move || {
        counter += 1;
        let mut nonce = [0u8; 12];
        nonce[4..].copy_from_slice(&counter.to_be_bytes());
        let nonce = Nonce::from(nonce);
        buf.copy_from_slice(&plain);
        let tag: Tag = cipher
            .encrypt_inout_detached(&nonce, b"", (&mut buf[..]).into())
            .map_err(|e| failed("AES-256-GCM encrypt", e))?;
        let mut result = None;
        let t = time(|| {
            result = Some(cipher.decrypt_inout_detached(&nonce, b"", (&mut buf[..]).into(), &tag))
        });
        match result.expect("ran") {
            Ok(()) if buf == plain => Ok(t),
            Ok(()) => Err(failed("AES-256-GCM decrypt", "wrong plaintext")),
            Err(e) => Err(failed("AES-256-GCM decrypt", e)),
        }
    })
}

/// The composite ML-DSA-65 + Ed25519 signature of a digest (hedged, rnd drawn before the timer).
pub fn composite_sign(backend: &dyn Backend) -> Op<'_> {
    let seeds = (SecretBytes::<32>::random(), SecretBytes::<32>::random());
    let digest = hybrid_sig::prehash(&[0x5a; 32]);
    let ctx = b"nexusq/sig/v1 benchmark context".to_vec();
    Op::new("ML-DSA-65 + Ed25519 sign", move || {
        let rnd: [u8; 32] = random_array();
        let mut result = None;
        let t = time(|| {
            result = Some(hybrid_sig::sign_prehashed(
                backend, &seeds.0, &seeds.1, &digest, &ctx, &rnd,
            ))
        });
        result
            .expect("ran")
            .map_err(|e| failed("composite sign", format!("{e:?}")))
            .map(|_| t)
    })
}

/// The composite signature with the key kept expanded ([`hybrid_sig::SigningKey`], made once
/// before the samples), as an unlocked vault and the agent sign: [`composite_sign`] expands the
/// key from its seeds in every sample.
pub fn composite_sign_kept(backend: &dyn Backend) -> Op<'_> {
    let seeds = (SecretBytes::<32>::random(), SecretBytes::<32>::random());
    let key = hybrid_sig::SigningKey::new(backend, &seeds.0, &seeds.1);
    let digest = hybrid_sig::prehash(&[0x5a; 32]);
    let ctx = b"nexusq/sig/v1 benchmark context".to_vec();
    Op::new("ML-DSA-65 + Ed25519 sign, key kept", move || {
        let rnd: [u8; 32] = random_array();
        let mut result = None;
        let t = time(|| result = Some(key.sign_prehashed(&digest, &ctx, &rnd)));
        result
            .expect("ran")
            .map_err(|e| failed("composite sign", format!("{e:?}")))
            .map(|_| t)
    })
}

/// Verification of a valid composite signature.
pub fn composite_verify(backend: &dyn Backend) -> Result<Op<'_>> {
    let (xi, ed) = (SecretBytes::<32>::random(), SecretBytes::<32>::random());
    let pk = hybrid_sig::public_key(backend, &xi, &ed);
    let digest = hybrid_sig::prehash(&[0x5a; 32]);
    let ctx = b"nexusq/sig/v1 benchmark context".to_vec();
    let sig = hybrid_sig::sign_prehashed(backend, &xi, &ed, &digest, &ctx, &random_array())
        .map_err(|e| failed("composite sign", format!("{e:?}")))?;
    Ok(Op::new("ML-DSA-65 + Ed25519 verify", move || {
        let mut ok = false;
        let t = time(|| ok = hybrid_sig::verify_prehashed(backend, &pk, &digest, &ctx, &sig));
        if ok {
            Ok(t)
        } else {
            Err(failed("composite verify", "a valid signature was rejected"))
        }
    }))
}

// ---------------------------------------------------------------------------------------------
// File encryption, file to file

/// `nexusq::encrypt` of `plain` to `out` for one recipient, with fsync.
pub fn file_encrypt<'a>(
    backend: &'a dyn Backend,
    level: KemLevel,
    pk: &'a [u8],
    plain: &'a Path,
    out: &'a Path,
) -> Op<'a> {
    Op::new("file encrypt", move || {
        let start = Instant::now();
        let mut input = std::fs::File::open(plain).map_err(|e| Error::io_at("open", plain, &e))?;
        let mut output = std::fs::File::create(out).map_err(|e| Error::io_at("create", out, &e))?;
        nexusq::encrypt(backend, &[(level, pk)], &mut input, &mut output)
            .map_err(|e| failed("file encrypt", e))?;
        output
            .sync_all()
            .map_err(|e| Error::io_at("sync", out, &e))?;
        Ok(start.elapsed())
    })
}

/// `nexusq::decrypt` of `enc` to `out` with the key from `seed` (expanded once, as
/// `nexusq decrypt` does), with fsync.
pub fn file_decrypt<'a>(
    backend: &'a dyn Backend,
    level: KemLevel,
    seed: &'a SecretBytes<32>,
    enc: &'a Path,
    out: &'a Path,
) -> Op<'a> {
    Op::new("file decrypt", move || {
        let start = Instant::now();
        let mut input = std::fs::File::open(enc).map_err(|e| Error::io_at("open", enc, &e))?;
        let mut output = std::fs::File::create(out).map_err(|e| Error::io_at("create", out, &e))?;
        let key = hybrid_kem::DecapsulationKey::from_seed(backend, level, seed);
        nexusq::decrypt(&[&key], &mut input, &mut output).map_err(|e| failed("file decrypt", e))?;
        output
            .sync_all()
            .map_err(|e| Error::io_at("sync", out, &e))?;
        Ok(start.elapsed())
    })
}

// ---------------------------------------------------------------------------------------------
// The throwaway vault

/// `vault::open`: read + SHA-256 checksum + parse, no password.
pub fn vault_open(v: &ThrowawayVault) -> Op<'_> {
    Op::new("Vault open", move || {
        let mut result = None;
        let t = time(|| result = Some(vault::open(v.path())));
        result.expect("ran").map(|_| t)
    })
}

/// `VaultFile::unlock` of a file already read: Argon2id + HKDF + AES-256-GCM of the secret
/// section + parse + every public key derived from its seed and compared (key check).
pub fn vault_unlock<'a>(v: &'a ThrowawayVault, backend: &'a dyn Backend) -> Op<'a> {
    Op::new("Vault unlock", move || {
        let file = vault::open(v.path())?;
        let mut result = None;
        let t = time(|| result = Some(file.unlock(v.password(), &Argon2id, backend)));
        result.expect("ran").map(|_| t)
    })
}

/// Bare Argon2id with the throwaway vault's salt and parameters.
pub fn argon2id(v: &ThrowawayVault) -> Result<Op<'_>> {
    let salt = vault::open(v.path())?.header.salt;
    Ok(Op::new("Argon2id", move || {
        let mut result = None;
        let t = time(|| result = Some(Argon2id.derive(v.password(), &salt, &v.params())));
        result.expect("ran").map(|_| t)
    }))
}

/// `vault::rotate` on the throwaway vault: lock + read + unlock (Argon2id, key check) + root
/// seed decryption + the three keygens + the SLH-DSA certificate signature + re-seal + atomic
/// save (fsync of the file and the folder). Before each sample (outside the timer) the vault
/// is put back as it was when this operation was made, so every sample does the same work
/// (otherwise each unlock would check one more generation than the last).
pub(crate) fn identity_rotation<'a>(
    v: &'a ThrowawayVault,
    backend: &'a dyn Backend,
) -> Result<Op<'a>> {
    let original = vault::read_bytes(v.path())?;
    let rotation = RotateOptions {
        reason: "benchmark".into(),
        validity_days: crate::identity::DEFAULT_VALIDITY_DAYS,
        compromised: false,
        retire_older_than: None,
        confirmed_retire: None,
    };
    let opts = v.save_options();
    Ok(Op::new("Identity key rotation", move || {
        crate::fs::replace(v.path(), &original, crate::fs::Access::Private)?;
        let now = crate::time::now();
        let mut result = None;
        let t = time(|| {
            result = Some(vault::rotate(
                v.path(),
                v.password(),
                &opts,
                &rotation,
                backend,
                now,
            ))
        });
        result.expect("ran").map(|_| t)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::rustcrypto::RustCrypto;
    use std::cell::RefCell;

    /// An operation that logs its calls and takes `ns` nanoseconds by decree.
    fn fake<'a>(name: &'static str, log: &'a RefCell<Vec<&'static str>>, ns: u64) -> Op<'a> {
        Op::new(name, move || {
            log.borrow_mut().push(name);
            Ok(Duration::from_nanos(ns))
        })
    }

    #[test]
    fn measure_warms_up_then_samples() {
        let log = RefCell::new(Vec::new());
        let mut op = fake("a", &log, 7);
        let s = measure(&mut op, 2, 3).unwrap();
        assert_eq!(s, vec![Duration::from_nanos(7); 3]);
        assert_eq!(log.borrow().len(), 5);
    }

    #[test]
    fn alternate_interleaves_rounds() {
        let log = RefCell::new(Vec::new());
        let mut ops = vec![fake("a", &log, 1), fake("b", &log, 2)];
        let s = alternate(&mut ops, 3, 2, 1).unwrap();
        assert_eq!(
            *log.borrow(),
            [
                "a", "b", "a", "a", "b", "b", "a", "a", "b", "b", "a", "a", "b", "b"
            ]
        );
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].len(), 3);
        assert_eq!(s[1][2], vec![Duration::from_nanos(2); 2]);
    }

    #[test]
    fn errors_stop_sampling() {
        let mut calls = 0;
        let mut op = Op::new("x", || {
            calls += 1;
            if calls == 2 {
                Err(failed("x", "broken"))
            } else {
                Ok(Duration::ZERO)
            }
        });
        assert!(measure(&mut op, 0, 5).is_err());
    }

    /// Every operation runs and checks its own result.
    #[test]
    fn crypto_operations_run() {
        let b: &dyn Backend = &RustCrypto;
        let mut ops = vec![
            hybrid_keygen(b, KemLevel::MlKem768),
            hybrid_encaps(b, KemLevel::MlKem1024),
            hybrid_decaps(b, KemLevel::MlKem1024).unwrap(),
            mlkem_keygen(b, KemLevel::MlKem1024),
            mlkem_encaps(b, KemLevel::MlKem768),
            mlkem_decaps(b, KemLevel::MlKem768).unwrap(),
            mldsa65_keygen(b),
            mldsa65_sign(b),
            mldsa65_verify(b).unwrap(),
            slh_dsa_keygen(b),
            ed25519_sign(),
            ed25519_verify(),
            aes_gcm_encrypt(64 * 1024),
            aes_gcm_decrypt(64 * 1024),
            composite_sign(b),
            composite_verify(b).unwrap(),
        ];
        for op in &mut ops {
            assert_eq!(measure(op, 0, 2).unwrap().len(), 2, "{}", op.name());
        }
        assert_eq!(mldsa_message().len(), 184);
    }
}

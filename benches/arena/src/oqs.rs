//! liboqs (the `oqs` crate, built from its vendored source): ML-KEM-768 / ML-KEM-1024
//! (mlkem-native), ML-DSA-65 (pq-crystals) and SPHINCS+-SHAKE-128f-simple (PQClean's round-3.1
//! code), each with liboqs's run-time choice of its AVX2 / NEON code.
//!
//! liboqs draws its randomness through `OQS_randombytes`, which can be pointed at a function
//! of ours. For the sanity checks [`with_randomness`] feeds it the arena's fixed seeds, so
//! liboqs's keys, ciphertexts and signatures are compared byte for byte with the other
//! libraries' (keygen from ξ, encaps from m, signing with rnd); for timing it draws from the
//! system, as aws-lc-rs and pqcrypto do.

use crate::dsa::{self, Dsa, RND, XI};
use crate::libs::{D, Kem, M, Material, Op, Param, Timed, Z, err, repeat};
use oqs::kem::{Algorithm as KemAlg, Kem as OqsKem};
use oqs::sig::{Algorithm as SigAlg, Sig};
use std::hint::black_box;
use std::sync::Mutex;
use std::time::Duration;

pub const LIBOQS: &str = "liboqs";

/// Bytes `OQS_randombytes` hands out while [`with_randomness`] runs, and whether a caller asked
/// for more than there were.
struct Queue {
    bytes: Vec<u8>,
    short: bool,
}

static QUEUE: Mutex<Queue> = Mutex::new(Queue {
    bytes: Vec::new(),
    short: false,
});

/// liboqs's randomness while [`with_randomness`] runs: the queued bytes in order; zeros (and
/// a note that the queue ran short) past them. Never unwinds into C.
extern "C" fn queued(out: *mut u8, len: usize) {
    let mut q = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
    let take = len.min(q.bytes.len());
    let mut chunk: Vec<u8> = q.bytes.drain(..take).collect();
    if take < len {
        q.short = true;
        chunk.resize(len, 0);
    }
    // SAFETY: liboqs passes a buffer of `len` writable bytes; `chunk` has exactly `len`.
    unsafe { std::ptr::copy_nonoverlapping(chunk.as_ptr(), out, len) };
}

/// Runs `f` with liboqs's randomness being exactly `bytes`, then back to the system's. Fails
/// unless `f` drew all of them and no more.
fn with_randomness<R>(bytes: &[u8], f: impl FnOnce() -> R) -> Result<R, String> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    {
        let mut q = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
        q.bytes = bytes.to_vec();
        q.short = false;
    }
    // SAFETY: `queued` has the signature OQS_randombytes expects and never unwinds.
    unsafe { oqs_sys::rand::OQS_randombytes_custom_algorithm(Some(queued)) };
    let out = f();
    // SAFETY: a NUL-terminated algorithm name liboqs knows.
    let status = unsafe { oqs_sys::rand::OQS_randombytes_switch_algorithm(c"system".as_ptr()) };
    if status != oqs_sys::rand::OQS_STATUS::OQS_SUCCESS {
        return Err("liboqs: cannot switch back to system randomness".into());
    }
    let q = QUEUE.lock().unwrap_or_else(|p| p.into_inner());
    match (q.short, q.bytes.len()) {
        (false, 0) => Ok(out),
        (true, _) => Err("liboqs drew more randomness than the fixed seeds".into()),
        (false, left) => Err(format!(
            "liboqs left {left} bytes of the fixed seeds unused"
        )),
    }
}

fn kem_of(param: Param) -> KemAlg {
    match param {
        Param::MlKem768 => KemAlg::MlKem768,
        _ => KemAlg::MlKem1024,
    }
}

/// liboqs ML-KEM for one parameter set.
pub struct LiboqsKem {
    param: Param,
    kem: OqsKem,
    pk: oqs::kem::PublicKey,
    sk: oqs::kem::SecretKey,
    ct: oqs::kem::Ciphertext,
    seed: Vec<u8>,
    material: Material,
}

impl LiboqsKem {
    pub fn new(param: Param) -> Result<Self, String> {
        oqs::init();
        let kem = OqsKem::new(kem_of(param)).map_err(err)?;
        let seed = [D, Z].concat();
        let (pk, sk) = kem
            .keypair_derand(kem.keypair_seed_from_bytes(&seed).ok_or("seed length")?)
            .map_err(err)?;
        // encaps draws m from OQS_randombytes: feed it the fixed m.
        let (ct, ss) = with_randomness(&M, || kem.encapsulate(&pk))?.map_err(err)?;
        let back = kem.decapsulate(&sk, &ct).map_err(err)?;
        if back.as_ref() != ss.as_ref() {
            return Err(format!(
                "liboqs {}: decaps of its own ciphertext differs from encaps",
                param.name()
            ));
        }
        let material = Material {
            ek: pk.as_ref().to_vec(),
            dk: sk.as_ref().to_vec(),
            ct: ct.as_ref().to_vec(),
            ss: ss.as_ref().to_vec(),
        };
        Ok(Self {
            param,
            kem,
            pk,
            sk,
            ct,
            seed,
            material,
        })
    }
}

impl Timed for LiboqsKem {
    fn label(&self) -> &str {
        LIBOQS
    }
    fn param(&self) -> Param {
        self.param
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        let k = &self.kem;
        match op {
            // From the fixed (d, z), like nexusq-native, ml-kem and libcrux-ml-kem.
            Op::Keygen => repeat(n, || {
                let seed = k
                    .keypair_seed_from_bytes(black_box(&self.seed))
                    .expect("64 bytes");
                k.keypair_derand(seed)
            }),
            // m from system randomness (its cost included), like aws-lc-rs and pqcrypto.
            Op::Encaps => repeat(n, || k.encapsulate(&self.pk)),
            Op::Decaps => repeat(n, || k.decapsulate(&self.sk, black_box(&self.ct))),
            Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
        }
    }
}

impl Kem for LiboqsKem {
    fn deterministic(&self) -> bool {
        true
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn decaps_bytes(&self, dk: &[u8], ct: &[u8]) -> Result<Vec<u8>, String> {
        let sk = self.kem.secret_key_from_bytes(dk).ok_or("dk length")?;
        let ct = self.kem.ciphertext_from_bytes(ct).ok_or("ct length")?;
        Ok(self.kem.decapsulate(sk, ct).map_err(err)?.as_ref().to_vec())
    }
}

/// liboqs ML-DSA-65 (pure, empty context).
pub struct LiboqsDsa {
    sig: Sig,
    pk: oqs::sig::PublicKey,
    sk: oqs::sig::SecretKey,
    signature: oqs::sig::Signature,
    material: dsa::Material,
}

impl LiboqsDsa {
    pub fn new() -> Result<Self, String> {
        oqs::init();
        let sig = Sig::new(SigAlg::MlDsa65).map_err(err)?;
        // keygen draws ξ, signing draws rnd: feed them the fixed ones.
        let (pk, sk) = with_randomness(&XI, || sig.keypair())?.map_err(err)?;
        let signature = with_randomness(&RND, || sig.sign(&dsa::MSG, &sk))?.map_err(err)?;
        let ok = sig.verify(&dsa::MSG, &signature, &pk).is_ok();
        let material = dsa::Material {
            vk: pk.as_ref().to_vec(),
            sk: sk.as_ref().to_vec(),
            sig: signature.as_ref().to_vec(),
        };
        let material = dsa::own_check(LIBOQS, material, ok)?;
        Ok(Self {
            sig,
            pk,
            sk,
            signature,
            material,
        })
    }
}

impl Timed for LiboqsDsa {
    fn label(&self) -> &str {
        LIBOQS
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        let s = &self.sig;
        match op {
            // ξ and rnd from system randomness (cost included), like pqcrypto-mldsa.
            Op::Keygen => repeat(n, || s.keypair()),
            Op::Sign => repeat(n, || s.sign(black_box(&dsa::MSG), &self.sk)),
            Op::Verify => repeat(n, || {
                s.verify(black_box(&dsa::MSG), &self.signature, &self.pk)
            }),
            _ => unreachable!("not an ML-DSA operation"),
        }
    }
}

impl Dsa for LiboqsDsa {
    fn seeded(&self) -> (bool, bool) {
        (true, true)
    }
    fn material(&self) -> &dsa::Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        let vk = self.sig.public_key_from_bytes(vk).ok_or("vk length")?;
        let Some(sig) = self.sig.signature_from_bytes(sig) else {
            return Ok(false);
        };
        Ok(self.sig.verify(msg, sig, vk).is_ok())
    }
}

/// SLH-DSA's three seeds, SK.seed || SK.prf || PK.seed, and the signing randomness.
const SLH_SEEDS: [u8; 48] = {
    let mut s = [0x77; 48];
    let mut i = 16;
    while i < 48 {
        s[i] = if i < 32 { 0x88 } else { 0x99 };
        i += 1;
    }
    s
};
const SLH_OPT_RAND: [u8; 16] = [0xaa; 16];

/// liboqs's SPHINCS+-SHAKE-128f-simple (round 3.1, PQClean's code), in the
/// SLH-DSA-SHAKE-128f rows: the same keys from the same seeds and the same work per operation
/// (the same hash calls, trees and sizes), but signatures FIPS 205 does not accept
/// ([`check_slh`]).
pub struct LiboqsSlh {
    sig: Sig,
    pk: oqs::sig::PublicKey,
    sk: oqs::sig::SecretKey,
    signature: oqs::sig::Signature,
}

impl LiboqsSlh {
    pub fn new() -> Result<Self, String> {
        oqs::init();
        let sig = Sig::new(SigAlg::SphincsShake128fSimple).map_err(err)?;
        let (pk, sk) = with_randomness(&SLH_SEEDS, || sig.keypair())?.map_err(err)?;
        let signature =
            with_randomness(&SLH_OPT_RAND, || sig.sign(&dsa::MSG, &sk))?.map_err(err)?;
        if sig.verify(&dsa::MSG, &signature, &pk).is_err() {
            return Err(
                "liboqs SPHINCS+-SHAKE-128f-simple: its own signature does not verify".into(),
            );
        }
        Ok(Self {
            sig,
            pk,
            sk,
            signature,
        })
    }
}

impl Timed for LiboqsSlh {
    fn label(&self) -> &str {
        LIBOQS
    }
    fn param(&self) -> Param {
        Param::SlhDsaShake128f
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        let s = &self.sig;
        match op {
            // Seeds and opt_rand from system randomness (cost included).
            Op::Keygen => repeat(n, || s.keypair()),
            Op::Sign => repeat(n, || s.sign(black_box(&dsa::MSG), &self.sk)),
            Op::Verify => repeat(n, || {
                s.verify(black_box(&dsa::MSG), &self.signature, &self.pk)
            }),
            _ => unreachable!("not an SLH-DSA operation"),
        }
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "round-3.1 SPHINCS+-SHAKE-128f-simple, not FIPS 205 SLH-DSA: the same keys from the \
             same seeds and the same cost structure, but signatures FIPS 205 does not accept \
             (checked against RustCrypto slh-dsa)",
        )
    }
}

/// liboqs's SPHINCS+ against RustCrypto `slh-dsa` (FIPS 205), from the same seeds and
/// opt_rand: the same keys, and the same randomizer R (the signature's first 16 bytes,
/// PRF_msg); after R the signatures differ, and neither verifies the other's, even for
/// slh_sign_internal of the raw message (no context prefix): round 3.1 is not FIPS 205. Each
/// rejects a tampered signature.
pub fn check_slh(ours: &LiboqsSlh) -> Result<(), String> {
    use slh_dsa::{Shake128f, Signature, SigningKey, VerifyingKey};
    let name = "liboqs SPHINCS+-SHAKE-128f-simple";
    let sk = SigningKey::<Shake128f>::slh_keygen_internal(
        &SLH_SEEDS[..16],
        &SLH_SEEDS[16..32],
        &SLH_SEEDS[32..],
    );
    let vk: VerifyingKey<Shake128f> = sk.as_ref().clone();
    if ours.pk.as_ref() != vk.to_bytes().as_slice() || ours.sk.as_ref() != sk.to_bytes().as_slice()
    {
        return Err(format!("{name}: keys differ from slh-dsa's (same seeds)"));
    }
    let internal = sk.slh_sign_internal(&[&dsa::MSG], Some(&SLH_OPT_RAND));
    let (theirs_bytes, ours_bytes) = (internal.to_bytes(), ours.signature.as_ref());
    if ours_bytes[..16] != theirs_bytes[..16] {
        return Err(format!(
            "{name}: randomizer R differs from slh-dsa's (same key, opt_rand, message)"
        ));
    }
    if ours_bytes == theirs_bytes.as_slice() {
        return Err(format!(
            "{name}: now byte-compatible with FIPS 205's slh_sign_internal; update the arena"
        ));
    }
    let cross = Signature::<Shake128f>::try_from(ours_bytes).map_err(err)?;
    if vk.slh_verify_internal(&[&dsa::MSG], &cross).is_ok() {
        return Err(format!(
            "{name}: slh-dsa accepts its signature; expected round 3.1 to differ"
        ));
    }
    if vk.slh_verify_internal(&[&dsa::MSG], &internal).is_err() {
        return Err("slh-dsa does not verify its own slh_sign_internal signature".into());
    }
    let fips = ours
        .sig
        .signature_from_bytes(&theirs_bytes)
        .ok_or("signature length")?;
    if ours.sig.verify(&dsa::MSG, fips, &ours.pk).is_ok() {
        return Err(format!(
            "{name}: accepts FIPS 205's signature; expected round 3.1 to differ"
        ));
    }
    let mut tampered = ours_bytes.to_vec();
    tampered[100] ^= 1;
    let tampered = ours
        .sig
        .signature_from_bytes(&tampered)
        .ok_or("signature length")?;
    if ours.sig.verify(&dsa::MSG, tampered, &ours.pk).is_ok() {
        return Err(format!("{name}: accepts a tampered signature"));
    }
    Ok(())
}

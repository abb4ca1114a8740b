//! OpenSSL 3.5.5 (`--features openssl`): ML-KEM-768 / ML-KEM-1024, ML-DSA-65 and
//! SLH-DSA-SHAKE-128f of its default provider, through the EVP API of `openssl-sys`, built from
//! the source `openssl-src` 300.5.5 vendors.
//!
//! Every input is the arena's fixed one, passed as an OSSL_PARAM (names from OpenSSL 3.5's
//! EVP_PKEY-ML-KEM(7), EVP_KEM-ML-KEM(7), EVP_PKEY-ML-DSA(7), EVP_SIGNATURE-ML-DSA(7),
//! EVP_PKEY-SLH-DSA(7), EVP_SIGNATURE-SLH-DSA(7)): key generation from `seed` (ML-KEM d ‖ z,
//! ML-DSA ξ, SLH-DSA SK.seed ‖ SK.prf ‖ PK.seed), encapsulation from `ikme` (m), signing with
//! `test-entropy` (ML-DSA rnd, SLH-DSA opt_rand). So keys, ciphertexts and signatures are
//! compared byte for byte with nexusq-native's in the arena's checks; keys are exported as
//! `pub` and `priv` (the FIPS encodings, expanded for ML-KEM and ML-DSA) and parsed back with
//! `EVP_PKEY_new_raw_{public,private}_key_ex`.

use crate::dsa::{self, Dsa, RND, XI};
use crate::libs::{D, Kem, M, Material, Op, Param, Timed, Z, repeat, round_trip};
use crate::slh::{self, ADDRND, PK_SEED, SK_PRF, SK_SEED, Slh};
use openssl_sys as ffi;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::hint::black_box;
use std::ptr::{null, null_mut};
use std::time::Duration;

pub const OPENSSL: &str = "openssl";

/// The OpenSSL release the arena pins (openssl-src 300.5.5); the run refuses another.
const RELEASE: &str = "OpenSSL 3.5.5 ";

// Not declared by openssl-sys 0.9.118; as in OpenSSL 3.5's include/openssl/evp.h.
unsafe extern "C" {
    fn EVP_PKEY_CTX_new_from_pkey(
        libctx: *mut ffi::OSSL_LIB_CTX,
        pkey: *mut ffi::EVP_PKEY,
        propquery: *const c_char,
    ) -> *mut ffi::EVP_PKEY_CTX;
}

/// `OpenSSL_version(t)` as a string.
fn version(t: c_int) -> String {
    // SAFETY: OpenSSL_version returns a pointer to a static NUL-terminated string (or NULL).
    let p = unsafe { ffi::OpenSSL_version(t) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: non-NULL, static and NUL-terminated, as above.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The linked library as it reports itself, for the environment record: version string, the
/// compiler flags and platform it was built with, and the openssl-src crate that built it.
pub fn library() -> Vec<(String, String)> {
    [
        ("openssl-library", version(ffi::OPENSSL_VERSION)),
        ("openssl-cflags", version(ffi::OPENSSL_CFLAGS)),
        ("openssl-platform", version(ffi::OPENSSL_PLATFORM)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Initialises OpenSSL and checks that the linked library is the pinned release (the vendored
/// build, not a system OpenSSL).
fn init() -> Result<(), String> {
    ffi::init();
    let v = version(ffi::OPENSSL_VERSION);
    if !v.starts_with(RELEASE) {
        return Err(format!("openssl: linked library is {v:?}, not {RELEASE}"));
    }
    Ok(())
}

/// An error naming the failed call and OpenSSL's first queued reason; clears the queue.
fn fail(what: &str) -> String {
    // SAFETY: reads and clears this thread's error queue.
    let code = unsafe { ffi::ERR_get_error() };
    // SAFETY: ERR_reason_error_string returns a static string or NULL.
    let reason = unsafe { ffi::ERR_reason_error_string(code) };
    let reason = if reason.is_null() {
        format!("error {code:#x}")
    } else {
        // SAFETY: non-NULL, static and NUL-terminated.
        unsafe { CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: clears this thread's error queue.
    unsafe { ffi::ERR_clear_error() };
    format!("openssl: {what} failed: {reason}")
}

fn ok(ret: c_int, what: &str) -> Result<(), String> {
    if ret == 1 { Ok(()) } else { Err(fail(what)) }
}

/// One octet-string parameter and the terminator. OpenSSL only reads `bytes` (set-params), and
/// the array must not outlive them: use it at once.
fn octets(name: &'static CStr, bytes: &[u8]) -> [ffi::OSSL_PARAM; 2] {
    // SAFETY: the constructors only fill in a struct; `name` is static, and `bytes` is read,
    // never written, by the set-params calls the array is passed to while `bytes` lives.
    unsafe {
        [
            ffi::OSSL_PARAM_construct_octet_string(
                name.as_ptr(),
                bytes.as_ptr().cast_mut().cast::<c_void>(),
                bytes.len(),
            ),
            ffi::OSSL_PARAM_construct_end(),
        ]
    }
}

/// An owned `EVP_PKEY`.
struct Pkey(*mut ffi::EVP_PKEY);

impl Drop for Pkey {
    fn drop(&mut self) {
        // SAFETY: we own this reference (EVP_PKEY_free accepts NULL).
        unsafe { ffi::EVP_PKEY_free(self.0) }
    }
}

impl Pkey {
    fn checked(p: *mut ffi::EVP_PKEY, what: &str) -> Result<Self, String> {
        if p.is_null() {
            Err(fail(what))
        } else {
            Ok(Self(p))
        }
    }

    /// A key parsed from its raw FIPS encoding (`priv` or `pub`).
    fn raw(alg: &CStr, bytes: &[u8], private: bool) -> Result<Self, String> {
        let f = if private {
            ffi::EVP_PKEY_new_raw_private_key_ex
        } else {
            ffi::EVP_PKEY_new_raw_public_key_ex
        };
        // SAFETY: `alg` is NUL-terminated; `bytes` is read for `bytes.len()` bytes.
        let p = unsafe {
            f(
                null_mut(),
                alg.as_ptr(),
                null(),
                bytes.as_ptr(),
                bytes.len(),
            )
        };
        Self::checked(p, "EVP_PKEY_new_raw_*_key_ex")
    }

    /// An octet-string key parameter (`pub`, `priv`).
    fn octets(&self, name: &CStr) -> Result<Vec<u8>, String> {
        let mut len = 0;
        // SAFETY: a NULL buffer asks for the length only.
        let ret = unsafe {
            ffi::EVP_PKEY_get_octet_string_param(self.0, name.as_ptr(), null_mut(), 0, &mut len)
        };
        ok(ret, "EVP_PKEY_get_octet_string_param")?;
        let mut out = vec![0u8; len];
        // SAFETY: `out` has `out.len()` writable bytes.
        let ret = unsafe {
            ffi::EVP_PKEY_get_octet_string_param(
                self.0,
                name.as_ptr(),
                out.as_mut_ptr(),
                out.len(),
                &mut len,
            )
        };
        ok(ret, "EVP_PKEY_get_octet_string_param")?;
        out.truncate(len);
        Ok(out)
    }
}

/// An owned `EVP_PKEY_CTX` (it holds its own reference to its key and algorithm).
struct Ctx(*mut ffi::EVP_PKEY_CTX);

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: we own this context (EVP_PKEY_CTX_free accepts NULL).
        unsafe { ffi::EVP_PKEY_CTX_free(self.0) }
    }
}

impl Ctx {
    fn checked(p: *mut ffi::EVP_PKEY_CTX, what: &str) -> Result<Self, String> {
        if p.is_null() {
            Err(fail(what))
        } else {
            Ok(Self(p))
        }
    }

    /// A key-generation context for `alg`.
    fn keygen(alg: &CStr) -> Result<Self, String> {
        // SAFETY: `alg` is NUL-terminated; default library context and properties.
        let p = unsafe { ffi::EVP_PKEY_CTX_new_from_name(null_mut(), alg.as_ptr(), null()) };
        let ctx = Self::checked(p, "EVP_PKEY_CTX_new_from_name")?;
        // SAFETY: a fresh context.
        let ret = unsafe { ffi::EVP_PKEY_keygen_init(ctx.0) };
        ok(ret, "EVP_PKEY_keygen_init")?;
        Ok(ctx)
    }

    /// A context for operations with `key`.
    fn of(key: &Pkey) -> Result<Self, String> {
        // SAFETY: `key` is a valid key; the context takes its own reference to it.
        let p = unsafe { EVP_PKEY_CTX_new_from_pkey(null_mut(), key.0, null()) };
        Self::checked(p, "EVP_PKEY_CTX_new_from_pkey")
    }

    fn set(&self, name: &'static CStr, bytes: &[u8]) -> Result<(), String> {
        let params = octets(name, bytes);
        // SAFETY: `params` is a terminated array whose data (`bytes`) lives through the call.
        let ret = unsafe { ffi::EVP_PKEY_CTX_set_params(self.0, params.as_ptr()) };
        ok(ret, "EVP_PKEY_CTX_set_params")
    }

    /// A key generated from `seed` (the `seed` parameter is one-shot for ML-KEM, so it is set
    /// before every generation).
    fn generate(&self, seed: &[u8]) -> Result<Pkey, String> {
        self.set(c"seed", seed)?;
        let mut key = null_mut();
        // SAFETY: a key-generation context; `key` receives a new key or stays NULL.
        let ret = unsafe { ffi::EVP_PKEY_generate(self.0, &mut key) };
        ok(ret, "EVP_PKEY_generate")?;
        Pkey::checked(key, "EVP_PKEY_generate")
    }
}

fn kem_name(param: Param) -> &'static CStr {
    match param {
        Param::MlKem768 => c"ML-KEM-768",
        _ => c"ML-KEM-1024",
    }
}

/// OpenSSL's ML-KEM for one parameter set: keys from (d, z), encapsulation from m.
pub struct OpensslKem {
    param: Param,
    gen_ctx: Ctx,
    enc: Ctx,
    dec: Ctx,
    material: Material,
}

impl OpensslKem {
    pub fn new(param: Param) -> Result<Self, String> {
        init()?;
        let alg = kem_name(param);
        let gen_ctx = Ctx::keygen(alg)?;
        let key = gen_ctx.generate(&Self::seed())?;
        let ek_bytes = key.octets(c"pub")?;
        let dk_bytes = key.octets(c"priv")?;
        let enc = Ctx::of(&Pkey::raw(alg, &ek_bytes, false)?)?;
        // SAFETY: a context of an ML-KEM key; no parameters.
        let ret = unsafe { ffi::EVP_PKEY_encapsulate_init(enc.0, null()) };
        ok(ret, "EVP_PKEY_encapsulate_init")?;
        let dec = decaps_ctx(alg, &dk_bytes)?;
        let mut this = Self {
            param,
            gen_ctx,
            enc,
            dec,
            material: Material {
                ek: ek_bytes,
                dk: dk_bytes,
                ct: Vec::new(),
                ss: Vec::new(),
            },
        };
        let (ct, ss) = this.encaps()?;
        // The timed path again: `ikme` is one-shot, so a second encapsulation must set it anew
        // and give the same bytes (were it ignored, OpenSSL would draw a random m).
        if this.encaps()? != (ct.clone(), ss.clone()) {
            return Err("openssl: a second encapsulation from the same m differs".into());
        }
        let back = decaps(&this.dec, &ct)?;
        let material = Material {
            ct,
            ss,
            ..this.material
        };
        this.material = round_trip(OPENSSL, param, material, &back)?;
        Ok(this)
    }

    fn seed() -> [u8; 64] {
        let mut seed = [0u8; 64];
        seed[..32].copy_from_slice(&D);
        seed[32..].copy_from_slice(&Z);
        seed
    }

    /// Encapsulation from the fixed m, as timed: `ikme` = m, then EVP_PKEY_encapsulate.
    fn encaps(&self) -> Result<(Vec<u8>, Vec<u8>), String> {
        let (mut ct, mut ss) = (vec![0u8; 1568], vec![0u8; 32]);
        let (ct_len, ss_len) = encaps_into(&self.enc, &mut ct, &mut ss)?;
        ct.truncate(ct_len);
        ss.truncate(ss_len);
        Ok((ct, ss))
    }
}

/// `ikme` = m, then EVP_PKEY_encapsulate into `ct` and `ss`; their lengths.
fn encaps_into(enc: &Ctx, ct: &mut [u8], ss: &mut [u8]) -> Result<(usize, usize), String> {
    enc.set(c"ikme", &M)?;
    let (mut ct_len, mut ss_len) = (ct.len(), ss.len());
    // SAFETY: an encapsulation context; the buffers have the lengths passed.
    let ret = unsafe {
        ffi::EVP_PKEY_encapsulate(
            enc.0,
            ct.as_mut_ptr(),
            &mut ct_len,
            ss.as_mut_ptr(),
            &mut ss_len,
        )
    };
    ok(ret, "EVP_PKEY_encapsulate")?;
    Ok((ct_len, ss_len))
}

/// A decapsulation context of the expanded decapsulation key `dk`.
fn decaps_ctx(alg: &CStr, dk: &[u8]) -> Result<Ctx, String> {
    let dec = Ctx::of(&Pkey::raw(alg, dk, true)?)?;
    // SAFETY: a context of an ML-KEM key; no parameters.
    let ret = unsafe { ffi::EVP_PKEY_decapsulate_init(dec.0, null()) };
    ok(ret, "EVP_PKEY_decapsulate_init")?;
    Ok(dec)
}

fn decaps_into(dec: &Ctx, ct: &[u8], ss: &mut [u8]) -> Result<usize, String> {
    let mut ss_len = ss.len();
    // SAFETY: a decapsulation context; `ss` has `ss_len` writable bytes, `ct` is read.
    let ret = unsafe {
        ffi::EVP_PKEY_decapsulate(dec.0, ss.as_mut_ptr(), &mut ss_len, ct.as_ptr(), ct.len())
    };
    ok(ret, "EVP_PKEY_decapsulate")?;
    Ok(ss_len)
}

fn decaps(dec: &Ctx, ct: &[u8]) -> Result<Vec<u8>, String> {
    let mut ss = vec![0u8; 32];
    let len = decaps_into(dec, ct, &mut ss)?;
    ss.truncate(len);
    Ok(ss)
}

impl Timed for OpensslKem {
    fn label(&self) -> &str {
        OPENSSL
    }
    fn param(&self) -> Param {
        self.param
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        let seed = Self::seed();
        let (mut ct, mut ss) = (vec![0u8; self.material.ct.len()], [0u8; 32]);
        let what = "openssl: a timed operation failed";
        match op {
            Op::Keygen => repeat(n, || self.gen_ctx.generate(black_box(&seed)).expect(what)),
            Op::Encaps => repeat(n, || encaps_into(&self.enc, &mut ct, &mut ss).expect(what)),
            Op::Decaps => repeat(n, || {
                decaps_into(&self.dec, black_box(&self.material.ct), &mut ss).expect(what)
            }),
            Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
        }
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "OpenSSL 3.5.5 (openssl-src 300.5.5, vendored build), default provider, EVP API; \
             keygen: EVP_PKEY_CTX_set_params(seed = d || z) + EVP_PKEY_generate + EVP_PKEY_free \
             on one keygen context; encaps: set_params(ikme = m, one-shot in OpenSSL) + \
             EVP_PKEY_encapsulate; decaps: EVP_PKEY_decapsulate; provider dispatch and \
             parameter handling included",
        )
    }
}

impl Kem for OpensslKem {
    fn deterministic(&self) -> bool {
        true
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn decaps_bytes(&self, dk: &[u8], ct: &[u8]) -> Result<Vec<u8>, String> {
        decaps(&decaps_ctx(kem_name(self.param), dk)?, ct)
    }
}

/// An owned `EVP_SIGNATURE`.
struct SigAlg(*mut ffi::EVP_SIGNATURE);

impl Drop for SigAlg {
    fn drop(&mut self) {
        // SAFETY: we own this reference.
        unsafe { ffi::EVP_SIGNATURE_free(self.0) }
    }
}

/// A context of `key` initialised for one-shot message signing or verification with `alg`
/// (pure, empty context string: OpenSSL's defaults).
fn message_ctx(alg: &CStr, key: &Pkey, sign: bool) -> Result<Ctx, String> {
    let ctx = Ctx::of(key)?;
    // SAFETY: `alg` is NUL-terminated; default library context and properties.
    let sig_alg = SigAlg(unsafe { ffi::EVP_SIGNATURE_fetch(null_mut(), alg.as_ptr(), null()) });
    if sig_alg.0.is_null() {
        return Err(fail("EVP_SIGNATURE_fetch"));
    }
    let (f, what): (unsafe extern "C" fn(_, _, _) -> _, _) = if sign {
        (
            ffi::EVP_PKEY_sign_message_init,
            "EVP_PKEY_sign_message_init",
        )
    } else {
        (
            ffi::EVP_PKEY_verify_message_init,
            "EVP_PKEY_verify_message_init",
        )
    };
    // SAFETY: a context of a key of `alg`, a fetched algorithm (the context takes its own
    // reference), no parameters.
    ok(unsafe { f(ctx.0, sig_alg.0, null()) }, what)?;
    Ok(ctx)
}

/// Signs `msg` with a signing context into `sig`; the signature's length.
fn sign_into(ctx: &Ctx, msg: &[u8], sig: &mut [u8]) -> Result<usize, String> {
    let mut len = sig.len();
    // SAFETY: a signing context; `sig` has `len` writable bytes, `msg` is read.
    let ret =
        unsafe { ffi::EVP_PKEY_sign(ctx.0, sig.as_mut_ptr(), &mut len, msg.as_ptr(), msg.len()) };
    ok(ret, "EVP_PKEY_sign")?;
    Ok(len)
}

/// Whether a verification context accepts `sig` of `msg` (1: valid; 0 or below: not).
fn verifies(ctx: &Ctx, msg: &[u8], sig: &[u8]) -> bool {
    // SAFETY: a verification context; both buffers are read for their lengths.
    let ret =
        unsafe { ffi::EVP_PKEY_verify(ctx.0, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len()) };
    if ret != 1 {
        // SAFETY: drops the reason queued by a rejection.
        unsafe { ffi::ERR_clear_error() };
    }
    ret == 1
}

/// What the ML-DSA and SLH-DSA adapters share: a keygen context, the key pair parsed back from
/// its bytes with a signing and a verifying context, and the setup's signature.
struct Signer {
    alg: &'static CStr,
    seed: Vec<u8>,
    gen_ctx: Ctx,
    sign: Ctx,
    verify: Ctx,
    sig: Vec<u8>,
    vk: Vec<u8>,
    sk: Vec<u8>,
}

impl Signer {
    /// Keys from `seed`; a signature of `msg` with `test-entropy` = `entropy`.
    fn new(alg: &'static CStr, seed: Vec<u8>, entropy: &[u8], msg: &[u8]) -> Result<Self, String> {
        init()?;
        let gen_ctx = Ctx::keygen(alg)?;
        let key = gen_ctx.generate(&seed)?;
        let vk = key.octets(c"pub")?;
        let sk = key.octets(c"priv")?;
        let sign = message_ctx(alg, &Pkey::raw(alg, &sk, true)?, true)?;
        let verify = message_ctx(alg, &Pkey::raw(alg, &vk, false)?, false)?;
        let mut this = Self {
            alg,
            seed,
            gen_ctx,
            sign,
            verify,
            sig: Vec::new(),
            vk,
            sk,
        };
        this.sig = this.sign_with(msg, entropy)?;
        Ok(this)
    }

    /// The timed path: `test-entropy` = `entropy`, then EVP_PKEY_sign.
    fn sign_with(&self, msg: &[u8], entropy: &[u8]) -> Result<Vec<u8>, String> {
        let mut len = 0;
        // SAFETY: a NULL signature buffer asks for the maximum length only.
        let ret = unsafe {
            ffi::EVP_PKEY_sign(self.sign.0, null_mut(), &mut len, msg.as_ptr(), msg.len())
        };
        ok(ret, "EVP_PKEY_sign (length)")?;
        let mut sig = vec![0u8; len];
        self.sign.set(c"test-entropy", entropy)?;
        let len = sign_into(&self.sign, msg, &mut sig)?;
        sig.truncate(len);
        Ok(sig)
    }

    fn material(&self) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
        (self.vk.clone(), self.sk.clone(), self.sig.clone())
    }

    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        let ctx = message_ctx(self.alg, &Pkey::raw(self.alg, vk, false)?, false)?;
        Ok(verifies(&ctx, msg, sig))
    }

    /// Keygen, sign (with `entropy()` set before each signature) or verify, `n` times.
    fn time(&self, op: Op, n: u32, msg: &[u8], mut entropy: impl FnMut() -> Vec<u8>) -> Duration {
        let what = "openssl: a timed operation failed";
        let mut sig = vec![0u8; self.sig.len()];
        match op {
            Op::Keygen => repeat(n, || {
                self.gen_ctx.generate(black_box(&self.seed)).expect(what)
            }),
            Op::Sign => repeat(n, || {
                self.sign.set(c"test-entropy", &entropy()).expect(what);
                sign_into(&self.sign, black_box(msg), &mut sig).expect(what)
            }),
            Op::Verify => repeat(n, || {
                assert!(verifies(&self.verify, black_box(msg), &self.sig), "{what}");
            }),
            _ => unreachable!("not a signature operation"),
        }
    }
}

/// OpenSSL's ML-DSA-65: keys from ξ, signatures with rnd passed as `test-entropy`.
pub struct OpensslDsa {
    signer: Signer,
    material: dsa::Material,
}

impl OpensslDsa {
    pub fn new() -> Result<Self, String> {
        let signer = Signer::new(c"ML-DSA-65", XI.to_vec(), &RND, &dsa::MSG)?;
        // The timed path with another rnd, against nexusq-native's signature with it: the
        // `test-entropy` set on the initialised context is the rnd used.
        let rnd = dsa::next_rnd();
        let again = signer.sign_with(&dsa::MSG, &rnd)?;
        let sk =
            nexusq_native::mldsa65::SigningKey::from_bytes(&signer.sk).map_err(crate::libs::err)?;
        let want =
            nexusq_native::mldsa65::sign(&sk, &dsa::MSG, &[], &rnd).map_err(crate::libs::err)?;
        if again != want.as_bytes() {
            return Err(
                "openssl ML-DSA-65: signature with a second rnd differs from nexusq-native's"
                    .into(),
            );
        }
        let (vk, sk, sig) = signer.material();
        let ok = verifies(&signer.verify, &dsa::MSG, &sig);
        let material = dsa::own_check(OPENSSL, dsa::Material { vk, sk, sig }, ok)?;
        Ok(Self { signer, material })
    }
}

impl Timed for OpensslDsa {
    fn label(&self) -> &str {
        OPENSSL
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        self.signer
            .time(op, n, &dsa::MSG, || dsa::next_rnd().to_vec())
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "OpenSSL 3.5.5 (openssl-src 300.5.5, vendored build), default provider, EVP API; \
             keygen: EVP_PKEY_CTX_set_params(seed = xi) + EVP_PKEY_generate + EVP_PKEY_free; \
             sign: pure, empty context, on a context initialised once with \
             EVP_PKEY_sign_message_init: set_params(test-entropy = rnd, a new rnd per \
             signature as for nexusq-native) + EVP_PKEY_sign; verify: EVP_PKEY_verify on a \
             context from EVP_PKEY_verify_message_init",
        )
    }
}

impl Dsa for OpensslDsa {
    fn seeded(&self) -> (bool, bool) {
        (true, true)
    }
    fn material(&self) -> &dsa::Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        self.signer.verify_bytes(vk, msg, sig)
    }
}

/// OpenSSL's SLH-DSA-SHAKE-128f: keys from the three seeds, signatures with opt_rand passed as
/// `test-entropy`.
pub struct OpensslSlh {
    signer: Signer,
    material: slh::Material,
}

impl OpensslSlh {
    pub fn new() -> Result<Self, String> {
        let seed = [SK_SEED, SK_PRF, PK_SEED].concat();
        let signer = Signer::new(c"SLH-DSA-SHAKE-128f", seed, &ADDRND, &slh::MSG)?;
        // The timed path signs again on the same context: the same bytes.
        if signer.sign_with(&slh::MSG, &ADDRND)? != signer.sig {
            return Err("openssl SLH-DSA-SHAKE-128f: a second signature differs".into());
        }
        let (vk, sk, sig) = signer.material();
        let ok = verifies(&signer.verify, &slh::MSG, &sig);
        let material = slh::own_check(OPENSSL, slh::Material { vk, sk, sig }, ok)?;
        Ok(Self { signer, material })
    }
}

impl Timed for OpensslSlh {
    fn label(&self) -> &str {
        OPENSSL
    }
    fn param(&self) -> Param {
        Param::SlhDsaShake128f
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        self.signer.time(op, n, &slh::MSG, || ADDRND.to_vec())
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "OpenSSL 3.5.5 (openssl-src 300.5.5, vendored build), default provider, EVP API; \
             keygen: EVP_PKEY_CTX_set_params(seed = SK.seed || SK.prf || PK.seed) + \
             EVP_PKEY_generate + EVP_PKEY_free; sign: pure, empty context, \
             set_params(test-entropy = the fixed opt_rand) + EVP_PKEY_sign on a context from \
             EVP_PKEY_sign_message_init; verify: EVP_PKEY_verify",
        )
    }
}

impl Slh for OpensslSlh {
    fn fips205(&self) -> bool {
        true
    }
    fn material(&self) -> &slh::Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        self.signer.verify_bytes(vk, msg, sig)
    }
}

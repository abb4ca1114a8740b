//! BoringSSL (the `boring` crate over `boring-sys`'s vendored build), behind the `boring`
//! feature: ML-KEM-768 and ML-KEM-1024 (`boring::mlkem`), ML-DSA-65 (`boring::mldsa`) and X-Wing
//! (`xwing.h`, which `boring-sys` has no bindings for).
//!
//! The timed operations are the public API a BoringSSL user calls: keys from seeds, `encap` and
//! ML-DSA `sign` with BoringSSL's own randomness (it offers no other), `decap`, `verify`. The byte
//! comparisons need what only BoringSSL's internal FIPS-module interface (`bcm_interface.h`)
//! has: encapsulation with fixed m, ML-DSA `Sign_internal` with fixed rnd, and the NIST
//! encodings of the expanded private keys. Those are C++ functions in namespace `bssl`, so they
//! are declared below by their Itanium-mangled names (Linux and macOS; x86-64 and aarch64 mangle
//! them the same), taken from the bundled `bcm_interface.h`.

use crate::dsa::{self, Dsa, MSG, RND, XI};
use crate::libs::{D, Kem, M, Material, Op, Param, Timed, Z, err, repeat};
use boring::mldsa::{self, MlDsaPrivateKey, MlDsaPublicKey};
use boring::mlkem::{self, MlKemPrivateKey, MlKemPublicKey};
use boring_sys as ffi;
use std::ffi::c_int;
use std::hint::black_box;
use std::mem::MaybeUninit;
use std::time::Duration;

pub const LABEL: &str = "boringssl";

/// `bcm_status::approved` and `bcm_status::not_approved` (an `enum class` with `int` as its
/// underlying type): success. `failure` is 2.
fn bcm_ok(status: c_int) -> bool {
    status == 0 || status == 1
}

// The `bssl::BCM_*` functions of BoringSSL's bcm_interface.h (C++ linkage).
unsafe extern "C" {
    #[link_name = "_ZN4bssl35BCM_mlkem768_encap_external_entropyEPhS0_PK19MLKEM768_public_keyPKh"]
    fn BCM_mlkem768_encap_external_entropy(
        out_ciphertext: *mut u8,
        out_shared_secret: *mut u8,
        public_key: *const ffi::MLKEM768_public_key,
        entropy: *const u8,
    ) -> c_int;
    #[link_name = "_ZN4bssl36BCM_mlkem1024_encap_external_entropyEPhS0_PK20MLKEM1024_public_keyPKh"]
    fn BCM_mlkem1024_encap_external_entropy(
        out_ciphertext: *mut u8,
        out_shared_secret: *mut u8,
        public_key: *const ffi::MLKEM1024_public_key,
        entropy: *const u8,
    ) -> c_int;
    #[link_name = "_ZN4bssl32BCM_mlkem768_marshal_private_keyEP6cbb_stPK20MLKEM768_private_key"]
    fn BCM_mlkem768_marshal_private_key(
        out: *mut ffi::CBB,
        private_key: *const ffi::MLKEM768_private_key,
    ) -> c_int;
    #[link_name = "_ZN4bssl33BCM_mlkem1024_marshal_private_keyEP6cbb_stPK21MLKEM1024_private_key"]
    fn BCM_mlkem1024_marshal_private_key(
        out: *mut ffi::CBB,
        private_key: *const ffi::MLKEM1024_private_key,
    ) -> c_int;
    #[link_name = "_ZN4bssl30BCM_mlkem768_parse_private_keyEP20MLKEM768_private_keyP6cbs_st"]
    fn BCM_mlkem768_parse_private_key(
        out: *mut ffi::MLKEM768_private_key,
        cbs: *mut ffi::CBS,
    ) -> c_int;
    #[link_name = "_ZN4bssl31BCM_mlkem1024_parse_private_keyEP21MLKEM1024_private_keyP6cbs_st"]
    fn BCM_mlkem1024_parse_private_key(
        out: *mut ffi::MLKEM1024_private_key,
        cbs: *mut ffi::CBS,
    ) -> c_int;
    #[link_name = "_ZN4bssl25BCM_mldsa65_sign_internalEPhPK19MLDSA65_private_keyPKhmS5_mS5_mS5_"]
    fn BCM_mldsa65_sign_internal(
        out_encoded_signature: *mut u8,
        private_key: *const ffi::MLDSA65_private_key,
        msg: *const u8,
        msg_len: usize,
        context_prefix: *const u8,
        context_prefix_len: usize,
        context: *const u8,
        context_len: usize,
        randomizer: *const u8,
    ) -> c_int;
    #[link_name = "_ZN4bssl31BCM_mldsa65_marshal_private_keyEP6cbb_stPK19MLDSA65_private_key"]
    fn BCM_mldsa65_marshal_private_key(
        out: *mut ffi::CBB,
        private_key: *const ffi::MLDSA65_private_key,
    ) -> c_int;
}

/// `struct XWING_private_key` of xwing.h: 512 * (3 + 3 + 9) + 5 * 32 bytes, aligned as `uint16_t`.
#[repr(C)]
pub struct XwingPrivateKey([u16; 3920]);
const _: () = assert!(size_of::<XwingPrivateKey>() == 512 * (3 + 3 + 9) + 5 * 32);

pub const XWING_PUBLIC_KEY_BYTES: usize = 1216;
pub const XWING_CIPHERTEXT_BYTES: usize = 1120;

// xwing.h (C linkage; `boring-sys` generates no bindings for it).
unsafe extern "C" {
    fn XWING_parse_private_key(out_private_key: *mut XwingPrivateKey, cbs: *mut ffi::CBS) -> c_int;
    fn XWING_public_from_private(
        out_encoded_public_key: *mut u8,
        private_key: *const XwingPrivateKey,
    ) -> c_int;
    fn XWING_encap_external_entropy(
        out_ciphertext: *mut u8,
        out_shared_secret: *mut u8,
        encoded_public_key: *const u8,
        eseed: *const u8,
    ) -> c_int;
    fn XWING_decap(
        out_shared_secret: *mut u8,
        ciphertext: *const u8,
        private_key: *const XwingPrivateKey,
    ) -> c_int;
}

/// Writes at most `len` bytes through `marshal` into a fixed CBB; the bytes written.
fn marshal(len: usize, marshal: impl FnOnce(*mut ffi::CBB) -> bool) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; len];
    let mut cbb = MaybeUninit::<ffi::CBB>::uninit();
    // SAFETY: CBB_init_fixed initialises `cbb` over `out`, which outlives it; nothing is
    // allocated, so there is nothing to clean up.
    if unsafe { ffi::CBB_init_fixed(cbb.as_mut_ptr(), out.as_mut_ptr(), len) } != 1 {
        return Err("CBB_init_fixed failed".into());
    }
    if !marshal(cbb.as_mut_ptr()) {
        return Err("BoringSSL could not marshal a key".into());
    }
    // SAFETY: `cbb` was initialised above.
    let written = unsafe { ffi::CBB_len(cbb.as_ptr()) };
    out.truncate(written);
    Ok(out)
}

macro_rules! boring_mlkem {
    ($name:ident, $alg:ident, $param:expr, $pub:ident, $priv:ident, $from_seed:ident,
     $public_from_private:ident, $marshal_public:ident, $parse_public:ident, $decap:ident,
     $encap_entropy:ident, $marshal_private:ident, $parse_private:ident, $ct:expr) => {
        pub struct $name {
            ek: MlKemPublicKey,
            dk: MlKemPrivateKey,
            material: Material,
        }

        impl $name {
            pub fn new() -> Result<Self, String> {
                let mut seed = [0u8; 64];
                seed[..32].copy_from_slice(&D);
                seed[32..].copy_from_slice(&Z);
                // For the byte comparison: the same key as BoringSSL's C structures, its NIST
                // encodings, and encapsulation with the fixed m.
                let mut sk = Box::new(MaybeUninit::<ffi::$priv>::uninit());
                // SAFETY: `sk` is writable and large enough for the key; `seed` is 64 bytes.
                if unsafe { ffi::$from_seed(sk.as_mut_ptr(), seed.as_ptr(), seed.len()) } != 1 {
                    return Err("BoringSSL refused the ML-KEM seed".into());
                }
                // SAFETY: initialised by the successful call above.
                let sk = unsafe { sk.assume_init() };
                let mut pk = Box::new(MaybeUninit::<ffi::$pub>::uninit());
                // SAFETY: `pk` is writable; `sk` is an initialised private key.
                unsafe { ffi::$public_from_private(pk.as_mut_ptr(), &*sk) };
                // SAFETY: initialised by the call above.
                let pk = unsafe { pk.assume_init() };
                // SAFETY (both closures): `cbb` is an initialised fixed CBB; the keys are
                // initialised.
                let ek_bytes = marshal(4096, |cbb| unsafe { ffi::$marshal_public(cbb, &*pk) } == 1)?;
                let dk_bytes = marshal(4096, |cbb| bcm_ok(unsafe { $marshal_private(cbb, &*sk) }))?;
                let mut ct = vec![0u8; $ct];
                let mut ss = [0u8; 32];
                // SAFETY: `ct` and `ss` have the sizes BoringSSL writes; `pk` is initialised;
                // `M` is the 32 bytes of entropy read.
                unsafe { $encap_entropy(ct.as_mut_ptr(), ss.as_mut_ptr(), &*pk, M.as_ptr()) };

                // The objects the timing uses, through the `boring` crate from the same seed.
                let dk = MlKemPrivateKey::from_seed(mlkem::Algorithm::$alg, &seed).map_err(err)?;
                let ek = MlKemPublicKey::from_slice(mlkem::Algorithm::$alg, &ek_bytes).map_err(err)?;
                let back = dk.decapsulate(&ct).map_err(err)?;
                if back != ss {
                    return Err(format!(
                        "{LABEL} {}: decaps of its own ciphertext differs from encaps",
                        $param.name()
                    ));
                }
                let (ct2, ss2) = ek.encapsulate().map_err(err)?;
                if dk.decapsulate(&ct2).map_err(err)? != ss2 {
                    return Err(format!(
                        "{LABEL} {}: decaps of its randomized ciphertext differs",
                        $param.name()
                    ));
                }
                let material = Material {
                    ek: ek_bytes,
                    dk: dk_bytes,
                    ct,
                    ss: ss.to_vec(),
                };
                Ok(Self { ek, dk, material })
            }
        }

        impl Timed for $name {
            fn label(&self) -> &str {
                LABEL
            }
            fn param(&self) -> Param {
                $param
            }
            fn time(&self, op: Op, n: u32) -> Duration {
                let mut seed = [0u8; 64];
                seed[..32].copy_from_slice(&D);
                seed[32..].copy_from_slice(&Z);
                let ct = &self.material.ct[..];
                match op {
                    Op::Keygen => repeat(n, || {
                        MlKemPrivateKey::from_seed(mlkem::Algorithm::$alg, black_box(&seed))
                    }),
                    Op::Encaps => repeat(n, || self.ek.encapsulate()),
                    Op::Decaps => repeat(n, || self.dk.decapsulate(black_box(ct))),
                    Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
                }
            }
            fn includes(&self) -> Option<&str> {
                Some(
                    "keygen: MLKEM*_private_key_from_seed(d || z) (the expanded key, no encoded \
                     public key); encaps: MLKEM*_encap with BoringSSL's own randomness (cost \
                     included; the byte check used the internal encap with the fixed m)",
                )
            }
        }

        impl Kem for $name {
            fn deterministic(&self) -> bool {
                true
            }
            fn material(&self) -> &Material {
                &self.material
            }
            fn decaps_bytes(&self, dk: &[u8], ct: &[u8]) -> Result<Vec<u8>, String> {
                let mut sk = Box::new(MaybeUninit::<ffi::$priv>::uninit());
                let mut cbs = ffi::cbs_init(dk);
                // SAFETY: `sk` is writable; `cbs` reads `dk`, which outlives it.
                if !bcm_ok(unsafe { $parse_private(sk.as_mut_ptr(), &mut cbs) }) {
                    return Err("BoringSSL refused the expanded decapsulation key".into());
                }
                // SAFETY: initialised by the successful parse.
                let sk = unsafe { sk.assume_init() };
                let mut ss = [0u8; 32];
                // SAFETY: `ss` is 32 bytes; `ct` is read for its length; `sk` is initialised.
                if unsafe { ffi::$decap(ss.as_mut_ptr(), ct.as_ptr(), ct.len(), &*sk) } != 1 {
                    return Err("MLKEM decap failed".into());
                }
                Ok(ss.to_vec())
            }
        }
    };
}

boring_mlkem!(
    Boring768,
    MlKem768,
    Param::MlKem768,
    MLKEM768_public_key,
    MLKEM768_private_key,
    MLKEM768_private_key_from_seed,
    MLKEM768_public_from_private,
    MLKEM768_marshal_public_key,
    MLKEM768_parse_public_key,
    MLKEM768_decap,
    BCM_mlkem768_encap_external_entropy,
    BCM_mlkem768_marshal_private_key,
    BCM_mlkem768_parse_private_key,
    1088
);
boring_mlkem!(
    Boring1024,
    MlKem1024,
    Param::MlKem1024,
    MLKEM1024_public_key,
    MLKEM1024_private_key,
    MLKEM1024_private_key_from_seed,
    MLKEM1024_public_from_private,
    MLKEM1024_marshal_public_key,
    MLKEM1024_parse_public_key,
    MLKEM1024_decap,
    BCM_mlkem1024_encap_external_entropy,
    BCM_mlkem1024_marshal_private_key,
    BCM_mlkem1024_parse_private_key,
    1568
);

/// The ML-KEM adapter of `param` (ML-KEM-768 or ML-KEM-1024).
pub fn kem(param: Param) -> Result<Box<dyn Kem>, String> {
    Ok(match param {
        Param::MlKem768 => Box::new(Boring768::new()?),
        _ => Box::new(Boring1024::new()?),
    })
}

pub struct BoringDsa {
    sk: MlDsaPrivateKey,
    vk: MlDsaPublicKey,
    sig: Vec<u8>,
    material: dsa::Material,
}

impl BoringDsa {
    pub fn new() -> Result<Self, String> {
        // For the byte comparison: the key as BoringSSL's C structure, its NIST encoding, and
        // Sign_internal with the fixed rnd over 0 || 0 || MSG (pure ML-DSA, empty context).
        let mut raw = Box::new(MaybeUninit::<ffi::MLDSA65_private_key>::uninit());
        // SAFETY: `raw` is writable and large enough; `XI` is 32 bytes.
        if unsafe { ffi::MLDSA65_private_key_from_seed(raw.as_mut_ptr(), XI.as_ptr(), XI.len()) }
            != 1
        {
            return Err("BoringSSL refused the ML-DSA seed".into());
        }
        // SAFETY: initialised by the successful call above.
        let raw = unsafe { raw.assume_init() };
        // SAFETY: `cbb` is an initialised fixed CBB; `raw` is initialised.
        let sk_bytes = marshal(8192, |cbb| {
            bcm_ok(unsafe { BCM_mldsa65_marshal_private_key(cbb, &*raw) })
        })?;
        let mut sig = vec![0u8; 3309];
        let prefix = [0u8, 0];
        // SAFETY: `sig` has the signature's size; every input pointer is valid for its length
        // (the context is empty: a null pointer with length 0, as BoringSSL's own callers pass).
        let status = unsafe {
            BCM_mldsa65_sign_internal(
                sig.as_mut_ptr(),
                &*raw,
                MSG.as_ptr(),
                MSG.len(),
                prefix.as_ptr(),
                prefix.len(),
                std::ptr::null(),
                0,
                RND.as_ptr(),
            )
        };
        if !bcm_ok(status) {
            return Err("BCM_mldsa65_sign_internal failed".into());
        }

        // The objects the timing uses, through the `boring` crate from the same seed.
        let sk = MlDsaPrivateKey::from_seed(mldsa::Algorithm::MlDsa65, &XI).map_err(err)?;
        let vk_bytes = sk.public_key().map_err(err)?.to_bytes().map_err(err)?;
        let vk = MlDsaPublicKey::from_slice(mldsa::Algorithm::MlDsa65, &vk_bytes).map_err(err)?;
        let own = sk.sign(&MSG).map_err(err)?;
        let ok = vk.verify(&MSG, &sig).is_ok() && vk.verify(&MSG, &own).is_ok();
        let material = dsa::Material {
            vk: vk_bytes,
            sk: sk_bytes,
            sig,
        };
        let material = dsa::own_check(LABEL, material, ok)?;
        Ok(Self {
            sk,
            vk,
            sig: own,
            material,
        })
    }
}

impl Timed for BoringDsa {
    fn label(&self) -> &str {
        LABEL
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        match op {
            Op::Keygen => repeat(n, || {
                MlDsaPrivateKey::from_seed(mldsa::Algorithm::MlDsa65, black_box(&XI))
            }),
            Op::Sign => repeat(n, || self.sk.sign(black_box(&MSG))),
            Op::Verify => repeat(n, || self.vk.verify(black_box(&MSG), &self.sig)),
            _ => unreachable!("not an ML-DSA operation"),
        }
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "sign: MLDSA65_sign, hedged with BoringSSL's own randomness (cost included; the byte \
             check used the internal Sign_internal with the fixed rnd)",
        )
    }
}

impl Dsa for BoringDsa {
    fn seeded(&self) -> (bool, bool) {
        (true, true)
    }
    fn material(&self) -> &dsa::Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        let vk = MlDsaPublicKey::from_slice(mldsa::Algorithm::MlDsa65, vk).map_err(err)?;
        Ok(vk.verify(msg, sig).is_ok())
    }
}

/// BoringSSL's X-Wing private key from its 32-byte seed (expanded: the ML-KEM-768 key and the
/// X25519 secret).
pub fn xwing_private_key(seed: &[u8; 32]) -> Result<Box<XwingPrivateKey>, String> {
    let mut sk = Box::new(XwingPrivateKey([0; 3920]));
    let mut cbs = ffi::cbs_init(seed);
    // SAFETY: `sk` is a writable XWING_private_key; `cbs` reads `seed`, which outlives it.
    if unsafe { XWING_parse_private_key(&mut *sk, &mut cbs) } != 1 {
        return Err("XWING_parse_private_key failed".into());
    }
    Ok(sk)
}

/// The encoded public key of `sk`.
pub fn xwing_public_key(sk: &XwingPrivateKey) -> Result<[u8; XWING_PUBLIC_KEY_BYTES], String> {
    let mut pk = [0u8; XWING_PUBLIC_KEY_BYTES];
    // SAFETY: `pk` has the public key's size; `sk` was made by XWING_parse_private_key.
    if unsafe { XWING_public_from_private(pk.as_mut_ptr(), sk) } != 1 {
        return Err("XWING_public_from_private failed".into());
    }
    Ok(pk)
}

/// Encapsulation to `pk` with the 64-byte `eseed` (ML-KEM m || X25519 ephemeral secret).
pub fn xwing_encap(pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, [u8; 32]), String> {
    if pk.len() != XWING_PUBLIC_KEY_BYTES {
        return Err("wrong X-Wing public key length".into());
    }
    let mut ct = vec![0u8; XWING_CIPHERTEXT_BYTES];
    let mut ss = [0u8; 32];
    // SAFETY: `ct` and `ss` have the sizes written; `pk` is 1216 bytes, `eseed` 64.
    let ok = unsafe {
        XWING_encap_external_entropy(
            ct.as_mut_ptr(),
            ss.as_mut_ptr(),
            pk.as_ptr(),
            eseed.as_ptr(),
        )
    };
    if ok != 1 {
        return Err("XWING_encap_external_entropy failed".into());
    }
    Ok((ct, ss))
}

pub fn xwing_decap(sk: &XwingPrivateKey, ct: &[u8]) -> Result<[u8; 32], String> {
    if ct.len() != XWING_CIPHERTEXT_BYTES {
        return Err("wrong X-Wing ciphertext length".into());
    }
    let mut ss = [0u8; 32];
    // SAFETY: `ss` is 32 bytes, `ct` 1120; `sk` was made by XWING_parse_private_key.
    if unsafe { XWING_decap(ss.as_mut_ptr(), ct.as_ptr(), sk) } != 1 {
        return Err("XWING_decap failed".into());
    }
    Ok(ss)
}

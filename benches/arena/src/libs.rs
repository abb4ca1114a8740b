//! One ML-KEM adapter per library and parameter set, behind the small [`Kem`] trait (the ML-DSA
//! ones are in `dsa.rs`), and what both kinds share: [`Param`], [`Op`] and [`Timed`].
//!
//! Each adapter does its setup once (key pair, parsed keys, a valid ciphertext) and checks its own
//! round trip; [`Timed::time`] then runs a batch of one operation on that prepared state.

use nexusq_native::Implementation;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Fixed FIPS 203 seeds for the libraries whose deterministic functions are public.
pub const D: [u8; 32] = [0x11; 32];
pub const Z: [u8; 32] = [0x22; 32];
pub const M: [u8; 32] = [0x33; 32];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    MlKem768,
    MlKem1024,
    MlDsa65,
    SlhDsaShake128f,
    /// X-Wing (ML-KEM-768 + X25519), `xwing.rs`.
    XWing,
}

impl Param {
    pub const ALL: [Param; 5] = [
        Param::MlKem768,
        Param::MlKem1024,
        Param::XWing,
        Param::MlDsa65,
        Param::SlhDsaShake128f,
    ];
    pub const KEM: [Param; 2] = [Param::MlKem768, Param::MlKem1024];

    pub fn name(self) -> &'static str {
        match self {
            Param::MlKem768 => "ML-KEM-768",
            Param::MlKem1024 => "ML-KEM-1024",
            Param::MlDsa65 => "ML-DSA-65",
            Param::SlhDsaShake128f => "SLH-DSA-SHAKE-128f",
            Param::XWing => "X-Wing",
        }
    }

    /// Samples per round and operations per sample for this parameter set: SLH-DSA signing
    /// takes milliseconds, so it gets one operation per sample and a quarter of the samples.
    pub fn sampling(self, samples: u32, batch: u32) -> (u32, u32) {
        match self {
            Param::SlhDsaShake128f => (samples.div_ceil(4), 1),
            _ => (samples, batch),
        }
    }

    /// The operations measured for this parameter set.
    pub fn ops(self) -> [Op; 3] {
        match self {
            Param::MlKem768 | Param::MlKem1024 | Param::XWing => {
                [Op::Keygen, Op::Encaps, Op::Decaps]
            }
            Param::MlDsa65 | Param::SlhDsaShake128f => [Op::Keygen, Op::Sign, Op::Verify],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Keygen,
    Encaps,
    Decaps,
    Sign,
    Verify,
    /// Signing with a key expanded once beforehand (Â, ŝ1, ŝ2, t̂0 kept in the NTT domain), as
    /// an unlocked nexusq vault and its agent sign: less work than `sign`, which every library
    /// runs from the packed key, so it is its own row and never compared with `sign`.
    SignKept,
}

impl Op {
    /// Every operation, in table order.
    pub const ALL: [Op; 6] = [
        Op::Keygen,
        Op::Encaps,
        Op::Decaps,
        Op::Sign,
        Op::SignKept,
        Op::Verify,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Keygen => "keygen",
            Op::Encaps => "encaps",
            Op::Decaps => "decaps",
            Op::Sign => "sign",
            Op::Verify => "verify",
            Op::SignKept => "sign (key kept expanded)",
        }
    }
}

/// What an adapter's setup made, in FIPS 203 encodings (dk is the expanded decapsulation key).
pub struct Material {
    pub ek: Vec<u8>,
    pub dk: Vec<u8>,
    pub ct: Vec<u8>,
    pub ss: Vec<u8>,
}

/// What the timing loop needs of any adapter.
pub trait Timed {
    /// Library name, with the forced implementation for nexusq-native.
    fn label(&self) -> &str;
    fn param(&self) -> Param;
    /// The operations measured: `param().ops()`, and for nexusq-native's ML-DSA also
    /// [`Op::SignKept`].
    fn ops(&self) -> Vec<Op> {
        self.param().ops().to_vec()
    }
    /// Runs `n` operations (one of `ops()`) on the prepared state; returns the time taken.
    fn time(&self, op: Op, n: u32) -> Duration;
    /// What a reader must know about this adapter's rows, for the evidence records.
    fn includes(&self) -> Option<&str> {
        None
    }
}

pub trait Kem: Timed {
    /// Whether keygen and encaps ran from the fixed seeds, so the bytes are comparable.
    fn deterministic(&self) -> bool;
    fn material(&self) -> &Material;
    /// Parses an expanded decapsulation key and a ciphertext and decapsulates.
    fn decaps_bytes(&self, dk: &[u8], ct: &[u8]) -> Result<Vec<u8>, String>;
}

pub const NATIVE: &str = "nexusq-native";

/// nexusq-native's run-time selection (`None`), then each available implementation, forced.
pub fn natives() -> Vec<Option<Implementation>> {
    let mut natives = vec![None];
    natives.extend(nexusq_native::available().into_iter().map(Some));
    natives
}

/// A label's implementation and forced variant: "nexusq-native (avx2)" ->
/// ("nexusq-native", Some("avx2")).
pub fn split_label(label: &str) -> (&str, Option<&str>) {
    match label.strip_suffix(')').and_then(|l| l.split_once(" (")) {
        Some((implementation, variant)) => (implementation, Some(variant)),
        None => (label, None),
    }
}

pub fn native_label(imp: Option<Implementation>) -> String {
    match imp {
        Some(imp) => format!("{NATIVE} ({})", imp.name()),
        None => NATIVE.to_string(),
    }
}

/// Every ML-KEM adapter for every parameter set; nexusq-native once with its run-time selection
/// and once per available implementation, forced.
pub fn kems() -> Result<Vec<Box<dyn Kem>>, String> {
    let mut out: Vec<Box<dyn Kem>> = Vec::new();
    for param in Param::KEM {
        // `_` is ML-KEM-1024 below.
        for imp in natives() {
            out.push(match param {
                Param::MlKem768 => Box::new(Native768::new(imp)?),
                _ => Box::new(Native1024::new(imp)?),
            });
        }
        out.push(match param {
            Param::MlKem768 => Box::new(RustCrypto768::new()?),
            _ => Box::new(RustCrypto1024::new()?),
        });
        out.push(match param {
            Param::MlKem768 => Box::new(AwsLc768::new()?),
            _ => Box::new(AwsLc1024::new()?),
        });
        out.push(match param {
            Param::MlKem768 => Box::new(Libcrux768::new()?),
            _ => Box::new(Libcrux1024::new()?),
        });
        out.push(match param {
            Param::MlKem768 => Box::new(Pqcrypto768::new()?),
            _ => Box::new(Pqcrypto1024::new()?),
        });
        out.push(Box::new(crate::oqs::LiboqsKem::new(param)?));
        #[cfg(feature = "boring")]
        out.push(crate::boring::kem(param)?);
        #[cfg(feature = "openssl")]
        out.push(Box::new(crate::openssl::OpensslKem::new(param)?));
    }
    Ok(out)
}

/// Runs `f` `n` times and returns the elapsed time.
#[inline(always)]
pub fn repeat<T>(n: u32, mut f: impl FnMut() -> T) -> Duration {
    let start = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    start.elapsed()
}

pub fn err(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

pub fn round_trip(label: &str, param: Param, m: Material, back: &[u8]) -> Result<Material, String> {
    if m.ss != back {
        return Err(format!(
            "{label} {}: decaps of its own ciphertext differs from encaps",
            param.name()
        ));
    }
    Ok(m)
}

pub fn forced<R>(imp: Option<Implementation>, f: impl FnOnce() -> R) -> R {
    match imp {
        Some(imp) => nexusq_native::with_implementation(imp, f),
        None => f(),
    }
}

macro_rules! native {
    ($name:ident, $m:ident, $param:expr) => {
        pub struct $name {
            imp: Option<Implementation>,
            label: String,
            ek: nexusq_native::$m::EncapsulationKey,
            dk: nexusq_native::$m::DecapsulationKey,
            ct: nexusq_native::$m::Ciphertext,
            material: Material,
        }

        impl $name {
            fn new(imp: Option<Implementation>) -> Result<Self, String> {
                use nexusq_native::$m::*;
                let label = native_label(imp);
                forced(imp, || {
                    let (ek, dk) = keygen_internal(&D, &Z);
                    let ek = EncapsulationKey::from_bytes(ek.as_bytes()).map_err(err)?;
                    let dk = DecapsulationKey::from_bytes(dk.as_bytes()).map_err(err)?;
                    let (ct, ss) = encapsulate_internal(&ek, &M);
                    let ct = Ciphertext::from_bytes(ct.as_bytes()).map_err(err)?;
                    let back = decapsulate(&dk, &ct);
                    let material = Material {
                        ek: ek.as_bytes().to_vec(),
                        dk: dk.as_bytes().to_vec(),
                        ct: ct.as_bytes().to_vec(),
                        ss: ss.as_bytes().to_vec(),
                    };
                    let material = round_trip(&label, $param, material, back.as_bytes())?;
                    Ok(Self {
                        imp,
                        label,
                        ek,
                        dk,
                        ct,
                        material,
                    })
                })
            }
        }

        impl Timed for $name {
            fn label(&self) -> &str {
                &self.label
            }
            fn param(&self) -> Param {
                $param
            }
            fn time(&self, op: Op, n: u32) -> Duration {
                use nexusq_native::$m::*;
                forced(self.imp, || match op {
                    Op::Keygen => repeat(n, || keygen_internal(black_box(&D), black_box(&Z))),
                    Op::Encaps => repeat(n, || encapsulate_internal(&self.ek, black_box(&M))),
                    Op::Decaps => repeat(n, || decapsulate(&self.dk, black_box(&self.ct))),
                    Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
                })
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
                use nexusq_native::$m::*;
                forced(self.imp, || {
                    let dk = DecapsulationKey::from_bytes(dk).map_err(err)?;
                    let ct = Ciphertext::from_bytes(ct).map_err(err)?;
                    Ok(decapsulate(&dk, &ct).as_bytes().to_vec())
                })
            }
        }
    };
}

native!(Native768, mlkem768, Param::MlKem768);
native!(Native1024, mlkem1024, Param::MlKem1024);

macro_rules! rustcrypto {
    ($name:ident, $P:ty, $param:expr) => {
        pub struct $name {
            ek: ml_kem::EncapsulationKey<$P>,
            dk: ml_kem::DecapsulationKey<$P>,
            ct: ml_kem::Ciphertext<$P>,
            material: Material,
        }

        impl $name {
            fn seed() -> ml_kem::Seed {
                let mut seed = ml_kem::Seed::default();
                seed[..32].copy_from_slice(&D);
                seed[32..].copy_from_slice(&Z);
                seed
            }

            #[allow(deprecated)] // the expanded key form, for the byte comparison only
            fn new() -> Result<Self, String> {
                use ml_kem::{Decapsulate as _, ExpandedKeyEncoding as _, KeyExport as _};
                let dk = ml_kem::DecapsulationKey::<$P>::from_seed(Self::seed());
                let ek_bytes = dk.encapsulation_key().to_bytes();
                let ek = ml_kem::EncapsulationKey::<$P>::new(&ek_bytes).map_err(err)?;
                let (ct, ss) = ek.encapsulate_deterministic(&M.into());
                let back = dk.decapsulate(&ct);
                let material = Material {
                    ek: ek_bytes.to_vec(),
                    dk: dk.to_expanded_bytes().to_vec(),
                    ct: ct.to_vec(),
                    ss: ss.to_vec(),
                };
                let material = round_trip("ml-kem", $param, material, &back)?;
                Ok(Self {
                    ek,
                    dk,
                    ct,
                    material,
                })
            }
        }

        impl Timed for $name {
            fn label(&self) -> &str {
                "ml-kem"
            }
            fn param(&self) -> Param {
                $param
            }
            fn time(&self, op: Op, n: u32) -> Duration {
                use ml_kem::Decapsulate as _;
                match op {
                    Op::Keygen => repeat(n, || {
                        ml_kem::DecapsulationKey::<$P>::from_seed(black_box(Self::seed()))
                    }),
                    Op::Encaps => {
                        let m = M.into();
                        repeat(n, || self.ek.encapsulate_deterministic(black_box(&m)))
                    }
                    Op::Decaps => repeat(n, || self.dk.decapsulate(black_box(&self.ct))),
                    Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
                }
            }
        }

        impl Kem for $name {
            fn deterministic(&self) -> bool {
                true
            }
            fn material(&self) -> &Material {
                &self.material
            }
            #[allow(deprecated)]
            fn decaps_bytes(&self, dk: &[u8], ct: &[u8]) -> Result<Vec<u8>, String> {
                use ml_kem::{Decapsulate as _, ExpandedKeyEncoding as _};
                let dk = dk.try_into().map_err(err)?;
                let dk = ml_kem::DecapsulationKey::<$P>::from_expanded_bytes(dk).map_err(err)?;
                let ct = ct.try_into().map_err(err)?;
                Ok(dk.decapsulate(ct).to_vec())
            }
        }
    };
}

rustcrypto!(RustCrypto768, ml_kem::MlKem768, Param::MlKem768);
rustcrypto!(RustCrypto1024, ml_kem::MlKem1024, Param::MlKem1024);

macro_rules! aws_lc {
    ($name:ident, $alg:ident, $param:expr) => {
        pub struct $name {
            ek: aws_lc_rs::kem::EncapsulationKey,
            dk: aws_lc_rs::kem::DecapsulationKey,
            material: Material,
        }

        impl $name {
            fn new() -> Result<Self, String> {
                use aws_lc_rs::kem::*;
                let dk = DecapsulationKey::generate(&$alg).map_err(err)?;
                let ek_bytes = dk
                    .encapsulation_key()
                    .map_err(err)?
                    .key_bytes()
                    .map_err(err)?;
                let dk_bytes = dk.key_bytes().map_err(err)?;
                let ek = EncapsulationKey::new(&$alg, ek_bytes.as_ref()).map_err(err)?;
                let dk = DecapsulationKey::new(&$alg, dk_bytes.as_ref()).map_err(err)?;
                let (ct, ss) = ek.encapsulate().map_err(err)?;
                let back = dk.decapsulate(Ciphertext::from(ct.as_ref())).map_err(err)?;
                let material = Material {
                    ek: ek_bytes.as_ref().to_vec(),
                    dk: dk_bytes.as_ref().to_vec(),
                    ct: ct.as_ref().to_vec(),
                    ss: ss.as_ref().to_vec(),
                };
                let material = round_trip("aws-lc-rs", $param, material, back.as_ref())?;
                Ok(Self { ek, dk, material })
            }
        }

        impl Timed for $name {
            fn label(&self) -> &str {
                "aws-lc-rs"
            }
            fn param(&self) -> Param {
                $param
            }
            fn time(&self, op: Op, n: u32) -> Duration {
                use aws_lc_rs::kem::*;
                let ct = &self.material.ct[..];
                match op {
                    Op::Keygen => repeat(n, || DecapsulationKey::generate(black_box(&$alg))),
                    Op::Encaps => repeat(n, || self.ek.encapsulate()),
                    Op::Decaps => {
                        repeat(n, || self.dk.decapsulate(Ciphertext::from(black_box(ct))))
                    }
                    Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
                }
            }
        }

        impl Kem for $name {
            fn deterministic(&self) -> bool {
                false
            }
            fn material(&self) -> &Material {
                &self.material
            }
            fn decaps_bytes(&self, dk: &[u8], ct: &[u8]) -> Result<Vec<u8>, String> {
                use aws_lc_rs::kem::*;
                let dk = DecapsulationKey::new(&$alg, dk).map_err(err)?;
                let ss = dk.decapsulate(Ciphertext::from(ct)).map_err(err)?;
                Ok(ss.as_ref().to_vec())
            }
        }
    };
}

aws_lc!(AwsLc768, ML_KEM_768, Param::MlKem768);
aws_lc!(AwsLc1024, ML_KEM_1024, Param::MlKem1024);

macro_rules! libcrux {
    ($name:ident, $m:ident, $pk:ident, $sk:ident, $ct:ident, $param:expr) => {
        pub struct $name {
            pk: libcrux_ml_kem::$m::$pk,
            sk: libcrux_ml_kem::$m::$sk,
            ct: libcrux_ml_kem::$m::$ct,
            material: Material,
        }

        impl $name {
            fn seed() -> [u8; 64] {
                let mut seed = [0u8; 64];
                seed[..32].copy_from_slice(&D);
                seed[32..].copy_from_slice(&Z);
                seed
            }

            fn new() -> Result<Self, String> {
                use libcrux_ml_kem::$m::*;
                let pair = generate_key_pair(Self::seed());
                let pk = $pk::try_from(&pair.pk()[..]).map_err(err)?;
                let sk = $sk::try_from(&pair.sk()[..]).map_err(err)?;
                if !validate_public_key(&pk) {
                    return Err("libcrux-ml-kem: its own public key does not validate".into());
                }
                let (ct, ss) = encapsulate(&pk, M);
                let ct = $ct::try_from(ct.as_ref()).map_err(err)?;
                let back = decapsulate(&sk, &ct);
                let material = Material {
                    ek: pk.as_ref().to_vec(),
                    dk: sk.as_ref().to_vec(),
                    ct: ct.as_ref().to_vec(),
                    ss: ss.to_vec(),
                };
                let material = round_trip("libcrux-ml-kem", $param, material, &back)?;
                Ok(Self {
                    pk,
                    sk,
                    ct,
                    material,
                })
            }
        }

        impl Timed for $name {
            fn label(&self) -> &str {
                "libcrux-ml-kem"
            }
            fn param(&self) -> Param {
                $param
            }
            fn time(&self, op: Op, n: u32) -> Duration {
                use libcrux_ml_kem::$m::*;
                match op {
                    Op::Keygen => repeat(n, || generate_key_pair(black_box(Self::seed()))),
                    Op::Encaps => repeat(n, || encapsulate(&self.pk, black_box(M))),
                    Op::Decaps => repeat(n, || decapsulate(&self.sk, black_box(&self.ct))),
                    Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
                }
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
                use libcrux_ml_kem::$m::*;
                let sk = $sk::try_from(dk).map_err(err)?;
                let ct = $ct::try_from(ct).map_err(err)?;
                Ok(decapsulate(&sk, &ct).to_vec())
            }
        }
    };
}

libcrux!(
    Libcrux768,
    mlkem768,
    MlKem768PublicKey,
    MlKem768PrivateKey,
    MlKem768Ciphertext,
    Param::MlKem768
);
libcrux!(
    Libcrux1024,
    mlkem1024,
    MlKem1024PublicKey,
    MlKem1024PrivateKey,
    MlKem1024Ciphertext,
    Param::MlKem1024
);

macro_rules! pqcrypto {
    ($name:ident, $m:ident, $param:expr) => {
        pub struct $name {
            pk: pqcrypto_mlkem::$m::PublicKey,
            sk: pqcrypto_mlkem::$m::SecretKey,
            ct: pqcrypto_mlkem::$m::Ciphertext,
            material: Material,
        }

        impl $name {
            fn new() -> Result<Self, String> {
                use pqcrypto_mlkem::$m::*;
                use pqcrypto_traits::kem::{
                    Ciphertext as _, PublicKey as _, SecretKey as _, SharedSecret as _,
                };
                let (pk, sk) = keypair();
                let pk = PublicKey::from_bytes(pk.as_bytes()).map_err(err)?;
                let sk = SecretKey::from_bytes(sk.as_bytes()).map_err(err)?;
                let (ss, ct) = encapsulate(&pk);
                let ct = Ciphertext::from_bytes(ct.as_bytes()).map_err(err)?;
                let back = decapsulate(&ct, &sk);
                let material = Material {
                    ek: pk.as_bytes().to_vec(),
                    dk: sk.as_bytes().to_vec(),
                    ct: ct.as_bytes().to_vec(),
                    ss: ss.as_bytes().to_vec(),
                };
                let material = round_trip("pqcrypto-mlkem", $param, material, back.as_bytes())?;
                Ok(Self {
                    pk,
                    sk,
                    ct,
                    material,
                })
            }
        }

        impl Timed for $name {
            fn label(&self) -> &str {
                "pqcrypto-mlkem"
            }
            fn param(&self) -> Param {
                $param
            }
            fn time(&self, op: Op, n: u32) -> Duration {
                use pqcrypto_mlkem::$m::*;
                match op {
                    Op::Keygen => repeat(n, keypair),
                    Op::Encaps => repeat(n, || encapsulate(&self.pk)),
                    Op::Decaps => repeat(n, || decapsulate(black_box(&self.ct), &self.sk)),
                    Op::Sign | Op::SignKept | Op::Verify => unreachable!("not a KEM operation"),
                }
            }
        }

        impl Kem for $name {
            fn deterministic(&self) -> bool {
                false
            }
            fn material(&self) -> &Material {
                &self.material
            }
            fn decaps_bytes(&self, dk: &[u8], ct: &[u8]) -> Result<Vec<u8>, String> {
                use pqcrypto_mlkem::$m::*;
                use pqcrypto_traits::kem::{Ciphertext as _, SecretKey as _, SharedSecret as _};
                let sk = SecretKey::from_bytes(dk).map_err(err)?;
                let ct = Ciphertext::from_bytes(ct).map_err(err)?;
                Ok(decapsulate(&ct, &sk).as_bytes().to_vec())
            }
        }
    };
}

pqcrypto!(Pqcrypto768, mlkem768, Param::MlKem768);
pqcrypto!(Pqcrypto1024, mlkem1024, Param::MlKem1024);

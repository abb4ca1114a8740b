//! One ML-DSA-65 adapter per library, behind the small [`Dsa`] trait, and their sanity checks.
//!
//! Each adapter does its setup once (key pair, keys parsed back from their bytes, a signature of
//! [`MSG`] with the empty context) and checks that it verifies its own signature; [`Timed::time`]
//! then runs a batch of one operation on that prepared state.

use crate::libs::{NATIVE, Op, Param, Timed, err, forced, native_label, natives, repeat};
use nexusq_native::Implementation;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Fixed FIPS 204 key-generation seed ξ and signing randomness rnd (hedged signing: rnd is not
/// zero, but fixed so that the signatures can be compared) for the libraries that take them.
pub const XI: [u8; 32] = [0x44; 32];
pub const RND: [u8; 32] = [0x55; 32];
/// The signed message; the context is empty.
pub const MSG: [u8; 32] = [0x66; 32];

/// rnd for the timed signatures of the libraries that take it: [`RND`] with a counter in its first
/// 8 bytes, new for every signature, so that the number of rejection-sampling iterations varies as
/// with fresh randomness (one fixed rnd would repeat one iteration count in every sample).
pub fn next_rnd() -> [u8; 32] {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut rnd = RND;
    rnd[..8].copy_from_slice(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    rnd
}

/// What an adapter's setup made, in FIPS 204 encodings (sk is the expanded signing key).
pub struct Material {
    pub vk: Vec<u8>,
    pub sk: Vec<u8>,
    /// A signature of [`MSG`] with the empty context.
    pub sig: Vec<u8>,
}

pub trait Dsa: Timed {
    /// Whether keygen ran from [`XI`] (so vk and sk are comparable) and whether signing used
    /// [`RND`] (so the signature is).
    fn seeded(&self) -> (bool, bool);
    fn material(&self) -> &Material;
    /// Parses a verifying key and a signature and verifies the signature of `msg` (empty context).
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String>;
}

/// Every ML-DSA-65 adapter; nexusq-native once with its run-time selection and once per
/// available implementation, forced.
pub fn all() -> Result<Vec<Box<dyn Dsa>>, String> {
    let mut out: Vec<Box<dyn Dsa>> = Vec::new();
    for imp in natives() {
        out.push(Box::new(Native::new(imp)?));
    }
    out.push(Box::new(RustCrypto::new()?));
    out.push(Box::new(AwsLc::new()?));
    out.push(Box::new(Libcrux::new()?));
    out.push(Box::new(Pqcrypto::new()?));
    out.push(Box::new(crate::oqs::LiboqsDsa::new()?));
    #[cfg(feature = "boring")]
    out.push(Box::new(crate::boring::BoringDsa::new()?));
    #[cfg(feature = "openssl")]
    out.push(Box::new(crate::openssl::OpensslDsa::new()?));
    Ok(out)
}

pub fn own_check(label: &str, material: Material, ok: bool) -> Result<Material, String> {
    if !ok {
        return Err(format!(
            "{label} ML-DSA-65: its own signature does not verify"
        ));
    }
    Ok(material)
}

/// Sanity checks before timing, against nexusq-native's run-time selection (the reference):
/// seeded libraries give byte-identical vk, sk and signature; every library verifies the
/// reference signature with the reference key and rejects it with one bit flipped or for another
/// message; and the reference verifies every library's own signature with that library's key.
pub fn check(dsas: &[Box<dyn Dsa>]) -> Result<(), String> {
    let reference = dsas
        .iter()
        .find(|d| d.label() == NATIVE)
        .ok_or("nexusq-native ML-DSA adapter missing")?;
    let r = reference.material();
    let mut tampered = r.sig.clone();
    tampered[100] ^= 1;
    let mut other = MSG;
    other[0] ^= 1;
    for dsa in dsas {
        let name = format!("{} ML-DSA-65", dsa.label());
        let m = dsa.material();
        let (keys, sig) = dsa.seeded();
        let same = [
            (keys, "vk", &m.vk, &r.vk),
            (keys, "sk", &m.sk, &r.sk),
            (sig, "signature", &m.sig, &r.sig),
        ];
        for (_, what, ours, theirs) in same.into_iter().filter(|s| s.0) {
            if ours != theirs {
                return Err(format!(
                    "{name}: {what} differs from {NATIVE}'s (same seeds)"
                ));
            }
        }
        let verifies = [
            (&r.vk, &MSG, &r.sig, true, "nexusq-native's signature"),
            (&r.vk, &MSG, &tampered, false, "a tampered signature"),
            (
                &r.vk,
                &other,
                &r.sig,
                false,
                "a signature of another message",
            ),
        ];
        for (vk, msg, sig, want, what) in verifies {
            if dsa.verify_bytes(vk, msg, sig)? != want {
                return Err(format!("{name}: verify of {what} is not {want}"));
            }
        }
        if !reference.verify_bytes(&m.vk, &MSG, &m.sig)? {
            return Err(format!("{NATIVE} does not verify {name}'s signature"));
        }
    }
    Ok(())
}

pub struct Native {
    imp: Option<Implementation>,
    label: String,
    vk: nexusq_native::mldsa65::VerifyingKey,
    sk: nexusq_native::mldsa65::SigningKey,
    /// `sk` expanded once, as nexusq's unlocked vault and agent keep it ([`Op::SignKept`]).
    expanded: nexusq_native::mldsa65::ExpandedSigningKey,
    sig: nexusq_native::mldsa65::Signature,
    material: Material,
}

impl Native {
    fn new(imp: Option<Implementation>) -> Result<Self, String> {
        use nexusq_native::mldsa65::*;
        let label = native_label(imp);
        forced(imp, || {
            let (vk, sk) = keygen_internal(&XI);
            let vk = VerifyingKey::from_bytes(vk.as_bytes()).map_err(err)?;
            let sk = SigningKey::from_bytes(sk.as_bytes()).map_err(err)?;
            let sig = sign(&sk, &MSG, &[], &RND).map_err(err)?;
            let expanded = ExpandedSigningKey::new(&sk);
            if expanded.sign(&MSG, &[], &RND).map_err(err)? != sig {
                return Err(format!("{label} ML-DSA-65: the kept key signs other bytes"));
            }
            let material = Material {
                vk: vk.as_bytes().to_vec(),
                sk: sk.as_bytes().to_vec(),
                sig: sig.as_bytes().to_vec(),
            };
            let material = own_check(&label, material, verify(&vk, &MSG, &[], &sig))?;
            Ok(Self {
                imp,
                label,
                vk,
                sk,
                expanded,
                sig,
                material,
            })
        })
    }
}

impl Timed for Native {
    fn label(&self) -> &str {
        &self.label
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn ops(&self) -> Vec<Op> {
        vec![Op::Keygen, Op::Sign, Op::SignKept, Op::Verify]
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        use nexusq_native::mldsa65::*;
        forced(self.imp, || match op {
            Op::Keygen => repeat(n, || keygen_internal(black_box(&XI))),
            Op::Sign => repeat(n, || sign(&self.sk, black_box(&MSG), &[], &next_rnd())),
            Op::SignKept => repeat(n, || self.expanded.sign(black_box(&MSG), &[], &next_rnd())),
            Op::Verify => repeat(n, || verify(&self.vk, black_box(&MSG), &[], &self.sig)),
            _ => unreachable!("not an ML-DSA operation"),
        })
    }
}

impl Dsa for Native {
    fn seeded(&self) -> (bool, bool) {
        (true, true)
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        use nexusq_native::mldsa65::*;
        forced(self.imp, || {
            let vk = VerifyingKey::from_bytes(vk).map_err(err)?;
            let sig = Signature::from_bytes(sig).map_err(err)?;
            Ok(verify(&vk, msg, &[], &sig))
        })
    }
}

type MlDsa65 = ml_dsa::MlDsa65;

pub struct RustCrypto {
    sk: ml_dsa::SigningKey<MlDsa65>,
    vk: ml_dsa::VerifyingKey<MlDsa65>,
    sig: ml_dsa::Signature<MlDsa65>,
    material: Material,
}

impl RustCrypto {
    /// Pure signing, empty context: Sign_internal of M' = 0 || 0 || MSG (ml-dsa's public
    /// hedged functions take an RNG instead of rnd).
    fn sign(
        sk: &ml_dsa::SigningKey<MlDsa65>,
        msg: &[u8],
        rnd: [u8; 32],
    ) -> ml_dsa::Signature<MlDsa65> {
        sk.expanded_key()
            .sign_internal(&[&[0], &[0], msg], &rnd.into())
    }

    #[allow(deprecated)] // the expanded key form, for the byte comparison only
    fn new() -> Result<Self, String> {
        use ml_dsa::{KeyExport as _, signature::Keypair as _};
        let sk = ml_dsa::SigningKey::<MlDsa65>::from_seed(&XI.into());
        let vk_bytes = sk.verifying_key().to_bytes();
        let vk = ml_dsa::VerifyingKey::<MlDsa65>::decode(&vk_bytes);
        let sig = ml_dsa::Signature::<MlDsa65>::try_from(&Self::sign(&sk, &MSG, RND).encode()[..])
            .map_err(err)?;
        let material = Material {
            vk: vk_bytes.to_vec(),
            sk: sk.expanded_key().to_expanded().to_vec(),
            sig: sig.encode().to_vec(),
        };
        let material = own_check("ml-dsa", material, vk.verify_with_context(&MSG, &[], &sig))?;
        Ok(Self {
            sk,
            vk,
            sig,
            material,
        })
    }
}

impl Timed for RustCrypto {
    fn label(&self) -> &str {
        "ml-dsa"
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        match op {
            Op::Keygen => repeat(n, || {
                ml_dsa::SigningKey::<MlDsa65>::from_seed(&black_box(XI).into())
            }),
            Op::Sign => repeat(n, || Self::sign(&self.sk, black_box(&MSG), next_rnd())),
            Op::Verify => repeat(n, || {
                self.vk.verify_with_context(black_box(&MSG), &[], &self.sig)
            }),
            _ => unreachable!("not an ML-DSA operation"),
        }
    }
}

impl Dsa for RustCrypto {
    fn seeded(&self) -> (bool, bool) {
        (true, true)
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        let vk = ml_dsa::VerifyingKey::<MlDsa65>::decode(&vk.try_into().map_err(err)?);
        Ok(ml_dsa::Signature::<MlDsa65>::try_from(sig)
            .is_ok_and(|sig| vk.verify_with_context(msg, &[], &sig)))
    }
}

pub struct AwsLc {
    kp: aws_lc_rs::signature::PqdsaKeyPair,
    vk: aws_lc_rs::signature::ParsedPublicKey,
    sig: Vec<u8>,
    material: Material,
}

impl AwsLc {
    fn new() -> Result<Self, String> {
        use aws_lc_rs::encoding::AsRawBytes as _;
        use aws_lc_rs::signature::*;
        let kp = PqdsaKeyPair::from_seed(&ML_DSA_65_SIGNING, &XI).map_err(err)?;
        let vk_bytes = kp.public_key().as_ref().to_vec();
        let sk_bytes = kp
            .private_key()
            .as_raw_bytes()
            .map_err(err)?
            .as_ref()
            .to_vec();
        let kp = PqdsaKeyPair::from_raw_private_key(&ML_DSA_65_SIGNING, &sk_bytes).map_err(err)?;
        let vk = ParsedPublicKey::new(&ML_DSA_65, &vk_bytes).map_err(err)?;
        let mut sig = vec![0u8; ML_DSA_65_SIGNING.signature_len()];
        kp.sign(&MSG, &mut sig).map_err(err)?;
        let material = Material {
            vk: vk_bytes,
            sk: sk_bytes,
            sig: sig.clone(),
        };
        let material = own_check("aws-lc-rs", material, vk.verify_sig(&MSG, &sig).is_ok())?;
        Ok(Self {
            kp,
            vk,
            sig,
            material,
        })
    }
}

impl Timed for AwsLc {
    fn label(&self) -> &str {
        "aws-lc-rs"
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        use aws_lc_rs::signature::*;
        let mut sig = vec![0u8; ML_DSA_65_SIGNING.signature_len()];
        match op {
            Op::Keygen => repeat(n, || {
                PqdsaKeyPair::from_seed(&ML_DSA_65_SIGNING, black_box(&XI))
            }),
            Op::Sign => repeat(n, || self.kp.sign(black_box(&MSG), &mut sig)),
            Op::Verify => repeat(n, || self.vk.verify_sig(black_box(&MSG), &self.sig)),
            _ => unreachable!("not an ML-DSA operation"),
        }
    }
}

impl Dsa for AwsLc {
    fn seeded(&self) -> (bool, bool) {
        (true, false)
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        use aws_lc_rs::signature::*;
        let vk = ParsedPublicKey::new(&ML_DSA_65, vk).map_err(err)?;
        Ok(vk.verify_sig(msg, sig).is_ok())
    }
}

pub struct Libcrux {
    sk: libcrux_ml_dsa::ml_dsa_65::MLDSA65SigningKey,
    vk: libcrux_ml_dsa::ml_dsa_65::MLDSA65VerificationKey,
    sig: libcrux_ml_dsa::ml_dsa_65::MLDSA65Signature,
    material: Material,
}

impl Libcrux {
    fn new() -> Result<Self, String> {
        use libcrux_ml_dsa::ml_dsa_65::*;
        let pair = generate_key_pair(XI);
        let vk = MLDSA65VerificationKey::new(*pair.verification_key.as_ref());
        let sk = MLDSA65SigningKey::new(*pair.signing_key.as_ref());
        let sig = sign(&sk, &MSG, &[], RND).map_err(err)?;
        let sig = MLDSA65Signature::new(*sig.as_ref());
        let material = Material {
            vk: vk.as_slice().to_vec(),
            sk: sk.as_slice().to_vec(),
            sig: sig.as_slice().to_vec(),
        };
        let ok = verify(&vk, &MSG, &[], &sig).is_ok();
        let material = own_check("libcrux-ml-dsa", material, ok)?;
        Ok(Self {
            sk,
            vk,
            sig,
            material,
        })
    }
}

impl Timed for Libcrux {
    fn label(&self) -> &str {
        "libcrux-ml-dsa"
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        use libcrux_ml_dsa::ml_dsa_65::*;
        match op {
            Op::Keygen => repeat(n, || generate_key_pair(black_box(XI))),
            Op::Sign => repeat(n, || sign(&self.sk, black_box(&MSG), &[], next_rnd())),
            Op::Verify => repeat(n, || verify(&self.vk, black_box(&MSG), &[], &self.sig)),
            _ => unreachable!("not an ML-DSA operation"),
        }
    }
}

impl Dsa for Libcrux {
    fn seeded(&self) -> (bool, bool) {
        (true, true)
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        use libcrux_ml_dsa::ml_dsa_65::*;
        let vk = MLDSA65VerificationKey::new(vk.try_into().map_err(err)?);
        let sig = MLDSA65Signature::new(sig.try_into().map_err(err)?);
        Ok(verify(&vk, msg, &[], &sig).is_ok())
    }
}

pub struct Pqcrypto {
    pk: pqcrypto_mldsa::mldsa65::PublicKey,
    sk: pqcrypto_mldsa::mldsa65::SecretKey,
    sig: pqcrypto_mldsa::mldsa65::DetachedSignature,
    material: Material,
}

impl Pqcrypto {
    fn new() -> Result<Self, String> {
        use pqcrypto_mldsa::mldsa65::*;
        use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _, SecretKey as _};
        let (pk, sk) = keypair();
        let pk = PublicKey::from_bytes(pk.as_bytes()).map_err(err)?;
        let sk = SecretKey::from_bytes(sk.as_bytes()).map_err(err)?;
        let sig = detached_sign(&MSG, &sk);
        let sig = DetachedSignature::from_bytes(sig.as_bytes()).map_err(err)?;
        let material = Material {
            vk: pk.as_bytes().to_vec(),
            sk: sk.as_bytes().to_vec(),
            sig: sig.as_bytes().to_vec(),
        };
        let ok = verify_detached_signature(&sig, &MSG, &pk).is_ok();
        let material = own_check("pqcrypto-mldsa", material, ok)?;
        Ok(Self {
            pk,
            sk,
            sig,
            material,
        })
    }
}

impl Timed for Pqcrypto {
    fn label(&self) -> &str {
        "pqcrypto-mldsa"
    }
    fn param(&self) -> Param {
        Param::MlDsa65
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        use pqcrypto_mldsa::mldsa65::*;
        match op {
            Op::Keygen => repeat(n, keypair),
            Op::Sign => repeat(n, || detached_sign(black_box(&MSG), &self.sk)),
            Op::Verify => repeat(n, || {
                verify_detached_signature(&self.sig, black_box(&MSG), &self.pk)
            }),
            _ => unreachable!("not an ML-DSA operation"),
        }
    }
}

impl Dsa for Pqcrypto {
    fn seeded(&self) -> (bool, bool) {
        (false, false)
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        use pqcrypto_mldsa::mldsa65::*;
        use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _};
        let pk = PublicKey::from_bytes(vk).map_err(err)?;
        let sig = DetachedSignature::from_bytes(sig).map_err(err)?;
        Ok(verify_detached_signature(&sig, msg, &pk).is_ok())
    }
}

//! One SLH-DSA-SHAKE-128f adapter per library, behind the small [`Slh`] trait, and their sanity
//! checks: nexusq-native (run-time selection and each implementation forced), RustCrypto's
//! `slh-dsa`, and PQClean's SPHINCS+-SHAKE-128f-simple through `pqcrypto-sphincsplus` (AVX2
//! picked at run time). PQClean's is round-3.1 SPHINCS+, not FIPS 205 (its FORS indices read
//! the digest's bits in another order, and it signs the message without FIPS 205's
//! 0 || len(ctx) || ctx prefix): the same hash calls, so the same cost, but other bytes, so it
//! is only checked against itself.
//!
//! Each adapter does its setup once (key pair, keys parsed back from their bytes, a signature of
//! [`MSG`] with the empty context) and checks that it verifies its own signature; [`Timed::time`]
//! then runs a batch of one operation on that prepared state.

use crate::libs::{NATIVE, Op, Param, Timed, err, forced, native_label, natives, repeat};
use nexusq_native::Implementation;
use pqcrypto_traits::sign::{DetachedSignature as _, PublicKey as _};
use std::hint::black_box;
use std::time::Duration;

/// Fixed seeds (SK.seed, SK.prf, PK.seed) and optional randomness for the FIPS 205 libraries.
pub const SK_SEED: [u8; 16] = [0x71; 16];
pub const SK_PRF: [u8; 16] = [0x72; 16];
pub const PK_SEED: [u8; 16] = [0x73; 16];
pub const ADDRND: [u8; 16] = [0x74; 16];
/// The signed message; the context is empty.
pub const MSG: [u8; 32] = [0x75; 32];

/// What an adapter's setup made.
pub struct Material {
    pub vk: Vec<u8>,
    pub sk: Vec<u8>,
    /// A signature of [`MSG`] (empty context for the FIPS 205 libraries).
    pub sig: Vec<u8>,
}

pub trait Slh: Timed {
    /// Whether this is FIPS 205 SLH-DSA from the fixed seeds and randomness (so vk, sk and
    /// the signature are comparable with nexusq-native's).
    fn fips205(&self) -> bool;
    fn material(&self) -> &Material;
    /// Parses a verifying key and a signature and verifies the signature of `msg`.
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String>;
}

/// Every SLH-DSA adapter; nexusq-native once with its run-time selection and once per
/// available implementation, forced.
pub fn all() -> Result<Vec<Box<dyn Slh>>, String> {
    let mut out: Vec<Box<dyn Slh>> = Vec::new();
    for imp in natives() {
        out.push(Box::new(Native::new(imp)?));
    }
    out.push(Box::new(RustCrypto::new()?));
    out.push(Box::new(Pqclean::new()?));
    #[cfg(feature = "openssl")]
    out.push(Box::new(crate::openssl::OpensslSlh::new()?));
    Ok(out)
}

pub fn own_check(label: &str, material: Material, ok: bool) -> Result<Material, String> {
    if !ok {
        return Err(format!(
            "{label} SLH-DSA-SHAKE-128f: its own signature does not verify"
        ));
    }
    Ok(material)
}

/// Sanity checks before timing, against nexusq-native's run-time selection (the reference):
/// the FIPS 205 libraries give byte-identical vk, sk and signature, verify the reference
/// signature and reject it with one bit flipped and for another message, and the reference
/// verifies their signatures; PQClean rejects a tampered copy of its own signature.
pub fn check(slhs: &[Box<dyn Slh>]) -> Result<(), String> {
    let reference = slhs
        .iter()
        .find(|d| d.label() == NATIVE)
        .ok_or("nexusq-native SLH-DSA adapter missing")?;
    let r = reference.material();
    for slh in slhs {
        let name = format!("{} SLH-DSA-SHAKE-128f", slh.label());
        let m = slh.material();
        let (vk, sig) = if slh.fips205() {
            for (what, ours, theirs) in [
                ("vk", &m.vk, &r.vk),
                ("sk", &m.sk, &r.sk),
                ("signature", &m.sig, &r.sig),
            ] {
                if ours != theirs {
                    return Err(format!(
                        "{name}: {what} differs from {NATIVE}'s (same seeds)"
                    ));
                }
            }
            if !reference.verify_bytes(&m.vk, &MSG, &m.sig)? {
                return Err(format!("{NATIVE} does not verify {name}'s signature"));
            }
            (&r.vk, &r.sig)
        } else {
            (&m.vk, &m.sig)
        };
        let mut tampered = sig.clone();
        tampered[5000] ^= 1;
        let mut other = MSG;
        other[0] ^= 1;
        for (msg, sig, want, what) in [
            (&MSG, sig, true, "the signature"),
            (&MSG, &tampered, false, "a tampered signature"),
            (&other, sig, false, "a signature of another message"),
        ] {
            if slh.verify_bytes(vk, msg, sig)? != want {
                return Err(format!("{name}: verify of {what} is not {want}"));
            }
        }
    }
    Ok(())
}

pub struct Native {
    imp: Option<Implementation>,
    label: String,
    vk: nexusq_native::slhdsa_shake128f::VerifyingKey,
    sk: nexusq_native::slhdsa_shake128f::SigningKey,
    sig: nexusq_native::slhdsa_shake128f::Signature,
    material: Material,
}

impl Native {
    fn new(imp: Option<Implementation>) -> Result<Self, String> {
        use nexusq_native::slhdsa_shake128f::*;
        let label = native_label(imp);
        forced(imp, || {
            let (vk, sk) = keygen_internal(&SK_SEED, &SK_PRF, &PK_SEED);
            let vk = VerifyingKey::from_bytes(vk.as_bytes()).map_err(err)?;
            let sk = SigningKey::from_bytes(sk.as_bytes()).map_err(err)?;
            let sig = sign(&sk, &MSG, &[], Some(&ADDRND)).map_err(err)?;
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
        Param::SlhDsaShake128f
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        use nexusq_native::slhdsa_shake128f::*;
        forced(self.imp, || match op {
            Op::Keygen => repeat(n, || {
                keygen_internal(black_box(&SK_SEED), &SK_PRF, &PK_SEED)
            }),
            Op::Sign => repeat(n, || sign(&self.sk, black_box(&MSG), &[], Some(&ADDRND))),
            Op::Verify => repeat(n, || verify(&self.vk, black_box(&MSG), &[], &self.sig)),
            _ => unreachable!("not an SLH-DSA operation"),
        })
    }
}

impl Slh for Native {
    fn fips205(&self) -> bool {
        true
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        use nexusq_native::slhdsa_shake128f::*;
        forced(self.imp, || {
            let vk = VerifyingKey::from_bytes(vk).map_err(err)?;
            let sig = Signature::from_bytes(sig).map_err(err)?;
            Ok(verify(&vk, msg, &[], &sig))
        })
    }
}

type Shake128f = slh_dsa::Shake128f;

pub struct RustCrypto {
    sk: slh_dsa::SigningKey<Shake128f>,
    vk: slh_dsa::VerifyingKey<Shake128f>,
    sig: slh_dsa::Signature<Shake128f>,
    material: Material,
}

impl RustCrypto {
    fn new() -> Result<Self, String> {
        let sk = slh_dsa::SigningKey::<Shake128f>::slh_keygen_internal(&SK_SEED, &SK_PRF, &PK_SEED);
        let sk = slh_dsa::SigningKey::<Shake128f>::try_from(&sk.to_bytes()[..]).map_err(err)?;
        let vk = slh_dsa::VerifyingKey::<Shake128f>::try_from(&sk.as_ref().to_bytes()[..])
            .map_err(err)?;
        let sig = sk
            .try_sign_with_context(&MSG, &[], Some(&ADDRND))
            .map_err(err)?;
        let material = Material {
            vk: vk.to_bytes().to_vec(),
            sk: sk.to_bytes().to_vec(),
            sig: sig.to_vec(),
        };
        let ok = vk.try_verify_with_context(&MSG, &[], &sig).is_ok();
        let material = own_check("slh-dsa", material, ok)?;
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
        "slh-dsa"
    }
    fn param(&self) -> Param {
        Param::SlhDsaShake128f
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        type Sk = slh_dsa::SigningKey<Shake128f>;
        match op {
            Op::Keygen => repeat(n, || {
                Sk::slh_keygen_internal(black_box(&SK_SEED), &SK_PRF, &PK_SEED)
            }),
            Op::Sign => repeat(n, || {
                self.sk
                    .try_sign_with_context(black_box(&MSG), &[], Some(&ADDRND))
            }),
            Op::Verify => repeat(n, || {
                self.vk
                    .try_verify_with_context(black_box(&MSG), &[], &self.sig)
            }),
            _ => unreachable!("not an SLH-DSA operation"),
        }
    }
}

impl Slh for RustCrypto {
    fn fips205(&self) -> bool {
        true
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        let vk = slh_dsa::VerifyingKey::<Shake128f>::try_from(vk).map_err(err)?;
        let sig = slh_dsa::Signature::<Shake128f>::try_from(sig).map_err(err)?;
        Ok(vk.try_verify_with_context(msg, &[], &sig).is_ok())
    }
}

use pqcrypto_sphincsplus::sphincsshake128fsimple as pq;

pub struct Pqclean {
    pk: pq::PublicKey,
    sk: pq::SecretKey,
    sig: pq::DetachedSignature,
    material: Material,
}

impl Pqclean {
    fn new() -> Result<Self, String> {
        use pqcrypto_traits::sign::SecretKey as _;
        let (pk, sk) = pq::keypair();
        let sig = pq::detached_sign(&MSG, &sk);
        let material = Material {
            vk: pk.as_bytes().to_vec(),
            sk: sk.as_bytes().to_vec(),
            sig: sig.as_bytes().to_vec(),
        };
        let ok = pq::verify_detached_signature(&sig, &MSG, &pk).is_ok();
        let material = own_check("pqcrypto-sphincsplus", material, ok)?;
        Ok(Self {
            pk,
            sk,
            sig,
            material,
        })
    }
}

impl Timed for Pqclean {
    fn label(&self) -> &str {
        "pqcrypto-sphincsplus"
    }
    fn param(&self) -> Param {
        Param::SlhDsaShake128f
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        match op {
            Op::Keygen => repeat(n, pq::keypair),
            Op::Sign => repeat(n, || pq::detached_sign(black_box(&MSG), &self.sk)),
            Op::Verify => repeat(n, || {
                pq::verify_detached_signature(&self.sig, black_box(&MSG), &self.pk)
            }),
            _ => unreachable!("not an SLH-DSA operation"),
        }
    }
}

impl Slh for Pqclean {
    fn fips205(&self) -> bool {
        false
    }
    fn material(&self) -> &Material {
        &self.material
    }
    fn verify_bytes(&self, vk: &[u8], msg: &[u8], sig: &[u8]) -> Result<bool, String> {
        let pk = pq::PublicKey::from_bytes(vk).map_err(err)?;
        let sig = pq::DetachedSignature::from_bytes(sig).map_err(err)?;
        Ok(pq::verify_detached_signature(&sig, msg, &pk).is_ok())
    }
}

//! X-Wing (draft-connolly-cfrg-xwing-kem: ML-KEM-768 + X25519, SHA3-256 combiner): nexusq's
//! `suite::hybrid_kem` on both backends (RustCrypto, and nexusq-native with its run-time selection
//! and each implementation forced), RustCrypto's `x-wing` crate, and BoringSSL's `xwing.h` (with
//! the `boring` feature), behind the small [`XWing`] trait, and their sanity checks against the
//! draft's vectors and each other.
//!
//! Every library is deterministic here: keys from a 32-byte seed, encapsulation with a 64-byte
//! eseed (ML-KEM m || X25519 ephemeral secret).

use crate::libs::{Op, Param, Timed, err, forced, native_label, natives, repeat};
use nexusq_core::secret::SecretBytes;
use nexusq_core::suite::Backend;
use nexusq_core::suite::hybrid_kem::{self, DecapsulationKey, KemLevel};
use nexusq_native::Implementation;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

/// The fixed seed and eseed of the timed operations and the cross-check.
pub const SEED: [u8; 32] = [0x77; 32];
pub const ESEED: [u8; 64] = [0x88; 64];

/// What an adapter's setup made from [`SEED`] and [`ESEED`].
pub struct Material {
    pub pk: Vec<u8>,
    pub ct: Vec<u8>,
    pub ss: Vec<u8>,
}

pub trait XWing: Timed {
    /// The public key of `seed` (the private key is the seed itself).
    fn public_key(&self, seed: &[u8; 32]) -> Result<Vec<u8>, String>;
    /// Encapsulation to the public key `pk` with `eseed`: (ciphertext, shared secret).
    fn encaps(&self, pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, Vec<u8>), String>;
    /// Decapsulation of `ct` with the key of `seed`.
    fn decaps(&self, seed: &[u8; 32], ct: &[u8]) -> Result<Vec<u8>, String>;
    fn material(&self) -> &Material;
}

/// Every X-Wing adapter.
pub fn all() -> Result<Vec<Box<dyn XWing>>, String> {
    let mut out: Vec<Box<dyn XWing>> = Vec::new();
    for imp in natives() {
        out.push(Box::new(Nexusq::new(
            &nexusq_core::suite::native::Native,
            imp,
            native_label(imp),
        )?));
    }
    out.push(Box::new(Nexusq::new(
        &nexusq_core::suite::rustcrypto::RustCrypto,
        None,
        "nexusq (rustcrypto)".into(),
    )?));
    out.push(Box::new(RustCrypto::new()?));
    #[cfg(feature = "boring")]
    out.push(Box::new(Boring::new()?));
    Ok(out)
}

fn own_check(label: &str, m: Material, back: &[u8]) -> Result<Material, String> {
    if m.ss != back {
        return Err(format!(
            "{label} X-Wing: decaps of its own ciphertext differs from encaps"
        ));
    }
    Ok(m)
}

/// The X-Wing draft's vectors: `$NEXUSQ_VECTORS/xwing/test-vectors.json`, else
/// `../shared/vectors` beside the repository (as nexusq's tests find them, docs/vectors.md).
fn vectors_file() -> PathBuf {
    let dir = match std::env::var_os("NEXUSQ_VECTORS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/vectors"
        )),
    };
    dir.join("xwing").join("test-vectors.json")
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd-length hex: {s}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(err))
        .collect()
}

struct Vector {
    seed: [u8; 32],
    eseed: [u8; 64],
    pk: Vec<u8>,
    ct: Vec<u8>,
    ss: Vec<u8>,
}

fn load_vectors() -> Result<Option<Vec<Vector>>, String> {
    let path = vectors_file();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            let require = std::env::var_os("NEXUSQ_REQUIRE_VECTORS")
                .is_some_and(|v| !v.is_empty() && v != "0");
            let msg = format!(
                "the X-Wing draft's vectors are not readable at {} ({e}); set NEXUSQ_VECTORS=DIR",
                path.display()
            );
            if require {
                return Err(msg);
            }
            eprintln!("NOTE: {msg}: X-Wing checked only across its libraries");
            return Ok(None);
        }
    };
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let field = |v: &serde_json::Value, name: &str| -> Result<Vec<u8>, String> {
        unhex(
            v.get(name)
                .and_then(|f| f.as_str())
                .ok_or(format!("{}: no {name}", path.display()))?,
        )
    };
    let mut out = Vec::new();
    for v in json.as_array().ok_or("X-Wing vectors: not a JSON array")? {
        let sk = field(v, "sk")?;
        let seed: [u8; 32] = field(v, "seed")?.try_into().map_err(err)?;
        if sk != seed {
            return Err("X-Wing vectors: sk is not the seed".into());
        }
        out.push(Vector {
            seed,
            eseed: field(v, "eseed")?.try_into().map_err(err)?,
            pk: field(v, "pk")?,
            ct: field(v, "ct")?,
            ss: field(v, "ss")?,
        });
    }
    if out.is_empty() {
        return Err("X-Wing vectors: none in the file".into());
    }
    Ok(Some(out))
}

/// Sanity checks before timing: every library gives the draft vectors' public key, ciphertext
/// and shared secret from their seed and eseed, and decapsulates their ciphertext to their
/// shared secret; every library gives the same public key, ciphertext and shared secret as the
/// first from [`SEED`] and [`ESEED`], decapsulates the first's ciphertext to the same secret, and
/// a ciphertext with one bit flipped in its ML-KEM part, and one in its X25519 part, to the same
/// (implicit-rejection) secrets.
pub fn check(xs: &[Box<dyn XWing>]) -> Result<(), String> {
    let Some(reference) = xs.first() else {
        return Err("no X-Wing adapter".into());
    };
    let vectors = load_vectors()?;
    for x in xs {
        let name = format!("{} X-Wing", x.label());
        for (i, v) in vectors.iter().flatten().enumerate() {
            let what = |w: &str| format!("{name}: {w} differs from the draft's vector {i}");
            if x.public_key(&v.seed)? != v.pk {
                return Err(what("public key"));
            }
            let (ct, ss) = x.encaps(&v.pk, &v.eseed)?;
            if ct != v.ct {
                return Err(what("ciphertext"));
            }
            if ss != v.ss {
                return Err(what("encapsulated shared secret"));
            }
            if x.decaps(&v.seed, &v.ct)? != v.ss {
                return Err(what("decapsulated shared secret"));
            }
        }
    }
    let r = reference.material();
    let mut tampered_m = r.ct.clone();
    tampered_m[0] ^= 1;
    let mut tampered_x = r.ct.clone();
    tampered_x[1088] ^= 1;
    let rejected_m = reference.decaps(&SEED, &tampered_m)?;
    let rejected_x = reference.decaps(&SEED, &tampered_x)?;
    if rejected_m == r.ss || rejected_x == r.ss {
        return Err("X-Wing: a tampered ciphertext decapsulated to the shared secret".into());
    }
    for x in xs {
        let name = format!("{} X-Wing", x.label());
        let m = x.material();
        for (what, ours, theirs) in [
            ("pk", &m.pk, &r.pk),
            ("ct", &m.ct, &r.ct),
            ("ss", &m.ss, &r.ss),
        ] {
            if ours != theirs {
                return Err(format!(
                    "{name}: {what} differs from {}'s (same seed and eseed)",
                    reference.label()
                ));
            }
        }
        if x.decaps(&SEED, &r.ct)? != r.ss {
            return Err(format!(
                "{name}: decaps of {}'s ciphertext differs",
                reference.label()
            ));
        }
        if x.decaps(&SEED, &tampered_m)? != rejected_m
            || x.decaps(&SEED, &tampered_x)? != rejected_x
        {
            return Err(format!("{name}: decaps of a tampered ciphertext differs"));
        }
    }
    if let Some(v) = &vectors {
        eprintln!(
            "X-Wing: {} libraries match the draft's {} vectors and each other",
            xs.len(),
            v.len()
        );
    }
    Ok(())
}

/// nexusq's `suite::hybrid_kem` on one backend (the native one, possibly forced).
pub struct Nexusq {
    backend: &'static dyn Backend,
    imp: Option<Implementation>,
    label: String,
    seed: SecretBytes<32>,
    eseed: SecretBytes<64>,
    dk: DecapsulationKey,
    material: Material,
}

impl Nexusq {
    fn new(
        backend: &'static dyn Backend,
        imp: Option<Implementation>,
        label: String,
    ) -> Result<Self, String> {
        let seed = SecretBytes::from_slice(&SEED).ok_or("seed length")?;
        let eseed = SecretBytes::from_slice(&ESEED).ok_or("eseed length")?;
        forced(imp, || {
            let dk = DecapsulationKey::from_seed(backend, KemLevel::MlKem768, &seed);
            let pk = dk.public_key().to_vec();
            let (ct, ss) = hybrid_kem::encapsulate_derand(backend, KemLevel::MlKem768, &pk, &eseed)
                .map_err(err)?;
            let back = dk.decapsulate(&ct).map_err(err)?;
            let material = Material {
                pk,
                ct,
                ss: ss.expose().to_vec(),
            };
            let material = own_check(&label, material, back.expose())?;
            Ok(Self {
                backend,
                imp,
                label,
                seed,
                eseed,
                dk,
                material,
            })
        })
    }
}

impl Timed for Nexusq {
    fn label(&self) -> &str {
        &self.label
    }
    fn param(&self) -> Param {
        Param::XWing
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        let level = KemLevel::MlKem768;
        let (pk, ct) = (&self.material.pk[..], &self.material.ct[..]);
        forced(self.imp, || match op {
            Op::Keygen => repeat(n, || {
                DecapsulationKey::from_seed(self.backend, level, black_box(&self.seed))
            }),
            Op::Encaps => repeat(n, || {
                hybrid_kem::encapsulate_derand(self.backend, level, black_box(pk), &self.eseed)
            }),
            Op::Decaps => repeat(n, || self.dk.decapsulate(black_box(ct))),
            _ => unreachable!("not a KEM operation"),
        })
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "keygen: hybrid_kem::DecapsulationKey::from_seed (SHAKE256 expansion, ML-KEM-768 \
             KeyGen_internal, X25519 public key); encaps: encapsulate_derand from the public key's \
             bytes (FIPS 203 check and X25519 small-order check every call); decaps: the kept \
             expanded key",
        )
    }
}

impl XWing for Nexusq {
    fn public_key(&self, seed: &[u8; 32]) -> Result<Vec<u8>, String> {
        let seed = SecretBytes::from_slice(seed).ok_or("seed length")?;
        Ok(forced(self.imp, || {
            hybrid_kem::public_key(self.backend, KemLevel::MlKem768, &seed)
        }))
    }
    fn encaps(&self, pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, Vec<u8>), String> {
        let eseed = SecretBytes::from_slice(eseed).ok_or("eseed length")?;
        let (ct, ss) = forced(self.imp, || {
            hybrid_kem::encapsulate_derand(self.backend, KemLevel::MlKem768, pk, &eseed)
        })
        .map_err(err)?;
        Ok((ct, ss.expose().to_vec()))
    }
    fn decaps(&self, seed: &[u8; 32], ct: &[u8]) -> Result<Vec<u8>, String> {
        let seed = SecretBytes::from_slice(seed).ok_or("seed length")?;
        let ss = forced(self.imp, || {
            hybrid_kem::decapsulate(self.backend, KemLevel::MlKem768, &seed, ct)
        })
        .map_err(err)?;
        Ok(ss.expose().to_vec())
    }
    fn material(&self) -> &Material {
        &self.material
    }
}

/// RustCrypto's `x-wing` crate.
pub struct RustCrypto {
    dk: x_wing::DecapsulationKey,
    ek: x_wing::EncapsulationKey,
    ct: x_wing::Ciphertext,
    material: Material,
}

impl RustCrypto {
    fn new() -> Result<Self, String> {
        use x_wing::{Decapsulate as _, KeyExport as _};
        let dk = x_wing::DecapsulationKey::from(SEED);
        let pk = x_wing_public_key(&dk);
        let ek = x_wing::EncapsulationKey::try_from(&pk[..]).map_err(err)?;
        let (ct, ss) = ek.encapsulate_deterministic(&ESEED.into());
        let back = dk.decapsulate(&ct);
        let material = Material {
            pk: ek.to_bytes().to_vec(),
            ct: ct.to_vec(),
            ss: ss.to_vec(),
        };
        let material = own_check("x-wing", material, &back)?;
        Ok(Self {
            dk,
            ek,
            ct,
            material,
        })
    }
}

fn x_wing_public_key(dk: &x_wing::DecapsulationKey) -> Vec<u8> {
    use x_wing::{Decapsulator as _, KeyExport as _};
    dk.encapsulation_key().to_bytes().to_vec()
}

impl Timed for RustCrypto {
    fn label(&self) -> &str {
        "x-wing"
    }
    fn param(&self) -> Param {
        Param::XWing
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        use x_wing::Decapsulate as _;
        let eseed: ml_kem::array::ArrayN<u8, 64> = ESEED.into();
        match op {
            Op::Keygen => repeat(n, || x_wing::DecapsulationKey::from(black_box(SEED))),
            Op::Encaps => repeat(n, || self.ek.encapsulate_deterministic(black_box(&eseed))),
            Op::Decaps => repeat(n, || self.dk.decapsulate(black_box(&self.ct))),
            _ => unreachable!("not a KEM operation"),
        }
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "keygen: DecapsulationKey::from(seed) (expands it, parsed public key); encaps: \
             encapsulate_deterministic on the parsed key; decaps: the crate keeps only the seed, \
             so every decapsulation expands the key again (ML-KEM-768 KeyGen included)",
        )
    }
}

impl XWing for RustCrypto {
    fn public_key(&self, seed: &[u8; 32]) -> Result<Vec<u8>, String> {
        Ok(x_wing_public_key(&x_wing::DecapsulationKey::from(*seed)))
    }
    fn encaps(&self, pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, Vec<u8>), String> {
        let ek = x_wing::EncapsulationKey::try_from(pk).map_err(err)?;
        let (ct, ss) = ek.encapsulate_deterministic(&(*eseed).into());
        Ok((ct.to_vec(), ss.to_vec()))
    }
    fn decaps(&self, seed: &[u8; 32], ct: &[u8]) -> Result<Vec<u8>, String> {
        use x_wing::Decapsulate as _;
        let ct = x_wing::Ciphertext::try_from(ct).map_err(err)?;
        Ok(x_wing::DecapsulationKey::from(*seed)
            .decapsulate(&ct)
            .to_vec())
    }
    fn material(&self) -> &Material {
        &self.material
    }
}

/// BoringSSL's `xwing.h`.
#[cfg(feature = "boring")]
pub struct Boring {
    sk: Box<crate::boring::XwingPrivateKey>,
    material: Material,
}

#[cfg(feature = "boring")]
impl Boring {
    fn new() -> Result<Self, String> {
        use crate::boring::*;
        let sk = xwing_private_key(&SEED)?;
        let pk = xwing_public_key(&sk)?.to_vec();
        let (ct, ss) = xwing_encap(&pk, &ESEED)?;
        let back = xwing_decap(&sk, &ct)?;
        let material = Material {
            pk,
            ct,
            ss: ss.to_vec(),
        };
        let material = own_check(LABEL, material, &back)?;
        Ok(Self { sk, material })
    }
}

#[cfg(feature = "boring")]
impl Timed for Boring {
    fn label(&self) -> &str {
        crate::boring::LABEL
    }
    fn param(&self) -> Param {
        Param::XWing
    }
    fn time(&self, op: Op, n: u32) -> Duration {
        use crate::boring::*;
        let (pk, ct) = (&self.material.pk[..], &self.material.ct[..]);
        match op {
            Op::Keygen => repeat(n, || {
                xwing_private_key(black_box(&SEED)).and_then(|sk| xwing_public_key(&sk))
            }),
            Op::Encaps => repeat(n, || xwing_encap(black_box(pk), &ESEED)),
            Op::Decaps => repeat(n, || xwing_decap(&self.sk, black_box(ct))),
            _ => unreachable!("not a KEM operation"),
        }
    }
    fn includes(&self) -> Option<&str> {
        Some(
            "keygen: XWING_parse_private_key of the seed (expansion) and XWING_public_from_private; \
             encaps: XWING_encap_external_entropy from the public key's bytes (parsed every \
             call); decaps: XWING_decap with the expanded key (it recomputes the X25519 public \
             key every call)",
        )
    }
}

#[cfg(feature = "boring")]
impl XWing for Boring {
    fn public_key(&self, seed: &[u8; 32]) -> Result<Vec<u8>, String> {
        use crate::boring::*;
        Ok(xwing_public_key(&*xwing_private_key(seed)?)?.to_vec())
    }
    fn encaps(&self, pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, Vec<u8>), String> {
        let (ct, ss) = crate::boring::xwing_encap(pk, eseed)?;
        Ok((ct, ss.to_vec()))
    }
    fn decaps(&self, seed: &[u8; 32], ct: &[u8]) -> Result<Vec<u8>, String> {
        use crate::boring::*;
        Ok(xwing_decap(&*xwing_private_key(seed)?, ct)?.to_vec())
    }
    fn material(&self) -> &Material {
        &self.material
    }
}

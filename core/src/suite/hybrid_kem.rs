//! Hybrid KEMs (docs/kem.md), written once over the backend's ML-KEM internal functions:
//!
//! - X-Wing = ML-KEM-768 + X25519 (draft-connolly-cfrg-xwing-kem), label `\.//^\`;
//! - ML-KEM-1024 + X25519, nexusq-specific, label `nexusq/MLKEM1024-X25519/v1`.
//!
//! Both keep one 32-byte seed, expanded the X-Wing way:
//! `SHAKE256(seed, 96)` = ML-KEM d (32) || ML-KEM z (32) || X25519 secret (32).
//! Public key = ML-KEM encapsulation key || X25519 public key; ciphertext = ML-KEM ciphertext ||
//! X25519 ephemeral public key; shared secret = `SHA3-256(ss_M || ss_X || ct_X || pk_X || label)`.

use super::SuiteId;
use super::backend::{Backend, BackendError, MlKemDecapsKey};
use crate::secret::SecretBytes;
use curve25519_dalek::montgomery::MontgomeryPoint;
use sha3::{Digest, Sha3_256};
use shake::Shake256;
use shake::{ExtendableOutput, Update, XofReader};
use subtle::ConstantTimeEq;

pub use super::backend::KemLevel;

/// X-Wing's combiner label, `\.//^\`.
pub(crate) const XWING_LABEL: &[u8] = b"\\.//^\\";
/// The ML-KEM-1024 + X25519 combiner label (nexusq-specific; docs/kem.md).
pub(crate) const MLKEM1024_X25519_LABEL: &[u8] = b"nexusq/MLKEM1024-X25519/v1";
/// RFC 9980's KEM combiner (section 4.2.1) for algorithm 35, ML-KEM-768 + X25519: the same
/// SHA3-256 over the same four 32-byte inputs as X-Wing, ending in algId || domSep ||
/// len(domSep) instead of X-Wing's label. The output is a key-encryption key for AES key wrap,
/// never a file key (docs/security.md, "OpenPGP").
pub const OPENPGP_LABEL: &[u8] = b"\x23OpenPGPCompositeKDFv1\x15";
/// X-Wing public key length: ML-KEM-768 encapsulation key and X25519 public key.
pub(crate) const XWING_PUBLIC_KEY_LEN: usize = 1184 + 32;
/// ML-KEM-1024 + X25519 public key length.
pub(crate) const MLKEM1024_X25519_PUBLIC_KEY_LEN: usize = 1568 + 32;

/// Why a hybrid KEM operation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KemError {
    /// Wrong length, a low-order X25519 key, or an ML-KEM key failing the FIPS 203 check.
    InvalidPublicKey(&'static str),
    /// Wrong ciphertext length.
    InvalidCiphertext,
    /// The X25519 part gave the all-zero secret (a low-order ephemeral key).
    ZeroX25519Secret,
}

impl std::fmt::Display for KemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KemError::InvalidPublicKey(why) => write!(f, "invalid public key: {why}"),
            KemError::InvalidCiphertext => f.write_str("the KEM ciphertext has the wrong length"),
            KemError::ZeroX25519Secret => {
                f.write_str("the X25519 part gave an all-zero secret (low-order key)")
            }
        }
    }
}

impl KemLevel {
    /// The suite id of the hybrid KEM built on this parameter set.
    pub fn suite(self) -> SuiteId {
        match self {
            KemLevel::MlKem768 => SuiteId::MlKem768X25519,
            KemLevel::MlKem1024 => SuiteId::MlKem1024X25519,
        }
    }

    /// The parameter set of a hybrid KEM suite; `None` for a suite that is no KEM.
    pub(crate) fn from_suite(suite: SuiteId) -> Option<Self> {
        match suite {
            SuiteId::MlKem768X25519 => Some(KemLevel::MlKem768),
            SuiteId::MlKem1024X25519 => Some(KemLevel::MlKem1024),
            _ => None,
        }
    }

    /// The combiner label of this hybrid KEM.
    pub fn label(self) -> &'static [u8] {
        match self {
            KemLevel::MlKem768 => XWING_LABEL,
            KemLevel::MlKem1024 => MLKEM1024_X25519_LABEL,
        }
    }

    /// Hybrid public key length: ML-KEM encapsulation key and 32-byte X25519 key.
    pub fn hybrid_public_key_len(self) -> usize {
        self.encapsulation_key_len() + 32
    }

    /// Hybrid ciphertext length: ML-KEM ciphertext and 32-byte X25519 ephemeral key (1120 or
    /// 1600).
    pub fn hybrid_ciphertext_len(self) -> usize {
        self.ciphertext_len() + 32
    }
}

/// The three secrets a hybrid KEM seed expands to.
pub(crate) struct ExpandedSeed {
    /// ML-KEM `d`.
    pub d: SecretBytes<32>,
    /// ML-KEM `z`.
    pub z: SecretBytes<32>,
    /// The X25519 secret key.
    pub x25519: SecretBytes<32>,
}

/// `SHAKE256(seed, 96)` split into `d`, `z` and the X25519 secret.
pub(crate) fn expand_seed(seed: &SecretBytes<32>) -> ExpandedSeed {
    let mut xof = Shake256::default();
    xof.update(seed.expose());
    let mut reader = xof.finalize_xof();
    let mut out = ExpandedSeed {
        d: SecretBytes::zero(),
        z: SecretBytes::zero(),
        x25519: SecretBytes::zero(),
    };
    reader.read(out.d.expose_mut());
    reader.read(out.z.expose_mut());
    reader.read(out.x25519.expose_mut());
    out
}

/// X25519(k, u) (RFC 7748). When u is on the curve (not its twist), through the Edwards form:
/// curve25519-dalek's variable-base multiplication there runs on its SIMD backend (AVX2 or
/// AVX-512 IFMA, chosen at run time) and, with the two conversions, takes about 0.63 of the
/// Montgomery ladder's time (docs/performance-notes.md). Both are constant time in `k`; which
/// one runs depends on u alone, a public key or a ciphertext's share. A twist point (an
/// attacker's) takes the ladder. The bytes are the ladder's in every case (tests below).
fn x25519(k: &[u8; 32], u: &[u8; 32]) -> SecretBytes<32> {
    let mut out = SecretBytes::<32>::zero();
    *out.expose_mut() = match MontgomeryPoint(*u).to_edwards(0) {
        Some(p) => p.mul_clamped(*k).to_montgomery().to_bytes(),
        None => x25519_dalek::x25519(*k, *u),
    };
    out
}

/// X25519(k, 9): the public key of secret `k`, by curve25519-dalek's fixed-base table on the
/// Edwards form (constant time, as the ladder is), about three times faster than the ladder of
/// [`x25519`] with the base point; the same bytes.
fn x25519_base(k: &[u8; 32]) -> [u8; 32] {
    let secret = x25519_dalek::StaticSecret::from(*k);
    x25519_dalek::PublicKey::from(&secret).to_bytes()
}

fn is_all_zero(b: &[u8; 32]) -> bool {
    bool::from(b.ct_eq(&[0u8; 32]))
}

/// A hybrid decapsulation key, expanded from its seed once: the backend's expanded ML-KEM key,
/// the X25519 secret, and the public key. Keep it to decapsulate repeatedly without running
/// ML-KEM key generation again. Its secrets are zeroized on drop; `Debug` shows none of them.
pub struct DecapsulationKey {
    mlkem: MlKemDecapsKey,
    x25519: SecretBytes<32>,
    /// ML-KEM encapsulation key || X25519 public key.
    public_key: Vec<u8>,
}

impl DecapsulationKey {
    /// Expand `seed` (SHAKE256, then ML-KEM KeyGen_internal on `backend`).
    pub fn from_seed(backend: &dyn Backend, level: KemLevel, seed: &SecretBytes<32>) -> Self {
        let e = expand_seed(seed);
        Self::from_expanded(backend, level, e)
    }

    /// The key of secrets that were never one seed: ML-KEM's `d` and `z` and the X25519
    /// secret, as an RFC 9980 secret key packet holds them (its Appendix A vectors).
    pub(crate) fn from_expanded(backend: &dyn Backend, level: KemLevel, e: ExpandedSeed) -> Self {
        let mlkem = backend.mlkem_expand(level, e.d.expose(), e.z.expose());
        let mut public_key = mlkem.encapsulation_key();
        public_key.extend_from_slice(&x25519_base(e.x25519.expose()));
        DecapsulationKey {
            mlkem,
            x25519: e.x25519,
            public_key,
        }
    }

    /// Which hybrid KEM this key is for.
    pub fn level(&self) -> KemLevel {
        self.mlkem.level()
    }

    /// The hybrid public key this key decapsulates for.
    pub fn public_key(&self) -> &[u8] {
        &self.public_key
    }

    /// Decapsulate. ML-KEM's implicit rejection means a wrong ciphertext gives a
    /// random-looking secret, not an error; callers that must know check a tag.
    pub fn decapsulate(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        self.decapsulate_with(ct, self.level().label())
    }

    /// RFC 9980's key-encryption key for an algorithm 35 PKESK: `ct` is the ML-KEM-768
    /// ciphertext followed by the X25519 ephemeral key (the PKESK stores them the other way
    /// round), and only an ML-KEM-768 (X-Wing) key has this combiner.
    pub fn decapsulate_openpgp(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        if self.level() != KemLevel::MlKem768 {
            return Err(KemError::InvalidCiphertext);
        }
        self.decapsulate_with(ct, OPENPGP_LABEL)
    }

    fn decapsulate_with(&self, ct: &[u8], label: &[u8]) -> Result<SecretBytes<32>, KemError> {
        let level = self.level();
        if ct.len() != level.hybrid_ciphertext_len() {
            return Err(KemError::InvalidCiphertext);
        }
        let (ct_m, ct_x) = ct.split_at(level.ciphertext_len());
        let ss_m = self
            .mlkem
            .decapsulate(ct_m)
            .map_err(|_| KemError::InvalidCiphertext)?;
        let ss_x = x25519(self.x25519.expose(), ct_x.try_into().expect("32 bytes"));
        if is_all_zero(ss_x.expose()) {
            return Err(KemError::ZeroX25519Secret);
        }
        let pk_x = &self.public_key[level.encapsulation_key_len()..];
        Ok(combine(label, &ss_m, &ss_x, ct_x, pk_x))
    }
}

/// Whatever decapsulates for one hybrid KEM: an expanded key in this process, or one that
/// the key agent holds (`crate::agent::client::RemoteKey`).
pub trait Decapsulate {
    /// Which hybrid KEM it decapsulates for.
    fn kem_level(&self) -> KemLevel;
    /// As [`DecapsulationKey::decapsulate`].
    fn decapsulate_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError>;
    /// As [`DecapsulationKey::decapsulate_openpgp`].
    fn decapsulate_openpgp_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError>;
    /// Did a request fail because the key's holder did not answer (the key agent stopped)?
    /// Then a refusal says nothing about the ciphertext, and the caller may try another way.
    fn unanswered(&self) -> bool {
        false
    }
}

/// A borrowed key decapsulates as the key does (a key source lends its keys).
impl<T: Decapsulate + ?Sized> Decapsulate for &T {
    fn kem_level(&self) -> KemLevel {
        (**self).kem_level()
    }

    fn decapsulate_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        (**self).decapsulate_ct(ct)
    }

    fn decapsulate_openpgp_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        (**self).decapsulate_openpgp_ct(ct)
    }

    fn unanswered(&self) -> bool {
        (**self).unanswered()
    }
}

impl Decapsulate for DecapsulationKey {
    fn kem_level(&self) -> KemLevel {
        self.level()
    }

    fn decapsulate_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        self.decapsulate(ct)
    }

    fn decapsulate_openpgp_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        self.decapsulate_openpgp(ct)
    }
}

impl std::fmt::Debug for DecapsulationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DecapsulationKey({}, redacted)",
            self.level().suite().name()
        )
    }
}

/// The hybrid public key for `seed`.
pub fn public_key(backend: &dyn Backend, level: KemLevel, seed: &SecretBytes<32>) -> Vec<u8> {
    DecapsulationKey::from_seed(backend, level, seed).public_key
}

/// Import check of someone's hybrid public key: length, and an X25519 part of small order is
/// refused (it would make the X25519 half contribute nothing). The ML-KEM half gets the
/// FIPS 203 modulus check at every encapsulation.
pub fn check_public_key(level: KemLevel, pk: &[u8]) -> Result<(), KemError> {
    if pk.len() != level.hybrid_public_key_len() {
        return Err(KemError::InvalidPublicKey("wrong length"));
    }
    let pk_x: [u8; 32] = pk[level.encapsulation_key_len()..]
        .try_into()
        .expect("32 bytes");
    // A clamped scalar is a multiple of 8, so the product is zero exactly for small-order points.
    if is_all_zero(&x25519_dalek::x25519([1u8; 32], pk_x)) {
        return Err(KemError::InvalidPublicKey("low-order X25519 key"));
    }
    Ok(())
}

fn combine(
    label: &[u8],
    ss_m: &SecretBytes<32>,
    ss_x: &SecretBytes<32>,
    ct_x: &[u8],
    pk_x: &[u8],
) -> SecretBytes<32> {
    let mut h = Sha3_256::new();
    Digest::update(&mut h, ss_m.expose());
    Digest::update(&mut h, ss_x.expose());
    Digest::update(&mut h, ct_x);
    Digest::update(&mut h, pk_x);
    Digest::update(&mut h, label);
    let mut out = SecretBytes::<32>::zero();
    out.expose_mut().copy_from_slice(&h.finalize());
    out
}

/// Encapsulate with pinned randomness: `eseed` = ML-KEM m (32) || X25519 ephemeral secret (32).
pub fn encapsulate_derand(
    backend: &dyn Backend,
    level: KemLevel,
    pk: &[u8],
    eseed: &SecretBytes<64>,
) -> Result<(Vec<u8>, SecretBytes<32>), KemError> {
    // The low-order check of [`check_public_key`] is the all-zero test below: with a clamped
    // ephemeral secret (a multiple of 8) the shared X25519 secret is zero exactly for a
    // small-order key, so it costs no scalar multiplication of its own.
    if pk.len() != level.hybrid_public_key_len() {
        return Err(KemError::InvalidPublicKey("wrong length"));
    }
    let (pk_m, pk_x) = pk.split_at(level.encapsulation_key_len());
    let m: [u8; 32] = eseed.expose()[..32].try_into().expect("32 bytes");
    let ek_x: [u8; 32] = eseed.expose()[32..].try_into().expect("32 bytes");
    let (mut ct, ss_m) = backend.mlkem_encaps(level, pk_m, &m).map_err(|e| match e {
        BackendError::InvalidEncapsulationKey => {
            KemError::InvalidPublicKey("the ML-KEM key fails the FIPS 203 modulus check")
        }
        _ => KemError::InvalidPublicKey("rejected by ML-KEM"),
    })?;
    let ct_x = x25519_base(&ek_x);
    let ss_x = x25519(&ek_x, pk_x.try_into().expect("32 bytes"));
    if is_all_zero(ss_x.expose()) {
        return Err(KemError::InvalidPublicKey("low-order X25519 key"));
    }
    let ss = combine(level.label(), &ss_m, &ss_x, &ct_x, pk_x);
    ct.extend_from_slice(&ct_x);
    Ok((ct, ss))
}

/// Encapsulate with fresh randomness from the operating system.
pub fn encapsulate(
    backend: &dyn Backend,
    level: KemLevel,
    pk: &[u8],
) -> Result<(Vec<u8>, SecretBytes<32>), KemError> {
    encapsulate_derand(backend, level, pk, &SecretBytes::random())
}

/// Decapsulate with the key from `seed`, expanding it for this one call (see
/// [`DecapsulationKey`] to keep the expanded key). ML-KEM's implicit rejection means a wrong
/// ciphertext gives a random-looking secret, not an error; callers that must know check a tag.
pub fn decapsulate(
    backend: &dyn Backend,
    level: KemLevel,
    seed: &SecretBytes<32>,
    ct: &[u8],
) -> Result<SecretBytes<32>, KemError> {
    if ct.len() != level.hybrid_ciphertext_len() {
        return Err(KemError::InvalidCiphertext);
    }
    DecapsulationKey::from_seed(backend, level, seed).decapsulate(ct)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::native::Native;
    use crate::suite::rustcrypto::RustCrypto;

    /// Both backends: every vector must hold for each, byte for byte.
    const BACKENDS: [&dyn Backend; 2] = [&RustCrypto, &Native];

    fn unhex(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// The Edwards-form X25519 gives the ladder's bytes: for keys on the curve and on its
    /// twist (half of all random u), every small-order point, u = −1, non-canonical encodings
    /// (u + p, and the top bit set, which RFC 7748 ignores), and the base point.
    #[test]
    fn x25519_matches_the_ladder_everywhere() {
        use sha3::digest::Digest as _;
        let mut state = [0u8; 32];
        let mut next = || {
            state = Sha3_256::digest(state).into();
            state
        };
        // p = 2^255 - 19, little-endian; p - 1 is u = -1.
        let mut p = [0xffu8; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        let mut minus_one = p;
        minus_one[0] = 0xec;
        let mut special: Vec<[u8; 32]> = vec![[0; 32], minus_one, p, [0xff; 32]];
        let mut one = [0u8; 32];
        one[0] = 1;
        special.push(one);
        let mut p_plus_one = p;
        p_plus_one[0] = 0xee;
        special.push(p_plus_one);
        // The order-8 points' u-coordinates (RFC 7748 section 6.1's list, as in libsodium).
        for hex in [
            "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
            "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        ] {
            special.push(unhex(hex).try_into().unwrap());
        }
        let mut on_curve = 0;
        for i in 0..400 {
            let k = next();
            let mut u = if i < special.len() {
                special[i]
            } else {
                next()
            };
            if i % 7 == 6 {
                u[31] |= 0x80;
            }
            on_curve += usize::from(MontgomeryPoint(u).to_edwards(0).is_some());
            let ours = x25519(&k, &u);
            assert_eq!(
                ours.expose(),
                &x25519_dalek::x25519(k, u),
                "u {}",
                hex::encode(u)
            );
            assert_eq!(
                x25519_base(&k),
                x25519_dalek::x25519(k, x25519_dalek::X25519_BASEPOINT_BYTES)
            );
        }
        // Both paths ran many times.
        assert!((100..300).contains(&on_curve), "{on_curve}");
    }

    fn vectors(path: &str) -> Vec<serde_json::Value> {
        // Relative paths are the repository's own files; absolute ones the shared vectors.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).unwrap()
    }

    fn check_vectors(level: KemLevel, cases: &[serde_json::Value]) {
        assert!(!cases.is_empty());
        for backend in BACKENDS {
            for case in cases {
                let h = |k: &str| unhex(case[k].as_str().unwrap());
                let seed = SecretBytes::<32>::from_slice(&h("seed")).unwrap();
                let eseed = SecretBytes::<64>::from_slice(&h("eseed")).unwrap();
                assert_eq!(
                    public_key(backend, level, &seed),
                    h("pk"),
                    "{}",
                    backend.name()
                );
                let (ct, ss) = encapsulate_derand(backend, level, &h("pk"), &eseed).unwrap();
                assert_eq!(ct, h("ct"), "{}", backend.name());
                assert_eq!(ss.expose().to_vec(), h("ss"), "{}", backend.name());
                let ss2 = decapsulate(backend, level, &seed, &ct).unwrap();
                assert_eq!(ss2.expose().to_vec(), h("ss"), "{}", backend.name());
            }
        }
    }

    /// The X-Wing draft's own vectors (../shared/vectors/xwing): keys, ciphertexts, secrets.
    #[test]
    fn xwing_draft_vectors() {
        nexusq_testkit::skip_without_vectors!();
        let path = nexusq_testkit::vector_path("xwing/test-vectors.json");
        check_vectors(KemLevel::MlKem768, &vectors(path.to_str().unwrap()));
    }

    /// Our committed ML-KEM-1024 + X25519 vectors, computed independently (see
    /// core/tests/vectors/README.md).
    #[test]
    fn mlkem1024_x25519_committed_vectors() {
        check_vectors(
            KemLevel::MlKem1024,
            &vectors("tests/vectors/mlkem1024-x25519.json"),
        );
    }

    /// The `x-wing` crate as a second oracle, over random seeds and encapsulations.
    #[test]
    fn xwing_matches_x_wing_crate() {
        use x_wing::{Decapsulate as _, Decapsulator as _, KeyExport as _};
        for backend in BACKENDS.into_iter().cycle().take(100) {
            let seed = SecretBytes::<32>::random();
            let dk = x_wing::DecapsulationKey::from(*seed.expose());
            let pk = public_key(backend, KemLevel::MlKem768, &seed);
            assert_eq!(pk, dk.encapsulation_key().to_bytes().to_vec());
            let (ct, ss) = encapsulate(backend, KemLevel::MlKem768, &pk).unwrap();
            let ct_arr: x_wing::Ciphertext = ct.as_slice().try_into().unwrap();
            assert_eq!(dk.decapsulate(&ct_arr).to_vec(), ss.expose().to_vec());
        }
    }

    /// A kept (expanded) key decapsulates exactly as its seed does, honest and implicitly
    /// rejected ciphertexts alike, on RustCrypto and on every native implementation this CPU
    /// runs; its public key is the seed's, and using it does not change it.
    #[test]
    fn kept_keys_decapsulate_as_their_seeds_on_every_backend() {
        let implementations = nexusq_native::available();
        for i in 0..48 {
            let level = KemLevel::ALL[i % 2];
            let seed = SecretBytes::<32>::random();
            let pk = public_key(&RustCrypto, level, &seed);
            let (ct, ss) = encapsulate(&RustCrypto, level, &pk).unwrap();
            let mut wrong = ct.clone();
            wrong[i] ^= 1;
            let want = [ss, decapsulate(&RustCrypto, level, &seed, &wrong).unwrap()];
            assert_ne!(want[0].expose(), want[1].expose());
            let imp = implementations[i % implementations.len()];
            nexusq_native::with_implementation(imp, || {
                for backend in BACKENDS {
                    let key = DecapsulationKey::from_seed(backend, level, &seed);
                    assert_eq!(key.level(), level);
                    assert_eq!(key.public_key(), &pk[..], "{} {imp:?}", backend.name());
                    for _ in 0..2 {
                        for (ct, want) in [&ct, &wrong].into_iter().zip(&want) {
                            let got = key.decapsulate(ct).unwrap();
                            assert_eq!(got.expose(), want.expose(), "{} {imp:?}", backend.name());
                        }
                    }
                }
            });
        }
        let key = DecapsulationKey::from_seed(&Native, KemLevel::MlKem1024, &SecretBytes::random());
        assert_eq!(
            key.decapsulate(&[0; 1120]).unwrap_err(),
            KemError::InvalidCiphertext
        );
        let text = format!("{key:?}");
        assert_eq!(text, "DecapsulationKey(mlkem1024-x25519, redacted)");
    }

    #[test]
    fn round_trips_and_rejections() {
        for level in [KemLevel::MlKem768, KemLevel::MlKem1024] {
            let seed = SecretBytes::<32>::random();
            let pk = public_key(&RustCrypto, level, &seed);
            assert_eq!(pk.len(), level.hybrid_public_key_len());
            let (ct, ss) = encapsulate(&RustCrypto, level, &pk).unwrap();
            assert_eq!(ct.len(), level.hybrid_ciphertext_len());
            assert_eq!(
                decapsulate(&RustCrypto, level, &seed, &ct)
                    .unwrap()
                    .expose(),
                ss.expose()
            );
            // Another key: implicit rejection gives a different secret, not an error.
            let other = SecretBytes::<32>::random();
            assert_ne!(
                decapsulate(&RustCrypto, level, &other, &ct)
                    .unwrap()
                    .expose(),
                ss.expose()
            );
            // Wrong lengths.
            assert_eq!(
                decapsulate(&RustCrypto, level, &seed, &ct[1..]).unwrap_err(),
                KemError::InvalidCiphertext
            );
            assert!(encapsulate(&RustCrypto, level, &pk[1..]).is_err());
            // Low-order X25519 public key (u = 0 and u = 1 are of small order).
            for bad in [[0u8; 32], {
                let mut one = [0u8; 32];
                one[0] = 1;
                one
            }] {
                let mut low = pk.clone();
                low[level.encapsulation_key_len()..].copy_from_slice(&bad);
                assert_eq!(
                    check_public_key(level, &low).unwrap_err(),
                    KemError::InvalidPublicKey("low-order X25519 key")
                );
                assert_eq!(
                    encapsulate(&RustCrypto, level, &low).unwrap_err(),
                    KemError::InvalidPublicKey("low-order X25519 key")
                );
                // And a low-order ephemeral key in a ciphertext gives the all-zero X25519 secret.
                let mut ct_low = ct.clone();
                ct_low[level.ciphertext_len()..].copy_from_slice(&bad);
                assert_eq!(
                    decapsulate(&RustCrypto, level, &seed, &ct_low).unwrap_err(),
                    KemError::ZeroX25519Secret
                );
            }
            // ML-KEM modulus check: a coefficient of 0xFFF (>= q) in the first position.
            let mut unreduced = pk.clone();
            unreduced[0] = 0xff;
            unreduced[1] |= 0x0f;
            assert!(matches!(
                encapsulate(&RustCrypto, level, &unreduced),
                Err(KemError::InvalidPublicKey(_))
            ));
        }
    }
}

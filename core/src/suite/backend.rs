//! The one small interface between `suite` and the ML-KEM / ML-DSA / SLH-DSA implementations
//! (docs/security.md, section 8): the deterministic FIPS 203/204/205 internal functions, so both
//! backends produce identical bytes and tests can pin every random input. Everything else
//! (X25519, Ed25519, AES-GCM, Argon2id) is shared by both backends and lives in `suite`.

use crate::secret::SecretBytes;

/// Which ML-KEM parameter set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KemLevel {
    /// ML-KEM-768 (inside X-Wing).
    MlKem768,
    /// ML-KEM-1024.
    MlKem1024,
}

impl KemLevel {
    /// Both parameter sets, in the order an identity lists its KEM keys.
    pub const ALL: [KemLevel; 2] = [KemLevel::MlKem768, KemLevel::MlKem1024];

    /// ML-KEM encapsulation key length in bytes (1184 or 1568).
    pub(crate) fn encapsulation_key_len(self) -> usize {
        match self {
            KemLevel::MlKem768 => 1184,
            KemLevel::MlKem1024 => 1568,
        }
    }

    /// ML-KEM ciphertext length in bytes (1088 or 1568).
    pub(crate) fn ciphertext_len(self) -> usize {
        match self {
            KemLevel::MlKem768 => 1088,
            KemLevel::MlKem1024 => 1568,
        }
    }
}

/// ML-DSA-65 signature length in bytes.
pub(crate) const MLDSA65_SIGNATURE_LEN: usize = 3309;
/// ML-DSA-65 verifying key length in bytes.
pub(crate) const MLDSA65_VERIFYING_KEY_LEN: usize = 1952;

/// Why a backend refused an input. Callers choose the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendError {
    /// Wrong length, or an encapsulation key that fails the FIPS 203 modulus check.
    InvalidEncapsulationKey,
    /// Wrong ciphertext length.
    InvalidCiphertext,
    /// ML-DSA or SLH-DSA context longer than 255 bytes.
    ContextTooLong,
}

/// SLH-DSA-SHAKE-128f's SK.seed || SK.prf || PK.seed.
pub(crate) const SLHDSA_SEEDS_LEN: usize = 48;
/// SLH-DSA-SHAKE-128f public key length: PK.seed || PK.root.
pub(crate) const SLHDSA_PUBLIC_KEY_LEN: usize = 32;
/// SLH-DSA-SHAKE-128f signature length in bytes.
pub(crate) const SLHDSA_SIGNATURE_LEN: usize = 17088;

/// One backend's ML-KEM decapsulation key, expanded from (d, z) once: implemented with the
/// backend's own key type, which zeroizes itself on drop.
pub trait MlKemDecapsulator: Send + Sync {
    /// The encapsulation key (public).
    fn encapsulation_key(&self) -> Vec<u8>;

    /// ML-KEM Decaps_internal with this key; implicit rejection.
    fn decapsulate(&self, ct: &[u8]) -> Result<SecretBytes<32>, BackendError>;
}

/// An expanded ML-KEM decapsulation key, made once by [`Backend::mlkem_expand`] and used for
/// any number of decapsulations. Opaque: the secret never leaves it, and `Debug` shows only
/// the parameter set.
pub struct MlKemDecapsKey {
    level: KemLevel,
    inner: Box<dyn MlKemDecapsulator>,
}

impl MlKemDecapsKey {
    /// Wrap a backend's expanded key of parameter set `level`.
    pub fn new(level: KemLevel, inner: impl MlKemDecapsulator + 'static) -> Self {
        MlKemDecapsKey {
            level,
            inner: Box::new(inner),
        }
    }

    /// The ML-KEM parameter set.
    pub fn level(&self) -> KemLevel {
        self.level
    }

    /// The encapsulation key (public).
    pub fn encapsulation_key(&self) -> Vec<u8> {
        self.inner.encapsulation_key()
    }

    /// ML-KEM Decaps_internal with this key; implicit rejection, so a wrong ciphertext of the right
    /// length gives a random-looking secret, not an error.
    pub fn decapsulate(&self, ct: &[u8]) -> Result<SecretBytes<32>, BackendError> {
        self.inner.decapsulate(ct)
    }
}

impl std::fmt::Debug for MlKemDecapsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MlKemDecapsKey({:?}, redacted)", self.level)
    }
}

/// One backend's ML-DSA-65 signing key, expanded from ξ once (the matrix Â and the secret
/// vectors in the NTT domain): implemented with the backend's own key type, which zeroizes
/// itself on drop.
pub trait MlDsaSigner: Send + Sync {
    /// The verifying key (public, 1952 bytes).
    fn verifying_key(&self) -> Vec<u8>;

    /// Pure ML-DSA-65 signature of `msg` with context `ctx` and randomness `rnd`, as
    /// [`Backend::mldsa65_sign`].
    fn sign(&self, msg: &[u8], ctx: &[u8], rnd: &[u8; 32]) -> Result<Vec<u8>, BackendError>;
}

/// An expanded ML-DSA-65 signing key, made once by [`Backend::mldsa65_expand`] and used for
/// any number of signatures, as [`MlKemDecapsKey`] is for decapsulation. Opaque: the secret
/// never leaves it, and `Debug` shows nothing of it.
pub struct MlDsaSigningKey {
    inner: Box<dyn MlDsaSigner>,
}

impl MlDsaSigningKey {
    /// Wrap a backend's expanded key.
    pub fn new(inner: impl MlDsaSigner + 'static) -> Self {
        MlDsaSigningKey {
            inner: Box::new(inner),
        }
    }

    /// The verifying key (public, 1952 bytes).
    pub fn verifying_key(&self) -> Vec<u8> {
        self.inner.verifying_key()
    }

    /// Pure ML-DSA-65 signature of `msg` with context `ctx` (at most 255 bytes) and `rnd`
    /// (32 zero bytes: the deterministic variant); the bytes of [`Backend::mldsa65_sign`].
    pub fn sign(&self, msg: &[u8], ctx: &[u8], rnd: &[u8; 32]) -> Result<Vec<u8>, BackendError> {
        self.inner.sign(msg, ctx, rnd)
    }
}

impl std::fmt::Debug for MlDsaSigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MlDsaSigningKey(ML-DSA-65, redacted)")
    }
}

/// ML-KEM, ML-DSA and SLH-DSA from seeds and pinned randomness.
pub trait Backend: Sync {
    /// The backend's name, as `--backend` takes it (`rustcrypto`, `native`).
    fn name(&self) -> &'static str;

    /// ML-KEM KeyGen_internal(d, z), kept as the expanded decapsulation key.
    fn mlkem_expand(&self, level: KemLevel, d: &[u8; 32], z: &[u8; 32]) -> MlKemDecapsKey;

    /// ML-KEM KeyGen_internal(d, z): the encapsulation key.
    fn mlkem_keygen(&self, level: KemLevel, d: &[u8; 32], z: &[u8; 32]) -> Vec<u8> {
        self.mlkem_expand(level, d, z).encapsulation_key()
    }

    /// ML-KEM Encaps_internal(ek, m) after the FIPS 203 input check: (ciphertext, shared key).
    fn mlkem_encaps(
        &self,
        level: KemLevel,
        ek: &[u8],
        m: &[u8; 32],
    ) -> Result<(Vec<u8>, SecretBytes<32>), BackendError>;

    /// ML-KEM Decaps_internal with the key from KeyGen_internal(d, z); implicit rejection.
    /// Expands the key on every call: keep an [`MlKemDecapsKey`] to decapsulate repeatedly.
    fn mlkem_decaps(
        &self,
        level: KemLevel,
        d: &[u8; 32],
        z: &[u8; 32],
        ct: &[u8],
    ) -> Result<SecretBytes<32>, BackendError> {
        self.mlkem_expand(level, d, z).decapsulate(ct)
    }

    /// ML-DSA-65 KeyGen_internal(xi), kept as the expanded signing key.
    fn mldsa65_expand(&self, xi: &[u8; 32]) -> MlDsaSigningKey;

    /// ML-DSA-65 KeyGen_internal(xi): the verifying key (1952 bytes).
    fn mldsa65_keygen(&self, xi: &[u8; 32]) -> Vec<u8>;

    /// Pure ML-DSA-65 signature of `msg` with context `ctx` and the given `rnd`
    /// (Sign_internal over `0 || len(ctx) || ctx || msg`); rnd = 0 is the deterministic variant.
    /// Expands the key on every call: keep an [`MlDsaSigningKey`] to sign repeatedly.
    fn mldsa65_sign(
        &self,
        xi: &[u8; 32],
        msg: &[u8],
        ctx: &[u8],
        rnd: &[u8; 32],
    ) -> Result<Vec<u8>, BackendError> {
        self.mldsa65_expand(xi).sign(msg, ctx, rnd)
    }

    /// Pure ML-DSA-65 verification with context; malformed keys or signatures are invalid.
    fn mldsa65_verify(&self, vk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool;

    /// SLH-DSA-SHAKE-128f slh_keygen_internal(SK.seed, SK.prf, PK.seed) from the three seeds
    /// in that order: the public key PK.seed || PK.root.
    fn slhdsa_keygen(&self, seeds: &[u8; SLHDSA_SEEDS_LEN]) -> [u8; SLHDSA_PUBLIC_KEY_LEN];

    /// Pure SLH-DSA-SHAKE-128f signature of `msg` with context `ctx` (slh_sign_internal over
    /// `0 || len(ctx) || ctx || msg`) by the key of `seeds`, with the optional randomness
    /// `addrnd` (`None` signs deterministically).
    fn slhdsa_sign(
        &self,
        seeds: &[u8; SLHDSA_SEEDS_LEN],
        msg: &[u8],
        ctx: &[u8],
        addrnd: Option<&[u8; 16]>,
    ) -> Result<Vec<u8>, BackendError>;

    /// Pure SLH-DSA-SHAKE-128f verification with context; malformed keys or signatures are
    /// invalid.
    fn slhdsa_verify(&self, pk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> bool;
}

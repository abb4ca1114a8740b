//! The public types and functions of ML-DSA-65.

/// ML-DSA-65 (FIPS 204): pure signing and verification with a context string, the internal
/// functions (M' given) for known-answer tests, and external-μ variants.
pub mod mldsa65 {
    use super::super::params::{PK_BYTES, SIG_BYTES, SK_BYTES};
    use super::super::{keygen, sign, verify};
    use crate::dispatch::run;
    use crate::error::Error;
    use crate::keccak::shake256;
    use crate::secret::SecretBytes;
    use core::fmt;
    use zeroize::{Zeroize, ZeroizeOnDrop};

    /// Bytes in a verifying (public) key.
    pub const VERIFYING_KEY_LEN: usize = PK_BYTES;
    /// Bytes in an expanded signing key (ρ || K || tr || s1 || s2 || t0).
    pub const SIGNING_KEY_LEN: usize = SK_BYTES;
    /// Bytes in a signature.
    pub const SIGNATURE_LEN: usize = SIG_BYTES;
    /// The longest context string FIPS 204 allows.
    pub const MAX_CONTEXT_LEN: usize = 255;

    /// A verifying key, with tr = H(pk) cached. Every 1952-byte string is one.
    #[derive(Clone, PartialEq, Eq)]
    pub struct VerifyingKey {
        bytes: [u8; PK_BYTES],
        tr: [u8; 64],
    }

    impl VerifyingKey {
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
            Error::check_len("an ML-DSA-65 verifying key", bytes, PK_BYTES)?;
            let bytes: [u8; PK_BYTES] = bytes.try_into().expect("checked length");
            let mut tr = [0u8; 64];
            run!(|S| shake256::<S>(&[&bytes], &mut tr));
            Ok(VerifyingKey { bytes, tr })
        }

        pub fn as_bytes(&self) -> &[u8; PK_BYTES] {
            &self.bytes
        }

        pub fn to_bytes(&self) -> [u8; PK_BYTES] {
            self.bytes
        }
    }

    impl fmt::Debug for VerifyingKey {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("mldsa65::VerifyingKey(tr = ")?;
            for b in &self.tr[..8] {
                write!(f, "{b:02x}")?;
            }
            f.write_str("…)")
        }
    }

    /// An expanded signing key. Zeroized on drop; `Debug` shows nothing of it.
    #[derive(Clone, Zeroize, ZeroizeOnDrop)]
    pub struct SigningKey {
        bytes: SecretBytes<SK_BYTES>,
    }

    impl SigningKey {
        /// Checks the length and that every coefficient of s1 and s2 is in [−η, η] (the
        /// range skDecode can represent is wider; a key outside it was not made by KeyGen).
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
            Error::check_len("an ML-DSA-65 signing key", bytes, SK_BYTES)?;
            let mut boxed = SecretBytes::zero();
            boxed.copy_from_slice(bytes);
            let key = SigningKey { bytes: boxed };
            if !run!(|S| sign::range_check::<S>(&key.bytes)) {
                return Err(Error::SecretRange);
            }
            Ok(key)
        }

        pub fn as_bytes(&self) -> &[u8; SK_BYTES] {
            &self.bytes
        }

        pub fn to_bytes(&self) -> Box<[u8; SK_BYTES]> {
            self.bytes.to_box()
        }

        fn tr(&self) -> &[u8] {
            &self.bytes[64..128]
        }
    }

    impl fmt::Debug for SigningKey {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("mldsa65::SigningKey(<secret>)")
        }
    }

    /// A signing key expanded for repeated signing: Â, ŝ1, ŝ2 and t̂0 in the NTT domain, made
    /// once, so that each signature runs only the rejection loop (what [`sign`] recomputes
    /// from the packed key on every call is ExpandA, the unpacking and 17 NTTs). The NTT order
    /// belongs to the implementation that made it, so it signs with that one, whatever is
    /// forced later. Zeroized on drop; `Debug` shows nothing of it.
    pub struct ExpandedSigningKey {
        imp: crate::Implementation,
        tr: [u8; 64],
        polys: Box<sign::ExpandedPolys>,
    }

    impl ExpandedSigningKey {
        /// Expands `sk` with the implementation that runs now.
        pub fn new(sk: &SigningKey) -> Self {
            let tr = sk.tr().try_into().expect("64 bytes");
            let imp = crate::dispatch::current();
            let polys = run!(|S| sign::expand_sk::<S>(&sk.bytes));
            ExpandedSigningKey { imp, tr, polys }
        }

        /// The implementation that made it, and signs with it.
        pub fn implementation(&self) -> crate::Implementation {
            self.imp
        }

        fn sign_parts(&self, parts: &[&[u8]], rnd: &[u8; 32]) -> Signature {
            let mut sig = [0u8; SIG_BYTES];
            crate::with_implementation(self.imp, || {
                run!(|S| {
                    let mut mu = [0u8; 64];
                    let mut all: [&[u8]; 5] = [&self.tr, &[], &[], &[], &[]];
                    all[1..=parts.len()].copy_from_slice(parts);
                    shake256::<S>(&all[..=parts.len()], &mut mu);
                    sign::sign_mu_expanded::<S>(&self.polys, &mu, rnd, &mut sig);
                })
            });
            Signature { bytes: sig }
        }

        /// [`sign`] with this key: the same bytes for the same inputs.
        pub fn sign(&self, msg: &[u8], ctx: &[u8], rnd: &[u8; 32]) -> Result<Signature, Error> {
            let len = context_len(ctx)?;
            Ok(self.sign_parts(&[&[0, len], ctx, msg], rnd))
        }

        /// [`sign_internal`] with this key.
        pub fn sign_internal(&self, m_prime: &[u8], rnd: &[u8; 32]) -> Signature {
            self.sign_parts(&[m_prime], rnd)
        }
    }

    impl Drop for ExpandedSigningKey {
        fn drop(&mut self) {
            // tr is public (a hash of the verifying key); the polynomials wipe themselves.
            self.tr.zeroize();
        }
    }

    impl fmt::Debug for ExpandedSigningKey {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("mldsa65::ExpandedSigningKey(<secret>)")
        }
    }

    /// A signature: any 3309 bytes (decoding and bounds are checked by verification).
    #[derive(Clone, PartialEq, Eq)]
    pub struct Signature {
        bytes: [u8; SIG_BYTES],
    }

    impl Signature {
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
            Error::check_len("an ML-DSA-65 signature", bytes, SIG_BYTES)?;
            Ok(Signature {
                bytes: bytes.try_into().expect("checked length"),
            })
        }

        pub fn as_bytes(&self) -> &[u8; SIG_BYTES] {
            &self.bytes
        }

        pub fn to_bytes(&self) -> [u8; SIG_BYTES] {
            self.bytes
        }
    }

    impl fmt::Debug for Signature {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "mldsa65::Signature({SIG_BYTES} bytes)")
        }
    }

    /// The one-byte length of a context, or `ContextTooLong`.
    fn context_len(ctx: &[u8]) -> Result<u8, Error> {
        u8::try_from(ctx.len()).map_err(|_| Error::ContextTooLong { got: ctx.len() })
    }

    /// ML-DSA.KeyGen_internal(ξ).
    pub fn keygen_internal(xi: &[u8; 32]) -> (VerifyingKey, SigningKey) {
        let mut pk = [0u8; PK_BYTES];
        let mut sk = SecretBytes::<SK_BYTES>::zero();
        run!(|S| keygen::keygen::<S>(xi, &mut pk, &mut sk));
        let tr = sk[64..128].try_into().expect("64 bytes");
        (VerifyingKey { bytes: pk, tr }, SigningKey { bytes: sk })
    }

    /// Signs μ (64 bytes): the rest of Sign_internal once μ = H(tr || M', 64) is known.
    pub fn sign_mu(sk: &SigningKey, mu: &[u8; 64], rnd: &[u8; 32]) -> Signature {
        let mut sig = [0u8; SIG_BYTES];
        run!(|S| sign::sign_mu::<S>(&sk.bytes, mu, rnd, &mut sig));
        Signature { bytes: sig }
    }

    /// [`sign_mu`] that also returns how many attempts the rejection loop took. Only for
    /// timing tests: they must compare signatures with equal attempt counts, since FIPS 204
    /// lets the count (not the secrets) show.
    #[doc(hidden)]
    pub fn sign_mu_counting(sk: &SigningKey, mu: &[u8; 64], rnd: &[u8; 32]) -> (Signature, u32) {
        let mut sig = [0u8; SIG_BYTES];
        let attempts = run!(|S| sign::sign_mu::<S>(&sk.bytes, mu, rnd, &mut sig));
        (Signature { bytes: sig }, attempts)
    }

    /// One signature from the packed key: the key expanded for it alone (the same work
    /// `sign::sign_mu` does), then [`ExpandedSigningKey`]'s signing.
    fn sign_parts(sk: &SigningKey, parts: &[&[u8]], rnd: &[u8; 32]) -> Signature {
        ExpandedSigningKey::new(sk).sign_parts(parts, rnd)
    }

    /// ML-DSA.Sign_internal(sk, M', rnd): M' is signed as given. `rnd` = 32 zero bytes is
    /// the deterministic variant.
    pub fn sign_internal(sk: &SigningKey, m_prime: &[u8], rnd: &[u8; 32]) -> Signature {
        sign_parts(sk, &[m_prime], rnd)
    }

    /// Pure ML-DSA.Sign with a context of at most 255 bytes: Sign_internal of
    /// M' = 0 || len(ctx) || ctx || msg. `rnd` = 32 zero bytes is deterministic signing.
    pub fn sign(
        sk: &SigningKey,
        msg: &[u8],
        ctx: &[u8],
        rnd: &[u8; 32],
    ) -> Result<Signature, Error> {
        let len = context_len(ctx)?;
        Ok(sign_parts(sk, &[&[0, len], ctx, msg], rnd))
    }

    /// Verifies a signature of μ.
    pub fn verify_mu(vk: &VerifyingKey, mu: &[u8; 64], sig: &Signature) -> bool {
        run!(|S| verify::verify_mu::<S>(&vk.bytes, mu, &sig.bytes))
    }

    fn verify_parts(vk: &VerifyingKey, parts: &[&[u8]], sig: &Signature) -> bool {
        run!(|S| {
            let mut mu = [0u8; 64];
            let mut all: [&[u8]; 5] = [&vk.tr, &[], &[], &[], &[]];
            all[1..=parts.len()].copy_from_slice(parts);
            shake256::<S>(&all[..=parts.len()], &mut mu);
            verify::verify_mu::<S>(&vk.bytes, &mu, &sig.bytes)
        })
    }

    /// ML-DSA.Verify_internal(pk, M', σ).
    pub fn verify_internal(vk: &VerifyingKey, m_prime: &[u8], sig: &Signature) -> bool {
        verify_parts(vk, &[m_prime], sig)
    }

    /// Pure ML-DSA.Verify with a context; false for a context longer than 255 bytes.
    pub fn verify(vk: &VerifyingKey, msg: &[u8], ctx: &[u8], sig: &Signature) -> bool {
        match context_len(ctx) {
            Ok(len) => verify_parts(vk, &[&[0, len], ctx, msg], sig),
            Err(_) => false,
        }
    }

    /// μ = H(tr || 0 || len(ctx) || ctx || msg, 64), for the external-μ functions.
    pub fn message_representative(
        vk: &VerifyingKey,
        msg: &[u8],
        ctx: &[u8],
    ) -> Result<[u8; 64], Error> {
        let len = context_len(ctx)?;
        let mut mu = [0u8; 64];
        run!(|S| shake256::<S>(&[&vk.tr, &[0, len], ctx, msg], &mut mu));
        Ok(mu)
    }
}

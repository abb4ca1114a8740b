//! The public types and functions of SLH-DSA-SHAKE-128f.

/// SLH-DSA-SHAKE-128f (FIPS 205): key generation from seeds, pure signing with a context
/// string (hedged, or deterministic without the optional randomness), verification, and the
/// internal functions (M' given) for known-answer tests.
pub mod slhdsa_shake128f {
    use super::super::params::{N, PK_BYTES, SIG_BYTES, SK_BYTES};
    use super::super::sign;
    use crate::dispatch::run;
    use crate::error::Error;
    use crate::simd::Simd;
    use core::fmt;
    use zeroize::{Zeroize, ZeroizeOnDrop};

    /// Bytes in each seed (SK.seed, SK.prf, PK.seed) and in the optional randomness.
    pub const SEED_LEN: usize = N;
    /// Bytes in a verifying (public) key: PK.seed || PK.root.
    pub const VERIFYING_KEY_LEN: usize = PK_BYTES;
    /// Bytes in a signing key: SK.seed || SK.prf || PK.seed || PK.root.
    pub const SIGNING_KEY_LEN: usize = SK_BYTES;
    /// Bytes in a signature.
    pub const SIGNATURE_LEN: usize = SIG_BYTES;
    /// The longest context string FIPS 205 allows.
    pub const MAX_CONTEXT_LEN: usize = 255;

    /// Calls the algorithm with the batch width the implementation runs best: eight hashes at
    /// once where it has a native eight-way Keccak, else four.
    macro_rules! wide {
        ($f:ident($($arg:expr),*)) => {
            run!(|S| if S::KECCAK_X8 {
                sign::$f::<S, 8>($($arg),*)
            } else {
                sign::$f::<S, 4>($($arg),*)
            })
        };
    }

    /// A verifying key. Every 32-byte string is one.
    #[derive(Clone, PartialEq, Eq)]
    pub struct VerifyingKey {
        bytes: [u8; PK_BYTES],
    }

    impl VerifyingKey {
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
            Error::check_len("an SLH-DSA-SHAKE-128f verifying key", bytes, PK_BYTES)?;
            Ok(VerifyingKey {
                bytes: bytes.try_into().expect("checked length"),
            })
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
            f.write_str("slhdsa_shake128f::VerifyingKey(")?;
            for b in &self.bytes {
                write!(f, "{b:02x}")?;
            }
            f.write_str(")")
        }
    }

    /// A signing key. Zeroized on drop; `Debug` shows nothing of it.
    #[derive(Clone, Zeroize, ZeroizeOnDrop)]
    pub struct SigningKey {
        bytes: [u8; SK_BYTES],
    }

    impl SigningKey {
        /// Checks the length only: whether PK.root belongs to the seeds would take a key
        /// generation to find out (a wrong one makes signatures that do not verify).
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
            Error::check_len("an SLH-DSA-SHAKE-128f signing key", bytes, SK_BYTES)?;
            Ok(SigningKey {
                bytes: bytes.try_into().expect("checked length"),
            })
        }

        pub fn as_bytes(&self) -> &[u8; SK_BYTES] {
            &self.bytes
        }

        pub fn to_bytes(&self) -> [u8; SK_BYTES] {
            self.bytes
        }

        /// PK.seed || PK.root.
        pub fn verifying_key(&self) -> VerifyingKey {
            VerifyingKey {
                bytes: self.bytes[2 * N..].try_into().expect("32 bytes"),
            }
        }

        fn pk_seed(&self) -> &[u8; N] {
            self.bytes[2 * N..3 * N].try_into().expect("16 bytes")
        }
    }

    impl fmt::Debug for SigningKey {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("slhdsa_shake128f::SigningKey(<secret>)")
        }
    }

    /// A signature: any 17 088 bytes (verification checks the rest).
    #[derive(Clone, PartialEq, Eq)]
    pub struct Signature {
        bytes: Box<[u8; SIG_BYTES]>,
    }

    impl Signature {
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
            Error::check_len("an SLH-DSA-SHAKE-128f signature", bytes, SIG_BYTES)?;
            let mut boxed = Box::new([0u8; SIG_BYTES]);
            boxed.copy_from_slice(bytes);
            Ok(Signature { bytes: boxed })
        }

        pub fn as_bytes(&self) -> &[u8; SIG_BYTES] {
            &self.bytes
        }

        pub fn to_bytes(&self) -> Box<[u8; SIG_BYTES]> {
            self.bytes.clone()
        }
    }

    impl fmt::Debug for Signature {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "slhdsa_shake128f::Signature({SIG_BYTES} bytes)")
        }
    }

    /// The one-byte length of a context, or `ContextTooLong`.
    fn context_len(ctx: &[u8]) -> Result<u8, Error> {
        u8::try_from(ctx.len()).map_err(|_| Error::ContextTooLong { got: ctx.len() })
    }

    /// slh_keygen_internal(SK.seed, SK.prf, PK.seed).
    pub fn keygen_internal(
        sk_seed: &[u8; N],
        sk_prf: &[u8; N],
        pk_seed: &[u8; N],
    ) -> (VerifyingKey, SigningKey) {
        let root = wide!(keygen(sk_seed, pk_seed));
        let mut sk = SigningKey {
            bytes: [0u8; SK_BYTES],
        };
        sk.bytes[..N].copy_from_slice(sk_seed);
        sk.bytes[N..2 * N].copy_from_slice(sk_prf);
        sk.bytes[2 * N..3 * N].copy_from_slice(pk_seed);
        super::super::hash::node_to_bytes(&root, &mut sk.bytes[3 * N..]);
        (sk.verifying_key(), sk)
    }

    fn sign_parts(sk: &SigningKey, m: &[&[u8]], addrnd: Option<&[u8; N]>) -> Signature {
        let addrnd = addrnd.unwrap_or(sk.pk_seed());
        let mut sig = Signature {
            bytes: Box::new([0u8; SIG_BYTES]),
        };
        wide!(sign(&sk.bytes, m, addrnd, &mut sig.bytes));
        sig
    }

    /// slh_sign_internal(M', SK, addrnd): M' is signed as given. Without `addrnd` it is the
    /// deterministic variant (addrnd = PK.seed).
    pub fn sign_internal(sk: &SigningKey, m_prime: &[u8], addrnd: Option<&[u8; N]>) -> Signature {
        sign_parts(sk, &[m_prime], addrnd)
    }

    /// Pure slh_sign with a context of at most 255 bytes: slh_sign_internal of
    /// M' = 0 || len(ctx) || ctx || msg. `addrnd` is the optional randomness (16 fresh random
    /// bytes for hedged signing); `None` signs deterministically.
    pub fn sign(
        sk: &SigningKey,
        msg: &[u8],
        ctx: &[u8],
        addrnd: Option<&[u8; N]>,
    ) -> Result<Signature, Error> {
        let len = context_len(ctx)?;
        Ok(sign_parts(sk, &[&[0, len], ctx, msg], addrnd))
    }

    /// slh_verify_internal(M', SIG, PK).
    pub fn verify_internal(vk: &VerifyingKey, m_prime: &[u8], sig: &Signature) -> bool {
        wide!(verify(&vk.bytes, &[m_prime], &sig.bytes))
    }

    /// Pure slh_verify with a context; false for a context longer than 255 bytes.
    pub fn verify(vk: &VerifyingKey, msg: &[u8], ctx: &[u8], sig: &Signature) -> bool {
        match context_len(ctx) {
            Ok(len) => wide!(verify(&vk.bytes, &[&[0, len], ctx, msg], &sig.bytes)),
            Err(_) => false,
        }
    }
}

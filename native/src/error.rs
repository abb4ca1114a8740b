//! Why an input was refused. Messages name the rule that failed, never secret data.

use core::fmt;

/// An input that fails a length or FIPS 203/204 input check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The byte string has the wrong length for this kind of value.
    Length {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// An encapsulation key with a coefficient of q or more (FIPS 203 section 7.2).
    Modulus,
    /// A decapsulation key whose stored H(ek) does not match its ek (FIPS 203 section 7.3).
    KeyHash,
    /// An ML-DSA context string longer than 255 bytes (FIPS 204 section 5.2).
    ContextTooLong { got: usize },
    /// An expanded ML-DSA signing key with an s1 or s2 coefficient outside [−η, η].
    SecretRange,
}

impl Error {
    /// `Ok` if `bytes` is `expected` long, else the length error naming `what`.
    pub(crate) fn check_len(
        what: &'static str,
        bytes: &[u8],
        expected: usize,
    ) -> Result<(), Error> {
        if bytes.len() == expected {
            Ok(())
        } else {
            Err(Error::Length {
                what,
                expected,
                got: bytes.len(),
            })
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Length {
                what,
                expected,
                got,
            } => write!(f, "{what} must be {expected} bytes, got {got}"),
            Error::Modulus => f.write_str(
                "encapsulation key has a coefficient that is not reduced modulo q (FIPS 203 modulus check)",
            ),
            Error::KeyHash => f.write_str(
                "decapsulation key is inconsistent: its stored hash does not match its encapsulation key (FIPS 203 hash check)",
            ),
            Error::ContextTooLong { got } => {
                write!(f, "context string must be at most 255 bytes, got {got}")
            }
            Error::SecretRange => f.write_str(
                "signing key has an s1 or s2 coefficient outside [-eta, eta] (not a FIPS 204 key)",
            ),
        }
    }
}

impl std::error::Error for Error {}

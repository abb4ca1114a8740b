//! Buffers for secret material: zeroized on drop, redacted in `Debug`, and best-effort locked
//! in RAM so they are not written to swap.
//!
//! `mlock` is best effort: it can fail under RLIMIT_MEMLOCK (common on Android) and that is not
//! an error. Locking works per page, so unlocking one buffer may unlock a neighbour on the same
//! page; the zeroizing on drop is what we rely on.

use std::fmt;
use zeroize::{Zeroize, Zeroizing};

/// A fixed-size secret, such as a 32-byte seed or key.
pub struct SecretBytes<const N: usize> {
    // Declared first so it is dropped (munlock) before `bytes` is freed; zeroizing happens in
    // `Drop::drop`, before either.
    _lock: Option<region::LockGuard>,
    bytes: Box<[u8; N]>,
}

impl<const N: usize> SecretBytes<N> {
    /// All zeros, locked where the system allows.
    pub fn zero() -> Self {
        let bytes = Box::new([0u8; N]);
        let _lock = region::lock(bytes.as_ptr(), N).ok();
        SecretBytes { _lock, bytes }
    }

    /// A copy of `src`; `None` unless it is exactly `N` bytes long.
    pub fn from_slice(src: &[u8]) -> Option<Self> {
        if src.len() != N {
            return None;
        }
        let mut s = Self::zero();
        s.bytes.copy_from_slice(src);
        Some(s)
    }

    /// Fill from the operating system's CSPRNG.
    pub fn random() -> Self {
        let mut s = Self::zero();
        fill_random(&mut s.bytes[..]);
        s
    }

    /// The secret bytes. Copies made from them are not zeroized: keep them short-lived.
    pub fn expose(&self) -> &[u8; N] {
        &self.bytes
    }

    /// The secret bytes, to fill in place.
    pub(crate) fn expose_mut(&mut self) -> &mut [u8; N] {
        &mut self.bytes
    }
}

impl<const N: usize> Clone for SecretBytes<N> {
    fn clone(&self) -> Self {
        let mut s = Self::zero();
        s.bytes.copy_from_slice(&self.bytes[..]);
        s
    }
}

impl<const N: usize> Drop for SecretBytes<N> {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl<const N: usize> fmt::Debug for SecretBytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretBytes<{N}>(redacted)")
    }
}

/// A password: zeroized on drop, never printed, best-effort locked in RAM.
pub struct Password {
    // Declared first: zeroized and freed before the pages are unlocked.
    text: Zeroizing<String>,
    _lock: Option<region::LockGuard>,
}

impl Password {
    /// Take ownership of the typed or read text, locking it where the system allows.
    pub fn new(text: Zeroizing<String>) -> Self {
        // Best effort: the buffer may already have been copied by whoever produced it.
        let _lock = (!text.is_empty())
            .then(|| region::lock(text.as_ptr(), text.len()).ok())
            .flatten();
        Password { text, _lock }
    }

    /// The password's UTF-8 bytes, as Argon2id takes them.
    pub fn as_bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// Is it the empty password?
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl PartialEq for Password {
    fn eq(&self, other: &Self) -> bool {
        use subtle::ConstantTimeEq;
        let (a, b) = (self.as_bytes(), other.as_bytes());
        a.len() == b.len() && bool::from(a.ct_eq(b))
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(redacted)")
    }
}

/// Fill `buf` from the operating system's CSPRNG.
///
/// Failure to get randomness is unrecoverable for a key vault, so it aborts with a message
/// rather than continuing with weak bytes.
pub fn fill_random(buf: &mut [u8]) {
    if let Err(e) = getrandom::fill(buf) {
        panic!("the operating system's random number generator failed: {e}");
    }
}

/// An array filled from the OS's CSPRNG (for salts, nonces and other non-secret randomness).
pub fn random_array<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    fill_random(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_redacted() {
        let s = SecretBytes::<32>::from_slice(&[0x41; 32]).unwrap();
        let d = format!("{s:?}");
        assert!(!d.contains("41") && !d.contains("65"), "{d}");
        let p = Password::new(Zeroizing::new("hunter2".into()));
        assert!(!format!("{p:?}").contains("hunter2"));
    }

    #[test]
    fn random_is_not_constant() {
        assert_ne!(
            SecretBytes::<32>::random().expose(),
            SecretBytes::<32>::random().expose()
        );
    }
}

//! A boxed secret byte string (an expanded decapsulation or signing key), wiped on drop.
//!
//! The `Zeroize` derive on a `Box<[u8; N]>` makes one volatile store per byte: about five
//! instructions a byte on aarch64, more than a tenth of an ML-KEM key generation just to drop
//! the key it made. Here the wipe is plain stores of the whole string followed by
//! [`keep_wiped`](crate::simd::keep_wiped), as for every other secret in this crate.

use crate::simd::wipe_bytes;
use core::ops::{Deref, DerefMut};
use zeroize::{Zeroize, ZeroizeOnDrop};

#[derive(Clone)]
pub(crate) struct SecretBytes<const N: usize>(Box<[u8; N]>);

impl<const N: usize> SecretBytes<N> {
    pub(crate) fn zero() -> Self {
        SecretBytes(Box::new([0u8; N]))
    }

    /// A copy of the bytes in a new box (the caller owns and wipes it).
    pub(crate) fn to_box(&self) -> Box<[u8; N]> {
        self.0.clone()
    }
}

impl<const N: usize> Deref for SecretBytes<N> {
    type Target = [u8; N];
    fn deref(&self) -> &[u8; N] {
        &self.0
    }
}

impl<const N: usize> DerefMut for SecretBytes<N> {
    fn deref_mut(&mut self) -> &mut [u8; N] {
        &mut self.0
    }
}

impl<const N: usize> Zeroize for SecretBytes<N> {
    fn zeroize(&mut self) {
        wipe_bytes(&mut self.0[..]);
    }
}

impl<const N: usize> Drop for SecretBytes<N> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<const N: usize> ZeroizeOnDrop for SecretBytes<N> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroize_wipes_every_byte() {
        let mut s = SecretBytes::<4032>::zero();
        s.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8 | 1);
        s.zeroize();
        assert!(s.iter().all(|&b| b == 0));
    }
}

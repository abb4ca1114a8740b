//! The key source as the OpenPGP decryptor's key holder: the agent's ML-KEM-768 (X-Wing) keys
//! when it serves, else the vault's (docs/openpgp.md).

use super::{Failure, KeySource};
use crate::callbacks::Callbacks;
use crate::error::Result;
use crate::format::openpgp::message::{SessionKeys, Unwrap, Unwrapped};
use crate::suite::hybrid_kem::KemLevel;

/// A key source lent to [`crate::format::openpgp::message::decrypt`], with the callbacks that
/// supply its password.
pub struct OpenPgpKeys<'a> {
    /// Where the keys come from.
    pub source: &'a mut KeySource,
    /// Asked for the password when the agent cannot serve.
    pub callbacks: &'a dyn Callbacks,
}

impl SessionKeys for OpenPgpKeys<'_> {
    fn open(&mut self, unwrap: &Unwrap) -> Result<Option<(Unwrapped, u32)>> {
        match self
            .source
            .open_with(Some(KemLevel::MlKem768), self.callbacks, |keys| {
                unwrap(keys).ok_or(())
            }) {
            Ok(found) => Ok(Some((found.opened, found.generation))),
            Err(Failure::Keys(e)) => Err(e),
            Err(Failure::Input(())) => Ok(None),
        }
    }
}

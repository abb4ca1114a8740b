//! [`Signer`]: detached signatures by the identity's newest generation, through a
//! [`KeySource`] (the agent when it serves the vault, else the vault unlocked with the
//! caller's [`Callbacks`]), under a [`Policy`]: a revoked identity signs nothing unless the
//! policy allows it, and a certificate that does not cover the signing time is refused on every
//! path (docs/signature-format.md).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use nexusq_core::session::AgentUse;
//! use nexusq_core::{BackendChoice, KeySource, KnownPassword, Policy, Signer};
//! let backend = BackendChoice::default().backend()?;
//! let callbacks = KnownPassword::new("asked for only when no agent serves the vault");
//! let vault = std::path::Path::new("vault.nxq");
//! let mut keys = KeySource::open(vault, backend, AgentUse::IfRunning, &callbacks)?;
//! let mut signer = Signer::new(&mut keys, Policy::default());
//! let now = nexusq_core::time::now();
//! let sig = signer.sign(std::fs::File::open("report.pdf")?, now, &callbacks)?;
//! std::fs::write("report.pdf.sig", sig.to_armor())?;
//! # Ok(()) }
//! ```

use crate::callbacks::Callbacks;
use crate::error::{Error, Result};
use crate::identity::signature::{self, Signature};
use crate::policy::Policy;
use crate::session::KeySource;
use std::io::Read;

/// Signs with one key source, under one policy.
pub struct Signer<'k> {
    keys: &'k mut KeySource,
    policy: Policy,
    compact: bool,
}

impl<'k> Signer<'k> {
    /// Sign with `keys`, as `policy` allows.
    pub fn new(keys: &'k mut KeySource, policy: Policy) -> Signer<'k> {
        Signer {
            keys,
            policy,
            compact: false,
        }
    }

    /// Make compact signatures (the certificate left out: the verifier has the identity).
    pub fn compact(mut self, compact: bool) -> Signer<'k> {
        self.compact = compact;
        self
    }

    /// Refused now, before any data is read, if signing would be: a revoked identity the
    /// policy does not allow.
    pub fn check(&self) -> Result<()> {
        self.keys.may_sign(&self.policy)
    }

    /// A signature of the data `data` gives, made at `now`.
    pub fn sign(
        &mut self,
        mut data: impl Read,
        now: u64,
        callbacks: &dyn Callbacks,
    ) -> Result<Signature> {
        self.check()?;
        let digest = signature::digest_reader(&mut data).map_err(|e| {
            Error::io(
                format!("cannot read the data to sign: {e}"),
                "check the data and try again",
            )
            .caused_by(e.kind())
        })?;
        self.sign_digest(&digest, now, callbacks)
    }

    /// A signature of the data whose SHA-512 is `digest`, made at `now`.
    pub fn sign_digest(
        &mut self,
        digest: &[u8; signature::DIGEST_LEN],
        now: u64,
        callbacks: &dyn Callbacks,
    ) -> Result<Signature> {
        let full = self.keys.sign(digest, now, &self.policy, callbacks)?;
        Ok(if self.compact {
            Signature::Compact(full.compact())
        } else {
            Signature::Full(full)
        })
    }
}

//! Authentication of the book: each saved version is signed with the vault's newest signing
//! key (ML-DSA-65 + Ed25519), and checked against the vault's identity on every read, so
//! reading the book needs no password (docs/contacts.md, "Authentication").
//!
//! The composite signature covers SHA-512(body) with the context
//! `"nexusq/contacts/v1" || owner root_id || u32be(g) || u64be(signed_at)`: a context of its
//! own, so no `nexusq sign` signature (context "nexusq/sig/v1") can pass for a book, nor a book's
//! signature for a file's. A book signed by a generation whose signing key was revoked since
//! (`rotate --compromised`) is refused, since a thief of that key could have made it: `rotate`
//! therefore checks the book with the old key and signs it again with the new one, under the
//! vault's lock (docs/contacts.md, "After a compromise").

use super::format::SealBlock;
use crate::error::{Error, Result};
use crate::identity::revocation::RevocationScope;
use crate::identity::signature::signing_key;
use crate::identity::{PublicIdentity, RootId, SecretSection};
use crate::suite::{Backend, hybrid_sig};
use crate::wire::Writer;

/// First part of the book signature's context.
pub(crate) const CONTEXT_LABEL: &[u8] = b"nexusq/contacts/v1";

/// The composite signature's context: `"nexusq/contacts/v1" || owner || u32be(g) || u64be(t)`.
pub fn context(owner: &RootId, generation: u32, signed_at: u64) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(CONTEXT_LABEL)
        .bytes(&owner.0)
        .u32(generation)
        .u64(signed_at);
    w.into_inner()
}

/// Sign `body` with the newest generation of the unlocked vault.
pub fn sign(
    backend: &dyn Backend,
    vault: &PublicIdentity,
    secrets: &SecretSection,
    body: &[u8],
    signed_at: u64,
    rnd: &[u8; 32],
) -> Result<SealBlock> {
    let (cert, seeds) = signing_key(vault, secrets)?;
    let ctx = context(&vault.root_id(), cert.generation, signed_at);
    let digest = hybrid_sig::prehash(body);
    let signature =
        hybrid_sig::sign_prehashed(backend, &seeds.mldsa_xi, &seeds.ed25519, &digest, &ctx, rnd)
            .map_err(|_| Error::io("cannot sign the contacts book", "this is a bug in nexusq"))?;
    // A fault must not leave a book that the next read refuses.
    if !hybrid_sig::verify_prehashed(
        backend,
        &cert.keys.mldsa65_ed25519,
        &digest,
        &ctx,
        &signature,
    ) {
        return Err(Error::io(
            "the contacts book's new signature does not verify (a hardware or software fault)",
            "try again; the book was not changed",
        ));
    }
    Ok(SealBlock {
        generation: cert.generation,
        signed_at,
        signature,
    })
}

/// Why a book does not verify (the caller adds the path and the exit code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SealFault {
    /// Authentic as signed, by a generation of this vault whose signing key was revoked since
    /// (`rotate --compromised`): whoever stole that key could have made it. The one fault
    /// `contacts recover` may set aside, with the owner's password and consent
    /// (docs/contacts.md, "After a compromise").
    Revoked {
        /// The generation that signed.
        generation: u32,
        /// The first generation whose signing key is still trusted.
        revoked_before: u32,
    },
    /// Anything else: another vault's book, an unknown generation, a bad signature.
    Untrusted(String),
}

impl std::fmt::Display for SealFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SealFault::Revoked { generation, .. } => write!(
                f,
                "it was signed by generation {generation}, whose signing key has since been \
                 revoked (a rotation after a compromise), so whoever stole that key could have \
                 made it"
            ),
            SealFault::Untrusted(why) => f.write_str(why),
        }
    }
}

/// Check the book's seal against the vault's public identity.
pub fn verify(
    backend: &dyn Backend,
    vault: &PublicIdentity,
    owner: &RootId,
    body: &[u8],
    seal: &SealBlock,
) -> std::result::Result<(), SealFault> {
    let untrusted = |why: String| SealFault::Untrusted(why);
    if *owner != vault.root_id() {
        return Err(untrusted(format!(
            "it belongs to identity {}, not to this vault's {}",
            owner.fingerprint(),
            vault.root_id().fingerprint()
        )));
    }
    let g = seal.generation;
    let cert = vault
        .certificates
        .iter()
        .find(|c| c.generation == g)
        .ok_or_else(|| {
            untrusted(format!(
                "it was signed by generation {g}, which this vault does not know"
            ))
        })?;
    let ctx = context(owner, g, seal.signed_at);
    if !hybrid_sig::verify_prehashed(
        backend,
        &cert.keys.mldsa65_ed25519,
        &hybrid_sig::prehash(body),
        &ctx,
        &seal.signature,
    ) {
        return Err(untrusted(
            "its signature does not match its contents".into(),
        ));
    }
    if !cert.verify(backend, &vault.root_pk) {
        return Err(untrusted(format!(
            "the vault's certificate of generation {g} is not signed by its root"
        )));
    }
    let by_cert = vault
        .certificates
        .iter()
        .filter(|c| g < c.signing_revoked_before && c.verify(backend, &vault.root_pk))
        .map(|c| c.signing_revoked_before);
    let by_statement = vault.revocations.iter().filter_map(|r| match r.scope {
        RevocationScope::SigningKeysBefore(n) if g < n && r.verify(backend, &vault.root_pk) => {
            Some(n)
        }
        _ => None,
    });
    if let Some(revoked_before) = by_cert.chain(by_statement).max() {
        return Err(SealFault::Revoked {
            generation: g,
            revoked_before,
        });
    }
    Ok(())
}

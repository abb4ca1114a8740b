//! Detached signatures and the policy for verifying them (docs/signature-format.md; the
//! trust rules: docs/security.md, "Signatures").
//!
//! Encoding (big-endian), armored as `SIGNATURE`, version 1 (full, [`DetachedSignature`]):
//! `"NXQS" || u8 version=1 || u16 suite=0x0011 || u16 len=32 || root_pk(32) || u64 signed_at ||
//!  u32 len || signer's certificate || u16 len=3373 || composite signature`;
//! version 2 (compact, [`CompactSignature`]): `"NXQS" || u8 version=2 || u16 suite=0x0011 ||
//! root_id(32) || u32 generation || u64 signed_at || u16 len=3373 || composite signature`.
//! A compact signature names the certificate instead of carrying it; the verifier takes it
//! from the identity it trusts. Both sign the same context, so one is the other without (or
//! with) the certificate.
//!
//! The composite signature (ML-DSA-65 + Ed25519, `suite::hybrid_sig`) covers SHA-512 of the
//! signed data with the context `"nexusq/sig/v1" || root_id(32) || u32be(g) || u64be(signed_at)`.
//! The verifier rebuilds the context from the certificate it validated under the root it
//! trusts, so a signature cannot be re-attributed to another identity, generation or time.
//! The claimed `signed_at` must lie inside the certificate's validity (created..=not_after,
//! with [`CLOCK_SKEW_SECS`] either side); `sign` refuses to make one that does not.

use super::certificate::{CLOCK_SKEW_SECS, Certificate};
use super::generation::{SecretSection, SigSeeds};
use super::peer;
use super::public::PublicIdentity;
use super::revocation::RevocationScope;
use super::root_id::{Fingerprint, RootId};
use crate::error::{Error, Result};
use crate::suite::root_sig;
use crate::suite::{Backend, SuiteId, hybrid_sig};
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};
use sha2::Sha512;
use std::io::Read;

const MAGIC: &[u8; 4] = b"NXQS";
pub const VERSION: u8 = 1;
/// The compact signature's version.
pub const COMPACT_VERSION: u8 = 2;
pub const ARMOR_KIND: &str = "SIGNATURE";
/// First part of the composite context.
pub const CONTEXT_LABEL: &[u8] = b"nexusq/sig/v1";
pub const DIGEST_LEN: usize = hybrid_sig::DIGEST_LEN;

const DEFECT_HINT: &str = "ask the signer for the signature file again; it must be the \
                           unmodified output of `nexusq sign`";

/// A decoded detached signature. Nothing in it is trusted until [`verify`] says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetachedSignature {
    /// The signer's root public key as the signature claims it (trusted only through
    /// `--expect-fingerprint`).
    pub root_pk: [u8; root_sig::PUBLIC_KEY_LEN],
    /// When the signer says it signed (Unix seconds); covered by the signature, but claimed.
    pub signed_at: u64,
    /// The certificate of the generation that signed.
    pub certificate: Certificate,
    /// The composite ML-DSA-65 + Ed25519 signature (3373 bytes).
    pub signature: Vec<u8>,
}

/// The composite signature's context: `"nexusq/sig/v1" || root_id || u32be(g) || u64be(t)`.
pub fn context(root_id: &RootId, generation: u32, signed_at: u64) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(CONTEXT_LABEL)
        .bytes(&root_id.0)
        .u32(generation)
        .u64(signed_at);
    w.into_inner()
}

/// SHA-512 of a stream, read in 64 KiB pieces (constant memory).
pub fn digest_reader(input: impl Read) -> std::io::Result<[u8; DIGEST_LEN]> {
    Ok(stream_hash::<Sha512>(input)?.into())
}

/// Any hash of a stream, read in 64 KiB pieces (constant memory): signatures' SHA-512 and
/// manifests' SHA-256.
pub fn stream_hash<H: sha2::Digest>(
    mut input: impl Read,
) -> std::io::Result<sha2::digest::Output<H>> {
    let mut h = H::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => h.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(h.finalize())
}

/// SHA-512 of data in memory.
pub fn digest(data: &[u8]) -> [u8; DIGEST_LEN] {
    hybrid_sig::prehash(data)
}

impl DetachedSignature {
    /// The root_id of the root key the signature names (not necessarily trusted).
    pub fn root_id(&self) -> RootId {
        RootId::of(&self.root_pk)
    }

    pub fn generation(&self) -> u32 {
        self.certificate.generation
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(VERSION)
            .u16(SuiteId::MlDsa65Ed25519.to_u16())
            .bytes_u16(&self.root_pk)
            .u64(self.signed_at)
            .bytes_u32(&self.certificate.encode())
            .bytes_u16(&self.signature);
        w.into_inner()
    }

    /// Strict decoding: exact lengths, no trailing bytes, never panics. Checks structure only;
    /// [`verify`] does the rest.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        expect_version(&mut r, VERSION)?;
        let root_pk: [u8; root_sig::PUBLIC_KEY_LEN] = r
            .bytes_u16("signature root key")?
            .try_into()
            .map_err(|_| DecodeError("the signature's root key has the wrong length".into()))?;
        let signed_at = r.u64("signature time")?;
        let certificate = Certificate::decode(r.bytes_u32("signer's certificate")?)?;
        let signature = composite(&mut r)?;
        r.finish("signature")?;
        if certificate.root_id != RootId::of(&root_pk) {
            return Err(DecodeError(
                "the signer's certificate names another root than the signature".into(),
            ));
        }
        Ok(DetachedSignature {
            root_pk,
            signed_at,
            certificate,
            signature,
        })
    }

    pub fn to_armor(&self) -> String {
        crate::format::armor::encode(ARMOR_KIND, &self.encode())
    }

    /// Read an armored full (version 1) signature file; any defect is exit 1. `what` names it
    /// in messages. [`Signature::parse`] reads either version.
    pub fn parse(text: &[u8], what: &str) -> Result<Self> {
        Self::decode(&unarmor(text, what)?).map_err(|e| damaged(what, e))
    }

    /// The same signature without its certificate.
    pub fn compact(&self) -> CompactSignature {
        CompactSignature {
            root_id: self.root_id(),
            generation: self.certificate.generation,
            signed_at: self.signed_at,
            signature: self.signature.clone(),
        }
    }
}

/// The magic, the given version and the suite.
fn expect_version(r: &mut Reader<'_>, want: u8) -> DecodeResult<()> {
    r.expect_tag(MAGIC, "signature")?;
    let version = r.u8("signature version")?;
    if version != want {
        return Err(DecodeError(format!(
            "signature version {version} is not supported (made by a newer nexusq?)"
        )));
    }
    let suite = r.u16("signature suite")?;
    if suite != SuiteId::MlDsa65Ed25519.to_u16() {
        return Err(DecodeError(format!(
            "signature suite {suite:#06x} is not {} (made by a newer nexusq?)",
            SuiteId::MlDsa65Ed25519.name()
        )));
    }
    Ok(())
}

/// The length-prefixed composite signature, exactly [`hybrid_sig::SIGNATURE_LEN`] bytes.
fn composite(r: &mut Reader<'_>) -> DecodeResult<Vec<u8>> {
    let signature = r.bytes_u16("composite signature")?;
    if signature.len() != hybrid_sig::SIGNATURE_LEN {
        return Err(DecodeError(format!(
            "the composite signature is {} bytes, not {}",
            signature.len(),
            hybrid_sig::SIGNATURE_LEN
        )));
    }
    Ok(signature.to_vec())
}

fn unarmor(text: &[u8], what: &str) -> Result<Vec<u8>> {
    crate::format::armor::decode_pasted(ARMOR_KIND, text).map_err(|e| {
        Error::check(
            format!("{what} is not a nexusq signature: it {}", e.0),
            DEFECT_HINT,
        )
    })
}

fn damaged(what: &str, e: DecodeError) -> Error {
    Error::check(
        format!("{what} is a damaged signature: {}", e.0),
        DEFECT_HINT,
    )
}

/// A compact (version 2) signature: the signer's root_id and generation instead of the
/// certificate. Nothing in it is trusted until [`verify_signature`] says so; it verifies only
/// against an identity that holds that generation's certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactSignature {
    /// The root_id the signature claims (its signer's fingerprint).
    pub root_id: RootId,
    pub generation: u32,
    pub signed_at: u64,
    /// The composite ML-DSA-65 + Ed25519 signature (3373 bytes).
    pub signature: Vec<u8>,
}

/// Encoded length of a compact signature (docs/signature-format.md).
pub const COMPACT_LEN: usize = 4 + 1 + 2 + 32 + 4 + 8 + 2 + hybrid_sig::SIGNATURE_LEN;

impl CompactSignature {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(COMPACT_VERSION)
            .u16(SuiteId::MlDsa65Ed25519.to_u16())
            .bytes(&self.root_id.0)
            .u32(self.generation)
            .u64(self.signed_at)
            .bytes_u16(&self.signature);
        w.into_inner()
    }

    /// Strict decoding, as for [`DetachedSignature::decode`].
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        expect_version(&mut r, COMPACT_VERSION)?;
        let root_id = RootId(r.array::<32>("signer's root_id")?);
        let generation = r.u32("signer's generation")?;
        if generation == 0 {
            return Err(DecodeError("the signer's generation is 0".into()));
        }
        let signed_at = r.u64("signature time")?;
        let signature = composite(&mut r)?;
        r.finish("signature")?;
        Ok(CompactSignature {
            root_id,
            generation,
            signed_at,
            signature,
        })
    }

    pub fn to_armor(&self) -> String {
        crate::format::armor::encode(ARMOR_KIND, &self.encode())
    }

    /// The full signature, with the certificate of the named generation that `identity`
    /// holds. Refused (exit 1, saying what is missing) when the identity is another one, or
    /// does not hold that generation.
    pub fn with_certificate(&self, identity: &PublicIdentity) -> Result<DetachedSignature> {
        let fp = self.root_id.fingerprint();
        let trusted = identity.root_id();
        if self.root_id != trusted {
            return Err(not_by(&self.root_id, &trusted));
        }
        let g = self.generation;
        let cert = identity
            .certificates
            .iter()
            .find(|c| c.generation == g)
            .ok_or_else(|| {
                let known: Vec<String> = identity
                    .certificates
                    .iter()
                    .map(|c| c.generation.to_string())
                    .collect();
                let newest = identity.newest().generation;
                fail(
                    format!(
                        "this compact signature was made with generation {g} of {fp}, but the \
                         identity you verify against holds the certificate of generation(s) {} \
                         only",
                        known.join(", ")
                    ),
                    if g > newest {
                        "get a newer export from the signer (`nexusq identity export`) and pass \
                         it with --identity"
                    } else {
                        "get an export that holds the older generations from the signer \
                         (`nexusq identity export --full-history`) and pass it with --identity"
                    },
                )
            })?;
        Ok(DetachedSignature {
            root_pk: identity.root_pk,
            signed_at: self.signed_at,
            certificate: cert.clone(),
            signature: self.signature.clone(),
        })
    }
}

/// A signature file of either version.
// Signatures exist a few at a time (one per file being checked): 280 bytes on the stack
// beside 72 cost nothing, and a Box would only add a step to every match.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signature {
    Full(DetachedSignature),
    Compact(CompactSignature),
}

impl Signature {
    /// Strict decoding of either version (the version byte chooses).
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        match bytes.get(4) {
            Some(&COMPACT_VERSION) if bytes.starts_with(MAGIC) => {
                CompactSignature::decode(bytes).map(Signature::Compact)
            }
            _ => DetachedSignature::decode(bytes).map(Signature::Full),
        }
    }

    /// Read an armored signature file of either version; any defect is exit 1.
    pub fn parse(text: &[u8], what: &str) -> Result<Self> {
        Self::decode(&unarmor(text, what)?).map_err(|e| damaged(what, e))
    }

    pub fn encode(&self) -> Vec<u8> {
        match self {
            Signature::Full(s) => s.encode(),
            Signature::Compact(s) => s.encode(),
        }
    }

    pub fn to_armor(&self) -> String {
        crate::format::armor::encode(ARMOR_KIND, &self.encode())
    }

    /// The root_id the signature names (not necessarily trusted).
    pub fn root_id(&self) -> RootId {
        match self {
            Signature::Full(s) => s.root_id(),
            Signature::Compact(s) => s.root_id,
        }
    }

    pub fn generation(&self) -> u32 {
        match self {
            Signature::Full(s) => s.generation(),
            Signature::Compact(s) => s.generation,
        }
    }

    /// When the signer says it signed.
    pub fn signed_at(&self) -> u64 {
        match self {
            Signature::Full(s) => s.signed_at,
            Signature::Compact(s) => s.signed_at,
        }
    }

    pub fn is_compact(&self) -> bool {
        matches!(self, Signature::Compact(_))
    }
}

/// The newest generation's certificate and signing seeds (superseded generations have none).
pub fn signing_key<'a>(
    public: &'a PublicIdentity,
    secrets: &'a SecretSection,
) -> Result<(&'a Certificate, &'a SigSeeds)> {
    let cert = public.newest();
    secrets
        .generations
        .last()
        .filter(|g| g.generation == cert.generation)
        .and_then(|g| g.sig.as_ref())
        .map(|seeds| (cert, seeds))
        .ok_or_else(|| {
            Error::vault(
                format!(
                    "the vault holds no signing key for its newest generation {}",
                    cert.generation
                ),
                "the vault is damaged; restore it from a backup copy",
            )
        })
}

/// Sign the data whose SHA-512 is `digest` with the given generation's key. `rnd` is ML-DSA's
/// randomness (draw it from the OS; tests pin it). The result is checked before it is returned.
pub fn sign(
    backend: &dyn Backend,
    root_pk: &[u8; root_sig::PUBLIC_KEY_LEN],
    certificate: &Certificate,
    seeds: &SigSeeds,
    digest: &[u8; DIGEST_LEN],
    signed_at: u64,
    rnd: &[u8; 32],
) -> Result<DetachedSignature> {
    let damaged = |what: &str| {
        Error::vault(
            format!("cannot sign: {what}"),
            "the vault is damaged; restore it from a backup copy",
        )
    };
    let root_id = RootId::of(root_pk);
    if certificate.root_id != root_id {
        return Err(damaged("the certificate names another root"));
    }
    let pk = hybrid_sig::public_key(backend, &seeds.mldsa_xi, &seeds.ed25519);
    if pk != certificate.keys.mldsa65_ed25519 {
        return Err(damaged(
            "the signing key does not match its certificate's public key",
        ));
    }
    if !certificate.covers_signing_time(signed_at) {
        let g = certificate.generation;
        return Err(if signed_at > certificate.not_after {
            Error::usage(
                format!(
                    "generation {g} expired on {}: verifiers refuse signatures made after that",
                    crate::time::rfc3339(certificate.not_after)
                ),
                "run `nexusq rotate` for a new generation, then sign again",
            )
        } else {
            Error::usage(
                format!(
                    "this device's clock ({}) is before generation {g} was certified ({})",
                    crate::time::rfc3339(signed_at),
                    crate::time::rfc3339(certificate.created)
                ),
                "set the clock right, then sign again",
            )
        });
    }
    let ctx = context(&root_id, certificate.generation, signed_at);
    let signature =
        hybrid_sig::sign_prehashed(backend, &seeds.mldsa_xi, &seeds.ed25519, digest, &ctx, rnd)
            .map_err(|_| damaged("the signature context is too long"))?;
    // A fault or a backend bug must not leave the house as a signature.
    if !hybrid_sig::verify_prehashed(backend, &pk, digest, &ctx, &signature) {
        return Err(Error::new(
            crate::error::Exit::Io,
            "the signature just made does not verify (a hardware or software fault)",
            "try again; if it persists, try --backend rustcrypto and report a bug",
        ));
    }
    Ok(DetachedSignature {
        root_pk: *root_pk,
        signed_at,
        certificate: certificate.clone(),
        signature,
    })
}

/// Sign with the newest generation of an unlocked identity.
pub fn sign_newest(
    backend: &dyn Backend,
    public: &PublicIdentity,
    secrets: &SecretSection,
    digest: &[u8; DIGEST_LEN],
    signed_at: u64,
    rnd: &[u8; 32],
) -> Result<DetachedSignature> {
    let (cert, seeds) = signing_key(public, secrets)?;
    sign(
        backend,
        &public.root_pk,
        cert,
        seeds,
        digest,
        signed_at,
        rnd,
    )
}

/// Where the verifier's trusted root comes from (docs/signature-format.md, section 4): never
/// from the signature alone.
#[derive(Clone, Copy, Debug)]
pub enum Trust<'a> {
    /// An identity the user gave (`--identity`, already checked by `peer::parse_export`) or
    /// the vault's own public section (its root signatures checked). With `expected`, its
    /// fingerprint must match too.
    Identity {
        identity: &'a PublicIdentity,
        expected: Option<Fingerprint>,
    },
    /// No identity: the root key carried in the signature, accepted only if its root_id
    /// matches this fingerprint (`--expect-fingerprint` alone). Revocations and newer
    /// generations cannot be known this way.
    Fingerprint(Fingerprint),
}

/// What a good signature tells the user. `signed_at` is the signer's claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub root_id: RootId,
    pub generation: u32,
    pub signed_at: u64,
    /// A newer generation than the signer's is known.
    pub superseded: bool,
    /// The newest generation known to the verifier (the signer's, when nothing newer is).
    pub newest_known: u32,
    /// The signer's certificate validity (expiry does not make a signature invalid).
    pub created: u64,
    pub not_after: u64,
}

impl Verified {
    pub fn fingerprint(&self) -> Fingerprint {
        self.root_id.fingerprint()
    }
}

fn fail(message: String, hint: &str) -> Error {
    Error::check(message, hint)
}

/// The root key to verify under and the identity it came from, after the cheap checks that
/// need neither the data nor a signature verification: the expected fingerprint, and that the
/// signature names the trusted root. Callers may run it before hashing large data.
pub fn check_signer<'a>(
    trust: Trust<'a>,
    sig: &DetachedSignature,
) -> Result<([u8; root_sig::PUBLIC_KEY_LEN], Option<&'a PublicIdentity>)> {
    let signer = sig.root_id();
    let (root_pk, identity) = match trust {
        Trust::Identity { identity, expected } => {
            if let Some(fp) = expected {
                peer::check_expected(&identity.root_id(), &[fp])?;
            }
            (identity.root_pk, Some(identity))
        }
        Trust::Fingerprint(fp) => {
            if !fp.matches(&signer) {
                return Err(fail(
                    format!(
                        "the signature was made by identity {}, not the expected {fp}",
                        signer.fingerprint()
                    ),
                    "you may have the wrong signature or the wrong fingerprint; compare \
                     fingerprints with the signer",
                ));
            }
            (sig.root_pk, None)
        }
    };
    let trusted = RootId::of(&root_pk);
    if signer != trusted {
        return Err(not_by(&signer, &trusted));
    }
    Ok((root_pk, identity))
}

fn not_by(signer: &RootId, trusted: &RootId) -> Error {
    fail(
        format!(
            "the signature was made by identity {}, not by {}",
            signer.fingerprint(),
            trusted.fingerprint()
        ),
        "if you trust that identity, verify with its export (--identity FILE); otherwise do \
         not trust the file",
    )
}

/// The cheap checks of [`check_signer`] for either version. A compact signature needs an
/// identity that holds its generation's certificate: the fingerprint alone is not enough.
pub fn check_any_signer(trust: Trust<'_>, sig: &Signature) -> Result<()> {
    match sig {
        Signature::Full(s) => check_signer(trust, s).map(|_| ()),
        Signature::Compact(s) => s.with_certificate(compact_trust(trust, s)?).map(|_| ()),
    }
}

/// The identity a compact signature takes its certificate from.
fn compact_trust<'a>(trust: Trust<'a>, sig: &CompactSignature) -> Result<&'a PublicIdentity> {
    match trust {
        Trust::Identity { identity, expected } => {
            if let Some(fp) = expected {
                peer::check_expected(&identity.root_id(), &[fp])?;
            }
            Ok(identity)
        }
        Trust::Fingerprint(fp) => {
            if !fp.matches(&sig.root_id) {
                return Err(fail(
                    format!(
                        "the signature was made by identity {}, not the expected {fp}",
                        sig.root_id.fingerprint()
                    ),
                    "you may have the wrong signature or the wrong fingerprint; compare \
                     fingerprints with the signer",
                ));
            }
            Err(fail(
                format!(
                    "this is a compact signature by {fp} (generation {}): it does not carry the \
                     signer's certificate, so the fingerprint alone cannot verify it",
                    sig.generation
                ),
                "pass the signer's export with --identity FILE (it must hold that generation), \
                 or ask the signer for a full signature (`nexusq sign` without --compact)",
            ))
        }
    }
}

/// Why a verification refused, in the classes gpg's status lines (and so git) distinguish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The signature does not hold: wrong data, a forged certificate or time, a fork.
    Bad,
    /// Made (as it claims) after its generation expired.
    ExpiredKey,
    /// Its generation's signing key, or the whole identity, was revoked.
    RevokedKey,
    /// It cannot be checked here: another signer, or a certificate the verifier lacks.
    NoKey,
}

/// A refusal: its class and the error to show.
#[derive(Debug)]
pub struct Refused {
    pub kind: Refusal,
    pub error: Error,
}

fn refused(kind: Refusal) -> impl FnOnce(Error) -> Refused {
    move |error| Refused { kind, error }
}

/// [`verify`] for either version: a compact signature is verified as the full signature it
/// is once the trusted identity supplies the certificate, so both follow the same rules.
pub fn verify_signature(
    backend: &dyn Backend,
    trust: Trust<'_>,
    sig: &Signature,
    digest: &[u8; DIGEST_LEN],
) -> Result<Verified> {
    verify_classified(backend, trust, sig, digest).map_err(|r| r.error)
}

/// [`verify_signature`], saying which kind of refusal it was.
pub fn verify_classified(
    backend: &dyn Backend,
    trust: Trust<'_>,
    sig: &Signature,
    digest: &[u8; DIGEST_LEN],
) -> std::result::Result<Verified, Refused> {
    match sig {
        Signature::Full(s) => verify_full(backend, trust, s, digest),
        Signature::Compact(s) => {
            let identity = compact_trust(trust, s).map_err(refused(Refusal::NoKey))?;
            let full = s
                .with_certificate(identity)
                .map_err(refused(Refusal::NoKey))?;
            verify_full(
                backend,
                Trust::Identity {
                    identity,
                    expected: None,
                },
                &full,
                digest,
            )
        }
    }
}

/// Verify `sig` over the data whose SHA-512 is `digest`, under the trusted root. Every refusal
/// is exit 1 with a message saying why.
pub fn verify(
    backend: &dyn Backend,
    trust: Trust<'_>,
    sig: &DetachedSignature,
    digest: &[u8; DIGEST_LEN],
) -> Result<Verified> {
    verify_full(backend, trust, sig, digest).map_err(|r| r.error)
}

fn verify_full(
    backend: &dyn Backend,
    trust: Trust<'_>,
    sig: &DetachedSignature,
    digest: &[u8; DIGEST_LEN],
) -> std::result::Result<Verified, Refused> {
    let bad = refused(Refusal::Bad);
    let (root_pk, identity) = check_signer(trust, sig).map_err(refused(Refusal::NoKey))?;
    let trusted = RootId::of(&root_pk);
    let fp = trusted.fingerprint();
    let cert = &sig.certificate;
    let g = cert.generation;
    // The cheap check first (a fraction of a millisecond, against ~15 ms for the root's
    // SLH-DSA signature): the composite signature under the key the certificate names, over
    // the context rebuilt from the trusted root_id and the certificate's generation.
    let ctx = context(&trusted, g, sig.signed_at);
    if !hybrid_sig::verify_prehashed(
        backend,
        &cert.keys.mldsa65_ed25519,
        digest,
        &ctx,
        &sig.signature,
    ) {
        return Err(bad(fail(
            format!("BAD signature: it does not match this data (signer {fp}, generation {g})"),
            "the data or the signature was modified, or they do not belong together; do not \
             trust the data",
        )));
    }
    // Then the key must be the root's: the certificate verifies under the trusted root.
    if !cert.verify(backend, &root_pk) {
        return Err(refused(Refusal::Bad)(fail(
            format!(
                "the signer's certificate (generation {g}) is not signed by the root key of {fp}"
            ),
            "the signature is forged or damaged; do not trust the file",
        )));
    }
    if g == 1 && cert.prev_hash != [0u8; 32] {
        return Err(refused(Refusal::Bad)(fail(
            format!("the certificate of generation 1 of {fp} has a non-zero prev_hash"),
            "the signature is forged or damaged; do not trust the file",
        )));
    }
    let late = sig.signed_at > cert.not_after;
    check_signing_time(cert, sig.signed_at, &fp).map_err(refused(if late {
        Refusal::ExpiredKey
    } else {
        Refusal::Bad
    }))?;
    if let Some(id) = identity {
        check_fork(backend, id, cert, &root_pk, &fp).map_err(refused(Refusal::Bad))?;
        check_revocations(backend, id, g, &root_pk, &fp).map_err(refused(Refusal::RevokedKey))?;
    }

    let newest_known = identity
        .and_then(|id| id.certificates.iter().map(|c| c.generation).max())
        .map_or(g, |n| n.max(g));
    Ok(Verified {
        root_id: trusted,
        generation: g,
        signed_at: sig.signed_at,
        superseded: newest_known > g,
        newest_known,
        created: cert.created,
        not_after: cert.not_after,
    })
}

/// Two different valid certificates for one generation, or a certificate that does not chain
/// with its known neighbours, mean the root signed conflicting histories.
fn check_fork(
    backend: &dyn Backend,
    id: &PublicIdentity,
    cert: &Certificate,
    root_pk: &[u8],
    fp: &Fingerprint,
) -> Result<()> {
    let g = cert.generation;
    let fork = |detail: String| {
        fail(
            format!(
                "{detail}: a fork in the history of {fp}; the root key may have been compromised"
            ),
            "do not trust this signature; contact the identity's owner out of band",
        )
    };
    for known in &id.certificates {
        if known.generation == g && known != cert && known.verify(backend, root_pk) {
            return Err(fork(format!(
                "the signature's certificate for generation {g} differs from the one you know"
            )));
        }
        if known.generation.checked_add(1) == Some(g) && cert.prev_hash != known.hash() {
            return Err(fork(format!(
                "the signature's certificate for generation {g} does not follow generation {}",
                known.generation
            )));
        }
        if g.checked_add(1) == Some(known.generation) && known.prev_hash != cert.hash() {
            return Err(fork(format!(
                "the known generation {} does not follow the signature's generation {g}",
                known.generation
            )));
        }
    }
    Ok(())
}

/// The claimed signing time must lie in the signer's certificate's validity: a generation
/// signs only between its certification and its expiry.
fn check_signing_time(cert: &Certificate, signed_at: u64, fp: &Fingerprint) -> Result<()> {
    if cert.covers_signing_time(signed_at) {
        return Ok(());
    }
    let g = cert.generation;
    let claimed = crate::time::rfc3339(signed_at);
    let hint = "nexusq signs only inside a generation's validity: the time was set by hand, or \
                the signer's clock was wrong; do not trust the file, and ask the signer to sign \
                again";
    let skew = CLOCK_SKEW_SECS / 60;
    Err(fail(
        if signed_at < cert.created {
            format!(
                "the signature claims to be made at {claimed} (claimed), before generation {g} \
                 of {fp} was certified on {} (more than {skew} minutes of clock skew)",
                crate::time::rfc3339(cert.created)
            )
        } else {
            format!(
                "the signature claims to be made at {claimed} (claimed), after generation {g} \
                 of {fp} expired on {} (more than {skew} minutes of clock skew)",
                crate::time::rfc3339(cert.not_after)
            )
        },
        hint,
    ))
}

/// Root-signed revocations the trusted identity carries: statements, and (certificate version
/// 2) the "signing keys before n" fact inside any certificate it knows. A relay can drop a
/// statement from an export but not that field of the certificate it hands on.
fn check_revocations(
    backend: &dyn Backend,
    id: &PublicIdentity,
    g: u32,
    root_pk: &[u8],
    fp: &Fingerprint,
) -> Result<()> {
    // The highest applicable one, so the message names the certificate that says most.
    let mut revoking: Vec<&Certificate> = id
        .certificates
        .iter()
        .filter(|c| g < c.signing_revoked_before)
        .collect();
    revoking.sort_by_key(|c| std::cmp::Reverse(c.signing_revoked_before));
    if let Some(c) = revoking.into_iter().find(|c| c.verify(backend, root_pk)) {
        let n = c.signing_revoked_before;
        let why = if c.reason.is_empty() {
            String::new()
        } else {
            format!(" ({})", crate::untrusted::escape(&c.reason))
        };
        return Err(fail(
            format!(
                "the signing key of generation {g} of {fp} was revoked: the certificate of \
                 generation {} (issued {}{why}) revokes every generation before {n}",
                c.generation,
                crate::time::rfc3339(c.created)
            ),
            "the key may have been compromised; ask the signer to sign again with their \
             current key",
        ));
    }
    for r in &id.revocations {
        let applies = match r.scope {
            RevocationScope::Identity => true,
            RevocationScope::SigningKeysBefore(n) => g < n,
        };
        if !applies || !r.verify(backend, root_pk) {
            continue;
        }
        let when = crate::time::rfc3339(r.created);
        let why = if r.reason.is_empty() {
            String::new()
        } else {
            format!(" ({})", crate::untrusted::escape(&r.reason))
        };
        return Err(match r.scope {
            RevocationScope::Identity => fail(
                format!("identity {fp} was revoked by its owner on {when}{why}"),
                "do not trust signatures from it; ask its owner how to reach them now",
            ),
            RevocationScope::SigningKeysBefore(n) => fail(
                format!(
                    "the signing key of generation {g} of {fp} was revoked on {when}{why}: \
                     its owner revoked every generation before {n}"
                ),
                "the key may have been compromised; ask the signer to sign again with their \
                 current key",
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{GenerationSecrets, NewIdentity};
    use crate::suite::rustcrypto::RustCrypto;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    fn fixture() -> &'static (NewIdentity, DetachedSignature) {
        static F: OnceLock<(NewIdentity, DetachedSignature)> = OnceLock::new();
        F.get_or_init(|| {
            let id = NewIdentity::generate(&RustCrypto, 1_000);
            let sig = sign_newest(
                &RustCrypto,
                &id.public,
                &id.secrets,
                &digest(b"data"),
                2_000,
                &[3; 32],
            )
            .unwrap();
            (id, sig)
        })
    }

    #[test]
    fn round_trip_and_layout() {
        let (id, sig) = fixture();
        let bytes = sig.encode();
        assert_eq!(&bytes[..7], b"NXQS\x01\x00\x11");
        assert_eq!(&bytes[7..9], &[0, 32]);
        assert_eq!(&bytes[9..41], &id.public.root_pk);
        assert_eq!(&bytes[41..49], &2_000u64.to_be_bytes());
        let cert = id.public.newest().encode();
        assert_eq!(&bytes[49..53], &(cert.len() as u32).to_be_bytes());
        assert_eq!(&bytes[53..53 + cert.len()], &cert[..]);
        assert_eq!(
            &bytes[53 + cert.len()..55 + cert.len()],
            &3373u16.to_be_bytes()
        );
        assert_eq!(bytes.len(), 55 + cert.len() + 3373);
        // docs/signature-format.md: 21996-byte certificate (version 2, empty reason), 25424 in
        // all.
        assert_eq!((cert.len(), bytes.len()), (21_996, 25_424));
        assert_eq!(context(&RootId([0; 32]), 1, 1).len(), 57);
        assert_eq!(&DetachedSignature::decode(&bytes).unwrap(), sig);
        let armored = sig.to_armor();
        assert!(armored.starts_with("-----BEGIN NEXUSQ SIGNATURE-----\n"));
        assert_eq!(
            &DetachedSignature::parse(armored.as_bytes(), "s").unwrap(),
            sig
        );
    }

    #[test]
    fn compact_layout_and_size() {
        let (id, sig) = fixture();
        let compact = sig.compact();
        let bytes = compact.encode();
        assert_eq!(&bytes[..7], b"NXQS\x02\x00\x11");
        assert_eq!(&bytes[7..39], &id.public.root_id().0);
        assert_eq!(&bytes[39..43], &1u32.to_be_bytes());
        assert_eq!(&bytes[43..51], &2_000u64.to_be_bytes());
        assert_eq!(&bytes[51..53], &3373u16.to_be_bytes());
        assert_eq!(&bytes[53..], &sig.signature[..]);
        assert_eq!(bytes.len(), COMPACT_LEN);
        assert_eq!(COMPACT_LEN, 3426);
        let armored = compact.to_armor();
        // docs/signature-format.md: 4704 bytes armored, under the 5000-byte budget.
        assert_eq!(armored.len(), 4704);
        assert_eq!(
            Signature::parse(armored.as_bytes(), "s").unwrap(),
            Signature::Compact(compact.clone())
        );
        assert_eq!(
            Signature::parse(sig.to_armor().as_bytes(), "s").unwrap(),
            Signature::Full(sig.clone())
        );
        // The compact form is the full one without the certificate, and back.
        assert_eq!(&compact.with_certificate(&id.public).unwrap(), sig);
        // Strict: no trailing byte, no short signature, no generation 0.
        let mut long = bytes.clone();
        long.push(0);
        assert!(CompactSignature::decode(&long).is_err());
        assert!(CompactSignature::decode(&bytes[..bytes.len() - 1]).is_err());
        let mut zero = bytes.clone();
        zero[39..43].copy_from_slice(&[0; 4]);
        assert!(CompactSignature::decode(&zero).is_err());
        let mut v3 = bytes;
        v3[4] = 3;
        let e = Signature::decode(&v3).unwrap_err();
        assert!(e.0.contains("newer nexusq"), "{e:?}");
    }

    #[test]
    fn context_layout() {
        let c = context(&RootId([9; 32]), 0x01020304, 0x05);
        assert_eq!(
            c,
            [
                b"nexusq/sig/v1".as_slice(),
                &[9; 32],
                &[1, 2, 3, 4],
                &[0, 0, 0, 0, 0, 0, 0, 5]
            ]
            .concat()
        );
    }

    #[test]
    fn verifies_and_reports() {
        let (id, sig) = fixture();
        let ok = verify(
            &RustCrypto,
            Trust::Identity {
                identity: &id.public,
                expected: None,
            },
            sig,
            &digest(b"data"),
        )
        .unwrap();
        assert_eq!(ok.root_id, id.public.root_id());
        assert_eq!(
            (ok.generation, ok.signed_at, ok.superseded),
            (1, 2_000, false)
        );
        assert_eq!(ok.not_after, id.public.newest().not_after);
        let by_fp = verify(
            &RustCrypto,
            Trust::Fingerprint(ok.fingerprint()),
            sig,
            &digest(b"data"),
        )
        .unwrap();
        assert_eq!(by_fp, ok);
        let e = verify(
            &RustCrypto,
            Trust::Identity {
                identity: &id.public,
                expected: None,
            },
            sig,
            &digest(b"datA"),
        )
        .unwrap_err();
        assert_eq!(e.exit(), crate::error::Exit::CheckFailed);
        assert!(e.message().contains("BAD signature"), "{e:?}");
    }

    #[test]
    fn streaming_digest_matches() {
        let data = vec![0xabu8; 200_000];
        assert_eq!(digest_reader(&data[..]).unwrap(), digest(&data));
    }

    #[test]
    fn signing_refuses_a_key_that_is_not_the_certificate_s() {
        let (id, _) = fixture();
        let stranger = GenerationSecrets::generate(1);
        let e = sign(
            &RustCrypto,
            &id.public.root_pk,
            id.public.newest(),
            stranger.sig.as_ref().unwrap(),
            &digest(b""),
            0,
            &[0; 32],
        )
        .unwrap_err();
        assert_eq!(e.exit(), crate::error::Exit::Vault);
        // A vault whose newest generation lost its signing seeds cannot sign.
        let mut secrets = SecretSection {
            generations: vec![GenerationSecrets::generate(1)],
        };
        secrets.generations[0].sig = None;
        assert!(signing_key(&id.public, &secrets).is_err());
    }

    #[test]
    fn revoked_identity_is_refused() {
        let (id, sig) = fixture();
        let mut public = id.public.clone();
        public.revocations.push(id.revocation.clone());
        let e = verify(
            &RustCrypto,
            Trust::Identity {
                identity: &public,
                expected: None,
            },
            sig,
            &digest(b"data"),
        )
        .unwrap_err();
        assert!(e.message().contains("revoked"), "{e:?}");
        // A revocation whose signature does not verify is ignored.
        let mut forged = id.revocation.clone();
        forged.reason = "forged".into();
        let mut public = id.public.clone();
        public.revocations.push(forged);
        assert!(
            verify(
                &RustCrypto,
                Trust::Identity {
                    identity: &public,
                    expected: None
                },
                sig,
                &digest(b"data"),
            )
            .is_ok()
        );
    }

    /// A signature with any claimed time, made with the key directly: what a holder of the
    /// signing key can produce, since `sign` refuses to.
    pub(crate) fn forge_at(id: &NewIdentity, signed_at: u64) -> DetachedSignature {
        let cert = id.public.newest();
        let seeds = id.secrets.generations[0].sig.as_ref().unwrap();
        let ctx = context(&id.public.root_id(), cert.generation, signed_at);
        let signature = hybrid_sig::sign_prehashed(
            &RustCrypto,
            &seeds.mldsa_xi,
            &seeds.ed25519,
            &digest(b"data"),
            &ctx,
            &[1; 32],
        )
        .unwrap();
        DetachedSignature {
            root_pk: id.public.root_pk,
            signed_at,
            certificate: cert.clone(),
            signature,
        }
    }

    #[test]
    fn signing_time_must_be_inside_the_certificate_s_validity() {
        let (id, _) = fixture();
        let cert = id.public.newest();
        let trust = Trust::Identity {
            identity: &id.public,
            expected: None,
        };
        let verify_at = |t: u64| verify(&RustCrypto, trust, &forge_at(id, t), &digest(b"data"));
        // Inside, and at the edges of the skew: good.
        for t in [
            cert.created,
            cert.created - CLOCK_SKEW_SECS,
            cert.not_after,
            cert.not_after + CLOCK_SKEW_SECS,
        ] {
            assert!(verify_at(t).is_ok(), "{t}");
        }
        // Backdated before the generation existed, or after it expired: refused, "claimed".
        for (t, word) in [
            (cert.created - CLOCK_SKEW_SECS - 1, "before generation 1"),
            (0, "before generation 1"),
            (cert.not_after + CLOCK_SKEW_SECS + 1, "after generation 1"),
            (u64::MAX, "after generation 1"),
        ] {
            let e = verify_at(t).unwrap_err();
            assert_eq!(e.exit(), crate::error::Exit::CheckFailed);
            assert!(
                e.message().contains(word) && e.message().contains("(claimed)"),
                "{e:?}"
            );
        }
        // Also with the fingerprint alone: the window comes from the carried certificate.
        let fp = id.public.root_id().fingerprint();
        assert!(
            verify(
                &RustCrypto,
                Trust::Fingerprint(fp),
                &forge_at(id, 0),
                &digest(b"data")
            )
            .is_err()
        );
        // `sign` does not make such a signature: exit 2, saying what to do.
        for t in [
            cert.created - CLOCK_SKEW_SECS - 1,
            cert.not_after + CLOCK_SKEW_SECS + 1,
        ] {
            let e = sign_newest(
                &RustCrypto,
                &id.public,
                &id.secrets,
                &digest(b""),
                t,
                &[0; 32],
            )
            .unwrap_err();
            assert_eq!(e.exit(), crate::error::Exit::Usage, "{e:?}");
        }
        let e = sign_newest(
            &RustCrypto,
            &id.public,
            &id.secrets,
            &digest(b""),
            cert.not_after + 86_400,
            &[0; 32],
        )
        .unwrap_err();
        assert!(e.hint().contains("nexusq rotate"), "{e:?}");
    }

    #[test]
    fn a_certificate_s_revocation_applies_without_the_statement() {
        let (id, sig1) = fixture();
        let root_id = id.public.root_id();
        let gen2 = GenerationSecrets::generate(2);
        let mut body = Certificate::issue(
            &id.root,
            &RustCrypto,
            root_id,
            2,
            1_500,
            9_000_000,
            gen2.public_keys(&RustCrypto).unwrap(),
            id.public.newest().hash(),
            "phone stolen".into(),
        );
        body.signing_revoked_before = 2;
        let cert2 = Certificate::sign(&id.root, &RustCrypto, body);
        // A plain export after `rotate --compromised`, its statement stripped by a relay.
        let stripped = PublicIdentity {
            root_pk: id.public.root_pk,
            certificates: vec![cert2.clone()],
            revocations: vec![],
        };
        let trust = |identity| Trust::Identity {
            identity,
            expected: None,
        };
        let e = verify(&RustCrypto, trust(&stripped), sig1, &digest(b"data")).unwrap_err();
        assert_eq!(e.exit(), crate::error::Exit::CheckFailed);
        assert!(
            e.message().contains("generation 1")
                && e.message().contains("certificate of generation 2")
                && e.message().contains("revokes every generation before 2"),
            "{e:?}"
        );
        // The full history too; generation 2 itself still verifies.
        let both = PublicIdentity {
            certificates: vec![id.public.newest().clone(), cert2.clone()],
            ..stripped.clone()
        };
        assert!(verify(&RustCrypto, trust(&both), sig1, &digest(b"data")).is_err());
        let sig2 = sign(
            &RustCrypto,
            &id.public.root_pk,
            &cert2,
            gen2.sig.as_ref().unwrap(),
            &digest(b"data"),
            2_000,
            &[2; 32],
        )
        .unwrap();
        assert!(verify(&RustCrypto, trust(&stripped), &sig2, &digest(b"data")).is_ok());
        // A field in a certificate that is not the root's is not obeyed (an export holding
        // one is refused on reading anyway, by parse_export).
        let mut not_roots = cert2.clone();
        not_roots.signature[100] ^= 1;
        let unsigned = PublicIdentity {
            certificates: vec![not_roots],
            ..stripped.clone()
        };
        assert!(verify(&RustCrypto, trust(&unsigned), sig1, &digest(b"data")).is_ok());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn decode_never_panics(data in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = DetachedSignature::decode(&data);
        }

        #[test]
        fn compact_mutations_never_panic(pos in 0usize..60, val: u8, cut in 0usize..3_500) {
            let (_, sig) = fixture();
            let mut b = sig.compact().encode();
            b[pos] = val;
            b.truncate(cut.max(1));
            let _ = Signature::decode(&b);
        }

        #[test]
        fn header_mutations_never_panic(pos in 0usize..64, val: u8, cut in 0usize..30_000) {
            let (_, sig) = fixture();
            let mut b = sig.encode();
            b[pos] = val;
            b.truncate(cut.max(1));
            let _ = DetachedSignature::decode(&b);
        }
    }
}

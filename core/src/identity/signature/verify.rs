//! The trust policy: a signature verifies only under a root the verifier trusts (never the
//! signature's own claim alone), with its certificate chained into the known history (no
//! fork), its generation's signing key not revoked, and its claimed time inside the
//! certificate's validity. Refusals are classed as gpg's status lines (and so git) need.

use super::{CompactSignature, DIGEST_LEN, DetachedSignature, Signature, context};
use crate::error::{Error, Result, Setting};
use crate::identity::certificate::{CLOCK_SKEW_SECS, Certificate};
use crate::identity::peer;
use crate::identity::public::PublicIdentity;
use crate::identity::revocation::RevocationScope;
use crate::identity::root_id::{Fingerprint, RootId};
use crate::suite::root_sig;
use crate::suite::{Backend, hybrid_sig};

impl CompactSignature {
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
                        "get a newer export from the signer and verify with it"
                    } else {
                        "get an export that holds the older generations (its full history) \
                         from the signer and verify with it"
                    },
                )
                .about(Setting::SignerIdentity)
            })?;
        Ok(DetachedSignature {
            root_pk: identity.root_pk,
            signed_at: self.signed_at,
            certificate: cert.clone(),
            signature: self.signature.clone(),
        })
    }
}

/// Where the verifier's trusted root comes from (docs/signature-format.md, section 4): never
/// from the signature alone.
#[derive(Clone, Copy, Debug)]
pub enum Trust<'a> {
    /// An identity the user gave (`--identity`, already checked by `peer::parse_export`) or
    /// the vault's own public section (its root signatures checked). With `expected`, its
    /// fingerprint must match too.
    Identity {
        /// The trusted identity.
        identity: &'a PublicIdentity,
        /// A fingerprint it must also have (`--expect-fingerprint`), if any.
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
    /// The signer's identity, as the trusted root names it.
    pub root_id: RootId,
    /// The generation whose key signed.
    pub generation: u32,
    /// When the signer says it signed (Unix seconds).
    pub signed_at: u64,
    /// A newer generation than the signer's is known.
    pub superseded: bool,
    /// The newest generation known to the verifier (the signer's, when nothing newer is).
    pub newest_known: u32,
    /// The signer's certificate validity (expiry does not make a signature invalid).
    pub created: u64,
    /// End of the signer's certificate validity (Unix seconds).
    pub not_after: u64,
}

impl Verified {
    /// The signer's fingerprint, for people to compare.
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
        "do not trust the file, unless you trust that identity: then verify with its export",
    )
    .about(Setting::SignerIdentity)
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
                "ask the signer for a full signature (not a compact one), or verify with the \
                 signer's export, which must hold that generation",
            )
            .about(Setting::SignerIdentity))
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
    /// The class of refusal.
    pub kind: Refusal,
    /// The error to show, saying why (exit 1).
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
    use super::super::tests::fixture;
    use super::*;
    use crate::identity::signature::{digest, sign, sign_newest};
    use crate::identity::{GenerationSecrets, NewIdentity};
    use crate::suite::rustcrypto::RustCrypto;

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
        assert_eq!(e.kind(), crate::error::ErrorKind::CheckFailed);
        assert!(e.message().contains("BAD signature"), "{e:?}");
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
            assert_eq!(e.kind(), crate::error::ErrorKind::CheckFailed);
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
            assert_eq!(e.kind(), crate::error::ErrorKind::Usage, "{e:?}");
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
        assert!(e.hint().contains("rotate"), "{e:?}");
        assert_eq!(e.step(), Some(&crate::error::Step::Rotate));
    }

    #[test]
    fn a_certificate_s_revocation_applies_without_the_statement() {
        let (id, sig1) = fixture();
        let root_id = id.public.root_id();
        let gen2 = GenerationSecrets::generate(2);
        let mut body = Certificate::issue(
            id.keys.root(),
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
        let cert2 = Certificate::sign(id.keys.root(), &RustCrypto, body);
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
        assert_eq!(e.kind(), crate::error::ErrorKind::CheckFailed);
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
}

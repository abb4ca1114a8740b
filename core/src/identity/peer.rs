//! Other people's identities: reading an export, checking it, and choosing the key to use
//! (docs/identity-format.md, sections 7 and 9; docs/security.md, "Exports").

use super::certificate::Certificate;
use super::public::{ARMOR_KIND, PublicIdentity};
use super::revocation::RevocationScope;
use super::root_id::{Fingerprint, RootId};
use crate::error::{Error, Result, Setting, Step};
use crate::suite::Backend;
use crate::suite::hybrid_kem::{self, KemLevel};

/// Decode an exported identity (strict armor), check its structure and every root signature.
/// Any defect is exit 1: it is someone else's file, not our vault.
pub fn parse_export(bytes: &[u8], what: &str, backend: &dyn Backend) -> Result<PublicIdentity> {
    let raw = crate::format::armor::decode_pasted(ARMOR_KIND, bytes)
        .map_err(|e| not_an_export(what, &e))?;
    decode_export(&raw, what, backend)
}

/// Every export in `bytes` (a file of several concatenated exports, as `--to` accepts), at
/// least one.
pub fn parse_exports(
    bytes: &[u8],
    what: &str,
    backend: &dyn Backend,
) -> Result<Vec<PublicIdentity>> {
    crate::format::armor::decode_all(ARMOR_KIND, bytes)
        .map_err(|e| not_an_export(what, &e))?
        .iter()
        .map(|raw| decode_export(raw, what, backend))
        .collect()
}

const EXPORT_HINT: &str = "ask its owner for a fresh export of their identity";

fn not_an_export(what: &str, e: &crate::format::armor::ArmorError) -> Error {
    Error::check(
        format!("{what} is not a nexusq public identity: it {}", e.0),
        EXPORT_HINT,
    )
    .suggests(Step::ExportIdentity)
}

fn decode_export(raw: &[u8], what: &str, backend: &dyn Backend) -> Result<PublicIdentity> {
    let identity = PublicIdentity::decode(raw).map_err(|e| {
        Error::check(
            format!("{what} is a damaged public identity: {}", e.0),
            EXPORT_HINT,
        )
        .suggests(Step::ExportIdentity)
    })?;
    identity.verify_signatures(backend).map_err(|e| {
        Error::check(
            format!("{what} does not verify: {}", e.0),
            "it was altered or forged; get a fresh export from its owner",
        )
    })?;
    Ok(identity)
}

/// Parse fingerprints typed by a person; a malformed one is a usage error.
pub fn parse_fingerprints(typed: &[String]) -> Result<Vec<Fingerprint>> {
    typed
        .iter()
        .map(|t| {
            Fingerprint::parse(t).ok_or_else(|| {
                Error::usage(
                    format!("\"{}\" is not a fingerprint", crate::untrusted::escape(t)),
                    "a fingerprint is 32 base32 characters, e.g. abcd-efgh-..., as its owner's \
                     identity shows it",
                )
                .suggests(Step::ShowIdentity)
            })
        })
        .collect()
}

/// With `--expect-fingerprint`, the identity must be one of the expected ones (exit 1).
pub fn check_expected(root_id: &RootId, expected: &[Fingerprint]) -> Result<()> {
    if expected.is_empty() || expected.iter().any(|fp| fp.matches(root_id)) {
        return Ok(());
    }
    Err(Error::check(
        format!(
            "the identity's fingerprint is {}, not the expected {}",
            root_id.fingerprint(),
            expected
                .iter()
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        "you may have the wrong file, or someone swapped it; compare fingerprints with its owner",
    ))
}

/// With `--expect-fingerprint`, every expected fingerprint must belong to one of the
/// recipients (exit 1, naming the first that does not): otherwise a recipient file swapped for
/// a copy of another collapses two recipients into one, and one is silently dropped.
pub fn check_all_expected_present(recipients: &[RootId], expected: &[Fingerprint]) -> Result<()> {
    let Some(missing) = expected
        .iter()
        .find(|fp| !recipients.iter().any(|id| fp.matches(id)))
    else {
        return Ok(());
    };
    let got: Vec<String> = recipients
        .iter()
        .map(|id| id.fingerprint().to_string())
        .collect();
    Err(Error::check(
        format!(
            "no recipient has the expected fingerprint {missing}; the recipients are {}",
            got.join(", ")
        ),
        "one of the recipients' exports is not the identity you expected (a copy of another, \
         or the wrong file); check each one's fingerprint",
    )
    .suggests(Step::ShowIdentity))
}

/// Is the whole identity revoked by a root-signed statement it carries?
pub fn is_revoked(identity: &PublicIdentity) -> bool {
    identity
        .revocations
        .iter()
        .any(|r| r.scope == RevocationScope::Identity)
}

/// The refusal to make something as an identity its owner has revoked: others refuse
/// `what` it makes (its signatures, its age recipient). One wording for `sign`,
/// `nexusq-git-sign` and the key agent.
pub(crate) fn revoked_owner(root_id: &RootId, what: &str) -> Error {
    Error::check(
        format!(
            "identity {} is revoked, so others refuse {what}",
            root_id.fingerprint()
        ),
        "make a new identity, in a new vault at another path",
    )
    .about(Setting::VaultPath)
}

/// The newest generation's public key for `level`, refusing revoked identities and (unless
/// allowed) expired certificates.
pub fn encryption_key(
    identity: &PublicIdentity,
    level: KemLevel,
    now: u64,
    allow_expired: bool,
) -> Result<(&Certificate, &[u8])> {
    let fp = identity.root_id().fingerprint();
    if is_revoked(identity) {
        return Err(Error::check(
            format!("identity {fp} has been revoked by its owner"),
            "do not encrypt to it; ask its owner how to reach them now",
        ));
    }
    let cert = identity.newest();
    if cert.is_expired(now) && !allow_expired {
        return Err(Error::check(
            format!(
                "generation {} of identity {fp} expired on {}",
                cert.generation,
                crate::time::rfc3339(cert.not_after)
            ),
            "get a fresh export from its owner, or allow the expired key if you must",
        )
        .about(Setting::AllowExpired));
    }
    let pk = match level {
        KemLevel::MlKem768 => &cert.keys.xwing,
        KemLevel::MlKem1024 => &cert.keys.mlkem1024_x25519,
    };
    hybrid_kem::check_public_key(level, pk).map_err(|e| {
        Error::check(
            format!("identity {fp}, generation {}: {e}", cert.generation),
            "the export is unusable; ask its owner for a fresh one",
        )
    })?;
    Ok((cert, pk))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{NewIdentity, Revocation};
    use crate::suite::rustcrypto::RustCrypto;

    #[test]
    fn expiry_revocation_and_expected_fingerprints() {
        let new = NewIdentity::generate(&RustCrypto, 1_000);
        let id = new.public.export(false);
        let not_after = id.newest().not_after;
        // Before expiry: fine; after: refused unless allowed.
        assert!(encryption_key(&id, KemLevel::MlKem768, not_after, false).is_ok());
        let err = encryption_key(&id, KemLevel::MlKem768, not_after + 1, false).unwrap_err();
        assert_eq!(err.kind(), crate::error::ErrorKind::CheckFailed);
        assert!(err.message().contains("expired") && err.hint().contains("fresh export"));
        assert!(encryption_key(&id, KemLevel::MlKem1024, not_after + 1, true).is_ok());
        // Revoked identity: refused even when allowed to be expired.
        let mut revoked = id.clone();
        revoked.revocations.push(new.revocation.clone());
        assert!(is_revoked(&revoked));
        assert!(encryption_key(&revoked, KemLevel::MlKem768, 1_000, true).is_err());
        // Expected fingerprints.
        let fp = id.root_id().fingerprint();
        let typed = vec![fp.to_string().to_uppercase().replace('-', "")];
        check_expected(&id.root_id(), &parse_fingerprints(&typed).unwrap()).unwrap();
        let other = NewIdentity::generate(&RustCrypto, 1)
            .public
            .root_id()
            .fingerprint();
        assert!(check_expected(&id.root_id(), &[other]).is_err());
        // Every expected fingerprint must be present among the recipients.
        let (a, b) = (id.root_id(), other_id());
        check_all_expected_present(&[a, b], &[a.fingerprint(), b.fingerprint()]).unwrap();
        check_all_expected_present(&[a], &[]).unwrap();
        let e = check_all_expected_present(&[a], &[a.fingerprint(), b.fingerprint()]).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::CheckFailed);
        assert!(
            e.message().contains(&b.fingerprint().to_string()),
            "names the missing one: {e:?}"
        );
        // A fingerprint given twice is still one expectation.
        check_all_expected_present(&[a], &[a.fingerprint(), a.fingerprint()]).unwrap();
        assert_eq!(
            parse_fingerprints(&["not-a-fingerprint".into()])
                .unwrap_err()
                .kind(),
            crate::error::ErrorKind::Usage
        );
        let _: &Revocation = &new.revocation;
    }

    fn other_id() -> RootId {
        RootId([0x5a; 32])
    }

    #[test]
    fn export_defects_are_exit_1() {
        let new = NewIdentity::generate(&RustCrypto, 1_000);
        let armored = new.public.export(false).to_armor();
        assert!(parse_export(armored.as_bytes(), "x", &RustCrypto).is_ok());
        // Truncations spread over the armored text (armor.rs tests every one).
        // Only the final line ending may go (docs/cli.md, "Armor as people paste it"); a cut into
        // the END line or anything before it is refused.
        assert!(parse_export(&armored.as_bytes()[..armored.len() - 1], "x", &RustCrypto).is_ok());
        for cut in (0..armored.len() - 1)
            .step_by(97)
            .chain([armored.len() - 2])
        {
            let e = parse_export(&armored.as_bytes()[..cut], "x", &RustCrypto).unwrap_err();
            assert_eq!(e.kind(), crate::error::ErrorKind::CheckFailed);
        }
        // Flips inside the decoded identity, re-armored so only the inner checks see them.
        let raw = new.public.export(false).encode();
        for i in (0..raw.len()).step_by(raw.len() / 300) {
            let mut b = raw.clone();
            b[i] ^= 0x04;
            let text = crate::format::armor::encode(ARMOR_KIND, &b);
            let e = parse_export(text.as_bytes(), "x", &RustCrypto).unwrap_err();
            assert_eq!(
                e.kind(),
                crate::error::ErrorKind::CheckFailed,
                "flip at {i}"
            );
        }
    }
}

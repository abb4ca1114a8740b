//! What an upload to the directory is, read and checked before anything stored is looked at:
//! a nexusq export (every root signature verified), a bare revocation statement (verified
//! once the identity it names is found), or an RFC 9980 certificate (public parts only, a
//! post-quantum primary key). A refusal carries the stable [`ErrorCode`] the server answers
//! with, so that the server decides nothing of its own about what is acceptable.

use super::api::{ErrorCode, Outcome};
use super::rules::Judgement;
use crate::format::armor;
use crate::format::openpgp::book;
use crate::identity::public::{self, PublicIdentity};
use crate::identity::revocation::{self, Revocation};
use crate::identity::{Fingerprint, RootId};
use crate::suite::Backend;
use sequoia_openpgp::Cert;
use sequoia_openpgp::policy::StandardPolicy;

/// An upload, read and checked as far as it can be on its own.
#[derive(Debug)]
pub enum Upload {
    /// A nexusq export whose every signature verified under its own root.
    Export(PublicIdentity),
    /// A revocation statement; its signature is checked against the identity it names
    /// ([`judge_statement`]).
    Revocation(Revocation),
    /// An OpenPGP certificate, public parts only, with a post-quantum primary key.
    Certificate(Box<Cert>),
}

/// An upload the directory refuses, with the code it answers with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unaccepted {
    /// The stable code.
    pub code: ErrorCode,
    /// What was wrong, for people.
    pub message: String,
}

impl Unaccepted {
    fn new(code: ErrorCode, message: impl Into<String>) -> Unaccepted {
        Unaccepted {
            code,
            message: message.into(),
        }
    }
}

/// Read an upload: a certificate, a revocation statement or an export, by its first bytes.
pub fn read(bytes: &[u8], backend: &dyn Backend) -> Result<Upload, Unaccepted> {
    if book::looks_like_openpgp_key(bytes) {
        return read_certificate(bytes);
    }
    if let Ok(raw) = armor::decode_pasted(revocation::ARMOR_KIND, bytes) {
        let statement = Revocation::decode(&raw).map_err(|e| {
            Unaccepted::new(
                ErrorCode::Unreadable,
                format!("a damaged revocation statement: {}", e.0),
            )
        })?;
        return Ok(Upload::Revocation(statement));
    }
    let raw = armor::decode_pasted(public::ARMOR_KIND, bytes).map_err(|e| {
        Unaccepted::new(
            ErrorCode::Unreadable,
            format!(
                "neither a nexusq export, a revocation statement nor an OpenPGP certificate: \
                 it {}",
                e.0
            ),
        )
    })?;
    let identity = PublicIdentity::decode(&raw).map_err(|e| {
        Unaccepted::new(ErrorCode::Unreadable, format!("a damaged export: {}", e.0))
    })?;
    identity.verify_signatures(backend).map_err(|e| {
        Unaccepted::new(
            ErrorCode::Forged,
            format!("the export does not verify under its own root: {}", e.0),
        )
    })?;
    Ok(Upload::Export(identity))
}

fn read_certificate(bytes: &[u8]) -> Result<Upload, Unaccepted> {
    if book::looks_like_secret_key(bytes) {
        return Err(Unaccepted::new(
            ErrorCode::NotAccepted,
            "a secret key: the directory takes public certificates only",
        ));
    }
    let cert = book::read_update(bytes, "the upload")
        .map_err(|e| Unaccepted::new(ErrorCode::Unreadable, e.message()))?;
    let algo = cert.primary_key().key().pk_algo();
    if !crate::format::openpgp::is_post_quantum(algo) {
        return Err(Unaccepted::new(
            ErrorCode::NotAccepted,
            format!(
                "the certificate's primary key is {}, not a post-quantum algorithm of RFC 9980",
                book::algorithm_name(algo)
            ),
        ));
    }
    Ok(Upload::Certificate(Box::new(cert)))
}

/// The nexusq fingerprint of the identity a statement names.
pub fn statement_fingerprint(statement: &Revocation) -> Fingerprint {
    RootId(statement.root_id.0).fingerprint()
}

/// Judge a bare revocation statement against the identity it names: added when its root
/// signed it (never removed after), unchanged when already held.
pub fn judge_statement(
    stored: &PublicIdentity,
    statement: Revocation,
    backend: &dyn Backend,
) -> Result<Judgement, Unaccepted> {
    let mut merged = stored.clone();
    let added = crate::identity::rotation::publish_revocation(&mut merged, statement, backend)
        .map_err(|e| Unaccepted::new(ErrorCode::Forged, e.message()))?;
    let outcome = if added {
        Outcome::Revocations
    } else {
        Outcome::Unchanged
    };
    Ok(Judgement::Accepted { merged, outcome })
}

/// What to store for a certificate upload, given the stored one (its bytes as
/// [`book::encode`] wrote them), and what it did. The first upload must carry a primary key
/// binding that verifies; later ones are merged by the book's rules, which never drop a
/// signature and refuse another primary key.
pub fn judge_certificate(
    stored: Option<&[u8]>,
    incoming: &Cert,
    now: u64,
) -> Result<(Vec<u8>, Outcome), Unaccepted> {
    let internal = |e: crate::error::Error| Unaccepted::new(ErrorCode::Internal, e.message());
    let Some(stored) = stored else {
        let policy = StandardPolicy::new();
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(now);
        incoming.with_policy(&policy, at).map_err(|e| {
            Unaccepted::new(
                ErrorCode::Forged,
                format!("the certificate's primary key has no valid self-signature: {e}"),
            )
        })?;
        return Ok((book::encode(incoming).map_err(internal)?, Outcome::First));
    };
    let (bytes, merge) = book::merge(stored, incoming, now)
        .map_err(|e| Unaccepted::new(ErrorCode::BrokenChain, e.message()))?;
    let outcome = if merge.revocations_added > 0 {
        Outcome::Revocations
    } else if merge.changed() {
        Outcome::Extended
    } else {
        Outcome::Unchanged
    };
    Ok((bytes, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{NewIdentity, RevocationScope};
    use crate::suite::rustcrypto::RustCrypto;

    const NOW: u64 = 1_800_000_000;

    #[test]
    fn an_export_a_statement_and_junk() {
        let backend = &RustCrypto;
        let alice = NewIdentity::generate(backend, NOW);
        let export = alice.public.export(true).to_armor();
        let Ok(Upload::Export(id)) = read(export.as_bytes(), backend) else {
            panic!("the export was not read as one");
        };
        assert_eq!(id, alice.public.export(true));

        let statement = alice.revocation.clone();
        let armored = armor::encode(revocation::ARMOR_KIND, &statement.encode());
        let Ok(Upload::Revocation(read_back)) = read(armored.as_bytes(), backend) else {
            panic!("the statement was not read as one");
        };
        assert_eq!(
            statement_fingerprint(&read_back),
            id.root_id().fingerprint()
        );
        let Judgement::Accepted { merged, outcome } =
            judge_statement(&id, read_back.clone(), backend).unwrap()
        else {
            panic!("a statement of its own root was refused");
        };
        assert_eq!(outcome, Outcome::Revocations);
        assert!(
            merged
                .revocations
                .iter()
                .any(|r| r.scope == RevocationScope::Identity)
        );
        let Judgement::Accepted { outcome, .. } =
            judge_statement(&merged, read_back, backend).unwrap()
        else {
            panic!("a statement held already was refused");
        };
        assert_eq!(outcome, Outcome::Unchanged);

        let bob = NewIdentity::generate(backend, NOW);
        let err = judge_statement(&bob.public, statement, backend).unwrap_err();
        assert_eq!(err.code, ErrorCode::Forged);

        let err = read(b"hello", backend).unwrap_err();
        assert_eq!(err.code, ErrorCode::Unreadable);
    }

    #[test]
    fn a_flipped_signature_byte_is_forged() {
        let backend = &RustCrypto;
        let alice = NewIdentity::generate(backend, NOW);
        let mut raw = alice.public.export(true).encode();
        let last = raw.len() - 1;
        raw[last] ^= 1;
        let armored = armor::encode(public::ARMOR_KIND, &raw);
        let err = read(armored.as_bytes(), backend).unwrap_err();
        assert!(
            matches!(err.code, ErrorCode::Forged | ErrorCode::Unreadable),
            "{err:?}"
        );
    }
}

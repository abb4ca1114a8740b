//! Whom a file is encrypted to: every `--to` export or contact read and verified, what the
//! contacts book knows applied (docs/contacts.md), repeats of one identity collapsed to one
//! recipient (the newest generation among them, a revocation seen in any of them), forks
//! refused, `--expect-fingerprint` checked both ways, the recipient cap, and `--to-self`.
//! Shared by both file formats and by `encapsulate`.

use super::Context;
use super::contacts_cmd::Resolved;
use super::error::{Error, Result};
use nexusq_core::contacts::naming::Named;
use nexusq_core::format::nexusq::MAX_RECIPIENTS;
use nexusq_core::identity::{Certificate, PublicIdentity, peer};
use std::path::{Path, PathBuf};

/// One recipient after reading, checking and collapsing the exports.
pub(super) struct Peer {
    /// The identity whose newest generation is used, and where it came from.
    pub(super) resolved: Resolved,
    /// Every certificate seen for this identity, in any of its exports, with where (to detect
    /// forks).
    certificates: Vec<(Certificate, String)>,
}

impl Peer {
    pub(super) fn identity(&self) -> &PublicIdentity {
        &self.resolved.identity
    }
}

/// "encrypting to alice (FP, generation 3) with SUITE, from file x.asc": who, and where from.
pub(super) fn recipient_line(verb: &str, r: &Resolved, generation: u32, suite: &str) -> String {
    let who = r.who(generation);
    let from = match r.file_label() {
        _ if r.own => " (your own identity)".to_string(),
        Some(file) => format!(", from {file}"),
        None => String::new(),
    };
    format!("{verb} to {who} with {suite}{from}")
}

/// One `--to` value and what it names, resolved once per command.
pub(super) struct To<'c> {
    /// The value as given.
    pub(super) value: PathBuf,
    /// What it names: a contact, a file, or an age key string.
    pub(super) named: Named<'c>,
}

/// Is this `--to` value an age key string rather than a file?
pub(super) fn is_key_string(to: &Path) -> bool {
    to.to_str()
        .is_some_and(|s| s.starts_with("age1") || s.starts_with("ssh-"))
}

/// Name every `--to` value once (docs/contacts.md, "Names where recipients and signers are
/// named"). An age key string is a key, whatever else its text could name, as `encrypt`
/// reads it; it costs no look at the book.
pub(super) fn name_all<'c>(ctx: &'c Context, values: &[PathBuf]) -> Result<Vec<To<'c>>> {
    values
        .iter()
        .map(|value| {
            let named = if is_key_string(value) {
                Named::AgeKey
            } else {
                super::contacts_cmd::resolve(ctx, value)?
            };
            Ok(To {
                value: value.clone(),
                named,
            })
        })
        .collect()
}

/// Read every export the `--to` values name and collapse repeats of one identity.
pub(super) fn read_recipients(
    ctx: &Context,
    to: &[To<'_>],
    expect_fingerprint: &[String],
) -> Result<Vec<Peer>> {
    let expected = peer::parse_fingerprints(expect_fingerprint)?;
    let mut peers: Vec<Peer> = Vec::new();
    for t in to {
        // A file (which may hold several concatenated exports: a team's keys in one file), or
        // a contact by name (docs/contacts.md); either way with what the book knows applied.
        for resolved in super::contacts_cmd::identities_named(ctx, &t.value, t.named.clone())? {
            let name = resolved.source();
            let root_id = resolved.identity.root_id();
            peer::check_expected(&root_id, &expected).map_err(|e| e.context(&name))?;
            let certificates: Vec<(Certificate, String)> = resolved
                .identity
                .certificates
                .iter()
                .map(|c| (c.clone(), name.clone()))
                .collect();
            let Some(seen) = peers.iter_mut().find(|p| p.identity().root_id() == root_id) else {
                peers.push(Peer {
                    resolved,
                    certificates,
                });
                continue;
            };
            for (cert, _) in &certificates {
                if let Some((_, other)) = seen
                    .certificates
                    .iter()
                    .find(|(c, _)| c.generation == cert.generation && c != cert)
                {
                    return Err(Error::check(
                        format!(
                            "{other} and {name} hold two different certificates for generation \
                             {} of identity {}: a fork, which may mean its root key was \
                             compromised",
                            cert.generation,
                            root_id.fingerprint()
                        ),
                        "do not encrypt to it; compare the exports with their owner out of band",
                    ));
                }
            }
            seen.certificates.extend(certificates);
            ctx.out.note(&format!(
                "{name} is the same identity ({}) as {}; encrypting to it once",
                root_id.fingerprint(),
                seen.resolved.source()
            ));
            // The newest generation known wins, and so does a revocation seen in any export.
            let newer = resolved.identity.newest().generation > seen.identity().newest().generation;
            if peer::is_revoked(&resolved.identity) || (newer && !peer::is_revoked(seen.identity()))
            {
                seen.resolved = resolved;
            }
        }
    }
    let ids: Vec<_> = peers.iter().map(|p| p.identity().root_id()).collect();
    peer::check_all_expected_present(&ids, &expected)?;
    if peers.len() > MAX_RECIPIENTS {
        return Err(Error::usage(
            format!(
                "{} recipients; a file can be encrypted to at most {}",
                peers.len(),
                MAX_RECIPIENTS
            ),
            "split the recipients over several files",
        ));
    }
    Ok(peers)
}

/// `encrypt --to-self`: the vault's own identity (its public part, checked against the root)
/// as one more recipient, unless a `--to` export already names it.
pub(super) fn add_own_identity(ctx: &Context, peers: &mut Vec<Peer>) -> Result<()> {
    let path = ctx.vault_path()?;
    let identity = nexusq_core::vault::open(&path)?.public;
    identity.verify_signatures(ctx.backend()?).map_err(|e| {
        Error::vault(
            format!("the vault's public identity does not verify: {}", e.0),
            "the vault is damaged or was tampered with; restore it from a backup",
        )
    })?;
    if peers
        .iter()
        .any(|p| p.identity().root_id() == identity.root_id())
    {
        return Ok(());
    }
    let certificates = identity
        .certificates
        .iter()
        .map(|c| (c.clone(), "your own identity".to_string()))
        .collect();
    peers.push(Peer {
        resolved: Resolved {
            identity,
            contact: None,
            file: Some(path),
            own: true,
        },
        certificates,
    });
    if peers.len() > MAX_RECIPIENTS {
        return Err(Error::usage(
            format!(
                "{} recipients with --to-self; at most {}",
                peers.len(),
                MAX_RECIPIENTS
            ),
            "split the recipients over several files",
        ));
    }
    Ok(())
}

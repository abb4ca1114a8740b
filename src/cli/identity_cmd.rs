//! `nexusq identity export`.

use super::Context;
use super::error::{Error, Result};
use nexusq_core::fs::Access;
use nexusq_core::vault::{self, Argon2id};
use serde_json::json;
use std::io::IsTerminal;
use std::path::Path;

/// What `identity export` was asked for.
pub struct ExportOptions {
    pub full_history: bool,
    pub unlock: bool,
    pub age: bool,
    pub force: bool,
}

pub fn export(ctx: &Context, output: Option<&Path>, opts: ExportOptions) -> Result<()> {
    let ExportOptions {
        full_history,
        unlock,
        age,
        force,
    } = opts;
    let path = ctx.vault_path()?;
    let file = vault::open(&path)?;
    // A revoked identity's export is exactly what its owner must hand out: it carries the
    // revocation. Only its age recipient, which carries nothing, is refused.
    if age {
        let policy = nexusq_core::Policy {
            allow_revoked: force,
            ..Default::default()
        };
        policy.check_not_revoked(&file.public, "its age recipient")?;
    }
    let with_password = unlock || !ctx.password_source().is_terminal();
    let backend = ctx.backend()?;
    let public = if with_password {
        let password = ctx.password(false)?;
        let public = file.unlock(&password, &Argon2id, backend)?.file.public;
        nexusq_core::vault::seen::remember_here(&path, &public);
        public
    } else {
        file.public
    };
    // Cheap insurance either way: every certificate must carry the root's signature.
    nexusq_core::vault::check_public(&public, backend)?;
    let fp = public.root_id().fingerprint().to_string();
    // Without the password the public part is not authenticated: warn only when it is not
    // what the last unlock here authenticated (docs/vault-format.md, "Exports without the
    // password").
    if !with_password && !nexusq_core::vault::seen::known_here(&path, &public) {
        ctx.out.warn(&format!(
            "the vault's public part is not the one last unlocked on this device (it changed \
             since, or was never unlocked here), and this export was made without the \
             password, so it is not authenticated; check that the fingerprint is {fp}, or pass \
             --unlock"
        ));
    }
    if age {
        return super::age_cmd::export_recipient(ctx, &public, output);
    }
    if super::state::identity_revoked(&public) {
        ctx.out.warn(&format!(
            "identity {fp} is revoked: this export carries the revocation; share it so others \
             stop trusting the identity"
        ));
    }
    let exported = public.export(full_history);
    let text = exported.to_armor();
    let generation = exported.newest().generation;
    match output {
        Some(o) if o != Path::new("-") => {
            super::io::write_output(Some(o), text.as_bytes(), Access::Public)?;
            let mut j = json!({
                "fingerprint": fp,
                "generation": generation,
                "output": o.display().to_string(),
                "authenticated": with_password,
            });
            super::output::path_bytes(&mut j, &[("output", o)]);
            ctx.out.json(&j);
            ctx.out.note(&format!(
                "wrote the public identity ({fp}, generation {generation}) to {}",
                super::output::untrusted_path(o)
            ));
        }
        _ => {
            if ctx.global.json {
                ctx.out.json(&json!({
                    "fingerprint": fp,
                    "generation": generation,
                    "armor": true,
                    "export": text,
                    "authenticated": with_password,
                }));
            } else {
                ctx.out.raw(&text)?;
            }
        }
    }
    Ok(())
}

/// One generation's certificate as `identity show` and `identity history` report it.
fn certificate_json(c: &nexusq_core::identity::Certificate, now: u64) -> serde_json::Value {
    json!({
        "generation": c.generation,
        "created": super::output::time(c.created),
        "not_after": super::output::time(c.not_after),
        "expired": c.is_expired(now),
        "reason": c.reason,
        "certificate_version": c.version,
        "revokes_signing_keys_before": (c.signing_revoked_before > 0).then_some(c.signing_revoked_before),
    })
}

/// How `identity show` and `identity history` show a certificate's own revocation field.
fn revokes_text(c: &nexusq_core::identity::Certificate) -> String {
    if c.signing_revoked_before == 0 {
        String::new()
    } else {
        format!(
            "; revokes the signing keys of generations before {}",
            c.signing_revoked_before
        )
    }
}

/// A reason as human output shows it: escaped and capped (someone else wrote it).
fn reason_text(reason: &str, sep: &str) -> String {
    if reason.is_empty() {
        String::new()
    } else {
        format!("{sep}reason: {}", super::output::untrusted(reason))
    }
}

fn scope_text(scope: nexusq_core::identity::RevocationScope) -> String {
    match scope {
        nexusq_core::identity::RevocationScope::Identity => "identity".to_string(),
        nexusq_core::identity::RevocationScope::SigningKeysBefore(g) => {
            format!("signing keys before generation {g}")
        }
    }
}

/// `nexusq identity show FILE`: what someone's export says, to compare out of band.
pub fn show(ctx: &Context, file: &Path) -> Result<()> {
    match super::recipients::resolve(ctx, file)? {
        nexusq_core::contacts::naming::Named::File(path)
            if super::openpgp_cmd::is_cert_file(&path) =>
        {
            return super::openpgp_cmd::show(ctx, &path);
        }
        nexusq_core::contacts::naming::Named::Contact(c)
            if super::openpgp_cmd::show_contact(ctx, c)? =>
        {
            return Ok(());
        }
        _ => {}
    }
    let resolved = super::recipients::read_identity(ctx, file)?;
    let identity = &resolved.identity;
    let now = nexusq_core::time::now();
    let fp = identity.root_id().fingerprint().to_string();
    let revoked = nexusq_core::identity::peer::is_revoked(identity);
    let full_history = identity.check_full_history().is_ok();
    let generations: Vec<serde_json::Value> = identity
        .certificates
        .iter()
        .map(|c| certificate_json(c, now))
        .collect();
    let revocations: Vec<serde_json::Value> = identity
        .revocations
        .iter()
        .map(|r| {
            json!({
                "scope": scope_text(r.scope),
                "created": super::output::time(r.created),
                "reason": r.reason,
            })
        })
        .collect();
    let mut j = json!({
        "fingerprint": fp,
        "root_suite": nexusq_core::suite::SuiteId::SlhDsaShake128f.name(),
        "generation": identity.newest().generation,
        "generations": generations,
        "full_history": full_history,
        "revoked": revoked,
        "revocations": revocations,
        "signatures": "valid",
        // The OpenPGP fingerprint hashes the oldest certificate's time: known only from a
        // complete history (docs/openpgp.md, "Fingerprints").
        "openpgp_fingerprint": full_history
            .then(|| nexusq_core::format::openpgp::keys::fingerprint(identity).to_hex()),
    });
    super::recipients::json_into(&resolved, &mut j);
    ctx.out.json(&j);
    let mut text = format!(
        "fingerprint: {fp}\nroot:        {} (all certificates verify)\nsource:      {}{}\n",
        nexusq_core::suite::SuiteId::SlhDsaShake128f.name(),
        resolved.source(),
        if resolved.contact.is_some() && resolved.file.is_some() {
            " (with what the contacts book knows of it)"
        } else {
            ""
        }
    );
    for c in &identity.certificates {
        text.push_str(&format!(
            "generation {}: created {}, valid until {}{}{}{}\n",
            c.generation,
            super::output::time(c.created),
            super::output::time(c.not_after),
            if c.is_expired(now) { " (expired)" } else { "" },
            revokes_text(c),
            reason_text(&c.reason, ", "),
        ));
    }
    if full_history {
        text.push_str("history:     complete from generation 1, chain verified\n");
        text.push_str(&format!(
            "openpgp:     {} (as `nexusq identity export --openpgp` names it)\n",
            super::openpgp_cmd::fingerprint(identity)
        ));
    }
    for r in &identity.revocations {
        text.push_str(&format!(
            "REVOKED:     {} ({}){}\n",
            scope_text(r.scope),
            super::output::time(r.created),
            reason_text(&r.reason, ", "),
        ));
    }
    text.push_str("Compare the fingerprint with its owner over a channel you trust.");
    ctx.out.data(&text);
    if revoked {
        ctx.out
            .warn(&format!("identity {fp} has been revoked by its owner"));
    }
    Ok(())
}

/// `nexusq identity history`: every generation of this vault, with the chain check.
pub fn history(ctx: &Context) -> Result<()> {
    let path = ctx.vault_path()?;
    let file = vault::open(&path)?;
    let public = &file.public;
    let backend = ctx.backend()?;
    // Structure (root, order, no fork, prev_hash chain) was checked when the vault was read;
    // here also the full history from generation 1 and every root signature.
    // A vault recovered from a plain export begins at that export's generation
    // (docs/recovery.md); its chain is checked from there.
    let first = if file.has_master() {
        public.certificates[0].generation
    } else {
        1
    };
    let chain = public
        .check_history_from(first)
        .and_then(|_| public.verify_signatures(backend))
        .map_err(|e| e.0);
    let now = nexusq_core::time::now();
    let newest = public.newest().generation;
    let states = super::state::generations(public, now, None);
    let revoked = super::state::identity_revoked(public);
    let rows: Vec<serde_json::Value> = public
        .certificates
        .iter()
        .zip(&states)
        .map(|(c, st)| {
            let mut row = certificate_json(c, now);
            row["status"] = json!(if c.generation == newest {
                "newest"
            } else {
                "superseded"
            });
            super::state::merge_into(&mut row, st, revoked);
            row
        })
        .collect();
    let fp = public.root_id().fingerprint().to_string();
    ctx.out.json(&json!({
        "fingerprint": fp,
        "generations": rows,
        "chain_verified": chain.is_ok(),
        "chain_error": chain.as_ref().err(),
        "revoked": revoked,
        "revocation_count": public.revocations.len(),
    }));
    let mut text = format!("fingerprint: {fp}\n");
    for (c, st) in public.certificates.iter().zip(&states) {
        text.push_str(&format!(
            "generation {:>3}  {}  valid until {}{}  {}{}{}{}\n",
            c.generation,
            super::output::time(c.created),
            super::output::time(c.not_after),
            if c.is_expired(now) { " (expired)" } else { "" },
            if c.generation == newest {
                "newest"
            } else {
                "superseded"
            },
            revokes_text(c),
            reason_text(&c.reason, "  "),
            super::state::text(st, revoked),
        ));
    }
    text.push_str(match &chain {
        Ok(()) => "chain: every certificate is signed by the root and linked to the one before",
        Err(_) => "chain: BROKEN",
    });
    if first > 1 && chain.is_ok() {
        text.push_str(&format!(
            "\n(generations before {first} are not in this vault: it was recovered from an \
             export that began there)"
        ));
    }
    ctx.out.data(&text);
    chain.map_err(|e| {
        Error::vault(
            format!("the vault's certificate history does not verify: {e}"),
            "the vault was tampered with; restore it from a backup",
        )
    })
}

/// `nexusq identity revoke FILE`: add the statement to the vault, print the updated export.
pub fn revoke(ctx: &Context, file: &Path, output: Option<&Path>, yes: bool) -> Result<()> {
    let path = ctx.vault_path()?;
    let backend = ctx.backend()?;
    let save = ctx.save_options()?;
    let bytes = super::io::read_small(file, "a revocation statement")?;
    let hint = "pass the file `nexusq init` wrote (vault.nxq.revocation.asc or --revocation-out)";
    let raw = nexusq_core::format::armor::decode_pasted(
        nexusq_core::identity::revocation::ARMOR_KIND,
        &bytes,
    )
    .map_err(|e| {
        Error::check(
            format!(
                "{} is not a nexusq revocation statement: it {}",
                super::output::untrusted_path(file),
                e.0
            ),
            hint,
        )
    })?;
    let revocation = nexusq_core::identity::Revocation::decode(&raw).map_err(|e| {
        Error::check(
            format!(
                "{} is damaged: {}",
                super::output::untrusted_path(file),
                e.0
            ),
            hint,
        )
    })?;
    let scope = revocation.scope;
    if !yes {
        // Say exactly what is revoked, whose, and why, before the one question.
        let fp = nexusq_core::identity::RootId(revocation.root_id.0).fingerprint();
        super::prompt::confirm(
            &format!(
                "Revoke {} of identity {fp}{}, in the vault {}? Others will refuse it once \
                 they see the revocation, and it cannot be undone. [y/N] ",
                match scope {
                    nexusq_core::identity::RevocationScope::Identity =>
                        "the whole identity".to_string(),
                    s => scope_text(s),
                },
                reason_text(&revocation.reason, ", "),
                super::output::untrusted_path(&path)
            ),
            "not publishing the revocation without confirmation",
        )?;
    }
    let password = ctx.password(false)?;
    let (public, added) = vault::publish_revocation(&path, &password, &save, revocation, backend)?;
    nexusq_core::vault::seen::remember_here(&path, &public);
    super::agent_cmd::stop_after_change(ctx, &path, "the revocation");
    let text = public.export(false).to_armor();
    let fp = public.root_id().fingerprint().to_string();
    // The updated export is some 30 KB of armor: to -o, to a pipe, or else (a terminal) to a
    // file beside the vault, named in the message.
    let beside = export_beside(&path);
    let written = match output.filter(|o| *o != Path::new("-")) {
        Some(o) => {
            super::io::write_output(Some(o), text.as_bytes(), Access::Public)?;
            Some(o.to_path_buf())
        }
        None if ctx.global.json => None,
        None if output.is_none() && std::io::stdout().is_terminal() => {
            nexusq_core::fs::replace(&beside, text.as_bytes(), Access::Public)?;
            Some(beside)
        }
        None => {
            ctx.out.raw(&text)?;
            None
        }
    };
    if let Some(o) = &written {
        ctx.out.note(&format!(
            "wrote the updated export (it carries the revocation) to {}",
            super::output::untrusted_path(o)
        ));
    }
    let whole = scope == nexusq_core::identity::RevocationScope::Identity;
    ctx.out.json(&json!({
        "fingerprint": fp,
        "revoked": whole,
        "scope": scope_text(scope),
        "newly_added": added,
        "armor": true,
        "export": text,
        "output": written.as_ref().map(|o| o.display().to_string()),
    }));
    let already = if added { "" } else { " (it already was)" };
    let share = if written.is_some() {
        "share that export"
    } else {
        "share the export above"
    };
    match scope {
        nexusq_core::identity::RevocationScope::Identity => ctx.out.warn(&format!(
            "identity {fp} is now marked revoked{already}; {share} so others stop trusting it"
        )),
        nexusq_core::identity::RevocationScope::SigningKeysBefore(g) => ctx.out.warn(&format!(
            "the signing keys of generations before {g} of identity {fp} are now marked \
             revoked{already}; the identity itself is not revoked, and generation {g} and \
             later stay trusted; {share} so others refuse the old keys"
        )),
    }
    Ok(())
}

/// Where `identity revoke` writes the updated export when stdout is a terminal:
/// `<vault>.export.asc`, beside `<vault>.revocation.asc`.
fn export_beside(vault: &Path) -> std::path::PathBuf {
    let mut name = vault.as_os_str().to_os_string();
    name.push(".export.asc");
    std::path::PathBuf::from(name)
}

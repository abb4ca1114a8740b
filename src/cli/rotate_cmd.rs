//! `nexusq rotate`.

use super::Context;
use super::args::RotateArgs;
use super::error::{Error, Result};
use nexusq_core::contacts::store::{self, Carried};
use nexusq_core::identity::rotation::{self, MAX_VALIDITY_DAYS, OptionDefect, RotateOptions};
use nexusq_core::vault;
use serde_json::json;

/// What retiring cannot erase, for a vault whose keys derive from a master secret
/// (docs/security.md, "Recovery words and forward secrecy").
fn retire_caveat(file: &vault::VaultFile) -> &'static str {
    if file.backups.handed_out() {
        " Your recovery words were handed out: whoever holds the phrase (or enough shares) can \
         still derive these keys, and so can this vault's master secret."
    } else if file.has_master() {
        " This vault's master secret can still derive these keys (it is what a recovery phrase \
         carries), so a thief with the vault and its password could too."
    } else {
        " Copies of the vault made before now still hold them."
    }
}

/// Ask on the terminal before erasing keys; without a terminal, `--yes` is required.
fn confirm_retire(generations: &str, caveat: &str) -> Result<()> {
    super::prompt::confirm(
        &format!(
            "Erase the decapsulation keys of generations {generations} from this vault? Files \
             encrypted to them can no longer be decrypted with it.{caveat} [y/N] "
        ),
        &format!("not retiring generations {generations} without confirmation"),
    )
}

/// A defect of the options, named as the command line spells them.
fn option_error(defect: OptionDefect) -> Error {
    match defect {
        OptionDefect::Reason(defect) => Error::usage(
            format!("the reason {defect}"),
            "use a short line of plain text for --reason (it is public: it travels in exports \
             and signatures)",
        ),
        OptionDefect::Validity(days) => Error::usage(
            format!("--validity {days} is outside 1..={MAX_VALIDITY_DAYS} days"),
            "pass a number of days, e.g. --validity 180",
        ),
        OptionDefect::RetireNewest => Error::usage(
            "--retire-older-than 0 would retire the newest generation",
            "pass N >= 1: the newest N generations keep their decapsulation keys",
        ),
    }
}

pub fn run(ctx: &Context, args: &RotateArgs) -> Result<()> {
    let path = ctx.vault_path()?;
    let backend = ctx.backend()?;
    let save = ctx.save_options()?;
    let mut rotation = RotateOptions {
        reason: args.reason.clone(),
        validity_days: args.validity,
        compromised: args.compromised,
        retire_older_than: args.retire_older_than,
        confirmed_retire: None,
    };
    if let Some(defect) = rotation.defect() {
        return Err(option_error(defect));
    }
    // Read the public part first: a missing or damaged vault fails before any prompt.
    let current = vault::open(&path)?;
    if let Some(n) = args.retire_older_than
        && !args.yes
    {
        // What the user agrees to here is checked again under the vault's lock: a rotation in
        // between (a scheduled job) changes the set, and then nothing is done.
        let planned = rotation::retire_set(&current.public, n);
        if !planned.is_empty() {
            let gens: Vec<String> = planned.iter().map(u32::to_string).collect();
            confirm_retire(&gens.join(", "), retire_caveat(&current))?;
        }
        rotation.confirmed_retire = Some(planned);
    }
    let password = ctx.password(false)?;
    let now = nexusq_core::time::now();
    // The contacts book is signed by the vault's signing key: checked with the key that signed
    // it and signed again with the new one in the same locked operation, so that a compromise
    // rotation does not leave it refused (docs/contacts.md, "After a compromise").
    let book = ctx.book_path()?;
    let (report, public, carried) = vault::rotate_with(
        &path,
        &password,
        &save,
        &rotation,
        backend,
        now,
        |before, vault| {
            store::carry_over(
                &book,
                &save,
                before,
                &vault.file.public,
                &vault.secrets,
                backend,
                now,
            )
        },
    )?;
    nexusq_core::vault::seen::remember_here(&path, &public);
    super::agent_cmd::stop_after_change(ctx, &path, "the rotation");
    let book_json = match &carried {
        Ok(Carried::NoBook) => json!(null),
        Ok(Carried::Resealed { contacts, from, to }) => {
            if args.compromised {
                ctx.out.note(&format!(
                    "the contacts book ({contacts} contact(s)) was checked with generation \
                     {from}'s key and signed with generation {to}'s; if you think the thief \
                     changed it, look it over with `nexusq contacts list`"
                ));
            }
            json!({"carried_over": true, "contacts": contacts, "signed_by_generation": to})
        }
        Err(e) => {
            let e = super::error::Error::from(e.clone());
            ctx.out.warn(&format!(
                "the contacts book was left as it was: {} ({})",
                e.message(),
                e.hint()
            ));
            json!({"carried_over": false, "error": e.message()})
        }
    };
    let fp = public.root_id().fingerprint().to_string();
    ctx.out.json(&json!({
        "fingerprint": fp,
        "generation": report.generation,
        "not_after": super::output::time(report.not_after),
        "reason": args.reason,
        "retired": report.retired,
        "revoked_signing_keys_before": report.revoked_signing_before,
        "contacts_book": book_json,
    }));
    ctx.out.data(&format!(
        "rotated {fp} to generation {}, valid until {}",
        report.generation,
        super::output::time(report.not_after)
    ));
    if !report.retired.is_empty() {
        ctx.out.note(&format!(
            "retired generations {:?}: their decapsulation keys are erased from this vault (not from backups{})",
            report.retired,
            if current.has_master() {
                ", nor from what the recovery words derive"
            } else {
                ""
            }
        ));
    }
    if let Some(g) = report.revoked_signing_before {
        ctx.out.note(&format!(
            "revoked the signing keys of generations before {g}; the revocation travels in your next export"
        ));
    }
    if nexusq_core::identity::peer::is_revoked(&public) {
        ctx.out.warn(&format!(
            "identity {fp} is revoked: the new generation does not change that, and others \
             will refuse it; make a new identity with `nexusq init --vault NEW`"
        ));
    } else {
        ctx.out.note(
            "Re-export your identity (`nexusq identity export`) and share it so others use the new keys.",
        );
    }
    Ok(())
}

//! `nexusq identity export`.

use super::Context;
use crate::error::{Error, Result};
use crate::vault::{self, Argon2id, atomic};
use serde_json::json;
use std::path::Path;

pub fn export(
    ctx: &Context,
    output: Option<&Path>,
    full_history: bool,
    unlock: bool,
) -> Result<()> {
    let path = ctx.vault_path()?;
    let file = vault::open(&path)?;
    let with_password = unlock || !ctx.password_source().is_terminal();
    let public = if with_password {
        let backend = ctx.backend()?;
        let password = ctx.password(false)?;
        file.unlock(&password, &Argon2id, backend)?.file.public
    } else {
        file.public
    };
    // Cheap insurance either way: every certificate must carry the root's signature.
    public.verify_signatures().map_err(|e| {
        Error::vault(
            format!("the vault's public identity does not verify: {}", e.0),
            "the vault is damaged or was tampered with; restore it from a backup",
        )
    })?;
    let fp = public.root_id().fingerprint().to_string();
    if !with_password {
        ctx.out.warn(&format!(
            "exported from the vault's public part without a password, so it is not \
             authenticated; check that the fingerprint is {fp} (or pass --unlock to check it)"
        ));
    }
    let exported = public.export(full_history);
    let text = exported.to_armor();
    let generation = exported.newest().generation;
    match output {
        Some(o) if o != Path::new("-") => {
            atomic::replace(o, text.as_bytes())?;
            ctx.out.json(&json!({
                "fingerprint": fp,
                "generation": generation,
                "output": o.display().to_string(),
                "authenticated": with_password,
            }));
            ctx.out.note(&format!(
                "wrote the public identity ({fp}, generation {generation}) to {}",
                o.display()
            ));
        }
        _ => {
            if ctx.global.json {
                ctx.out.json(&json!({
                    "fingerprint": fp,
                    "generation": generation,
                    "armor": text,
                    "authenticated": with_password,
                }));
            } else {
                print!("{text}");
            }
        }
    }
    Ok(())
}

pub fn show(_ctx: &Context, _file: &Path) -> Result<()> {
    Err(Error::usage("not yet", "see README.md"))
}

//! `nexusq init`: create the vault, the identity and its revocation statement.

use super::error::{Error, Result};
use super::kdf_options::{kdf_json, kdf_params};
use super::{Context, output};
use nexusq_core::format::armor;
use nexusq_core::identity::revocation;
use nexusq_core::time::now;
use nexusq_core::vault::{self, KdfParams, storage};
use std::path::Path;

pub fn run(ctx: &Context, args: &super::args::InitArgs) -> Result<()> {
    let path = ctx.vault_path()?;
    let backend = ctx.backend()?;
    let opts = ctx.save_options()?;
    // Everything that can be refused is refused before the password is asked for.
    if let Ok(meta) = std::fs::metadata(&path)
        && (meta.is_dir() || meta.len() == 0)
    {
        // Not a vault: say what is there rather than "a vault already exists".
        let what = if meta.is_dir() {
            "a folder"
        } else {
            "an empty (0-byte) file"
        };
        return Err(Error::usage(
            format!(
                "{} is {what}, not a vault; it was left untouched",
                nexusq_core::untrusted::path(&path)
            ),
            "remove it if it is not needed, or pass --vault PATH to create the vault elsewhere",
        ));
    }
    if path.exists() {
        return Err(Error::usage(
            format!(
                "a vault already exists at {}; it was left untouched",
                path.display()
            ),
            "use it (`nexusq vault open`), or pass --vault PATH to create another one elsewhere",
        ));
    }
    let folder = nexusq_core::fs::parent_folder(&path).to_path_buf();
    if !folder.exists() {
        let chosen_by_user = ctx.global.vault.is_some()
            || std::env::var_os("NEXUSQ_VAULT").is_some_and(|v| !v.is_empty());
        if chosen_by_user {
            return Err(Error::usage(
                format!("the folder {} does not exist", folder.display()),
                "create it first, or choose another --vault path",
            ));
        }
        create_private_dir(&folder)?;
    }
    vault::check_save_location(&path, &opts)?;
    let revocation_out = args
        .revocation_out
        .clone()
        .unwrap_or_else(|| storage::revocation_path(&path));
    let to_stdout = revocation_out == Path::new("-");
    if !to_stdout && revocation_out.exists() {
        return Err(Error::usage(
            format!("{} already exists", revocation_out.display()),
            "move it away or pass --revocation-out FILE",
        ));
    }
    if to_stdout && ctx.global.json {
        return Err(Error::usage(
            "--revocation-out - and --json both want stdout",
            "write the revocation statement to a file with --revocation-out FILE",
        ));
    }
    let params = kdf_params(&ctx.out, &args.kdf, KdfParams::for_new_vault())?;
    let password = ctx.password(true)?;
    ctx.out
        .note("creating the identity (SLH-DSA root, generation 1) and the vault...");
    let wrote_revocation = std::cell::Cell::new(false);
    let created = vault::create(&path, &password, params, &opts, backend, now(), |rev| {
        let text = armor::encode(revocation::ARMOR_KIND, &rev.encode());
        if to_stdout {
            ctx.out.raw(&text)?;
            Ok(())
        } else {
            nexusq_core::fs::create_new(
                &revocation_out,
                text.as_bytes(),
                nexusq_core::fs::Access::Public,
            )?;
            wrote_revocation.set(true);
            Ok(())
        }
    });
    let created = match created {
        Ok(created) => created,
        Err(e) => {
            // The statement revokes an identity that never reached the disk; left behind, it
            // would make the retry refuse ("already exists"). Kept if the vault is in place.
            if wrote_revocation.get() && std::fs::symlink_metadata(&path).is_err() {
                let _ = std::fs::remove_file(&revocation_out);
            }
            return Err(e.into());
        }
    };
    nexusq_core::vault::seen::remember_here(&path, &created.public);
    let fp = created.public.root_id().fingerprint().to_string();
    let cert = created.public.newest();
    let mut j = serde_json::json!({
        "vault": path.display().to_string(),
        "fingerprint": fp,
        "generation": cert.generation,
        "created": output::time(created.created),
        "not_after": output::time(cert.not_after),
        "kdf": kdf_json(&created.params),
        "revocation": if to_stdout { "-".to_string() } else { revocation_out.display().to_string() },
    });
    output::path_bytes(&mut j, &[("vault", &path), ("revocation", &revocation_out)]);
    ctx.out.json(&j);
    if !to_stdout {
        ctx.out.data(&format!(
            "created {}\nfingerprint: {fp}\ngeneration:  1, valid until {}",
            path.display(),
            output::time(cert.not_after)
        ));
        ctx.out.note(&format!(
            "A revocation statement for this identity is in {}.\nMove it off this phone (print \
             it, or keep it on another device) and delete it here: anyone who has it can \
             declare your identity revoked, and you need it if the phone is lost.",
            revocation_out.display()
        ));
    }
    Ok(())
}

fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io_at("create the folder", dir, &e))
}

//! `nexusq vault open | unlock | passwd`.

use super::error::Result;
use super::kdf_options::{kdf_json, kdf_params};
use super::{Context, output, state};
use nexusq_core::identity::PublicIdentity;
use nexusq_core::suite::SuiteId;
use nexusq_core::vault::{self, Argon2id, VaultFile};
use serde_json::json;

fn suites() -> Vec<&'static str> {
    [
        SuiteId::MlKem768X25519,
        SuiteId::MlKem1024X25519,
        SuiteId::MlDsa65Ed25519,
    ]
    .map(SuiteId::name)
    .to_vec()
}

fn identity_json(public: &PublicIdentity, states: &[state::GenerationState]) -> serde_json::Value {
    let cert = public.newest();
    json!({
        "fingerprint": public.root_id().fingerprint().to_string(),
        "openpgp_fingerprint": nexusq_core::format::openpgp::keys::fingerprint(public).to_hex(),
        "generation": cert.generation,
        "generations": state::rows(public, states),
        "generation_count": public.certificates.len(),
        "revoked": state::identity_revoked(public),
        "not_after": output::time(cert.not_after),
    })
}

/// A warning when the identity itself was revoked.
fn warn_revoked(ctx: &Context, public: &PublicIdentity) {
    if state::identity_revoked(public) {
        ctx.out.warn(&format!(
            "identity {} is revoked: others refuse it; make a new identity with `nexusq init --vault NEW`",
            public.root_id().fingerprint()
        ));
    }
}

pub fn open(ctx: &Context) -> Result<()> {
    let path = ctx.vault_path()?;
    ctx.warn_if_shared_storage(&path);
    let file: VaultFile = vault::open(&path)?;
    let public = &file.public;
    let cert = public.newest();
    let now = nexusq_core::time::now();
    let expired = cert.is_expired(now);
    if file.header.kdf.is_weaker_than_default() {
        ctx.out.warn(&format!(
            "the vault's password hashing ({}) is weaker than the default ({}); run `nexusq vault passwd` to strengthen it",
            file.header.kdf.describe(),
            vault::KdfParams::describe_floor()
        ));
    }
    if expired {
        ctx.out.warn(&format!(
            "generation {} expired on {}; others will refuse to encrypt to it",
            cert.generation,
            output::time(cert.not_after)
        ));
    }
    warn_revoked(ctx, public);
    let states = state::generations(public, now, None);
    let mut j = identity_json(public, &states);
    let obj = j.as_object_mut().expect("object");
    obj.insert("vault".into(), json!(path.display().to_string()));
    obj.insert("status".into(), json!("intact"));
    obj.insert("authenticated".into(), json!(false));
    obj.insert("kdf".into(), kdf_json(&file.header.kdf));
    obj.insert(
        "kdf_below_default".into(),
        json!(file.header.kdf.is_weaker_than_default()),
    );
    obj.insert("created".into(), json!(output::time(file.created)));
    obj.insert("suites".into(), json!(suites()));
    obj.insert("root_suite".into(), json!(SuiteId::SlhDsaShake128f.name()));
    obj.insert("expired".into(), json!(expired));
    obj.insert(
        "shared_storage".into(),
        json!(nexusq_core::fs::folder_is_shared_storage(&path)),
    );
    // A link (dotfiles-style) is followed: writers lock and replace the file it points to.
    let target = vault::resolve(&path)?;
    let linked = target != path;
    obj.insert(
        "target".into(),
        json!(linked.then(|| target.display().to_string())),
    );
    output::path_bytes_in(obj, &[("vault", &path)]);
    if linked {
        output::path_bytes_in(obj, &[("target", &target)]);
    }
    ctx.out.json(&j);
    ctx.out.data(&format!(
        "vault:       {}{}\nstatus:      intact (not authenticated: unlock checks it)\n\
         fingerprint: {}\nopenpgp:     {}\ngeneration:  {} ({} in history)\n\
         kdf:         {}\nsuites:      {} (root: {})\ncreated:     {}\nvalid until: {}{}\n\
         generations (retired keys show after `nexusq vault unlock`):{}",
        output::untrusted_path(&path),
        if linked {
            format!(
                "\n             a symbolic link to {}: saves replace that file, in its folder",
                output::untrusted_path(&target)
            )
        } else {
            String::new()
        },
        public.root_id().fingerprint(),
        super::openpgp_cmd::fingerprint(public),
        cert.generation,
        public.certificates.len(),
        file.header.kdf.describe(),
        suites().join(", "),
        SuiteId::SlhDsaShake128f.name(),
        output::time(file.created),
        output::time(cert.not_after),
        if expired { " (expired)" } else { "" },
        state::lines(public, &states),
    ));
    Ok(())
}

pub fn unlock(ctx: &Context) -> Result<()> {
    let path = ctx.vault_path()?;
    let backend = ctx.backend()?;
    ctx.warn_if_shared_storage(&path);
    let file = vault::open(&path)?;
    let password = ctx.password(false)?;
    let unlocked = file.unlock(&password, &Argon2id, backend)?;
    let public = unlocked.file.public.clone();
    nexusq_core::vault::seen::remember_here(&path, &public);
    let keys = unlocked.into_decryption_keys();
    let retired = |g: u32| {
        matches!(
            keys.find(g, nexusq_core::suite::hybrid_kem::KemLevel::MlKem768),
            Err(nexusq_core::identity::MissingKey::Retired)
        )
    };
    let states = state::generations(&public, nexusq_core::time::now(), Some(&retired));
    drop(keys);
    warn_revoked(ctx, &public);
    let mut j = identity_json(&public, &states);
    j.as_object_mut()
        .expect("object")
        .insert("unlocked".into(), json!(true));
    ctx.out.json(&j);
    ctx.out.data(&format!(
        "unlocked: the secret keys match the public identity\nfingerprint: {}\ngeneration:  {}{}",
        public.root_id().fingerprint(),
        public.newest().generation,
        state::lines(&public, &states),
    ));
    Ok(())
}

pub fn passwd(ctx: &Context, kdf: &super::args::KdfArgs) -> Result<()> {
    let path = ctx.vault_path()?;
    let backend = ctx.backend()?;
    let opts = ctx.save_options()?;
    // Read and check the file first so a missing or corrupted vault fails before any prompt.
    let current = vault::open(&path)?;
    // --kdf-* changes some parameters and keeps the others from this read; under the lock,
    // the vault must still hold what was read, or nothing is done.
    let (new_params, based_on) = if kdf.any() {
        (
            Some(kdf_params(&ctx.out, kdf, current.header.kdf)?),
            Some(current.header.kdf),
        )
    } else {
        (None, None)
    };
    let old = ctx.password(false)?;
    // The old password is checked before the new one is asked for (twice, at a terminal).
    nexusq_core::vault::seen::remember_here(
        &path,
        &current.unlock(&old, &Argon2id, backend)?.file.public,
    );
    let new = ctx.new_password()?;
    let params = vault::change_password(&path, &old, &new, new_params, based_on, &opts, backend)?;
    super::agent_cmd::stop_after_change(ctx, &path, "the password change");
    let mut j = json!({
        "vault": path.display().to_string(),
        "changed": true,
        "kdf": kdf_json(&params),
    });
    output::path_bytes(&mut j, &[("vault", &path)]);
    ctx.out.json(&j);
    ctx.out.data(&format!(
        "password changed for {}\nkdf: {}",
        output::untrusted_path(&path),
        params.describe()
    ));
    ctx.out
        .note("Older copies of the vault still open with the old password; delete them.");
    Ok(())
}

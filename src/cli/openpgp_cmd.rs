//! The OpenPGP side of `identity export`, `encrypt`, `decrypt`, `sign` and `verify`
//! (docs/openpgp.md): options resolved, `nexusq_core::format::openpgp` called, results shown.
//! The commands' own modules decide when a file or a recipient is OpenPGP and hand it here.

use super::Context;
use super::args::SignArgs;
use super::error::{Error, Result};
use super::io as cio;
use super::output::{untrusted, untrusted_path};
use nexusq_core::contacts::naming::Named;
use nexusq_core::format::openpgp::cert::{self, PeerCert};
use nexusq_core::format::openpgp::{self, keys, signature};
use nexusq_core::fs::Access;
use nexusq_core::identity::PublicIdentity;
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// The OpenPGP fingerprint of our certificate, as `vault open` and `identity show` print it.
pub(super) fn fingerprint(public: &PublicIdentity) -> String {
    keys::display(&keys::fingerprint(public))
}

// ---------------------------------------------------------------------------------------------
// identity export --openpgp

/// `identity export --openpgp [--user-id UID] [-o FILE]`: the certificate needs the root to
/// sign its bindings, so the vault is unlocked with its root (docs/openpgp.md, "The
/// certificate").
pub fn export(ctx: &Context, output: Option<&Path>, user_id: Option<&str>) -> Result<()> {
    if let Some(uid) = user_id {
        check_user_id(uid)?;
    }
    if let Some(o) = output.filter(|o| *o != Path::new("-")) {
        // Refused before the password is asked for, as every -o is.
        cio::create_output(Some(o), false, Access::Public)?;
    }
    let backend = ctx.backend()?;
    let unlocked = ctx.unlock()?;
    let root = unlocked.root(backend)?;
    let public = &unlocked.file.public;
    let c = cert::of_vault(public, &unlocked.secrets, root.root(), backend, user_id)?;
    let text = cert::to_armor(&c)?;
    let fp = keys::display(&c.fingerprint());
    let generations: Vec<u32> = unlocked
        .secrets
        .generations
        .iter()
        .filter(|g| g.kem.is_some())
        .map(|g| g.generation)
        .collect();
    let revoked = super::state::identity_revoked(public);
    if revoked {
        ctx.out.warn(&format!(
            "identity {fp} is revoked: the certificate carries the revocation; share it so \
             others stop trusting it"
        ));
    }
    let mut j = json!({
        "openpgp_fingerprint": c.fingerprint().to_hex(),
        "fingerprint": public.root_id().fingerprint().to_string(),
        "user_id": user_id,
        "encryption_generations": generations,
        "signing_generation": public.newest().generation,
        "revoked": revoked,
        "bytes": text.len(),
    });
    match output.filter(|o| *o != Path::new("-")) {
        Some(o) => {
            cio::write_output(Some(o), text.as_bytes(), Access::Public)?;
            j["output"] = json!(o.display().to_string());
            super::output::path_bytes(&mut j, &[("output", o)]);
            ctx.out.json(&j);
            ctx.out.note(&format!(
                "wrote the OpenPGP certificate {fp} (encryption subkeys of generation(s) {}, \
                 signing subkey of generation {}) to {}",
                join(&generations),
                public.newest().generation,
                untrusted_path(o)
            ));
        }
        None if ctx.global.json => {
            j["certificate"] = json!(text);
            ctx.out.json(&j);
        }
        None => ctx.out.raw(&text)?,
    }
    Ok(())
}

/// A user ID is one line of printable text ("Name <address>" by convention).
fn check_user_id(uid: &str) -> Result<()> {
    if uid.trim().is_empty() || uid.len() > 256 || uid.chars().any(char::is_control) {
        return Err(Error::usage(
            "--user-id must be one line of printable text, at most 256 bytes",
            "for example --user-id \"Alice <alice@example.org>\"",
        ));
    }
    Ok(())
}

fn join(gs: &[u32]) -> String {
    gs.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

// ---------------------------------------------------------------------------------------------
// encrypt

/// Does this file start like an OpenPGP certificate? A pipe (`--to <(curl …)`) is read whole
/// to tell, and kept for the read that follows (`cli::io::peek_small`). Unreadable: no;
/// reading it again says why.
pub(super) fn is_cert_file(path: &Path) -> bool {
    cio::peek_small(path, "a public identity").is_some_and(|head| openpgp::looks_like_cert(&head))
}

/// Read an OpenPGP certificate file named on the command line.
pub(super) fn read_cert(path: &Path, now: u64) -> Result<PeerCert> {
    let what = untrusted_path(path);
    let bytes = cio::read_small(path, "an OpenPGP certificate")?;
    Ok(cert::parse(&bytes, &what, now)?)
}

// ---------------------------------------------------------------------------------------------
// decrypt

// ---------------------------------------------------------------------------------------------
// sign --openpgp

/// `sign --openpgp [FILE] [-o SIG.asc]`: one armored detached v6 signature by the current
/// generation's ML-DSA-65 + Ed25519 subkey, to `-o` or stdout.
pub fn sign(ctx: &Context, args: &SignArgs) -> Result<()> {
    if args.compact || args.manifest.is_some() || args.output_dir.is_some() {
        return Err(Error::usage(
            "--openpgp signs one input: --compact, --manifest and --output-dir are nexusq's own",
            "sign one FILE (or stdin) with --openpgp, optionally -o FILE.asc",
        ));
    }
    let input = match args.inputs.as_slice() {
        [] => None,
        [one] => Some(one.as_path()),
        _ => {
            return Err(Error::usage(
                "--openpgp signs one input at a time",
                "run `nexusq sign --openpgp FILE -o FILE.asc` for each file",
            ));
        }
    };
    // At a terminal that did not ask for the armor, a named FILE's signature goes to
    // FILE.asc, as gpg --armor --detach-sign writes it.
    let beside = match args.inputs.first() {
        one if super::pipeline::unasked_terminal_output(ctx, args.output.as_deref(), one)? => one
            .map(|f| {
                let mut name = f.as_os_str().to_owned();
                name.push(".asc");
                std::path::PathBuf::from(name)
            }),
        _ => None,
    };
    let output = beside
        .as_deref()
        .or(args.output.as_deref())
        .filter(|p| *p != Path::new("-"));
    if let Some(o) = output {
        cio::create_output(Some(o), false, Access::Public)?;
    }
    let mut key = ctx.key_source(args.no_agent)?;
    if !key.has_agent() {
        ctx.check_password_source(cio::is_stdio(input), "the data to sign")?;
    }
    let mut reader = cio::open_input(input)?;
    let policy = nexusq_core::Policy {
        allow_revoked: args.force,
        ..Default::default()
    };
    key.may_sign(&policy)?;
    let now = nexusq_core::time::now();
    let newest = key.public().newest().clone();
    let mut generation = 0;
    let text = signature::sign(&mut reader, &newest, now, |digest| {
        let s = key.sign_openpgp(digest, now, &policy, ctx)?;
        generation = s.generation;
        Ok(s.signature)
    })?;
    let fp = fingerprint(key.public());
    let fp_hex = keys::fingerprint(key.public()).to_hex();
    drop(key);
    let mut j = json!({
        "format": "openpgp",
        "openpgp_fingerprint": fp_hex,
        "generation": generation,
        "signed_at": nexusq_core::time::rfc3339(now),
    });
    match output {
        Some(o) => {
            cio::write_output(Some(o), text.as_bytes(), Access::Public)?;
            j["output"] = json!(o.display().to_string());
            super::output::path_bytes(&mut j, &[("output", o)]);
            ctx.out.json(&j);
            ctx.out.note(&format!(
                "signed {} with the OpenPGP certificate {fp} (generation {generation}); \
                 signature written to {}",
                untrusted_path(Path::new(&cio::input_name(input))),
                untrusted_path(o)
            ));
        }
        None if ctx.global.json => {
            j["signature"] = json!(text);
            ctx.out.json(&j);
        }
        None => {
            let mut out = cio::create_output(None, false, Access::Public)?;
            out.write_all(text.as_bytes()).map_err(|e| {
                Error::io(
                    format!("cannot write the signature to stdout: {e}"),
                    "check where the output goes, or pass -o SIG.asc",
                )
            })?;
            out.commit()?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// verify

/// `verify [FILE] --sig SIG.asc --identity CERT.asc|@NAME` for an OpenPGP signature: good
/// only when a post-quantum key of that certificate made it (docs/openpgp.md).
pub fn verify(
    ctx: &Context,
    input: Option<&Path>,
    sig: &[u8],
    sig_name: &str,
    identity: Option<&Path>,
) -> Result<()> {
    let now = nexusq_core::time::now();
    let Some(identity) = identity else {
        return Err(Error::usage(
            format!("{sig_name} is an OpenPGP signature: name the signer's certificate"),
            "pass --identity CERT.asc (their OpenPGP certificate) or --identity @NAME (a contact \
             holding one)",
        ));
    };
    let (peer, from) = match super::recipients::resolve(ctx, identity)? {
        Named::File(path) => {
            if !is_cert_file(&path) {
                std::fs::metadata(&path).map_err(|e| Error::io_at("read", &path, &e))?;
                return Err(Error::usage(
                    format!(
                        "{} is not an OpenPGP certificate, and {sig_name} is an OpenPGP \
                         signature",
                        untrusted_path(&path)
                    ),
                    "pass the signer's OpenPGP certificate with --identity CERT.asc",
                ));
            }
            (read_cert(&path, now)?, untrusted_path(&path))
        }
        Named::Contact(c) => {
            let Some(bytes) = nexusq_core::recipients::openpgp_contact(c) else {
                return Err(Error::usage(
                    format!(
                        "contact {} holds a nexusq identity, not an OpenPGP certificate",
                        c.name
                    ),
                    "an OpenPGP signature is checked against an OpenPGP certificate",
                ));
            };
            nexusq_core::recipients::warn_unverified(c, ctx);
            (
                cert::parse(bytes, &format!("contact {}", c.name), now)?,
                format!("contact {}", c.name),
            )
        }
        Named::AgeKey => {
            return Err(Error::usage(
                "an age recipient cannot check signatures",
                "pass --identity CERT.asc",
            ));
        }
    };
    let data = cio::open_input(input)?;
    let v = signature::verify(data, sig, &peer, sig_name, now)
        .map_err(|e| Error::from(e).with_json("valid", json!(false)))?;
    let fp = keys::display(&v.fingerprint);
    let who = match peer.user_id(now) {
        Some(uid) => format!("{} ({fp})", untrusted(&uid)),
        None => fp.clone(),
    };
    let mut j = json!({
        "valid": true,
        "format": "openpgp",
        "openpgp_fingerprint": v.fingerprint.to_hex(),
        "key": v.key.to_hex(),
        "algorithm": v.algorithm.to_string(),
        "signed_at": nexusq_core::time::rfc3339(v.signed_at),
        "signed_at_claimed": true,
        "input": cio::input_name(input),
    });
    j["identity"] = json!(from);
    ctx.out.json(&j);
    ctx.out.data(&format!(
        "good OpenPGP signature from {who} by its {} key, signed at {} (claimed); certificate \
         from {from}",
        v.algorithm,
        nexusq_core::time::rfc3339(v.signed_at)
    ));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// identity show CERT.asc

/// `identity show CERT.asc`: what someone's OpenPGP certificate holds, to compare its
/// fingerprint out of band before encrypting to it.
pub fn show(ctx: &Context, path: &Path) -> Result<()> {
    let now = nexusq_core::time::now();
    show_cert(
        ctx,
        &read_cert(path, now)?,
        &path.display().to_string(),
        now,
    )
}

/// `identity show @NAME` of a contact holding an OpenPGP certificate.
pub fn show_contact(ctx: &Context, c: &nexusq_core::contacts::Contact) -> Result<bool> {
    let Some(bytes) = nexusq_core::recipients::openpgp_contact(c) else {
        return Ok(false);
    };
    let now = nexusq_core::time::now();
    let peer = cert::parse(bytes, &format!("contact {}", c.name), now)?;
    show_cert(ctx, &peer, &format!("@{}", c.name), now)?;
    Ok(true)
}

fn show_cert(ctx: &Context, peer: &PeerCert, source: &str, now: u64) -> Result<()> {
    let fp = keys::display(&peer.fingerprint());
    let uid = peer.user_id(now);
    let keys = cert::key_summaries(peer, now);
    let rows: Vec<serde_json::Value> = keys
        .iter()
        .map(|k| {
            json!({
                "fingerprint": k.fingerprint.to_hex(),
                "algorithm": k.algorithm,
                "post_quantum": k.post_quantum,
                "primary": k.primary,
                "created": super::output::time(k.created),
                "expires": k.expires.map(super::output::time),
                "usage": k.usage,
            })
        })
        .collect();
    ctx.out.json(&json!({
        "format": "openpgp",
        "openpgp_fingerprint": peer.fingerprint().to_hex(),
        "user_id": uid,
        "keys": rows,
        "identity": source,
    }));
    let mut text = format!(
        "openpgp:     {fp}\nuser ID:     {}\nsource:      {}\n",
        uid.as_deref()
            .map(untrusted)
            .unwrap_or_else(|| "(none)".into()),
        untrusted(source)
    );
    for k in &keys {
        text.push_str(&format!(
            "{} {}: {}, created {}{}{}\n",
            if k.primary { "primary:" } else { "subkey: " },
            k.algorithm,
            k.usage,
            super::output::time(k.created),
            k.expires
                .map(|t| format!(", valid until {}", super::output::time(t)))
                .unwrap_or_default(),
            if k.post_quantum { "" } else { " (classical)" },
        ));
    }
    text.push_str("Compare the fingerprint with its owner over a channel you trust.");
    ctx.out.data(&text);
    Ok(())
}

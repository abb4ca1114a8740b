//! `nexusq encapsulate` and `nexusq decapsulate`.

use super::Context;
use super::args::{DecapsulateArgs, EncapsulateArgs, KemSuiteArg};
use super::error::{Error, Result};
use super::io::{create_output, read_small};
use nexusq_core::fs::Access;
use nexusq_core::identity::envelope::{self, Envelope};
use nexusq_core::identity::{MissingKey, peer};
use nexusq_core::secret::SecretBytes;
use nexusq_core::session::DecapsulateError;
use nexusq_core::suite::hybrid_kem::{self, KemLevel};
use serde_json::json;
use std::io::Write;
use zeroize::Zeroizing;

impl KemSuiteArg {
    pub fn level(self) -> KemLevel {
        match self {
            KemSuiteArg::MlKem768X25519 => KemLevel::MlKem768,
            KemSuiteArg::MlKem1024X25519 => KemLevel::MlKem1024,
        }
    }
}

fn hex_secret(ss: &SecretBytes<32>) -> Zeroizing<String> {
    let mut s = Zeroizing::new(String::with_capacity(64));
    for b in ss.expose() {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

fn print_secret(ctx: &Context, ss: &SecretBytes<32>, extra: serde_json::Value) {
    let hex = hex_secret(ss);
    if ctx.global.json {
        let mut v = extra;
        v["shared_secret"] = json!(hex.as_str());
        ctx.out.json(&v);
    } else {
        ctx.out.data(&hex);
    }
}

pub fn encapsulate(ctx: &Context, args: &EncapsulateArgs) -> Result<()> {
    let output = args
        .output
        .as_deref()
        .filter(|p| *p != std::path::Path::new("-"));
    super::pipeline::refuse_json_to_stdout(ctx, output, "encapsulate")?;
    let backend = ctx.backend()?;
    let expected = peer::parse_fingerprints(&args.peer.expect_fingerprint)?;
    let resolved = super::recipients::read_identity(ctx, &args.to)?;
    let identity = &resolved.identity;
    let root_id = identity.root_id();
    let fp = root_id.fingerprint();
    ctx.out.note(&super::recipients::recipient_line(
        "encapsulating",
        &resolved,
        identity.newest().generation,
        args.suite.level().suite().name(),
    ));
    peer::check_expected(&root_id, &expected)?;
    peer::check_all_expected_present(&[root_id], &expected)?;
    let level = args.suite.level();
    let (cert, pk) = peer::encryption_key(
        identity,
        level,
        nexusq_core::time::now(),
        args.peer.allow_expired,
    )
    .map_err(|e| e.context(resolved.source()))?;
    let (ct, ss) = hybrid_kem::encapsulate(backend, level, pk).map_err(|e| {
        Error::check(
            format!("cannot encapsulate to {fp}: {e}"),
            "ask its owner for a fresh export",
        )
    })?;
    let bytes = if args.raw {
        ct
    } else {
        envelope::seal(level, root_id, cert.generation, &ct, &ss)
    };
    let mut out = create_output(args.output.as_deref(), true, Access::Private)?;
    out.write_all(&bytes).map_err(|e| match output {
        Some(p) => Error::io_at("write", p, &e),
        None => Error::stdout_write(&e, "redirect stdout to a file, or pass -o CT"),
    })?;
    out.commit()?;
    if output.is_none() {
        // Stdout carries the envelope: the secret goes to stderr, the terminal as a rule.
        let hex = hex_secret(&ss);
        let line = Zeroizing::new(format!("shared secret: {}", hex.as_str()));
        super::output::stderr_line(&line);
        return Ok(());
    }
    let mut j = json!({
        "fingerprint": fp.to_string(),
        "generation": cert.generation,
        "suite": level.suite().name(),
        "output": output.map(|p| p.display().to_string()),
        "raw": args.raw,
    });
    super::recipients::json_into(&resolved, &mut j);
    if let Some(p) = output {
        super::output::path_bytes(&mut j, &[("output", p)]);
    }
    print_secret(ctx, &ss, j);
    Ok(())
}

pub fn decapsulate(ctx: &Context, args: &DecapsulateArgs) -> Result<()> {
    let bytes = read_small(&args.input, "a KEM envelope")?;
    let what = super::output::untrusted_path(&args.input);
    // Decode before asking for the password, so a defective file fails at once.
    let (level, generation, ciphertext, envelope) = if args.raw {
        let level = args.suite.level();
        if bytes.len() != level.hybrid_ciphertext_len() {
            return Err(Error::check(
                format!(
                    "{what} is {} bytes, not a bare {} ciphertext ({} bytes)",
                    bytes.len(),
                    level.suite().name(),
                    level.hybrid_ciphertext_len()
                ),
                "check --suite, or drop --raw if this is an envelope",
            ));
        }
        let g = args
            .generation
            .expect("clap requires --generation with --raw");
        (level, g, bytes, None)
    } else {
        let env = Envelope::decode(&bytes).map_err(|e| {
            Error::check(
                format!("{what} is not a valid KEM envelope: {}", e.0),
                "check that this is the file `nexusq encapsulate -o` wrote, undamaged",
            )
        })?;
        (env.level, env.generation, env.ciphertext.clone(), Some(env))
    };
    let mut key = ctx.key_source(args.no_agent)?;
    let ours = key.public().root_id();
    // The recipient named in the envelope must be us: checked on the public part first.
    if let Some(env) = &envelope
        && env.root_id != ours
    {
        return Err(Error::check(
            format!(
                "{what} was made for identity {}, not for this vault's {}",
                env.root_id.fingerprint(),
                ours.fingerprint()
            ),
            "decapsulate it with the recipient's vault (--vault)",
        ));
    }
    // The agent, when it runs and holds that key; else the password.
    let ss = key
        .decapsulate(generation, level, &ciphertext, ctx)
        .map_err(|f| {
            Error::from_failure(f, |e| match e {
                DecapsulateError::Missing(MissingKey::NoSuchGeneration) => Error::check(
                    format!(
                        "{what} is for generation {generation}, which this vault does not have"
                    ),
                    "check `nexusq vault open` for the generations this vault holds",
                ),
                DecapsulateError::Missing(MissingKey::Retired) => Error::check(
                    format!(
                        "the keys of generation {generation} were retired (erased) from this \
                         vault"
                    ),
                    "files and envelopes made for retired generations can no longer be opened",
                ),
                DecapsulateError::Kem(e) => Error::check(
                    format!("{what}: {e}"),
                    "the ciphertext is damaged or forged",
                ),
            })
        })?;
    drop(key);
    finish_decapsulate(ctx, &what, &ss, envelope.as_ref(), ours, generation, level)
}

/// Check the envelope's confirmation tag, then print the secret.
fn finish_decapsulate(
    ctx: &Context,
    what: &str,
    ss: &SecretBytes<32>,
    envelope: Option<&Envelope>,
    root_id: nexusq_core::identity::RootId,
    generation: u32,
    level: KemLevel,
) -> Result<()> {
    let fingerprint = root_id.fingerprint().to_string();
    if let Some(env) = envelope
        && !env.confirms(ss)
    {
        return Err(Error::check(
            format!("{what}: the confirmation tag does not match, so no secret is printed"),
            "the envelope was altered, or made for a key this vault no longer holds; ask for a new one",
        ));
    }
    print_secret(
        ctx,
        ss,
        json!({
            "fingerprint": fingerprint,
            "generation": generation,
            "suite": level.suite().name(),
            "confirmed": envelope.is_some(),
        }),
    );
    Ok(())
}

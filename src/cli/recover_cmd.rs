//! `nexusq recover`: a new vault rebuilt from the recovery phrase or shares, with the
//! certificates of an export when one is given (docs/recovery.md). Also where `backup check`
//! and `backup kit` read words.

use super::args::{RecoverArgs, WordsArgs};
use super::error::{Error, Result};
use super::kdf_options::kdf_params;
use super::{Context, output, words_prompt};
use nexusq_core::identity::{MasterSecret, RootId};
use nexusq_core::recovery::phrase::{self, Phrase};
use nexusq_core::recovery::rebuild;
use nexusq_core::recovery::shares::{self, Share};
use nexusq_core::time::now;
use nexusq_core::vault::{self, KdfParams, VaultFile};
use serde_json::json;
use std::path::Path;

/// The words as they were given.
pub enum Parsed {
    /// The 24-word phrase.
    Phrase(Phrase),
    /// Shares, in the order given.
    Shares(Vec<Share>),
}

/// The master secret read from words, and what they were.
pub struct Read {
    pub master: MasterSecret,
    pub parsed: Parsed,
    /// "words" or "shares", for messages.
    pub from: &'static str,
}

/// Generations as "1, 2, 3" ("none" for none).
pub fn list(generations: &[u32]) -> String {
    if generations.is_empty() {
        return "none".into();
    }
    generations
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn share_file(path: &Path) -> Result<Share> {
    let text = super::io::read_text(path, "a recovery share")?;
    shares::parse(&text).map_err(|e| Error::from(e.context(output::untrusted_path(path))))
}

/// The master secret from `--phrase-file`, `--share-file`s, or typed at the terminal.
pub fn read_master(ctx: &Context, words: &WordsArgs) -> Result<Read> {
    let backend = ctx.backend()?;
    if let Some(path) = &words.phrase_file {
        let text = super::io::read_text(path, "the recovery phrase")?;
        let master = phrase::parse(&text)?;
        let parsed = Parsed::Phrase(Phrase::of(&master));
        return Ok(Read {
            master,
            parsed,
            from: "words",
        });
    }
    if !words.share_file.is_empty() {
        let list = words
            .share_file
            .iter()
            .map(|p| share_file(p))
            .collect::<Result<Vec<_>>>()?;
        let master = shares::combine(&list, backend)?;
        return Ok(Read {
            master,
            parsed: Parsed::Shares(list),
            from: "shares",
        });
    }
    if !super::password::has_terminal() {
        return Err(Error::usage(
            "no terminal to type the recovery words on",
            "give them in files: --phrase-file FILE, or --share-file FILE for each share",
        ));
    }
    if words.shares {
        let mut list: Vec<Share> = Vec::new();
        loop {
            let n = list.len() + 1;
            let text = words_prompt::read_words(&format!("Share {n}"), shares::WORDS)?;
            let share = shares::parse(&text)?;
            words_prompt::note(&format!(
                "  share {} of identity {}…, any {} of the shares rebuild it",
                share.index(),
                share.fingerprint_start(),
                share.threshold()
            ));
            let k = usize::from(share.threshold());
            list.push(share);
            if list.len() >= k {
                break;
            }
        }
        let master = shares::combine(&list, backend)?;
        return Ok(Read {
            master,
            parsed: Parsed::Shares(list),
            from: "shares",
        });
    }
    words_prompt::note(
        "Type the 24 words of the recovery phrase, one at a time (they are not shown; the \
         first four letters of a word are enough).",
    );
    let text = words_prompt::read_words("Recovery phrase", phrase::WORDS)?;
    let master = phrase::parse(&text)?;
    let parsed = Parsed::Phrase(Phrase::of(&master));
    Ok(Read {
        master,
        parsed,
        from: "words",
    })
}

/// [`read_master`], refused unless the words rebuild the identity of `file`.
pub fn read_words_for(
    ctx: &Context,
    words: &WordsArgs,
    file: &VaultFile,
) -> Result<(MasterSecret, Parsed)> {
    let read = read_master(ctx, words)?;
    let root_pk = read.master.root().public_key(ctx.backend()?);
    if root_pk != file.public.root_pk {
        return Err(Error::check(
            format!(
                "these {} rebuild identity {}, not this vault's {}",
                read.from,
                RootId::of(&root_pk).fingerprint(),
                file.public.root_id().fingerprint()
            ),
            "give the words of this vault's identity, or choose its vault with --vault",
        ));
    }
    Ok((read.master, read.parsed))
}

/// `nexusq --vault NEW recover`.
pub fn run(ctx: &Context, args: &RecoverArgs) -> Result<()> {
    let path = ctx.vault_path()?;
    let backend = ctx.backend()?;
    let opts = ctx.save_options()?;
    // Everything that can be refused is refused before any word or password is asked for.
    super::io::refuse_existing(&path, "recover into a new file: pass --vault NEW")?;
    let folder = nexusq_core::fs::parent_folder(&path).to_path_buf();
    if !folder.is_dir() {
        return Err(Error::usage(
            format!("the folder {} does not exist", folder.display()),
            "create it first, or choose another --vault path",
        ));
    }
    vault::check_save_location(&path, &opts)?;
    let export = match &args.from_export {
        Some(f) => {
            let bytes = super::io::read_small(f, "an export")?;
            Some(nexusq_core::identity::peer::parse_export(
                &bytes,
                &output::untrusted_path(f),
                backend,
            )?)
        }
        None => None,
    };
    let params = kdf_params(&ctx.out, &args.kdf, KdfParams::for_new_vault())?;
    let read = read_master(ctx, &args.words)?;
    let when = now();
    let mut rebuilt = match &export {
        Some(e) => rebuild::with_export(read.master, e, backend)?,
        None => rebuild::without_export(read.master, backend, when, 1),
    };
    if let Some(n) = args.generations {
        rebuilt.extend_to(n);
    }
    let password = ctx.new_password()?;
    let decryption_only = rebuilt.decryption_only.clone();
    let from_export = rebuilt.from_export;
    let created = vault::create_with(&path, &password, params, &opts, when, || {
        Ok(rebuilt.identity)
    })?;
    let public = &created.public;
    nexusq_core::vault::seen::remember_here(&path, public);
    let fp = public.root_id().fingerprint().to_string();
    let generations: Vec<u32> = public.certificates.iter().map(|c| c.generation).collect();
    let newest = public.newest();
    let mut j = json!({
        "vault": path.display().to_string(),
        "fingerprint": fp,
        "from": read.from,
        "from_export": from_export,
        "generations": generations,
        "decryption_only": decryption_only,
        "not_restored": ["contacts book", "agent", "revocation statement file"],
        "newest_expired": newest.not_after < when,
    });
    output::path_bytes(&mut j, &[("vault", &path)]);
    ctx.out.json(&j);
    let mut text = format!(
        "recovered {} from the {}\nfingerprint: {fp}\ngenerations: {}",
        output::untrusted_path(&path),
        read.from,
        list(&generations)
    );
    if !decryption_only.is_empty() {
        text.push_str(&format!(
            "\nfor decryption only (no certificate): {}",
            list(&decryption_only)
        ));
    }
    ctx.out.data(&text);
    if !decryption_only.is_empty() {
        ctx.out.note(&format!(
            "generations {} came back for decryption only: files sent to them open, but the \
             vault holds no certificate of them, so `identity history` and `identity export \
             --full-history` do not show them. To bring their certificates back, recover \
             again from an export made with `nexusq identity export --full-history`",
            list(&decryption_only)
        ));
    }
    if !from_export {
        ctx.out.warn(
            "without your export, generation 1 came back under a new certificate: contacts \
             who hold your old export will see two certificates for generation 1 and refuse \
             the new one. If you can get your export (a contact has it, or you published \
             it), recover again with --from-export EXPORT instead, into a new file",
        );
        if args.generations.is_none() {
            ctx.out.note(
                "only generation 1's decryption keys came back: if you had rotated, recover \
                 again with --generations N (your newest generation number) so files sent \
                 to generations 2 to N open too",
            );
        }
    } else if newest.not_after < when {
        ctx.out.warn(&format!(
            "generation {} expired on {}: run `nexusq rotate` before you send your export",
            newest.generation,
            output::time(newest.not_after)
        ));
    }
    ctx.out.note(
        "Not brought back: the contacts book (restore contacts.nxq from a copy, or add your \
         contacts again), the key agent (start it with `nexusq agent start`), and the \
         revocation statement file `init` wrote (keep the copy you moved off the phone). \
         The decryption keys of every generation listed above are back, including any you \
         had retired.",
    );
    Ok(())
}

//! `nexusq backup`: the recovery phrase, k-of-n shares, the restore drill and the printable
//! kit (docs/recovery.md). The words go to the terminal or to files of mode 0600, never to
//! stdout, `--json` or an error.

use super::error::{Error, Result};
use super::{Context, output, recover_cmd, words_prompt};
use nexusq_core::fs::Access;
use nexusq_core::recovery::{phrase::Phrase, shares};
use nexusq_core::time::now;
use nexusq_core::vault::{self, VaultFile};
use serde_json::json;
use std::path::{Path, PathBuf};

/// What the words can do, said where the user decides to make them (docs/security.md,
/// "Recovery words and forward secrecy").
pub const WHAT_THE_WORDS_DO: &str = "Anyone who has these words can rebuild your identity: \
sign as you, and decrypt every file ever sent to any of your generations, including \
generations you retire later (`rotate --retire-older-than` erases keys from the vault, not \
from the words). Keep them on paper, out of sight; never photograph them or type them into \
another device. They do not hold your contacts book or the agent's state: keep an encrypted \
copy of the vault file and the contacts book for those.";

/// A vault of format 1 has random keys: no words can rebuild them.
fn refuse_without_master(file: &VaultFile) -> Result<()> {
    if file.has_master() {
        return Ok(());
    }
    Err(Error::vault(
        "this vault was made before recovery phrases existed (vault format 1): its root key \
         and every generation's keys are random, not derived from one master secret, so no \
         phrase or shares can rebuild them",
        "back it up by keeping an encrypted copy of the vault file off the phone (it opens \
         only with your password); for an identity with a phrase, make a new vault with \
         `nexusq --vault NEW init` and send your contacts its export (docs/recovery.md)",
    ))
}

/// The unlocked vault and its root keys, after the password. For a vault that
/// [`refuse_without_master`] let through, the keys hold the master secret.
fn unlock_master(ctx: &Context) -> Result<(vault::Unlocked, nexusq_core::identity::RootKeys)> {
    let unlocked = ctx.unlock()?;
    let keys = unlocked.root(ctx.backend()?)?;
    Ok((unlocked, keys))
}

fn fingerprint(file: &VaultFile) -> String {
    file.public.root_id().fingerprint().to_string()
}

/// `nexusq backup phrase [-o FILE]`.
pub fn phrase(ctx: &Context, out_file: Option<&Path>) -> Result<()> {
    let path = ctx.vault_path()?;
    let file = vault::open(&path)?;
    refuse_without_master(&file)?;
    match out_file {
        Some(f) => {
            super::io::refuse_existing(f, "choose another file name, or move the old file away")?
        }
        None if ctx.global.json => {
            return Err(Error::usage(
                "the recovery phrase is never part of JSON output",
                "write it to a file with -o FILE; the JSON then says where",
            ));
        }
        None if !super::password::has_terminal() => {
            return Err(Error::usage(
                "the recovery phrase is shown only at a terminal",
                "write it to a file with -o FILE (mode 0600)",
            ));
        }
        None => {}
    }
    let (unlocked, keys) = unlock_master(ctx)?;
    let master = keys
        .master()
        .expect("a format 2 vault holds a master secret");
    let phrase = Phrase::of(master);
    let fp = fingerprint(&file);
    let confirmed = match out_file {
        Some(f) => {
            nexusq_core::fs::create_new(f, phrase.to_text().as_bytes(), Access::Private)?;
            false
        }
        None => {
            let heading = format!(
                "The recovery phrase of {fp}:\n\n{}",
                // A phone terminal is about 52 wide.
                super::output::wrap(WHAT_THE_WORDS_DO, 50).join("\n")
            );
            words_prompt::show(&heading, phrase.words())?;
            quiz(&phrase)
        }
    };
    let when = now();
    let record = vault::record_backup(
        &path,
        &unlocked,
        &ctx.save_options()?,
        ctx.backend()?,
        |r| {
            r.phrase_shown = when;
            if confirmed {
                r.phrase_confirmed = when;
            }
        },
    )?;
    drop(keys);
    let mut j = json!({
        "vault": path.display().to_string(),
        "fingerprint": fp,
        "words": nexusq_core::recovery::phrase::WORDS,
        "file": out_file.map(|f| f.display().to_string()),
        "confirmed": record.phrase_confirmed == when,
    });
    output::path_bytes(&mut j, &[("vault", &path)]);
    ctx.out.json(&j);
    match out_file {
        Some(f) => {
            ctx.out.data(&format!(
                "wrote the 24-word recovery phrase of {fp} to {} (mode 0600)",
                output::untrusted_path(f)
            ));
            ctx.out.note(WHAT_THE_WORDS_DO);
            ctx.out.note(
                "Copy the words to paper, delete the file, and run `nexusq backup check` to \
                 drill the recovery.",
            );
            Ok(())
        }
        None if confirmed => {
            ctx.out.data(&format!(
                "recovery phrase of {fp} written down and confirmed"
            ));
            ctx.out
                .note("Run `nexusq backup check` now and then, to drill the recovery.");
            Ok(())
        }
        None => Err(Error::check(
            "the words typed back do not match the phrase: the backup is not confirmed",
            "run `nexusq backup phrase` again and copy every word in order",
        )),
    }
}

/// Ask three words of `phrase` back, at random positions, two tries each.
fn quiz(phrase: &Phrase) -> bool {
    let positions = quiz_positions(phrase.len());
    words_prompt::note("Type three of the words back to confirm the copy.");
    let Ok(mut input) = words_prompt::hidden() else {
        return false;
    };
    for position in positions {
        let want = phrase.word(position);
        let mut ok = false;
        for _ in 0..2 {
            match words_prompt::read_word(&mut input, &format!("Word {position}: ")) {
                Ok(index) if nexusq_core::recovery::words::word(index) == want => {
                    ok = true;
                    break;
                }
                Ok(_) => words_prompt::note(&format!("  that is not word {position}")),
                Err(_) => return false,
            }
        }
        if !ok {
            return false;
        }
    }
    true
}

/// Three different positions in 1..=n, in increasing order.
fn quiz_positions(n: usize) -> Vec<usize> {
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < 3.min(n) {
        let r: [u8; 1] = nexusq_core::secret::random_array();
        let p = usize::from(r[0]) % n + 1;
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen.sort_unstable();
    chosen
}

/// `PREFIX.1` ... `PREFIX.n`.
fn share_paths(prefix: &Path, count: u8) -> Vec<PathBuf> {
    (1..=count)
        .map(|i| {
            let mut name = prefix.as_os_str().to_os_string();
            name.push(format!(".{i}"));
            PathBuf::from(name)
        })
        .collect()
}

/// `nexusq backup shares --threshold K --shares N -o PREFIX`.
pub fn shares(ctx: &Context, threshold: u8, count: u8, prefix: &Path) -> Result<()> {
    shares::check_split(threshold, count)?;
    let path = ctx.vault_path()?;
    let file = vault::open(&path)?;
    refuse_without_master(&file)?;
    let paths = share_paths(prefix, count);
    for p in &paths {
        super::io::refuse_existing(p, "choose another file name, or move the old file away")?;
    }
    let (unlocked, keys) = unlock_master(ctx)?;
    let master = keys
        .master()
        .expect("a format 2 vault holds a master secret");
    let made = shares::split(master, &file.public.root_id(), threshold, count)?;
    let mut written: Vec<&PathBuf> = Vec::new();
    for (share, p) in made.iter().zip(&paths) {
        if let Err(e) = nexusq_core::fs::create_new(p, share.to_text().as_bytes(), Access::Private)
        {
            // A partial set is useless and holds secret material: take it back.
            for w in written {
                let _ = std::fs::remove_file(w);
            }
            return Err(e.into());
        }
        written.push(p);
    }
    let when = now();
    vault::record_backup(
        &path,
        &unlocked,
        &ctx.save_options()?,
        ctx.backend()?,
        |r| {
            r.shares_written = when;
            r.shares_threshold = threshold;
            r.shares_count = count;
        },
    )?;
    let fp = fingerprint(&file);
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let mut j = json!({
        "vault": path.display().to_string(),
        "fingerprint": fp,
        "threshold": threshold,
        "shares": names,
    });
    output::path_bytes(&mut j, &[("vault", &path)]);
    ctx.out.json(&j);
    ctx.out.data(&format!(
        "wrote {count} shares of {fp} (mode 0600): {}\nany {threshold} of them rebuild the identity",
        paths
            .iter()
            .map(|p| output::untrusted_path(p))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    ctx.out.note(&format!(
        "Give each share to a different person or place and delete the files here; never keep \
         {threshold} shares together. {WHAT_THE_WORDS_DO}"
    ));
    Ok(())
}

/// `nexusq backup check`: the restore drill. Reads the words, writes nothing.
pub fn check(ctx: &Context, words: &super::args::WordsArgs) -> Result<()> {
    let path = ctx.vault_path()?;
    let file = vault::open(&path)?;
    refuse_without_master(&file)?;
    let read = recover_cmd::read_master(ctx, words)?;
    let fp = fingerprint(&file);
    let checked = nexusq_core::recovery::rebuild::check(read.master, &file.public, ctx.backend()?);
    let generations = &checked.generations;
    let theirs = checked.root_id.fingerprint().to_string();
    let mut j = json!({
        "vault": path.display().to_string(),
        "fingerprint": fp,
        "from": read.from,
        "recovers": checked.recovers,
        "generations": generations,
    });
    output::path_bytes(&mut j, &[("vault", &path)]);
    ctx.out.json(&j);
    if checked.recovers {
        ctx.out.data(&format!(
            "these {} rebuild this vault's identity {fp}: the root key and generations {}",
            read.from,
            recover_cmd::list(generations)
        ));
        Ok(())
    } else if checked.same_root {
        Err(Error::check(
            format!(
                "these {} rebuild the root of {fp} but not every generation of this vault",
                read.from
            ),
            "the vault holds generations made without the master secret; keep an encrypted \
             copy of the vault as well",
        ))
    } else {
        Err(Error::check(
            format!(
                "these {} do not rebuild this vault's identity {fp}: they rebuild {theirs}",
                read.from
            ),
            "check the words against your copy, or check that this is the right vault",
        ))
    }
}

/// `nexusq backup kit -o FILE`: one A4 page per phrase or share, HTML for a browser to print.
pub fn kit(ctx: &Context, out_file: &Path, words: &super::args::WordsArgs) -> Result<()> {
    use nexusq_core::recovery::kit::{self, Kit, Page, Sheet};
    let path = ctx.vault_path()?;
    let file = vault::open(&path)?;
    refuse_without_master(&file)?;
    super::io::refuse_existing(
        out_file,
        "choose another file name, or move the old file away",
    )?;
    let fp = fingerprint(&file);
    let made: String = output::time(now()).chars().take(10).collect();
    let mut pages = Vec::new();
    let mut unlocked = None;
    if words.any() {
        let (master, parsed) = recover_cmd::read_words_for(ctx, words, &file)?;
        drop(master);
        match parsed {
            recover_cmd::Parsed::Phrase(p) => pages.push(Page {
                sheet: Sheet::Phrase,
                words: p.words().collect(),
            }),
            recover_cmd::Parsed::Shares(list) => {
                for s in &list {
                    let count = if file.backups.shares_threshold == s.threshold() {
                        file.backups.shares_count.max(list.len() as u8)
                    } else {
                        list.len() as u8
                    };
                    pages.push(Page {
                        sheet: Sheet::Share {
                            index: s.index(),
                            threshold: s.threshold(),
                            count,
                        },
                        words: s.words().collect(),
                    });
                }
            }
        }
    } else {
        let (u, keys) = unlock_master(ctx)?;
        let master = keys
            .master()
            .expect("a format 2 vault holds a master secret");
        pages.push(Page {
            sheet: Sheet::Phrase,
            words: Phrase::of(master).words().collect(),
        });
        unlocked = Some(u);
    }
    let vault_shown = output::untrusted_path(&path);
    let html = kit::render(&Kit {
        fingerprint: &fp,
        made: &made,
        vault: &vault_shown,
        pages,
    });
    nexusq_core::fs::create_new(out_file, html.as_bytes(), Access::Private)?;
    if let Some(u) = &unlocked {
        let when = now();
        vault::record_backup(&path, u, &ctx.save_options()?, ctx.backend()?, |r| {
            r.phrase_shown = when;
        })?;
    }
    let mut j = json!({
        "vault": path.display().to_string(),
        "fingerprint": fp,
        "kit": out_file.display().to_string(),
    });
    output::path_bytes(&mut j, &[("vault", &path), ("kit", out_file)]);
    ctx.out.json(&j);
    ctx.out.data(&format!(
        "wrote the recovery kit of {fp} to {} (mode 0600)",
        output::untrusted_path(out_file)
    ));
    ctx.out.note(
        "Open it in a browser, print it (A4), check the print, then delete the file: it holds \
         the words.",
    );
    Ok(())
}

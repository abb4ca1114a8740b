//! Decrypt a nexusq, age or OpenPGP file, armored or not, to stdout:
//! `decrypt_anything VAULT FILE` (the password on stdin's first line, unless an agent serves
//! the vault).

use nexusq_core::session::AgentUse;
use nexusq_core::{BackendChoice, DecryptError, Decryptor, KeySource, KnownPassword, Policy};
use std::io::{BufRead, Write};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [vault, file] = args.as_slice() else {
        return Err("usage: VAULT FILE".into());
    };
    let mut password = String::new();
    std::io::stdin().lock().read_line(&mut password)?;
    let callbacks = KnownPassword::new(password.trim_end_matches(['\r', '\n']));
    let backend = BackendChoice::default().backend()?;
    let mut keys = KeySource::open(vault, backend, AgentUse::IfRunning, &callbacks)?;

    // The format is told from the first bytes; nothing is asked for before the header reads.
    let decryptor = Decryptor::new(std::fs::File::open(file)?)?;
    let now = nexusq_core::time::now();
    let mut plaintext = decryptor.decrypt(&mut keys, &callbacks, &Policy::default(), now)?;
    let format = plaintext.opened().format;
    // Only authenticated bytes come out; a failure part-way says what went wrong.
    std::io::copy(&mut plaintext, &mut std::io::stdout().lock())
        .map_err(|e| DecryptError::from_read(format, e))?;
    std::io::stdout().flush()?;
    let opened = plaintext.opened();
    eprintln!(
        "{format} file, opened by generation {:?}",
        opened.generation
    );
    if opened.superseded {
        eprintln!("the sender used an older generation: send them your newest export");
    }
    Ok(())
}

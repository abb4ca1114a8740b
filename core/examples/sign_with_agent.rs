//! Sign a file through the key agent when it serves the vault (no password), else with the
//! vault unlocked by the password in $VAULT_PASSWORD: `sign_with_agent VAULT FILE`, the
//! signature written to FILE.sig.

use nexusq_core::session::AgentUse;
use nexusq_core::{BackendChoice, KeySource, KnownPassword, Policy, Signer};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [vault, file] = args.as_slice() else {
        return Err("usage: VAULT FILE".into());
    };
    let backend = BackendChoice::default().backend()?;
    // Asked for only when the agent cannot serve; the notes say why it was passed over.
    let callbacks = KnownPassword::new(&std::env::var("VAULT_PASSWORD").unwrap_or_default());
    let mut keys = KeySource::open(vault, backend, AgentUse::IfRunning, &callbacks)?;
    eprintln!("agent serving the vault: {}", keys.has_agent());

    // A revoked identity is refused here, whichever path signs.
    let mut signer = Signer::new(&mut keys, Policy::default());
    let now = nexusq_core::time::now();
    let sig = signer.sign(std::fs::File::open(file)?, now, &callbacks)?;
    let mut out = file.clone().into_os_string();
    out.push(".sig");
    std::fs::write(&out, sig.to_armor())?;
    for note in callbacks.notes() {
        eprintln!("note: {note:?}");
    }
    Ok(())
}

//! Verify FILE.sig over FILE against the vault's own identity and its contacts book:
//! `verify_with_book VAULT FILE`. No password: the book is checked against the vault's public
//! identity.

use nexusq_core::identity::signature::Signature;
use nexusq_core::{BackendChoice, Verifier};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [vault, file] = args.as_slice() else {
        return Err("usage: VAULT FILE".into());
    };
    let backend = BackendChoice::default().backend()?;
    let verifier = Verifier::for_vault(vault, backend)?.with_default_book(backend)?;
    let mut sig_path = file.clone().into_os_string();
    sig_path.push(".sig");
    let sig = Signature::parse(&std::fs::read(&sig_path)?, "the signature")?;

    // The signer must be this vault's identity or a contact; anyone else is refused.
    let trusted = verifier.signer_of(&sig)?;
    let ok = trusted.verify(backend, &sig, std::fs::File::open(file)?)?;
    let who = match &trusted.contact {
        Some(c) if c.verified => format!("contact {}", c.name),
        Some(c) => format!("unverified contact {}", c.name),
        None => "your own identity".into(),
    };
    println!(
        "good signature by {who}, generation {}",
        ok.verified.generation
    );
    if ok.newer_than_book {
        println!("they signed with a generation newer than the book knows: update the contact");
    }
    Ok(())
}

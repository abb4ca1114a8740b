//! Encrypt a file to a contact of the book: `encrypt_to_contact VAULT NAME FILE OUT`. The
//! format follows the contact (nexusq's own, age for an age key, OpenPGP for a certificate).

use nexusq_core::contacts::store;
use nexusq_core::recipients::Recipients;
use nexusq_core::suite::hybrid_kem::KemLevel;
use nexusq_core::{BackendChoice, Encryptor, KnownPassword, Policy};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let [vault, name, input, output] = args()?;
    let backend = BackendChoice::default().backend()?;
    let now = nexusq_core::time::now();
    // The book is sealed by the vault's identity: read it against that (no password).
    let own = nexusq_core::vault::open(&vault)?.public;
    let book = store::load(&store::default_path(&vault), Some(&own), backend)?.book;
    let contact = book
        .get(name.to_str().unwrap_or(""))
        .ok_or("no such contact")?;

    let callbacks = KnownPassword::new("encrypting asks for no password");
    let mut to = Recipients::new(Vec::new());
    to.add_contact(contact, now, &callbacks)?;
    let to = to.finish_all()?;
    let encryptor = Encryptor::new(&to.all(), None, KemLevel::MlKem768, now, &Policy::default())?;
    let mut out = std::fs::File::create_new(&output)?;
    encryptor.encrypt(backend, &mut std::fs::File::open(&input)?, &mut out, false)?;
    println!("{} file for {}", encryptor.format(), contact.name);
    Ok(())
}

fn args() -> Result<[PathBuf; 4], Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    Ok(args.try_into().map_err(|_| "usage: VAULT NAME FILE OUT")?)
}

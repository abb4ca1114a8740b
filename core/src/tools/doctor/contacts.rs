//! The contacts book (docs/contacts.md): a book that is there but cannot be trusted is an
//! error, since every command that names a contact, or reads an export of one, refuses it.

use super::Check;
use crate::contacts::store::{self, Loaded};
use crate::error::{Error, Result};
use crate::identity::PublicIdentity;
use crate::suite::Backend;
use std::path::Path;

/// Load the book at `book` against the vault's identity (`public`, None when the vault cannot
/// be read) with the caller's backend.
pub(super) fn contacts_book_check(
    vault: Option<&Path>,
    book: std::result::Result<&Path, &Error>,
    public: Option<&PublicIdentity>,
    backend: std::result::Result<&dyn Backend, &Error>,
) -> Check {
    let name = "contacts_book";
    if vault.is_none() {
        return Check::ok(name, "no vault path, so no contacts book");
    }
    let book = match book {
        Ok(p) => p,
        Err(e) => return Check::error_of(name, e),
    };
    let backend = match backend {
        Ok(b) => b,
        Err(e) => return Check::warn_of(name, e),
    };
    contacts_book_result(book, store::load(book, public, backend))
}

/// The verdict on a loaded book, or on why it could not be loaded.
pub(super) fn contacts_book_result(book: &Path, loaded: Result<Loaded>) -> Check {
    let name = "contacts_book";
    let shown = crate::untrusted::path(book);
    match loaded {
        Ok(l) if l.book.seq == 0 && l.book.contacts.is_empty() => {
            Check::ok(name, format!("no contacts book yet ({shown})"))
        }
        Ok(l) => Check::ok(
            name,
            format!(
                "{} contact(s) in {shown}, signed by generation {}",
                l.book.contacts.len(),
                l.signed_by
            ),
        ),
        Err(e) => Check::error_of(name, &e),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Status;
    use super::*;

    #[test]
    fn an_untrusted_contacts_book_is_an_error() {
        let book = Path::new("contacts.nxq");
        let empty = Loaded {
            book: Default::default(),
            saved_at: 0,
            signed_by: 0,
        };
        assert_eq!(contacts_book_result(book, Ok(empty)).status, Status::Ok);
        let e = Error::vault(
            "the contacts book contacts.nxq cannot be trusted as it is: …",
            "recover the contacts: …",
        )
        .suggests(crate::error::Step::RecoverContacts);
        let c = contacts_book_result(book, Err(e));
        assert_eq!(c.status, Status::Error);
        assert!(c.hint.contains("recover the contacts"), "{c:?}");
        assert_eq!(c.step, Some(crate::error::Step::RecoverContacts));
    }
}

//! What a value given where a recipient or signer is named (`--to`, `--identity`, `identity
//! show`) refers to: a contact, a file, or an age key string (docs/contacts.md, "Names where
//! recipients and signers are named"). A pure decision over the value, what is at that path
//! and the book, so every rule is tested without a file system.

use super::book::{Book, Contact, check_name};
use crate::error::{Error, Result, Step};
use std::path::PathBuf;

/// What is at the path the value spells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtPath {
    /// Nothing exists there.
    Nothing,
    /// A folder, which can hold no identity.
    Folder,
    /// A file, or anything else that is not a folder (it is opened as a file).
    File,
}

/// What the value names.
#[derive(Debug, PartialEq, Eq)]
pub enum Named<'a> {
    /// A contact of that name.
    Contact(&'a Contact),
    /// A file (or `-`, stdin).
    File(PathBuf),
    /// An `age1…` or `ssh-…` string, for the age code to parse.
    AgeKey,
}

/// Decide what `value` names. `@NAME` is always the contact; `-` is stdin; an `age1…`/`ssh-…`
/// string that names no path is an age key; a value that cannot be a contact name is a path.
/// Otherwise the bare word is looked up in the book (`book` is called only then): a word that
/// is both a contact and a file is refused (exit 2) rather than guessed, and a folder never
/// shadows a contact (it cannot hold an identity).
pub fn resolve<'a>(
    value: &str,
    at_path: AtPath,
    book: impl FnOnce() -> Result<&'a Book>,
) -> Result<Named<'a>> {
    if let Some(name) = value.strip_prefix('@') {
        let b = book()?;
        return b
            .get(name)
            .map(Named::Contact)
            .ok_or_else(|| b.unknown(name));
    }
    if value == "-" {
        return Ok(Named::File(value.into()));
    }
    if (value.starts_with("age1") || value.starts_with("ssh-")) && at_path == AtPath::Nothing {
        return Ok(Named::AgeKey);
    }
    if check_name(value).is_err() {
        return Ok(Named::File(value.into()));
    }
    let b = book()?;
    let shown = crate::untrusted::escape(value);
    match (b.get(value), at_path) {
        (Some(c), AtPath::Nothing | AtPath::Folder) => Ok(Named::Contact(c)),
        (Some(c), AtPath::File) => Err(Error::usage(
            format!(
                "\"{shown}\" names both the contact {} and the file ./{shown}",
                c.name
            ),
            format!(
                "write @{} for the contact, or ./{shown} for the file",
                c.name
            ),
        )),
        (None, AtPath::File) => Ok(Named::File(value.into())),
        (None, AtPath::Folder) => Err(Error::usage(
            format!("{shown} is a folder, and no contact is named {shown}"),
            "pass an export file, or a contact as @NAME (the book's list shows the names)",
        )
        .suggests(Step::ListContacts)),
        (None, AtPath::Nothing) if looks_like_a_file(value) => Err(missing_file(b, value)),
        (None, AtPath::Nothing) => Err(b.unknown(value)),
    }
}

/// `missing.asc` is a file name to most people, though contact names may hold dots.
fn looks_like_a_file(value: &str) -> bool {
    std::path::Path::new(value).extension().is_some()
}

/// A value that reads as a file name, naming no file and no contact: a missing input (exit 5,
/// docs/cli.md "Inputs"), with the contacts close to it in the hint.
fn missing_file(b: &Book, value: &str) -> Error {
    let near = b.closest(value);
    let hint = if near.is_empty() {
        "check the path, or the names of the contacts in the book".to_string()
    } else {
        format!(
            "check the path; or, for a contact, did you mean {}?",
            near.join(", ")
        )
    };
    let e = Error::io(
        format!(
            "there is no file {} (and no contact of that name)",
            crate::untrusted::escape(value)
        ),
        hint,
    )
    .caused_by(std::io::ErrorKind::NotFound);
    if near.is_empty() {
        e.suggests(Step::ListContacts)
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contacts::ContactKey;
    use crate::error::ErrorKind;

    fn book() -> Book {
        let mut b = Book::default();
        b.add("bob", ContactKey::Age(vec![1; 1216]), true, 1)
            .unwrap();
        b
    }

    #[test]
    fn a_word_that_is_a_contact_and_a_file_is_refused_and_a_folder_never_shadows() {
        let b = book();
        let bob = b.get("bob").unwrap();
        let get = || Ok(&b);
        assert_eq!(
            resolve("bob", AtPath::Nothing, get).unwrap(),
            Named::Contact(bob)
        );
        assert_eq!(
            resolve("bob", AtPath::Folder, get).unwrap(),
            Named::Contact(bob)
        );
        let e = resolve("bob", AtPath::File, get).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(
            e.message()
                .contains("both the contact bob and the file ./bob")
        );
        assert!(
            e.hint().contains("@bob") && e.hint().contains("./bob"),
            "{e:?}"
        );
        // The ways to say which.
        assert_eq!(
            resolve("@bob", AtPath::File, get).unwrap(),
            Named::Contact(bob)
        );
        assert_eq!(
            resolve("./bob", AtPath::File, get).unwrap(),
            Named::File("./bob".into())
        );
        // No such contact.
        assert_eq!(
            resolve("eve", AtPath::File, get).unwrap(),
            Named::File("eve".into())
        );
        let e = resolve("eve", AtPath::Folder, get).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.hint().contains("@NAME"), "{e:?}");
        let e = resolve("bbo", AtPath::Nothing, get).unwrap_err();
        assert!(e.hint().contains("did you mean bob"), "{e:?}");
        assert!(resolve("@eve", AtPath::Nothing, get).is_err());
        // A file name that names nothing is a missing input, not an unknown contact.
        let e = resolve("eve.asc", AtPath::Nothing, get).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
        assert!(e.message().contains("no file eve.asc"), "{e:?}");
        let e = resolve("bob.asc", AtPath::Nothing, get).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io);
    }

    #[test]
    fn paths_stdin_and_age_keys_need_no_book() {
        let no_book = || -> Result<&Book> { panic!("the book is not read") };
        assert_eq!(
            resolve("-", AtPath::Nothing, no_book).unwrap(),
            Named::File("-".into())
        );
        assert_eq!(
            resolve("dir/x.asc", AtPath::Nothing, no_book).unwrap(),
            Named::File("dir/x.asc".into())
        );
        assert_eq!(
            resolve("age1pq1xyz", AtPath::Nothing, no_book).unwrap(),
            Named::AgeKey
        );
        assert_eq!(
            resolve("age1pq1xyz", AtPath::File, no_book).unwrap(),
            Named::File("age1pq1xyz".into())
        );
    }
}

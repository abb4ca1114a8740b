//! The library's one error type: what happened (the message), what to do next (the hint, in
//! the library's words), and the class of failure ([`ErrorKind`]). Callers decide what a
//! class means to them; the command line maps each to its exit code (docs/cli.md, "Exit
//! codes").
//!
//! Messages never contain secret material; callers build them from public facts only.

use std::fmt;

/// The class of a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A check failed: a bad signature, a ciphertext or envelope that is not authentic or not
    /// for these keys, any defect in an input that is not the vault, a revoked identity.
    CheckFailed,
    /// The request cannot be carried out as given: its arguments or inputs are unusable (a
    /// folder where a file is read, no terminal for a question, a refused confirmation).
    Usage,
    /// The password did not open the vault (or its public part was altered).
    WrongPassword,
    /// The vault is missing, corrupted or unsupported; so is a contacts book that cannot be
    /// trusted.
    Vault,
    /// Any other I/O problem, including a busy vault.
    Io,
}

/// An error with a message (what went wrong) and a hint (what to do next).
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    hint: String,
    /// The kind of the I/O error behind it, when there is one (a caller tells a reader of its
    /// output that went away, `BrokenPipe`, from a real failure).
    io: Option<std::io::ErrorKind>,
    /// The caller's setting the hint is about, if any.
    setting: Option<Setting>,
    /// The caller's step the hint suggests, if any (boxed: errors stay small).
    step: Option<Box<Step>>,
}

/// A step the hint suggests that the caller offers its users in its own words (the command
/// line names its command): the hint says what to do in the library's words ("create a
/// vault"), the caller adds how.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// Create a vault.
    CreateVault,
    /// Open a vault that exists (check it, show its identity).
    OpenVault,
    /// Change the vault's password (and its Argon2id costs).
    ChangePassword,
    /// Make a new generation.
    Rotate,
    /// Start the key agent.
    StartAgent,
    /// Write the identity's export.
    ExportIdentity,
    /// Write the identity's export with every generation.
    ExportFullHistory,
    /// Show the identity (its fingerprint).
    ShowIdentity,
    /// List the contacts.
    ListContacts,
    /// Add a contact.
    AddContact,
    /// Update the contact of this name with a newer export.
    UpdateContact(String),
    /// Remove the contact of this name.
    RemoveContact(String),
    /// Recover the contacts of a book that cannot be trusted.
    RecoverContacts,
    /// Use the OpenPGP contact of this name as OpenPGP: encrypt to it, verify with it.
    UseOpenPgpContact(String),
    /// Write the master secret as a recovery phrase.
    BackupPhrase,
    /// Write the master secret as k-of-n shares.
    BackupShares,
    /// Give the recovery phrase (not shares).
    GivePhrase,
    /// Give each share.
    GiveShares,
}

/// A setting of the caller's that a hint is about. The hint says what to do in the library's
/// words ("give the path of the vault file itself"); the caller adds how that setting is made
/// (the command line names its flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// Where the vault is.
    VaultPath,
    /// How long to wait for another writer's lock on the vault.
    LockTimeout,
    /// The Argon2id costs of a vault being sealed.
    KdfCosts,
    /// Encrypting to an expired key anyway.
    AllowExpired,
    /// The export of the identity a signature is checked against.
    SignerIdentity,
    /// The backend that computes the post-quantum algorithms.
    Backend,
    /// Saving a vault in Android shared storage anyway.
    AllowSharedStorage,
    /// Signing for, or handing out an age recipient of, a revoked identity anyway
    /// ([`Policy::allow_revoked`](crate::Policy::allow_revoked)).
    AllowRevoked,
}

/// A result whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with its message and hint.
    pub fn new(kind: ErrorKind, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            hint: hint.into(),
            io: None,
            setting: None,
            step: None,
        }
    }

    /// A failed check ([`ErrorKind::CheckFailed`]).
    pub fn check(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::CheckFailed, message, hint)
    }

    /// A request that cannot be carried out as given ([`ErrorKind::Usage`]).
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message, hint)
    }

    /// The password did not open the vault ([`ErrorKind::WrongPassword`]).
    pub fn wrong_password() -> Self {
        Self::new(
            ErrorKind::WrongPassword,
            "wrong password, or the vault's public part was altered",
            "try again; if the password is right, restore the vault from a backup",
        )
    }

    /// The vault (or the contacts book) is missing, corrupted or unsupported
    /// ([`ErrorKind::Vault`]).
    pub fn vault(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::Vault, message, hint)
    }

    /// Any other I/O problem ([`ErrorKind::Io`]).
    pub fn io(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message, hint)
    }

    /// An I/O error while doing `what` to `path`, with a hint chosen by the error kind.
    pub fn io_at(what: &str, path: &std::path::Path, err: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        let hint = match err.kind() {
            ErrorKind::NotFound => "check the path",
            ErrorKind::PermissionDenied => "check the file's and its folder's permissions",
            ErrorKind::AlreadyExists => "choose another path or remove the existing file",
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => "free some space and try again",
            _ => "check the path and the device, then try again",
        };
        // A file name can hold anything, terminal escapes included.
        Self::io(
            format!("cannot {what} {}: {err}", crate::untrusted::path(path)),
            hint,
        )
        .caused_by(err.kind())
    }

    /// The same error, marked as caused by an I/O error of this kind.
    pub fn caused_by(mut self, io: std::io::ErrorKind) -> Self {
        self.io = Some(io);
        self
    }

    /// The class of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The same error, its hint about the caller's `setting`.
    pub fn about(mut self, setting: Setting) -> Self {
        self.setting = Some(setting);
        self
    }

    /// The caller's setting the hint is about, if any.
    pub fn setting(&self) -> Option<Setting> {
        self.setting
    }

    /// The same error, its hint suggesting the caller's `step`.
    pub fn suggests(mut self, step: Step) -> Self {
        self.step = Some(Box::new(step));
        self
    }

    /// The caller's step the hint suggests, if any.
    pub fn step(&self) -> Option<&Step> {
        self.step.as_deref()
    }

    /// The kind of the I/O error behind this one, if any.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        self.io
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What to do next.
    pub fn hint(&self) -> &str {
        &self.hint
    }

    /// The same error with another hint (the caller's words: about no setting).
    pub fn reworded_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self.setting = None;
        self.step = None;
        self
    }

    /// The same error with another message and hint (its class and cause kept).
    pub fn reworded(mut self, message: impl Into<String>, hint: impl Into<String>) -> Self {
        self.message = message.into();
        self.reworded_hint(hint)
    }

    /// Prefix the message with context, keeping the hint and class.
    pub fn context(mut self, what: impl fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if !self.hint.is_empty() {
            write!(f, "\nhint: {}", self.hint)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Error({:?}: {}; hint: {})",
            self.kind, self.message, self.hint
        )
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_message_and_hint() {
        let e = Error::vault("vault is missing", "run `nexusq init`");
        assert_eq!(e.to_string(), "vault is missing\nhint: run `nexusq init`");
        assert_eq!(e.kind(), ErrorKind::Vault);
    }

    #[test]
    fn an_io_error_keeps_its_kind_through_rewording() {
        let err = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let e = Error::io_at("open", std::path::Path::new("f"), &err).context("x");
        assert_eq!(e.io_kind(), Some(std::io::ErrorKind::PermissionDenied));
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(Error::check("m", "h").io_kind(), None);
    }
}

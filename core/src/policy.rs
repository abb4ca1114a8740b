//! [`Policy`]: what the front door's operations may do beyond the safe defaults, as one value
//! passed in, like Sequoia's policy objects: encrypt to an expired generation, sign for a
//! revoked identity, and which formats may be written and read.

/// The formats nexusq reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// nexusq's own encrypted file (`"NXQF"`, docs/file-encryption.md).
    Nexusq,
    /// age v1 (docs/age.md).
    Age,
    /// OpenPGP, RFC 9580 with RFC 9980's post-quantum algorithms (docs/openpgp.md).
    OpenPgp,
}

impl Format {
    /// Every format, in the order the docs list them.
    pub const ALL: [Format; 3] = [Format::Nexusq, Format::Age, Format::OpenPgp];

    /// "nexusq", "age" or "openpgp", as `--json` names it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Nexusq => "nexusq",
            Format::Age => "age",
            Format::OpenPgp => "openpgp",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Nexusq => "nexusq",
            Format::Age => "age",
            Format::OpenPgp => "OpenPGP",
        })
    }
}

/// What an operation allows besides the defaults. `Policy::default()` is what nexusq does
/// unless told otherwise: nothing to an expired generation, nothing signed for a revoked
/// identity, every format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Encrypt to a recipient whose newest generation has expired (a revoked one never).
    pub allow_expired: bool,
    /// Sign, or hand out an age recipient, for an identity its owner has revoked: others
    /// refuse what it makes, so this is for the owner's own use only.
    pub allow_revoked: bool,
    /// The formats an [`Encryptor`](crate::Encryptor) may write and a
    /// [`Decryptor`](crate::Decryptor) may read.
    pub formats: Vec<Format>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            allow_expired: false,
            allow_revoked: false,
            formats: Format::ALL.to_vec(),
        }
    }
}

impl Policy {
    /// Is `format` allowed?
    pub fn allows(&self, format: Format) -> bool {
        self.formats.contains(&format)
    }

    /// Refused when `identity` is revoked, unless [`Policy::allow_revoked`]: others refuse
    /// `what` it makes ("its signatures", "its age recipient"), so making one anyway is for its
    /// owner's own use. (The agent never signs for a revoked identity.)
    pub fn check_not_revoked(
        &self,
        identity: &crate::PublicIdentity,
        what: &str,
    ) -> crate::Result<()> {
        if self.allow_revoked || !crate::identity::peer::is_revoked(identity) {
            return Ok(());
        }
        let e = crate::identity::peer::revoked_owner(&identity.root_id(), what);
        let hint = format!("{}; doing it anyway is for your own use only", e.hint());
        Err(e
            .reworded_hint(hint)
            .about(crate::error::Setting::AllowRevoked))
    }
}

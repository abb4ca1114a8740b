//! The directory's HTTP interface (docs/directory.md, "API"): paths, the JSON bodies both
//! sides read and write, and the error codes, which are stable.

use serde::{Deserialize, Serialize};

/// Largest upload the directory reads (a nexusq export or an OpenPGP certificate); a bigger
/// body is refused with [`ErrorCode::TooLarge`] before it is read whole.
pub const MAX_UPLOAD: usize = 1 << 20;

/// Largest answer a client reads: an identity with its certificate and any fork evidence.
pub const MAX_ANSWER: usize = 4 << 20;

/// `POST` an export or a certificate here.
pub const PUBLISH_PATH: &str = "/v1/publish";

/// `GET` an identity by its nexusq fingerprint: `/v1/identities/FINGERPRINT`.
pub const IDENTITIES_PATH: &str = "/v1/identities/";

/// `GET` an identity by its OpenPGP fingerprint: `/v1/openpgp/HEX`.
pub const OPENPGP_PATH: &str = "/v1/openpgp/";

/// The fingerprint as it goes in a path: nexusq's 32 base32 characters, lower case, no
/// separators.
pub fn path_fingerprint(fp: &crate::identity::Fingerprint) -> String {
    fp.to_string()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// What an upload did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The first upload of this fingerprint, taken as it is.
    First,
    /// Newer generations along the chain were added.
    Extended,
    /// New revocations were added (and nothing else).
    Revocations,
    /// Nothing new: the directory already held all of it.
    Unchanged,
    /// An older state than the one held (fewer generations or revocations): nothing changed.
    Older,
}

/// The answer to a successful upload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    /// The identity's nexusq fingerprint, as people read it; `None` for an OpenPGP certificate
    /// that is not a nexusq identity's.
    pub fingerprint: Option<String>,
    /// Its OpenPGP fingerprint (hex), when the directory holds a certificate for it.
    pub openpgp_fingerprint: Option<String>,
    /// What the upload did.
    pub outcome: Outcome,
    /// The newest generation the directory now holds (0 for an OpenPGP-only certificate).
    pub generation: u32,
}

/// One identity as the directory holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Its nexusq fingerprint, when the directory holds a nexusq export of it.
    pub fingerprint: Option<String>,
    /// Its OpenPGP fingerprint (hex).
    pub openpgp_fingerprint: Option<String>,
    /// The newest generation held.
    pub generation: u32,
    /// The export, in nexusq's armor, with every certificate and revocation the directory
    /// holds (full history from the first upload on).
    pub export: Option<String>,
    /// The OpenPGP certificate, armored, when one was uploaded.
    pub openpgp: Option<String>,
    /// Uploads refused as forks, kept as evidence (newest last).
    pub forks: Vec<Fork>,
}

/// A refused fork, as evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fork {
    /// The generation it certified a second time.
    pub generation: u32,
    /// When the directory received it (Unix seconds).
    pub received: u64,
    /// The export as it was uploaded, in nexusq's armor.
    pub export: String,
}

/// Every error answer: `{"error": {"code": …, "message": …}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: ErrorDetail,
}

/// An error's code and message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// The stable code.
    pub code: ErrorCode,
    /// For people; text the server chose.
    pub message: String,
}

/// The directory's error codes (docs/directory.md, "Errors"). New codes may be added; a
/// client reads one it does not know as [`ErrorCode::Other`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The body is neither a nexusq export nor an OpenPGP certificate, or is malformed (400).
    Unreadable,
    /// A signature does not verify: not made by the identity's root (400).
    Forged,
    /// An OpenPGP certificate without a post-quantum primary key, or with secret keys (400).
    NotAccepted,
    /// Another certificate for a generation the directory holds; refused, kept as evidence
    /// (409).
    Fork,
    /// The upload does not continue the chain held (a gap, a broken link) (409).
    BrokenChain,
    /// No such identity (404).
    NotFound,
    /// The path's fingerprint is malformed (400).
    BadFingerprint,
    /// The body is over [`MAX_UPLOAD`] bytes (413).
    TooLarge,
    /// Too many requests from this address; wait and retry (429).
    RateLimited,
    /// The request took too long to arrive or to answer (408).
    Timeout,
    /// No such path or method (404, 405).
    NoSuchPath,
    /// The server failed; nothing was changed (500, 503).
    Internal,
    /// A code this client does not know.
    #[serde(other)]
    Other,
}

impl ErrorCode {
    /// The HTTP status the server answers with.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::Unreadable
            | ErrorCode::Forged
            | ErrorCode::NotAccepted
            | ErrorCode::BadFingerprint => 400,
            ErrorCode::Fork | ErrorCode::BrokenChain => 409,
            ErrorCode::NotFound | ErrorCode::NoSuchPath => 404,
            ErrorCode::TooLarge => 413,
            ErrorCode::RateLimited => 429,
            ErrorCode::Timeout => 408,
            ErrorCode::Internal | ErrorCode::Other => 500,
        }
    }
}

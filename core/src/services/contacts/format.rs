//! The byte layout of `contacts.nxq` (docs/contacts.md). Big-endian, strict: exact lengths,
//! no trailing bytes, every count bounded by the bytes remaining before anything is allocated.
//!
//! `body = "NXQB" || u8 version=1 || owner root_id(32) || u64 seq || u64 saved_at ||
//!  u32 count || count x entry`
//! `entry = u16 name_len || name || u8 kind (1 identity, 2 age, 3 OpenPGP) || u8 flags (bit 0
//!  verified) || u64 added || u64 updated || u32 len || payload` (payload: an encoded public
//!  identity, the 1216-byte X-Wing key of an age recipient, or an OpenPGP certificate in
//!  binary, public parts only, at most 1 MiB, as Sequoia serializes it)
//! `file = body || u32 generation || u64 signed_at || u16 len=3373 || composite signature`
//! (see `seal`).

use super::book::{Book, Contact, ContactKey, MAX_CONTACTS, check_name};
use crate::identity::{PublicIdentity, RootId};
use crate::suite::hybrid_kem;
use crate::suite::hybrid_sig;
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};

const MAGIC: &[u8; 4] = b"NXQB";
/// The format version this library writes and reads.
pub const VERSION: u8 = 1;
/// Largest book read (a contact with a long history is some hundreds of KiB).
pub(crate) const MAX_FILE_LEN: u64 = 64 * 1024 * 1024;
const KIND_IDENTITY: u8 = 1;
const KIND_AGE: u8 = 2;
const KIND_OPENPGP: u8 = 3;
const FLAG_VERIFIED: u8 = 1;
/// Smallest encoded entry: empty fields around a one-byte name.
const MIN_ENTRY_LEN: usize = 2 + 1 + 1 + 1 + 8 + 8 + 4;

/// The signature block that ends the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealBlock {
    /// The generation of the owner's vault whose key signed.
    pub generation: u32,
    /// When it was signed (Unix seconds).
    pub signed_at: u64,
    /// The composite ML-DSA-65 + Ed25519 signature (3373 bytes).
    pub signature: Vec<u8>,
}

/// A file split into what the signature covers and the signature.
pub struct Parsed<'a> {
    /// Every byte the signature covers.
    pub body: &'a [u8],
    /// The vault the book claims to belong to (not yet checked).
    pub owner: RootId,
    /// The signature block.
    pub seal: SealBlock,
}

/// The signed part of the file (layout in the module docs).
pub fn encode_body(book: &Book, owner: &RootId, saved_at: u64) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(MAGIC)
        .u8(VERSION)
        .bytes(&owner.0)
        .u64(book.seq)
        .u64(saved_at)
        .u32(book.contacts.len() as u32);
    for c in &book.contacts {
        let (kind, payload) = match &c.key {
            ContactKey::Identity(id) => (KIND_IDENTITY, id.encode()),
            ContactKey::Age(pk) => (KIND_AGE, pk.clone()),
            ContactKey::OpenPgp(cert) => (KIND_OPENPGP, cert.clone()),
        };
        w.bytes_u16(c.name.as_bytes())
            .u8(kind)
            .u8(if c.verified { FLAG_VERIFIED } else { 0 })
            .u64(c.added)
            .u64(c.updated)
            .bytes_u32(&payload);
    }
    w.into_inner()
}

/// The signature block's bytes, appended to the body.
pub(crate) fn encode_seal(seal: &SealBlock) -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(seal.generation)
        .u64(seal.signed_at)
        .bytes_u16(&seal.signature);
    w.into_inner()
}

const SEAL_LEN: usize = 4 + 8 + 2 + hybrid_sig::SIGNATURE_LEN;

/// Split the file and read the fixed header, without decoding the entries (they are decoded
/// only after the signature verifies).
pub fn split(bytes: &[u8]) -> DecodeResult<Parsed<'_>> {
    if bytes.len() < SEAL_LEN {
        return Err(DecodeError("it is too short to be a contacts book".into()));
    }
    let (body, tail) = bytes.split_at(bytes.len() - SEAL_LEN);
    let mut r = Reader::new(body);
    r.expect_tag(MAGIC, "contacts book")?;
    r.version(VERSION, "contacts book version")?;
    let owner = RootId(r.array("owner root_id")?);
    let mut t = Reader::new(tail);
    let generation = t.u32("signing generation")?;
    let signed_at = t.u64("signing time")?;
    let signature = t.bytes_u16("signature")?.to_vec();
    t.finish("contacts book signature")?;
    if signature.len() != hybrid_sig::SIGNATURE_LEN {
        return Err(DecodeError("the signature has the wrong length".into()));
    }
    Ok(Parsed {
        body,
        owner,
        seal: SealBlock {
            generation,
            signed_at,
            signature,
        },
    })
}

/// Decode an authenticated body. `saved_at` is returned beside the book.
pub fn decode_body(body: &[u8]) -> DecodeResult<(Book, u64)> {
    let mut r = Reader::new(body);
    r.expect_tag(MAGIC, "contacts book")?;
    r.version(VERSION, "contacts book version")?;
    let _owner: [u8; 32] = r.array("owner root_id")?;
    let seq = r.u64("save counter")?;
    let saved_at = r.u64("save time")?;
    let n = r.count_u32(MIN_ENTRY_LEN, "contact count")?;
    if n > MAX_CONTACTS {
        return Err(DecodeError(format!(
            "it holds more than {MAX_CONTACTS} contacts"
        )));
    }
    let mut contacts: Vec<Contact> = Vec::with_capacity(n);
    for _ in 0..n {
        let name = String::from_utf8(r.bytes_u16("contact name")?.to_vec())
            .map_err(|_| DecodeError("a contact name is not UTF-8".into()))?;
        check_name(&name).map_err(|_| DecodeError("a contact name is not valid".into()))?;
        let kind = r.u8("contact kind")?;
        let flags = r.u8("contact flags")?;
        if flags & !FLAG_VERIFIED != 0 {
            return Err(DecodeError("a contact has unknown flags".into()));
        }
        let added = r.u64("contact added")?;
        let updated = r.u64("contact updated")?;
        let payload = r.bytes_u32("contact key")?;
        let key = match kind {
            KIND_IDENTITY => ContactKey::Identity(PublicIdentity::decode(payload)?),
            KIND_AGE => {
                hybrid_kem::check_public_key(hybrid_kem::KemLevel::MlKem768, payload)
                    .map_err(|e| DecodeError(format!("an age recipient is unusable: {e}")))?;
                ContactKey::Age(payload.to_vec())
            }
            KIND_OPENPGP => {
                // Structure only: an expired or revoked certificate stays readable.
                crate::format::openpgp::book::decode(payload)?;
                ContactKey::OpenPgp(payload.to_vec())
            }
            _ => return Err(DecodeError("a contact has an unknown kind".into())),
        };
        if contacts.last().is_some_and(|p| p.name >= name) {
            return Err(DecodeError(
                "contacts are not in name order, or a name repeats".into(),
            ));
        }
        contacts.push(Contact {
            name,
            key,
            verified: flags & FLAG_VERIFIED != 0,
            added,
            updated,
        });
    }
    r.finish("contacts book")?;
    Ok((Book { seq, contacts }, saved_at))
}

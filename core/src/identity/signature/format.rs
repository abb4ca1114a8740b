//! The wire format (docs/signature-format.md). Encoding (big-endian), armored as `SIGNATURE`,
//! version 1 (full, [`DetachedSignature`]):
//! `"NXQS" || u8 version=1 || u16 suite=0x0011 || u16 len=32 || root_pk(32) || u64 signed_at ||
//!  u32 len || signer's certificate || u16 len=3373 || composite signature`;
//! version 2 (compact, [`CompactSignature`]): `"NXQS" || u8 version=2 || u16 suite=0x0011 ||
//! root_id(32) || u32 generation || u64 signed_at || u16 len=3373 || composite signature`.
//! A compact signature names the certificate instead of carrying it; the verifier takes it
//! from the identity it trusts. Both sign the same context, so one is the other without (or
//! with) the certificate.

use crate::error::{Error, Result};
use crate::identity::certificate::Certificate;
use crate::identity::root_id::RootId;
use crate::suite::root_sig;
use crate::suite::{SuiteId, hybrid_sig};
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};

const MAGIC: &[u8; 4] = b"NXQS";
/// The full signature's version (it carries the signer's certificate).
pub const VERSION: u8 = 1;
/// The compact signature's version.
pub const COMPACT_VERSION: u8 = 2;
/// Armor label of a signature file, `-----BEGIN NEXUSQ SIGNATURE-----`.
pub const ARMOR_KIND: &str = "SIGNATURE";

const DEFECT_HINT: &str = "ask the signer for the signature file again; it must be exactly \
                           as it was signed";

/// A decoded detached signature. Nothing in it is trusted until [`verify`](super::verify())
/// says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetachedSignature {
    /// The signer's root public key as the signature claims it (trusted only through
    /// `--expect-fingerprint`).
    pub root_pk: [u8; root_sig::PUBLIC_KEY_LEN],
    /// When the signer says it signed (Unix seconds); covered by the signature, but claimed.
    pub signed_at: u64,
    /// The certificate of the generation that signed.
    pub certificate: Certificate,
    /// The composite ML-DSA-65 + Ed25519 signature (3373 bytes).
    pub signature: Vec<u8>,
}

impl DetachedSignature {
    /// The root_id of the root key the signature names (not necessarily trusted).
    pub fn root_id(&self) -> RootId {
        RootId::of(&self.root_pk)
    }

    /// The generation that signed, as its certificate says.
    pub fn generation(&self) -> u32 {
        self.certificate.generation
    }

    /// The binary encoding (version 1 layout in the module docs).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(VERSION)
            .u16(SuiteId::MlDsa65Ed25519.to_u16())
            .bytes_u16(&self.root_pk)
            .u64(self.signed_at)
            .bytes_u32(&self.certificate.encode())
            .bytes_u16(&self.signature);
        w.into_inner()
    }

    /// Strict decoding: exact lengths, no trailing bytes, never panics. Checks structure only;
    /// [`verify`](super::verify()) does the rest.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        expect_version(&mut r, VERSION)?;
        let root_pk: [u8; root_sig::PUBLIC_KEY_LEN] = r
            .bytes_u16("signature root key")?
            .try_into()
            .map_err(|_| DecodeError("the signature's root key has the wrong length".into()))?;
        let signed_at = r.u64("signature time")?;
        let certificate = Certificate::decode(r.bytes_u32("signer's certificate")?)?;
        let signature = composite(&mut r)?;
        r.finish("signature")?;
        if certificate.root_id != RootId::of(&root_pk) {
            return Err(DecodeError(
                "the signer's certificate names another root than the signature".into(),
            ));
        }
        Ok(DetachedSignature {
            root_pk,
            signed_at,
            certificate,
            signature,
        })
    }

    /// The encoding in nexusq's armor, as `nexusq sign` writes it.
    pub fn to_armor(&self) -> String {
        crate::format::armor::encode(ARMOR_KIND, &self.encode())
    }

    /// Read an armored full (version 1) signature file; any defect is exit 1. `what` names it
    /// in messages. [`Signature::parse`] reads either version.
    pub fn parse(text: &[u8], what: &str) -> Result<Self> {
        Self::decode(&unarmor(text, what)?).map_err(|e| damaged(what, e))
    }

    /// The same signature without its certificate.
    pub fn compact(&self) -> CompactSignature {
        CompactSignature {
            root_id: self.root_id(),
            generation: self.certificate.generation,
            signed_at: self.signed_at,
            signature: self.signature.clone(),
        }
    }
}

/// The magic, the given version and the suite.
fn expect_version(r: &mut Reader<'_>, want: u8) -> DecodeResult<()> {
    r.expect_tag(MAGIC, "signature")?;
    let version = r.u8("signature version")?;
    if version != want {
        return Err(DecodeError(format!(
            "signature version {version} is not supported (made by a newer nexusq?)"
        )));
    }
    let suite = r.u16("signature suite")?;
    if suite != SuiteId::MlDsa65Ed25519.to_u16() {
        return Err(DecodeError(format!(
            "signature suite {suite:#06x} is not {} (made by a newer nexusq?)",
            SuiteId::MlDsa65Ed25519.name()
        )));
    }
    Ok(())
}

/// The length-prefixed composite signature, exactly [`hybrid_sig::SIGNATURE_LEN`] bytes.
fn composite(r: &mut Reader<'_>) -> DecodeResult<Vec<u8>> {
    let signature = r.bytes_u16("composite signature")?;
    if signature.len() != hybrid_sig::SIGNATURE_LEN {
        return Err(DecodeError(format!(
            "the composite signature is {} bytes, not {}",
            signature.len(),
            hybrid_sig::SIGNATURE_LEN
        )));
    }
    Ok(signature.to_vec())
}

fn unarmor(text: &[u8], what: &str) -> Result<Vec<u8>> {
    crate::format::armor::decode_pasted(ARMOR_KIND, text).map_err(|e| {
        Error::check(
            format!("{what} is not a nexusq signature: it {}", e.0),
            DEFECT_HINT,
        )
    })
}

fn damaged(what: &str, e: DecodeError) -> Error {
    Error::check(
        format!("{what} is a damaged signature: {}", e.0),
        DEFECT_HINT,
    )
}

/// A compact (version 2) signature: the signer's root_id and generation instead of the
/// certificate. Nothing in it is trusted until [`verify_signature`](super::verify_signature)
/// says so; it verifies only against an identity that holds that generation's certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactSignature {
    /// The root_id the signature claims (its signer's fingerprint).
    pub root_id: RootId,
    /// The generation that signed; its certificate comes from the trusted identity.
    pub generation: u32,
    /// When the signer says it signed (Unix seconds); covered by the signature, but claimed.
    pub signed_at: u64,
    /// The composite ML-DSA-65 + Ed25519 signature (3373 bytes).
    pub signature: Vec<u8>,
}

/// Encoded length of a compact signature (docs/signature-format.md).
pub const COMPACT_LEN: usize = 4 + 1 + 2 + 32 + 4 + 8 + 2 + hybrid_sig::SIGNATURE_LEN;

impl CompactSignature {
    /// The binary encoding ([`COMPACT_LEN`] bytes; version 2 layout in the module docs).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(MAGIC)
            .u8(COMPACT_VERSION)
            .u16(SuiteId::MlDsa65Ed25519.to_u16())
            .bytes(&self.root_id.0)
            .u32(self.generation)
            .u64(self.signed_at)
            .bytes_u16(&self.signature);
        w.into_inner()
    }

    /// Strict decoding, as for [`DetachedSignature::decode`].
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        let mut r = Reader::new(bytes);
        expect_version(&mut r, COMPACT_VERSION)?;
        let root_id = RootId(r.array::<32>("signer's root_id")?);
        let generation = r.u32("signer's generation")?;
        if generation == 0 {
            return Err(DecodeError("the signer's generation is 0".into()));
        }
        let signed_at = r.u64("signature time")?;
        let signature = composite(&mut r)?;
        r.finish("signature")?;
        Ok(CompactSignature {
            root_id,
            generation,
            signed_at,
            signature,
        })
    }

    /// The encoding in nexusq's armor, as `nexusq sign --compact` writes it.
    pub fn to_armor(&self) -> String {
        crate::format::armor::encode(ARMOR_KIND, &self.encode())
    }
}

/// A signature file of either version.
// Signatures exist a few at a time (one per file being checked): 280 bytes on the stack
// beside 72 cost nothing, and a Box would only add a step to every match.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signature {
    /// Version 1, carrying the signer's certificate.
    Full(DetachedSignature),
    /// Version 2, naming the signer's generation only.
    Compact(CompactSignature),
}

impl Signature {
    /// Strict decoding of either version (the version byte chooses).
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        match bytes.get(4) {
            Some(&COMPACT_VERSION) if bytes.starts_with(MAGIC) => {
                CompactSignature::decode(bytes).map(Signature::Compact)
            }
            _ => DetachedSignature::decode(bytes).map(Signature::Full),
        }
    }

    /// Read an armored signature file of either version; any defect is exit 1.
    pub fn parse(text: &[u8], what: &str) -> Result<Self> {
        Self::decode(&unarmor(text, what)?).map_err(|e| damaged(what, e))
    }

    /// The binary encoding of whichever version this is.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Signature::Full(s) => s.encode(),
            Signature::Compact(s) => s.encode(),
        }
    }

    /// The encoding in nexusq's armor.
    pub fn to_armor(&self) -> String {
        crate::format::armor::encode(ARMOR_KIND, &self.encode())
    }

    /// The root_id the signature names (not necessarily trusted).
    pub fn root_id(&self) -> RootId {
        match self {
            Signature::Full(s) => s.root_id(),
            Signature::Compact(s) => s.root_id,
        }
    }

    /// The generation that signed (not necessarily trusted).
    pub fn generation(&self) -> u32 {
        match self {
            Signature::Full(s) => s.generation(),
            Signature::Compact(s) => s.generation,
        }
    }

    /// When the signer says it signed.
    pub fn signed_at(&self) -> u64 {
        match self {
            Signature::Full(s) => s.signed_at,
            Signature::Compact(s) => s.signed_at,
        }
    }

    /// Is this a compact (version 2) signature?
    pub fn is_compact(&self) -> bool {
        matches!(self, Signature::Compact(_))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::fixture;
    use super::*;
    use crate::identity::signature::context;
    use proptest::prelude::*;

    #[test]
    fn round_trip_and_layout() {
        let (id, sig) = fixture();
        let bytes = sig.encode();
        assert_eq!(&bytes[..7], b"NXQS\x01\x00\x11");
        assert_eq!(&bytes[7..9], &[0, 32]);
        assert_eq!(&bytes[9..41], &id.public.root_pk);
        assert_eq!(&bytes[41..49], &2_000u64.to_be_bytes());
        let cert = id.public.newest().encode();
        assert_eq!(&bytes[49..53], &(cert.len() as u32).to_be_bytes());
        assert_eq!(&bytes[53..53 + cert.len()], &cert[..]);
        assert_eq!(
            &bytes[53 + cert.len()..55 + cert.len()],
            &3373u16.to_be_bytes()
        );
        assert_eq!(bytes.len(), 55 + cert.len() + 3373);
        // docs/signature-format.md: 21996-byte certificate (version 2, empty reason), 25424 in
        // all.
        assert_eq!((cert.len(), bytes.len()), (21_996, 25_424));
        assert_eq!(context(&RootId([0; 32]), 1, 1).len(), 57);
        assert_eq!(&DetachedSignature::decode(&bytes).unwrap(), sig);
        let armored = sig.to_armor();
        assert!(armored.starts_with("-----BEGIN NEXUSQ SIGNATURE-----\n"));
        assert_eq!(
            &DetachedSignature::parse(armored.as_bytes(), "s").unwrap(),
            sig
        );
    }

    #[test]
    fn compact_layout_and_size() {
        let (id, sig) = fixture();
        let compact = sig.compact();
        let bytes = compact.encode();
        assert_eq!(&bytes[..7], b"NXQS\x02\x00\x11");
        assert_eq!(&bytes[7..39], &id.public.root_id().0);
        assert_eq!(&bytes[39..43], &1u32.to_be_bytes());
        assert_eq!(&bytes[43..51], &2_000u64.to_be_bytes());
        assert_eq!(&bytes[51..53], &3373u16.to_be_bytes());
        assert_eq!(&bytes[53..], &sig.signature[..]);
        assert_eq!(bytes.len(), COMPACT_LEN);
        assert_eq!(COMPACT_LEN, 3426);
        let armored = compact.to_armor();
        // docs/signature-format.md: 4704 bytes armored, under the 5000-byte budget.
        assert_eq!(armored.len(), 4704);
        assert_eq!(
            Signature::parse(armored.as_bytes(), "s").unwrap(),
            Signature::Compact(compact.clone())
        );
        assert_eq!(
            Signature::parse(sig.to_armor().as_bytes(), "s").unwrap(),
            Signature::Full(sig.clone())
        );
        // The compact form is the full one without the certificate, and back.
        assert_eq!(&compact.with_certificate(&id.public).unwrap(), sig);
        // Strict: no trailing byte, no short signature, no generation 0.
        let mut long = bytes.clone();
        long.push(0);
        assert!(CompactSignature::decode(&long).is_err());
        assert!(CompactSignature::decode(&bytes[..bytes.len() - 1]).is_err());
        let mut zero = bytes.clone();
        zero[39..43].copy_from_slice(&[0; 4]);
        assert!(CompactSignature::decode(&zero).is_err());
        let mut v3 = bytes;
        v3[4] = 3;
        let e = Signature::decode(&v3).unwrap_err();
        assert!(e.0.contains("newer nexusq"), "{e:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn decode_never_panics(data in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = DetachedSignature::decode(&data);
        }

        #[test]
        fn compact_mutations_never_panic(pos in 0usize..60, val: u8, cut in 0usize..3_500) {
            let (_, sig) = fixture();
            let mut b = sig.compact().encode();
            b[pos] = val;
            b.truncate(cut.max(1));
            let _ = Signature::decode(&b);
        }

        #[test]
        fn header_mutations_never_panic(pos in 0usize..64, val: u8, cut in 0usize..30_000) {
            let (_, sig) = fixture();
            let mut b = sig.encode();
            b[pos] = val;
            b.truncate(cut.max(1));
            let _ = DetachedSignature::decode(&b);
        }
    }
}

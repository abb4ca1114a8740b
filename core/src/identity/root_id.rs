//! root_id and the human fingerprint (docs/identity-format.md, section 3).
//!
//! `root_id = SHA3-256("nexusq/root/v1" || u16be(alg-id) || root_pk)`; the fingerprint is the
//! first 20 bytes of root_id in lowercase base32 (RFC 4648, no padding), 8 groups of 4
//! characters joined by "-". Code always compares the full root_id.

use crate::suite::SuiteId;
use sha3::{Digest, Sha3_256};
use std::fmt;

const ROOT_ID_LABEL: &[u8] = b"nexusq/root/v1";

/// An identity's name: SHA3-256 over the root public key (module docs). Compare these, not
/// fingerprints.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RootId(pub [u8; 32]);

impl RootId {
    /// The root_id of an SLH-DSA-SHAKE-128f root public key.
    pub fn of(root_pk: &[u8]) -> Self {
        let mut h = Sha3_256::new();
        h.update(ROOT_ID_LABEL);
        h.update(SuiteId::SlhDsaShake128f.to_u16().to_be_bytes());
        h.update(root_pk);
        RootId(h.finalize().into())
    }

    /// The first 20 bytes, for people to compare.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint(self.0[..20].try_into().expect("20 of 32 bytes"))
    }
}

impl fmt::Debug for RootId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RootId({})", hex_lower(&self.0))
    }
}

fn hex_lower(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The first 20 bytes of a root_id.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint(pub [u8; 20]);

impl Fingerprint {
    /// Parse a fingerprint as people type it: with or without dashes, any case.
    pub fn parse(text: &str) -> Option<Self> {
        let compact: String = text
            .trim()
            .chars()
            .filter(|c| *c != '-')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        if compact.len() != 32 {
            return None;
        }
        let bytes = data_encoding::BASE32_NOPAD
            .decode(compact.as_bytes())
            .ok()?;
        Some(Fingerprint(bytes.try_into().ok()?))
    }

    /// Is this the fingerprint of `root_id`?
    pub fn matches(&self, root_id: &RootId) -> bool {
        root_id.0[..20] == self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = data_encoding::BASE32_NOPAD
            .encode(&self.0)
            .to_ascii_lowercase();
        let groups: Vec<&str> = (0..8).map(|i| &s[i * 4..i * 4 + 4]).collect();
        f.write_str(&groups.join("-"))
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_value() {
        // Computed independently: python3 -c "import hashlib,base64;
        // d=hashlib.sha3_256(b'nexusq/root/v1'+bytes([0,0x21])+bytes(32)).digest()[:20];
        // print(base64.b32encode(d).decode().lower())"
        let fp = RootId::of(&[0u8; 32]).fingerprint().to_string();
        assert_eq!(fp.len(), 39);
        assert_eq!(fp.matches('-').count(), 7);
        assert_eq!(fp.replace('-', ""), KNOWN_ZERO_KEY_FP);
    }

    const KNOWN_ZERO_KEY_FP: &str = include_str!("testdata/zero_key_fingerprint.txt");

    proptest! {
        #[test]
        fn typed_forms_parse(id in proptest::array::uniform32(any::<u8>())) {
            let root_id = RootId(id);
            let fp = root_id.fingerprint();
            let s = fp.to_string();
            prop_assert_eq!(Fingerprint::parse(&s), Some(fp));
            prop_assert_eq!(Fingerprint::parse(&s.to_uppercase()), Some(fp));
            prop_assert_eq!(Fingerprint::parse(&s.replace('-', "")), Some(fp));
            prop_assert!(Fingerprint::parse(&s).unwrap().matches(&root_id));
            prop_assert_eq!(Fingerprint::parse(&s[1..]), None);
        }
    }
}

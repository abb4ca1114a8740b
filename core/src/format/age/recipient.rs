//! The Bech32 encodings of age keys (BIP173 checksum, no length limit), and the recipients
//! and identity file formats:
//!
//! - `age1pq1…`: an MLKEM768-X25519 recipient, the 1216-byte X-Wing public key;
//! - `AGE-SECRET-KEY-PQ-1…`: its identity, the 32-byte X-Wing seed;
//! - `AGE-SECRET-KEY-1…`: a classic X25519 identity (decrypt only);
//! - `AGE-PLUGIN-NEXUSQ-1…`: the plugin identity, naming a vault (see [`PluginIdentity`]).
//!
//! Classic `age1…` X25519 recipients, plugin recipients and SSH keys are recognised only to be
//! refused with a clear reason: nexusq encrypts post-quantum only.

use crate::secret::SecretBytes;
use crate::suite::backend::Backend;
use crate::suite::hybrid_kem::{self, DecapsulationKey, KemLevel, XWING_PUBLIC_KEY_LEN};
use bech32::primitives::decode::CheckedHrpstring;
use bech32::{Checksum, Hrp};
use zeroize::Zeroizing;

/// BIP173's Bech32 without its 90-character limit, as age uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bech32Long {}

impl Checksum for Bech32Long {
    type MidstateRepr = u32;
    const CODE_LENGTH: usize = usize::MAX;
    const CHECKSUM_LENGTH: usize = bech32::Bech32::CHECKSUM_LENGTH;
    const GENERATOR_SH: [u32; 5] = bech32::Bech32::GENERATOR_SH;
    const TARGET_RESIDUE: u32 = bech32::Bech32::TARGET_RESIDUE;
}

/// Bech32 HRP of an MLKEM768-X25519 recipient (`age1pq1…`).
pub(crate) const RECIPIENT_HRP: &str = "age1pq";
/// Bech32 HRP of an MLKEM768-X25519 identity (`AGE-SECRET-KEY-PQ-1…`).
pub(crate) const IDENTITY_HRP: &str = "AGE-SECRET-KEY-PQ-";
/// Bech32 HRP of a classic X25519 recipient (`age1…`), recognised to be refused.
pub(crate) const X25519_RECIPIENT_HRP: &str = "age";
/// Bech32 HRP of a classic X25519 identity (`AGE-SECRET-KEY-1…`), read for decryption.
pub(crate) const X25519_IDENTITY_HRP: &str = "AGE-SECRET-KEY-";
/// The plugin's name, as age derives the program `age-plugin-nexusq` from it.
pub const PLUGIN_NAME: &str = "nexusq";
/// Bech32 HRP of the plugin identity (`AGE-PLUGIN-NEXUSQ-1…`).
pub(crate) const PLUGIN_IDENTITY_HRP: &str = "AGE-PLUGIN-NEXUSQ-";

fn encode(hrp: &str, data: &[u8]) -> String {
    let hrp = Hrp::parse(hrp).expect("a valid HRP");
    bech32::encode_lower::<Bech32Long>(hrp, data).expect("no length limit")
}

/// Decode a Bech32 string (all lower or all upper case): its lowercase HRP and its data.
/// Only the canonical encoding is accepted (no stray padding bits).
fn decode(s: &str) -> Option<(String, Zeroizing<Vec<u8>>)> {
    let checked = CheckedHrpstring::new::<Bech32Long>(s).ok()?;
    let hrp = checked.hrp().to_lowercase();
    let data = Zeroizing::new(checked.byte_iter().collect::<Vec<u8>>());
    let again = Zeroizing::new(encode(&hrp, &data));
    (again.as_str() == s.to_ascii_lowercase()).then_some((hrp, data))
}

/// Why a recipient or identity string was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// A classic (not post-quantum) age X25519 recipient.
    ClassicRecipient,
    /// An SSH public key.
    SshKey,
    /// A recipient for an age plugin (`age1NAME1…`).
    PluginRecipient(String),
    /// A post-quantum recipient whose key is unusable.
    InvalidKey(String),
    /// Not a recipient (or identity) at all.
    NotAKey,
    /// A plugin identity for another plugin.
    OtherPlugin(String),
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::ClassicRecipient => f.write_str(
                "is a classic age X25519 recipient (age1…); nexusq encrypts only to \
                 post-quantum recipients",
            ),
            KeyError::SshKey => {
                f.write_str("is an SSH key; nexusq encrypts only to post-quantum age recipients")
            }
            KeyError::PluginRecipient(name) => write!(
                f,
                "is a recipient of the age plugin {name:?}; nexusq encrypts only to age1pq1… recipients"
            ),
            KeyError::InvalidKey(why) => write!(f, "is an unusable age1pq1 recipient: {why}"),
            KeyError::NotAKey => f.write_str("is not an age recipient or identity"),
            KeyError::OtherPlugin(name) => {
                write!(f, "is an identity of another age plugin ({name:?})")
            }
        }
    }
}

/// `age1pq1…` for an X-Wing public key.
pub fn encode_recipient(pk: &[u8]) -> String {
    encode(RECIPIENT_HRP, pk)
}

/// Parse a recipient string: an `age1pq1…` key, checked (length, low-order X25519 part).
pub fn parse_recipient(s: &str) -> Result<Vec<u8>, KeyError> {
    let s = s.trim();
    if s.starts_with("ssh-") || s.starts_with("ecdsa-sha2-") || s.starts_with("sk-") {
        return Err(KeyError::SshKey);
    }
    let (hrp, data) = decode(s).ok_or(KeyError::NotAKey)?;
    match hrp.as_str() {
        RECIPIENT_HRP => {
            if data.len() != XWING_PUBLIC_KEY_LEN {
                return Err(KeyError::InvalidKey(format!(
                    "{} bytes instead of {XWING_PUBLIC_KEY_LEN}",
                    data.len()
                )));
            }
            hybrid_kem::check_public_key(KemLevel::MlKem768, &data)
                .map_err(|e| KeyError::InvalidKey(e.to_string()))?;
            Ok(data.to_vec())
        }
        X25519_RECIPIENT_HRP => Err(KeyError::ClassicRecipient),
        h if h.starts_with("age1") => Err(KeyError::PluginRecipient(h[4..].to_string())),
        _ => Err(KeyError::NotAKey),
    }
}

/// An identity from an identity file.
pub enum Identity {
    /// An MLKEM768-X25519 identity: the 32-byte X-Wing seed.
    Hybrid(SecretBytes<32>),
    /// A classic X25519 identity.
    X25519(SecretBytes<32>),
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Identity::Hybrid(_) => "Identity::Hybrid(redacted)",
            Identity::X25519(_) => "Identity::X25519(redacted)",
        })
    }
}

impl Identity {
    /// Ready to decrypt with: an X-Wing seed is expanded once, here, on `backend`.
    pub fn expand(&self, backend: &dyn Backend) -> Key {
        match self {
            Identity::Hybrid(seed) => Key::Hybrid(DecapsulationKey::from_seed(
                backend,
                KemLevel::MlKem768,
                seed,
            )),
            Identity::X25519(sk) => Key::X25519(sk.clone()),
        }
    }
}

/// An identity ready to decrypt with ([`Identity::expand`]); `Debug` shows no secret.
pub enum Key {
    /// An X-Wing key, expanded.
    Hybrid(DecapsulationKey),
    /// A classic X25519 secret key.
    X25519(SecretBytes<32>),
}

impl Key {
    /// Borrow it as the decryption functions take it.
    pub fn as_ref(&self) -> super::IdentityRef<'_> {
        match self {
            Key::Hybrid(k) => super::IdentityRef::Hybrid(k),
            Key::X25519(s) => super::IdentityRef::X25519(s),
        }
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Key::Hybrid(_) => "Key::Hybrid(redacted)",
            Key::X25519(_) => "Key::X25519(redacted)",
        })
    }
}

/// `AGE-SECRET-KEY-PQ-1…` for an X-Wing seed (uppercase, as age writes it).
pub fn encode_identity(seed: &SecretBytes<32>) -> Zeroizing<String> {
    Zeroizing::new(encode(IDENTITY_HRP, seed.expose()).to_ascii_uppercase())
}

/// Parse one identity string.
pub fn parse_identity(s: &str) -> Result<Identity, KeyError> {
    let (hrp, data) = decode(s.trim()).ok_or(KeyError::NotAKey)?;
    let seed = || SecretBytes::<32>::from_slice(&data).ok_or(KeyError::NotAKey);
    if hrp.eq_ignore_ascii_case(IDENTITY_HRP) {
        Ok(Identity::Hybrid(seed()?))
    } else if hrp.eq_ignore_ascii_case(X25519_IDENTITY_HRP) {
        Ok(Identity::X25519(seed()?))
    } else if let Some(name) = hrp.strip_prefix("age-plugin-") {
        Err(KeyError::OtherPlugin(
            name.trim_end_matches('-').to_string(),
        ))
    } else {
        Err(KeyError::NotAKey)
    }
}

/// A line-numbered problem in a recipients or identity file.
#[derive(Debug, PartialEq, Eq)]
pub struct LineError {
    /// 1-based.
    pub line: usize,
    /// What is wrong with that line.
    pub error: KeyError,
}

fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// Parse an age recipients file: one recipient per line, blank lines and `#` comments ignored.
pub fn parse_recipients_file(text: &str) -> Result<Vec<Vec<u8>>, LineError> {
    content_lines(text)
        .map(|(line, l)| parse_recipient(l).map_err(|error| LineError { line, error }))
        .collect()
}

/// Parse an age identity file: `AGE-SECRET-KEY-PQ-1…` and `AGE-SECRET-KEY-1…` lines, blank
/// lines and `#` comments ignored.
pub fn parse_identity_file(text: &str) -> Result<Vec<Identity>, LineError> {
    content_lines(text)
        .map(|(line, l)| parse_identity(l).map_err(|error| LineError { line, error }))
        .collect()
}

/// What an `AGE-PLUGIN-NEXUSQ-1…` identity names: a version byte (1), then the vault's
/// path as bytes, or nothing for the default vault. It holds no key material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginIdentity {
    /// The vault's path as bytes; `None` for the default vault.
    pub vault: Option<Vec<u8>>,
}

const PLUGIN_IDENTITY_VERSION: u8 = 1;

impl PluginIdentity {
    /// `AGE-PLUGIN-NEXUSQ-1…`, uppercase as age writes identities.
    pub fn encode(&self) -> String {
        let mut data = vec![PLUGIN_IDENTITY_VERSION];
        if let Some(v) = &self.vault {
            data.extend_from_slice(v);
        }
        encode(PLUGIN_IDENTITY_HRP, &data).to_ascii_uppercase()
    }

    /// Parse a plugin identity string; another plugin's identity is [`KeyError::OtherPlugin`].
    pub fn parse(s: &str) -> Result<PluginIdentity, KeyError> {
        let (hrp, data) = decode(s.trim()).ok_or(KeyError::NotAKey)?;
        if !hrp.eq_ignore_ascii_case(PLUGIN_IDENTITY_HRP) {
            return Err(match hrp.strip_prefix("age-plugin-") {
                Some(n) => KeyError::OtherPlugin(n.trim_end_matches('-').to_string()),
                None => KeyError::NotAKey,
            });
        }
        match data.split_first() {
            Some((&PLUGIN_IDENTITY_VERSION, rest)) => Ok(PluginIdentity {
                vault: (!rest.is_empty()).then(|| rest.to_vec()),
            }),
            _ => Err(KeyError::NotAKey),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::rustcrypto::RustCrypto;

    /// The examples of C2SP age.md.
    #[test]
    fn spec_examples() {
        let id = "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX";
        let Identity::X25519(sk) = parse_identity(id).unwrap() else {
            panic!()
        };
        let pk = super::super::x25519::public_key(&sk);
        assert_eq!(
            encode(X25519_RECIPIENT_HRP, &pk),
            "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj"
        );
        assert_eq!(
            parse_recipient("age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj"),
            Err(KeyError::ClassicRecipient)
        );
        let pq = "AGE-SECRET-KEY-PQ-1XX76JRALNLXDMEW0CRK45QMCCH4X06SE84UN3VPM33W6HWDX0H3SK3ZQFR";
        let Identity::Hybrid(seed) = parse_identity(pq).unwrap() else {
            panic!()
        };
        assert_eq!(encode_identity(&seed).as_str(), pq);
        let pk = hybrid_kem::public_key(&RustCrypto, KemLevel::MlKem768, &seed);
        let r = encode_recipient(&pk);
        // The recipient printed in the spec for this identity, byte for byte.
        assert_eq!(r, include_str!("testdata/spec_recipient.txt").trim());
        assert_eq!(parse_recipient(&r).unwrap(), pk);
        assert_eq!(parse_recipient(&r.to_ascii_uppercase()).unwrap(), pk);
    }

    #[test]
    fn refusals() {
        assert_eq!(
            parse_recipient("ssh-ed25519 AAAAC3Nza user@host"),
            Err(KeyError::SshKey)
        );
        let plugin = encode("age1yubikey", &[1, 2, 3]);
        assert_eq!(
            parse_recipient(&plugin),
            Err(KeyError::PluginRecipient("yubikey".into()))
        );
        assert_eq!(parse_recipient("hello"), Err(KeyError::NotAKey));
        // A flipped character breaks the checksum; mixed case is refused.
        let seed = SecretBytes::<32>::random();
        let r = encode_recipient(&hybrid_kem::public_key(
            &RustCrypto,
            KemLevel::MlKem768,
            &seed,
        ));
        let mut flipped = r.clone().into_bytes();
        let i = flipped.len() - 10;
        flipped[i] = if flipped[i] == b'q' { b'p' } else { b'q' };
        assert!(parse_recipient(std::str::from_utf8(&flipped).unwrap()).is_err());
        // Upper-case one letter of the data part (a digit has no case).
        let at = 7 + r[7..].find(|c: char| c.is_ascii_lowercase()).unwrap();
        let mut mixed = r.clone();
        mixed.replace_range(at..at + 1, &r[at..at + 1].to_ascii_uppercase());
        assert!(parse_recipient(&mixed).is_err());
        // A recipient of the wrong length.
        assert!(matches!(
            parse_recipient(&encode(RECIPIENT_HRP, &[7u8; 32])),
            Err(KeyError::InvalidKey(_))
        ));
    }

    #[test]
    fn files_and_plugin_identity() {
        let seed = SecretBytes::<32>::random();
        let pk = hybrid_kem::public_key(&RustCrypto, KemLevel::MlKem768, &seed);
        let text = format!("# a comment\n\n  {}  \r\n", encode_recipient(&pk));
        assert_eq!(parse_recipients_file(&text).unwrap(), vec![pk]);
        let bad = format!(
            "{}\nage1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj\n",
            encode_recipient(&hybrid_kem::public_key(
                &RustCrypto,
                KemLevel::MlKem768,
                &seed
            ))
        );
        assert_eq!(parse_recipients_file(&bad).unwrap_err().line, 2);
        let ids = format!("# created: today\n{}\n", encode_identity(&seed).as_str());
        assert_eq!(parse_identity_file(&ids).unwrap().len(), 1);
        for p in [
            PluginIdentity { vault: None },
            PluginIdentity {
                vault: Some(b"/home/u/vault.nxq".to_vec()),
            },
        ] {
            let s = p.encode();
            assert!(s.starts_with("AGE-PLUGIN-NEXUSQ-1"), "{s}");
            assert_eq!(PluginIdentity::parse(&s).unwrap(), p);
            assert_eq!(
                parse_identity(&s).unwrap_err(),
                KeyError::OtherPlugin("nexusq".into())
            );
        }
    }
}

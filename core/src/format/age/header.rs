//! The age v1 header (C2SP age.md, "Header"), read strictly:
//!
//! ```text
//! header = "age-encryption.org/v1" LF 1*stanza "--- " 43base64char LF
//! ```
//!
//! followed by the 16-byte payload nonce. The MAC is HMAC-SHA-256 with key
//! HKDF-SHA-256(ikm = file key, salt = empty, info = "header") over the header up to and
//! including "---". Every stanza of a type nexusq knows (`mlkem768x25519`, `X25519`,
//! `scrypt`) is checked structurally when the header is read, whichever identities are at
//! hand, so a malformed header is a header failure and never a "no match".

use super::error::AgeError;
use super::stanza::{FormatError, LineReader, Stanza, decode_b64, encode_b64};
use super::{FileKey, mlkem768x25519, x25519};
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::io::BufRead;
use subtle::ConstantTimeEq;

/// The header's first line.
pub(crate) const VERSION_LINE: &[u8] = b"age-encryption.org/v1";
/// Length of the payload nonce that follows the header.
pub(crate) const NONCE_LEN: usize = 16;
/// The largest header read. 64 mlkem768x25519 stanzas take about 100 KiB.
pub const MAX_HEADER_LEN: usize = 1024 * 1024;
/// Tag of a passphrase stanza; such files are recognised and refused.
pub(crate) const SCRYPT_TAG: &str = "scrypt";
/// The largest scrypt work factor (log2 N) accepted as well-formed, as age's own default.
const MAX_SCRYPT_WORK_FACTOR: u32 = 22;

/// A parsed header: stanzas, the MAC, the bytes it covers, and the payload nonce.
pub struct Header {
    /// The recipient stanzas, in file order.
    pub stanzas: Vec<Stanza>,
    /// The header up to and including "---".
    mac_input: Vec<u8>,
    mac: [u8; 32],
    /// The payload nonce (the HKDF salt of the payload key).
    pub nonce: [u8; NONCE_LEN],
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Header {{ stanzas: {:?} }}", self.stanzas)
    }
}

fn header_err(e: FormatError) -> AgeError {
    match e {
        FormatError::Invalid(why) => AgeError::Header(why),
        FormatError::Truncated => AgeError::Header("the input ends inside the header"),
        FormatError::TooLong => AgeError::Header("the header is longer than 1 MiB"),
        FormatError::Io(e) => AgeError::from_read(e),
    }
}

/// The HMAC key for the header MAC.
fn mac_key(file_key: &FileKey) -> crate::secret::SecretBytes<32> {
    let mut k = crate::secret::SecretBytes::<32>::zero();
    Hkdf::<Sha256>::new(Some(&[]), file_key.0.expose())
        .expand(b"header", k.expose_mut())
        .expect("32 bytes");
    k
}

fn compute_mac(file_key: &FileKey, data: &[u8]) -> [u8; 32] {
    let key = mac_key(file_key);
    let mut mac = <Hmac<Sha256> as hmac::digest::KeyInit>::new_from_slice(key.expose())
        .expect("HMAC takes any key");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// The scrypt stanza's structural rules (age.md, "scrypt recipient stanza").
fn check_scrypt(s: &Stanza) -> Result<(), AgeError> {
    let [salt, work] = s.args.as_slice() else {
        return Err(AgeError::Header(
            "an scrypt stanza must have exactly two arguments after its type",
        ));
    };
    if decode_b64(salt.as_bytes()).is_none_or(|v| v.len() != 16) {
        return Err(AgeError::Header(
            "an scrypt stanza's salt is not canonical base64 of 16 bytes",
        ));
    }
    let digits_ok = work.bytes().all(|b| b.is_ascii_digit()) && !work.starts_with('0');
    match work.parse::<u32>() {
        Ok(w) if digits_ok && (1..=MAX_SCRYPT_WORK_FACTOR).contains(&w) => {}
        _ => {
            return Err(AgeError::Header(
                "an scrypt stanza's work factor is not a decimal number from 1 to 22",
            ));
        }
    }
    if s.body.len() != 32 {
        return Err(AgeError::Header("an scrypt stanza's body is not 32 bytes"));
    }
    Ok(())
}

impl Header {
    /// Read the header and the payload nonce from the start of `input`, leaving it at the
    /// first payload chunk. Reads at most [`MAX_HEADER_LEN`] bytes; nothing is authenticated.
    pub fn read<R: BufRead + ?Sized>(input: &mut R) -> Result<Header, AgeError> {
        let mut lines = LineReader::new(input, true, Some(MAX_HEADER_LEN));
        let first = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => return Err(AgeError::Header("the input is empty")),
            Err(FormatError::Io(e)) => return Err(AgeError::from_read(e)),
            Err(_) => {
                let rec = lines.recorded.as_deref().unwrap_or_default();
                return Err(if rec.starts_with(b"age-encryption.org/") {
                    AgeError::Header("the version line is malformed")
                } else {
                    AgeError::NotAge
                });
            }
        };
        if first != VERSION_LINE {
            return Err(if first.starts_with(b"age-encryption.org/") {
                AgeError::UnsupportedVersion
            } else {
                AgeError::NotAge
            });
        }
        let mut stanzas = Vec::new();
        let mac_line = loop {
            let line = lines
                .next_line()
                .map_err(header_err)?
                .ok_or(AgeError::Header("the input ends inside the header"))?;
            if line.starts_with(b"-> ") {
                stanzas.push(Stanza::read(&line, &mut lines).map_err(header_err)?);
            } else if line.starts_with(b"---") {
                break line;
            } else {
                return Err(AgeError::Header(
                    "a header line starts with neither \"-> \" nor \"---\"",
                ));
            }
        };
        if stanzas.is_empty() {
            return Err(AgeError::Header("the header has no recipient stanza"));
        }
        let mac: [u8; 32] = mac_line
            .strip_prefix(b"--- ")
            .filter(|m| m.len() == 43)
            .and_then(decode_b64)
            .and_then(|m| m.try_into().ok())
            .ok_or(AgeError::Header(
                "the MAC line is not \"--- \" and 43 characters of canonical base64",
            ))?;
        let mut mac_input = lines.recorded.take().expect("recording");
        // Everything after "---": the space, the MAC and the LF.
        mac_input.truncate(mac_input.len() - (mac_line.len() - 3) - 1);
        let mut nonce = [0u8; NONCE_LEN];
        let got = crate::wire::read_full(input, &mut nonce).map_err(AgeError::from_read)?;
        if got < NONCE_LEN {
            return Err(AgeError::Header("the input ends inside the payload nonce"));
        }
        let header = Header {
            stanzas,
            mac_input,
            mac,
            nonce,
        };
        header.check_known_stanzas()?;
        Ok(header)
    }

    fn check_known_stanzas(&self) -> Result<(), AgeError> {
        let mut scrypt = false;
        for s in &self.stanzas {
            match s.tag.as_str() {
                mlkem768x25519::TAG => {
                    mlkem768x25519::check(s)?;
                }
                x25519::TAG => {
                    x25519::check(s)?;
                }
                SCRYPT_TAG => {
                    check_scrypt(s)?;
                    scrypt = true;
                }
                _ => {}
            }
        }
        if scrypt && self.stanzas.len() > 1 {
            return Err(AgeError::Header(
                "an scrypt stanza must be the only stanza in the header",
            ));
        }
        if scrypt {
            return Err(AgeError::Passphrase);
        }
        Ok(())
    }

    /// Check the MAC (constant time) for a file key that a stanza gave.
    pub(crate) fn verify_mac(&self, file_key: &FileKey) -> Result<(), AgeError> {
        let mac = compute_mac(file_key, &self.mac_input);
        if bool::from(mac.ct_eq(&self.mac)) {
            Ok(())
        } else {
            Err(AgeError::Hmac)
        }
    }

    /// Encode a header for `stanzas` with its MAC under `file_key`, then the nonce.
    pub fn encode(stanzas: &[Stanza], file_key: &FileKey, nonce: &[u8; NONCE_LEN]) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + stanzas.len() * 1600);
        out.extend_from_slice(VERSION_LINE);
        out.push(b'\n');
        for s in stanzas {
            s.encode(&mut out);
        }
        out.extend_from_slice(b"---");
        let mac = compute_mac(file_key, &out);
        out.push(b' ');
        out.extend_from_slice(encode_b64(&mac).as_bytes());
        out.push(b'\n');
        out.extend_from_slice(nonce);
        out
    }
}

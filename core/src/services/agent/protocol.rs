//! The agent's wire protocol (docs/agent.md): one request and one response per connection,
//! each a frame `u32be length || body`, the body `u8 version || u8 kind || payload`.
//!
//! Bounded on both sides: a request body is at most [`MAX_REQUEST`] bytes, a response body at
//! most [`MAX_RESPONSE`]; a longer length field is refused before anything is read or
//! allocated. Decoding is strict (exact lengths, no trailing bytes) and never panics.

use crate::secret::SecretBytes;
use crate::wire::{DecodeError, DecodeResult, Reader, Writer};
use std::io::{Read, Write};
use zeroize::Zeroizing;

/// The protocol version, the first byte of every body.
pub const VERSION: u8 = 1;
/// The largest request body: a decapsulation of the largest hybrid ciphertext fits easily.
pub const MAX_REQUEST: usize = 4096;
/// The largest response body: a status with many generations, or a signature.
pub const MAX_RESPONSE: usize = 64 * 1024;
/// Length of the digest a `sign` request carries: SHA-512.
pub(crate) const DIGEST_LEN: usize = 64;
/// Longest error message an agent sends (bytes of UTF-8).
pub const MAX_MESSAGE: usize = 1024;
/// The `suite` of a `decapsulate` request for RFC 9980 algorithm 35's combiner with the
/// generation's X-Wing key: the answer is a key-encryption key for AES key wrap (an OpenPGP
/// PKESK's), not a hybrid KEM's shared secret.
pub const SUITE_OPENPGP_MLKEM768_X25519: u16 = 0x8023;
/// Shortest digest a `sign-openpgp` request carries (SHA-256, SHA3-256).
pub const OPENPGP_DIGEST_MIN: usize = crate::suite::hybrid_sig::OPENPGP_DIGEST_MIN;
/// Longest digest a `sign-openpgp` request carries (SHA-512, SHA3-512).
pub const OPENPGP_DIGEST_MAX: usize = crate::suite::hybrid_sig::OPENPGP_DIGEST_MAX;

const REQ_STATUS: u8 = 0x01;
const REQ_SIGN: u8 = 0x02;
const REQ_DECAPSULATE: u8 = 0x03;
const REQ_STOP: u8 = 0x04;
const REQ_SIGN_OPENPGP: u8 = 0x05;
const RESP_ERROR: u8 = 0x80;
const RESP_STATUS: u8 = 0x81;
const RESP_SIGNATURE: u8 = 0x82;
const RESP_SECRET: u8 = 0x83;
const RESP_STOPPING: u8 = 0x84;

/// What a client asks the agent (docs/agent.md, "Protocol (version 1)").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Who the agent is and what it holds; answered with [`Response::Status`].
    Status,
    /// Sign the SHA-512 `digest` with the newest generation, under nexusq's signature context
    /// for `signed_at` (the agent builds the context itself).
    Sign {
        /// SHA-512 of the data to sign.
        digest: [u8; DIGEST_LEN],
        /// The signing time to claim (Unix seconds); must lie inside the generation's validity.
        signed_at: u64,
    },
    /// Decapsulate a hybrid KEM ciphertext with one generation's key of one suite.
    Decapsulate {
        /// The recipient generation whose key to use.
        generation: u32,
        /// The hybrid KEM's suite id (0x0001 X-Wing, 0x0002 ML-KEM-1024 + X25519), or
        /// [`SUITE_OPENPGP_MLKEM768_X25519`] for RFC 9980's combiner with the X-Wing key.
        suite: u16,
        /// The hybrid KEM ciphertext.
        ciphertext: Vec<u8>,
    },
    /// Stop now, wiping the keys; answered with [`Response::Stopping`].
    Stop,
    /// Sign an OpenPGP signature's `digest` with the newest generation: RFC 9980 algorithm
    /// 30, the digest itself signed with no context; answered with [`Response::Signature`].
    SignOpenPgp {
        /// The digest the OpenPGP signature packet hashes to
        /// ([`OPENPGP_DIGEST_MIN`]..=[`OPENPGP_DIGEST_MAX`] bytes).
        digest: Vec<u8>,
        /// The signature packet's creation time (Unix seconds); must lie inside the
        /// generation's validity.
        signed_at: u64,
    },
}

/// What a running agent says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The agent's process id.
    pub pid: u32,
    /// The root_id of the identity it serves.
    pub root_id: [u8; 32],
    /// The newest generation, the one that signs (0: no signing key held).
    pub signing_generation: u32,
    /// Unix seconds: started, and when it stops at the latest (the --max expiry).
    pub started_at: u64,
    /// When the agent stops at the latest: `started_at` + `--max` (Unix seconds).
    pub expires_at: u64,
    /// Seconds until the idle timeout stops it, unless it is used before then.
    pub idle_left: u64,
    /// Whether all its memory is locked (mlockall); the secrets' own pages are locked anyway
    /// where the system allows it.
    pub memory_locked: bool,
    /// The (generation, suite) of every decapsulation key held, newest first.
    pub keys: Vec<(u32, u16)>,
    /// The vault file it serves (its resolved path, as UTF-8 lossily).
    pub vault: String,
}

/// The agent's answer. `Debug` never shows a shared secret or signature bytes.
pub enum Response {
    /// The request was refused; the message says why (at most [`MAX_MESSAGE`] bytes are sent).
    Error(String),
    /// The answer to [`Request::Status`].
    Status(Status),
    /// The answer to [`Request::Sign`] and [`Request::SignOpenPgp`].
    Signature {
        /// The generation whose key signed.
        generation: u32,
        /// The composite ML-DSA-65 + Ed25519 signature (3373 bytes), or RFC 9980's
        /// Ed25519 + ML-DSA-65 one (3373 bytes too).
        signature: Vec<u8>,
    },
    /// The hybrid KEM's shared secret, the answer to [`Request::Decapsulate`].
    Secret(SecretBytes<32>),
    /// The answer to [`Request::Stop`]: the agent is stopping.
    Stopping,
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Response::Error(m) => write!(f, "Error({m:?})"),
            Response::Status(s) => write!(f, "Status({s:?})"),
            Response::Signature { generation, .. } => {
                write!(f, "Signature(generation {generation})")
            }
            Response::Secret(_) => f.write_str("Secret(redacted)"),
            Response::Stopping => f.write_str("Stopping"),
        }
    }
}

fn body(kind: u8) -> Writer {
    let mut w = Writer::new();
    w.u8(VERSION).u8(kind);
    w
}

fn header<'a>(bytes: &'a [u8], what: &str) -> DecodeResult<(u8, Reader<'a>)> {
    let mut r = Reader::new(bytes);
    let version = r.u8(what)?;
    if version != VERSION {
        return Err(DecodeError(format!(
            "{what} version {version} is not {VERSION} (a different nexusq version?)"
        )));
    }
    let kind = r.u8(what)?;
    Ok((kind, r))
}

impl Request {
    /// The frame body (without the length prefix).
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Request::Status => body(REQ_STATUS).into_inner(),
            Request::Sign { digest, signed_at } => {
                let mut w = body(REQ_SIGN);
                w.bytes(digest).u64(*signed_at);
                w.into_inner()
            }
            Request::Decapsulate {
                generation,
                suite,
                ciphertext,
            } => {
                let mut w = body(REQ_DECAPSULATE);
                w.u32(*generation).u16(*suite).bytes_u16(ciphertext);
                w.into_inner()
            }
            Request::Stop => body(REQ_STOP).into_inner(),
            Request::SignOpenPgp { digest, signed_at } => {
                // A length the decoder refuses is sent as it is (cut at 255), to be refused.
                let digest = &digest[..digest.len().min(usize::from(u8::MAX))];
                let mut w = body(REQ_SIGN_OPENPGP);
                w.u8(digest.len() as u8).bytes(digest).u64(*signed_at);
                w.into_inner()
            }
        }
    }

    /// Strict decoding of a request body; over [`MAX_REQUEST`] bytes or any defect is an error.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        if bytes.len() > MAX_REQUEST {
            return Err(DecodeError("request is too long".into()));
        }
        let (kind, mut r) = header(bytes, "request")?;
        let req = match kind {
            REQ_STATUS => Request::Status,
            REQ_SIGN => Request::Sign {
                digest: r.array("digest")?,
                signed_at: r.u64("signing time")?,
            },
            REQ_DECAPSULATE => Request::Decapsulate {
                generation: r.u32("generation")?,
                suite: r.u16("suite")?,
                ciphertext: r.bytes_u16("ciphertext")?.to_vec(),
            },
            REQ_STOP => Request::Stop,
            REQ_SIGN_OPENPGP => {
                let n = usize::from(r.u8("digest length")?);
                if !(OPENPGP_DIGEST_MIN..=OPENPGP_DIGEST_MAX).contains(&n) {
                    return Err(DecodeError(format!(
                        "an OpenPGP digest of {n} bytes is not \
                         {OPENPGP_DIGEST_MIN}..={OPENPGP_DIGEST_MAX} bytes long"
                    )));
                }
                Request::SignOpenPgp {
                    digest: r.take(n, "digest")?.to_vec(),
                    signed_at: r.u64("signing time")?,
                }
            }
            other => return Err(DecodeError(format!("unknown request kind {other:#04x}"))),
        };
        r.finish("request")?;
        Ok(req)
    }
}

impl Response {
    /// The body; zeroized on drop, since a `Secret` carries a shared secret.
    pub fn encode(&self) -> Zeroizing<Vec<u8>> {
        let plain = match self {
            Response::Error(m) => {
                let mut end = m.len().min(MAX_MESSAGE);
                while !m.is_char_boundary(end) {
                    end -= 1;
                }
                let mut w = body(RESP_ERROR);
                w.bytes_u16(&m.as_bytes()[..end]);
                w.into_inner()
            }
            Response::Status(s) => {
                let mut w = body(RESP_STATUS);
                w.u32(s.pid)
                    .bytes(&s.root_id)
                    .u32(s.signing_generation)
                    .u64(s.started_at)
                    .u64(s.expires_at)
                    .u64(s.idle_left)
                    .u8(u8::from(s.memory_locked))
                    .u16(s.keys.len().min(1024) as u16);
                for (g, suite) in s.keys.iter().take(1024) {
                    w.u32(*g).u16(*suite);
                }
                let vault = s.vault.as_bytes();
                w.bytes_u16(&vault[..vault.len().min(4096)]);
                w.into_inner()
            }
            Response::Signature {
                generation,
                signature,
            } => {
                let mut w = body(RESP_SIGNATURE);
                w.u32(*generation).bytes_u16(signature);
                w.into_inner()
            }
            Response::Secret(ss) => {
                // Built in place (no growth, so no stray copy of the secret in freed memory).
                let mut v = Zeroizing::new(Vec::with_capacity(SECRET_BODY_LEN));
                v.extend_from_slice(&[VERSION, RESP_SECRET]);
                v.extend_from_slice(ss.expose());
                return v;
            }
            Response::Stopping => body(RESP_STOPPING).into_inner(),
        };
        Zeroizing::new(plain)
    }

    /// Strict decoding of a response body; over [`MAX_RESPONSE`] bytes or any defect is an error.
    pub fn decode(bytes: &[u8]) -> DecodeResult<Self> {
        if bytes.len() > MAX_RESPONSE {
            return Err(DecodeError("response is too long".into()));
        }
        let (kind, mut r) = header(bytes, "response")?;
        let resp = match kind {
            RESP_ERROR => {
                let m = r.bytes_u16("message")?;
                Response::Error(String::from_utf8_lossy(m).into_owned())
            }
            RESP_STATUS => {
                let pid = r.u32("pid")?;
                let root_id = r.array("root id")?;
                let signing_generation = r.u32("generation")?;
                let started_at = r.u64("start")?;
                let expires_at = r.u64("expiry")?;
                let idle_left = r.u64("idle")?;
                let memory_locked = r.u8("memory locked")? != 0;
                let n = r.u16("key count")?;
                let mut keys = Vec::new();
                for _ in 0..n {
                    keys.push((r.u32("key generation")?, r.u16("key suite")?));
                }
                let vault = String::from_utf8_lossy(r.bytes_u16("vault")?).into_owned();
                Response::Status(Status {
                    pid,
                    root_id,
                    signing_generation,
                    started_at,
                    expires_at,
                    idle_left,
                    memory_locked,
                    keys,
                    vault,
                })
            }
            RESP_SIGNATURE => Response::Signature {
                generation: r.u32("generation")?,
                signature: r.bytes_u16("signature")?.to_vec(),
            },
            RESP_SECRET => {
                let ss = SecretBytes::from_slice(r.take(32, "shared secret")?)
                    .expect("32 bytes were taken");
                Response::Secret(ss)
            }
            RESP_STOPPING => Response::Stopping,
            other => return Err(DecodeError(format!("unknown response kind {other:#04x}"))),
        };
        r.finish("response")?;
        Ok(resp)
    }
}

/// The body of a `Secret` response: version, kind, the 32-byte shared secret.
const SECRET_BODY_LEN: usize = 2 + 32;

/// Write the frame of a `Secret` response from a buffer on the caller's stack, zeroized
/// after: the agent writes it from its key thread, whose stack is locked in memory
/// (docs/security.md section 11), so the secret never passes through the heap on its way out.
pub(crate) fn write_secret_frame(w: &mut impl Write, ss: &SecretBytes<32>) -> std::io::Result<()> {
    let mut frame = Zeroizing::new([0u8; 4 + SECRET_BODY_LEN]);
    frame[..4].copy_from_slice(&(SECRET_BODY_LEN as u32).to_be_bytes());
    frame[4] = VERSION;
    frame[5] = RESP_SECRET;
    frame[6..].copy_from_slice(ss.expose());
    w.write_all(&frame[..])?;
    w.flush()
}

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The peer closed before a whole frame arrived (or sent nothing).
    Truncated,
    /// The length field exceeds the bound.
    TooLong(u32),
    /// Reading from the socket failed (a timeout included: see [`is_timeout`]).
    Io(std::io::Error),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Truncated => f.write_str("the connection ended inside a message"),
            FrameError::TooLong(n) => write!(f, "a message of {n} bytes is over the bound"),
            FrameError::Io(e) if is_timeout(e) => f.write_str("timed out"),
            FrameError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Is this I/O error a socket timeout?
pub fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// Read one frame of at most `max` bytes. The length is checked before the body is read. The
/// body is zeroized on drop (a response may carry a shared secret).
pub fn read_frame(r: &mut impl Read, max: usize) -> Result<Zeroizing<Vec<u8>>, FrameError> {
    let mut len = [0u8; 4];
    read_all(r, &mut len)?;
    let n = u32::from_be_bytes(len);
    if n as usize > max {
        return Err(FrameError::TooLong(n));
    }
    let mut buf = Zeroizing::new(vec![0u8; n as usize]);
    read_all(r, &mut buf)?;
    Ok(buf)
}

fn read_all(r: &mut impl Read, buf: &mut [u8]) -> Result<(), FrameError> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => return Err(FrameError::Truncated),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    Ok(())
}

/// Write one frame (length, then body) in one write; the copy is zeroized after.
pub(crate) fn write_frame(w: &mut impl Write, body: &[u8]) -> std::io::Result<()> {
    let mut frame = Zeroizing::new(Vec::with_capacity(4 + body.len()));
    frame.extend_from_slice(&(body.len() as u32).to_be_bytes());
    frame.extend_from_slice(body);
    w.write_all(&frame)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_junk_is_refused() {
        let reqs = [
            Request::Status,
            Request::Stop,
            Request::Sign {
                digest: [7; 64],
                signed_at: 1_700_000_000,
            },
            Request::Decapsulate {
                generation: 3,
                suite: 0x0001,
                ciphertext: vec![1; 1120],
            },
            Request::Decapsulate {
                generation: 1,
                suite: SUITE_OPENPGP_MLKEM768_X25519,
                ciphertext: vec![2; 1120],
            },
            Request::SignOpenPgp {
                digest: vec![5; 32],
                signed_at: 1_700_000_000,
            },
            Request::SignOpenPgp {
                digest: vec![6; 48],
                signed_at: 0,
            },
            Request::SignOpenPgp {
                digest: vec![7; 64],
                signed_at: u64::MAX,
            },
        ];
        for req in reqs {
            let bytes = req.encode();
            assert_eq!(Request::decode(&bytes).unwrap(), req);
            // Every truncation and one extra byte are refused.
            for n in 0..bytes.len() {
                assert!(Request::decode(&bytes[..n]).is_err(), "{req:?} cut at {n}");
            }
            let mut long = bytes.clone();
            long.push(0);
            assert!(Request::decode(&long).is_err());
            let mut other_version = bytes;
            other_version[0] = 2;
            assert!(Request::decode(&other_version).is_err());
        }
        assert!(Request::decode(&[VERSION, 0x7f]).is_err());
        assert!(Request::decode(&vec![VERSION; MAX_REQUEST + 1]).is_err());
    }

    #[test]
    fn openpgp_sign_requests_have_their_layout_and_refuse_other_digest_lengths() {
        let req = Request::SignOpenPgp {
            digest: vec![0xab; 32],
            signed_at: 0x0102_0304_0506_0708,
        };
        let bytes = req.encode();
        assert_eq!(
            bytes,
            [
                &[VERSION, 0x05, 32][..],
                &[0xab; 32],
                &[1, 2, 3, 4, 5, 6, 7, 8]
            ]
            .concat()
        );
        // Every digest length outside 32..=64 is refused, before the digest is read.
        for n in [0usize, 1, 20, 31, 65, 128, 255] {
            let mut body = vec![VERSION, 0x05, n as u8];
            body.extend(std::iter::repeat_n(9, n));
            body.extend_from_slice(&[0; 8]);
            let e = Request::decode(&body).unwrap_err();
            assert!(e.0.contains("OpenPGP digest"), "{n}: {}", e.0);
            let bad = Request::SignOpenPgp {
                digest: vec![9; n],
                signed_at: 0,
            };
            assert!(Request::decode(&bad.encode()).is_err(), "{n}");
        }
        // A length field that promises more than the body holds.
        assert!(Request::decode(&[VERSION, 0x05, 64, 1, 2, 3]).is_err());
        // An over-long digest is cut at 255 bytes by the encoder, and still refused.
        let huge = Request::SignOpenPgp {
            digest: vec![1; 4000],
            signed_at: 0,
        };
        assert_eq!(huge.encode().len(), 2 + 1 + 255 + 8);
        assert!(Request::decode(&huge.encode()).is_err());
    }

    #[test]
    fn responses_round_trip() {
        let status = Status {
            pid: 42,
            root_id: [9; 32],
            signing_generation: 2,
            started_at: 1,
            expires_at: 2,
            idle_left: 3,
            memory_locked: true,
            keys: vec![(2, 1), (2, 2), (1, 1)],
            vault: "/v".into(),
        };
        let bytes = Response::Status(status.clone()).encode();
        match Response::decode(&bytes).unwrap() {
            Response::Status(s) => assert_eq!(s, status),
            other => panic!("{other:?}"),
        }
        let ss = SecretBytes::<32>::random();
        match Response::decode(&Response::Secret(ss.clone()).encode()).unwrap() {
            Response::Secret(got) => assert_eq!(got.expose(), ss.expose()),
            other => panic!("{other:?}"),
        }
        let sig = Response::Signature {
            generation: 7,
            signature: vec![3; 3373],
        };
        match Response::decode(&sig.encode()).unwrap() {
            Response::Signature {
                generation,
                signature,
            } => assert_eq!((generation, signature), (7, vec![3; 3373])),
            other => panic!("{other:?}"),
        }
        let long = "é".repeat(MAX_MESSAGE);
        match Response::decode(&Response::Error(long).encode()).unwrap() {
            Response::Error(m) => assert!(m.len() <= MAX_MESSAGE),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn frames_are_bounded_before_reading() {
        let mut huge = &[0xff, 0xff, 0xff, 0xff, 1, 2][..];
        assert!(matches!(
            read_frame(&mut huge, MAX_REQUEST),
            Err(FrameError::TooLong(_))
        ));
        let mut cut = &[0, 0, 0, 5, 1][..];
        assert!(matches!(
            read_frame(&mut cut, MAX_REQUEST),
            Err(FrameError::Truncated)
        ));
        let mut out = Vec::new();
        write_frame(&mut out, b"abc").unwrap();
        assert_eq!(*read_frame(&mut &out[..], 3).unwrap(), b"abc");
    }

    #[test]
    fn the_secret_frame_is_the_encoded_secret_response() {
        let ss = SecretBytes::<32>::random();
        let mut from_stack = Vec::new();
        write_secret_frame(&mut from_stack, &ss).unwrap();
        let mut framed = Vec::new();
        write_frame(&mut framed, &Response::Secret(ss.clone()).encode()).unwrap();
        assert_eq!(from_stack, framed);
        match Response::decode(&read_frame(&mut &from_stack[..], MAX_RESPONSE).unwrap()) {
            Ok(Response::Secret(got)) => assert_eq!(got.expose(), ss.expose()),
            other => panic!("{other:?}"),
        }
    }
}

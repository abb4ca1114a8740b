//! The `identity-v1` state machine of the age plugin protocol (C2SP age-plugin.md), as the
//! plugin side, over any reader and writer (the binary passes stdin and stdout).
//!
//! Phase 1 (client): `add-identity` and `recipient-stanza` commands until `done`; anything else
//! is grease and ignored. Phase 2 (plugin): for each file with `mlkem768x25519` stanzas, the
//! keys that the identity names are fetched once (through [`KeySource`], which may ask the
//! client for the vault password with `request-secret`), tried on the stanzas, and the file
//! key is sent with `file-key`; errors go to the client as `error identity` / `error stanza`,
//! then `done`. Frames use the header's stanza format ([`super::stanza`]), read strictly; a
//! malformed frame ends the conversation with [`PluginError::Protocol`], never a panic.
//! This module knows nothing of terminals or vaults.

use super::recipient::PluginIdentity;
use super::stanza::{FormatError, LineReader, Stanza};
use super::{IdentityRef, mlkem768x25519, unwrap_stanza};
use crate::secret::SecretBytes;
use crate::suite::backend::Backend;
use std::fmt;
use std::io::{self, BufRead, Write};
use zeroize::Zeroizing;

/// The most bytes the client may send in phase 1 (stanzas of many files).
pub const MAX_PHASE1_LEN: usize = 64 * 1024 * 1024;

#[derive(Debug)]
pub enum PluginError {
    /// The client broke the protocol (a malformed or unexpected frame).
    Protocol(&'static str),
    Io(io::Error),
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginError::Protocol(why) => write!(f, "age plugin protocol error: {why}"),
            PluginError::Io(e) => write!(f, "age plugin I/O error: {e}"),
        }
    }
}

impl std::error::Error for PluginError {}

impl From<FormatError> for PluginError {
    fn from(e: FormatError) -> Self {
        match e {
            FormatError::Invalid(why) => PluginError::Protocol(why),
            FormatError::Truncated => PluginError::Protocol("the client's input ended mid-frame"),
            FormatError::Io(e) => PluginError::Io(e),
        }
    }
}

/// Asks the client for a secret: `Ok(None)` when it could not (`fail`).
pub type AskSecret<'a> = dyn FnMut(&str) -> Result<Option<Zeroizing<Vec<u8>>>, PluginError> + 'a;

/// Where the keys of an identity come from (the plugin binary: the vault it names).
pub trait KeySource {
    /// The X-Wing seeds of every key `identity` names. `Err(message)`: it is unusable (a
    /// wrong password, a missing vault); the message goes to the client, which shows it.
    fn keys(
        &mut self,
        identity: &PluginIdentity,
        ask: &mut AskSecret<'_>,
    ) -> Result<Vec<SecretBytes<32>>, String>;
}

struct Conn<'a, R: BufRead + ?Sized, W: Write> {
    lines: LineReader<'a, R>,
    out: W,
}

impl<R: BufRead + ?Sized, W: Write> Conn<'_, R, W> {
    fn receive(&mut self) -> Result<Stanza, PluginError> {
        let first = self
            .lines
            .next_line()?
            .ok_or(PluginError::Protocol("the client closed the connection"))?;
        if !first.starts_with(b"-> ") {
            return Err(PluginError::Protocol("a frame does not start with \"-> \""));
        }
        Ok(Stanza::read(&first, &mut self.lines)?)
    }

    fn send(&mut self, tag: &str, args: &[&str], body: &[u8]) -> Result<(), PluginError> {
        let mut frame = Zeroizing::new(Vec::new());
        Stanza {
            tag: tag.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            body: body.to_vec(),
        }
        .encode(&mut frame);
        self.out
            .write_all(&frame)
            .and_then(|()| self.out.flush())
            .map_err(PluginError::Io)
    }

    /// Send a command of phase 2 and read the client's answer: its body on `ok`, `None` on
    /// `fail`.
    fn command(
        &mut self,
        tag: &str,
        args: &[&str],
        body: &[u8],
    ) -> Result<Option<Zeroizing<Vec<u8>>>, PluginError> {
        self.send(tag, args, body)?;
        let reply = self.receive()?;
        match reply.tag.as_str() {
            "ok" => Ok(Some(Zeroizing::new(reply.body))),
            "fail" => Ok(None),
            _ => Err(PluginError::Protocol(
                "the client answered with neither ok nor fail",
            )),
        }
    }
}

/// One file's stanzas, in the order received.
struct File {
    index: String,
    stanzas: Vec<Stanza>,
    /// A file key was sent, or an error about one of its stanzas.
    settled: bool,
}

/// Run identity-v1 with the client on `input`/`output`, until the final `done`.
pub fn run_identity_v1<R: BufRead + ?Sized, W: Write>(
    input: &mut R,
    output: W,
    backend: &dyn Backend,
    source: &mut dyn KeySource,
) -> Result<(), PluginError> {
    let mut conn = Conn {
        lines: LineReader::new(input, false, Some(MAX_PHASE1_LEN)),
        out: output,
    };

    // Phase 1.
    let mut identities: Vec<String> = Vec::new();
    let mut files: Vec<File> = Vec::new();
    loop {
        let s = conn.receive()?;
        match s.tag.as_str() {
            "done" => break,
            "add-identity" => {
                let [id] = s.args.as_slice() else {
                    return Err(PluginError::Protocol(
                        "add-identity must have exactly one argument",
                    ));
                };
                identities.push(id.clone());
            }
            "recipient-stanza" => {
                let (index, rest) = s
                    .args
                    .split_first()
                    .ok_or(PluginError::Protocol("recipient-stanza has no file index"))?;
                let (tag, args) = rest
                    .split_first()
                    .ok_or(PluginError::Protocol("recipient-stanza has no stanza type"))?;
                let n = parse_index(index)?;
                match files.last() {
                    Some(f) if f.index == *index => {}
                    Some(f) if parse_index(&f.index)? >= n => {
                        return Err(PluginError::Protocol(
                            "recipient-stanza file indices must increase",
                        ));
                    }
                    _ => files.push(File {
                        index: index.clone(),
                        stanzas: Vec::new(),
                        settled: false,
                    }),
                }
                files.last_mut().expect("pushed").stanzas.push(Stanza {
                    tag: tag.clone(),
                    args: args.to_vec(),
                    body: s.body,
                });
            }
            _ => {} // grease, or a command of a later revision
        }
    }
    // Phase 2 has no byte limit of its own; replies are small.
    conn.lines = LineReader::new(conn.lines.into_inner(), false, None);

    // Identities first: an unknown or invalid one is an error, and then nothing is unwrapped.
    let mut parsed = Vec::with_capacity(identities.len());
    let mut bad = false;
    for (i, id) in identities.iter().enumerate() {
        match PluginIdentity::parse(id) {
            Ok(p) => parsed.push(p),
            Err(e) => {
                bad = true;
                let msg = format!("not an AGE-PLUGIN-NEXUSQ-1 identity: it {e}");
                conn.command("error", &["identity", &i.to_string()], msg.as_bytes())?;
            }
        }
    }
    if bad {
        return conn.send("done", &[], &[]);
    }

    // Structural checks of our stanzas: an invalid one settles its file with an error.
    for f in &mut files {
        for (j, s) in f.stanzas.iter().enumerate() {
            if s.tag == mlkem768x25519::TAG
                && let Err(e) = mlkem768x25519::check(s)
            {
                let msg = format!("invalid mlkem768x25519 stanza: {e}");
                conn.command(
                    "error",
                    &["stanza", &f.index, &j.to_string()],
                    msg.as_bytes(),
                )?;
                f.settled = true;
                break;
            }
        }
    }
    let wanted = |f: &File| !f.settled && f.stanzas.iter().any(|s| s.tag == mlkem768x25519::TAG);

    for (i, identity) in parsed.iter().enumerate() {
        if !files.iter().any(wanted) {
            break;
        }
        let mut protocol: Option<PluginError> = None;
        let keys = {
            let conn = &mut conn;
            let protocol = &mut protocol;
            let mut ask = |message: &str| -> Result<Option<Zeroizing<Vec<u8>>>, PluginError> {
                conn.command("request-secret", &[], message.as_bytes())
                    .map_err(|e| {
                        *protocol = Some(e);
                        PluginError::Protocol("request-secret failed")
                    })
            };
            source.keys(identity, &mut ask)
        };
        if let Some(e) = protocol {
            return Err(e);
        }
        let keys = match keys {
            Ok(k) => k,
            Err(msg) => {
                conn.command("error", &["identity", &i.to_string()], msg.as_bytes())?;
                continue;
            }
        };
        for f in files.iter_mut().filter(|f| wanted(f)) {
            'stanzas: for (j, s) in f.stanzas.iter().enumerate() {
                for seed in &keys {
                    match unwrap_stanza(backend, IdentityRef::Hybrid(seed), s) {
                        Ok(None) => {}
                        Ok(Some(file_key)) => {
                            conn.command("file-key", &[&f.index], file_key.0.expose())?;
                            f.settled = true;
                            break 'stanzas;
                        }
                        Err(e) => {
                            let msg = e.to_string();
                            conn.command(
                                "error",
                                &["stanza", &f.index, &j.to_string()],
                                msg.as_bytes(),
                            )?;
                            f.settled = true;
                            break 'stanzas;
                        }
                    }
                }
            }
        }
    }
    conn.send("done", &[], &[])
}

fn parse_index(s: &str) -> Result<u64, PluginError> {
    let ok =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    ok.then(|| s.parse::<u64>().ok())
        .flatten()
        .ok_or(PluginError::Protocol(
            "a file index is not a decimal number",
        ))
}

//! The `identity-v1` state machine of the age plugin protocol (C2SP age-plugin.md), as the
//! plugin side, over any reader and writer (the binary passes stdin and stdout).
//!
//! Phase 1 (client): `add-identity` and `recipient-stanza` commands until `done`; anything else
//! is grease and ignored. Phase 2 (plugin): for each file with `mlkem768x25519` stanzas, the
//! keys that the identity names are fetched once (through [`KeySource`], which may ask the
//! client for the vault password with `request-secret` or show it a `msg`), tried on the
//! stanzas, and the file key is sent with `file-key`; keys whose holder stopped answering
//! (the key agent) are fetched once more, another way; errors go to the client as
//! `error identity` / `error stanza`, then `done`. Frames use the header's stanza format
//! ([`super::stanza`]), read strictly; a malformed frame ends the conversation with
//! [`PluginError::Protocol`], never a panic.
//! This module knows nothing of terminals or vaults.

use super::recipient::PluginIdentity;
use super::stanza::{FormatError, LineReader, Stanza};
use super::{IdentityRef, mlkem768x25519, unwrap_stanza};
use crate::suite::hybrid_kem::Decapsulate;
use std::fmt;
use std::io::{self, BufRead, Write};
use zeroize::Zeroizing;

/// The most bytes the client may send in phase 1 (stanzas of many files).
pub(crate) const MAX_PHASE1_LEN: usize = 64 * 1024 * 1024;

/// The most bytes one reply of the client may take in phase 2, as sent (its `ok` or `fail`
/// line and its base64 body): a password, or nothing. A longer one is a protocol error, read
/// no further than this (docs/age.md).
pub(crate) const MAX_REPLY_LEN: usize = 64 * 1024;

/// Why a plugin conversation ended early.
#[derive(Debug)]
pub enum PluginError {
    /// The client broke the protocol (a malformed or unexpected frame).
    Protocol(&'static str),
    /// Reading from or writing to the client failed.
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
            FormatError::TooLong => PluginError::Protocol("the client sent more than allowed"),
            FormatError::Io(e) => PluginError::Io(e),
        }
    }
}

/// What a [`KeySource`] may ask of the client (age) while it fetches keys.
pub trait Client {
    /// Ask the user for a secret (`request-secret`; age prompts): `Ok(None)` when the client
    /// could not (`fail`).
    fn request_secret(&mut self, prompt: &str) -> Result<Option<Zeroizing<Vec<u8>>>, PluginError>;
    /// Show the user a message (`msg`).
    fn message(&mut self, text: &str) -> Result<(), PluginError>;
}

/// Which time [`KeySource::keys`] is asked for an identity's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// The first request for an identity's keys.
    First,
    /// A key of the first answer did not answer itself ([`Decapsulate::unanswered`]: the key
    /// agent stopped): fetch them another way (the password).
    Again,
}

/// The keys of one identity, in the order to try them.
pub type Keys<'a> = Vec<Box<dyn Decapsulate + 'a>>;

/// Where the keys of an identity come from (the plugin binary: the key agent or the vault it
/// names).
pub trait KeySource {
    /// The X-Wing decapsulation keys of every key `identity` names, in the order to try them.
    /// `Err(message)`: it is unusable (a wrong password, a missing vault); the message goes to
    /// the client, which shows it. A client error (`PluginError`) from `client` must be
    /// returned as `Err` too; the conversation then ends with that error.
    fn keys(
        &mut self,
        identity: &PluginIdentity,
        attempt: Attempt,
        client: &mut dyn Client,
    ) -> Result<Keys<'_>, String>;
}

struct Conn<'a, R: BufRead + ?Sized, W: Write> {
    lines: LineReader<'a, R>,
    out: W,
    /// What a frame past the reader's limit is, in this phase.
    too_long: &'static str,
}

impl<R: BufRead + ?Sized, W: Write> Conn<'_, R, W> {
    fn receive(&mut self) -> Result<Stanza, PluginError> {
        let msg = self.too_long;
        let too_long = |e: FormatError| match e {
            FormatError::TooLong => PluginError::Protocol(msg),
            e => e.into(),
        };
        let first = self
            .lines
            .next_line()
            .map_err(too_long)?
            .ok_or(PluginError::Protocol("the client closed the connection"))?;
        if !first.starts_with(b"-> ") {
            return Err(PluginError::Protocol("a frame does not start with \"-> \""));
        }
        Stanza::read(&first, &mut self.lines).map_err(too_long)
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
        self.lines.set_limit(Some(MAX_REPLY_LEN));
        let reply = self.receive()?;
        match reply.tag.as_str() {
            "ok" => Ok(Some(Zeroizing::new(reply.body))),
            "fail" => Ok(None),
            _ => Err(PluginError::Protocol(
                "the client answered with neither ok nor fail",
            )),
        }
    }

    /// Report stanza `stanza` of file `file` as bad (which settles that file).
    fn stanza_error(&mut self, file: &str, stanza: usize, msg: &str) -> Result<(), PluginError> {
        self.command(
            "error",
            &["stanza", file, &stanza.to_string()],
            msg.as_bytes(),
        )
        .map(drop)
    }
}

/// The client as a [`KeySource`] sees it; the first protocol error is kept, since the source
/// reports failures as text.
struct Asker<'c, 'a, R: BufRead + ?Sized, W: Write> {
    conn: &'c mut Conn<'a, R, W>,
    protocol: Option<PluginError>,
}

impl<R: BufRead + ?Sized, W: Write> Asker<'_, '_, R, W> {
    fn keep(&mut self, e: PluginError) -> PluginError {
        self.protocol.get_or_insert(e);
        PluginError::Protocol("the client did not answer a request")
    }
}

impl<R: BufRead + ?Sized, W: Write> Client for Asker<'_, '_, R, W> {
    fn request_secret(&mut self, prompt: &str) -> Result<Option<Zeroizing<Vec<u8>>>, PluginError> {
        self.conn
            .command("request-secret", &[], prompt.as_bytes())
            .map_err(|e| self.keep(e))
    }

    fn message(&mut self, text: &str) -> Result<(), PluginError> {
        // `fail` means it could not show it; nothing to do about that.
        match self.conn.command("msg", &[], text.as_bytes()) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.keep(e)),
        }
    }
}

/// How trying an identity's keys on the files ended.
enum Tried {
    Done,
    /// A key's holder stopped answering: fetch the keys again, another way.
    Unanswered,
}

/// Try `keys` on every file still wanting a key: each stanza in order, each key in order.
fn try_keys<R: BufRead + ?Sized, W: Write>(
    conn: &mut Conn<'_, R, W>,
    files: &mut [File],
    keys: &Keys<'_>,
) -> Result<Tried, PluginError> {
    for f in files.iter_mut().filter(|f| f.wanted()) {
        'stanzas: for (j, s) in f.stanzas.iter().enumerate() {
            for key in keys {
                let result = unwrap_stanza(IdentityRef::Hybrid(key.as_ref()), s);
                if key.unanswered() {
                    // Its refusal says nothing about the stanza; the other keys of this answer
                    // are held by the same silent agent.
                    return Ok(Tried::Unanswered);
                }
                match result {
                    Ok(None) => {}
                    Ok(Some(file_key)) => {
                        conn.command("file-key", &[&f.index], file_key.0.expose())?;
                        f.settled = true;
                        break 'stanzas;
                    }
                    Err(e) => {
                        conn.stanza_error(&f.index, j, &e.to_string())?;
                        f.settled = true;
                        break 'stanzas;
                    }
                }
            }
        }
    }
    Ok(Tried::Done)
}

/// One file's stanzas, in the order received.
struct File {
    index: String,
    stanzas: Vec<Stanza>,
    /// A file key was sent, or an error about one of its stanzas.
    settled: bool,
}

impl File {
    /// Not settled yet, and it has a stanza of ours.
    fn wanted(&self) -> bool {
        !self.settled && self.stanzas.iter().any(|s| s.tag == mlkem768x25519::TAG)
    }
}

/// Run identity-v1 with the client on `input`/`output`, until the final `done`.
pub fn run_identity_v1<R: BufRead + ?Sized, W: Write>(
    input: &mut R,
    output: W,
    source: &mut dyn KeySource,
) -> Result<(), PluginError> {
    let mut conn = Conn {
        lines: LineReader::new(input, false, Some(MAX_PHASE1_LEN)),
        out: output,
        too_long: "the client sent more than 64 MiB before done",
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
    // Phase 2: each reply has its own bound, set as its command is sent.
    conn.too_long = "a reply of the client is longer than 64 KiB";

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
                conn.stanza_error(&f.index, j, &format!("invalid mlkem768x25519 stanza: {e}"))?;
                f.settled = true;
                break;
            }
        }
    }
    'identities: for (i, identity) in parsed.iter().enumerate() {
        for attempt in [Attempt::First, Attempt::Again] {
            if !files.iter().any(File::wanted) {
                break 'identities;
            }
            let mut asker = Asker {
                conn: &mut conn,
                protocol: None,
            };
            let keys = source.keys(identity, attempt, &mut asker);
            if let Some(e) = asker.protocol {
                return Err(e);
            }
            let keys = match keys {
                Ok(k) => k,
                Err(msg) => {
                    conn.command("error", &["identity", &i.to_string()], msg.as_bytes())?;
                    continue 'identities;
                }
            };
            match try_keys(&mut conn, &mut files, &keys)? {
                Tried::Done => continue 'identities,
                Tried::Unanswered => {}
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::age::{FileKey, Header, encrypt};
    use crate::secret::SecretBytes;
    use crate::suite::hybrid_kem::{self, DecapsulationKey, KemError, KemLevel};
    use crate::suite::rustcrypto::RustCrypto;
    use std::cell::Cell;

    /// A key agent stand-in: a key that answers until `dead`, then fails and says so.
    struct Flaky {
        key: DecapsulationKey,
        dead: bool,
        failed: Cell<bool>,
    }

    impl Decapsulate for Flaky {
        fn kem_level(&self) -> KemLevel {
            KemLevel::MlKem768
        }

        fn decapsulate_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
            if self.dead {
                self.failed.set(true);
                return Err(KemError::InvalidCiphertext);
            }
            self.key.decapsulate(ct)
        }

        fn decapsulate_openpgp_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
            if self.dead {
                self.failed.set(true);
                return Err(KemError::InvalidCiphertext);
            }
            self.key.decapsulate_openpgp(ct)
        }

        fn unanswered(&self) -> bool {
            self.failed.get()
        }
    }

    /// A vault stand-in: one password, some seeds; counts how often it was asked. With
    /// `agent`, the first attempt gets the keys from an "agent" (alive or not) with no
    /// password, after a message.
    struct Fake {
        password: &'static [u8],
        seeds: Vec<SecretBytes<32>>,
        calls: usize,
        agent: Option<bool>,
    }

    impl KeySource for Fake {
        fn keys(
            &mut self,
            identity: &PluginIdentity,
            attempt: Attempt,
            client: &mut dyn Client,
        ) -> Result<Keys<'_>, String> {
            self.calls += 1;
            assert_eq!(identity.vault.as_deref(), Some(&b"/v.nxq"[..]));
            let expand = |s| DecapsulationKey::from_seed(&RustCrypto, KemLevel::MlKem768, s);
            if let (Some(alive), Attempt::First) = (self.agent, attempt) {
                client
                    .message("using the key agent")
                    .map_err(|e| e.to_string())?;
                return Ok(self
                    .seeds
                    .iter()
                    .map(|s| {
                        Box::new(Flaky {
                            key: expand(s),
                            dead: !alive,
                            failed: Cell::new(false),
                        }) as Box<dyn Decapsulate>
                    })
                    .collect());
            }
            match client.request_secret("Enter the password of the nexusq vault /v.nxq") {
                Ok(Some(p)) if p.as_slice() == self.password => Ok(self
                    .seeds
                    .iter()
                    .map(|s| Box::new(expand(s)) as Box<dyn Decapsulate>)
                    .collect()),
                Ok(Some(_)) => Err("wrong password for the nexusq vault /v.nxq".into()),
                Ok(None) => Err("no password given".into()),
                Err(e) => Err(e.to_string()),
            }
        }
    }

    fn identity() -> String {
        PluginIdentity {
            vault: Some(b"/v.nxq".to_vec()),
        }
        .encode()
    }

    /// An age file to `seed`'s key: its stanzas as recipient-stanza frames, and the header.
    fn file_to(seed: &SecretBytes<32>, index: usize) -> (String, Header) {
        let pk = hybrid_kem::public_key(&RustCrypto, KemLevel::MlKem768, seed);
        let mut file = Vec::new();
        encrypt(&RustCrypto, &[&pk], &mut &b"x"[..], &mut file).unwrap();
        let header = Header::read(&mut &file[..]).unwrap();
        let mut frames = Vec::new();
        for s in &header.stanzas {
            let mut st = s.clone();
            st.args.insert(0, st.tag.clone());
            st.args.insert(0, index.to_string());
            st.tag = "recipient-stanza".into();
            st.encode(&mut frames);
        }
        (String::from_utf8(frames).unwrap(), header)
    }

    fn ok_with(body: &[u8]) -> String {
        let mut out = Vec::new();
        Stanza {
            tag: "ok".into(),
            args: vec![],
            body: body.to_vec(),
        }
        .encode(&mut out);
        String::from_utf8(out).unwrap()
    }

    fn run(input: &str, fake: &mut Fake) -> (Result<(), PluginError>, Vec<Stanza>) {
        let mut out = Vec::new();
        let r = run_identity_v1(&mut input.as_bytes(), &mut out, fake);
        // Parse what the plugin said, frame by frame.
        let mut said = Vec::new();
        let mut rd = &out[..];
        let mut lines = LineReader::new(&mut rd, false, None);
        while let Some(first) = lines.next_line().unwrap() {
            said.push(Stanza::read(&first, &mut lines).unwrap());
        }
        (r, said)
    }

    fn tags(said: &[Stanza]) -> Vec<&str> {
        said.iter().map(|s| s.tag.as_str()).collect()
    }

    #[test]
    fn unwraps_two_files_after_one_password_prompt_with_grease() {
        let (a, b) = (SecretBytes::random(), SecretBytes::random());
        let (f0, h0) = file_to(&a, 0);
        let (f1, h1) = file_to(&b, 1);
        let input = format!(
            "-> add-identity {}\n\n-> grease x y\nAAAA\n{f0}{f1}-> done\n\n{}{}{}",
            identity(),
            ok_with(b"right"),
            ok_with(b""),
            ok_with(b"")
        );
        let mut fake = Fake {
            password: b"right",
            seeds: vec![SecretBytes::random(), a, b],
            calls: 0,
            agent: None,
        };
        let (r, said) = run(&input, &mut fake);
        r.unwrap();
        assert_eq!(
            tags(&said),
            ["request-secret", "file-key", "file-key", "done"]
        );
        assert_eq!(fake.calls, 1);
        for (s, h, i) in [(&said[1], &h0, "0"), (&said[2], &h1, "1")] {
            assert_eq!(s.args, [i]);
            let key = FileKey(SecretBytes::from_slice(&s.body).unwrap());
            h.verify_mac(&key).unwrap();
        }
    }

    #[test]
    fn wrong_password_is_an_identity_error_and_no_key() {
        let a = SecretBytes::random();
        let (f0, _) = file_to(&a, 0);
        let input = format!(
            "-> add-identity {}\n\n{f0}-> done\n\n{}{}",
            identity(),
            ok_with(b"wrong"),
            ok_with(b"")
        );
        let mut fake = Fake {
            password: b"right",
            seeds: vec![a],
            calls: 0,
            agent: None,
        };
        let (r, said) = run(&input, &mut fake);
        r.unwrap();
        assert_eq!(tags(&said), ["request-secret", "error", "done"]);
        assert_eq!(said[1].args, ["identity", "0"]);
        assert!(String::from_utf8_lossy(&said[1].body).contains("wrong password"));
    }

    #[test]
    fn unknown_stanza_types_are_ignored_without_asking() {
        let input = format!(
            "-> add-identity {}\n\n-> recipient-stanza 0 X25519 {}\n{}\n-> recipient-stanza 0 example.com/enigma\n\n-> done\n\n",
            identity(),
            "A".repeat(43),
            "A".repeat(43)
        );
        let mut fake = Fake {
            password: b"right",
            seeds: vec![],
            calls: 0,
            agent: None,
        };
        let (r, said) = run(&input, &mut fake);
        r.unwrap();
        assert_eq!(tags(&said), ["done"]);
        assert_eq!(fake.calls, 0);
    }

    #[test]
    fn invalid_stanza_and_foreign_identity_are_reported() {
        let input = "-> add-identity AGE-PLUGIN-OTHER-1QQQQQQQ\n\n-> done\n\n-> ok\n\n".to_string();
        let mut fake = Fake {
            password: b"right",
            seeds: vec![],
            calls: 0,
            agent: None,
        };
        let (r, said) = run(&input, &mut fake);
        r.unwrap();
        assert_eq!(tags(&said), ["error", "done"]);
        assert_eq!(said[0].args, ["identity", "0"]);

        let input = format!(
            "-> add-identity {}\n\n-> recipient-stanza 0 mlkem768x25519 AAAA\n{}\n-> done\n\n-> ok\n\n",
            identity(),
            "A".repeat(43)
        );
        let (r, said) = run(&input, &mut fake);
        r.unwrap();
        assert_eq!(tags(&said), ["error", "done"]);
        assert_eq!(said[0].args, ["stanza", "0", "0"]);
        assert_eq!(fake.calls, 0);
    }

    #[test]
    fn keys_that_stop_answering_are_fetched_again_with_the_password() {
        let a = SecretBytes::random();
        let (f0, h0) = file_to(&a, 0);
        let phase1 = format!("-> add-identity {}\n\n{f0}-> done\n\n", identity());
        // An agent that answers: a message, the file key, no password asked.
        let mut fake = Fake {
            password: b"right",
            seeds: vec![SecretBytes::random(), a.clone()],
            calls: 0,
            agent: Some(true),
        };
        let (r, said) = run(&(phase1.clone() + &ok_with(b"") + &ok_with(b"")), &mut fake);
        r.unwrap();
        assert_eq!(tags(&said), ["msg", "file-key", "done"]);
        assert_eq!(fake.calls, 1);
        h0.verify_mac(&FileKey(SecretBytes::from_slice(&said[1].body).unwrap()))
            .unwrap();

        // One that stopped: no stanza error, asked once more, and the password opens it.
        fake.agent = Some(false);
        fake.calls = 0;
        let answers = ok_with(b"") + &ok_with(b"right") + &ok_with(b"");
        let (r, said) = run(&(phase1.clone() + &answers), &mut fake);
        r.unwrap();
        assert_eq!(tags(&said), ["msg", "request-secret", "file-key", "done"]);
        assert_eq!(fake.calls, 2);
        h0.verify_mac(&FileKey(SecretBytes::from_slice(&said[2].body).unwrap()))
            .unwrap();

        // A client that breaks off at the message: a protocol error, not a key.
        let (r, said) = run(&(phase1 + "-> bogus\n\n"), &mut fake);
        assert!(matches!(r, Err(PluginError::Protocol(_))), "{r:?}");
        assert_eq!(tags(&said), ["msg"]);
    }

    #[test]
    fn malformed_frames_are_clean_errors() {
        let id = identity();
        let mut fake = Fake {
            password: b"right",
            seeds: vec![],
            calls: 0,
            agent: None,
        };
        let (a, b) = (SecretBytes::random(), SecretBytes::random());
        let (f1, _) = file_to(&a, 1);
        let (f0, _) = file_to(&b, 0);
        for bad in [
            "garbage\n".to_string(),
            format!("-> add-identity {id}\n"), // no body line, input ends
            format!("-> add-identity {id}\nAAA=\n-> done\n\n"), // padded base64
            format!("-> add-identity {id}\r\n\n-> done\n\n"), // CR
            "-> add-identity\n\n-> done\n\n".to_string(),
            "-> recipient-stanza 01 mlkem768x25519 A\n\n-> done\n\n".to_string(),
            format!("{f1}{f0}-> done\n\n"), // indices go back
            String::new(),                  // closed at once
            format!("-> add-identity {id}\n\n{f0}-> done\n\n-> bogus\n\n"), // bad reply
            format!("-> add-identity {id}\n\n{f0}-> done\n\n"), // no reply at all
        ] {
            let (r, _) = run(&bad, &mut fake);
            assert!(matches!(r, Err(PluginError::Protocol(_))), "{bad:?}: {r:?}");
        }
    }

    /// A client that sends `head`, then base64 lines without end (up to `len` bytes in all),
    /// made as they are read, never held; `taken` counts the bytes the plugin read.
    struct Flood {
        head: Vec<u8>,
        len: u64,
        taken: std::rc::Rc<Cell<u64>>,
    }

    impl std::io::Read for Flood {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            const LINE: &[u8; 65] =
                b"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
            let at = self.taken.get();
            let n = (buf.len() as u64).min(self.len - at) as usize;
            for (i, b) in buf[..n].iter_mut().enumerate() {
                let p = at + i as u64;
                *b = match self.head.get(p as usize) {
                    Some(&h) => h,
                    None => LINE[((p - self.head.len() as u64) % 65) as usize],
                };
            }
            self.taken.set(at + n as u64);
            Ok(n)
        }
    }

    #[test]
    fn a_reply_longer_than_64_kib_is_refused_without_reading_it() {
        let a = SecretBytes::random();
        let (f0, _) = file_to(&a, 0);
        // The password the plugin asks for comes as a 200 MB `ok` body.
        let head = format!("-> add-identity {}\n\n{f0}-> done\n\n-> ok\n", identity());
        let taken = std::rc::Rc::new(Cell::new(0));
        let flood = Flood {
            head: head.clone().into_bytes(),
            len: 200 << 20,
            taken: taken.clone(),
        };
        let mut input = std::io::BufReader::new(flood);
        let mut out = Vec::new();
        let mut fake = Fake {
            password: b"right",
            seeds: vec![a],
            calls: 0,
            agent: None,
        };
        let r = run_identity_v1(&mut input, &mut out, &mut fake);
        match r {
            Err(PluginError::Protocol(why)) => assert!(why.contains("64 KiB"), "{why}"),
            other => panic!("{other:?}"),
        }
        // The reply's bound, and what the buffered reader had fetched beyond it.
        let past_head = taken.get() - head.len() as u64;
        assert!(
            past_head <= (MAX_REPLY_LEN + 8192) as u64,
            "read {past_head} bytes of the reply"
        );
        assert!(out.starts_with(b"-> request-secret\n"));
        assert!(!String::from_utf8_lossy(&out).contains("file-key"));
    }
}

//! OpenPGP messages (docs/openpgp.md, "Messages"): encrypted to certificates' ML-KEM-768 +
//! X25519 subkeys (PKESK v6, SEIPD v2 with AES-256 and OCB), and decrypted with our keys.
//!
//! Decryption accepts SEIPD v2 only: its chunks are authenticated before Sequoia releases
//! them, while SEIPD v1 is checked once, at the very end, after the plaintext went out. A
//! session key is unwrapped only from an algorithm 35 PKESK; a message that also has a
//! classical or password PKESK still opens, and [`Decrypted::classical_too`] says so.

use super::{pgp_error, system_time};
use crate::error::{Error, Result};
use crate::suite::hybrid_kem::Decapsulate;
use pgp::KeyHandle;
use pgp::crypto::mem::Protected;
use pgp::crypto::{SessionKey, mpi};
use pgp::packet::key::{Key6, PublicParts, UnspecifiedRole};
use pgp::packet::{Key, PKESK, SKESK};
use pgp::parse::Parse;
use pgp::parse::stream::{
    DecryptionHelper, DecryptorBuilder, MessageStructure, VerificationHelper,
};
use pgp::policy::StandardPolicy;
use pgp::serialize::stream::{Armorer, Encryptor, LiteralWriter, Message, Recipient};
use pgp::types::{Features, PublicKeyAlgorithm, SymmetricAlgorithm};
use sequoia_openpgp as pgp;
use std::io::{self, Read, Write};

/// An ML-KEM-768 + X25519 key a message is encrypted to: from someone's certificate
/// ([`PeerCert::encryption_keys`](super::cert::PeerCert::encryption_keys)) or our own
/// ([`keys::encryption_subkey`](super::keys::encryption_subkey)).
pub(crate) type RecipientKey = Key<PublicParts, UnspecifiedRole>;

/// Encrypt `input` to `recipients` (PKESK v6 each, SEIPD v2, AES-256, OCB), armored or
/// binary, into `output`. Returns the plaintext's length.
pub fn encrypt(
    recipients: &[RecipientKey],
    armor: bool,
    input: &mut dyn Read,
    output: &mut dyn Write,
) -> Result<u64> {
    let failed = |e: anyhow::Error| {
        pgp_error(
            "could not encrypt the OpenPGP message",
            &e,
            "check that the output can be written",
        )
    };
    let v2 = Features::empty().set_seipdv2();
    let recipients: Vec<Recipient> = recipients
        .iter()
        .map(|k| Recipient::new(v2.clone(), KeyHandle::from(k.fingerprint()), k))
        .collect();
    // Sequoia's writers must be Send and Sync; ours need not be, so Sequoia writes into a
    // spool that is emptied into `output` after every block, in this thread.
    let spool = Spool::default();
    let mut message = Message::new(spool.clone());
    if armor {
        message = Armorer::new(message)
            .kind(pgp::armor::Kind::Message)
            .build()
            .map_err(failed)?;
    }
    let message = Encryptor::for_recipients(message, recipients)
        .symmetric_algo(SymmetricAlgorithm::AES256)
        .build()
        .map_err(failed)?;
    let mut literal = LiteralWriter::new(message).build().map_err(failed)?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Error::io(
                    format!("cannot read the input: {e}"),
                    "check the input",
                ));
            }
        };
        literal.write_all(&buf[..n]).map_err(|e| failed(e.into()))?;
        total += n as u64;
        spool.drain_into(output)?;
    }
    literal.finalize().map_err(failed)?;
    spool.drain_into(output)?;
    Ok(total)
}

/// Bytes Sequoia wrote and `output` has not yet received.
#[derive(Clone, Default)]
struct Spool(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Spool {
    fn drain_into(&self, output: &mut dyn Write) -> Result<()> {
        let mut pending = self.0.lock().unwrap_or_else(|p| p.into_inner());
        output
            .write_all(&pending)
            .map_err(|e| Error::io(format!("cannot write the output: {e}"), "check the output"))?;
        pending.clear();
        Ok(())
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The policy messages are read under (Sequoia's standard one).
static POLICY: StandardPolicy<'static> = StandardPolicy::new();

/// Plaintext Sequoia may hold before releasing it (SEIPD v2's chunks are authenticated one
/// by one whatever this is).
const STREAM_BUFFER: usize = 64 * 1024;

/// What [`SessionKeys::open`] runs over the keys: the session key and the index of the key
/// that unwrapped it, or `None`.
pub(crate) type Unwrap<'a> = dyn Fn(&[&dyn Decapsulate]) -> Option<(Unwrapped, usize)> + 'a;

/// What a key holder does for [`decrypt`]: run `unwrap` over the identity's ML-KEM-768 (X-Wing)
/// keys, the agent's or the vault's, and say which generation's key unwrapped the session key.
pub trait SessionKeys {
    /// `unwrap` gets the keys and returns the session key and the index of the key that
    /// unwrapped it; `Ok(None)`: no key did. `Err`: the keys could not be had (a wrong
    /// password, a damaged vault).
    fn open(&mut self, unwrap: &Unwrap) -> Result<Option<(Unwrapped, u32)>>;
}

impl<T: SessionKeys + ?Sized> SessionKeys for &mut T {
    fn open(&mut self, unwrap: &Unwrap) -> Result<Option<(Unwrapped, u32)>> {
        (**self).open(unwrap)
    }
}

/// A session key unwrapped from a PKESK, and the symmetric algorithm a v3 PKESK names.
pub struct Unwrapped {
    key: SessionKey,
    algo: Option<SymmetricAlgorithm>,
}

/// What [`decrypt`] found out about the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decrypted {
    /// The generation whose key unwrapped the session key.
    pub generation: u32,
    /// The session key was also encrypted to a classical key or a password, so the message
    /// is only as safe as that (not post-quantum only).
    pub classical_too: bool,
}

/// Decrypt an OpenPGP message (armored or binary) from `input` into `output`, streaming: the
/// session key is unwrapped by `keys` from an algorithm 35 PKESK, then SEIPD v2's
/// authenticated chunks are written as they are checked. On an error, what was written must
/// be thrown away (the caller's output rules do that).
pub fn decrypt<R: Read + Send + Sync>(
    input: R,
    output: &mut dyn Write,
    keys: &mut dyn SessionKeys,
    now: u64,
) -> Result<Decrypted> {
    let mut message = open(input, Box::new(keys), now)?;
    io::copy(&mut message, output).map_err(|e| message_error(&e))?;
    Ok(message.decrypted())
}

/// An OpenPGP message whose session key is unwrapped: its plaintext, read as SEIPD v2's
/// chunks authenticate. A failure while reading is an `io::Error` carrying this library's
/// [`Error`] (see [`message_error`]).
pub struct Opened<'a> {
    reader: pgp::parse::stream::Decryptor<'a, Helper<'a>>,
}

impl Opened<'_> {
    /// What was found while opening it: the generation whose key unwrapped the session key,
    /// and whether a classical key or a password could open it too.
    pub fn decrypted(&self) -> Decrypted {
        let helper = self.reader.helper_ref();
        Decrypted {
            generation: helper.found.expect("the decryptor opened the message"),
            classical_too: helper.classical_too,
        }
    }
}

impl Read for Opened<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader
            .read(buf)
            .map_err(|e| io::Error::other(message_error(&e)))
    }
}

impl std::fmt::Debug for Opened<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Opened {{ {:?} }}", self.decrypted())
    }
}

/// The library's error for a failure while reading a [`Opened`]'s plaintext: the one it
/// carries, else "damaged or altered".
pub fn message_error(e: &io::Error) -> Error {
    if let Some(ours) = e.get_ref().and_then(|i| i.downcast_ref::<Error>()) {
        return ours.clone();
    }
    Error::check(
        format!("the OpenPGP message is damaged or was altered: {e}"),
        "nothing of it was kept; ask the sender for the file again",
    )
}

/// Open an OpenPGP message (armored or binary) from `input`: the session key is unwrapped by
/// `keys` from an algorithm 35 PKESK; what is returned reads the plaintext.
pub fn open<'a, R: Read + Send + Sync + 'a>(
    input: R,
    keys: Box<dyn SessionKeys + 'a>,
    now: u64,
) -> Result<Opened<'a>> {
    let placeholder = Key6::new(
        std::time::UNIX_EPOCH,
        PublicKeyAlgorithm::MLKEM768_X25519,
        mpi::PublicKey::MLKEM768_X25519 {
            ecdh: Box::new([0; 32]),
            mlkem: Box::new([0; 1184]),
        },
    )
    .expect("fixed-size keys");
    let helper = Helper {
        keys,
        placeholder: Key::from(placeholder),
        found: None,
        classical_too: false,
    };
    // Sequoia holds back up to 25 MiB of plaintext to check signatures inside the message
    // before releasing any; nexusq does not check those (see `Helper::check`), so it keeps
    // only one AEAD chunk's worth and memory stays flat whatever the message's size.
    let builder = DecryptorBuilder::from_reader(input)
        .map_err(|e| {
            pgp_error(
                "not a readable OpenPGP message",
                &e,
                "check that the file is an OpenPGP message (-----BEGIN PGP MESSAGE-----)",
            )
        })?
        .buffer_size(STREAM_BUFFER);
    match builder.with_policy(&POLICY, Some(system_time(now)), helper) {
        Ok(reader) => Ok(Opened { reader }),
        Err(e) => Err(match e.downcast::<HelperError>() {
            Ok(HelperError(e)) => e,
            Err(e) => pgp_error(
                "could not decrypt the OpenPGP message",
                &e,
                "the message is damaged, or not for this identity",
            ),
        }),
    }
}

/// Our error, carried through Sequoia's `anyhow` and taken back out.
#[derive(Debug)]
struct HelperError(Error);

impl std::fmt::Display for HelperError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.message())
    }
}

impl std::error::Error for HelperError {}

/// Sequoia's helper: unwraps the session key with the caller's keys.
pub(crate) struct Helper<'k> {
    keys: Box<dyn SessionKeys + 'k>,
    /// Any algorithm 35 key: Sequoia asks a decryptor for its public key's algorithm only.
    placeholder: Key<PublicParts, UnspecifiedRole>,
    found: Option<u32>,
    classical_too: bool,
}

impl VerificationHelper for Helper<'_> {
    fn get_certs(&mut self, _ids: &[KeyHandle]) -> pgp::Result<Vec<pgp::Cert>> {
        Ok(Vec::new())
    }

    /// Signatures inside a message are not checked (docs/openpgp.md): `verify` checks
    /// detached ones.
    fn check(&mut self, _structure: MessageStructure) -> pgp::Result<()> {
        Ok(())
    }
}

impl DecryptionHelper for Helper<'_> {
    fn decrypt(
        &mut self,
        pkesks: &[PKESK],
        skesks: &[SKESK],
        sym_algo: Option<SymmetricAlgorithm>,
        decrypt: &mut dyn FnMut(Option<SymmetricAlgorithm>, &SessionKey) -> bool,
    ) -> pgp::Result<Option<pgp::Cert>> {
        let pq: Vec<&PKESK> = pkesks
            .iter()
            .filter(|p| p.pk_algo() == PublicKeyAlgorithm::MLKEM768_X25519)
            .collect();
        self.classical_too = pq.len() < pkesks.len() || !skesks.is_empty();
        if sym_algo.is_none() {
            return Err(HelperError(Error::check(
                "the OpenPGP message uses SEIPD v1, whose plaintext is authenticated only after \
                 it was all released",
                "ask the sender to encrypt to your certificate again (v6 certificates get SEIPD v2)",
            ))
            .into());
        }
        if pq.is_empty() {
            return Err(HelperError(Error::check(
                "the OpenPGP message is not encrypted to any post-quantum (ML-KEM-768+X25519) key",
                "nexusq decrypts only messages to its RFC 9980 certificate: give the sender \
                 that certificate",
            ))
            .into());
        }
        let placeholder = &self.placeholder;
        let unwrap = |keys: &[&dyn Decapsulate]| {
            for (i, key) in keys.iter().enumerate() {
                for pkesk in &pq {
                    let mut d = KemDecryptor {
                        key: *key,
                        public: placeholder,
                    };
                    if let Some((algo, key)) = pkesk.decrypt(&mut d, sym_algo) {
                        return Some((Unwrapped { key, algo }, i));
                    }
                }
            }
            None
        };
        match self.keys.open(&unwrap) {
            Ok(Some((u, generation))) => {
                if decrypt(u.algo.or(sym_algo), &u.key) {
                    self.found = Some(generation);
                    Ok(None)
                } else {
                    Err(HelperError(Error::check(
                        "the OpenPGP message's session key does not open its data",
                        "the message is damaged or was altered; ask the sender for it again",
                    ))
                    .into())
                }
            }
            Ok(None) => Err(HelperError(Error::check(
                "the OpenPGP message is not for this identity (no key it holds opens it)",
                "check which certificate the sender used; retired generations cannot decrypt",
            ))
            .into()),
            Err(e) => Err(HelperError(e).into()),
        }
    }
}

/// One of our keys as Sequoia's decryptor of algorithm 35 PKESKs: RFC 9980's KEK from the
/// two shares (our suite or the agent), then AES-256 key unwrap.
struct KemDecryptor<'a> {
    key: &'a dyn Decapsulate,
    public: &'a Key<PublicParts, UnspecifiedRole>,
}

impl pgp::crypto::Decryptor for KemDecryptor<'_> {
    fn public(&self) -> &Key<PublicParts, UnspecifiedRole> {
        self.public
    }

    fn decrypt(
        &mut self,
        ciphertext: &mpi::Ciphertext,
        _plaintext_len: Option<usize>,
    ) -> pgp::Result<SessionKey> {
        let mpi::Ciphertext::MLKEM768_X25519 { ecdh, mlkem, esk } = ciphertext else {
            return Err(pgp::Error::InvalidOperation("not an algorithm 35 PKESK".into()).into());
        };
        let mut ct = Vec::with_capacity(mlkem.len() + ecdh.len());
        ct.extend_from_slice(&mlkem[..]);
        ct.extend_from_slice(&ecdh[..]);
        let kek = self
            .key
            .decapsulate_openpgp_ct(&ct)
            .map_err(|e| pgp::Error::InvalidOperation(e.to_string()))?;
        let kek = Protected::from(&kek.expose()[..]);
        let key = pgp::crypto::ecdh::aes_key_unwrap(SymmetricAlgorithm::AES256, &kek, esk)?;
        Ok(key.into())
    }
}

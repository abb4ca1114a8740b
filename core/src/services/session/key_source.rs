//! [`KeySource`]: the key agent serving a vault, else the vault unlocked with a password.

use crate::agent::client::{self, Agent, Lookup, RemoteKey};
use crate::callbacks::{Callbacks, Note};
use crate::error::Result;
use crate::identity::PublicIdentity;
use crate::identity::decryption::{DecryptionKeys, MissingKey};
use crate::identity::signature::{self, DetachedSignature};
use crate::policy::Policy;
use crate::secret::{SecretBytes, random_array};
use crate::suite::Backend;
use crate::suite::hybrid_kem::{Decapsulate, KemError, KemLevel};
use crate::vault::{self, Argon2id, Unlocked, VaultFile};
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// Whether a key source may use the key agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentUse {
    /// The agent serving the vault's identity, when one runs; else the password.
    IfRunning,
    /// Never the agent: the password only (`--no-agent`, `$NEXUSQ_NO_AGENT`).
    Never,
}

/// What opening something with a key source found: the caller's result, and which key of
/// the identity opened it.
#[derive(Debug)]
pub struct Found<T> {
    /// What the caller's opener returned.
    pub opened: T,
    /// The generation of the key that opened it.
    pub generation: u32,
    /// Which hybrid KEM that key is.
    pub level: KemLevel,
    /// The generation is older than the identity's newest (the sender has an old export).
    pub superseded: bool,
}

/// Why a key source could not do what was asked: its keys could not be had (the vault, the
/// password), or they did and the input itself failed.
#[derive(Debug)]
pub enum Failure<E> {
    /// The keys: a damaged vault, a wrong password, no way to ask for one.
    Keys(crate::Error),
    /// The input, with every key tried: the caller's own error.
    Input(E),
}

/// An OpenPGP signature's composite signature (RFC 9980 algorithm 30) made by a key source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenPgpSigned {
    /// The generation whose key signed: the identity's newest.
    pub generation: u32,
    /// Ed25519 signature (64 bytes) || ML-DSA-65 signature (3309 bytes) of the digest.
    pub signature: Vec<u8>,
}

/// Why [`KeySource::decapsulate`] failed on its input.
#[derive(Debug)]
pub enum DecapsulateError {
    /// The identity has no key of that generation and KEM, or it was retired.
    Missing(MissingKey),
    /// The ciphertext was refused.
    Kem(KemError),
}

/// The keys one command uses for all its inputs. Opened with the vault file's public part (a
/// missing or damaged vault fails first, before any password is asked for); the password is
/// asked for when the agent cannot serve, at most once.
pub struct KeySource {
    path: PathBuf,
    backend: &'static dyn Backend,
    public: PublicIdentity,
    /// The vault file, until it is unlocked.
    file: Option<VaultFile>,
    agent: Option<Agent>,
    /// Unlocked for signing: seeds and all.
    unlocked: Option<Unlocked>,
    /// Unlocked for decrypting: the decapsulation keys only (the seeds were zeroized).
    keys: Option<DecryptionKeys>,
    /// Unlocked for signing: the newest generation's key, checked and expanded on the first
    /// signature and kept for the rest (`sign` of many files, a manifest).
    signing: Option<signature::SigningKey>,
    /// The agent was passed over and the user told so.
    passed_over: bool,
}

impl KeySource {
    /// The vault at `path` (its public part read now), and the agent serving its identity when
    /// `agent` allows one and one runs. An agent that is there but unusable (stale, wedged,
    /// serving another identity) is passed over with a note.
    pub fn open(
        path: &Path,
        backend: &'static dyn Backend,
        agent: AgentUse,
        callbacks: &dyn Callbacks,
    ) -> Result<KeySource> {
        let file = vault::open(path)?;
        let mut source = KeySource {
            path: path.to_path_buf(),
            backend,
            public: file.public.clone(),
            file: Some(file),
            agent: None,
            unlocked: None,
            keys: None,
            signing: None,
            passed_over: false,
        };
        if agent == AgentUse::IfRunning {
            match client::find_for(path, &source.public.root_id()) {
                Lookup::Ready(a) => source.agent = Some(a),
                Lookup::Absent => {}
                Lookup::Unusable(why) => source.pass_over(&why, callbacks),
            }
        }
        Ok(source)
    }

    /// Does the agent serve this source (so no password will be asked for unless it fails)?
    pub fn has_agent(&self) -> bool {
        self.agent.is_some()
    }

    /// The vault's public identity.
    pub fn public(&self) -> &PublicIdentity {
        &self.public
    }

    /// The vault's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leave the agent for the password, telling the user why (once).
    pub fn pass_over(&mut self, why: &str, callbacks: &dyn Callbacks) {
        self.agent = None;
        if !std::mem::replace(&mut self.passed_over, true) {
            callbacks.note(&Note::AgentPassedOver { why: why.into() });
        }
    }

    /// A detached signature of `digest` (SHA-512 of the data) by the identity's newest
    /// generation, made at `signed_at`: by the agent, else by the unlocked vault. The agent's
    /// signature is checked against the vault's certificate ([`Agent::sign`]); an agent that
    /// fails is passed over for the password.
    pub fn sign(
        &mut self,
        digest: &[u8; 64],
        signed_at: u64,
        policy: &Policy,
        callbacks: &dyn Callbacks,
    ) -> Result<DetachedSignature> {
        self.may_sign(policy)?;
        if let Some(agent) = &self.agent {
            match agent.sign(self.backend, &self.public, digest, signed_at) {
                Ok(sig) => return Ok(sig),
                Err(why) => self.pass_over(&why, callbacks),
            }
        }
        let rnd = Zeroizing::new(random_array::<32>());
        let backend = self.backend;
        self.signing_key(callbacks)?
            .sign(backend, digest, signed_at, &rnd)
    }

    /// Refused when the identity is revoked and the policy does not allow signing for it
    /// ([`Policy::check_not_revoked`]): [`KeySource::sign`] and [`KeySource::sign_openpgp`]
    /// ask this first; a caller asks it before doing work whose only use is a signature.
    pub fn may_sign(&self, policy: &Policy) -> Result<()> {
        policy.check_not_revoked(&self.public, "its signatures")
    }

    /// The vault's signing key, unlocking the vault and expanding the key on first use.
    fn signing_key(&mut self, callbacks: &dyn Callbacks) -> Result<&signature::SigningKey> {
        if self.signing.is_none() {
            let u = match self.unlocked.take() {
                Some(u) => u,
                None => self.unlock(callbacks)?,
            };
            let u = self.unlocked.insert(u);
            let key = signature::SigningKey::newest(self.backend, &u.file.public, &u.secrets)?;
            self.signing = Some(key);
        }
        Ok(self.signing.as_ref().expect("set above"))
    }

    /// RFC 9980's composite signature (algorithm 30) of an OpenPGP signature's `digest` (32
    /// to 64 bytes) by the identity's newest generation, for a signature packet made at
    /// `signed_at`: by the agent, else by the unlocked vault. The agent's signature is checked
    /// against the vault's certificate ([`Agent::sign_openpgp`]); an agent that fails is
    /// passed over for the password. Refused as [`KeySource::sign`] refuses: no signing key
    /// for the newest generation, or a `signed_at` its certificate does not cover.
    pub fn sign_openpgp(
        &mut self,
        digest: &[u8],
        signed_at: u64,
        policy: &Policy,
        callbacks: &dyn Callbacks,
    ) -> Result<OpenPgpSigned> {
        self.may_sign(policy)?;
        if let Some(agent) = &self.agent {
            match agent.sign_openpgp(self.backend, &self.public, digest, signed_at) {
                Ok((generation, signature)) => {
                    return Ok(OpenPgpSigned {
                        generation,
                        signature,
                    });
                }
                Err(why) => self.pass_over(&why, callbacks),
            }
        }
        let rnd = Zeroizing::new(random_array::<32>());
        let backend = self.backend;
        let key = self.signing_key(callbacks)?;
        let signature = key.sign_openpgp(backend, digest, signed_at, &rnd)?;
        Ok(OpenPgpSigned {
            generation: key.certificate().generation,
            signature,
        })
    }

    /// The agent's decapsulation keys (of `only` KEM, or all), newest generation first, when
    /// the agent serves this source.
    pub fn agent_keys(&self, only: Option<KemLevel>) -> Option<Vec<RemoteKey<'_>>> {
        self.agent.as_ref().map(|a| a.remote_keys(only))
    }

    /// The vault's decapsulation keys, unlocking it with the password if that was not done yet.
    pub fn vault_keys(&mut self, callbacks: &dyn Callbacks) -> Result<&DecryptionKeys> {
        let keys = match (self.keys.take(), self.unlocked.take()) {
            (Some(keys), _) => keys,
            (None, Some(u)) => u.into_decryption_keys(),
            (None, None) => self.unlock(callbacks)?.into_decryption_keys(),
        };
        Ok(self.keys.insert(keys))
    }

    /// Open something (a file header) with the identity's decapsulation keys of `only` KEM (or
    /// all), newest generation first: `open` is given them and returns what it opened and the
    /// index of the key that did. The agent's keys are tried first; when the agent failed on
    /// the way (so "not for these keys" says nothing), it is passed over and the vault's are
    /// tried.
    pub(crate) fn open_with<T, E>(
        &mut self,
        only: Option<KemLevel>,
        callbacks: &dyn Callbacks,
        open: impl Fn(&[&dyn Decapsulate]) -> std::result::Result<(T, usize), E>,
    ) -> std::result::Result<Found<T>, Failure<E>> {
        if let Some(agent) = &self.agent {
            let remote = agent.remote_keys(only);
            let keys: Vec<&dyn Decapsulate> = remote.iter().map(|k| k as _).collect();
            match open(&keys) {
                Ok((opened, i)) => {
                    let generation = remote[i].generation;
                    return Ok(Found {
                        opened,
                        generation,
                        level: remote[i].level,
                        superseded: generation < agent.status().signing_generation,
                    });
                }
                Err(e) if !remote.iter().any(RemoteKey::failed) => return Err(Failure::Input(e)),
                Err(_) => {}
            }
            drop(remote);
            self.pass_over("it stopped answering while opening the file", callbacks);
        }
        let keys = self.vault_keys(callbacks).map_err(Failure::Keys)?;
        let ours: Vec<_> = keys
            .iter()
            .filter(|k| only.is_none_or(|l| k.level() == l))
            .collect();
        let candidates: Vec<&dyn Decapsulate> = ours.iter().map(|k| k.key() as _).collect();
        let (opened, i) = open(&candidates).map_err(Failure::Input)?;
        let generation = ours[i].generation();
        Ok(Found {
            opened,
            generation,
            level: ours[i].level(),
            superseded: keys.is_superseded(generation),
        })
    }

    /// Decapsulate `ct` with the identity's key of `generation` and `level` (`nexusq
    /// decapsulate`): by the agent when it holds that key, else by the vault.
    pub fn decapsulate(
        &mut self,
        generation: u32,
        level: KemLevel,
        ct: &[u8],
        callbacks: &dyn Callbacks,
    ) -> std::result::Result<SecretBytes<32>, Failure<DecapsulateError>> {
        let wanted = (generation, level.suite().to_u16());
        if let Some(agent) = &self.agent
            && agent.status().keys.contains(&wanted)
        {
            match agent.decapsulate(generation, level, ct) {
                Ok(ss) => return Ok(ss),
                Err(why) => self.pass_over(&why, callbacks),
            }
        }
        let keys = self.vault_keys(callbacks).map_err(Failure::Keys)?;
        let key = keys
            .find(generation, level)
            .map_err(|m| Failure::Input(DecapsulateError::Missing(m)))?;
        key.key()
            .decapsulate(ct)
            .map_err(|e| Failure::Input(DecapsulateError::Kem(e)))
    }

    /// Unlock the vault file read at [`KeySource::open`] with the caller's password.
    fn unlock(&mut self, callbacks: &dyn Callbacks) -> Result<Unlocked> {
        let file = match self.file.take() {
            Some(file) => file,
            // Unlocked once already and given up (the seeds went with it): read it again.
            None => vault::open(&self.path)?,
        };
        let password = callbacks.request_password(&self.path)?;
        let unlocked = file.unlock(&password, &Argon2id, self.backend)?;
        callbacks.unlocked(&self.path, &unlocked.file.public);
        Ok(unlocked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::format::nexusq as fe;
    use crate::identity::peer;
    use crate::identity::signature::{Signature, Trust};
    use crate::secret::Password;
    use crate::suite::rustcrypto::RustCrypto;
    use crate::suite::{hybrid_kem, hybrid_sig};
    use crate::vault::{KdfParams, SaveOptions};
    use std::cell::{Cell, RefCell};

    const NOW: u64 = 1_000;

    /// A caller that answers with `password`, counts the questions and keeps the notes.
    struct Caller {
        password: &'static str,
        asked: Cell<u32>,
        notes: RefCell<Vec<Note>>,
    }

    impl Caller {
        fn new(password: &'static str) -> Caller {
            Caller {
                password,
                asked: Cell::new(0),
                notes: RefCell::new(Vec::new()),
            }
        }
    }

    impl Callbacks for Caller {
        fn request_password(&self, _vault: &Path) -> Result<Password> {
            self.asked.set(self.asked.get() + 1);
            Ok(Password::new(Zeroizing::new(self.password.to_string())))
        }

        fn note(&self, note: &Note) {
            self.notes.borrow_mut().push(note.clone());
        }
    }

    /// A vault with the cheapest Argon2id the format allows, password "pw".
    fn vault(dir: &Path) -> PathBuf {
        vault_and_revocation(dir).0
    }

    /// [`vault`], and the revocation statement written with it.
    fn vault_and_revocation(dir: &Path) -> (PathBuf, crate::identity::Revocation) {
        let path = dir.join("vault.nxq");
        let params = KdfParams {
            memory_kib: crate::vault::kdf::MIN_MEMORY_KIB,
            iterations: 1,
            parallelism: 1,
        };
        let password = Password::new(Zeroizing::new("pw".to_string()));
        let opts = SaveOptions::default();
        let statement = RefCell::new(None);
        crate::vault::create(&path, &password, params, &opts, &RustCrypto, NOW, |r| {
            *statement.borrow_mut() = Some(r.clone());
            Ok(())
        })
        .unwrap();
        (path, statement.into_inner().expect("written at create"))
    }

    fn open(path: &Path, caller: &Caller) -> Result<KeySource> {
        KeySource::open(path, &RustCrypto, AgentUse::Never, caller)
    }

    #[test]
    fn a_missing_vault_fails_before_any_password_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let caller = Caller::new("pw");
        let e = open(&dir.path().join("none.nxq"), &caller)
            .err()
            .expect("no vault");
        assert_eq!(e.kind(), ErrorKind::Vault);
        assert_eq!(caller.asked.get(), 0);
    }

    #[test]
    fn a_revoked_identity_signs_nothing_unless_the_policy_allows_it() {
        let dir = tempfile::tempdir().unwrap();
        let (path, revocation) = vault_and_revocation(dir.path());
        let password = Password::new(Zeroizing::new("pw".to_string()));
        let opts = SaveOptions::default();
        crate::vault::publish_revocation(&path, &password, &opts, revocation, &RustCrypto).unwrap();

        let caller = Caller::new("pw");
        let mut key = open(&path, &caller).unwrap();
        let digest = signature::digest(b"after the theft");
        let e = key
            .sign(&digest, NOW, &Policy::default(), &caller)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed);
        assert!(
            e.message()
                .contains("is revoked, so others refuse its signatures")
        );
        let e = key
            .sign_openpgp(&[1; 32], NOW, &Policy::default(), &caller)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::CheckFailed);
        assert_eq!(
            caller.asked.get(),
            0,
            "refused before any password is asked for"
        );

        // The owner's own use: the policy allows it, and the signature is made.
        let anyway = Policy {
            allow_revoked: true,
            ..Policy::default()
        };
        let sig = key.sign(&digest, NOW, &anyway, &caller).unwrap();
        assert_eq!(sig.certificate.generation, 1);
    }

    #[test]
    fn one_password_signs_many_digests_and_each_signature_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let path = vault(dir.path());
        let caller = Caller::new("pw");
        let mut key = open(&path, &caller).unwrap();
        assert!(!key.has_agent());
        assert_eq!(caller.asked.get(), 0, "nothing asked before it is needed");
        for data in [&b"one"[..], b"two", b"three"] {
            let digest = signature::digest(data);
            let sig = key.sign(&digest, NOW, &Policy::default(), &caller).unwrap();
            let trust = Trust::Identity {
                identity: key.public(),
                expected: None,
            };
            signature::verify_signature(&RustCrypto, trust, &Signature::Full(sig), &digest)
                .unwrap();
        }
        assert_eq!(caller.asked.get(), 1, "asked once for every signature");
        assert!(caller.notes.borrow().is_empty());
    }

    #[test]
    fn one_password_makes_openpgp_signatures_that_verify_under_the_certificate() {
        let dir = tempfile::tempdir().unwrap();
        let path = vault(dir.path());
        let caller = Caller::new("pw");
        let mut key = open(&path, &caller).unwrap();
        let cert = key.public().newest().clone();
        for n in [32, 48, 64] {
            let digest = vec![n as u8; n];
            let signed = key
                .sign_openpgp(&digest, NOW, &Policy::default(), &caller)
                .unwrap();
            assert_eq!(signed.generation, cert.generation);
            assert!(hybrid_sig::verify_openpgp(
                &RustCrypto,
                &cert.keys.mldsa65_ed25519,
                &digest,
                &signed.signature
            ));
        }
        // A nexusq signature from the same unlock: still one password.
        key.sign(&signature::digest(b"x"), NOW, &Policy::default(), &caller)
            .unwrap();
        assert_eq!(caller.asked.get(), 1, "asked once for every signature");

        // Refused as `sign` refuses: a time the certificate does not cover, a digest of
        // another length.
        let late = cert.not_after + crate::identity::certificate::CLOCK_SKEW_SECS + 1;
        let e = key
            .sign_openpgp(&[1; 32], late, &Policy::default(), &caller)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains("expired"), "{}", e.message());
        let e = key
            .sign(&signature::digest(b"x"), late, &Policy::default(), &caller)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        let early = cert.created - crate::identity::certificate::CLOCK_SKEW_SECS - 1;
        let e = key
            .sign_openpgp(&[1; 32], early, &Policy::default(), &caller)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        assert!(e.message().contains("clock"), "{}", e.message());
        for n in [0, 20, 31, 65] {
            let e = key
                .sign_openpgp(&vec![1; n], NOW, &Policy::default(), &caller)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Usage, "{n}");
        }
        assert!(caller.notes.borrow().is_empty());
    }

    #[test]
    fn a_wrong_password_is_refused_and_asked_again_on_the_next_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = vault(dir.path());
        let caller = Caller::new("not it");
        let mut key = open(&path, &caller).unwrap();
        let digest = signature::digest(b"data");
        let e = key
            .sign(&digest, NOW, &Policy::default(), &caller)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WrongPassword);
        let e = key.vault_keys(&caller).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WrongPassword);
        assert_eq!(caller.asked.get(), 2);
    }

    #[test]
    fn a_file_to_the_identity_opens_and_an_envelope_decapsulates() {
        let dir = tempfile::tempdir().unwrap();
        let path = vault(dir.path());
        let caller = Caller::new("pw");
        let mut key = open(&path, &caller).unwrap();
        let public = key.public().clone();

        // A file to the newest generation's ML-KEM-1024 key opens with the vault's keys.
        let level = KemLevel::MlKem1024;
        let (_, pk) = peer::encryption_key(&public, level, NOW, false).unwrap();
        let mut file = Vec::new();
        fe::encrypt(&RustCrypto, &[(level, pk)], &mut &b"secret"[..], &mut file).unwrap();
        let header = fe::Header::read(&mut &file[..]).unwrap();
        let found = key
            .open_with(None, &caller, |keys| {
                header.open(keys).map(|o| {
                    let i = o.candidate;
                    (o, i)
                })
            })
            .unwrap();
        assert_eq!((found.generation, found.level), (1, level));
        assert!(!found.superseded);
        // With only X-Wing keys offered, the same file is for nobody here.
        let only_xwing = key.open_with(Some(KemLevel::MlKem768), &caller, |keys| {
            header.open(keys).map(|o| {
                let i = o.candidate;
                (o, i)
            })
        });
        assert!(matches!(
            only_xwing,
            Err(Failure::Input(fe::FileError::NotARecipient))
        ));

        // A KEM ciphertext to generation 1 decapsulates to the sender's secret; a generation
        // the vault does not have is that error.
        let (ct, ss) = hybrid_kem::encapsulate(&RustCrypto, level, pk).unwrap();
        let got = key.decapsulate(1, level, &ct, &caller).unwrap();
        assert_eq!(got.expose(), ss.expose());
        assert!(matches!(
            key.decapsulate(9, level, &ct, &caller),
            Err(Failure::Input(DecapsulateError::Missing(
                MissingKey::NoSuchGeneration
            )))
        ));
        assert_eq!(caller.asked.get(), 1, "one unlock for all of it");
    }

    #[test]
    fn the_note_of_a_passed_over_agent_is_given_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = vault(dir.path());
        let caller = Caller::new("pw");
        let mut key = open(&path, &caller).unwrap();
        key.pass_over("it did not answer", &caller);
        key.pass_over("it stopped answering while opening the file", &caller);
        let notes = caller.notes.borrow();
        assert_eq!(
            *notes,
            vec![Note::AgentPassedOver {
                why: "it did not answer".into()
            }]
        );
        assert!(notes[0].to_string().contains("using the password instead"));
    }
}

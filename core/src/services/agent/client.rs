//! Talking to a running agent: what `sign`, `decrypt`, `decapsulate` (and `nexusq-git-sign`)
//! call. Every connection and request gives up after [`super::CLIENT_TIMEOUT`], so a dead or
//! wedged agent costs a command at most that long before it falls back to the password.

use super::protocol::{self, Request, Response, Status};
use crate::identity::PublicIdentity;
use crate::identity::signature::{self, DetachedSignature};
use crate::secret::SecretBytes;
use crate::suite::hybrid_kem::{Decapsulate, KemError, KemLevel};
use crate::suite::{Backend, hybrid_sig};
use std::cell::Cell;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A running agent that answered `status` for this vault.
#[derive(Debug)]
pub struct Agent {
    socket: PathBuf,
    status: Status,
    timeout: Duration,
}

/// What looking for the agent of a vault found.
#[derive(Debug)]
pub enum Lookup {
    /// No agent for this vault (no socket).
    Absent,
    /// A socket is there but unusable: why (stale, wedged, not private, another vault).
    Unusable(String),
    /// A running agent for this vault, which answered `status`.
    Ready(Agent),
}

/// The agent of `vault`, if one runs and answers.
pub fn connect(vault: &Path) -> Option<Agent> {
    match find(vault) {
        Lookup::Ready(a) => Some(a),
        Lookup::Absent | Lookup::Unusable(_) => None,
    }
}

/// Look for the agent of `vault` and ask it for its status.
pub fn find(vault: &Path) -> Lookup {
    find_at(&super::socket_path(vault), super::CLIENT_TIMEOUT)
}

/// Look for the agent of `vault` that serves the identity `root_id` (read from the vault file
/// by the caller): an agent of another identity is `Unusable`.
pub(crate) fn find_for(vault: &Path, root_id: &crate::identity::RootId) -> Lookup {
    match find(vault) {
        Lookup::Ready(a) if a.status.root_id != root_id.0 => {
            Lookup::Unusable("it serves another identity".into())
        }
        found => found,
    }
}

/// Look for an agent at `socket`.
pub fn find_at(socket: &Path, timeout: Duration) -> Lookup {
    if std::fs::symlink_metadata(socket).is_err() {
        return Lookup::Absent;
    }
    if let Some(folder) = socket.parent()
        && let Err(e) = super::check_folder(folder)
    {
        return Lookup::Unusable(format!("the agent's folder is not private: {e}"));
    }
    let mut agent = Agent {
        socket: socket.to_path_buf(),
        status: Status {
            pid: 0,
            root_id: [0; 32],
            signing_generation: 0,
            started_at: 0,
            expires_at: 0,
            idle_left: 0,
            memory_locked: false,
            keys: Vec::new(),
            vault: String::new(),
        },
        timeout,
    };
    match agent.request(&Request::Status) {
        Ok(Response::Status(s)) => {
            agent.status = s;
            Lookup::Ready(agent)
        }
        Ok(Response::Error(m)) => Lookup::Unusable(format!("the agent said: {m}")),
        Ok(other) => Lookup::Unusable(format!("the agent answered {other:?} to status")),
        Err(e) => Lookup::Unusable(e),
    }
}

fn connect_socket(path: &Path) -> Result<UnixStream, String> {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    let fd: OwnedFd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
        None,
    )
    .map_err(|e| format!("cannot make a socket: {e}"))?;
    let addr = SocketAddrUnix::new(path).map_err(|e| format!("bad socket path: {e}"))?;
    // Non-blocking: a wedged agent with a full backlog fails at once instead of hanging.
    rustix::net::connect(&fd, &addr).map_err(|e| match e {
        rustix::io::Errno::CONNREFUSED | rustix::io::Errno::NOENT => {
            "nobody listens on its socket (a stale socket of an agent that died)".to_string()
        }
        rustix::io::Errno::AGAIN => "it does not accept connections (wedged?)".to_string(),
        e => format!("cannot connect to it: {e}"),
    })?;
    let stream = UnixStream::from(fd);
    stream
        .set_nonblocking(false)
        .map_err(|e| format!("socket: {e}"))?;
    // The agent must be this user's (as the agent checks its clients).
    match rustix::net::sockopt::socket_peercred(&stream) {
        Ok(cred) if cred.uid == rustix::process::getuid() => Ok(stream),
        Ok(cred) => Err(format!(
            "its socket is served by uid {}, not by this user",
            cred.uid.as_raw()
        )),
        Err(e) => Err(format!("cannot check who serves its socket: {e}")),
    }
}

impl Agent {
    /// What the agent answered to `status` when it was found.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The socket the agent listens on.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// One request, one response, within the timeout.
    fn request(&self, req: &Request) -> Result<Response, String> {
        let deadline = Instant::now() + self.timeout;
        let stream = connect_socket(&self.socket)?;
        let left = || {
            deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1))
        };
        let io = |e: std::io::Error| format!("talking to it failed: {e}");
        stream.set_write_timeout(Some(left())).map_err(io)?;
        let mut w = &stream;
        protocol::write_frame(&mut w, &req.encode()).map_err(io)?;
        stream.set_read_timeout(Some(left())).map_err(io)?;
        let mut r = &stream;
        let body = protocol::read_frame(&mut r, protocol::MAX_RESPONSE).map_err(|e| match e {
            protocol::FrameError::Io(e) if protocol::is_timeout(&e) => format!(
                "it did not answer within {:.1} s",
                self.timeout.as_secs_f64()
            ),
            e => format!("its answer was cut short: {e}"),
        })?;
        Response::decode(&body).map_err(|e| format!("its answer is malformed: {}", e.0))
    }

    /// Ask it to wipe its keys and stop.
    pub fn stop(&self) -> Result<(), String> {
        match self.request(&Request::Stop)? {
            Response::Stopping => Ok(()),
            Response::Error(m) => Err(m),
            other => Err(format!("unexpected answer {other:?}")),
        }
    }

    /// The composite signature of `digest` for `signed_at`, and the generation that made it.
    pub(crate) fn sign_raw(
        &self,
        digest: &[u8; 64],
        signed_at: u64,
    ) -> Result<(u32, Vec<u8>), String> {
        match self.request(&Request::Sign {
            digest: *digest,
            signed_at,
        })? {
            Response::Signature {
                generation,
                signature,
            } => Ok((generation, signature)),
            Response::Error(m) => Err(format!("the agent refused: {m}")),
            other => Err(format!("unexpected answer {other:?}")),
        }
    }

    /// A detached signature of `digest` by the identity `public` (read from the vault file by
    /// the caller): the agent must sign with that identity's newest generation, and the result
    /// must verify under its certificate, else this fails (a stale agent never signs).
    pub fn sign(
        &self,
        backend: &dyn Backend,
        public: &PublicIdentity,
        digest: &[u8; 64],
        signed_at: u64,
    ) -> Result<DetachedSignature, String> {
        let cert = public.newest();
        if self.status.root_id != public.root_id().0 {
            return Err("the agent serves another identity".into());
        }
        let (generation, sig) = self.sign_raw(digest, signed_at)?;
        if generation != cert.generation {
            return Err(format!(
                "the agent signs with generation {generation}, but the vault's newest is {}",
                cert.generation
            ));
        }
        let ctx = signature::context(&public.root_id(), generation, signed_at);
        if !hybrid_sig::verify_prehashed(backend, &cert.keys.mldsa65_ed25519, digest, &ctx, &sig) {
            return Err(
                "the agent's signature does not verify under the vault's certificate".into(),
            );
        }
        Ok(DetachedSignature {
            root_pk: public.root_pk,
            signed_at,
            certificate: cert.clone(),
            signature: sig,
        })
    }

    /// RFC 9980's composite signature (algorithm 30) of an OpenPGP signature's `digest` (32
    /// to 64 bytes) for `signed_at`, by the identity `public` (read from the vault file by the
    /// caller), and the generation that made it: the agent must sign with that identity's
    /// newest generation, and the signature must verify under its certificate, else this
    /// fails (a stale agent never signs).
    pub fn sign_openpgp(
        &self,
        backend: &dyn Backend,
        public: &PublicIdentity,
        digest: &[u8],
        signed_at: u64,
    ) -> Result<(u32, Vec<u8>), String> {
        let cert = public.newest();
        if self.status.root_id != public.root_id().0 {
            return Err("the agent serves another identity".into());
        }
        if !(protocol::OPENPGP_DIGEST_MIN..=protocol::OPENPGP_DIGEST_MAX).contains(&digest.len()) {
            return Err(format!(
                "an OpenPGP digest of {} bytes is not {}..={} bytes long",
                digest.len(),
                protocol::OPENPGP_DIGEST_MIN,
                protocol::OPENPGP_DIGEST_MAX
            ));
        }
        let (generation, sig) = match self.request(&Request::SignOpenPgp {
            digest: digest.to_vec(),
            signed_at,
        })? {
            Response::Signature {
                generation,
                signature,
            } => (generation, signature),
            Response::Error(m) => return Err(format!("the agent refused: {m}")),
            other => return Err(format!("unexpected answer {other:?}")),
        };
        if generation != cert.generation {
            return Err(format!(
                "the agent signs with generation {generation}, but the vault's newest is {}",
                cert.generation
            ));
        }
        if !hybrid_sig::verify_openpgp(backend, &cert.keys.mldsa65_ed25519, digest, &sig) {
            return Err(
                "the agent's signature does not verify under the vault's certificate".into(),
            );
        }
        Ok((generation, sig))
    }

    /// Decapsulate `ct` with `generation`'s key of `level`.
    pub fn decapsulate(
        &self,
        generation: u32,
        level: KemLevel,
        ct: &[u8],
    ) -> Result<SecretBytes<32>, String> {
        match self.request(&Request::Decapsulate {
            generation,
            suite: level.suite().to_u16(),
            ciphertext: ct.to_vec(),
        })? {
            Response::Secret(ss) => Ok(ss),
            Response::Error(m) => Err(format!("the agent refused: {m}")),
            other => Err(format!("unexpected answer {other:?}")),
        }
    }

    /// RFC 9980's key-encryption key (algorithm 35) for `ct` (ML-KEM-768 ciphertext ||
    /// X25519 ephemeral key) with `generation`'s X-Wing key.
    pub fn decapsulate_openpgp(
        &self,
        generation: u32,
        ct: &[u8],
    ) -> Result<SecretBytes<32>, String> {
        match self.request(&Request::Decapsulate {
            generation,
            suite: protocol::SUITE_OPENPGP_MLKEM768_X25519,
            ciphertext: ct.to_vec(),
        })? {
            Response::Secret(kek) => Ok(kek),
            Response::Error(m) => Err(format!("the agent refused: {m}")),
            other => Err(format!("unexpected answer {other:?}")),
        }
    }

    /// Its decapsulation keys as candidates for opening a file header, newest first
    /// (optionally of one suite only).
    pub fn remote_keys(&self, only: Option<KemLevel>) -> Vec<RemoteKey<'_>> {
        self.status
            .keys
            .iter()
            .filter_map(|&(generation, suite)| {
                let level =
                    crate::suite::SuiteId::from_u16(suite).and_then(KemLevel::from_suite)?;
                only.is_none_or(|l| l == level).then_some(RemoteKey {
                    agent: self,
                    generation,
                    level,
                    failure: Cell::new(None),
                })
            })
            .collect()
    }
}

/// One of the agent's decapsulation keys, used through the socket.
pub struct RemoteKey<'a> {
    agent: &'a Agent,
    /// The generation this key belongs to.
    pub generation: u32,
    /// Which hybrid KEM it is.
    pub level: KemLevel,
    failure: Cell<Option<()>>,
}

impl RemoteKey<'_> {
    /// Did a request to the agent fail (so a "not a recipient" may be the agent's fault)?
    pub fn failed(&self) -> bool {
        self.failure.get().is_some()
    }
}

impl Decapsulate for RemoteKey<'_> {
    fn kem_level(&self) -> KemLevel {
        self.level
    }

    fn decapsulate_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        if ct.len() != self.level.hybrid_ciphertext_len() {
            return Err(KemError::InvalidCiphertext);
        }
        self.agent
            .decapsulate(self.generation, self.level, ct)
            .map_err(|_| {
                self.failure.set(Some(()));
                KemError::InvalidCiphertext
            })
    }

    fn decapsulate_openpgp_ct(&self, ct: &[u8]) -> Result<SecretBytes<32>, KemError> {
        // Only the X-Wing key has RFC 9980's combiner; the ciphertext has X-Wing's layout.
        if self.level != KemLevel::MlKem768 || ct.len() != self.level.hybrid_ciphertext_len() {
            return Err(KemError::InvalidCiphertext);
        }
        self.agent
            .decapsulate_openpgp(self.generation, ct)
            .map_err(|_| {
                self.failure.set(Some(()));
                KemError::InvalidCiphertext
            })
    }

    fn unanswered(&self) -> bool {
        self.failed()
    }
}

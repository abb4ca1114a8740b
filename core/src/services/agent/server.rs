//! The agent's loop: accept connections on its socket, check each peer's uid, answer one
//! request per connection, and stop at the idle or absolute timeout, on `stop`, when the vault
//! file changed, or on a signal (through `crate::fs::cleanup`). On every way out the keys are
//! zeroized and the socket removed.

use super::keys::{AgentKeys, public_hash};
use super::protocol::{self, FrameError, Request, Response, Status};
use crate::fs::cleanup;
use crate::suite::Backend;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, mpsc};
use std::time::{Duration, Instant};

/// A request must arrive whole within this time (slow senders are cut off).
pub(crate) const REQUEST_DEADLINE: Duration = Duration::from_secs(2);
/// Connections served at once; more are closed unanswered until some finish.
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// How an agent runs: what it serves, where, and for how long (docs/agent.md).
pub struct Config {
    /// The vault file served (resolved path): re-checked before each use of a key.
    pub vault: PathBuf,
    /// The Unix socket to listen on.
    pub socket: PathBuf,
    /// Stop after this long without a `sign` or `decapsulate` (`--idle`).
    pub idle: Duration,
    /// Stop after this long whatever happens (`--max`).
    pub max: Duration,
    /// Whether `mlockall` succeeded, as `status` reports it.
    pub memory_locked: bool,
}

/// Why the agent stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The idle timeout passed.
    Idle,
    /// The maximum lifetime passed.
    Max,
    /// A client sent `stop`.
    Stopped,
    /// The vault file changed under it (rotated, re-keyed, revoked, swapped or removed).
    VaultChanged(String),
    /// Serving could not go on.
    Failed(String),
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Idle => f.write_str("idle timeout reached"),
            Ending::Max => f.write_str("maximum lifetime reached"),
            Ending::Stopped => f.write_str("stopped on request"),
            Ending::VaultChanged(why) => write!(f, "the vault changed ({why})"),
            Ending::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// What identifies the vault file's current version cheaply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

fn stamp(path: &Path) -> io::Result<Stamp> {
    let m = std::fs::metadata(path)?;
    Ok(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        len: m.len(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    })
}

/// What the key thread is asked to do (the connection thread checked the request first).
enum KeyOp {
    Sign {
        digest: [u8; protocol::DIGEST_LEN],
        signed_at: u64,
    },
    Decapsulate {
        generation: u32,
        suite: u16,
        ciphertext: Vec<u8>,
    },
    SignOpenPgp {
        digest: Vec<u8>,
        signed_at: u64,
    },
}

/// One key operation and the connection its answer goes to.
struct Job {
    op: KeyOp,
    stream: UnixStream,
    slot: Slot,
}

/// A connection being served; counted in `Shared::active` until dropped.
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The keys and the one thread that signs and decapsulates with them. It is spawned before
/// the agent calls `mlockall(MCL_CURRENT)` (which locks only what is mapped at that moment),
/// so its stack, where the key operations run and where a shared secret's answer is framed,
/// is locked with the keys; connection threads, spawned later, never hold a secret
/// (docs/security.md section 11).
pub struct KeyThread {
    keys: Arc<RwLock<Option<AgentKeys>>>,
    jobs: mpsc::SyncSender<Job>,
}

impl KeyThread {
    /// Start the key thread with `keys`; it computes on `backend`.
    pub fn spawn(keys: AgentKeys, backend: &'static dyn Backend) -> io::Result<KeyThread> {
        let keys = Arc::new(RwLock::new(Some(keys)));
        let (jobs, queue) = mpsc::sync_channel::<Job>(MAX_CONNECTIONS);
        let held = Arc::clone(&keys);
        std::thread::Builder::new()
            .name("nexusq-agent-keys".into())
            .spawn(move || {
                for job in queue {
                    let keys = held.read().unwrap_or_else(|p| p.into_inner());
                    let _ = answer_with_keys(keys.as_ref(), backend, job.op, &job.stream);
                }
            })?;
        Ok(KeyThread { keys, jobs })
    }
}

/// Run one key operation and write its answer; a shared secret goes out from this thread's
/// stack (`write_secret_frame`), never through the heap.
fn answer_with_keys(
    keys: Option<&AgentKeys>,
    backend: &'static dyn Backend,
    op: KeyOp,
    stream: &UnixStream,
) -> io::Result<()> {
    let mut w = stream;
    let response = match (keys, op) {
        (None, _) => Response::Error("the agent is stopping".into()),
        (Some(k), KeyOp::Sign { digest, signed_at }) => match k.sign(backend, &digest, signed_at) {
            Ok(signature) => Response::Signature {
                generation: k.signing_generation(),
                signature,
            },
            Err(e) => Response::Error(e.message().to_string()),
        },
        (
            Some(k),
            KeyOp::Decapsulate {
                generation,
                suite,
                ciphertext,
            },
        ) => match k.decapsulate(generation, suite, &ciphertext) {
            Ok(ss) => return protocol::write_secret_frame(&mut w, &ss),
            Err(m) => Response::Error(m),
        },
        (Some(k), KeyOp::SignOpenPgp { digest, signed_at }) => {
            match k.sign_openpgp(backend, &digest, signed_at) {
                Ok(signature) => Response::Signature {
                    generation: k.signing_generation(),
                    signature,
                },
                Err(e) => Response::Error(e.message().to_string()),
            }
        }
    };
    protocol::write_frame(&mut w, &response.encode())
}

/// The clock the agent's lifetime is counted on: `CLOCK_BOOTTIME`, which goes on while the
/// device sleeps. `CLOCK_MONOTONIC` (what `Instant` reads on Linux) stands still during a
/// phone's suspend, so an 8-hour agent would live for days (docs/agent.md).
fn boot_clock() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// The agent's limits: idle and maximum lifetime on the boot clock, and the wall-clock expiry
/// that `status` reports, whichever comes first.
#[derive(Clone, Copy, Debug)]
struct Lifetime {
    idle: Duration,
    max: Duration,
    /// The boot clock when the agent started.
    started: Duration,
    /// Unix seconds: started + max on the wall clock.
    expires_at: u64,
}

/// Longest wait between two looks at the clocks (a wall clock set forward is seen this fast).
const TICK: Duration = Duration::from_millis(200);

impl Lifetime {
    /// From readings of the boot clock (`now`, and `last_used`: the last signature or
    /// decapsulation) and of the wall clock (`wall`, Unix seconds): why the agent must stop
    /// now, else how long it may wait before looking again.
    fn check(&self, last_used: Duration, now: Duration, wall: u64) -> Result<Duration, Ending> {
        let max_left = self.max.saturating_sub(now.saturating_sub(self.started));
        if max_left.is_zero() || wall >= self.expires_at {
            return Err(Ending::Max);
        }
        let idle_left = self.idle_left(last_used, now);
        if idle_left.is_zero() {
            return Err(Ending::Idle);
        }
        let wall_left = Duration::from_secs(self.expires_at.saturating_sub(wall));
        Ok(idle_left.min(max_left).min(wall_left).min(TICK))
    }

    fn idle_left(&self, last_used: Duration, now: Duration) -> Duration {
        self.idle.saturating_sub(now.saturating_sub(last_used))
    }
}

struct Shared {
    keys: Arc<RwLock<Option<AgentKeys>>>,
    jobs: mpsc::SyncSender<Job>,
    config: Config,
    lifetime: Lifetime,
    started_unix: u64,
    /// The boot clock at the last signature or decapsulation.
    last_used: Mutex<Duration>,
    seen: Mutex<Option<Stamp>>,
    stop: AtomicBool,
    ending: Mutex<Option<Ending>>,
    active: AtomicUsize,
}

/// What a connection thread does with a request.
enum Answer {
    Now(Response),
    /// Hand it to the key thread, which answers.
    Keys(KeyOp),
}

impl Shared {
    fn finish(&self, ending: Ending) {
        let mut e = self.ending.lock().unwrap_or_else(|p| p.into_inner());
        if e.is_none() {
            *e = Some(ending);
        }
        self.stop.store(true, Ordering::SeqCst);
    }

    fn wipe(&self) {
        // Dropping the keys zeroizes them.
        self.keys.write().unwrap_or_else(|p| p.into_inner()).take();
    }

    /// Is the vault file still the one the keys belong to? A changed file is re-read and its
    /// public section compared; anything else stops the agent.
    fn check_vault(&self) -> Result<(), String> {
        let now = stamp(&self.config.vault).map_err(|e| format!("cannot read it: {e}"))?;
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if *seen == Some(now) {
            return Ok(());
        }
        let file = crate::vault::open(&self.config.vault).map_err(|e| e.message().to_string())?;
        let keys = self.keys.read().unwrap_or_else(|p| p.into_inner());
        let Some(keys) = keys.as_ref() else {
            return Err("the keys were wiped".into());
        };
        if public_hash(&file.public) != *keys.public_hash() {
            return Err("its identity or generations are not the ones unlocked".into());
        }
        // Same identity, same generations (a new password, or a touched file): keep serving.
        *seen = Some(now);
        Ok(())
    }

    fn status(&self) -> Response {
        let keys = self.keys.read().unwrap_or_else(|p| p.into_inner());
        let Some(k) = keys.as_ref() else {
            return Response::Error("the agent is stopping".into());
        };
        let last = *self.last_used.lock().unwrap_or_else(|p| p.into_inner());
        let idle_left = self.lifetime.idle_left(last, boot_clock());
        Response::Status(Status {
            pid: std::process::id(),
            root_id: k.root_id().0,
            signing_generation: k.signing_generation(),
            started_at: self.started_unix,
            expires_at: self.lifetime.expires_at,
            idle_left: idle_left.as_secs(),
            memory_locked: self.config.memory_locked,
            keys: k.key_list(),
            vault: self.config.vault.display().to_string(),
        })
    }

    fn answer(&self, req: Request) -> Answer {
        let op = match req {
            Request::Status => return Answer::Now(self.status()),
            Request::Stop => {
                self.finish(Ending::Stopped);
                return Answer::Now(Response::Stopping);
            }
            Request::Sign { digest, signed_at } => KeyOp::Sign { digest, signed_at },
            Request::Decapsulate {
                generation,
                suite,
                ciphertext,
            } => KeyOp::Decapsulate {
                generation,
                suite,
                ciphertext,
            },
            Request::SignOpenPgp { digest, signed_at } => KeyOp::SignOpenPgp { digest, signed_at },
        };
        if self.stop.load(Ordering::SeqCst) {
            return Answer::Now(Response::Error("the agent is stopping".into()));
        }
        if let Err(why) = self.check_vault() {
            self.finish(Ending::VaultChanged(why.clone()));
            self.wipe();
            return Answer::Now(Response::Error(format!(
                "the vault changed ({why}); the agent stopped"
            )));
        }
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = boot_clock();
        Answer::Keys(op)
    }
}

/// A reader that gives up once `deadline` has passed, however slowly the bytes come.
struct Deadline<'a> {
    stream: &'a UnixStream,
    deadline: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "request deadline"));
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut s = self.stream;
        s.read(buf)
    }
}

fn handle(slot: Slot, stream: UnixStream) {
    let shared = &*slot.0;
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_write_timeout(Some(REQUEST_DEADLINE));
    let mut reader = Deadline {
        stream: &stream,
        deadline: Instant::now() + REQUEST_DEADLINE,
    };
    let response = match protocol::read_frame(&mut reader, protocol::MAX_REQUEST) {
        Ok(body) => match Request::decode(&body) {
            Ok(req) => match shared.answer(req) {
                Answer::Now(response) => response,
                Answer::Keys(op) => {
                    let jobs = shared.jobs.clone();
                    let job = Job { op, stream, slot };
                    if let Err(mpsc::SendError(job)) = jobs.send(job) {
                        let shared = &*job.slot.0;
                        shared.finish(Ending::Failed("the key thread ended".into()));
                        let mut w = &job.stream;
                        let response = Response::Error("the agent is stopping".into());
                        let _ = protocol::write_frame(&mut w, &response.encode());
                    }
                    return;
                }
            },
            Err(e) => Response::Error(format!("bad request: {}", e.0)),
        },
        Err(FrameError::TooLong(n)) => {
            Response::Error(format!("a request of {n} bytes is over the bound"))
        }
        // Nothing to answer: the peer went away or was too slow.
        Err(FrameError::Truncated | FrameError::Io(_)) => return,
    };
    let mut w = &stream;
    let _ = protocol::write_frame(&mut w, &response.encode());
}

/// Remove a socket left by an agent that died (nobody listens on it); refuse one that a
/// process listens on. Never blocks (a stopped agent's full backlog does not hang it).
pub(crate) fn clear_stale(socket: &Path) -> io::Result<()> {
    super::process::clear_stale(socket)
}

/// How many connections may wait to be accepted: bounded, so that a stopped agent's backlog
/// fills (and connecting fails at once) after this many.
pub(crate) const BACKLOG: i32 = 64;

/// A bound socket and the agent's pid file beside it, registered with the signal cleanup (a
/// signal removes them, each only while it is still this agent's: docs/agent.md).
pub struct Bound {
    listener: UnixListener,
    socket: cleanup::Registration,
    pid_file: cleanup::Registration,
}

fn listen_at(socket: &Path) -> io::Result<UnixListener> {
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    let fd = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
        None,
    )?;
    rustix::net::bind(&fd, &SocketAddrUnix::new(socket)?)?;
    let listening = (|| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
        rustix::net::listen(&fd, BACKLOG)?;
        Ok(())
    })();
    if let Err(e) = listening {
        let _ = std::fs::remove_file(socket);
        return Err(e);
    }
    Ok(UnixListener::from(fd))
}

/// Bind the agent's socket in its (already checked) private folder, and write its pid file.
pub fn bind(socket: &Path) -> io::Result<Bound> {
    clear_stale(socket)?;
    let (listener, socket_registration) =
        cleanup::register(socket, cleanup::Kind::OwnFile, || listen_at(socket))?;
    let pid_path = super::process::pid_path(socket);
    let registered = cleanup::register(&pid_path, cleanup::Kind::OwnFile, || {
        super::process::write_pid_file(&pid_path)
    });
    let pid_file = match registered {
        Ok(((), r)) => r,
        Err(e) => {
            release_own(socket, socket_registration);
            return Err(e);
        }
    };
    Ok(Bound {
        listener,
        socket: socket_registration,
        pid_file,
    })
}

/// Remove a registered file if it is still this agent's (another agent may have replaced it).
fn release_own(path: &Path, mut registration: cleanup::Registration) {
    if let Some(id) = registration.file() {
        let _ = registration.release_with(|| cleanup::remove_own(path, id));
    }
}

/// Serve until a timeout, `stop`, a changed vault or a signal. Returns why it stopped, with
/// the keys wiped and the socket removed.
pub fn serve(bound: Bound, keys: KeyThread, config: Config) -> Ending {
    let seen = stamp(&config.vault).ok();
    let started = boot_clock();
    let started_unix = crate::time::now();
    let lifetime = Lifetime {
        idle: config.idle,
        max: config.max,
        started,
        expires_at: started_unix.saturating_add(config.max.as_secs()),
    };
    let shared = Arc::new(Shared {
        keys: keys.keys,
        jobs: keys.jobs,
        lifetime,
        started_unix,
        last_used: Mutex::new(started),
        seen: Mutex::new(seen),
        stop: AtomicBool::new(false),
        ending: Mutex::new(None),
        active: AtomicUsize::new(0),
        config,
    });
    // A signal removes the socket (registered) and ends the process: wipe the keys first.
    {
        let s = Arc::clone(&shared);
        let folder = s.config.socket.parent().map(Path::to_path_buf);
        let _ = cleanup::on_interrupt(move || {
            s.wipe();
            if let Some(f) = &folder {
                // Only when no other agent's socket is left in it.
                let _ = std::fs::remove_dir(f);
            }
        });
    }
    let uid = rustix::process::getuid();
    let Bound {
        listener,
        socket: socket_registration,
        pid_file,
    } = bound;
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let last = *shared.last_used.lock().unwrap_or_else(|p| p.into_inner());
        let wait = match shared
            .lifetime
            .check(last, boot_clock(), crate::time::now())
        {
            Ok(wait) => wait,
            Err(ending) => {
                shared.finish(ending);
                break;
            }
        };
        let timeout = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: wait.as_nanos().max(1_000_000) as _,
        };
        let mut fds = [rustix::event::PollFd::new(
            &listener,
            rustix::event::PollFlags::IN,
        )];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(0) => continue,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => {
                shared.finish(Ending::Failed(format!("poll: {e}")));
                break;
            }
        }
        loop {
            let stream = match listener.accept() {
                Ok((s, _)) => s,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // A peer that went away before we accepted it, or out of descriptors: go on.
                Err(_) => break,
            };
            // Another user's process is closed unanswered.
            match rustix::net::sockopt::socket_peercred(&stream) {
                Ok(cred) if cred.uid == uid => {}
                _ => continue,
            }
            if shared.active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                shared.active.fetch_sub(1, Ordering::SeqCst);
                continue;
            }
            // Counted until the answer is written (by this thread or the key thread); a
            // thread that cannot be spawned drops the slot with the closure.
            let slot = Slot(Arc::clone(&shared));
            let _ = std::thread::Builder::new()
                .name("nexusq-agent-conn".into())
                .spawn(move || handle(slot, stream));
        }
    }
    shared.wipe();
    let socket = shared.config.socket.clone();
    release_own(&socket, socket_registration);
    release_own(&super::process::pid_path(&socket), pid_file);
    drop(listener);
    if let Some(f) = socket.parent() {
        let _ = std::fs::remove_dir(f);
    }
    let ending = shared
        .ending
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    ending.unwrap_or(Ending::Stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);
    const HOUR: Duration = Duration::from_secs(3600);

    fn lifetime() -> Lifetime {
        Lifetime {
            idle: 15 * MIN,
            max: 8 * HOUR,
            started: 100 * MIN,
            expires_at: 1_700_000_000 + 8 * 3600,
        }
    }

    #[test]
    fn the_limits_count_the_time_a_phone_sleeps_and_the_wall_clock() {
        let l = lifetime();
        let wall = 1_700_000_000;
        // Awake and used a minute ago: it waits at most one tick.
        let now = l.started + MIN;
        assert_eq!(l.check(now, now + MIN, wall + 120), Ok(TICK));
        // The phone slept 9 hours: the monotonic clock (and Instant) moved by a minute, the
        // boot clock by 9 hours. Max is reached, whatever the idle timer says.
        let slept = l.started + 9 * HOUR;
        assert_eq!(l.check(slept, slept, wall + 60), Err(Ending::Max));
        // Slept 20 minutes after the last use: idle.
        let used = l.started + HOUR;
        assert_eq!(
            l.check(used, used + 20 * MIN, wall + 4000),
            Err(Ending::Idle)
        );
        assert_eq!(l.idle_left(used, used + 20 * MIN), Duration::ZERO);
        assert_eq!(l.idle_left(used, used + 5 * MIN), 10 * MIN);
        // The wall clock passed expires_at although neither other clock says so (a clock
        // that stood still, or one we cannot trust): it stops, as `status` promised.
        assert_eq!(l.check(now, now + MIN, l.expires_at), Err(Ending::Max));
        assert!(l.check(now, now + MIN, l.expires_at - 1).is_ok());
    }
}

#[cfg(test)]
mod key_thread_tests {
    use super::*;
    use crate::agent::keys::tests::{CREATED, agent_keys};
    use crate::suite::hybrid_kem::{self, KemLevel};
    use crate::suite::hybrid_sig;
    use crate::suite::rustcrypto::RustCrypto;

    /// What the key thread writes back for `op`.
    fn answer(keys: Option<&AgentKeys>, op: KeyOp) -> Response {
        let (ours, theirs) = UnixStream::pair().unwrap();
        answer_with_keys(keys, &RustCrypto, op, &ours).unwrap();
        drop(ours);
        let mut r = &theirs;
        let body = protocol::read_frame(&mut r, protocol::MAX_RESPONSE).unwrap();
        Response::decode(&body).unwrap()
    }

    /// The two OpenPGP operations as the key thread answers them: the KEK is the vault's
    /// X-Wing key's `decapsulate_openpgp`, framed as a secret; the signature is by the newest
    /// generation and verifies as RFC 9980's.
    #[test]
    fn the_key_thread_answers_the_openpgp_operations() {
        let (keys, public, xwing) = agent_keys(false);
        let pk = &public.newest().keys.xwing;
        let (ct, _) = hybrid_kem::encapsulate(&RustCrypto, KemLevel::MlKem768, pk).unwrap();
        let op = KeyOp::Decapsulate {
            generation: 1,
            suite: protocol::SUITE_OPENPGP_MLKEM768_X25519,
            ciphertext: ct.clone(),
        };
        match answer(Some(&keys), op) {
            Response::Secret(kek) => {
                assert_eq!(
                    kek.expose(),
                    xwing.decapsulate_openpgp(&ct).unwrap().expose()
                );
            }
            other => panic!("{other:?}"),
        }

        let digest = vec![7; 48];
        let op = KeyOp::SignOpenPgp {
            digest: digest.clone(),
            signed_at: CREATED + 60,
        };
        match answer(Some(&keys), op) {
            Response::Signature {
                generation,
                signature,
            } => {
                assert_eq!(generation, public.newest().generation);
                assert_eq!(signature.len(), hybrid_sig::SIGNATURE_LEN);
                assert!(hybrid_sig::verify_openpgp(
                    &RustCrypto,
                    &public.newest().keys.mldsa65_ed25519,
                    &digest,
                    &signature
                ));
            }
            other => panic!("{other:?}"),
        }

        // A time outside the certificate is refused in `sign`'s words; wiped keys answer none.
        let op = KeyOp::SignOpenPgp {
            digest: digest.clone(),
            signed_at: u64::MAX,
        };
        match answer(Some(&keys), op) {
            Response::Error(m) => assert!(m.contains("expired"), "{m}"),
            other => panic!("{other:?}"),
        }
        let op = KeyOp::SignOpenPgp {
            digest,
            signed_at: CREATED,
        };
        match answer(None, op) {
            Response::Error(m) => assert!(m.contains("stopping"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}

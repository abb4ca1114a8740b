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
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// A request must arrive whole within this time (slow senders are cut off).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(2);
/// Connections served at once; more are closed unanswered until some finish.
pub const MAX_CONNECTIONS: usize = 64;

pub struct Config {
    /// The vault file served (resolved path): re-checked before each use of a key.
    pub vault: PathBuf,
    pub socket: PathBuf,
    pub idle: Duration,
    pub max: Duration,
    pub memory_locked: bool,
}

/// Why the agent stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Idle,
    Max,
    Stopped,
    /// The vault file changed under it (rotated, re-keyed, revoked, swapped or removed).
    VaultChanged(String),
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

struct Shared {
    keys: RwLock<Option<AgentKeys>>,
    backend: &'static dyn Backend,
    config: Config,
    started: Instant,
    started_unix: u64,
    last_used: Mutex<Instant>,
    seen: Mutex<Option<Stamp>>,
    stop: AtomicBool,
    ending: Mutex<Option<Ending>>,
    active: AtomicUsize,
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
        let idle_left = self.config.idle.saturating_sub(last.elapsed());
        Response::Status(Status {
            pid: std::process::id(),
            root_id: k.root_id().0,
            signing_generation: k.signing_generation(),
            started_at: self.started_unix,
            expires_at: self.started_unix + self.config.max.as_secs(),
            idle_left: idle_left.as_secs(),
            memory_locked: self.config.memory_locked,
            keys: k.key_list(),
            vault: self.config.vault.display().to_string(),
        })
    }

    fn answer(&self, req: Request) -> Response {
        match req {
            Request::Status => self.status(),
            Request::Stop => {
                self.finish(Ending::Stopped);
                Response::Stopping
            }
            Request::Sign { .. } | Request::Decapsulate { .. } => {
                if self.stop.load(Ordering::SeqCst) {
                    return Response::Error("the agent is stopping".into());
                }
                if let Err(why) = self.check_vault() {
                    self.finish(Ending::VaultChanged(why.clone()));
                    self.wipe();
                    return Response::Error(format!(
                        "the vault changed ({why}); the agent stopped"
                    ));
                }
                *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
                let keys = self.keys.read().unwrap_or_else(|p| p.into_inner());
                let Some(k) = keys.as_ref() else {
                    return Response::Error("the agent is stopping".into());
                };
                match req {
                    Request::Sign { digest, signed_at } => {
                        match k.sign(self.backend, &digest, signed_at) {
                            Ok(signature) => Response::Signature {
                                generation: k.signing_generation(),
                                signature,
                            },
                            Err(e) => Response::Error(e.message().to_string()),
                        }
                    }
                    Request::Decapsulate {
                        generation,
                        suite,
                        ciphertext,
                    } => match k.decapsulate(generation, suite, &ciphertext) {
                        Ok(ss) => Response::Secret(ss),
                        Err(m) => Response::Error(m),
                    },
                    Request::Status | Request::Stop => unreachable!("answered above"),
                }
            }
        }
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

fn handle(shared: &Shared, stream: UnixStream) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_write_timeout(Some(REQUEST_DEADLINE));
    let mut reader = Deadline {
        stream: &stream,
        deadline: Instant::now() + REQUEST_DEADLINE,
    };
    let response = match protocol::read_frame(&mut reader, protocol::MAX_REQUEST) {
        Ok(body) => match Request::decode(&body) {
            Ok(req) => shared.answer(req),
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

/// Remove a socket left by an agent that died (nobody answers on it); refuse one that answers.
pub fn clear_stale(socket: &Path) -> io::Result<()> {
    match UnixStream::connect(socket) {
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            "an agent is already listening there",
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(_) => match std::fs::remove_file(socket) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
    }
}

/// A bound socket, registered with the signal cleanup (a signal removes it).
pub struct Bound {
    listener: UnixListener,
    registration: cleanup::Registration,
}

/// Bind the agent's socket in its (already checked) private folder.
pub fn bind(socket: &Path) -> io::Result<Bound> {
    clear_stale(socket)?;
    let (listener, registration) = cleanup::register(socket, cleanup::Kind::File, || {
        let l = UnixListener::bind(socket)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
        Ok(l)
    })?;
    listener.set_nonblocking(true)?;
    Ok(Bound {
        listener,
        registration,
    })
}

/// Serve until a timeout, `stop`, a changed vault or a signal. Returns why it stopped, with
/// the keys wiped and the socket removed.
pub fn serve(
    bound: Bound,
    keys: AgentKeys,
    backend: &'static dyn Backend,
    config: Config,
) -> Ending {
    let seen = stamp(&config.vault).ok();
    let shared = Arc::new(Shared {
        keys: RwLock::new(Some(keys)),
        backend,
        started: Instant::now(),
        started_unix: crate::time::now(),
        last_used: Mutex::new(Instant::now()),
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
        mut registration,
    } = bound;
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let idle_left = {
            let last = *shared.last_used.lock().unwrap_or_else(|p| p.into_inner());
            shared.config.idle.saturating_sub(last.elapsed())
        };
        let max_left = shared.config.max.saturating_sub(shared.started.elapsed());
        if max_left.is_zero() {
            shared.finish(Ending::Max);
            break;
        }
        if idle_left.is_zero() {
            shared.finish(Ending::Idle);
            break;
        }
        let wait = idle_left.min(max_left).min(Duration::from_millis(200));
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
            let s = Arc::clone(&shared);
            let spawned = std::thread::Builder::new()
                .name("nexusq-agent-conn".into())
                .spawn(move || {
                    handle(&s, stream);
                    s.active.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                shared.active.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
    shared.wipe();
    let socket = shared.config.socket.clone();
    let _ = registration.release_with(|| match std::fs::remove_file(&socket) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    });
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

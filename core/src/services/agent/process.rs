//! The agent's process as other processes see it (docs/agent.md, "When it stops"): the pid
//! file it keeps beside its socket, and ending an agent that does not answer.
//!
//! A stopped agent (SIGSTOP: a frozen Termux process) still completes connections from its
//! listen backlog, then never answers; with a full backlog it accepts none. Removing its
//! socket would leave the process, and its keys, to resume later. So an agent that does not
//! answer is found by its pid (`SO_PEERCRED` of a connection, else the pid file), checked to
//! be this user's process and the one that wrote the pid file (same start time, so a reused
//! pid is never taken for it), sent SIGTERM and SIGCONT (a stopped process receives the
//! SIGTERM when it resumes and runs its wipe), then SIGKILL if it has not ended; it is ended
//! only once it is confirmed gone.

use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long an agent has to end after SIGTERM (and SIGCONT), then after SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(3);
const KILL_GRACE: Duration = Duration::from_secs(2);

/// The pid file beside `socket`: `agent-<h>.pid` for `agent-<h>.sock`.
pub(crate) fn pid_path(socket: &Path) -> PathBuf {
    socket.with_extension("pid")
}

/// A process's state letter and start time (clock ticks after boot) from
/// `/proc/<pid>/stat` (fields 3 and 22; the command name, field 2, may hold anything but
/// ends at the last `)`).
fn stat_of(pid: u32) -> Option<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((state, start))
}

/// The real uid of process `pid` (`/proc/<pid>/status`, readable for a process that is not
/// dumpable too).
fn uid_of(pid: u32) -> Option<u32> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Write this process's pid file at `path` (mode 0600, in the agent's private folder):
/// `<pid> <start time>`, renamed into place so that a reader never sees half of it.
pub(crate) fn write_pid_file(path: &Path) -> io::Result<()> {
    let me = std::process::id();
    let (_, start) =
        stat_of(me).ok_or_else(|| io::Error::other("cannot read this process's /proc entry"))?;
    let tag: String = crate::secret::random_array::<6>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let tmp = path.with_extension(format!("pid.{tag}"));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(format!("{me} {start}\n").as_bytes()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// An agent's process: its pid and start time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentProcess {
    /// The process id.
    pub pid: u32,
    start: u64,
}

impl AgentProcess {
    /// Still running: the pid is alive (not a zombie) and started when the agent did.
    pub(crate) fn is_running(&self) -> bool {
        matches!(stat_of(self.pid), Some((state, start))
            if start == self.start && state != 'Z' && state != 'X')
    }

    /// Wait up to `limit` for the process to end; whether it did.
    pub fn wait_gone(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while self.is_running() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }
}

/// The running agent the pid file beside `socket` names, if it is this user's process and
/// started when the file says (not a later process with a reused pid).
pub fn recorded(socket: &Path) -> Option<AgentProcess> {
    let mut text = String::new();
    use std::io::Read;
    std::fs::File::open(pid_path(socket))
        .ok()?
        .take(64)
        .read_to_string(&mut text)
        .ok()?;
    let mut parts = text.split_whitespace();
    let pid: u32 = parts.next()?.parse().ok()?;
    let start: u64 = parts.next()?.parse().ok()?;
    if pid <= 1 || pid == std::process::id() {
        return None;
    }
    let p = AgentProcess { pid, start };
    let uid = rustix::process::getuid().as_raw();
    (p.is_running() && uid_of(pid) == Some(uid)).then_some(p)
}

/// What a non-blocking connection to a socket finds.
enum Probe {
    /// No file there.
    Missing,
    /// Nobody listens: the socket of an agent that died.
    Refused,
    /// A listener whose backlog is full: it accepts nothing (stopped or wedged).
    Busy,
    /// A listener took the connection (queued, maybe never answered).
    Connected(UnixStream),
    Failed(io::Error),
}

fn probe(socket: &Path) -> Probe {
    use rustix::io::Errno;
    use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
    let connected = (|| {
        let fd = rustix::net::socket_with(
            AddressFamily::UNIX,
            SocketType::STREAM,
            SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
            None,
        )?;
        rustix::net::connect(&fd, &SocketAddrUnix::new(socket)?)?;
        Ok(UnixStream::from(fd))
    })();
    match connected {
        Ok(stream) => Probe::Connected(stream),
        Err(Errno::NOENT) => Probe::Missing,
        Err(Errno::CONNREFUSED) => Probe::Refused,
        Err(Errno::AGAIN) => Probe::Busy,
        Err(e) => Probe::Failed(e.into()),
    }
}

/// Remove the socket of an agent that died (nobody listens on it); refuse one that a
/// process listens on (even one that accepts nothing). Never blocks.
pub(crate) fn clear_stale(socket: &Path) -> io::Result<()> {
    match probe(socket) {
        Probe::Missing => Ok(()),
        Probe::Refused => match std::fs::remove_file(socket) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
        Probe::Busy | Probe::Connected(_) => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            "an agent is already listening there",
        )),
        Probe::Failed(e) => Err(e),
    }
}

/// What [`end`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Ended {
    /// The agent's process that was ended by a signal, if one was running.
    pub pid: Option<u32>,
    /// It did not end on SIGTERM and took SIGKILL (its memory went back unwiped).
    pub killed: bool,
    /// A socket nobody listened on was removed.
    pub removed_socket: bool,
}

/// Why [`end`] did not end the agent. Nothing was signalled unless said.
#[derive(Debug)]
pub enum EndError {
    /// The folder is not this user's private folder: nothing there is trusted or touched.
    NotPrivate(io::Error),
    /// A process listens on the socket that is not the agent the pid file names (or there is
    /// no pid file): it was not signalled.
    NotTheAgent {
        /// The process listening on the socket.
        pid: u32,
    },
    /// The socket accepts no connection and no pid file names the agent's process.
    Unknown,
    /// The agent was sent SIGTERM, SIGCONT and SIGKILL and still runs.
    Survived {
        /// The agent's process id.
        pid: u32,
    },
    /// Its socket is still in the way after the agent was dealt with.
    Socket(String),
}

impl std::fmt::Display for EndError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EndError::NotPrivate(e) => write!(f, "the agent's folder is not private: {e}"),
            EndError::NotTheAgent { pid } => write!(
                f,
                "a process of this user (pid {pid}) listens on the agent's socket, but no \
                 agent pid file names it; it was left running"
            ),
            EndError::Unknown => f.write_str(
                "the agent's socket accepts no connection (a stopped agent with a full \
                 backlog?) and no agent pid file names its process",
            ),
            EndError::Survived { pid } => write!(
                f,
                "the agent (pid {pid}) is still running after SIGTERM, SIGCONT and SIGKILL"
            ),
            EndError::Socket(why) => write!(f, "its socket is still in the way: {why}"),
        }
    }
}

/// End the agent behind `socket`, which does not answer (or has lost its socket): by its pid,
/// as the module says. Then remove the socket if nobody listens on it any more, and a pid
/// file that names no running agent.
pub fn end(socket: &Path) -> Result<Ended, EndError> {
    if let Some(folder) = socket.parent() {
        super::check_folder(folder).map_err(EndError::NotPrivate)?;
    }
    let uid = rustix::process::getuid();
    let agent = recorded(socket);
    let target = match probe(socket) {
        Probe::Connected(stream) => match rustix::net::sockopt::socket_peercred(&stream) {
            Ok(cred) if cred.uid != uid => {
                return Err(EndError::Socket(format!(
                    "it is served by uid {}, not by this user",
                    cred.uid.as_raw()
                )));
            }
            Ok(cred) => {
                let pid = u32::try_from(cred.pid.as_raw_nonzero().get()).unwrap_or(0);
                match agent {
                    Some(a) if a.pid == pid => Some(a),
                    _ => return Err(EndError::NotTheAgent { pid }),
                }
            }
            Err(_) => agent,
        },
        Probe::Busy if agent.is_none() => return Err(EndError::Unknown),
        _ => agent,
    };
    let mut ended = Ended::default();
    if let Some(a) = target {
        ended.killed = terminate(a)?;
        ended.pid = Some(a.pid);
    }
    match probe(socket) {
        Probe::Missing => {}
        Probe::Refused => match std::fs::remove_file(socket) {
            Ok(()) => ended.removed_socket = true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(EndError::Socket(format!("cannot remove it: {e}"))),
        },
        Probe::Busy | Probe::Connected(_) => {
            return Err(EndError::Socket("another process listens on it now".into()));
        }
        Probe::Failed(e) => return Err(EndError::Socket(e.to_string())),
    }
    // A pid file that names no running agent any more (a killed one's) goes too.
    if recorded(socket).is_none() {
        let _ = std::fs::remove_file(pid_path(socket));
    }
    Ok(ended)
}

/// SIGTERM and SIGCONT, then SIGKILL if it has not ended: whether it took SIGKILL.
fn terminate(agent: AgentProcess) -> Result<bool, EndError> {
    use rustix::process::Signal;
    let target = Target::new(agent);
    // Checked after the pid is pinned (pidfd): the process signalled is the recorded agent.
    if !agent.is_running() {
        return Ok(false);
    }
    target.signal(Signal::TERM);
    target.signal(Signal::CONT);
    if target.wait_gone(TERM_GRACE) {
        return Ok(false);
    }
    target.signal(Signal::KILL);
    if target.wait_gone(KILL_GRACE) {
        return Ok(true);
    }
    Err(EndError::Survived { pid: agent.pid })
}

/// The process being ended, pinned by a pidfd where Linux offers one (so a pid reused meanwhile
/// is never signalled); on Android, whose app sandbox may not allow pidfd_open, by its pid,
/// re-checked before each signal.
struct Target {
    agent: AgentProcess,
    #[cfg(target_os = "linux")]
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl Target {
    fn new(agent: AgentProcess) -> Target {
        Target {
            agent,
            #[cfg(target_os = "linux")]
            pidfd: rustix::process::Pid::from_raw(agent.pid as i32).and_then(|pid| {
                rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
            }),
        }
    }

    fn signal(&self, signal: rustix::process::Signal) {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.pidfd {
            let _ = rustix::process::pidfd_send_signal(fd, signal);
            return;
        }
        if self.agent.is_running()
            && let Some(pid) = rustix::process::Pid::from_raw(self.agent.pid as i32)
        {
            let _ = rustix::process::kill_process(pid, signal);
        }
    }

    fn wait_gone(&self, limit: Duration) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.pidfd {
            // Readable once the process has ended.
            let mut fds = [rustix::event::PollFd::new(fd, rustix::event::PollFlags::IN)];
            let timeout = rustix::event::Timespec {
                tv_sec: limit.as_secs() as _,
                tv_nsec: limit.subsec_nanos() as _,
            };
            loop {
                match rustix::event::poll(&mut fds, Some(&timeout)) {
                    Err(rustix::io::Errno::INTR) => continue,
                    Ok(n) => return n > 0 || !self.agent.is_running(),
                    Err(_) => break,
                }
            }
        }
        self.agent.wait_gone(limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pid_file_names_this_process_until_its_start_time_differs() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("agent-00.sock");
        assert_eq!(pid_path(&socket), dir.path().join("agent-00.pid"));
        write_pid_file(&pid_path(&socket)).unwrap();
        // This process wrote it: `recorded` never names the caller itself.
        assert_eq!(recorded(&socket), None);
        let text = std::fs::read_to_string(pid_path(&socket)).unwrap();
        let (pid, start) = text.trim().split_once(' ').unwrap();
        assert_eq!(pid.parse::<u32>().unwrap(), std::process::id());
        let me = AgentProcess {
            pid: std::process::id(),
            start: start.parse().unwrap(),
        };
        assert!(me.is_running());
        // The same pid with another start time is another process.
        let reused = AgentProcess {
            start: me.start + 1,
            ..me
        };
        assert!(!reused.is_running());
        assert!(reused.wait_gone(Duration::ZERO));
        // A child: named while it runs, not once it has ended.
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let (_, start) = stat_of(child.id()).unwrap();
        std::fs::write(pid_path(&socket), format!("{} {start}\n", child.id())).unwrap();
        assert_eq!(recorded(&socket).map(|p| p.pid), Some(child.id()));
        std::fs::write(pid_path(&socket), format!("{} {}\n", child.id(), start + 7)).unwrap();
        assert_eq!(recorded(&socket), None);
        child.kill().unwrap();
        child.wait().unwrap();
        std::fs::write(pid_path(&socket), format!("{} {start}\n", child.id())).unwrap();
        assert_eq!(recorded(&socket), None);
        for junk in ["", "x y", "1 2", "12", "-5 3"] {
            std::fs::write(pid_path(&socket), junk).unwrap();
            assert_eq!(recorded(&socket), None, "{junk:?}");
        }
    }

    #[test]
    fn clearing_a_socket_never_blocks_and_removes_only_a_dead_one() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("s.sock");
        clear_stale(&socket).unwrap();
        // A listener that accepts nothing: refused, left in place.
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert_eq!(
            clear_stale(&socket).unwrap_err().kind(),
            io::ErrorKind::AddrInUse
        );
        drop(listener);
        // Nobody listens: removed. (A process another test thread forks in the meantime holds
        // a copy of the listener until it runs exec; give it a moment.)
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while let Err(e) = clear_stale(&socket) {
            assert_eq!(e.kind(), io::ErrorKind::AddrInUse, "{e}");
            assert!(std::time::Instant::now() < deadline, "still listened on");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!socket.exists());
    }
}

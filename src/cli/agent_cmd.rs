//! `nexusq agent start|status|stop|serve` and `nexusq lock` (docs/agent.md). The agent itself
//! lives in `nexusq_core::agent`; here are the commands, the hand-over to the background process
//! and the fallback messages of the commands that use it.

use super::Context;
use super::args::{AgentServeArgs, AgentStartArgs};
use super::error::{Error, Result};
use nexusq_core::agent::{self, client, keys::AgentKeys, process, server};
use nexusq_core::identity::SecretSection;
use serde_json::json;
use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

/// The most the start command waits for the background agent's "ready" line.
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest secret section handed to the agent (a vault is at most 64 MiB; its secret
/// section is far smaller).
const MAX_HANDOVER: usize = 16 * 1024 * 1024;

fn duration(text: &str, option: &str) -> Result<Duration> {
    agent::parse_duration(text).map_err(|m| {
        Error::usage(
            format!("{option}: {m}"),
            "give a duration such as 30s, 15m, 2h or 1d",
        )
    })
}

fn folder_error(folder: &Path, e: &std::io::Error) -> Error {
    Error::io(
        format!(
            "cannot use the agent's folder {}: {e}",
            super::output::untrusted_path(folder)
        ),
        "it must be a folder of yours with mode 0700 (set XDG_RUNTIME_DIR or XDG_STATE_HOME \
         to another folder, or fix its owner and mode)",
    )
}

/// The socket must fit in a socket address (docs/agent.md, "Where it listens").
fn check_socket_path(socket: &Path) -> Result<()> {
    agent::check_socket_path(socket).map_err(|m| {
        Error::io(
            m,
            "set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to a folder with a shorter path",
        )
    })
}

pub fn start(ctx: &Context, args: &AgentStartArgs) -> Result<()> {
    let idle = duration(&args.idle, "--idle")?;
    let max = duration(&args.max, "--max")?;
    let path = ctx.vault_path()?;
    let vault = agent::vault_identity(&path);
    // A missing or damaged vault fails before anything else.
    nexusq_core::vault::open(&vault)?;
    let socket = agent::socket_path(&vault);
    check_socket_path(&socket)?;
    let folder = agent::socket_folder();
    agent::make_folder(&folder).map_err(|e| folder_error(&folder, &e))?;
    match client::find_at(&socket, agent::CLIENT_TIMEOUT) {
        client::Lookup::Ready(running) if !args.replace => {
            let s = running.status();
            let mut j = json!({
                "started": false,
                "running": true,
                "pid": s.pid,
                "socket": socket.display().to_string(),
                "vault": vault.display().to_string(),
            });
            super::output::path_bytes(&mut j, &[("socket", &socket), ("vault", &vault)]);
            ctx.out.json(&j);
            if !args.quiet {
                ctx.out.note(&format!(
                    "an agent already serves {} (pid {}, socket {}); `nexusq agent start \
                     --replace` starts a new one",
                    super::output::untrusted_path(&vault),
                    s.pid,
                    socket.display()
                ));
            }
            return Ok(());
        }
        found => match make_gone(&socket, found)? {
            Gone::Nothing | Gone::Stopped { .. } => {}
            Gone::Stale { why } if !args.quiet => ctx
                .out
                .note(&format!("removed a stale agent socket ({why})")),
            ended @ Gone::Ended { .. } if !args.quiet => ctx.out.note(&ended.to_string()),
            Gone::Stale { .. } | Gone::Ended { .. } => {}
        },
    }
    let unlocked = ctx.unlock()?;
    let backend = ctx.backend()?;
    if args.foreground {
        let mut unlocked = unlocked;
        let secrets = SecretSection {
            generations: std::mem::take(&mut unlocked.secrets.generations),
        };
        let public = unlocked.file.public.clone();
        drop(unlocked);
        return serve_here(
            ctx, &vault, &socket, &public, secrets, backend, idle, max, true,
        );
    }
    let handover = unlocked.secrets.encode();
    let public = unlocked.file.public.clone();
    drop(unlocked);
    let pid = spawn_background(ctx, &vault, idle, max, &handover)?;
    drop(handover);
    let fp = public.root_id().fingerprint().to_string();
    let mut j = json!({
        "started": true,
        "running": true,
        "pid": pid,
        "socket": socket.display().to_string(),
        "vault": vault.display().to_string(),
        "fingerprint": fp,
        "idle_seconds": idle.as_secs(),
        "max_seconds": max.as_secs(),
    });
    super::output::path_bytes(&mut j, &[("socket", &socket), ("vault", &vault)]);
    ctx.out.json(&j);
    if args.quiet {
        return Ok(());
    }
    ctx.out
        .data(&format!("agent listening on {}", socket.display()));
    ctx.out.note(&format!(
        "agent started for {} ({fp}), pid {pid}; it stops after {} idle or {} in all \
         (`nexusq lock` stops it now)",
        super::output::untrusted_path(&vault),
        human(idle),
        human(max)
    ));
    Ok(())
}

fn human(d: Duration) -> String {
    let s = d.as_secs();
    if s.is_multiple_of(3600) {
        format!("{}h", s / 3600)
    } else if s.is_multiple_of(60) {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

fn wait_gone(socket: &Path, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if std::fs::symlink_metadata(socket).is_err() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// How the agent of a vault was made to go (`stop`, `lock`, `start --replace`, and `start`
/// finding an agent that does not answer): docs/agent.md, "When it stops".
enum Gone {
    /// No agent ran: no socket, and no running agent that its pid file names.
    Nothing,
    /// It wiped its keys and ended on request.
    Stopped { pid: u32 },
    /// It did not answer (or had lost its socket) and was ended by a signal.
    Ended { pid: u32, why: String, killed: bool },
    /// Nobody listened on its socket: the stale socket was removed.
    Stale { why: String },
}

impl std::fmt::Display for Gone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gone::Nothing => f.write_str("no agent was running for this vault"),
            Gone::Stopped { .. } => f.write_str("agent stopped; its keys are wiped"),
            Gone::Ended { pid, why, killed } => write!(
                f,
                "the agent (pid {pid}) did not answer ({why}); ended it{}; its keys are gone \
                 with it",
                if *killed { " with SIGKILL" } else { "" }
            ),
            Gone::Stale { why } => {
                write!(f, "no agent was serving ({why}); removed its stale socket")
            }
        }
    }
}

/// Make the agent behind `socket` go: asked to stop when it answers, else ended by its pid
/// (`nexusq_core::agent::process`). Succeeds only when no agent process is left.
fn make_gone(socket: &Path, found: client::Lookup) -> Result<Gone> {
    let why = match found {
        client::Lookup::Ready(a) => {
            let pid = a.status().pid;
            let recorded = process::recorded(socket).filter(|p| p.pid == pid);
            match a.stop() {
                Ok(()) => {
                    let gone = match recorded {
                        Some(p) => p.wait_gone(Duration::from_secs(3)),
                        None => wait_gone(socket, Duration::from_secs(3)),
                    };
                    if gone {
                        return Ok(Gone::Stopped { pid });
                    }
                    "it said it stops, but still runs after 3 s".to_string()
                }
                Err(m) => m,
            }
        }
        client::Lookup::Absent if process::recorded(socket).is_some() => {
            "it had lost its socket".to_string()
        }
        client::Lookup::Absent => return Ok(Gone::Nothing),
        client::Lookup::Unusable(why) => why,
    };
    match process::end(socket) {
        Ok(process::Ended {
            pid: Some(pid),
            killed,
            ..
        }) => Ok(Gone::Ended { pid, why, killed }),
        Ok(process::Ended {
            removed_socket: true,
            ..
        }) => Ok(Gone::Stale { why }),
        Ok(_) => Ok(Gone::Nothing),
        Err(e) => {
            let hint = match &e {
                process::EndError::NotTheAgent { pid } => format!(
                    "if it is an agent (of an older nexusq?), end it with `kill {pid}`; else \
                     make it stop listening on {}",
                    socket.display()
                ),
                process::EndError::Survived { pid } => format!(
                    "look at it with `ps -p {pid}` (a process stuck in the kernel cannot be \
                     ended); its socket was left"
                ),
                process::EndError::Unknown => "find the agent with `ps -ef | grep 'agent serve'` \
                    and end it with `kill`, then run `nexusq lock` again"
                    .to_string(),
                process::EndError::NotPrivate(_) => "it must be a folder of yours with mode \
                    0700: fix its owner and mode, or set XDG_RUNTIME_DIR to another folder"
                    .to_string(),
                process::EndError::Socket(_) => format!(
                    "remove {} once no agent runs for this vault",
                    socket.display()
                ),
            };
            Err(Error::io(
                format!("cannot end the agent ({why}): {e}"),
                hint,
            ))
        }
    }
}

/// Re-run this binary as `agent serve` (no fork in a threaded program), hand it the working
/// secrets over a pipe, and wait for its ready line. Returns its pid.
fn spawn_background(
    ctx: &Context,
    vault: &Path,
    idle: Duration,
    max: Duration,
    handover: &[u8],
) -> Result<u32> {
    let exe = std::env::current_exe().map_err(|e| {
        Error::io(
            format!("cannot find the nexusq binary to start the agent: {e}"),
            "run `nexusq agent start --foreground` instead",
        )
    })?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--vault").arg(vault);
    if let Some(b) = ctx.global.backend {
        use clap::ValueEnum;
        if let Some(v) = b.to_possible_value() {
            cmd.arg("--backend").arg(v.get_name());
        }
    }
    cmd.args(["agent", "serve"])
        .arg(format!("--idle={}s", idle.as_secs()))
        .arg(format!("--max={}s", max.as_secs()))
        .current_dir("/")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let failed = |e: std::io::Error| {
        Error::io(
            format!("cannot start the agent process: {e}"),
            "run `nexusq agent start --foreground` to see what goes wrong",
        )
    };
    let mut child = cmd.spawn().map_err(failed)?;
    {
        let mut stdin = child.stdin.take().expect("piped");
        let mut frame = Zeroizing::new(Vec::with_capacity(4 + handover.len()));
        frame.extend_from_slice(&(handover.len() as u32).to_be_bytes());
        frame.extend_from_slice(handover);
        stdin.write_all(&frame).map_err(failed)?;
    }
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(READY_TIMEOUT).unwrap_or_default();
    let line = line.trim_end();
    if let Some(pid) = line.strip_prefix("ready ") {
        return pid.parse().map_err(|_| {
            Error::io(
                format!("the agent process said {line:?}"),
                "this is a bug in nexusq; please report it",
            )
        });
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(match line.strip_prefix("error ") {
        Some(rest) => {
            let mut parts = rest.splitn(2, '\t');
            let message = parts.next().unwrap_or_default();
            let hint = parts.next().unwrap_or_default();
            Error::io(format!("the agent did not start: {message}"), hint)
        }
        None => Error::io(
            "the agent process ended or hung before it was ready",
            "run `nexusq agent start --foreground` to see what goes wrong",
        ),
    })
}

/// Harden the process, lock its memory where allowed, bind the socket and serve.
#[allow(clippy::too_many_arguments)]
fn serve_here(
    ctx: &Context,
    vault: &Path,
    socket: &Path,
    public: &nexusq_core::identity::PublicIdentity,
    secrets: SecretSection,
    backend: &'static dyn nexusq_core::suite::Backend,
    idle: Duration,
    max: Duration,
    foreground: bool,
) -> Result<()> {
    for failure in super::hardening::harden_process() {
        ctx.out
            .warn(&format!("could not harden the process: {failure}"));
    }
    let keys = AgentKeys::new(public, secrets, backend)?;
    // The key thread first, so that its stack is mapped when the memory is locked.
    let keys = server::KeyThread::spawn(keys, backend).map_err(|e| {
        Error::io(
            format!("cannot start the agent's key thread: {e}"),
            "the system is short of memory or threads; try again",
        )
    })?;
    // Best effort: RLIMIT_MEMLOCK is often small; the secrets' own pages are locked anyway.
    // Not MCL_FUTURE: under a small limit every later allocation would fail.
    let memory_locked = rustix::mm::mlockall(rustix::mm::MlockAllFlags::CURRENT).is_ok();
    check_socket_path(socket)?;
    let folder = agent::socket_folder();
    agent::make_folder(&folder).map_err(|e| folder_error(&folder, &e))?;
    let bound = server::bind(socket).map_err(|e| {
        Error::io(
            format!("cannot listen on {}: {e}", socket.display()),
            "is another agent starting for this vault? try `nexusq agent status`",
        )
    })?;
    if foreground {
        ctx.out
            .data(&format!("agent listening on {}", socket.display()));
        ctx.out.note(&format!(
            "agent for {} in the foreground (pid {}); Ctrl-C, `nexusq lock` or {} idle ends it",
            super::output::untrusted_path(vault),
            std::process::id(),
            human(idle)
        ));
    } else {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "ready {}", std::process::id());
        let _ = out.flush();
    }
    let config = server::Config {
        vault: vault.to_path_buf(),
        socket: socket.to_path_buf(),
        idle,
        max,
        memory_locked,
    };
    let ending = server::serve(bound, keys, config);
    if foreground {
        ctx.out
            .note(&format!("agent stopped, keys wiped: {ending}"));
    }
    Ok(())
}

/// The hidden `agent serve`: the background agent. Reads the working secrets from stdin.
pub fn serve(ctx: &Context, args: &AgentServeArgs) -> Result<()> {
    let result = serve_inner(ctx, args);
    if let Err(e) = &result {
        // The starter reads this line; the error is also the exit status.
        let mut out = std::io::stdout().lock();
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        let _ = writeln!(out, "error {}\t{}", clean(e.message()), clean(e.hint()));
        let _ = out.flush();
    }
    result
}

fn serve_inner(ctx: &Context, args: &AgentServeArgs) -> Result<()> {
    // Its own session: the terminal's hang-up does not reach it.
    let _ = rustix::process::setsid();
    for failure in super::hardening::harden_process() {
        ctx.out
            .warn(&format!("could not harden the process: {failure}"));
    }
    let idle = duration(&args.idle, "--idle")?;
    let max = duration(&args.max, "--max")?;
    let mut len = [0u8; 4];
    let mut stdin = std::io::stdin().lock();
    let bad = |what: &str| {
        Error::usage(
            format!("`nexusq agent serve` {what}"),
            "it is started by `nexusq agent start`, not by hand",
        )
    };
    stdin
        .read_exact(&mut len)
        .map_err(|_| bad("got no secrets on stdin"))?;
    let n = u32::from_be_bytes(len) as usize;
    if n > MAX_HANDOVER {
        return Err(bad("got an over-long hand-over"));
    }
    let mut bytes = Zeroizing::new(vec![0u8; n]);
    stdin
        .read_exact(&mut bytes)
        .map_err(|_| bad("got a cut hand-over"))?;
    drop(stdin);
    let secrets = SecretSection::decode(&bytes).map_err(|e| bad(&format!("got {}", e.0)))?;
    drop(bytes);
    let path = ctx.vault_path()?;
    let vault = agent::vault_identity(&path);
    let file = nexusq_core::vault::open(&vault)?;
    let socket = agent::socket_path(&vault);
    let backend = ctx.backend()?;
    serve_here(
        ctx,
        &vault,
        &socket,
        &file.public,
        secrets,
        backend,
        idle,
        max,
        false,
    )
}

pub fn status(ctx: &Context) -> Result<()> {
    let path = ctx.vault_path()?;
    let vault = agent::vault_identity(&path);
    let socket = agent::socket_path(&vault);
    match client::find(&vault) {
        client::Lookup::Ready(a) => {
            let s = a.status();
            let fp = nexusq_core::identity::RootId(s.root_id)
                .fingerprint()
                .to_string();
            let expires = nexusq_core::time::rfc3339(s.expires_at);
            let keys: Vec<_> = s
                .keys
                .iter()
                .map(|(g, suite)| {
                    let name = nexusq_core::suite::SuiteId::from_u16(*suite)
                        .map_or("unknown", nexusq_core::suite::SuiteId::name);
                    json!({"generation": g, "suite": name})
                })
                .collect();
            let mut j = json!({
                "running": true,
                "pid": s.pid,
                "vault": s.vault,
                "socket": socket.display().to_string(),
                "fingerprint": fp,
                "generation": s.signing_generation,
                "idle_seconds_left": s.idle_left,
                "expires_at": expires,
                "started_at": super::output::time(s.started_at),
                "memory_locked": s.memory_locked,
                "keys": keys,
            });
            super::output::path_bytes(&mut j, &[("socket", &socket), ("vault", &vault)]);
            ctx.out.json(&j);
            ctx.out.data(&format!(
                "agent running (pid {}) for {}\n  fingerprint {fp}, generation {}\n  \
                 idle timeout in {} s, stops at {expires} at the latest\n  socket {}",
                s.pid,
                nexusq_core::untrusted::escape(&s.vault),
                s.signing_generation,
                s.idle_left,
                socket.display()
            ));
            Ok(())
        }
        client::Lookup::Absent => Err(not_running(&vault, None)),
        client::Lookup::Unusable(why) => Err(not_running(&vault, Some(&why))),
    }
}

/// Exit 1; under --json one object, `{"running": false, ..., "error": {...}}` (docs/cli.md).
fn not_running(vault: &Path, why: Option<&str>) -> Error {
    let mut m = format!(
        "no agent is running for {}",
        super::output::untrusted_path(vault)
    );
    if let Some(why) = why {
        m.push_str(&format!(" ({why})"));
    }
    let mut e = Error::check(m, "start one with `nexusq agent start`")
        .with_json("running", json!(false))
        .with_json("vault", json!(vault.display().to_string()))
        .with_json("reason", json!(why));
    let mut extra = json!({});
    super::output::path_bytes(&mut extra, &[("vault", vault)]);
    for (k, v) in extra.as_object().into_iter().flatten() {
        e = e.with_json(k, v.clone());
    }
    e
}

/// `agent stop` and `lock`: wipe the keys and end the agent. No agent is not an error; an
/// agent that cannot be confirmed gone is (exit 5).
pub fn stop(ctx: &Context) -> Result<()> {
    let path = ctx.vault_path()?;
    let vault = agent::vault_identity(&path);
    let socket = agent::socket_path(&vault);
    let gone = make_gone(&socket, client::find(&vault))?;
    ctx.out.note(&gone.to_string());
    let (stopped, how, pid) = match &gone {
        Gone::Nothing => (false, "none", None),
        Gone::Stale { .. } => (false, "stale-socket", None),
        Gone::Stopped { pid } => (true, "request", Some(*pid)),
        Gone::Ended { pid, .. } => (true, "signal", Some(*pid)),
    };
    let mut j = json!({
        "stopped": stopped,
        "how": how,
        "pid": pid,
        "vault": vault.display().to_string(),
    });
    super::output::path_bytes(&mut j, &[("vault", &vault)]);
    ctx.out.json(&j);
    Ok(())
}

/// After `rotate`, `vault passwd` or `identity revoke` changed the vault: stop its agent, whose
/// keys are from before (the agent would also notice the changed file and stop by itself).
pub fn stop_after_change(ctx: &Context, path: &Path, what: &str) {
    if let client::Lookup::Ready(a) = client::find(path)
        && a.stop().is_ok()
    {
        wait_gone(a.socket(), Duration::from_secs(3));
        ctx.out.note(&format!(
            "stopped the key agent: its keys are from before {what}; `nexusq agent start` \
             serves the vault again"
        ));
    }
}

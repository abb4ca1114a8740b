//! `nexusq agent`: a per-user process that holds one vault's working secrets (every kept
//! generation's decapsulation keys and the newest generation's signing key, never the root
//! seed) so that `sign`, `decrypt` and `decapsulate` need no password while it runs
//! (docs/agent.md, docs/security.md).
//!
//! [`protocol`] is the bounded wire format, [`server`] the agent's loop, [`client`] what commands
//! (and `nexusq-git-sign`) call. Nothing here prints: the command line reports.

pub mod client;
pub mod keys;
pub mod process;
pub mod protocol;
pub mod server;

use sha2::{Digest, Sha256};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Connecting, and each request, gives up after this long (then the command uses the password).
pub const CLIENT_TIMEOUT: Duration = Duration::from_millis(1500);

/// The private folder that holds the sockets: `$XDG_RUNTIME_DIR/nexusq`, else
/// `$XDG_STATE_HOME/nexusq/agent`, else `~/.local/state/nexusq/agent` (docs/agent.md). Not the
/// shared temporary folder: there another user could make the folder first and so keep the
/// agent from starting. Only without a home (no absolute `$HOME`) `$TMPDIR/nexusq-<uid>`.
pub fn socket_folder() -> PathBuf {
    let absolute = |value: Option<std::ffi::OsString>| {
        value
            .filter(|d| !d.is_empty() && Path::new(d).is_absolute())
            .map(PathBuf::from)
    };
    if let Some(dir) = absolute(std::env::var_os("XDG_RUNTIME_DIR")) {
        return dir.join("nexusq");
    }
    if let Some(state) = absolute(std::env::var_os("XDG_STATE_HOME")) {
        return state.join("nexusq").join("agent");
    }
    if let Some(home) = absolute(std::env::var_os("HOME")) {
        return home.join(".local/state/nexusq/agent");
    }
    // $TMPDIR (Termux: $PREFIX/tmp; Termux has no /tmp), else the system's default.
    let uid = rustix::process::getuid().as_raw();
    std::env::temp_dir().join(format!("nexusq-{uid}"))
}

/// The longest path a Unix socket address holds (108 bytes with the final NUL).
pub(crate) const MAX_SOCKET_PATH: usize = 107;

/// Can a socket be bound at `socket`? Its path must fit in a socket address.
pub fn check_socket_path(socket: &Path) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let n = socket.as_os_str().as_bytes().len();
    if n > MAX_SOCKET_PATH {
        return Err(format!(
            "the agent's socket path {} is {n} bytes long, over the {MAX_SOCKET_PATH} a socket \
             address holds",
            socket.display()
        ));
    }
    Ok(())
}

/// The vault as the agent names it: its resolved absolute path (links followed), else the path
/// made absolute.
pub fn vault_identity(vault: &Path) -> PathBuf {
    std::fs::canonicalize(vault)
        .unwrap_or_else(|_| std::path::absolute(vault).unwrap_or(vault.to_path_buf()))
}

/// The socket of the agent for `vault`: named for a hash of the vault's resolved path, so two
/// vaults have two agents and every spelling of one path finds the same one.
pub fn socket_path(vault: &Path) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let id = vault_identity(vault);
    let hash = Sha256::digest(id.as_os_str().as_bytes());
    let name: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
    socket_folder().join(format!("agent-{name}.sock"))
}

/// Is `folder` ours and private (a real folder, owned by this uid, no access for others)?
pub(crate) fn check_folder(folder: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(folder)?;
    let uid = rustix::process::getuid().as_raw();
    if !meta.is_dir() {
        return Err(io::Error::other(format!(
            "{} is not a folder",
            folder.display()
        )));
    }
    if meta.uid() != uid {
        return Err(io::Error::other(format!(
            "{} belongs to uid {}, not to this user ({uid})",
            folder.display(),
            meta.uid()
        )));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(io::Error::other(format!(
            "{} is open to other users (mode {:o})",
            folder.display(),
            meta.permissions().mode() & 0o777
        )));
    }
    Ok(())
}

/// Make the socket folder (0700, and its missing parents 0700) if it is missing, and check it.
pub fn make_folder(folder: &Path) -> io::Result<()> {
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(folder)
    {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    check_folder(folder)
}

/// A duration as `--idle` and `--max` take it: a whole number with `s`, `m`, `h` or `d`
/// (`30s`, `15m`, `2h`); from 1 s to 7 days.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 30s, 15m or 2h"))?;
    let secs = match unit {
        "s" | "" => Some(n),
        "m" => n.checked_mul(60),
        "h" => n.checked_mul(3600),
        "d" => n.checked_mul(86_400),
        _ => None,
    }
    .ok_or_else(|| format!("{text:?} is not a duration like 30s, 15m or 2h"))?;
    if !(1..=7 * 86_400).contains(&secs) {
        return Err(format!("{text:?} is outside 1s..7d"));
    }
    Ok(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("45").unwrap(), Duration::from_secs(45));
        for bad in [
            "",
            "m",
            "0s",
            "8d",
            "1.5h",
            "-1s",
            "3w",
            "99999999999999999999s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn one_socket_per_vault_path() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path().join("v.nxq");
        std::fs::write(&v, b"x").unwrap();
        let link = dir.path().join("link.nxq");
        std::os::unix::fs::symlink(&v, &link).unwrap();
        assert_eq!(socket_path(&v), socket_path(&link));
        assert_ne!(socket_path(&v), socket_path(&dir.path().join("other.nxq")));
    }
}

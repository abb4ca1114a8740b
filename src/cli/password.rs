//! Where passwords come from: a file, an inherited file descriptor, or the terminal.
//! Never stdin, never an environment variable, never a command-line argument.

use super::error::{Error, Result};
use nexusq_core::secret::Password;
use std::io::Read;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

const MAX_PASSWORD_BYTES: u64 = 64 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Fd(u32),
    Terminal,
}

impl Source {
    pub fn from_options(file: Option<&PathBuf>, fd: Option<u32>) -> Source {
        match (file, fd) {
            (Some(f), _) => Source::File(f.clone()),
            (None, Some(fd)) => Source::Fd(fd),
            (None, None) => Source::Terminal,
        }
    }

    pub fn is_terminal(&self) -> bool {
        matches!(self, Source::Terminal)
    }

    /// Is this stdin itself: `--password-fd 0`, or a file or descriptor that is the same file
    /// or pipe as stdin?
    pub fn is_stdin(&self) -> bool {
        let path = match self {
            Source::Fd(0) => return true,
            Source::Fd(fd) => PathBuf::from(format!("/proc/self/fd/{fd}")),
            Source::File(p) => p.clone(),
            Source::Terminal => return false,
        };
        is_stdin(&path)
    }
}

/// Refuse, before anything is read, a password source that is stdin itself while `data`
/// comes on stdin (`--password-fd 0`, or a file that is the same file or pipe as stdin), and a
/// prompt when there is no terminal to prompt on (`no_terminal_hint`: the options of this
/// command that give the password instead).
pub fn check_source(
    source: &Source,
    data_on_stdin: bool,
    data: &str,
    no_terminal_hint: &str,
) -> Result<()> {
    if data_on_stdin && source.is_stdin() {
        return Err(Error::usage(
            format!("the password source is stdin itself, which carries {data}"),
            "pass the data as FILE, or the password with --password-file PATH or \
             --password-fd 3 (3<pwfile)",
        ));
    }
    if source.is_terminal() && !terminal_available() {
        return Err(no_terminal("password", no_terminal_hint));
    }
    Ok(())
}

/// Is `path` stdin: `-`, or the same file or pipe as this process's standard input?
// The stat field types differ between targets (u64 here, other widths elsewhere).
#[allow(clippy::unnecessary_cast)]
fn is_stdin(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if path == Path::new("-") {
        return true;
    }
    let Ok(stdin) = rustix::fs::fstat(std::io::stdin()) else {
        return false;
    };
    std::fs::metadata(path)
        .is_ok_and(|m| m.dev() == stdin.st_dev as u64 && m.ino() == stdin.st_ino as u64)
}

fn terminal_available() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok()
}

fn no_terminal(what: &str, hint: &str) -> Error {
    Error::usage(format!("no terminal to ask for the {what}"), hint)
}

/// The password file named by `$NEXUSQ_PASSWORD_FILE` (scripts; the age plugin and
/// `nexusq-git-sign`, which take no options), when it is set and not empty.
pub fn env_password_file() -> Option<PathBuf> {
    std::env::var_os("NEXUSQ_PASSWORD_FILE")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
}

/// Read the password from the `$NEXUSQ_PASSWORD_FILE` file `path`; warnings (a file others
/// can read) go to `warn`.
pub fn read_env_password_file(path: &Path, mut warn: impl FnMut(&str)) -> Result<Password> {
    let read = read(&Source::File(path.to_path_buf()), "password", false)?;
    for w in &read.warnings {
        warn(w);
    }
    Ok(read.password)
}

/// Is there a terminal to ask for a password on?
pub fn has_terminal() -> bool {
    terminal_available()
}

/// What a password read produced besides the password: warnings for the user.
#[derive(Debug)]
pub struct PasswordRead {
    pub password: Password,
    pub warnings: Vec<String>,
}

/// Read a password. `confirm` asks twice on a terminal (init, new passwords); `what` names it
/// in prompts and errors ("password", "new password").
pub fn read(source: &Source, what: &str, confirm: bool) -> Result<PasswordRead> {
    read_labelled(
        source,
        what,
        &capitalised(what),
        confirm,
        "run it at a terminal",
    )
}

/// `what` with its first letter in upper case, for a prompt ("Password for ~/vault.nxq").
pub fn capitalised(what: &str) -> String {
    let mut c = what.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// How a prompt names the vault: under `$HOME` as `~/…`, escaped for the terminal.
pub fn shown_path(path: &Path) -> String {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => {
            format!("~/{}", nexusq_core::untrusted::path(rest))
        }
        _ => nexusq_core::untrusted::path(path),
    }
}

/// [`read`], with the terminal prompt `label` as given ("Password for ~/vault.nxq") and, when
/// there is no terminal, the hint `no_terminal_hint` (the options of this command).
pub fn read_labelled(
    source: &Source,
    what: &str,
    label: &str,
    confirm: bool,
    no_terminal_hint: &str,
) -> Result<PasswordRead> {
    let mut warnings = Vec::new();
    let password = match source {
        Source::File(path) => {
            warnings.extend(password_file_warnings(path));
            first_line(
                open_limited(path)?,
                &format!("the {what} file {}", path.display()),
            )?
        }
        Source::Fd(fd) => {
            // /proc/self/fd/N opens the inherited descriptor without unsafe code; it works for
            // pipes and files on Linux and Android.
            let proc_path = PathBuf::from(format!("/proc/self/fd/{fd}"));
            let file = std::fs::File::open(&proc_path).map_err(|e| {
                Error::usage(
                    format!("cannot read the {what} from file descriptor {fd}: {e}"),
                    "pass a descriptor this process inherited, e.g. `--password-fd 3 3<pwfile`",
                )
            })?;
            first_line(file, &format!("file descriptor {fd}"))?
        }
        Source::Terminal => prompt(what, label, confirm, no_terminal_hint)?,
    };
    if password.is_empty() {
        return Err(Error::usage(
            format!("the {what} is empty"),
            "an empty password protects nothing; use a long passphrase",
        ));
    }
    Ok(PasswordRead { password, warnings })
}

fn open_limited(path: &Path) -> Result<std::fs::File> {
    std::fs::File::open(path).map_err(|e| {
        let mut err = Error::io_at("read the password file", path, &e);
        if e.kind() == std::io::ErrorKind::NotFound {
            err = Error::usage(err.message().to_string(), "check the --password-file path");
        }
        err
    })
}

/// The first line, without its line ending (LF or CRLF), read one byte at a time so nothing
/// past the first line is consumed from a pipe.
fn first_line(reader: impl Read, what: &str) -> Result<Password> {
    let mut line = Zeroizing::new(Vec::new());
    let mut byte = [0u8; 1];
    let mut reader = reader.take(MAX_PASSWORD_BYTES + 1);
    loop {
        match reader.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Error::io(
                    format!("cannot read the password from {what}: {e}"),
                    "check that it is readable",
                ));
            }
        }
        if line.len() as u64 > MAX_PASSWORD_BYTES {
            return Err(Error::usage(
                format!("the first line of {what} is longer than 64 KiB"),
                "the password must be the file's first line",
            ));
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    let text = String::from_utf8(std::mem::take(&mut *line)).map_err(|e| {
        let mut bytes = e.into_bytes();
        zeroize::Zeroize::zeroize(&mut bytes);
        Error::usage(
            format!("the password in {what} is not valid UTF-8"),
            "save the password file as UTF-8 text",
        )
    })?;
    Ok(Password::new(Zeroizing::new(text)))
}

fn password_file_warnings(path: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    if let Ok(meta) = std::fs::metadata(path)
        && meta.permissions().mode() & 0o077 != 0
    {
        out.push(format!(
            "the password file {} is readable by other users (mode {:o}); run `chmod 600` on it",
            path.display(),
            meta.permissions().mode() & 0o777
        ));
    }
    let shared = std::fs::canonicalize(path)
        .map(|p| nexusq_core::fs::is_shared_storage(&p))
        .unwrap_or(false);
    if shared {
        out.push(format!(
            "the password file {} is in Android shared storage, where other apps can read it; \
             keep it in Termux's home",
            path.display()
        ));
    }
    out
}

/// Hidden prompt on the controlling terminal. Without one, fail at once (never hang).
fn prompt(what: &str, label: &str, confirm: bool, no_terminal_hint: &str) -> Result<Password> {
    if !terminal_available() {
        return Err(no_terminal(what, no_terminal_hint));
    }
    restore_terminal_on_interrupt();
    let ask = |prompt: &str| {
        rpassword::prompt_password(prompt)
            .map(|s| Password::new(Zeroizing::new(s)))
            .map_err(|e| {
                // Ctrl-C: the prompt raised SIGINT; the handler ends the process (exit 130).
                if e.kind() == std::io::ErrorKind::Interrupted {
                    nexusq_core::fs::cleanup::wait_for_handler(std::time::Duration::from_secs(2));
                }
                Error::io(
                    format!("cannot read the {what} from the terminal: {e}"),
                    "try again, or use --password-file",
                )
            })
    };
    let first = ask(&format!("{label}: "))?;
    if confirm {
        let again = ask(&format!("{label} again: "))?;
        if first != again {
            return Err(Error::usage(
                format!("the two {what}s did not match"),
                "run the command again and type the same password twice",
            ));
        }
    }
    Ok(first)
}

/// The warning for a weak new password: how soon a cracker would find it, zxcvbn's reason and
/// advice, and what to do. Never a refusal: the owner decides.
pub fn weak_warning(s: &nexusq_core::vault::strength::Strength) -> String {
    let mut text = format!(
        "this password is weak: a password cracker would find it within about 10^{:.0} \
         guesses (zxcvbn score {} of 4)",
        s.guesses_log10.ceil(),
        s.score
    );
    if let Some(w) = &s.warning {
        text.push_str(&format!("; {}", w.trim_end_matches('.')));
    }
    text.push_str(
        ". Anyone with a copy of the vault file can try passwords offline. A passphrase of four \
         or more random words is strong",
    );
    if let Some(first) = s.suggestions.first() {
        let mut advice = first.trim_end_matches('.').to_string();
        if let Some(c) = advice.get(..1) {
            advice.replace_range(..1, &c.to_lowercase());
        }
        text.push_str(&format!(" ({advice})"));
    }
    text.push_str("; choose another any time with `nexusq vault passwd`");
    text
}

/// Lines typed on the terminal with echo off (the words of a recovery phrase), for as long as
/// this lives. Echo goes off once, before the first prompt, and comes back when it is dropped:
/// a word typed ahead of its prompt is neither shown nor lost, however fast the typing.
pub struct HiddenInput {
    tty: std::fs::File,
    saved: rustix::termios::Termios,
    what: &'static str,
}

impl HiddenInput {
    /// Echo off on the terminal; without one, a usage error at once.
    pub fn start(what: &'static str) -> Result<Self> {
        use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
        if !terminal_available() {
            return Err(no_terminal(
                what,
                "give the words in a file: --phrase-file FILE or --share-file FILE",
            ));
        }
        restore_terminal_on_interrupt();
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|e| hidden_failed(what, e))?;
        let saved = tcgetattr(&tty).map_err(|e| hidden_failed(what, e.into()))?;
        let mut quiet = saved.clone();
        quiet.local_modes.remove(LocalModes::ECHO);
        quiet.local_modes.insert(LocalModes::ECHONL);
        // Flush: whatever was typed before the first prompt was typed with echo on.
        tcsetattr(&tty, OptionalActions::Flush, &quiet)
            .map_err(|e| hidden_failed(what, e.into()))?;
        Ok(HiddenInput { tty, saved, what })
    }

    /// Show `prompt`, then read one line (at most 1024 bytes; the newline is kept).
    pub fn read(&mut self, prompt: &str) -> Result<Zeroizing<String>> {
        use std::io::{Read, Write};
        self.tty
            .write_all(prompt.as_bytes())
            .and_then(|()| self.tty.flush())
            .map_err(|e| hidden_failed(self.what, e))?;
        // A byte at a time, so no buffer outside `line` ever holds the words; the terminal
        // keeps any line typed ahead for the next call.
        let mut line = Zeroizing::new(Vec::with_capacity(1024));
        let mut byte = [0u8; 1];
        while line.len() < 1024 {
            match self.tty.read(&mut byte) {
                Ok(0) => break,
                Ok(_) => {
                    line.push(byte[0]);
                    if byte[0] == b'\n' {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    nexusq_core::fs::cleanup::wait_for_handler(std::time::Duration::from_secs(2));
                    return Err(hidden_failed(self.what, e));
                }
                Err(e) => return Err(hidden_failed(self.what, e)),
            }
        }
        let text = String::from_utf8_lossy(&line);
        Ok(Zeroizing::new(text.into_owned()))
    }
}

impl Drop for HiddenInput {
    fn drop(&mut self) {
        let _ = rustix::termios::tcsetattr(
            &self.tty,
            rustix::termios::OptionalActions::Now,
            &self.saved,
        );
    }
}

fn hidden_failed(what: &str, e: std::io::Error) -> Error {
    Error::io(
        format!("cannot read the {what} from the terminal: {e}"),
        "try again, or give the words in a file",
    )
}

/// The prompt turns echo off; a Ctrl-C there ends the process through the signal handler of
/// `nexusq_core::fs::cleanup`, which may exit before the prompt puts the terminal back. So the
/// handler puts back the terminal settings of the first prompt, saved here (once).
fn restore_terminal_on_interrupt() {
    static SAVED: std::sync::Once = std::sync::Once::new();
    SAVED.call_once(|| {
        let Ok(tty) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
        else {
            return;
        };
        let Ok(settings) = rustix::termios::tcgetattr(&tty) else {
            return;
        };
        // Best effort: without the hook, a Ctrl-C may leave echo off (`stty sane` fixes it).
        let _ = nexusq_core::fs::cleanup::on_interrupt(move || {
            let _ =
                rustix::termios::tcsetattr(&tty, rustix::termios::OptionalActions::Now, &settings);
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_line_rules() {
        let p = first_line(&b"secret\nsecond line"[..], "t").unwrap();
        assert_eq!(p.as_bytes(), b"secret");
        let p = first_line(&b"secret\r\n"[..], "t").unwrap();
        assert_eq!(p.as_bytes(), b"secret");
        let p = first_line(&b"no newline"[..], "t").unwrap();
        assert_eq!(p.as_bytes(), b"no newline");
        let p = first_line(&b"  spaces kept  \n"[..], "t").unwrap();
        assert_eq!(p.as_bytes(), b"  spaces kept  ");
        assert!(first_line(&b"\xff\xfe\n"[..], "t").is_err());
    }

    #[test]
    fn empty_password_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("pw");
        std::fs::write(&f, "\nsecond").unwrap();
        let err = read(&Source::File(f), "password", false).unwrap_err();
        assert_eq!(err.exit(), crate::cli::error::Exit::Usage);
        assert!(err.message().contains("empty"));
    }

    #[test]
    fn loose_permissions_warn() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("pw");
        std::fs::write(&f, "pw\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let r = read(&Source::File(f.clone()), "password", false).unwrap();
        assert_eq!(r.warnings.len(), 1);
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(
            read(&Source::File(f), "password", false)
                .unwrap()
                .warnings
                .is_empty()
        );
    }
}

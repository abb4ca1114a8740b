//! What every command needs: the global options, the options of this command that say where
//! passwords come from and how the vault is saved, the backend, and the output.

use super::args::{
    AgentCommand, BackendArg, BackupCommand, Command, EarlyArgs, GlobalArgs, IdentityCommand,
    NewPasswordArgs, PasswordArgs, VaultCommand, WriterArgs,
};
use super::error::{Error, Result};
use super::hardening;
use super::output::Output;
use super::password;
use super::unused_options::{self, Takes};
use nexusq_core::callbacks::{Callbacks, Note};
use nexusq_core::contacts::store::Loaded;
use nexusq_core::secret::Password;
use nexusq_core::session::{AgentUse, KeySource};
use nexusq_core::suite::{Backend, BackendChoice};
use nexusq_core::vault::SaveOptions;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// The password, new-password and writer options the command was given after its name.
fn command_options(command: &Command) -> (Takes, PasswordArgs, NewPasswordArgs, WriterArgs) {
    let none = (
        Takes::default(),
        PasswordArgs::default(),
        NewPasswordArgs::default(),
        WriterArgs::default(),
    );
    let unlocks = |p: &PasswordArgs| {
        let takes = Takes {
            password: true,
            ..Takes::default()
        };
        (
            takes,
            p.clone(),
            NewPasswordArgs::default(),
            WriterArgs::default(),
        )
    };
    let writes = |p: &PasswordArgs, w: &WriterArgs| {
        let takes = Takes {
            password: true,
            writer: true,
            ..Takes::default()
        };
        (takes, p.clone(), NewPasswordArgs::default(), w.clone())
    };
    match command {
        Command::Init(a) => writes(&a.password, &a.writer),
        Command::Vault(VaultCommand::Unlock { password }) => unlocks(password),
        Command::Vault(VaultCommand::Passwd {
            password,
            new_password,
            writer,
            ..
        }) => {
            let takes = Takes {
                password: true,
                new_password: true,
                writer: true,
            };
            (
                takes,
                password.clone(),
                new_password.clone(),
                writer.clone(),
            )
        }
        Command::Identity(IdentityCommand::Export { password, .. }) => unlocks(password),
        Command::Identity(IdentityCommand::Revoke {
            password, writer, ..
        }) => writes(password, writer),
        Command::Rotate(a) => writes(&a.password, &a.writer),
        Command::Sign(a) => unlocks(&a.password),
        Command::Decapsulate(a) => unlocks(&a.password),
        Command::Decrypt(a) => unlocks(&a.password),
        Command::Agent(AgentCommand::Start(a)) => unlocks(&a.password),
        Command::Agent(AgentCommand::Status | AgentCommand::Stop | AgentCommand::Serve(_))
        | Command::Lock => none,
        Command::Backup(
            BackupCommand::Phrase {
                password, writer, ..
            }
            | BackupCommand::Shares {
                password, writer, ..
            }
            | BackupCommand::Kit {
                password, writer, ..
            },
        ) => writes(password, writer),
        Command::Backup(BackupCommand::Check { .. }) => none,
        Command::Recover(a) => {
            let takes = Takes {
                password: false,
                new_password: true,
                writer: true,
            };
            (
                takes,
                PasswordArgs::default(),
                a.new_password.clone(),
                a.writer.clone(),
            )
        }
        Command::Contacts(c) => match c.saves() {
            Some((p, w)) => writes(p, w),
            None => none,
        },
        Command::Vault(VaultCommand::Open)
        | Command::Identity(IdentityCommand::Show { .. } | IdentityCommand::History)
        | Command::Verify(_)
        | Command::Encapsulate(_)
        | Command::Encrypt(_)
        | Command::Bench(_)
        | Command::Report(_)
        | Command::Doctor(_)
        | Command::Manpage
        | Command::Completions { .. } => none,
    }
}

/// The command's own options, else those given before its name; an early option the command
/// does not use is ignored, and the note saying so returned (`unused_options`).
fn merge_options(
    early: &EarlyArgs,
    command: &Command,
) -> Result<(PasswordArgs, NewPasswordArgs, WriterArgs, Option<String>)> {
    let (takes, password, new_password, writer) = command_options(command);
    let note = unused_options::unused(early, command, takes)?;
    let password = if password.any() {
        password
    } else if takes.password {
        early.password.clone()
    } else {
        PasswordArgs::default()
    };
    let new_password = if new_password.any() {
        new_password
    } else if takes.new_password {
        early.new_password.clone()
    } else {
        NewPasswordArgs::default()
    };
    let writer = if takes.writer {
        WriterArgs {
            lock_timeout: writer.lock_timeout.or(early.writer.lock_timeout),
            allow_shared_storage: writer.allow_shared_storage || early.writer.allow_shared_storage,
        }
    } else {
        WriterArgs::default()
    };
    Ok((password, new_password, writer, note))
}

/// The backend from `--backend`, else a non-empty `$NEXUSQ_BACKEND`, else rustcrypto.
pub(super) fn backend_choice(flag: Option<BackendArg>, env: Option<&str>) -> Result<BackendChoice> {
    use clap::ValueEnum;
    let arg = match (flag, env.filter(|s| !s.is_empty())) {
        (Some(arg), _) => arg,
        (None, Some(name)) => BackendArg::from_str(name, false).map_err(|_| {
            Error::usage(
                format!("NEXUSQ_BACKEND={name:?} names no backend"),
                "set NEXUSQ_BACKEND to rustcrypto or native, or unset it",
            )
        })?,
        (None, None) => return Ok(BackendChoice::default()),
    };
    Ok(match arg {
        BackendArg::RustCrypto => BackendChoice::RustCrypto,
        BackendArg::Native => BackendChoice::Native,
    })
}

/// What to do instead of a prompt when there is no terminal: the options of `command` that give the
/// password (docs/cli.md, "Help and the manual": each command's hint names only what it accepts).
fn no_terminal_hint(command: &Command) -> &'static str {
    match command {
        Command::Init(_) => {
            "pass the new vault's password with --password-file PATH or --password-fd N"
        }
        Command::Vault(VaultCommand::Passwd { .. }) => {
            "pass the current password with --password-file PATH or --password-fd N, and the new \
             one with --new-password-file PATH or --new-password-fd N"
        }
        Command::Sign(_) | Command::Decrypt(_) | Command::Decapsulate(_) => {
            "pass --password-file PATH or --password-fd N, or start the key agent first \
             (`nexusq agent start`)"
        }
        _ => "pass --password-file PATH or --password-fd N",
    }
}

/// What every command needs: the global options, its password and save options, and the
/// output.
pub struct Context {
    pub global: GlobalArgs,
    pub out: Output,
    password: PasswordArgs,
    new_password: NewPasswordArgs,
    writer: WriterArgs,
    no_terminal_hint: &'static str,
    /// The contacts book, read and checked at its first use by this command (a command may
    /// resolve several names); [`Context::book`] fills it.
    pub(super) contacts: OnceLock<Result<Loaded>>,
}

impl Context {
    /// The context of `command`, with the options given before its name merged in.
    pub fn new(global: GlobalArgs, early: &EarlyArgs, command: &Command) -> Result<Self> {
        let out = Output::new(global.json);
        let (password, new_password, writer, note) = merge_options(early, command)?;
        // On stderr, so stdout (one JSON object under --json) stays as it is.
        if let Some(note) = note {
            out.note(&note);
        }
        Ok(Context {
            global,
            out,
            password,
            new_password,
            writer,
            no_terminal_hint: no_terminal_hint(command),
            contacts: OnceLock::new(),
        })
    }

    pub fn vault_path(&self) -> Result<PathBuf> {
        super::vault_path::resolve(self.global.vault.as_deref()).ok_or_else(|| {
            Error::usage(
                "cannot tell where the vault lives: no --vault, no NEXUSQ_VAULT and no home folder",
                "pass --vault PATH or set NEXUSQ_VAULT",
            )
        })
    }

    pub fn backend(&self) -> Result<&'static dyn Backend> {
        let env = std::env::var("NEXUSQ_BACKEND").ok();
        Ok(backend_choice(self.global.backend, env.as_deref())?.backend()?)
    }

    /// How a writer locks and where it may save (defaults for commands without the options).
    pub fn save_options(&self) -> Result<SaveOptions> {
        let t = self
            .writer
            .lock_timeout
            .unwrap_or(nexusq_core::vault::lock::DEFAULT_TIMEOUT.as_secs_f64());
        if !t.is_finite() || !(0.0..=86_400.0).contains(&t) {
            return Err(Error::usage(
                format!("--lock-timeout {t} is not a number of seconds between 0 and 86400"),
                "pass e.g. --lock-timeout 30",
            ));
        }
        Ok(SaveOptions {
            lock_timeout: Duration::from_secs_f64(t),
            allow_shared_storage: self.writer.allow_shared_storage,
        })
    }

    fn read_password(
        &self,
        source: &password::Source,
        what: &str,
        confirm: bool,
        no_terminal_hint: &str,
    ) -> Result<Password> {
        for failure in hardening::harden_process() {
            self.out
                .warn(&format!("could not harden the process: {failure}"));
        }
        let label = self.prompt_name(what);
        let read = password::read_labelled(source, what, &label, confirm, no_terminal_hint)?;
        for w in &read.warnings {
            self.out.warn(w);
        }
        // Asked twice means chosen now: say if it is weak, from a terminal or a file alike.
        if confirm {
            let strength = nexusq_core::vault::strength::estimate(&read.password);
            if strength.is_weak() {
                self.out.warn(&password::weak_warning(&strength));
            }
        }
        Ok(read.password)
    }

    pub fn password_source(&self) -> password::Source {
        password::Source::from_options(
            self.password.password_file.as_ref(),
            self.password.password_fd,
        )
    }

    /// Before any input is read: refuse a password source that is stdin while `data` comes on
    /// stdin, or a prompt without a terminal (see [`password::check_source`]).
    pub fn check_password_source(&self, data_on_stdin: bool, data: &str) -> Result<()> {
        password::check_source(
            &self.password_source(),
            data_on_stdin,
            data,
            self.no_terminal_hint,
        )
    }

    /// The vault password; `confirm` asks twice on a terminal. The prompt names the vault.
    pub fn password(&self, confirm: bool) -> Result<Password> {
        let source = self.password_source();
        self.read_password(&source, "password", confirm, self.no_terminal_hint)
    }

    /// "password for ~/.local/share/nexusq/vault.nxq" (home shown as `~`, name escaped).
    fn prompt_name(&self, what: &str) -> String {
        let Ok(path) = self.vault_path() else {
            return password::capitalised(what);
        };
        password::capitalised(&format!("{what} for {}", password::shown_path(&path)))
    }

    /// Warn when the vault sits in Android shared storage, where other apps can read it.
    pub fn warn_if_shared_storage(&self, path: &std::path::Path) {
        if nexusq_core::fs::paths::folder_is_shared_storage(path) {
            self.out.warn(&format!(
                "{} is in Android shared storage, where other apps can read it; move it to Termux's home",
                path.display()
            ));
        }
    }

    /// Where the contacts book is: `--contacts`, else `$NEXUSQ_CONTACTS`, else beside the
    /// vault.
    pub fn book_path(&self) -> Result<PathBuf> {
        if let Some(p) = &self.global.contacts {
            return Ok(p.clone());
        }
        Ok(nexusq_core::contacts::store::default_path(
            &self.vault_path()?,
        ))
    }

    /// The contacts book, read and checked against the vault once per command (a command may
    /// resolve several names), and kept here.
    pub fn book(&self) -> Result<&Loaded> {
        self.contacts
            .get_or_init(|| {
                let path = self.book_path()?;
                let vault = if std::fs::symlink_metadata(&path).is_ok() {
                    self.vault_public()?
                } else {
                    None
                };
                Ok(nexusq_core::contacts::store::load(
                    &path,
                    vault.as_ref(),
                    self.backend()?,
                )?)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The vault's public identity, to check the book against (None when there is no vault).
    fn vault_public(&self) -> Result<Option<nexusq_core::PublicIdentity>> {
        let path = self.vault_path()?;
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(None);
        }
        Ok(Some(nexusq_core::vault::open(&path)?.public))
    }

    /// The keys of this command ([`KeySource`]): the agent serving the vault unless
    /// `no_agent`, else the vault unlocked with the password when it is needed. The vault file
    /// is read now, so a missing or damaged one fails (exit 4) before any password question.
    pub fn key_source(&self, no_agent: bool) -> Result<KeySource> {
        let agent = if no_agent {
            AgentUse::Never
        } else {
            AgentUse::IfRunning
        };
        Ok(KeySource::open(
            &self.vault_path()?,
            self.backend()?,
            agent,
            self,
        )?)
    }

    /// Open the vault, ask for the password as a key source does
    /// ([`Callbacks::request_password`]) and unlock it, for the commands that need the whole
    /// unlocked vault (`agent start`, the contacts book's owner).
    pub fn unlock(&self) -> Result<nexusq_core::vault::Unlocked> {
        let path = self.vault_path()?;
        let backend = self.backend()?;
        let file = nexusq_core::vault::open(&path)?;
        let password = self.request_password(&path)?;
        let unlocked = file.unlock(&password, &nexusq_core::vault::Argon2id, backend)?;
        self.unlocked(&path, &unlocked.file.public);
        Ok(unlocked)
    }

    /// The new password of `vault passwd` (asked twice on a terminal).
    pub fn new_password(&self) -> Result<Password> {
        let source = password::Source::from_options(
            self.new_password.new_password_file.as_ref(),
            self.new_password.new_password_fd,
        );
        self.read_password(
            &source,
            "new password",
            true,
            "pass --new-password-file PATH or --new-password-fd N",
        )
    }
}

/// The command line's side of a key source: the password from where the options say (a
/// prompt needs a terminal), notes on stderr.
impl Callbacks for Context {
    fn request_password(&self, vault: &Path) -> nexusq_core::Result<Password> {
        self.check_password_source(false, "")?;
        self.warn_if_shared_storage(vault);
        Ok(self.password(false)?)
    }

    fn note(&self, note: &Note) {
        self.out.say(note);
    }

    fn unlocked(&self, vault: &Path, public: &nexusq_core::identity::PublicIdentity) {
        nexusq_core::vault::seen::remember_here(vault, public);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::Cli;
    use clap::Parser;

    fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("nexusq").chain(args.iter().copied()))
    }

    fn context(args: &[&str]) -> Result<Context> {
        let cli = parse(args).expect("parses");
        Context::new(cli.global, &cli.early, &cli.command)
    }

    #[test]
    fn backend_from_flag_env_or_default() {
        let rc = BackendChoice::RustCrypto;
        let native = BackendChoice::Native;
        assert_eq!(backend_choice(None, None).unwrap(), rc);
        assert_eq!(backend_choice(None, Some("")).unwrap(), rc);
        assert_eq!(backend_choice(None, Some("native")).unwrap(), native);
        assert_eq!(
            backend_choice(Some(BackendArg::RustCrypto), Some("native")).unwrap(),
            rc
        );
        // A bad environment value is a usage error naming the variable, unless the flag wins.
        let e = backend_choice(None, Some("Native")).unwrap_err();
        assert_eq!(e.exit(), crate::cli::error::Exit::Usage);
        assert!(e.message().contains("NEXUSQ_BACKEND"), "{}", e.message());
        assert_eq!(
            backend_choice(Some(BackendArg::Native), Some("x")).unwrap(),
            native
        );
        assert!(parse(&["--backend", "bogus", "doctor"]).is_err());
    }

    #[test]
    fn per_command_options_before_or_after_the_command() {
        // After the command name, and before it.
        for args in [
            &["sign", "--password-file", "pw"][..],
            &["--password-file", "pw", "sign"][..],
        ] {
            let ctx = context(args).unwrap();
            assert_eq!(ctx.password_source(), password::Source::File("pw".into()));
        }
        let ctx = context(&["--lock-timeout", "3", "rotate", "--allow-shared-storage"]).unwrap();
        let save = ctx.save_options().unwrap();
        assert_eq!(save.lock_timeout, Duration::from_secs(3));
        assert!(save.allow_shared_storage);
        let ctx = context(&[
            "--new-password-fd",
            "4",
            "vault",
            "passwd",
            "--password-fd",
            "3",
        ])
        .unwrap();
        assert_eq!(ctx.password_source(), password::Source::Fd(3));
        assert_eq!(ctx.new_password.new_password_fd, Some(4));
        // The command's own value wins over an early one.
        let ctx = context(&["--password-fd", "3", "decrypt", "--password-fd", "5"]).unwrap();
        assert_eq!(ctx.password_source(), password::Source::Fd(5));
        // Defaults for a command that saves nothing.
        let ctx = context(&["vault", "open"]).unwrap();
        assert_eq!(
            ctx.save_options().unwrap().lock_timeout,
            Duration::from_secs(10)
        );
        assert!(ctx.password_source().is_terminal());
    }

    #[test]
    fn options_a_command_does_not_use_are_refused_after_its_name_and_ignored_before_it() {
        // After the name, clap refuses them (main turns that into a usage error naming the
        // commands that take them: unused_options::misplaced).
        assert!(parse(&["encrypt", "--to", "x", "--new-password-file", "n"]).is_err());
        assert!(parse(&["verify", "--sig", "s", "--password-file", "pw"]).is_err());
        assert!(parse(&["sign", "--lock-timeout", "1"]).is_err());
        // Before it, the command runs without them (the note is unused_options').
        for args in [
            &["--new-password-file", "n", "encrypt", "--to", "x"][..],
            &["--password-file", "pw", "vault", "open"][..],
            &["--allow-shared-storage", "--lock-timeout", "1", "sign"][..],
        ] {
            let ctx = context(args).unwrap_or_else(|e| panic!("{args:?}: {}", e.message()));
            assert!(ctx.password_source().is_terminal(), "{args:?}");
            assert!(!ctx.new_password.any(), "{args:?}");
            let save = ctx.save_options().unwrap();
            assert!(!save.allow_shared_storage, "{args:?}");
            assert_eq!(save.lock_timeout, Duration::from_secs(10), "{args:?}");
        }
        // A password of the other kind where a password is asked anyway: refused.
        for args in [
            &["--password-file", "pw", "recover"][..],
            &["--new-password-file", "n", "init"][..],
        ] {
            let e = context(args).err().expect("refused");
            assert_eq!(e.exit(), crate::cli::error::Exit::Usage, "{args:?}");
        }
    }
}

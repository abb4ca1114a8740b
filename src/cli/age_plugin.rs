//! `age-plugin-nexusq`, the age plugin (age-plugin.md, identity-v1): age starts it with
//! `--age-plugin=identity-v1` for an `AGE-PLUGIN-NEXUSQ-1…` identity, and it unwraps file keys
//! with every kept generation's X-Wing key of the vault the identity names.
//!
//! A key agent serving that vault (`nexusq agent start`, docs/agent.md) is asked first: only
//! the stanzas' KEM ciphertexts cross its socket, the file key is unwrapped here. Without one
//! (or with `$NEXUSQ_NO_AGENT` set), or when it does not answer, the password comes from the
//! file named by `$NEXUSQ_PASSWORD_FILE` when set (scripts), otherwise from age, through the
//! protocol's request-secret (age prompts). A wrong password is an `error identity` that age
//! reports; there is no second prompt, so nothing hangs. The plugin never touches a terminal:
//! stdin and stdout carry the protocol, stderr only diagnostics. The protocol itself is
//! `format::age::plugin`.

use super::error::Error;
use super::password;
use nexusq_core::callbacks::{Callbacks, Note};
use nexusq_core::format::age::plugin::{
    Attempt, Client, KeySource as PluginKeys, Keys, PluginError, run_identity_v1,
};
use nexusq_core::format::age::recipient::PluginIdentity;
use nexusq_core::secret::Password;
use nexusq_core::session::{AgentUse, KeySource};
use nexusq_core::suite::Backend;
use nexusq_core::suite::hybrid_kem::{Decapsulate, KemLevel};
use std::cell::{Cell, RefCell};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// The key agent of the vault an identity names, else that vault unlocked with the password.
struct VaultKeys {
    backend: &'static dyn Backend,
    password_file: Option<PathBuf>,
    /// `$NEXUSQ_NO_AGENT`: the password path only, as `--no-agent` for the commands.
    no_agent: bool,
    /// The keys of the identity asked for last (the answer borrows them).
    source: Option<KeySource>,
    /// The agent was passed over and age was told (once per run, as for the commands).
    said_fallback: Cell<bool>,
}

/// Is `$NEXUSQ_NO_AGENT` set (to anything but empty or `0`)? Read by the programs other tools
/// start, which have no `--no-agent`: this plugin and `nexusq-git-sign`.
pub(super) fn no_agent_env() -> bool {
    std::env::var_os("NEXUSQ_NO_AGENT").is_some_and(|v| !v.is_empty() && v != "0")
}

/// What a key source asks of age: the password from `$NEXUSQ_PASSWORD_FILE`, else through
/// age's request-secret (age prompts); notes as age's messages. A failure to talk to age is
/// kept by the protocol, which ends the conversation with it (`format::age::plugin`).
struct AgeAsker<'a> {
    password_file: Option<&'a Path>,
    client: RefCell<&'a mut dyn Client>,
    said_fallback: &'a Cell<bool>,
}

impl Callbacks for AgeAsker<'_> {
    fn request_password(&self, vault: &Path) -> nexusq_core::Result<Password> {
        if let Some(f) = self.password_file {
            return Ok(password::read_env_password_file(f, |w| {
                eprintln!("age-plugin-nexusq: warning: {w}")
            })?);
        }
        let prompt = format!(
            "Password of the nexusq vault {}",
            super::output::untrusted_path(vault)
        );
        let secret = self
            .client
            .borrow_mut()
            .request_secret(&prompt)
            .map_err(|e| {
                Error::io(
                    format!("age did not answer the password request: {e}"),
                    "run age again",
                )
            })?
            .ok_or_else(|| {
                Error::usage(
                    "no password was entered",
                    "enter the vault's password when age asks, or set NEXUSQ_PASSWORD_FILE",
                )
            })?;
        let text = String::from_utf8(secret.to_vec()).map_err(|_| {
            Error::usage(
                "the password is not UTF-8 text",
                "enter the password the vault was made with",
            )
        })?;
        Ok(Password::new(Zeroizing::new(text)))
    }

    fn note(&self, note: &Note) {
        if !self.said_fallback.replace(true) {
            // A failure here is kept by the protocol (see above).
            let _ = self.client.borrow_mut().message(&format!("nexusq: {note}"));
        }
    }

    fn unlocked(&self, vault: &Path, public: &nexusq_core::identity::PublicIdentity) {
        nexusq_core::vault::seen::remember_here(vault, public);
    }
}

/// An error of ours as one line for age to show: message and hint.
fn line(e: &Error) -> String {
    format!("nexusq: {} ({})", e.message(), e.hint())
}

/// The vault an identity names, else the default one.
fn vault_of(identity: &PluginIdentity) -> Result<PathBuf, String> {
    match &identity.vault {
        Some(bytes) => Ok(PathBuf::from(OsString::from_vec(bytes.clone()))),
        None => super::vault_path::resolve(None).ok_or_else(|| {
            "nexusq: cannot tell where the default vault lives (no NEXUSQ_VAULT and no home \
             folder)"
                .into()
        }),
    }
}

impl PluginKeys for VaultKeys {
    fn keys(
        &mut self,
        identity: &PluginIdentity,
        attempt: Attempt,
        client: &mut dyn Client,
    ) -> Result<Keys<'_>, String> {
        let asker = AgeAsker {
            password_file: self.password_file.as_deref(),
            client: RefCell::new(client),
            said_fallback: &self.said_fallback,
        };
        let source = match (attempt, self.source.take()) {
            // The agent's keys did not answer: the same vault, with the password.
            (Attempt::Again, Some(mut source)) => {
                source.pass_over("it stopped answering while opening the file", &asker);
                source
            }
            _ => {
                let agent = if self.no_agent {
                    AgentUse::Never
                } else {
                    AgentUse::IfRunning
                };
                KeySource::open(&vault_of(identity)?, self.backend, agent, &asker)
                    .map_err(|e| line(&e.into()))?
            }
        };
        let source = self.source.insert(source);
        // The X-Wing keys, newest generation first: the agent's, else the vault's (retired
        // generations left out).
        if source.has_agent() {
            return Ok(source
                .agent_keys(Some(KemLevel::MlKem768))
                .unwrap_or_default()
                .into_iter()
                .map(|k| Box::new(k) as Box<dyn Decapsulate + '_>)
                .collect());
        }
        let keys = source.vault_keys(&asker).map_err(|e| line(&e.into()))?;
        Ok(keys
            .of_level(KemLevel::MlKem768)
            .map(|k| Box::new(k.key()) as Box<dyn Decapsulate + '_>)
            .collect())
    }
}

const USAGE: &str = "age-plugin-nexusq: the age plugin of nexusq; age runs it, not you.\n\
    Put the line of `nexusq identity export --age-plugin-identity` in an identity file and run\n\
    `age -d -i FILE`. A key agent serving the vault (`nexusq agent start`) is used first.\n\
    Environment: NEXUSQ_PASSWORD_FILE (password file for scripts), NEXUSQ_NO_AGENT=1 (never\n\
    the agent: the password), NEXUSQ_VAULT (the default vault), NEXUSQ_BACKEND (rustcrypto or\n\
    native).";

/// The plugin's main: the exit code.
pub fn main(args: &[OsString]) -> i32 {
    let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap_or("")).collect();
    match args.as_slice() {
        ["--age-plugin=identity-v1"] => {}
        ["--version"] => {
            println!("age-plugin-nexusq {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        ["--help" | "-h"] => {
            println!("{USAGE}");
            return 0;
        }
        [a] if a.starts_with("--age-plugin=") => {
            eprintln!(
                "age-plugin-nexusq: unsupported state machine {a:?}: nexusq is an identity \
                 plugin only (encrypt to `nexusq identity export --age` instead)"
            );
            return 1;
        }
        _ => {
            eprintln!("{USAGE}");
            return 2;
        }
    }
    for failure in super::hardening::harden_process() {
        eprintln!("age-plugin-nexusq: warning: could not harden the process: {failure}");
    }
    let env = std::env::var("NEXUSQ_BACKEND").ok();
    let backend = super::context::backend_choice(None, env.as_deref())
        .and_then(|c| c.backend().map_err(super::error::Error::from));
    let backend = match backend {
        Ok(b) => b,
        Err(e) => {
            eprintln!("age-plugin-nexusq: {}", line(&e));
            return 1;
        }
    };
    let mut source = VaultKeys {
        backend,
        password_file: password::env_password_file(),
        no_agent: no_agent_env(),
        source: None,
        said_fallback: Cell::new(false),
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    match run_identity_v1(&mut input, std::io::stdout().lock(), &mut source) {
        Ok(()) => 0,
        Err(e @ (PluginError::Protocol(_) | PluginError::Io(_))) => {
            eprintln!("age-plugin-nexusq: {e}");
            1
        }
    }
}

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

use super::password;
use nexusq_core::agent::client::{self, Agent, Lookup};
use nexusq_core::format::age::plugin::{
    Attempt, Client, KeySource, Keys, PluginError, run_identity_v1,
};
use nexusq_core::format::age::recipient::PluginIdentity;
use nexusq_core::secret::Password;
use nexusq_core::suite::Backend;
use nexusq_core::suite::hybrid_kem::{Decapsulate, KemLevel};
use nexusq_core::vault::{self, Argon2id, storage};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;
use zeroize::Zeroizing;

/// The key agent of the vault an identity names, else that vault unlocked with the password.
struct VaultKeys {
    backend: &'static dyn Backend,
    password_file: Option<PathBuf>,
    /// `$NEXUSQ_NO_AGENT`: the password path only, as `--no-agent` for the commands.
    no_agent: bool,
    /// The agent whose keys the last answer lent (they borrow it).
    agent: Option<Agent>,
    /// The fallback message was shown (once per run, as for the commands).
    said_fallback: bool,
}

/// Is `$NEXUSQ_NO_AGENT` set (to anything but empty or `0`)? Read by the programs other tools
/// start, which have no `--no-agent`: this plugin and `nexusq-git-sign`.
pub(super) fn no_agent_env() -> bool {
    std::env::var_os("NEXUSQ_NO_AGENT").is_some_and(|v| !v.is_empty() && v != "0")
}

impl VaultKeys {
    /// Tell the user, once, through age, that the agent was passed over and why.
    fn fallback(&mut self, client: &mut dyn Client, why: &str) -> Result<(), String> {
        if std::mem::replace(&mut self.said_fallback, true) {
            return Ok(());
        }
        let text = format!(
            "nexusq: {}",
            super::agent_cmd::fallback_text(&nexusq_core::untrusted::escape(why))
        );
        client.message(&text).map_err(|e| e.to_string())
    }

    /// The vault's password: from `$NEXUSQ_PASSWORD_FILE`, else asked through age.
    fn password(
        &self,
        path: &std::path::Path,
        client: &mut dyn Client,
    ) -> Result<Password, String> {
        match &self.password_file {
            Some(f) => password::read_env_password_file(f, |w| {
                eprintln!("age-plugin-nexusq: warning: {w}")
            })
            .map_err(|e| line(&e)),
            None => {
                let prompt = format!("Password of the nexusq vault {}", path.display());
                let secret = client
                    .request_secret(&prompt)
                    .map_err(|e| e.to_string())?
                    .ok_or("nexusq: no password was entered")?;
                let text = String::from_utf8(secret.to_vec())
                    .map_err(|_| "nexusq: the password is not UTF-8 text")?;
                Ok(Password::new(Zeroizing::new(text)))
            }
        }
    }
}

/// An error of ours as one line for age to show: message and hint.
fn line(e: &super::error::Error) -> String {
    format!("nexusq: {} ({})", e.message(), e.hint())
}

impl KeySource for VaultKeys {
    fn keys(
        &mut self,
        identity: &PluginIdentity,
        attempt: Attempt,
        client: &mut dyn Client,
    ) -> Result<Keys<'_>, String> {
        let path = match &identity.vault {
            Some(bytes) => PathBuf::from(OsString::from_vec(bytes.clone())),
            None => storage::default_vault_path(
                None,
                std::env::var_os("NEXUSQ_VAULT"),
                storage::platform_data_dir(),
            )
            .ok_or("nexusq: cannot tell where the default vault lives (no NEXUSQ_VAULT and no home folder)")?,
        };
        let file = vault::open(&path).map_err(|e| line(&e.into()))?;
        self.agent = None;
        match attempt {
            _ if self.no_agent => {}
            // The agent of this vault, serving the identity the file holds; its X-Wing keys,
            // newest generation first, as the vault's below.
            Attempt::First => match client::find_for(&path, &file.public.root_id()) {
                Lookup::Ready(a) => {
                    let agent = self.agent.insert(a);
                    return Ok(agent
                        .remote_keys(Some(KemLevel::MlKem768))
                        .into_iter()
                        .map(|k| Box::new(k) as Box<dyn Decapsulate + '_>)
                        .collect());
                }
                Lookup::Absent => {}
                Lookup::Unusable(why) => self.fallback(client, &why)?,
            },
            Attempt::Again => {
                self.fallback(client, "it stopped answering while opening the file")?;
            }
        }
        let password = self.password(&path, client)?;
        let unlocked = file
            .unlock(&password, &Argon2id, self.backend)
            .map_err(|e| line(&e.into()))?;
        // The identity's X-Wing keys, as unlock expanded them: newest generation first,
        // retired generations left out.
        Ok(unlocked
            .into_decryption_keys()
            .into_of_level(KemLevel::MlKem768)
            .map(|k| Box::new(k) as Box<dyn Decapsulate>)
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
        agent: None,
        said_fallback: false,
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

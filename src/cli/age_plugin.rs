//! `age-plugin-nexusq`, the age plugin (age-plugin.md, identity-v1): age starts it with
//! `--age-plugin=identity-v1` for an `AGE-PLUGIN-NEXUSQ-1…` identity, and it unwraps file keys
//! with every kept generation's X-Wing key of the vault the identity names.
//!
//! The password comes from the file named by `$NEXUSQ_PASSWORD_FILE` when set (scripts),
//! otherwise from age, through the protocol's request-secret (age prompts). A wrong password
//! is an `error identity` that age reports; there is no second prompt, so nothing hangs. The
//! plugin never touches a terminal: stdin and stdout carry the protocol, stderr only
//! diagnostics. The protocol itself is `suite::age::plugin`.

use super::password;
use crate::secret::Password;
use crate::suite::Backend;
use crate::suite::age::plugin::{AskSecret, KeySource, PluginError, run_identity_v1};
use crate::suite::age::recipient::PluginIdentity;
use crate::suite::hybrid_kem::{DecapsulationKey, KemLevel};
use crate::vault::{self, Argon2id, storage};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;
use zeroize::Zeroizing;

/// Unlocks the vault an identity names.
struct VaultKeys {
    backend: &'static dyn Backend,
    password_file: Option<PathBuf>,
}

/// An error of ours as one line for age to show: message and hint.
fn line(e: &crate::error::Error) -> String {
    format!("nexusq: {} ({})", e.message(), e.hint())
}

impl KeySource for VaultKeys {
    fn keys(
        &mut self,
        identity: &PluginIdentity,
        ask: &mut AskSecret<'_>,
    ) -> Result<Vec<DecapsulationKey>, String> {
        let path = match &identity.vault {
            Some(bytes) => PathBuf::from(OsString::from_vec(bytes.clone())),
            None => storage::default_vault_path(
                None,
                std::env::var_os("NEXUSQ_VAULT"),
                storage::platform_data_dir(),
            )
            .ok_or("nexusq: cannot tell where the default vault lives (no NEXUSQ_VAULT and no home folder)")?,
        };
        let file = vault::open(&path).map_err(|e| line(&e))?;
        let password = match &self.password_file {
            Some(f) => password::read_env_password_file(f, |w| {
                eprintln!("age-plugin-nexusq: warning: {w}")
            })
            .map_err(|e| line(&e))?,
            None => {
                let prompt = format!("Password of the nexusq vault {}", path.display());
                let secret = ask(&prompt)
                    .map_err(|e| e.to_string())?
                    .ok_or("nexusq: no password was entered")?;
                let text = String::from_utf8(secret.to_vec())
                    .map_err(|_| "nexusq: the password is not UTF-8 text")?;
                Password::new(Zeroizing::new(text))
            }
        };
        let unlocked = file
            .unlock(&password, &Argon2id, self.backend)
            .map_err(|e| line(&e))?;
        // The identity's X-Wing keys, as unlock expanded them: newest generation first,
        // retired generations left out.
        Ok(unlocked
            .into_decryption_keys()
            .into_of_level(KemLevel::MlKem768)
            .collect())
    }
}

const USAGE: &str = "age-plugin-nexusq: the age plugin of nexusq; age runs it, not you.\n\
    Put the line of `nexusq identity export --age-plugin-identity` in an identity file and run\n\
    `age -d -i FILE`. Environment: NEXUSQ_PASSWORD_FILE (password file for scripts),\n\
    NEXUSQ_VAULT (the default vault), NEXUSQ_BACKEND (rustcrypto or native).";

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
    let backend = super::context::backend_choice(None, env.as_deref()).and_then(|c| c.backend());
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

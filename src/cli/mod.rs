//! The command line: clap definitions, one module per command, and the shared context they use.
//! No crypto here: commands call `vault` and `identity`, and print what they return.

pub mod args;
mod bench_cmd;
mod crypt_cmd;
mod doctor_cmd;
pub mod hardening;
mod identity_cmd;
mod init;
pub mod io;
mod kem_cmd;
pub mod output;
pub mod password;
mod report_cmd;
mod rotate_cmd;
mod sign_cmd;
mod vault_cmd;

use crate::error::{Error, Result};
use crate::secret::Password;
use crate::suite::{Backend, BackendChoice};
use crate::vault::{SaveOptions, storage};
use args::{Cli, Command, GlobalArgs, IdentityCommand, KdfArgs, VaultCommand};
use output::Output;
use std::path::PathBuf;
use std::time::Duration;

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    // SIGINT, SIGTERM and SIGHUP remove the temporary files of outputs and saves, then exit
    // with 128 + the signal (crate::fs::cleanup). Installed first, so every command ends the
    // same way whenever the signal comes.
    crate::fs::cleanup::install().map_err(|e| {
        Error::io(
            e.to_string(),
            "an interrupted command could leave a temporary file; try again",
        )
    })?;
    let ctx = Context::new(cli.global);
    match cli.command {
        Command::Init(a) => init::run(&ctx, &a),
        Command::Vault(VaultCommand::Open) => vault_cmd::open(&ctx),
        Command::Vault(VaultCommand::Unlock) => vault_cmd::unlock(&ctx),
        Command::Vault(VaultCommand::Passwd { kdf }) => vault_cmd::passwd(&ctx, &kdf),
        Command::Identity(IdentityCommand::Export {
            output,
            full_history,
            unlock,
        }) => identity_cmd::export(&ctx, output.as_deref(), full_history, unlock),
        Command::Identity(IdentityCommand::Show { file }) => identity_cmd::show(&ctx, &file),
        Command::Identity(IdentityCommand::History) => identity_cmd::history(&ctx),
        Command::Identity(IdentityCommand::Revoke { file, output }) => {
            identity_cmd::revoke(&ctx, &file, output.as_deref())
        }
        Command::Rotate(a) => rotate_cmd::run(&ctx, &a),
        Command::Sign(a) => sign_cmd::sign(&ctx, &a),
        Command::Verify(a) => sign_cmd::verify(&ctx, &a),
        Command::Encapsulate(a) => kem_cmd::encapsulate(&ctx, &a),
        Command::Decapsulate(a) => kem_cmd::decapsulate(&ctx, &a),
        Command::Encrypt(a) => crypt_cmd::encrypt(&ctx, &a),
        Command::Decrypt(a) => crypt_cmd::decrypt(&ctx, &a),
        Command::Bench(a) => bench_cmd::run(&ctx, &a),
        Command::Report(a) => report_cmd::run(&ctx, &a),
        Command::Doctor => doctor_cmd::run(&ctx),
        Command::Manpage => {
            use clap::CommandFactory;
            // Rendered in memory first, so a reader that goes away (`| head`) is seen in one
            // place, by write_generated.
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut page)
                .map_err(|e| {
                    Error::io(
                        format!("cannot render the man page: {e}"),
                        "this is a bug in nexusq; please report it",
                    )
                })?;
            write_generated(&page, "the man page")
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            // clap_complete panics when its writer fails: generate into memory instead.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "nexusq", &mut script);
            write_generated(&script, "the completions")
        }
    }
}

/// Write generated text (man page, completions) to stdout. A reader that stopped reading
/// (`nexusq manpage | head`, EPIPE) is not an error: stop quietly with exit 0.
fn write_generated(bytes: &[u8], what: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io(
            format!("cannot write {what}: {e}"),
            "check where stdout goes",
        )),
    }
}

/// What every command needs: the global options and the output.
pub struct Context {
    pub global: GlobalArgs,
    pub out: Output,
}

impl Context {
    pub fn new(global: GlobalArgs) -> Self {
        let out = Output::new(global.json);
        Context { global, out }
    }

    pub fn vault_path(&self) -> Result<PathBuf> {
        storage::default_vault_path(
            self.global.vault.as_deref(),
            std::env::var_os("NEXUSQ_VAULT"),
            storage::platform_data_dir(),
        )
        .ok_or_else(|| {
            Error::usage(
                "cannot tell where the vault lives: no --vault, no NEXUSQ_VAULT and no home folder",
                "pass --vault PATH or set NEXUSQ_VAULT",
            )
        })
    }

    pub fn backend(&self) -> Result<&'static dyn Backend> {
        let name = match &self.global.backend {
            Some(b) => b.clone(),
            None => std::env::var("NEXUSQ_BACKEND")
                .ok()
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "rustcrypto".into()),
        };
        BackendChoice::parse(&name)?.backend()
    }

    pub fn save_options(&self) -> Result<SaveOptions> {
        let t = self.global.lock_timeout;
        if !t.is_finite() || !(0.0..=86_400.0).contains(&t) {
            return Err(Error::usage(
                format!("--lock-timeout {t} is not a number of seconds between 0 and 86400"),
                "pass e.g. --lock-timeout 30",
            ));
        }
        Ok(SaveOptions {
            lock_timeout: Duration::from_secs_f64(t),
            allow_shared_storage: self.global.allow_shared_storage,
        })
    }

    fn read_password(
        &self,
        source: &password::Source,
        what: &str,
        confirm: bool,
    ) -> Result<Password> {
        for failure in hardening::harden_process() {
            self.out
                .warn(&format!("could not harden the process: {failure}"));
        }
        let read = password::read(source, what, confirm)?;
        for w in &read.warnings {
            self.out.warn(w);
        }
        Ok(read.password)
    }

    pub fn password_source(&self) -> password::Source {
        password::Source::from_options(self.global.password_file.as_ref(), self.global.password_fd)
    }

    /// The vault password; `confirm` asks twice on a terminal.
    pub fn password(&self, confirm: bool) -> Result<Password> {
        self.read_password(&self.password_source(), "password", confirm)
    }

    /// Warn when the vault sits in Android shared storage, where other apps can read it.
    pub fn warn_if_shared_storage(&self, path: &std::path::Path) {
        if storage::folder_is_shared_storage(path) {
            self.out.warn(&format!(
                "{} is in Android shared storage, where other apps can read it; move it to Termux's home",
                path.display()
            ));
        }
    }

    /// Open the vault, ask for the password and unlock it (secret section only).
    pub fn unlock(&self) -> Result<crate::vault::Unlocked> {
        let path = self.vault_path()?;
        let backend = self.backend()?;
        self.warn_if_shared_storage(&path);
        let file = crate::vault::open(&path)?;
        let password = self.password(false)?;
        file.unlock(&password, &crate::vault::Argon2id, backend)
    }

    /// The new password of `vault passwd` (asked twice on a terminal).
    pub fn new_password(&self) -> Result<Password> {
        let source = password::Source::from_options(
            self.global.new_password_file.as_ref(),
            self.global.new_password_fd,
        );
        self.read_password(&source, "new password", true)
    }
}

pub use crate::time::now;

/// Turn the --kdf-* / --calibrate-ms options into parameters, starting from `base`.
pub fn kdf_params(
    out: &Output,
    args: &KdfArgs,
    base: crate::vault::KdfParams,
) -> Result<crate::vault::KdfParams> {
    use crate::vault::kdf;
    let memory_kib = match args.kdf_memory_mib {
        Some(m) => m.checked_mul(1024).ok_or_else(|| {
            Error::usage(
                format!("--kdf-memory-mib {m} is far too large"),
                "use at most 2048",
            )
        })?,
        None => base.memory_kib,
    };
    let parallelism = args.kdf_parallelism.unwrap_or(base.parallelism);
    let mut params = crate::vault::KdfParams {
        memory_kib,
        iterations: args.kdf_iterations.unwrap_or(base.iterations),
        parallelism,
    };
    params.check_bounds(kdf::device_ram_bytes()).map_err(|m| {
        Error::usage(
            m,
            "choose --kdf-memory-mib 8..2048, --kdf-iterations 1..64, --kdf-parallelism 1..16",
        )
    })?;
    if let Some(ms) = args.calibrate_ms {
        if !(1..=60_000).contains(&ms) {
            return Err(Error::usage(
                format!("--calibrate-ms {ms} is outside 1..60000"),
                "pass a target in milliseconds, e.g. --calibrate-ms 1000",
            ));
        }
        out.note(&format!(
            "calibrating Argon2id for about {ms} ms on this device..."
        ));
        let limits = kdf::CalibrationLimits {
            memory_kib: args.kdf_memory_mib.map(|_| memory_kib),
            parallelism,
            memory_cap_kib: kdf::calibration_memory_cap_kib(kdf::device_ram_bytes()),
        };
        params = kdf::calibrate(Duration::from_millis(ms), &limits)?;
        out.note(&format!("chose {}", params.describe()));
    }
    if params.is_weaker_than_default() {
        out.warn(&format!(
            "{} is weaker than the default ({}); a stolen vault is cheaper to attack",
            params.describe(),
            crate::vault::KdfParams::DEFAULT.describe()
        ));
    }
    Ok(params)
}

/// The KDF parameters as JSON.
pub fn kdf_json(p: &crate::vault::KdfParams) -> serde_json::Value {
    serde_json::json!({
        "algorithm": "argon2id",
        "version": 19,
        "memory_kib": p.memory_kib,
        "iterations": p.iterations,
        "parallelism": p.parallelism,
    })
}

//! The command-line definitions (DESIGN.md section 5). Only clap here; no behaviour.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "nexusq",
    version,
    about = "A vault for one person's post-quantum identity",
    long_about = "nexusq keeps one person's post-quantum identity in a single password-protected \
                  file (Argon2id + AES-256-GCM): an SLH-DSA root key and generations of hybrid \
                  ML-KEM + X25519 and ML-DSA-65 + Ed25519 keys.",
    after_help = "Exit codes: 0 success, 1 a check failed (bad signature, ciphertext or input \
                  file), 2 usage error, 3 wrong password, 4 vault missing/corrupted/unsupported, \
                  5 other I/O error or vault busy."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Vault file [default: $NEXUSQ_VAULT, else <data dir>/nexusq/vault.nxq]
    #[arg(long, global = true, value_name = "PATH")]
    pub vault: Option<PathBuf>,

    /// Read the password from the first line of this file (for scripts)
    #[arg(
        long,
        global = true,
        value_name = "PATH",
        conflicts_with = "password_fd"
    )]
    pub password_file: Option<PathBuf>,

    /// Read the password from the first line of this inherited file descriptor
    #[arg(long, global = true, value_name = "N")]
    pub password_fd: Option<u32>,

    /// The new password for `vault passwd`, from the first line of this file
    #[arg(
        long,
        global = true,
        value_name = "PATH",
        conflicts_with = "new_password_fd"
    )]
    pub new_password_file: Option<PathBuf>,

    /// The new password for `vault passwd`, from this file descriptor
    #[arg(long, global = true, value_name = "N")]
    pub new_password_fd: Option<u32>,

    /// Crypto backend [env: NEXUSQ_BACKEND] [default: rustcrypto]
    #[arg(long, global = true, value_name = "NAME", value_parser = ["rustcrypto", "native"])]
    pub backend: Option<String>,

    /// Machine-readable output: one JSON object on stdout
    #[arg(long, global = true)]
    pub json: bool,

    /// How long a writer waits for another nexusq process to release the vault
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 10.0)]
    pub lock_timeout: f64,

    /// Allow saving the vault in Android shared storage, which other apps can read
    #[arg(long, global = true)]
    pub allow_shared_storage: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create the vault, the identity and its revocation statement
    Init(InitArgs),
    /// Check, unlock or re-password the vault
    #[command(subcommand)]
    Vault(VaultCommand),
    /// Export your public identity
    #[command(subcommand)]
    Identity(IdentityCommand),
    /// Print shell completions (bash, zsh, fish, elvish, powershell)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// Argon2id cost options shared by `init` and `vault passwd`.
#[derive(Args, Debug, Clone, Default)]
pub struct KdfArgs {
    /// Argon2id memory in MiB [default: 64]
    #[arg(long, value_name = "MIB")]
    pub kdf_memory_mib: Option<u32>,
    /// Argon2id iterations [default: 3]
    #[arg(long, value_name = "T", conflicts_with = "calibrate_ms")]
    pub kdf_iterations: Option<u32>,
    /// Argon2id lanes [default: 1]
    #[arg(long, value_name = "P")]
    pub kdf_parallelism: Option<u32>,
    /// Pick the iteration count that makes unlocking take about N ms on this device
    #[arg(long, value_name = "N")]
    pub calibrate_ms: Option<u64>,
}

impl KdfArgs {
    pub fn any(&self) -> bool {
        self.kdf_memory_mib.is_some()
            || self.kdf_iterations.is_some()
            || self.kdf_parallelism.is_some()
            || self.calibrate_ms.is_some()
    }
}

#[derive(Args, Debug)]
pub struct InitArgs {
    #[command(flatten)]
    pub kdf: KdfArgs,
    /// Where to write the revocation statement [default: <vault>.revocation.asc]; `-` for stdout
    #[arg(long, value_name = "FILE")]
    pub revocation_out: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum VaultCommand {
    /// Check the file and show the identity, without a password
    Open,
    /// Decrypt the vault and check its secret keys against its public keys
    Unlock,
    /// Re-encrypt the vault under a new password (new salts)
    Passwd {
        #[command(flatten)]
        kdf: KdfArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum IdentityCommand {
    /// Print your public identity as armored text to give to others
    Export {
        /// Write to FILE instead of stdout
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Include every generation's certificate, not only the newest
        #[arg(long)]
        full_history: bool,
        /// Unlock first (asks for the password) so the export is checked against the secrets;
        /// implied by --password-file / --password-fd
        #[arg(long)]
        unlock: bool,
    },
}

//! The command-line definitions (docs/cli.md). Only clap here; no behaviour.

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
    after_help = super::error::help_summary()
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The per-command options, also accepted before the subcommand (docs/cli.md).
    #[command(flatten)]
    pub early: EarlyArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The help heading of the options every command takes: each command's `--help` lists its own
/// options first, these after them.
pub const GLOBAL_HEADING: &str = "Global options";

/// Options of every command, accepted before or after the subcommand.
#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Vault file [default: $NEXUSQ_VAULT, else <data dir>/nexusq/vault.nxq]
    #[arg(long, global = true, value_name = "PATH", help_heading = GLOBAL_HEADING)]
    pub vault: Option<PathBuf>,

    /// Crypto backend [env: NEXUSQ_BACKEND] [default: rustcrypto]
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "NAME",
        help_heading = GLOBAL_HEADING
    )]
    pub backend: Option<BackendArg>,

    /// Machine-readable output: one JSON object on stdout, errors included (bench: JSON lines)
    #[arg(long, global = true, help_heading = GLOBAL_HEADING)]
    pub json: bool,

    /// Contacts book (else $NEXUSQ_CONTACTS, else contacts.nxq beside the vault)
    #[arg(long, global = true, value_name = "PATH", help_heading = GLOBAL_HEADING)]
    pub contacts: Option<PathBuf>,
}

/// The backends `--backend` and `$NEXUSQ_BACKEND` name.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    /// RustCrypto's ml-kem and ml-dsa (the default)
    #[value(name = "rustcrypto")]
    RustCrypto,
    /// nexusq-native: the same bytes, SIMD chosen for this CPU at run time
    #[value(name = "native")]
    Native,
}

/// The password of a command that unlocks the vault. Without either, it is asked on the
/// terminal.
#[derive(Args, Debug, Clone, Default)]
pub struct PasswordArgs {
    /// Read the password from the first line of this file (for scripts)
    #[arg(long, value_name = "PATH", conflicts_with = "password_fd")]
    pub password_file: Option<PathBuf>,

    /// Read the password from the first line of this inherited file descriptor
    #[arg(long, value_name = "N")]
    pub password_fd: Option<u32>,
}

impl PasswordArgs {
    pub fn any(&self) -> bool {
        self.password_file.is_some() || self.password_fd.is_some()
    }
}

/// The new password of `vault passwd`.
#[derive(Args, Debug, Clone, Default)]
pub struct NewPasswordArgs {
    /// The new password, from the first line of this file
    #[arg(long, value_name = "PATH", conflicts_with = "new_password_fd")]
    pub new_password_file: Option<PathBuf>,

    /// The new password, from the first line of this file descriptor
    #[arg(long, value_name = "N")]
    pub new_password_fd: Option<u32>,
}

impl NewPasswordArgs {
    pub fn any(&self) -> bool {
        self.new_password_file.is_some() || self.new_password_fd.is_some()
    }
}

/// How a command that saves the vault behaves.
#[derive(Args, Debug, Clone, Default)]
pub struct WriterArgs {
    /// How long to wait for another nexusq process to release the vault [default: 10]
    #[arg(long, value_name = "SECONDS")]
    pub lock_timeout: Option<f64>,

    /// Allow saving the vault in Android shared storage, which other apps can read
    #[arg(long)]
    pub allow_shared_storage: bool,
}

impl WriterArgs {
    pub fn any(&self) -> bool {
        self.lock_timeout.is_some() || self.allow_shared_storage
    }
}

/// The per-command options given before the subcommand (`nexusq --password-file F sign`), as
/// aliases and wrapper scripts pass them. They appear only in `nexusq --help`; a command that
/// does not use one runs without it and says so in a note (`cli::unused_options`, docs/cli.md
/// "Options a command does not use").
#[derive(Args, Debug, Clone, Default)]
pub struct EarlyArgs {
    #[command(
        flatten,
        next_help_heading = "Password (the commands that unlock the vault)"
    )]
    pub password: PasswordArgs,
    #[command(flatten, next_help_heading = "New password (vault passwd, recover)")]
    pub new_password: NewPasswordArgs,
    #[command(
        flatten,
        next_help_heading = "Saving (the commands that change the vault or the contacts book)"
    )]
    pub writer: WriterArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create the vault, the identity and its revocation statement
    Init(InitArgs),
    /// Check, unlock or re-password the vault
    #[command(subcommand)]
    Vault(VaultCommand),
    /// Your identity: export, show (anyone's export), history, revoke
    #[command(subcommand)]
    Identity(IdentityCommand),
    /// Make a new key generation, certified by the root (the fingerprint stays)
    Rotate(RotateArgs),
    /// Make a detached hybrid signature (ML-DSA-65 + Ed25519) of a file or stdin
    Sign(SignArgs),
    /// Check a detached signature against the vault's identity or someone's export
    Verify(VerifyArgs),
    /// Encapsulate a fresh shared secret to someone's identity (hybrid ML-KEM + X25519)
    Encapsulate(EncapsulateArgs),
    /// Recover the shared secret of a KEM envelope made for you
    Decapsulate(DecapsulateArgs),
    /// Encrypt a file or stdin to one or more identities (streaming)
    Encrypt(EncryptArgs),
    /// Decrypt a file or stdin encrypted to you (streaming)
    Decrypt(DecryptArgs),
    /// Measure the baseline operations on this device (never touches your vault)
    Bench(BenchArgs),
    /// Render evidence files (`bench --json`, the arena's `--json`) as one self-contained HTML page
    Report(ReportArgs),
    /// Back up the identity on paper: the recovery phrase, k-of-n shares, a drill, a kit
    #[command(subcommand)]
    Backup(BackupCommand),
    /// Rebuild the identity into a new vault from its recovery phrase or shares
    Recover(RecoverArgs),
    /// The contacts book: people's identities by name, updated only along their chain
    #[command(subcommand)]
    Contacts(ContactsCommand),
    /// Check this installation: vault, permissions, storage, CPU features, KDF cost, terminal
    Doctor(DoctorArgs),
    /// Unlock once per session: a key agent that signs and decrypts without a password
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Wipe the key agent's keys and stop it (same as `nexusq agent stop`)
    Lock,
    /// Print the man page (roff) generated from these definitions
    Manpage,
    /// Print shell completions (bash, zsh, fish, elvish, powershell)
    Completions {
        /// The shell to print them for
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
    /// Argon2id lanes [default: min(4, cores) for a new vault; `vault passwd` keeps the vault's]
    #[arg(long, value_name = "P")]
    pub kdf_parallelism: Option<u32>,
    /// Choose memory (up to a quarter of the RAM, at most 1 GiB) and passes so that unlocking
    /// takes about N ms on this device, preferring memory
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
    #[command(flatten)]
    pub password: PasswordArgs,
    #[command(flatten)]
    pub writer: WriterArgs,
    /// Where to write the revocation statement [default: <vault>.revocation.asc]; `-` for stdout
    #[arg(long, value_name = "FILE")]
    pub revocation_out: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum VaultCommand {
    /// Check the file and show the identity, without a password
    Open,
    /// Decrypt the vault and check its secret keys against its public keys
    Unlock {
        #[command(flatten)]
        password: PasswordArgs,
    },
    /// Re-encrypt the vault under a new password (new salts)
    Passwd {
        #[command(flatten)]
        kdf: KdfArgs,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        new_password: NewPasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
}

/// `--to PUB` recipients and the checks on them, shared by encrypt and encapsulate.
#[derive(Args, Debug, Clone)]
pub struct PeerArgs {
    /// Refuse unless every recipient's fingerprint is one of these (with or without dashes,
    /// any case); repeat for several recipients
    #[arg(long, value_name = "FP")]
    pub expect_fingerprint: Vec<String>,
    /// Use a generation whose certificate has expired (normally refused: get a fresh export)
    #[arg(long)]
    pub allow_expired: bool,
}

/// The hybrid KEM suites users can choose.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KemSuiteArg {
    /// X-Wing: ML-KEM-768 + X25519 (the default)
    #[default]
    #[value(name = "mlkem768-x25519")]
    MlKem768X25519,
    /// ML-KEM-1024 + X25519 (nexusq-specific)
    #[value(name = "mlkem1024-x25519")]
    MlKem1024X25519,
}

#[derive(Args, Debug, Clone)]
pub struct DoctorArgs {
    /// Also check the current folder's git repository for nexusq-git-sign: gpg.x509.program
    /// (signing and verifying), gpg.format, user.signingkey, commit.gpgsign
    #[arg(long)]
    pub git: bool,
}

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Samples per crypto operation
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub iterations: u32,
    /// Samples per vault operation (open, unlock, rotation)
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub vault_iterations: u32,
    /// Unmeasured runs of each operation before sampling
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub warmup: u32,
    /// Use the KDF parameters of your vault's header for the throwaway vault (default KDF otherwise)
    #[arg(long)]
    pub kdf_from_vault: bool,
    /// Run both backends in alternating rounds over the ML-KEM / ML-DSA operations and print ratios
    #[arg(long)]
    pub compare: bool,
    /// Alternating rounds for --compare
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub rounds: u32,
    /// With --compare: the native/rustcrypto ratio, of the pooled median and of the pooled p95,
    /// above which an operation fails (exit 1)
    #[arg(long, value_name = "RATIO", default_value_t = 1.5)]
    pub gate: f64,
    /// With --compare: the bound on the median ratio alone [default: --gate]
    #[arg(long, value_name = "RATIO")]
    pub gate_median: Option<f64>,
    /// With --compare: the bound on the p95 ratio alone [default: --gate]
    #[arg(long, value_name = "RATIO")]
    pub gate_p95: Option<f64>,
    /// With --json: add every sample to the operation records
    #[arg(long)]
    pub raw: bool,
    /// Print the table as Markdown (for BENCHMARKS.md)
    #[arg(long)]
    pub markdown: bool,
    /// Argon2id memory in MiB of the throwaway vault (tests; default: the default KDF)
    #[arg(
        long,
        value_name = "MIB",
        hide = true,
        conflicts_with = "kdf_from_vault"
    )]
    pub kdf_memory_mib: Option<u32>,
    /// Argon2id iterations of the throwaway vault (tests; default: the default KDF)
    #[arg(long, value_name = "T", hide = true, conflicts_with = "kdf_from_vault")]
    pub kdf_iterations: Option<u32>,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Evidence files (JSON lines); each dataset in them becomes a section, in order
    #[arg(value_name = "EVIDENCE.jsonl", required = true)]
    pub evidence: Vec<PathBuf>,
    /// Write the page to FILE (replaced only when complete) instead of stdout
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct RotateArgs {
    /// Why (public: it travels in exports and signatures; at most 200 bytes)
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub reason: String,
    /// Days the new generation's certificate is valid
    #[arg(long, value_name = "DAYS", default_value_t = nexusq_core::identity::DEFAULT_VALIDITY_DAYS)]
    pub validity: u32,
    /// The old signing keys may have leaked: also revoke every earlier generation's signing keys
    #[arg(long)]
    pub compromised: bool,
    /// Erase the decapsulation keys of all but the newest N generations (forward secrecy: files
    /// sent to those generations can never be decrypted again)
    #[arg(long, value_name = "N")]
    pub retire_older_than: Option<u32>,
    /// Do not ask before retiring keys
    #[arg(long)]
    pub yes: bool,
    #[command(flatten)]
    pub password: PasswordArgs,
    #[command(flatten)]
    pub writer: WriterArgs,
}

#[derive(Args, Debug)]
pub struct SignArgs {
    /// The files to sign; `-` or nothing for stdin. Several files: FILE.sig beside each,
    /// one unlock
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Write the signature to SIG instead of stdout (one input)
    #[arg(short = 'o', long = "output", value_name = "SIG")]
    pub output: Option<PathBuf>,
    /// Sign even though this identity is revoked (others will refuse the signature)
    #[arg(long)]
    pub force: bool,
    /// Write each FILE's signature to DIR/<name of FILE>.sig
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub output_dir: Option<PathBuf>,
    /// A compact signature (under 5 KB): names the signing generation instead of carrying its
    /// certificate; verifiers need your export
    #[arg(long)]
    pub compact: bool,
    /// Sign a `sha256sum` manifest (to SHA256SUMS.sig) after checking every file it lists
    #[arg(long, value_name = "SHA256SUMS", conflicts_with = "inputs")]
    pub manifest: Option<PathBuf>,
    /// An OpenPGP detached signature (armored, v6, RFC 9980 ML-DSA-65+Ed25519) of one input,
    /// for OpenPGP users to verify (docs/openpgp.md)
    #[arg(long, conflicts_with_all = ["compact", "manifest", "output_dir"])]
    pub openpgp: bool,
    #[command(flatten)]
    pub password: PasswordArgs,
    /// Do not use a running key agent: unlock with the password
    #[arg(long)]
    pub no_agent: bool,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The signed files; `-` or nothing for stdin (with --sig). Without --sig, each FILE's
    /// signature is FILE.sig
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// The detached signature (one input)
    #[arg(long, value_name = "SIG")]
    pub sig: Option<PathBuf>,
    /// Find each FILE's signature as DIR/<name of FILE>.sig
    #[arg(long, value_name = "DIR", conflicts_with = "sig")]
    pub sig_dir: Option<PathBuf>,
    /// The signer's exported identity [default: this vault's own identity]
    #[arg(long, value_name = "PUB")]
    pub identity: Option<PathBuf>,
    /// Refuse unless the signer's fingerprint is FP; without --identity, trust the root key in
    /// the signature only if it matches FP
    #[arg(long, value_name = "FP")]
    pub expect_fingerprint: Option<String>,
    /// Verify a signed `sha256sum` manifest (its signature SHA256SUMS.sig, or --sig), then the
    /// SHA-256 of every file it lists
    #[arg(long, value_name = "SHA256SUMS", conflicts_with_all = ["inputs", "sig_dir"])]
    pub manifest: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct EncapsulateArgs {
    /// The recipient's exported identity
    #[arg(long, value_name = "PUB")]
    pub to: PathBuf,
    /// Which hybrid KEM
    #[arg(long, value_enum, default_value_t = KemSuiteArg::MlKem768X25519)]
    pub suite: KemSuiteArg,
    /// Where to write the envelope (or the bare ciphertext with --raw) [default: stdout; the
    /// shared secret then goes to stderr]
    #[arg(short = 'o', long = "output", value_name = "CT")]
    pub output: Option<PathBuf>,
    /// Write the bare KEM ciphertext, without envelope; the recipient then cannot detect a
    /// ciphertext that is not for them (decapsulation gives a random secret instead)
    #[arg(long)]
    pub raw: bool,
    #[command(flatten)]
    pub peer: PeerArgs,
}

#[derive(Args, Debug)]
pub struct DecapsulateArgs {
    /// The KEM envelope (or bare ciphertext with --raw)
    #[arg(value_name = "CT")]
    pub input: PathBuf,
    /// Read a bare ciphertext: no envelope, no confirmation tag, so a wrong or damaged
    /// ciphertext yields a random secret instead of an error
    #[arg(long, requires = "generation")]
    pub raw: bool,
    /// With --raw: the generation whose key to use
    #[arg(long, value_name = "N")]
    pub generation: Option<u32>,
    /// With --raw: which hybrid KEM the ciphertext is for
    #[arg(long, value_enum, default_value_t = KemSuiteArg::MlKem768X25519)]
    pub suite: KemSuiteArg,
    #[command(flatten)]
    pub password: PasswordArgs,
    /// Do not use a running key agent: unlock with the password
    #[arg(long)]
    pub no_agent: bool,
}

#[derive(Args, Debug)]
pub struct EncryptArgs {
    /// The file to encrypt; `-` or nothing for stdin
    #[arg(value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Recipient: an exported identity file, or an age1pq1… age recipient (repeat for up to
    /// 64 recipients)
    #[arg(
        long,
        value_name = "PUB",
        required_unless_present_any = ["recipients_file", "to_self"]
    )]
    pub to: Vec<PathBuf>,
    /// Also encrypt to this vault's own identity (to read the file back yourself)
    #[arg(long)]
    pub to_self: bool,
    /// Which hybrid KEM to use for every recipient
    #[arg(long, value_enum, default_value_t = KemSuiteArg::MlKem768X25519)]
    pub suite: KemSuiteArg,
    /// Write to OUT instead of stdout (`-o -` forces binary output to a terminal)
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Write armored text instead of binary
    #[arg(long)]
    pub armor: bool,
    /// An age recipients file: one age1pq1… recipient per line, blank lines and # comments
    /// ignored; `-` reads it from stdin. Repeatable. Implies --age.
    #[arg(short = 'R', long = "recipients-file", value_name = "FILE")]
    pub recipients_file: Vec<PathBuf>,
    /// Write an age v1 file (C2SP age.md) instead of nexusq's own format; nexusq exports are
    /// encrypted to their newest valid X-Wing key. Implied by any age recipient.
    #[arg(long)]
    pub age: bool,
    /// Write an OpenPGP message (RFC 9580 SEIPD v2 to RFC 9980 ML-KEM-768+X25519 keys);
    /// implied by any OpenPGP certificate among the recipients (docs/openpgp.md)
    #[arg(long, conflicts_with = "age")]
    pub openpgp: bool,
    #[command(flatten)]
    pub peer: PeerArgs,
}

#[derive(Args, Debug)]
pub struct DecryptArgs {
    /// The encrypted file (binary or armored); `-` or nothing for stdin
    #[arg(value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Write to OUT; nothing is left behind if authentication fails
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub password: PasswordArgs,
    /// An age identity file (AGE-SECRET-KEY-PQ-1… and AGE-SECRET-KEY-1… lines, # comments):
    /// decrypt an age file with it instead of the vault, with no password. Repeatable.
    #[arg(short = 'i', long = "identity-file", value_name = "FILE")]
    pub identity_file: Vec<PathBuf>,
    /// Do not use a running key agent: unlock with the password
    #[arg(long)]
    pub no_agent: bool,
}

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Unlock the vault and start a key agent serving it in the background
    Start(AgentStartArgs),
    /// Is an agent serving this vault? (exit 0 if so, 1 if not)
    Status,
    /// Wipe the agent's keys and stop it
    Stop,
    /// The background agent itself (started by `agent start`; reads its keys from stdin)
    #[command(hide = true)]
    Serve(AgentServeArgs),
}

#[derive(Args, Debug)]
pub struct AgentStartArgs {
    /// Stop after this long without a request (30s, 15m, 2h)
    #[arg(long, value_name = "DURATION", default_value = "15m")]
    pub idle: String,
    /// Stop this long after starting, however busy
    #[arg(long, value_name = "DURATION", default_value = "8h")]
    pub max: String,
    /// Stop an agent already serving this vault and start a new one
    #[arg(long)]
    pub replace: bool,
    /// Stay attached and serve from this process (for termux-services, systemd)
    #[arg(long)]
    pub foreground: bool,
    /// Print nothing but errors and the password prompt (for ~/.bashrc)
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub password: PasswordArgs,
}

#[derive(Args, Debug)]
pub struct AgentServeArgs {
    #[arg(long, value_name = "DURATION")]
    pub idle: String,
    #[arg(long, value_name = "DURATION")]
    pub max: String,
}

#[derive(Subcommand, Debug)]
pub enum IdentityCommand {
    /// Every generation of this vault, with dates, reasons and the chain check
    History,
    /// Publish a revocation statement (the one `init` wrote): it is added to the vault and
    /// travels in every later export; the updated export is printed
    Revoke {
        /// The revocation statement file
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Write the updated export to FILE instead of stdout
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
        /// Do not ask for confirmation (needed without a terminal)
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// Show someone's exported identity: fingerprint, generations, validity, revocations
    Show {
        /// The exported identity file
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Print only the age recipient (age1pq1…) of its newest valid generation
        #[arg(long)]
        age: bool,
    },
    /// Print your public identity as armored text to give to others
    Export {
        /// Write to FILE instead of stdout
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Include every generation's certificate, not only the newest
        #[arg(long)]
        full_history: bool,
        /// With --age: print the age recipient even though this identity is revoked (a
        /// revoked identity's export needs no --force: it carries the revocation)
        #[arg(long)]
        force: bool,
        /// Unlock first (asks for the password) so the export is checked against the secrets;
        /// implied by --password-file / --password-fd
        #[arg(long)]
        unlock: bool,
        #[command(flatten)]
        password: PasswordArgs,
        /// Print the newest generation's X-Wing key as an age recipient (age1pq1…), for age
        /// 1.3 users to encrypt to
        #[arg(long, conflicts_with_all = ["full_history", "age_plugin_identity"])]
        age: bool,
        /// Print the AGE-PLUGIN-NEXUSQ-1… identity line naming this vault, for an age
        /// identity file: `age -d -i FILE` then decrypts with the vault (age-plugin-nexusq)
        #[arg(long, conflicts_with = "full_history")]
        age_plugin_identity: bool,
        /// Export the identity as an OpenPGP certificate (RFC 9980 on a v6 key), signed by
        /// the root, so it asks for the password (docs/openpgp.md)
        #[arg(long, conflicts_with_all = ["full_history", "age", "age_plugin_identity"])]
        openpgp: bool,
        /// With --openpgp: a user ID for the certificate ("Name <address>"), bound by the root
        #[arg(long, value_name = "UID", requires = "openpgp")]
        user_id: Option<String>,
    },
}

/// `nexusq contacts ...` (docs/contacts.md).
#[derive(Subcommand, Debug)]
pub enum ContactsCommand {
    /// Add a nexusq export or an OpenPGP certificate (FILE, or - for stdin), or an age1pq1
    /// recipient, under NAME
    Add {
        /// The name to file it under
        #[arg(value_name = "NAME")]
        name: String,
        /// Their export or OpenPGP certificate (a file, or - for stdin), or an age1pq1 recipient
        #[arg(value_name = "FILE|-|age1pq1...")]
        source: String,
        /// Accept only this fingerprint (no question asked)
        #[arg(long, value_name = "FP", conflicts_with = "yes")]
        expect_fingerprint: Option<String>,
        /// Accept without checking; the contact stays "unverified" until `contacts verify`
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// Mark NAME verified after comparing its fingerprint FP with its owner
    Verify {
        /// The contact
        #[arg(value_name = "NAME")]
        name: String,
        /// The fingerprint its owner told you (with or without dashes, any case)
        #[arg(value_name = "FP")]
        fingerprint: String,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// Every contact, one line each
    List {
        /// Print only the names, one per line (for scripts and shell completion)
        #[arg(long)]
        names: bool,
    },
    /// One contact: fingerprint, verified, newest generation, expiry, revocation, dates
    Show {
        /// The contact
        #[arg(value_name = "NAME")]
        name: String,
    },
    /// Remove NAME from the book
    Remove {
        /// The contact
        #[arg(value_name = "NAME")]
        name: String,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// Print contacts' exports, or with --age an age recipients file
    Export {
        /// The contacts to print
        #[arg(
            value_name = "NAME",
            required_unless_present = "all",
            conflicts_with = "all"
        )]
        names: Vec<String>,
        /// Every contact
        #[arg(long)]
        all: bool,
        /// An age recipients file (one age1pq1 line per contact) instead of exports
        #[arg(long)]
        age: bool,
    },
    /// Trust again a book signed by a key since revoked (rotate --compromised), after showing it
    Recover {
        /// Do not ask: trust the book as it is (it is still shown)
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// Bring NAME up to date with a newer export of the same identity (or a newer copy of the
    /// same OpenPGP certificate)
    Update {
        /// The contact
        #[arg(value_name = "NAME")]
        name: String,
        /// The newer export or OpenPGP certificate (a file, or - for stdin)
        #[arg(value_name = "FILE")]
        file: PathBuf,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
}

impl ContactsCommand {
    /// The password and writer options of the subcommands that save the book.
    pub fn saves(&self) -> Option<(&PasswordArgs, &WriterArgs)> {
        match self {
            ContactsCommand::Add {
                password, writer, ..
            }
            | ContactsCommand::Verify {
                password, writer, ..
            }
            | ContactsCommand::Remove {
                password, writer, ..
            }
            | ContactsCommand::Update {
                password, writer, ..
            }
            | ContactsCommand::Recover {
                password, writer, ..
            } => Some((password, writer)),
            ContactsCommand::List { .. }
            | ContactsCommand::Show { .. }
            | ContactsCommand::Export { .. } => None,
        }
    }
}

/// Where the words of a recovery phrase or of shares come from; without either, they are asked
/// for on the terminal, one at a time.
#[derive(Args, Debug, Clone, Default)]
pub struct WordsArgs {
    /// The 24-word recovery phrase, from this file (as `backup phrase -o` writes it)
    #[arg(long, value_name = "FILE", conflicts_with = "share_file")]
    pub phrase_file: Option<PathBuf>,
    /// A share, from this file (as `backup shares` writes them); repeat for each share
    #[arg(long, value_name = "FILE")]
    pub share_file: Vec<PathBuf>,
    /// At a terminal: type shares instead of the phrase (K of them)
    #[arg(long, conflicts_with_all = ["phrase_file", "share_file"])]
    pub shares: bool,
}

impl WordsArgs {
    pub fn any(&self) -> bool {
        self.phrase_file.is_some() || !self.share_file.is_empty()
    }
}

#[derive(Subcommand, Debug)]
pub enum BackupCommand {
    /// Show the 24-word recovery phrase once and ask three words back, or write it with -o
    Phrase {
        /// Write the words to FILE (created with mode 0600, never overwritten) instead
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// Split the master secret into N shares, any K of which rebuild the identity
    Shares {
        /// How many shares rebuild the identity (2..=N)
        #[arg(long, value_name = "K")]
        threshold: u8,
        /// How many shares to write (K..=16)
        #[arg(long = "shares", value_name = "N")]
        count: u8,
        /// Write PREFIX.1 ... PREFIX.N (mode 0600, never overwritten)
        #[arg(short = 'o', long = "output", value_name = "PREFIX")]
        output: PathBuf,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
    /// The restore drill: do these words rebuild this vault's identity? Writes nothing
    Check {
        #[command(flatten)]
        words: WordsArgs,
    },
    /// Write a printable recovery kit: one A4 page per phrase or share (HTML)
    Kit {
        /// The kit's file (created with mode 0600, never overwritten)
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// The phrase or shares to print [default: the vault's phrase, which needs the password]
        #[command(flatten)]
        words: WordsArgs,
        #[command(flatten)]
        password: PasswordArgs,
        #[command(flatten)]
        writer: WriterArgs,
    },
}

#[derive(Args, Debug)]
pub struct RecoverArgs {
    #[command(flatten)]
    pub words: WordsArgs,
    /// Your export (from a contact, or where you published it): every generation it certifies
    /// comes back with the same certificates, and the older ones for decryption
    #[arg(long, value_name = "EXPORT")]
    pub from_export: Option<PathBuf>,
    /// How many generations the identity had (its newest generation number, as contacts or
    /// `identity show` of an old export tell): every one up to N comes back for decryption,
    /// so files sent to later generations open without an export that certifies them
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub generations: Option<u32>,
    #[command(flatten)]
    pub new_password: NewPasswordArgs,
    #[command(flatten)]
    pub kdf: KdfArgs,
    #[command(flatten)]
    pub writer: WriterArgs,
}

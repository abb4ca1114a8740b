//! `nexusq doctor`: check this installation and say what to do about anything that is off.
//!
//! Reads only. It never asks for a password, never takes the vault's lock and never writes: the
//! vault is read (no password) for its KDF parameters, and the unlock time is measured with a
//! throwaway password on a throwaway salt. Every check gets a status (ok / warn / error), a
//! one-line detail and, where something is off, a hint. It exits 1 when a check is an error
//! and 0 otherwise (warnings included); `--json` prints one object with every check, which on
//! exit 1 also carries the `"error"` member of docs/cli.md.
//!
//! The judgements are plain functions over facts (modes, parameters, environment values), so
//! they are unit-tested on any host; `run` gathers the facts.

use super::Context;
use super::error::Result;
use nexusq_core::secret::{Password, random_array};
use nexusq_core::vault::{self, KdfParams, KeyDerivation, kdf, storage};
use serde_json::{Value, json};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    Warn,
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Error => "error",
        }
    }
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub detail: String,
    /// What to do; empty when there is nothing to do.
    pub hint: String,
}

impl Check {
    fn new(name: &'static str, status: Status, detail: impl Into<String>) -> Check {
        Check {
            name,
            status,
            detail: detail.into(),
            hint: String::new(),
        }
    }

    fn ok(name: &'static str, detail: impl Into<String>) -> Check {
        Check::new(name, Status::Ok, detail)
    }

    fn warn(name: &'static str, detail: impl Into<String>, hint: impl Into<String>) -> Check {
        Check::new(name, Status::Warn, detail).hint(hint)
    }

    fn error(name: &'static str, detail: impl Into<String>, hint: impl Into<String>) -> Check {
        Check::new(name, Status::Error, detail).hint(hint)
    }

    fn hint(mut self, hint: impl Into<String>) -> Check {
        self.hint = hint.into();
        self
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "status": self.status.as_str(),
            "detail": self.detail,
            "hint": self.hint,
        })
    }
}

pub fn run(ctx: &Context) -> Result<()> {
    let report = gather(ctx);
    let counts = |s: Status| report.checks.iter().filter(|c| c.status == s).count();
    let (ok, warn, error) = (
        counts(Status::Ok),
        counts(Status::Warn),
        counts(Status::Error),
    );
    let mut json = json!({
        "version": env!("CARGO_PKG_VERSION"),
        "ok": error == 0,
        "counts": { "ok": ok, "warn": warn, "error": error },
        "vault_path": report.vault_path.as_ref().map(|p| p.display().to_string()),
        "vault_path_source": report.vault_path_source.as_str(),
        "identity": report.identity,
        "checks": report.checks.iter().map(Check::to_json).collect::<Vec<_>>(),
    });
    if let Some(p) = &report.vault_path {
        super::output::path_bytes(&mut json, &[("vault_path", p)]);
    }
    let failed = failure(&report.checks);
    match (&failed, json) {
        // One object on stdout: the report beside the error (docs/cli.md).
        (Some(e), Value::Object(fields)) if ctx.global.json => {
            let mut e = e.clone();
            for (k, v) in fields {
                e = e.with_json(&k, v);
            }
            return Err(e);
        }
        (_, json) => ctx.out.json(&json),
    }
    let width = report
        .checks
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0);
    ctx.out
        .data(&format!("nexusq {} doctor", env!("CARGO_PKG_VERSION")));
    for c in &report.checks {
        ctx.out.data(&format!(
            "{:<5}  {:<width$}  {}",
            c.status.as_str(),
            c.name,
            c.detail
        ));
        if !c.hint.is_empty() {
            ctx.out
                .data(&format!("{:<5}  {:<width$}  hint: {}", "", "", c.hint));
        }
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    ctx.out.data(&format!(
        "{}: {ok} ok, {}, {}",
        plural(report.checks.len(), "check"),
        plural(warn, "warning"),
        plural(error, "error")
    ));
    failed.map_or(Ok(()), Err)
}

/// The exit-1 error when any check is an error: names them, points at the hints.
fn failure(checks: &[Check]) -> Option<super::error::Error> {
    let failed: Vec<&str> = checks
        .iter()
        .filter(|c| c.status == Status::Error)
        .map(|c| c.name)
        .collect();
    (!failed.is_empty()).then(|| {
        super::error::Error::check(
            format!(
                "{} of {} checks failed: {}",
                failed.len(),
                checks.len(),
                failed.join(", ")
            ),
            "follow the hint under each failed check above, then run `nexusq doctor` again",
        )
    })
}

struct Report {
    checks: Vec<Check>,
    vault_path: Option<PathBuf>,
    vault_path_source: PathSource,
    /// The vault's identity and the state of each generation (`null` without a readable vault).
    identity: Value,
}

fn gather(ctx: &Context) -> Report {
    let env_vault = std::env::var_os("NEXUSQ_VAULT");
    let source = path_source(ctx.global.vault.as_deref(), env_vault.as_deref());
    let data_dir = storage::platform_data_dir();
    let ram = kdf::device_ram_bytes();
    let mut checks = vec![platform_check(
        std::env::consts::OS,
        std::env::consts::ARCH,
        &TermuxEnv::from_process(),
    )];

    let path = ctx.vault_path().ok();
    checks.push(vault_path_check(
        path.as_deref(),
        source,
        data_dir.as_deref(),
    ));

    // The vault's KDF parameters, read from the header without a password; the default when
    // there is no readable vault.
    let mut vault_params = None;
    let mut identity = Value::Null;
    if let Some(path) = &path {
        let facts = VaultFacts::read(path);
        checks.push(vault_file_check(path, &facts));
        checks.push(vault_link_check(path, &facts));
        checks.push(permissions_check(
            path,
            &facts,
            rustix::process::geteuid().as_raw(),
        ));
        checks.push(shared_storage_check(path, data_dir.as_deref()));
        checks.push(revocation_beside_check(path, &facts));
        let opened = facts.is_file.then(|| vault::open(path));
        let (kdf, state) = match &opened {
            Some(Ok(file)) => {
                vault_params = Some(file.header.kdf);
                let now = super::now();
                let states = super::state::generations(&file.public, now, None);
                identity = json!({
                    "fingerprint": file.public.root_id().fingerprint().to_string(),
                    "revoked": super::state::identity_revoked(&file.public),
                    "generations": super::state::rows(&file.public, &states),
                });
                (
                    kdf_check(Some(&file.header.kdf), ram),
                    vault_state_check(&file.public, &states, now),
                )
            }
            Some(Err(e)) => (
                Check::error(
                    "vault_kdf",
                    format!("cannot read the vault header: {}", e.message()),
                    e.hint(),
                ),
                no_identity_check(true),
            ),
            None => (kdf_check(None, ram), no_identity_check(facts.exists)),
        };
        checks.push(kdf);
        checks.push(state);
    } else {
        checks.push(kdf_check(None, ram));
        checks.push(no_identity_check(false));
    }
    checks.push(unlock_time_check(vault_params));
    checks.push(ram_check(ram));
    checks.push(cpu_check(
        std::env::consts::ARCH,
        &nexusq_core::bench::environment::cpu_model(),
        &nexusq_core::bench::environment::cpu_features(),
    ));
    let native = nexusq_core::suite::native::implementations();
    checks.push(native_check(
        native.selected,
        &native.available,
        ctx.backend()
            .map(|b| b.name())
            .map_err(|e| (e.message().to_string(), e.hint().to_string())),
    ));
    checks.push(terminal_check(&TerminalFacts::from_process()));
    checks.push(hardening_check(&super::hardening::harden_process()));
    checks.push(agent_check(path.as_deref()));
    checks.push(contacts_book_check(ctx, path.as_deref()));
    Report {
        checks,
        vault_path: path,
        vault_path_source: source,
        identity,
    }
}

// ---------------------------------------------------------------------------------------------
// Where the vault is

/// How the vault path was chosen (`--vault`, then `$NEXUSQ_VAULT`, then the default:
/// docs/vault-format.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSource {
    Flag,
    Env,
    Default,
}

impl PathSource {
    pub fn as_str(self) -> &'static str {
        match self {
            PathSource::Flag => "--vault",
            PathSource::Env => "NEXUSQ_VAULT",
            PathSource::Default => "default",
        }
    }
}

/// The same precedence as `storage::default_vault_path`: the flag, else a non-empty
/// NEXUSQ_VAULT, else the default.
pub fn path_source(flag: Option<&Path>, env_vault: Option<&OsStr>) -> PathSource {
    if flag.is_some() {
        PathSource::Flag
    } else if env_vault.is_some_and(|v| !v.is_empty()) {
        PathSource::Env
    } else {
        PathSource::Default
    }
}

pub fn vault_path_check(path: Option<&Path>, source: PathSource, data_dir: Option<&Path>) -> Check {
    let Some(path) = path else {
        return Check::error(
            "vault_path",
            "cannot tell where the vault lives: no --vault, no NEXUSQ_VAULT and no home folder",
            "pass --vault PATH or set NEXUSQ_VAULT (is HOME set?)",
        );
    };
    let how = match source {
        PathSource::Flag => "from --vault".to_string(),
        PathSource::Env => "from NEXUSQ_VAULT".to_string(),
        PathSource::Default => match data_dir {
            Some(d) => format!(
                "the default, as neither --vault nor NEXUSQ_VAULT is set; data folder {} from \
                 XDG_DATA_HOME or HOME",
                d.display()
            ),
            None => "the default".to_string(),
        },
    };
    let relative = if path.is_relative() {
        ", relative to the current folder"
    } else {
        ""
    };
    Check::ok(
        "vault_path",
        format!("{} ({how}{relative})", path.display()),
    )
}

/// What `stat` says about the vault and its folder (None: missing or unreadable).
#[derive(Clone, Debug, Default)]
pub struct VaultFacts {
    pub exists: bool,
    pub is_file: bool,
    pub file_mode: Option<u32>,
    pub file_uid: Option<u32>,
    pub folder_mode: Option<u32>,
    pub error: Option<String>,
    /// The file's size in bytes.
    pub len: u64,
    /// Its first bytes (up to 4): the magic, when it is a vault.
    pub head: Vec<u8>,
    /// Where the path leads when it is a symbolic link (fully resolved).
    pub link_target: Option<PathBuf>,
    /// `<vault>.revocation.asc` files found beside the path or the link's target.
    pub revocation_beside: Vec<PathBuf>,
}

impl VaultFacts {
    fn read(path: &Path) -> VaultFacts {
        use std::os::unix::fs::MetadataExt;
        let mut facts = VaultFacts::default();
        match std::fs::metadata(path) {
            Ok(m) => {
                facts.exists = true;
                facts.is_file = m.is_file();
                facts.file_mode = Some(m.mode() & 0o7777);
                facts.file_uid = Some(m.uid());
                facts.len = m.len();
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => facts.error = Some(e.to_string()),
        }
        facts.folder_mode = std::fs::metadata(nexusq_core::fs::parent_folder(path))
            .ok()
            .map(|m| m.mode() & 0o7777);
        if facts.is_file {
            use std::io::Read;
            let mut head = Vec::new();
            if let Ok(f) = std::fs::File::open(path) {
                let _ = f.take(4).read_to_end(&mut head);
            }
            facts.head = head;
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            facts.link_target = nexusq_core::fs::resolve_links(path).ok();
        }
        let mut candidates = vec![super::init::default_revocation_path(path)];
        if let Some(t) = &facts.link_target {
            candidates.push(super::init::default_revocation_path(t));
        }
        candidates.dedup();
        facts.revocation_beside = candidates.into_iter().filter(|p| p.exists()).collect();
        facts
    }

    /// Starts with the vault magic (a nexusq vault, perhaps damaged further in).
    fn looks_like_vault(&self) -> bool {
        self.head.as_slice() == vault::format::MAGIC
    }
}

pub fn vault_file_check(path: &Path, facts: &VaultFacts) -> Check {
    let name = "vault_file";
    if let Some(e) = &facts.error {
        return Check::error(
            name,
            format!("cannot inspect {}: {e}", path.display()),
            "check the permissions of the vault and of every folder above it",
        );
    }
    if !facts.exists {
        return Check::warn(
            name,
            format!("no vault at {}", path.display()),
            "run `nexusq init` to create one, or point --vault / NEXUSQ_VAULT at yours",
        );
    }
    if !facts.is_file {
        return Check::error(
            name,
            format!("{} is not a regular file", path.display()),
            "point --vault at the vault file itself",
        );
    }
    if facts.len == 0 {
        return Check::error(
            name,
            format!("{} is empty (0 bytes), not a vault", path.display()),
            "restore the vault from a backup; if you never had one there, remove the empty file \
             and run `nexusq init`",
        );
    }
    if !facts.looks_like_vault() {
        return Check::error(
            name,
            format!(
                "{} is not a nexusq vault ({} bytes, no NXQV header)",
                path.display(),
                facts.len
            ),
            "point --vault / NEXUSQ_VAULT at your vault file; this one is something else",
        );
    }
    Check::ok(
        name,
        format!("{} exists ({} bytes)", path.display(), facts.len),
    )
}

/// A vault reached through a symbolic link: saves go to the link's target (the link stays),
/// but backups, permissions and anyone who can change the link decide which file that is.
pub fn vault_link_check(path: &Path, facts: &VaultFacts) -> Check {
    let name = "vault_link";
    match &facts.link_target {
        None => Check::ok(name, format!("{} is not a symbolic link", path.display())),
        Some(target) => Check::warn(
            name,
            format!(
                "{} is a symbolic link to {}; nexusq saves to {} and keeps the link",
                path.display(),
                target.display(),
                target.display()
            ),
            format!(
                "point --vault / NEXUSQ_VAULT at {} itself, so no one who can change the link \
                 can swap the vault, and back up that file",
                target.display()
            ),
        ),
    }
}

/// `init`'s revocation statement left beside the vault: a thief who takes the phone gets both.
pub fn revocation_beside_check(path: &Path, facts: &VaultFacts) -> Check {
    let name = "revocation_statement";
    match facts.revocation_beside.as_slice() {
        [] => Check::ok(
            name,
            format!(
                "no revocation statement beside {} (keep yours off this device)",
                path.display()
            ),
        ),
        found => {
            let shown: Vec<String> = found.iter().map(|p| p.display().to_string()).collect();
            Check::warn(
                name,
                format!(
                    "a revocation statement lies beside the vault: {}; whoever takes this \
                     device can revoke your identity with it",
                    shown.join(", ")
                ),
                format!(
                    "copy it somewhere safe off this device (another computer, paper), then \
                     delete it here: rm {}",
                    shown.join(" ")
                ),
            )
        }
    }
}

/// `vault_state` when there is no identity to read: nothing to say without a vault; a vault
/// that cannot be read was already reported by `vault_file` or `vault_kdf`.
fn no_identity_check(unreadable: bool) -> Check {
    if unreadable {
        Check::warn(
            "vault_state",
            "the vault cannot be read, so neither can its identity's state",
            "see vault_file and vault_kdf above",
        )
    } else {
        Check::ok("vault_state", "no vault yet, so no identity")
    }
}

/// The identity's own state: revoked, newest generation expired (others cannot encrypt to
/// it), or soon to expire; older generations' states in the detail.
pub fn vault_state_check(
    public: &nexusq_core::identity::PublicIdentity,
    states: &[super::state::GenerationState],
    now: u64,
) -> Check {
    let name = "vault_state";
    let newest = public.newest();
    let fp = public.root_id().fingerprint();
    let listing: Vec<String> = public
        .certificates
        .iter()
        .zip(states)
        .map(|(c, s)| format!("g{}{}", c.generation, super::state::text(s, false)))
        .collect();
    let summary = format!(
        "identity {fp}, {} generation{}: {}",
        states.len(),
        if states.len() == 1 { "" } else { "s" },
        listing.join(", ")
    );
    if super::state::identity_revoked(public) {
        return Check::error(
            name,
            format!("{summary}; the identity is revoked"),
            "nobody should encrypt to it or trust its signatures; make a new identity with \
             `nexusq --vault NEW.nxq init` and tell your contacts",
        );
    }
    let (g, until) = (newest.generation, super::output::time(newest.not_after));
    if newest.is_expired(now) {
        return Check::error(
            name,
            format!("{summary}; the newest generation (g{g}) expired on {until}"),
            "run `nexusq rotate` to certify a new generation, then send your contacts the new \
             `nexusq identity export`",
        );
    }
    const SOON: u64 = 30 * 24 * 3600;
    if newest.not_after.saturating_sub(now) < SOON {
        return Check::warn(
            name,
            format!("{summary}; the newest generation (g{g}) expires on {until}"),
            "run `nexusq rotate` before then, and send your contacts the new export",
        );
    }
    Check::ok(name, format!("{summary}; newest g{g} valid until {until}"))
}

/// The vault file should be 0600 and ours; its folder should not be readable or writable by
/// group or others (a writable folder lets others replace the vault).
pub fn permissions_check(path: &Path, facts: &VaultFacts, our_uid: u32) -> Check {
    let name = "vault_permissions";
    let folder = nexusq_core::fs::parent_folder(path);
    let mut problems = Vec::new();
    let mut hints = Vec::new();
    let mut parts = Vec::new();
    if let Some(mode) = facts.file_mode.filter(|_| facts.is_file) {
        parts.push(format!("file {:o}", mode & 0o777));
        if mode & 0o077 != 0 {
            problems.push(format!(
                "the vault file is mode {:o}: group or others have access to it",
                mode & 0o777
            ));
            hints.push(format!("chmod 600 {}", path.display()));
        }
    }
    if let Some(uid) = facts.file_uid.filter(|&u| u != our_uid) {
        problems.push(format!(
            "the vault file belongs to uid {uid}, not to you (uid {our_uid})"
        ));
        hints.push("copy the vault to a file of your own".to_string());
    }
    match facts.folder_mode {
        Some(mode) => {
            parts.push(format!("folder {:o}", mode & 0o777));
            if mode & 0o066 != 0 {
                problems.push(format!(
                    "its folder {} is mode {:o}: group or others can read or write it",
                    folder.display(),
                    mode & 0o777
                ));
                hints.push(format!("chmod 700 {}", folder.display()));
            }
        }
        None => parts.push(format!(
            "folder {} does not exist yet (`nexusq init` creates it with mode 700)",
            folder.display()
        )),
    }
    if problems.is_empty() {
        Check::ok(name, parts.join(", "))
    } else {
        Check::warn(name, problems.join("; "), hints.join("; "))
    }
}

/// Android shared storage, decided on the realpath of the vault's folder.
pub fn shared_storage_check(path: &Path, data_dir: Option<&Path>) -> Check {
    let name = "shared_storage";
    let folder = nexusq_core::fs::parent_folder(path);
    let real = std::fs::canonicalize(folder).ok();
    let shown = real.as_deref().unwrap_or(folder);
    if nexusq_core::fs::folder_is_shared_storage(path) {
        let target = data_dir
            .map(|d| format!("{}/nexusq/vault.nxq", d.display()))
            .unwrap_or_else(|| "Termux's home".to_string());
        Check::warn(
            name,
            format!(
                "the vault's folder is in Android shared storage ({}), where other apps can \
                 read it; nexusq refuses to save there without --allow-shared-storage",
                shown.display()
            ),
            format!("move the vault to {target} and keep only backup copies in shared storage"),
        )
    } else {
        Check::ok(
            name,
            format!("{} is not in Android shared storage", shown.display()),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// The password cost

/// The vault's Argon2id parameters against the default and this device's memory bound; the
/// default for new vaults when there is no vault.
pub fn kdf_check(params: Option<&KdfParams>, ram: Option<u64>) -> Check {
    let name = "vault_kdf";
    let max_kib = kdf::max_memory_kib(ram);
    let bound = format!("this device allows up to {} MiB", max_kib / 1024);
    let Some(p) = params else {
        return Check::ok(
            name,
            format!(
                "no vault yet; new vaults get {} (the default); {bound}",
                KdfParams::for_new_vault().describe()
            ),
        );
    };
    if let Err(m) = p.check_bounds(ram) {
        return Check::error(
            name,
            format!("{}: {m}", p.describe()),
            "this device cannot unlock the vault; unlock it on the device that made it and run \
             `nexusq vault passwd --kdf-memory-mib 64`",
        );
    }
    let default = KdfParams::DEFAULT;
    if p.is_weaker_than_default() {
        return Check::warn(
            name,
            format!(
                "{} is weaker than the default ({}); {bound}",
                p.describe(),
                KdfParams::describe_floor()
            ),
            "a stolen vault is cheaper to attack; raise it with `nexusq vault passwd` (keeps at \
             least the default) or `--calibrate-ms 1000`",
        );
    }
    if let Some(ram) = ram
        && u64::from(p.memory_kib) * 1024 > ram / 2
    {
        return Check::warn(
            name,
            format!(
                "{} uses more than half of this device's RAM; {bound}",
                p.describe()
            ),
            "unlocking may fail when other apps hold memory; `nexusq vault passwd \
             --kdf-memory-mib 64` lowers it",
        );
    }
    let relation = if (p.memory_kib, p.iterations) == (default.memory_kib, default.iterations) {
        "the default".to_string()
    } else {
        format!("at least the default, {}", KdfParams::describe_floor())
    };
    Check::ok(name, format!("{} ({relation}); {bound}", p.describe()))
}

/// One Argon2id derivation with `params` (the vault's, else the default), a throwaway password
/// and a random salt: what one unlock costs here. The vault is not touched.
fn unlock_time_check(params: Option<KdfParams>) -> Check {
    let (p, whose) = match params {
        Some(p) => (p, "the vault's parameters"),
        None => (KdfParams::for_new_vault(), "the default parameters"),
    };
    let password = Password::new(Zeroizing::new("nexusq doctor: not a password".into()));
    let salt = random_array();
    let start = Instant::now();
    match vault::Argon2id.derive(&password, &salt, &p) {
        Ok(_) => timing_check(start.elapsed(), whose, &p),
        Err(e) => Check::error(
            "unlock_time",
            format!("Argon2id with {} failed: {}", p.describe(), e.message()),
            e.hint(),
        ),
    }
}

/// Unlocking longer than 10 s is worth a warning; anything shorter is a matter of taste.
pub fn timing_check(elapsed: Duration, whose: &str, p: &KdfParams) -> Check {
    let name = "unlock_time";
    let ms = elapsed.as_millis();
    let detail = format!(
        "one unlock takes about {ms} ms here ({whose}: {})",
        p.describe()
    );
    if elapsed > Duration::from_secs(10) {
        Check::warn(
            name,
            detail,
            "`nexusq vault passwd --calibrate-ms 2000` picks a cost that fits this device",
        )
    } else {
        Check::ok(name, detail)
    }
}

pub fn ram_check(ram: Option<u64>) -> Check {
    let name = "device_ram";
    match ram {
        Some(bytes) => Check::ok(
            name,
            format!(
                "{} MiB; Argon2id may use up to {} MiB here (3/4 of the RAM, at most 2 GiB)",
                bytes / (1024 * 1024),
                kdf::max_memory_kib(Some(bytes)) / 1024
            ),
        ),
        None => Check::warn(
            name,
            "the device does not report its RAM; Argon2id is allowed up to 2 GiB",
            "nothing to do, but keep --kdf-memory-mib well below the RAM you have",
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// The machine

/// What Termux sets: PREFIX under com.termux, TERMUX_VERSION.
#[derive(Clone, Debug, Default)]
pub struct TermuxEnv {
    pub prefix: Option<String>,
    pub termux_version: Option<String>,
}

impl TermuxEnv {
    fn from_process() -> TermuxEnv {
        TermuxEnv {
            prefix: std::env::var("PREFIX").ok(),
            termux_version: std::env::var("TERMUX_VERSION").ok(),
        }
    }

    pub fn is_termux(&self) -> bool {
        self.termux_version
            .as_deref()
            .is_some_and(|v| !v.is_empty())
            || self
                .prefix
                .as_deref()
                .is_some_and(|p| p.contains("/com.termux/"))
    }
}

pub fn platform_check(os: &str, arch: &str, termux: &TermuxEnv) -> Check {
    let env = if termux.is_termux() {
        format!(
            "Termux (PREFIX={})",
            termux.prefix.as_deref().unwrap_or("unset")
        )
    } else {
        "not Termux".to_string()
    };
    Check::ok("platform", format!("{os} {arch}, {env}"))
}

/// The CPU features that matter, from run-time detection. Missing AES (or PMULL for GHASH) on
/// a CPU that usually has it makes AES-GCM fall back to slower constant-time software.
pub fn cpu_check(arch: &str, model: &str, features: &[(&str, bool)]) -> Check {
    let name = "cpu_features";
    if features.is_empty() {
        return Check::ok(
            name,
            format!("{model} ({arch}): no run-time feature detection for this architecture"),
        );
    }
    let list = features
        .iter()
        .map(|(f, on)| format!("{f} {}", if *on { "yes" } else { "no" }))
        .collect::<Vec<_>>()
        .join(", ");
    let detail = format!("{model} ({arch}): {list}");
    let missing: Vec<&str> = features
        .iter()
        .filter(|(f, on)| !on && matches!(*f, "aes" | "pmull" | "aes-ni"))
        .map(|(f, _)| *f)
        .collect();
    if missing.is_empty() {
        Check::ok(name, detail)
    } else {
        Check::warn(
            name,
            detail,
            format!(
                "without {} AES-256-GCM runs in constant-time software: slower, still safe; \
                 nothing to fix",
                missing.join(" and ")
            ),
        )
    }
}

/// Which native implementation would run, and which backend actually runs.
pub fn native_check(
    selected: &str,
    available: &[&str],
    backend: std::result::Result<&str, (String, String)>,
) -> Check {
    let name = "native_backend";
    let native = format!(
        "nexusq-native runs {selected} for ML-KEM and ML-DSA-65 with --backend native \
         (available here: {})",
        available.join(", ")
    );
    match backend {
        Ok(b) => Check::ok(name, format!("{native}; {b} runs")),
        Err((message, hint)) => Check::warn(name, format!("{native}; {message}"), hint),
    }
}

/// Terminal and password input facts.
#[derive(Clone, Debug, Default)]
pub struct TerminalFacts {
    pub stdin_tty: bool,
    pub stderr_tty: bool,
    pub dev_tty: bool,
    pub no_color: bool,
}

impl TerminalFacts {
    fn from_process() -> TerminalFacts {
        use std::io::IsTerminal;
        TerminalFacts {
            stdin_tty: std::io::stdin().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
            dev_tty: std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open("/dev/tty")
                .is_ok(),
            no_color: std::env::var_os("NO_COLOR").is_some(),
        }
    }
}

pub fn terminal_check(t: &TerminalFacts) -> Check {
    let name = "terminal";
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let colour = if t.no_color {
        "off (NO_COLOR is set)"
    } else if !t.stderr_tty {
        "off (stderr is not a terminal)"
    } else {
        "on"
    };
    let detail = format!(
        "stdin is a terminal: {}, stderr is a terminal: {}, /dev/tty opens: {}, colour: {colour}",
        yes_no(t.stdin_tty),
        yes_no(t.stderr_tty),
        yes_no(t.dev_tty)
    );
    if t.dev_tty {
        Check::ok(name, detail).hint(
            "in scripts, give the password with --password-file PATH or --password-fd N \
             (never on the command line)",
        )
    } else {
        Check::warn(
            name,
            format!("{detail}; no terminal to ask for a password"),
            "commands that need the password fail at once (exit 2) here unless given \
             --password-file PATH or --password-fd N",
        )
    }
}

/// The key agent of this vault (docs/agent.md): running or not, and until when.
pub fn agent_check(vault: Option<&std::path::Path>) -> Check {
    use nexusq_core::agent::client::{self, Lookup};
    let name = "agent";
    let Some(vault) = vault else {
        return Check::ok(name, "no vault path, so no agent");
    };
    match client::find(vault) {
        Lookup::Absent => Check::ok(
            name,
            "no key agent runs for this vault (commands ask for the password)",
        ),
        Lookup::Ready(a) => {
            let s = a.status();
            Check::ok(
                name,
                format!(
                    "a key agent serves this vault (pid {}, generation {}): idle timeout in {} s, \
                     stops at {} at the latest; memory {}",
                    s.pid,
                    s.signing_generation,
                    s.idle_left,
                    nexusq_core::time::rfc3339(s.expires_at),
                    if s.memory_locked {
                        "locked"
                    } else {
                        "not all locked (the secrets' pages are, where allowed)"
                    }
                ),
            )
        }
        Lookup::Unusable(why) => Check::warn(
            name,
            format!("an agent socket for this vault does not serve: {why}"),
            "`nexusq lock` ends the agent behind it, or removes the socket if nobody listens",
        ),
    }
}

/// The contacts book (docs/contacts.md): a book that is there but cannot be trusted is an
/// error, since every command that names a contact, or reads an export of one, refuses it.
fn contacts_book_check(ctx: &Context, vault: Option<&Path>) -> Check {
    let name = "contacts_book";
    let Some(vault) = vault else {
        return Check::ok(name, "no vault path, so no contacts book");
    };
    let book = match super::contacts_cmd::book_path(ctx) {
        Ok(p) => p,
        Err(e) => return Check::error(name, e.message(), e.hint()),
    };
    let public = match vault::open(vault) {
        Ok(file) => Some(file.public),
        Err(_) => None,
    };
    let backend = match ctx.backend() {
        Ok(b) => b,
        Err(e) => return Check::warn(name, e.message(), e.hint()),
    };
    contacts_book_result(
        &book,
        nexusq_core::contacts::store::load(&book, public.as_ref(), backend),
    )
}

pub fn contacts_book_result(
    book: &Path,
    loaded: nexusq_core::error::Result<nexusq_core::contacts::store::Loaded>,
) -> Check {
    let name = "contacts_book";
    let shown = super::output::untrusted_path(book);
    match loaded {
        Ok(l) if l.book.seq == 0 && l.book.contacts.is_empty() => {
            Check::ok(name, format!("no contacts book yet ({shown})"))
        }
        Ok(l) => Check::ok(
            name,
            format!(
                "{} contact(s) in {shown}, signed by generation {}",
                l.book.contacts.len(),
                l.signed_by
            ),
        ),
        Err(e) => Check::error(name, e.message(), e.hint()),
    }
}

pub fn hardening_check(failures: &[String]) -> Check {
    let name = "process_hardening";
    if failures.is_empty() {
        Check::ok(
            name,
            "core dumps off (RLIMIT_CORE 0) and not dumpable (PR_SET_DUMPABLE 0) before any \
             password is read",
        )
    } else {
        Check::warn(
            name,
            format!("could not harden the process: {}", failures.join("; ")),
            "a sandbox or the kernel refused it; secrets could reach core dumps or other \
             processes of your user, so run nexusq outside that sandbox if you can",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1024 * 1024;

    #[test]
    fn path_source_follows_the_documented_order() {
        let flag = Path::new("a.nxq");
        assert_eq!(
            path_source(Some(flag), Some(OsStr::new("b"))),
            PathSource::Flag
        );
        assert_eq!(path_source(None, Some(OsStr::new("b"))), PathSource::Env);
        assert_eq!(path_source(None, Some(OsStr::new(""))), PathSource::Default);
        assert_eq!(path_source(None, None), PathSource::Default);
    }

    #[test]
    fn vault_path_check_names_how_it_was_chosen() {
        let data = Path::new("/data/data/com.termux/files/home/.local/share");
        let p = data.join("nexusq/vault.nxq");
        let c = vault_path_check(Some(&p), PathSource::Default, Some(data));
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("the default"), "{c:?}");
        let c = vault_path_check(Some(&p), PathSource::Env, Some(data));
        assert!(c.detail.contains("NEXUSQ_VAULT"), "{c:?}");
        let c = vault_path_check(Some(Path::new("v.nxq")), PathSource::Flag, None);
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("from --vault, relative"), "{c:?}");
        assert_eq!(
            vault_path_check(None, PathSource::Default, None).status,
            Status::Error
        );
    }

    fn facts(file_mode: Option<u32>, folder_mode: Option<u32>) -> VaultFacts {
        VaultFacts {
            exists: file_mode.is_some(),
            is_file: file_mode.is_some(),
            file_mode,
            file_uid: file_mode.map(|_| 1000),
            folder_mode,
            len: 4096,
            head: vault::format::MAGIC.to_vec(),
            ..VaultFacts::default()
        }
    }

    #[test]
    fn permissions() {
        let p = Path::new("/home/u/.local/share/nexusq/vault.nxq");
        let ok = permissions_check(p, &facts(Some(0o600), Some(0o700)), 1000);
        assert_eq!(ok.status, Status::Ok, "{ok:?}");
        assert!(ok.hint.is_empty());

        let loose = permissions_check(p, &facts(Some(0o644), Some(0o700)), 1000);
        assert_eq!(loose.status, Status::Warn);
        assert!(
            loose
                .hint
                .contains("chmod 600 /home/u/.local/share/nexusq/vault.nxq")
        );

        let folder = permissions_check(p, &facts(Some(0o600), Some(0o755)), 1000);
        assert_eq!(folder.status, Status::Warn);
        assert!(
            folder
                .hint
                .contains("chmod 700 /home/u/.local/share/nexusq")
        );
        // Group/other search permission alone lets nobody list or change the folder.
        let x_only = permissions_check(p, &facts(Some(0o600), Some(0o711)), 1000);
        assert_eq!(x_only.status, Status::Ok);

        let foreign = permissions_check(p, &facts(Some(0o600), Some(0o700)), 0);
        assert_eq!(foreign.status, Status::Warn);
        assert!(foreign.detail.contains("uid 1000"));

        let missing = permissions_check(p, &facts(None, None), 1000);
        assert_eq!(missing.status, Status::Ok);
        assert!(missing.detail.contains("does not exist yet"));
    }

    #[test]
    fn vault_file_states() {
        let p = Path::new("/x/vault.nxq");
        assert_eq!(
            vault_file_check(p, &facts(Some(0o600), Some(0o700))).status,
            Status::Ok
        );
        let missing = vault_file_check(p, &facts(None, Some(0o700)));
        assert_eq!(missing.status, Status::Warn);
        assert!(missing.hint.contains("nexusq init"));
        let dir = VaultFacts {
            exists: true,
            is_file: false,
            ..VaultFacts::default()
        };
        assert_eq!(vault_file_check(p, &dir).status, Status::Error);
        let empty = VaultFacts {
            len: 0,
            head: Vec::new(),
            ..facts(Some(0o600), Some(0o700))
        };
        let c = vault_file_check(p, &empty);
        assert_eq!(c.status, Status::Error);
        assert!(c.detail.contains("is empty (0 bytes)"), "{c:?}");
        let foreign = VaultFacts {
            head: b"PK\x03\x04".to_vec(),
            ..facts(Some(0o600), Some(0o700))
        };
        let c = vault_file_check(p, &foreign);
        assert_eq!(c.status, Status::Error);
        assert!(c.detail.contains("not a nexusq vault"), "{c:?}");
    }

    #[test]
    fn links_and_statements_beside_the_vault() {
        let p = Path::new("/x/vault.nxq");
        let plain = facts(Some(0o600), Some(0o700));
        assert_eq!(vault_link_check(p, &plain).status, Status::Ok);
        assert_eq!(revocation_beside_check(p, &plain).status, Status::Ok);
        let linked = VaultFacts {
            link_target: Some(PathBuf::from("/y/real.nxq")),
            revocation_beside: vec![PathBuf::from("/y/real.nxq.revocation.asc")],
            ..plain
        };
        let c = vault_link_check(p, &linked);
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("/y/real.nxq"), "{c:?}");
        let c = revocation_beside_check(p, &linked);
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("rm /y/real.nxq.revocation.asc"), "{c:?}");
    }

    #[test]
    fn shared_storage_is_flagged_with_the_way_out() {
        let c = shared_storage_check(
            Path::new("/storage/emulated/0/nexusq/vault.nxq"),
            Some(Path::new("/data/data/com.termux/files/home/.local/share")),
        );
        assert_eq!(c.status, Status::Warn);
        assert!(c.detail.contains("--allow-shared-storage"));
        assert!(
            c.hint
                .contains("/data/data/com.termux/files/home/.local/share/nexusq/vault.nxq")
        );
        let dir = tempfile::tempdir().unwrap();
        let c = shared_storage_check(&dir.path().join("v.nxq"), None);
        assert_eq!(c.status, Status::Ok);
    }

    #[test]
    fn kdf_against_default_and_ram() {
        let c = kdf_check(Some(&KdfParams::DEFAULT), Some(4096 * MIB));
        assert_eq!(c.status, Status::Ok, "{c:?}");
        assert!(c.detail.contains("the default"));
        assert!(c.detail.contains("up to 2048 MiB"));

        let weak = KdfParams {
            memory_kib: 8 * 1024,
            iterations: 1,
            parallelism: 1,
        };
        let c = kdf_check(Some(&weak), Some(4096 * MIB));
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("vault passwd"));

        // 1 GiB of Argon2 memory on a 1.5 GiB phone: inside the 3/4 bound, but over half.
        let big = KdfParams {
            memory_kib: 1024 * 1024,
            ..KdfParams::DEFAULT
        };
        let c = kdf_check(Some(&big), Some(1536 * MIB));
        assert_eq!(c.status, Status::Warn, "{c:?}");
        assert!(c.detail.contains("more than half"));
        // Over the 3/4 bound on a 1 GiB phone.
        let c = kdf_check(Some(&big), Some(1024 * MIB));
        assert_eq!(c.status, Status::Error, "{c:?}");

        let c = kdf_check(None, Some(4096 * MIB));
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("no vault yet"));
    }

    #[test]
    fn timing_and_ram() {
        let p = KdfParams::DEFAULT;
        let c = timing_check(Duration::from_millis(250), "the default parameters", &p);
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("250 ms"));
        let c = timing_check(Duration::from_secs(30), "the vault's parameters", &p);
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("--calibrate-ms"));

        let c = ram_check(Some(1024 * MIB));
        assert!(c.detail.starts_with("1024 MiB"), "{c:?}");
        assert!(c.detail.contains("768 MiB"));
        assert_eq!(ram_check(None).status, Status::Warn);
    }

    #[test]
    fn termux_detection() {
        let termux = TermuxEnv {
            prefix: Some("/data/data/com.termux/files/usr".into()),
            termux_version: None,
        };
        assert!(termux.is_termux());
        assert!(
            platform_check("android", "aarch64", &termux)
                .detail
                .contains("Termux (PREFIX=/data/data/com.termux/files/usr)")
        );
        assert!(!TermuxEnv::default().is_termux());
        assert!(
            TermuxEnv {
                prefix: None,
                termux_version: Some("0.118.1".into())
            }
            .is_termux()
        );
    }

    #[test]
    fn cpu_features_and_native() {
        let phone = [
            ("aes", true),
            ("pmull", true),
            ("sha3", false),
            ("asimd", true),
        ];
        let c = cpu_check("aarch64", "Cortex-A72", &phone);
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("sha3 no"));
        let no_aes = [
            ("aes", false),
            ("pmull", false),
            ("sha3", false),
            ("asimd", true),
        ];
        let c = cpu_check("aarch64", "Cortex-A7", &no_aes);
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("aes and pmull"));
        assert_eq!(cpu_check("riscv64", "x", &[]).status, Status::Ok);

        let c = native_check("neon", &["portable", "neon"], Ok("rustcrypto"));
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("runs neon for ML-KEM and ML-DSA-65"));
        let c = native_check(
            "avx2",
            &["portable", "avx2"],
            Err((
                "the native backend is not available".into(),
                "unset it".into(),
            )),
        );
        assert_eq!(c.status, Status::Warn);
        assert_eq!(c.hint, "unset it");
    }

    #[test]
    fn terminal_situations() {
        let tty = TerminalFacts {
            stdin_tty: true,
            stderr_tty: true,
            dev_tty: true,
            no_color: false,
        };
        let c = terminal_check(&tty);
        assert_eq!(c.status, Status::Ok);
        assert!(c.detail.contains("colour: on"));
        assert!(c.hint.contains("--password-file"));
        let c = terminal_check(&TerminalFacts {
            no_color: true,
            ..tty.clone()
        });
        assert!(c.detail.contains("NO_COLOR"));
        let c = terminal_check(&TerminalFacts::default());
        assert_eq!(c.status, Status::Warn);
        assert!(c.hint.contains("--password-fd"));
        assert!(c.detail.contains("stderr is not a terminal"));
    }

    #[test]
    fn an_untrusted_contacts_book_is_an_error() {
        use nexusq_core::contacts::store::Loaded;
        let book = Path::new("contacts.nxq");
        let empty = Loaded {
            book: Default::default(),
            saved_at: 0,
            signed_by: 0,
        };
        assert_eq!(contacts_book_result(book, Ok(empty)).status, Status::Ok);
        let e = nexusq_core::error::Error::vault(
            "the contacts book contacts.nxq cannot be trusted as it is: …",
            "run `nexusq contacts recover`: …",
        );
        let c = contacts_book_result(book, Err(e));
        assert_eq!(c.status, Status::Error);
        assert!(c.hint.contains("contacts recover"), "{c:?}");
    }

    #[test]
    fn hardening_result() {
        assert_eq!(hardening_check(&[]).status, Status::Ok);
        let c = hardening_check(&["prctl(PR_SET_DUMPABLE, 0): EPERM".into()]);
        assert_eq!(c.status, Status::Warn);
        assert!(c.detail.contains("PR_SET_DUMPABLE"));
    }
}

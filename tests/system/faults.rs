//! Fault-injected saves and outputs (docs/robustness.md, "Fault-injected saves"): every file-system
//! step of every save made by `init`, `vault passwd` and `rotate`, and of every `-o` output of
//! `encrypt`, `decrypt`, `identity export` and `sign`, is made to fail, one at a time. The
//! vault must then unlock to exactly the old state or exactly the new one; an output must be
//! exactly the old file (or none) or the whole new one.
//!
//! The commands run in this process through `nexusq::cli::run`, the function the binary calls,
//! so the real code path runs (argument handling, lock, unlock, `vault::create` /
//! `change_password` / `rotate`, init's revocation statement, `cli::io`'s outputs).
//! `nexusq_core::fs::with_save_io` routes that thread's file writes through [`Injector`], which
//! counts the steps (create, each write(2), fsync, rename, folder fsync) and at step k either
//! - (a) returns an error: EIO, ENOSPC, or a short write followed by ENOSPC; or
//! - (b) "crashes": unwinds out of the save with `resume_unwind` (no panic hook, no message)
//!   before the step, after it, or half-way through a write. No cleanup code of the save runs,
//!   as with a killed process: destructors run (they close descriptors and release the flock,
//!   as the kernel would), but from the crash on the injector removes nothing. So a crash
//!   stands for SIGKILL or a power loss; SIGINT, SIGTERM and SIGHUP are handled and tested
//!   with the real binary in tests/cli/outputs.rs.
//!
//! A short write that the write loop must finish (no error) is tried at every write too.
//! For each command and fault kind, k = 0, 1, 2, ... until a run completes without reaching k.
//! Run: `cargo test --locked --test system -- faults:: --nocapture` for the table.

use crate::common::private_file;
use clap::Parser;
use nexusq::cli::args::Cli;
use nexusq::cli::error::Error;
use nexusq_core::error::ErrorKind;
use nexusq_core::fs::{RealIo, SaveIo, with_save_io};
use nexusq_core::identity::PublicIdentity;
use nexusq_core::identity::revocation::{self, Revocation};
use nexusq_core::secret::Password;
use nexusq_core::suite::rustcrypto::RustCrypto;
use nexusq_core::vault::{self, Argon2id, Unlocked};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;
use zeroize::Zeroizing;

const VAULT: &str = "v.nxq";
const PW_A: &str = "password A";
const PW_B: &str = "password B";
/// Small Argon2 parameters (8 MiB, one pass), as in tests/common.
const KDF: [&str; 4] = ["--kdf-memory-mib", "8", "--kdf-iterations", "1"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Create,
    Write,
    SyncFile,
    Rename,
    SyncFolder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    /// (a) the step fails with EIO.
    Eio,
    /// (a) the step fails with ENOSPC.
    Enospc,
    /// (a) a write accepts half its bytes; the next write fails with ENOSPC.
    ShortThenEnospc,
    /// Not a fault: a write accepts half its bytes, the rest goes through.
    Short,
    /// (b) the process dies before the step.
    CrashBefore,
    /// (b) the process dies half-way through a write (half the bytes are in the file).
    CrashMidWrite,
    /// (b) the process dies right after the step.
    CrashAfter,
}

const FAULTS: [Fault; 7] = [
    Fault::Eio,
    Fault::Enospc,
    Fault::ShortThenEnospc,
    Fault::Short,
    Fault::CrashBefore,
    Fault::CrashMidWrite,
    Fault::CrashAfter,
];

impl Fault {
    fn applies_to(self, step: Step) -> bool {
        match self {
            Fault::ShortThenEnospc | Fault::Short | Fault::CrashMidWrite => step == Step::Write,
            _ => true,
        }
    }

    fn is_crash(self) -> bool {
        matches!(
            self,
            Fault::CrashBefore | Fault::CrashMidWrite | Fault::CrashAfter
        )
    }

    fn name(self) -> &'static str {
        match self {
            Fault::Eio => "(a) EIO",
            Fault::Enospc => "(a) ENOSPC",
            Fault::ShortThenEnospc => "(a) short write, then ENOSPC",
            Fault::Short => "short write, rest accepted",
            Fault::CrashBefore => "(b) crash before the step",
            Fault::CrashMidWrite => "(b) crash mid-write",
            Fault::CrashAfter => "(b) crash after the step",
        }
    }
}

/// The unwind payload standing for a killed process.
struct Crash;

fn eio() -> io::Error {
    rustix::io::Errno::IO.into()
}

fn enospc() -> io::Error {
    rustix::io::Errno::NOSPC.into()
}

/// Counts the steps of the saves made on this thread and injects `fault` at step `target`.
/// It also records the bytes each file was given, to know exactly what a rename put in place.
/// Only the trial's files are its business: what nexusq writes elsewhere on the side (the
/// per-user record of which vault was last unlocked, `nexusq_core::vault::seen`, best effort
/// by design) goes straight to the file system, uncounted.
struct Injector {
    scope: PathBuf,
    target: Option<usize>,
    fault: Fault,
    next: Cell<usize>,
    reached: Cell<bool>,
    /// Crashed: a dead process removes nothing.
    dead: Cell<bool>,
    enospc_next_write: Cell<bool>,
    steps: RefCell<Vec<(Step, PathBuf)>>,
    written: RefCell<HashMap<PathBuf, Vec<u8>>>,
    renamed: RefCell<HashMap<PathBuf, Vec<u8>>>,
}

impl Injector {
    fn new(scope: &Path, target: Option<usize>, fault: Fault) -> Self {
        Injector {
            scope: scope.to_path_buf(),
            target,
            fault,
            next: Cell::new(0),
            reached: Cell::new(false),
            dead: Cell::new(false),
            enospc_next_write: Cell::new(false),
            steps: RefCell::default(),
            written: RefCell::default(),
            renamed: RefCell::default(),
        }
    }

    /// Is `path` outside the trial's folder, so not a step?
    fn aside(&self, path: &Path) -> bool {
        !path.starts_with(&self.scope)
    }

    /// Count a step; the fault to inject into it, if it is the target.
    fn step(&self, step: Step, path: &Path) -> Option<Fault> {
        let k = self.next.get();
        self.next.set(k + 1);
        self.steps.borrow_mut().push((step, path.to_path_buf()));
        if self.target == Some(k) {
            assert!(self.fault.applies_to(step), "{:?} at {step:?}", self.fault);
            self.reached.set(true);
            Some(self.fault)
        } else {
            None
        }
    }

    fn real_write(&self, file: &mut File, path: &Path, buf: &[u8]) -> io::Result<usize> {
        let n = RealIo.write(file, path, buf)?;
        self.written
            .borrow_mut()
            .entry(path.to_path_buf())
            .or_default()
            .extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn crash(&self) -> ! {
        self.dead.set(true);
        std::panic::resume_unwind(Box::new(Crash))
    }

    /// The error an (a) fault returns; crashes unwind here.
    fn fail(&self, fault: Fault) -> io::Error {
        match fault {
            Fault::Eio => eio(),
            Fault::Enospc => enospc(),
            Fault::CrashBefore => self.crash(),
            other => unreachable!("{other:?} is handled by the step"),
        }
    }
}

impl SaveIo for Injector {
    fn create_new(&self, path: &Path, mode: u32) -> io::Result<File> {
        if self.aside(path) {
            return RealIo.create_new(path, mode);
        }
        let fault = self.step(Step::Create, path);
        match fault {
            None | Some(Fault::CrashAfter) => {
                let f = RealIo.create_new(path, mode)?;
                self.written
                    .borrow_mut()
                    .insert(path.to_path_buf(), Vec::new());
                if fault.is_some() {
                    self.crash();
                }
                Ok(f)
            }
            Some(f) => Err(self.fail(f)),
        }
    }

    fn write(&self, file: &mut File, path: &Path, buf: &[u8]) -> io::Result<usize> {
        if self.aside(path) {
            return RealIo.write(file, path, buf);
        }
        let fault = self.step(Step::Write, path);
        if self.enospc_next_write.replace(false) {
            return Err(enospc());
        }
        let half = buf.len().div_ceil(2);
        match fault {
            None => self.real_write(file, path, buf),
            Some(Fault::Short) => self.real_write(file, path, &buf[..half]),
            Some(Fault::ShortThenEnospc) => {
                self.enospc_next_write.set(true);
                self.real_write(file, path, &buf[..half])
            }
            Some(Fault::CrashMidWrite) => {
                self.real_write(file, path, &buf[..half])?;
                self.crash()
            }
            Some(Fault::CrashAfter) => {
                self.real_write(file, path, buf)?;
                self.crash()
            }
            Some(f) => Err(self.fail(f)),
        }
    }

    fn sync_file(&self, file: &File, path: &Path) -> io::Result<()> {
        if self.aside(path) {
            return RealIo.sync_file(file, path);
        }
        match self.step(Step::SyncFile, path) {
            None => RealIo.sync_file(file, path),
            Some(Fault::CrashAfter) => {
                RealIo.sync_file(file, path)?;
                self.crash()
            }
            Some(f) => Err(self.fail(f)),
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        if self.aside(to) {
            return RealIo.rename(from, to);
        }
        let fault = self.step(Step::Rename, to);
        match fault {
            None | Some(Fault::CrashAfter) => {
                RealIo.rename(from, to)?;
                let bytes = self.written.borrow()[from].clone();
                self.renamed.borrow_mut().insert(to.to_path_buf(), bytes);
                if fault.is_some() {
                    self.crash();
                }
                Ok(())
            }
            Some(f) => Err(self.fail(f)),
        }
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        // Cleanup, not a step: never faulted, and not done by a process that died.
        if self.dead.get() {
            return Ok(());
        }
        RealIo.remove_file(path)
    }

    fn sync_folder(&self, folder: &Path) -> io::Result<()> {
        if self.aside(folder) {
            return RealIo.sync_folder(folder);
        }
        match self.step(Step::SyncFolder, folder) {
            None => RealIo.sync_folder(folder),
            Some(Fault::CrashAfter) => {
                RealIo.sync_folder(folder)?;
                self.crash()
            }
            Some(f) => Err(self.fail(f)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Command {
    Init,
    Passwd,
    Rotate,
    Encrypt,
    Decrypt,
    Export,
    Sign,
}

const COMMANDS: [Command; 7] = [
    Command::Init,
    Command::Passwd,
    Command::Rotate,
    Command::Encrypt,
    Command::Decrypt,
    Command::Export,
    Command::Sign,
];

impl Command {
    fn name(self) -> &'static str {
        match self {
            Command::Init => "init",
            Command::Passwd => "vault passwd",
            Command::Rotate => "rotate",
            Command::Encrypt => "encrypt -o",
            Command::Decrypt => "decrypt -o",
            Command::Export => "identity export -o",
            Command::Sign => "sign -o",
        }
    }

    /// Writes an `-o` output (the vault is only read).
    fn is_output(self) -> bool {
        matches!(
            self,
            Command::Encrypt | Command::Decrypt | Command::Export | Command::Sign
        )
    }

    /// Its output replaces an existing file (the others create a new one).
    fn replaces_output(self) -> bool {
        matches!(self, Command::Encrypt | Command::Decrypt)
    }
}

/// The output file's name, in `out/`.
const OUT: &str = "out";
/// What an existing output holds before `encrypt -o` / `decrypt -o` replace it.
const OLD_OUTPUT: &[u8] = b"the old output, which must stay whole\n";

/// Inputs for the output commands, made once from the base vault: its export, a plaintext of
/// three chunks (several write(2) calls), and that plaintext encrypted to the vault.
struct Fixture {
    export: Vec<u8>,
    plain: Vec<u8>,
    cipher: Vec<u8>,
}

/// One trial's folder: `vault/` holds only the vault and what nexusq puts beside it, so
/// leftovers are easy to see; `out/` likewise for outputs; `pw/` the password files and the
/// output commands' inputs.
struct Trial {
    dir: tempfile::TempDir,
    folder: PathBuf,
    vault: PathBuf,
    pw: PathBuf,
    out: PathBuf,
}

impl Trial {
    fn new(old_vault: Option<&[u8]>) -> Trial {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("vault");
        let pw = dir.path().join("pw");
        let out = dir.path().join("out");
        std::fs::create_dir(&folder).unwrap();
        std::fs::create_dir(&pw).unwrap();
        std::fs::create_dir(&out).unwrap();
        private_file(&pw.join("A"), format!("{PW_A}\n"));
        private_file(&pw.join("B"), format!("{PW_B}\n"));
        let vault = folder.join(VAULT);
        if let Some(bytes) = old_vault {
            private_file(&vault, bytes);
        }
        Trial {
            dir,
            folder,
            vault,
            pw,
            out,
        }
    }

    /// A trial for an output command: the base vault, the fixture's files in `pw/`, and for
    /// a command that replaces its output, the old output in `out/`.
    fn for_output(cmd: Command, old: &Old, fixture: &Fixture) -> Trial {
        let t = Trial::new(Some(&old.bytes));
        std::fs::write(t.pw.join("me.asc"), &fixture.export).unwrap();
        std::fs::write(t.pw.join("plain"), &fixture.plain).unwrap();
        std::fs::write(t.pw.join("cipher"), &fixture.cipher).unwrap();
        if cmd.replaces_output() {
            std::fs::write(t.output(), OLD_OUTPUT).unwrap();
        }
        t
    }

    fn output(&self) -> PathBuf {
        self.out.join(OUT)
    }

    fn out_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn out_temp_files(&self) -> usize {
        self.out_names()
            .iter()
            .filter(|n| n.starts_with(&format!("{OUT}.tmp.")))
            .count()
    }

    fn revocation(&self) -> PathBuf {
        self.folder.join(format!("{VAULT}.revocation.asc"))
    }

    /// `nexusq --vault <vault> --backend native <args>`, in this process. What is tested is
    /// every save step's failure, thousands of runs: the native backend makes the same bytes
    /// (the checks below read them with RustCrypto) with a tenth of RustCrypto's SLH-DSA time.
    fn run(&self, args: &[&str]) -> Result<(), Error> {
        let mut argv: Vec<OsString> = vec!["nexusq".into(), "--vault".into()];
        argv.push(self.vault.clone().into());
        argv.extend(["--backend", "native"].map(OsString::from));
        for a in args {
            // "@A" names the file A in pw/, "%" the output.
            match (a.strip_prefix('@'), *a) {
                (Some(name), _) => argv.push(self.pw.join(name).into()),
                (None, "%") => argv.push(self.output().into()),
                (None, _) => argv.push(a.into()),
            }
        }
        nexusq::cli::run(Cli::try_parse_from(argv).expect("valid arguments"))
    }

    /// Run `cmd` normally: from password `from` (passwd: to `to`).
    fn command(&self, cmd: Command, from: &str, to: &str) -> Result<(), Error> {
        match cmd {
            Command::Init => {
                let mut a = vec!["init", "--password-file", from];
                a.extend(KDF);
                self.run(&a)
            }
            Command::Passwd => {
                let mut a = vec!["vault", "passwd", "--password-file", from];
                a.extend(["--new-password-file", to]);
                a.extend(KDF);
                self.run(&a)
            }
            Command::Rotate => self.run(&["rotate", "--password-file", from, "--reason", "fault"]),
            Command::Encrypt => self.run(&["encrypt", "--to", "@me.asc", "-o", "%", "@plain"]),
            Command::Decrypt => {
                self.run(&["decrypt", "--password-file", from, "-o", "%", "@cipher"])
            }
            Command::Export => self.run(&["identity", "export", "-o", "%"]),
            Command::Sign => self.run(&["sign", "--password-file", from, "-o", "%", "@plain"]),
        }
    }

    /// Is `bytes` a whole, correct output of `cmd`? Checked with the real commands.
    fn output_is_whole(&self, cmd: Command, bytes: &[u8], fixture: &Fixture) -> Result<(), String> {
        let check = self.pw.join("check");
        std::fs::write(&check, bytes).unwrap();
        let c = check.to_str().unwrap();
        let result = match cmd {
            Command::Encrypt => {
                let back = self.pw.join("decrypted");
                let _ = std::fs::remove_file(&back);
                self.run(&[
                    "decrypt",
                    "--password-file",
                    "@A",
                    "-o",
                    back.to_str().unwrap(),
                    c,
                ])
                .map_err(|e| format!("the output does not decrypt: {e}"))
                .and_then(|()| {
                    (std::fs::read(&back).unwrap() == fixture.plain)
                        .then_some(())
                        .ok_or_else(|| "it decrypts to something else".into())
                })
            }
            Command::Decrypt => (bytes == fixture.plain)
                .then_some(())
                .ok_or_else(|| "not the plaintext".into()),
            Command::Export => (bytes == fixture.export)
                .then_some(())
                .ok_or_else(|| "not the export".into()),
            Command::Sign => self
                .run(&["verify", "--sig", c, "@plain"])
                .map_err(|e| format!("the signature does not verify: {e}")),
            _ => unreachable!(),
        };
        std::fs::remove_file(&check).unwrap();
        result
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn temp_files(&self) -> usize {
        self.names()
            .iter()
            .filter(|n| n.starts_with(&format!("{VAULT}.tmp.")))
            .count()
    }
}

fn password(text: &str) -> Password {
    Password::new(Zeroizing::new(text.to_string()))
}

/// Unlock the vault at `path` with `pw`, root seed included.
fn unlock(path: &Path, pw: &str) -> Result<Unlocked, Error> {
    let u = vault::open(path)?.unlock(&password(pw), &Argon2id, &RustCrypto)?;
    u.root(&RustCrypto)?;
    Ok(u)
}

/// What a vault holds, to compare states: the public identity and the secret seeds.
#[derive(PartialEq, Eq, Debug)]
struct Contents {
    public: Vec<u8>,
    secrets: Vec<u8>,
    generations: usize,
}

fn contents(u: &Unlocked) -> Contents {
    Contents {
        public: u.file.public.encode(),
        secrets: u.secrets.encode().to_vec(),
        generations: u.file.public.certificates.len(),
    }
}

/// The vault every passwd and rotate trial starts from (password A).
struct Old {
    bytes: Vec<u8>,
    contents: Contents,
    public: PublicIdentity,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Old,
    New,
}

/// Decide whether the vault on disk is exactly the old state or exactly the new one.
fn classify(cmd: Command, t: &Trial, old: Option<&Old>, inj: &Injector) -> Result<State, String> {
    let on_disk = match std::fs::read(&t.vault) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read the vault: {e}")),
    };
    let landed = inj.renamed.borrow().get(&t.vault).cloned();
    match (cmd, on_disk) {
        (Command::Init, None) => Ok(State::Old),
        (_, None) => Err("the vault is gone".into()),
        (Command::Init, Some(bytes)) => {
            if Some(&bytes) != landed.as_ref() {
                return Err("the vault is not the file init wrote".into());
            }
            let u = unlock(&t.vault, PW_A).map_err(|e| format!("new vault: {e}"))?;
            if u.file.public.certificates.len() != 1 {
                return Err("a new vault without exactly one generation".into());
            }
            // A vault must never exist without its revocation statement, whole.
            let text = std::fs::read(t.revocation())
                .map_err(|e| format!("the vault exists but its revocation statement: {e}"))?;
            let der = nexusq_core::format::armor::decode(revocation::ARMOR_KIND, &text)
                .map_err(|e| format!("revocation statement: {e:?}"))?;
            let rev = Revocation::decode(&der).map_err(|e| format!("revocation: {e:?}"))?;
            if !rev.verify(&RustCrypto, &u.file.public.root_pk) {
                return Err("the revocation statement is not for this vault".into());
            }
            Ok(State::New)
        }
        (_, Some(bytes)) => {
            let old = old.expect("old state");
            if bytes == old.bytes {
                let u = unlock(&t.vault, PW_A).map_err(|e| format!("old vault: {e}"))?;
                if contents(&u) != old.contents {
                    return Err("the old bytes unlock to other contents".into());
                }
                return Ok(State::Old);
            }
            if Some(&bytes) != landed.as_ref() {
                return Err("the vault is neither the old file nor the new one".into());
            }
            let new_pw = if cmd == Command::Passwd { PW_B } else { PW_A };
            let u = unlock(&t.vault, new_pw).map_err(|e| format!("new vault: {e}"))?;
            let c = contents(&u);
            let ok = match cmd {
                Command::Passwd => c == old.contents && unlock(&t.vault, PW_A).is_err(),
                _ => {
                    let (now, before) = (&u.file.public, &old.public);
                    c.generations == old.contents.generations + 1
                        && now.certificates[..before.certificates.len()] == before.certificates[..]
                        && now.root_pk == before.root_pk
                }
            };
            if !ok {
                return Err("the new vault does not hold the expected contents".into());
            }
            Ok(State::New)
        }
    }
}

/// Decide whether the output on disk is exactly the old one (or none) or the whole new one.
fn classify_output(
    cmd: Command,
    t: &Trial,
    old: &Old,
    inj: &Injector,
    fixture: &Fixture,
) -> Result<State, String> {
    if std::fs::read(&t.vault).ok().as_deref() != Some(&old.bytes[..]) {
        return Err("the vault changed".into());
    }
    let on_disk = match std::fs::read(t.output()) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read the output: {e}")),
    };
    let before = cmd.replaces_output().then_some(OLD_OUTPUT);
    match on_disk {
        None if before.is_none() => Ok(State::Old),
        None => Err("the old output is gone".into()),
        Some(b) if Some(&b[..]) == before => Ok(State::Old),
        Some(b) => {
            if Some(&b) != inj.renamed.borrow().get(&t.output()) {
                return Err("the output is neither the old file nor the new one".into());
            }
            t.output_is_whole(cmd, &b, fixture)?;
            Ok(State::New)
        }
    }
}

/// One row of the summary.
#[derive(Default)]
struct Tally {
    injected: usize,
    errors: usize,
    old: usize,
    new: usize,
    losses: usize,
    leftover_temps: usize,
    orphan_revocations: usize,
    reruns_ok: usize,
}

/// One fault at step `k`. Returns false when the save completed without reaching `k`.
fn trial(
    cmd: Command,
    fault: Fault,
    k: usize,
    old: Option<&Old>,
    fixture: &Fixture,
    tally: &mut Tally,
    failures: &mut Vec<String>,
) -> bool {
    let t = new_trial(cmd, old, fixture);
    let inj = Rc::new(Injector::new(t.dir.path(), Some(k), fault));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        with_save_io(inj.clone(), || t.command(cmd, "@A", "@B"))
    }));
    let result = match outcome {
        Ok(r) => Some(r),
        Err(payload) if payload.is::<Crash>() => None,
        Err(payload) => std::panic::resume_unwind(payload),
    };
    if !inj.reached.get() {
        assert!(result.expect("no crash without a fault").is_ok());
        return false;
    }
    tally.injected += 1;
    let (step, path) = inj.steps.borrow()[k].clone();
    let at = format!(
        "{} / {} at step {k} ({step:?} {})",
        cmd.name(),
        fault.name(),
        path.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut fail = |why: String| failures.push(format!("{at}: {why}"));

    let classified = if cmd.is_output() {
        classify_output(cmd, &t, old.expect("base vault"), &inj, fixture)
    } else {
        classify(cmd, &t, old, &inj)
    };
    let state = match classified {
        Ok(s) => s,
        Err(why) => {
            tally.losses += 1;
            fail(format!("LOSS: {why}"));
            return true;
        }
    };
    match state {
        State::Old => tally.old += 1,
        State::New => tally.new += 1,
    }

    // What the command reported.
    match (&result, fault) {
        (None, _) => assert!(fault.is_crash()),
        (Some(Ok(())), Fault::Short) if state == State::New => {}
        (Some(Ok(())), _) => fail("no error reported, or the wrong state".into()),
        (Some(Err(_)), Fault::Short) => fail("a short write made the save fail".into()),
        (Some(Err(e)), _) => {
            tally.errors += 1;
            let os = if fault == Fault::Eio {
                "Input/output error"
            } else {
                "No space left on device"
            };
            let msg = e.message();
            if e.kind() != ErrorKind::Io {
                fail(format!("exit class {:?}, not Io (5)", e.kind()));
            }
            let folder = if cmd.is_output() { &t.out } else { &t.folder };
            if !msg.contains(os) || !msg.contains(&*folder.to_string_lossy()) {
                fail(format!("unclear message: {msg}"));
            }
            // Only an error after the rename leaves the new file, and it must say so.
            if msg.contains("is in place") != (state == State::New) {
                fail(format!("message does not match the state: {msg}"));
            }
            if fault != Fault::Eio && !e.hint().contains("free some space") && state == State::Old {
                fail(format!("ENOSPC without the free-space hint: {}", e.hint()));
            }
        }
    }

    // Leftovers: none after an error; after a crash a temp file (or init's revocation
    // statement without a vault) may remain, and must not disturb what follows; the next
    // save removes the temp file.
    let temps = if cmd.is_output() {
        t.out_temp_files()
    } else {
        t.temp_files()
    };
    tally.leftover_temps += temps;
    let orphan = cmd == Command::Init && state == State::Old && t.revocation().exists();
    if !fault.is_crash() && (temps > 0 || orphan) {
        fail(format!(
            "left behind after an error: {:?} {:?}",
            t.names(),
            t.out_names()
        ));
    }

    // A second, normal run.
    let rerun = match (cmd, state) {
        (Command::Encrypt | Command::Decrypt | Command::Export | Command::Sign, _) => {
            t.command(cmd, "@A", "@B").and_then(|()| {
                let bytes = std::fs::read(t.output()).unwrap_or_default();
                t.output_is_whole(cmd, &bytes, fixture)
                    .map_err(|why| Error::check(why, ""))
            })
        }
        (Command::Init, State::Old) => {
            if orphan {
                tally.orphan_revocations += 1;
                // init refuses to overwrite a revocation statement; the message says what to do.
                match t.command(cmd, "@A", "@B") {
                    Err(e)
                        if e.kind() == ErrorKind::Usage && e.message().contains("revocation") => {}
                    other => fail(format!("rerun with an orphan statement: {other:?}")),
                }
                std::fs::remove_file(t.revocation()).unwrap();
            }
            t.command(cmd, "@A", "@B")
                .and_then(|()| unlock(&t.vault, PW_A).map(drop))
        }
        // init must refuse to overwrite the vault it made; the vault must open normally.
        (Command::Init, State::New) => match t.command(cmd, "@A", "@B") {
            Err(e) if e.kind() == ErrorKind::Usage => {
                t.run(&["vault", "unlock", "--password-file", "@A"])
            }
            other => Err(Error::usage(format!("init over a vault: {other:?}"), "")),
        },
        (Command::Passwd, State::Old) => t
            .command(cmd, "@A", "@B")
            .and_then(|()| unlock(&t.vault, PW_B).map(drop)),
        (Command::Passwd, State::New) => t
            .command(cmd, "@B", "@A")
            .and_then(|()| unlock(&t.vault, PW_A).map(drop)),
        (Command::Rotate, s) => {
            let expect = old.unwrap().contents.generations + 1 + usize::from(s == State::New);
            t.command(cmd, "@A", "@B").and_then(|()| {
                let n = unlock(&t.vault, PW_A)?.file.public.certificates.len();
                if n == expect {
                    Ok(())
                } else {
                    Err(Error::vault(format!("{n} generations, not {expect}"), ""))
                }
            })
        }
    };
    match rerun {
        Ok(()) => tally.reruns_ok += 1,
        Err(e) => fail(format!("the second run failed: {e}")),
    }
    // A second run that saves removes what killed saves left (a leftover is a vault sealed
    // under the password of its time); one that saves nothing (init over the vault it made)
    // leaves them.
    // An output's second run leaves what a killed run left: it cannot tell another writer's
    // live temporary file from a dead one's (the vault's writers can: they hold the lock).
    let saved = !(cmd.is_output() || cmd == Command::Init && state == State::New);
    let expected_temps = if saved { 0 } else { temps };
    let now = if cmd.is_output() {
        t.out_temp_files()
    } else {
        t.temp_files()
    };
    if now != expected_temps {
        fail(format!(
            "{now} leftover temp files after the second run, expected {expected_temps}"
        ));
    }
    true
}

fn new_trial(cmd: Command, old: Option<&Old>, fixture: &Fixture) -> Trial {
    if cmd.is_output() {
        Trial::for_output(cmd, old.expect("base vault"), fixture)
    } else {
        Trial::new(old.map(|o| o.bytes.as_slice()))
    }
}

/// Every fault kind at every step k of `cmd`'s saves: the steps, a tally per fault kind and
/// the failures.
fn enumerate(
    cmd: Command,
    old: Option<&Old>,
    fixture: &Fixture,
) -> (Command, Vec<Step>, BTreeMap<Fault, Tally>, Vec<String>) {
    // A dry run lists the steps, so faults that only apply to writes skip the others.
    let dry = new_trial(cmd, old, fixture);
    let inj = Rc::new(Injector::new(dry.dir.path(), None, Fault::Eio));
    with_save_io(inj.clone(), || dry.command(cmd, "@A", "@B")).unwrap();
    let steps: Vec<Step> = inj.steps.borrow().iter().map(|s| s.0).collect();
    let mut tallies = BTreeMap::new();
    let mut failures = Vec::new();
    for fault in FAULTS {
        let tally = tallies.entry(fault).or_default();
        for k in 0.. {
            if steps.get(k).is_some_and(|s| !fault.applies_to(*s)) {
                continue;
            }
            // The number of steps does not depend on the fault kind: one run past the last
            // step (for the first kind) shows the save completes without reaching it.
            if k == steps.len() && fault != FAULTS[0] {
                break;
            }
            if !trial(cmd, fault, k, old, fixture, tally, &mut failures) {
                assert_eq!(
                    k,
                    steps.len(),
                    "{} has a different number of steps",
                    cmd.name()
                );
                break;
            }
        }
    }
    (cmd, steps, tallies, failures)
}

#[test]
fn every_fault_in_every_save_and_output_leaves_the_old_or_the_new_file() {
    let start = Instant::now();
    // The vault passwd and rotate start from: made by init, without faults.
    let base = Trial::new(None);
    base.command(Command::Init, "@A", "@B").unwrap();
    let bytes = std::fs::read(&base.vault).unwrap();
    let u = unlock(&base.vault, PW_A).unwrap();
    let old = Old {
        contents: contents(&u),
        public: u.file.public.clone(),
        bytes,
    };
    // The output commands' inputs: the vault's export, a plaintext of three 64 KiB chunks
    // (the last one short) and its encryption to the vault.
    base.command(Command::Export, "@A", "@B").unwrap();
    let export = std::fs::read(base.output()).unwrap();
    let plain: Vec<u8> = (0..2 * 65536 + 1000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(base.pw.join("me.asc"), &export).unwrap();
    std::fs::write(base.pw.join("plain"), &plain).unwrap();
    std::fs::remove_file(base.output()).unwrap();
    base.command(Command::Encrypt, "@A", "@B").unwrap();
    let cipher = std::fs::read(base.output()).unwrap();
    let fixture = Fixture {
        export,
        plain,
        cipher,
    };

    // One thread per command (the injector is per thread), to keep the test near 30 s.
    let results: Vec<_> = std::thread::scope(|scope| {
        let (old, fixture) = (&old, &fixture);
        let handles: Vec<_> = COMMANDS
            .map(|cmd| {
                scope.spawn(move || enumerate(cmd, (cmd != Command::Init).then_some(old), fixture))
            })
            .into_iter()
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut table: BTreeMap<(Command, Fault), Tally> = BTreeMap::new();
    let mut steps_per_save = Vec::new();
    let mut failures = Vec::new();
    for (cmd, steps, tallies, mut f) in results {
        steps_per_save.push((cmd, steps));
        table.extend(tallies.into_iter().map(|(fault, t)| ((cmd, fault), t)));
        failures.append(&mut f);
    }

    println!("\nSteps counted per command (create, write(2), fsync, rename, folder fsync):");
    for (cmd, steps) in &steps_per_save {
        println!("  {:<18} {} steps: {steps:?}", cmd.name(), steps.len());
    }
    println!(
        "\n| command | fault | injected | error reported | old state | new state | LOSSES | temp files left | orphan revocation | second run ok |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    let mut total = Tally::default();
    for ((cmd, fault), t) in &table {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cmd.name(),
            fault.name(),
            t.injected,
            t.errors,
            t.old,
            t.new,
            t.losses,
            t.leftover_temps,
            t.orphan_revocations,
            t.reruns_ok
        );
        total.injected += t.injected;
        total.errors += t.errors;
        total.old += t.old;
        total.new += t.new;
        total.losses += t.losses;
        total.leftover_temps += t.leftover_temps;
        total.orphan_revocations += t.orphan_revocations;
        total.reruns_ok += t.reruns_ok;
    }
    println!(
        "| **all** | | **{}** | {} | {} | {} | **{}** | {} | {} | {} |",
        total.injected,
        total.errors,
        total.old,
        total.new,
        total.losses,
        total.leftover_temps,
        total.orphan_revocations,
        total.reruns_ok
    );
    println!("\n{:.1} s", start.elapsed().as_secs_f64());
    assert_eq!(total.losses, 0, "{failures:#?}");
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(total.reruns_ok, total.injected);
    assert_eq!(total.old + total.new, total.injected);
}

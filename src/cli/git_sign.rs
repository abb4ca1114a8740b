//! `nexusq-git-sign`, the program git runs as `gpg.x509.program` to sign and verify commits
//! and tags with compact nexusq signatures (README "Sign your git commits"; the protocol is
//! `nexusq_core::gitsign`).
//!
//! Signing unlocks the vault (`$NEXUSQ_VAULT` or the default) whose fingerprint is git's
//! `user.signingkey`; the password comes from [`signing_password`]. Verifying knows the
//! identity of that vault and the contacts in its book (`$NEXUSQ_CONTACTS`, else beside the
//! vault): TRUST_FULLY for one's own and for verified contacts, TRUST_UNDEFINED for unverified
//! ones. A signature by anyone else cannot be checked here (ERRSIG), since a compact signature
//! needs the signer's certificate: `nexusq contacts add` them first.

use super::error::{Error, Result};
use super::password;
use nexusq_core::callbacks::{Callbacks, Note};
use nexusq_core::gitsign::{self, Invocation, Outcome};
use nexusq_core::identity::Fingerprint;
use nexusq_core::identity::signature::{self, Refusal, Signature};
use nexusq_core::secret::Password;
use nexusq_core::session::{AgentUse, KeySource};
use nexusq_core::suite::Backend;
use nexusq_core::{Policy, Trusted, Verifier};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

const NAME: &str = "nexusq-git-sign";

const USAGE: &str = "nexusq-git-sign: git's signing program for nexusq; git runs it, not you.\n\
    Set it up in a repository (or with --global):\n\
    \x20 git config gpg.format x509\n\
    \x20 git config gpg.x509.program nexusq-git-sign\n\
    \x20 git config user.signingkey <your fingerprint>   (nexusq vault open)\n\
    then `git commit -S`, `git tag -s`, `git verify-commit`, `git log --show-signature`.\n\
    To verify only, gpg.x509.program is enough; `nexusq doctor --git` checks the settings.\n\
    Environment: NEXUSQ_VAULT (the vault), NEXUSQ_PASSWORD_FILE (password file for scripts;\n\
    otherwise the password is asked on the terminal), NEXUSQ_NO_AGENT=1 (never ask the key\n\
    agent), NEXUSQ_BACKEND (rustcrypto or native).";

fn report(e: &Error) {
    eprintln!(
        "{NAME}: error: {}",
        nexusq_core::untrusted::scrub(e.message())
    );
    if !e.hint().is_empty() {
        eprintln!("{NAME}: hint: {}", nexusq_core::untrusted::scrub(e.hint()));
    }
}

/// The program's main: the exit code.
pub fn main(args: &[OsString]) -> i32 {
    let invocation = match gitsign::parse_args(args) {
        Ok(i) => i,
        Err(why) => {
            eprintln!("{NAME}: {}\n{USAGE}", nexusq_core::untrusted::escape(&why));
            return 2;
        }
    };
    let result = match invocation {
        Invocation::Version => {
            println!("{NAME} {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        Invocation::Help => {
            println!("{USAGE}");
            return 0;
        }
        Invocation::Sign { status_fd, key } => sign(status_fd, &key),
        Invocation::Verify {
            status_fd,
            sig_file,
        } => verify(status_fd, &sig_file),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            report(&e);
            e.exit().code()
        }
    }
}

fn backend() -> Result<&'static dyn Backend> {
    let env = std::env::var("NEXUSQ_BACKEND").ok();
    Ok(super::context::backend_choice(None, env.as_deref())?.backend()?)
}

fn vault_path() -> Result<PathBuf> {
    super::vault_path::resolve(None).ok_or_else(|| {
        Error::usage(
            "cannot tell where the vault lives: no NEXUSQ_VAULT and no home folder",
            "set NEXUSQ_VAULT to your vault's path",
        )
    })
}

/// Write status lines to the descriptor git named: 1 and 2 directly, any other through
/// /proc/self/fd (no unsafe code needed).
fn write_status(fd: u32, text: &str) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::io(
            format!("cannot write the status to file descriptor {fd}: {e}"),
            "git passes --status-fd itself; run nexusq-git-sign through git",
        )
    };
    match fd {
        1 => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(fail)
        }
        2 => std::io::stderr().write_all(text.as_bytes()).map_err(fail),
        n => std::fs::OpenOptions::new()
            .write(true)
            .open(format!("/proc/self/fd/{n}"))
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(fail),
    }
}

/// SHA-512 of git's payload on stdin, in constant memory.
fn payload_digest() -> Result<[u8; 64]> {
    signature::digest_reader(std::io::stdin().lock()).map_err(|e| {
        Error::io(
            format!("cannot read git's payload from stdin: {e}"),
            "run nexusq-git-sign through git",
        )
    })
}

/// The password for signing (when no agent answered): the file named by
/// `$NEXUSQ_PASSWORD_FILE`, else the terminal (`/dev/tty`, since git holds stdin and stdout).
/// Neither: a clean refusal.
fn signing_password(vault: &Path) -> Result<Password> {
    if let Some(file) = password::env_password_file() {
        return password::read_env_password_file(&file, |w| eprintln!("{NAME}: warning: {w}"));
    }
    let hint = "start the key agent first (`nexusq agent start`), run git from a terminal, or \
                set NEXUSQ_PASSWORD_FILE to a file (mode 0600) holding the password";
    if !password::has_terminal() {
        return Err(Error::usage(
            format!(
                "no password for the vault {}: no key agent serves it, NEXUSQ_PASSWORD_FILE is \
                 not set and there is no terminal to ask on",
                super::output::untrusted_path(vault)
            ),
            hint,
        ));
    }
    // Inside `git commit -S` a bare "Password:" reads like git's or ssh's: say whose.
    let label = format!("nexusq password for {}", password::shown_path(vault));
    Ok(
        password::read_labelled(&password::Source::Terminal, "password", &label, false, hint)?
            .password,
    )
}

/// What signing asks of the user: the password (see [`signing_password`]), and notes on
/// stderr, where git shows them.
struct GitPrompt;

impl Callbacks for GitPrompt {
    fn request_password(&self, vault: &Path) -> nexusq_core::Result<Password> {
        Ok(signing_password(vault)?)
    }

    fn note(&self, note: &Note) {
        eprintln!("{NAME}: {note}");
    }

    fn unlocked(&self, vault: &Path, public: &nexusq_core::identity::PublicIdentity) {
        nexusq_core::vault::seen::remember_here(vault, public);
    }
}

/// `--status-fd=N -bsau KEY`: a compact signature of stdin on stdout, SIG_CREATED on N.
fn sign(status_fd: u32, key: &str) -> Result<i32> {
    let expected = Fingerprint::parse(key).ok_or_else(|| {
        Error::usage(
            format!(
                "git's signing key \"{}\" is not a nexusq fingerprint",
                nexusq_core::untrusted::escape(key)
            ),
            "set it to your fingerprint (`nexusq vault open` shows it): \
             git config user.signingkey <fingerprint>",
        )
    })?;
    let backend = backend()?;
    let path = vault_path()?;
    // The running agent first (only the digest crosses its socket), else the password.
    let agent = if super::age_plugin::no_agent_env() {
        AgentUse::Never
    } else {
        AgentUse::IfRunning
    };
    let mut key = KeySource::open(&path, backend, agent, &GitPrompt)?;
    let own = key.public().root_id();
    if !expected.matches(&own) {
        return Err(Error::usage(
            format!(
                "the vault {} holds identity {}, not git's signing key {expected}",
                super::output::untrusted_path(&path),
                own.fingerprint()
            ),
            "set NEXUSQ_VAULT to the vault of that identity, or git config user.signingkey \
             to this vault's fingerprint",
        ));
    }
    // As `nexusq sign` refuses, without a way to force it: others refuse a revoked
    // identity's signatures, and a commit signed by one would look fine here.
    key.may_sign(&Policy::default()).map_err(|e| {
        let hint = "make a new identity, in a new vault at another path, and set git's \
                    user.signingkey to its fingerprint";
        Error::check(e.message(), hint)
    })?;
    for failure in super::hardening::harden_process() {
        eprintln!("{NAME}: warning: could not harden the process: {failure}");
    }
    let digest = payload_digest()?;
    let sig = Signature::Compact(
        key.sign(
            &digest,
            nexusq_core::time::now(),
            &Policy::default(),
            &GitPrompt,
        )?
        .compact(),
    );
    drop(key);
    let signed_at = sig.signed_at();
    let text = gitsign::armor(&sig);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| {
            Error::io(
                format!("cannot write the signature to git: {e}"),
                "run nexusq-git-sign through git",
            )
        })?;
    drop(out);
    write_status(
        status_fd,
        &gitsign::sig_created(signed_at, &expected.to_string()),
    )?;
    Ok(0)
}

/// The identities whose signatures can be checked here (`nexusq_core::Verifier`): this
/// vault's own and the book's contacts; verified contacts and the own identity are fully
/// trusted (TRUST_FULLY), contacts added with `--yes` and not verified since are known but not
/// trusted (TRUST_UNDEFINED). A contacts book that cannot be trusted is left out with a
/// warning: one's own signatures still verify.
fn verifier(backend: &dyn Backend) -> Result<Verifier> {
    let path = vault_path()?;
    // git passes no options: `nexusq verify`'s hint (--identity, --vault) would not apply.
    if !path.exists() {
        return Err(Error::vault(
            format!(
                "no vault at {}: signatures are checked against your own vault's identity \
                 and the contacts in its book",
                super::output::untrusted_path(&path)
            ),
            "create one (`nexusq init`) and add each signer (`nexusq contacts add NAME \
             THEIR-EXPORT.asc`), or set NEXUSQ_VAULT to your vault",
        ));
    }
    let verifier = Verifier::for_vault(&path, backend)?;
    match verifier.clone().with_default_book(backend) {
        Ok(with_book) => Ok(with_book),
        Err(e) => {
            eprintln!(
                "{NAME}: warning: contacts left out: {}",
                nexusq_core::untrusted::scrub(e.message())
            );
            Ok(verifier)
        }
    }
}

/// The user id of a trusted identity, for gpg's status lines.
fn uid(trusted: &Trusted) -> String {
    let fp = trusted.fingerprint();
    match &trusted.contact {
        None => format!("nexusq identity {fp} (your own)"),
        Some(c) => format!(
            "{} (nexusq contact {fp}, {})",
            c.name,
            if c.verified {
                "verified"
            } else {
                "not verified"
            }
        ),
    }
}

/// `--status-fd=N --verify SIGFILE -`: NEWSIG, one result line (and VALIDSIG + TRUST_ when
/// good) on N; what it means for people on stderr. Exit 0 only for a good signature.
fn verify(status_fd: u32, sig_file: &Path) -> Result<i32> {
    let mut status = gitsign::new_sig();
    let finish = |status: &str, outcome: Outcome, message: &str| -> Result<i32> {
        eprintln!("{NAME}: {}", nexusq_core::untrusted::scrub(message));
        write_status(status_fd, status)?;
        Ok(if outcome == Outcome::Good { 0 } else { 1 })
    };
    let text = super::io::read_small(sig_file, "a signature")?;
    let sig = gitsign::unarmor(&text)
        .map_err(|why| Error::check(why, "the commit's signature is not nexusq's"))
        .and_then(|inner| Ok(Signature::parse(&inner, "the commit's signature")?));
    let sig = match sig {
        Ok(s) => s,
        Err(e) => {
            status.push_str(&gitsign::outcome_lines(Outcome::Error, "0", "", 0, false));
            return finish(&status, Outcome::Error, e.message());
        }
    };
    let signer = sig.root_id().fingerprint().to_string();
    let backend = backend()?;
    let Ok(known) = verifier(backend)?.signer_of(&sig) else {
        status.push_str(&gitsign::outcome_lines(
            Outcome::Error,
            &signer,
            "",
            0,
            false,
        ));
        return finish(
            &status,
            Outcome::Error,
            &format!(
                "cannot check this signature: it was made by {signer}, which is neither your \
                 identity nor a contact; verification is local and needs the signer's \
                 identity: `nexusq contacts add NAME THEIR-EXPORT.asc`"
            ),
        );
    };
    let digest = payload_digest()?;
    let (uid, trusted) = (uid(&known), known.is_fully_trusted());
    let signed_at = sig.signed_at();
    match signature::verify_classified(backend, known.trust(), &sig, &digest) {
        Ok(ok) => {
            status.push_str(&gitsign::outcome_lines(
                Outcome::Good,
                &signer,
                &uid,
                ok.signed_at,
                trusted,
            ));
            finish(
                &status,
                Outcome::Good,
                &format!(
                    "good signature from {}, signed at {} (claimed)",
                    nexusq_core::recipients::who(
                        &ok.root_id,
                        ok.generation,
                        known.contact.as_ref()
                    ),
                    nexusq_core::time::rfc3339(ok.signed_at)
                ),
            )
        }
        Err(r) => {
            let outcome = match r.kind {
                Refusal::Bad => Outcome::Bad,
                Refusal::ExpiredKey => Outcome::ExpiredKey,
                Refusal::RevokedKey => Outcome::RevokedKey,
                Refusal::NoKey => Outcome::Error,
            };
            status.push_str(&gitsign::outcome_lines(
                outcome, &signer, &uid, signed_at, trusted,
            ));
            finish(&status, outcome, r.error.message())
        }
    }
}

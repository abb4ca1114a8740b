//! The gpg-compatible surface git uses for `gpg.format = x509` (git's gpg-interface.c), for
//! `nexusq-git-sign`: the command lines git runs, the armor git recognises, and the status
//! lines it parses. No I/O and no printing here; `cli::git_sign` does both.
//!
//! git signs with `PROGRAM --status-fd=2 -bsau KEY` (payload on stdin, armored signature on
//! stdout; a line starting `[GNUPG:] SIG_CREATED ` on the status fd means success) and
//! verifies with `PROGRAM --status-fd=1 --verify SIGFILE -` (payload on stdin). Verification
//! succeeds for git when the program exits 0 and its status output holds, after a first line,
//! `\n[GNUPG:] GOODSIG `; git then reads exactly one of GOODSIG/BADSIG/ERRSIG/EXPKEYSIG/
//! REVKEYSIG (two are treated as an error), a `TRUST_<LEVEL>` line, and `VALIDSIG <fpr> …`
//! with the primary key fingerprint as the tenth field. What the program writes on stderr is
//! what `git verify-commit` and `git log --show-signature` show to people.

use crate::identity::signature::{ARMOR_KIND, Signature};
use std::ffi::OsString;
use std::path::PathBuf;

/// The first line git looks for to treat a signature as x509's.
pub const BEGIN: &str = "-----BEGIN SIGNED MESSAGE-----";
/// The line that ends the signature nexusq-git-sign hands git (after [`BEGIN`] and the base64
/// lines).
pub const END: &str = "-----END SIGNED MESSAGE-----";
/// Every status line starts with this.
pub(crate) const STATUS_PREFIX: &str = "[GNUPG:] ";

/// What git asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// `--status-fd=N -bsau KEY`: sign stdin as KEY.
    Sign {
        /// The file descriptor to write status lines to.
        status_fd: u32,
        /// The key git names (`user.signingkey`).
        key: String,
    },
    /// `--status-fd=N --verify SIGFILE -`: verify stdin against SIGFILE.
    Verify {
        /// The file descriptor to write status lines to.
        status_fd: u32,
        /// The armored signature to check.
        sig_file: PathBuf,
    },
    /// `--version`.
    Version,
    /// `--help` or `-h`.
    Help,
}

/// Read git's command line. gpg's bundled short options (`-bsau KEY`, `-b -s -a -u KEY`), the
/// long forms (`--detach-sign`, `--sign`, `--armor`, `--local-user KEY`) and
/// `--status-fd=N` / `--status-fd N` are understood; options git may add that change nothing
/// here (`--keyid-format=long`) are ignored; anything else is refused.
pub fn parse_args(args: &[OsString]) -> Result<Invocation, String> {
    let mut status_fd = None;
    let (mut detach, mut sign, mut key, mut verify) = (false, false, None, None);
    let mut rest: Vec<String> = Vec::new();
    let mut it = args.iter().map(|a| {
        a.to_str()
            .map(str::to_owned)
            .ok_or_else(|| "an argument is not UTF-8 text".to_string())
    });
    while let Some(arg) = it.next() {
        let arg = arg?;
        let mut value = |name: &str| {
            it.next()
                .unwrap_or_else(|| Err(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--version" => return Ok(Invocation::Version),
            "--help" | "-h" => return Ok(Invocation::Help),
            "--status-fd" => status_fd = Some(value("--status-fd")?),
            "--detach-sign" => detach = true,
            "--sign" => sign = true,
            "--armor" => {}
            "--local-user" => key = Some(value("--local-user")?),
            "--verify" => verify = Some(value("--verify")?),
            a if a.starts_with("--status-fd=") => status_fd = Some(a[12..].to_string()),
            a if a.starts_with("--keyid-format=") => {}
            a if a.starts_with('-') && a.len() > 1 && !a.starts_with("--") => {
                // Bundled short options; `u` takes the next argument.
                for c in a[1..].chars() {
                    match c {
                        'b' => detach = true,
                        's' => sign = true,
                        'a' => {}
                        'u' => key = Some(value("-u")?),
                        _ => return Err(format!("unknown option -{c}")),
                    }
                }
            }
            a if a.starts_with("--") => return Err(format!("unknown option {a}")),
            _ => rest.push(arg),
        }
    }
    let status_fd = match status_fd {
        Some(n) => n
            .parse::<u32>()
            .map_err(|_| format!("--status-fd {n:?} is not a file descriptor number"))?,
        None => 2,
    };
    match (verify, detach && sign, key) {
        (Some(sig), false, _) => {
            if rest != ["-"] {
                return Err("--verify SIGFILE takes the data on stdin (`-`)".into());
            }
            Ok(Invocation::Verify {
                status_fd,
                sig_file: PathBuf::from(sig),
            })
        }
        (None, true, Some(key)) if rest.is_empty() => Ok(Invocation::Sign { status_fd, key }),
        (None, true, None) => Err("signing needs the key: -u KEY (git's user.signingkey)".into()),
        _ => Err("expected `--status-fd=N -bsau KEY` or `--status-fd=N --verify SIGFILE -`".into()),
    }
}

/// A signature in git's x509 slot: nexusq's armor with git's first and last lines.
pub fn armor(sig: &Signature) -> String {
    let inner = sig.to_armor();
    let body = inner
        .strip_prefix(&format!("-----BEGIN NEXUSQ {ARMOR_KIND}-----\n"))
        .and_then(|b| b.strip_suffix(&format!("-----END NEXUSQ {ARMOR_KIND}-----\n")))
        .expect("nexusq armor has its header and footer");
    format!("{BEGIN}\n{body}{END}\n")
}

/// The nexusq armor inside git's x509 armor, for the strict decoder (`Signature::parse`).
/// Anything but exactly `BEGIN`, base64 lines, `END` is refused.
pub fn unarmor(text: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(text).map_err(|_| "the signature is not text".to_string())?;
    let text = text.replace("\r\n", "\n");
    let body = text
        .strip_prefix(&format!("{BEGIN}\n"))
        .and_then(|b| b.strip_suffix(&format!("{END}\n")))
        .ok_or("the signature does not start and end with git's SIGNED MESSAGE lines")?;
    Ok(
        format!("-----BEGIN NEXUSQ {ARMOR_KIND}-----\n{body}-----END NEXUSQ {ARMOR_KIND}-----\n")
            .into_bytes(),
    )
}

/// `SIG_CREATED D <pk algo> <hash algo> <class> <timestamp> <fpr>`: detached, SHA-512 (10 in
/// OpenPGP's numbering), class 00; nexusq's suite has no OpenPGP number (0).
pub fn sig_created(timestamp: u64, fingerprint: &str) -> String {
    format!("{STATUS_PREFIX}SIG_CREATED D 0 10 00 {timestamp} {fingerprint}\n")
}

/// The `NEWSIG` status line that starts a verification's report.
pub fn new_sig() -> String {
    format!("{STATUS_PREFIX}NEWSIG\n")
}

/// The one exclusive result line of a verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A good signature (`GOODSIG`, `VALIDSIG`, a trust line).
    Good,
    /// The signature does not hold (`BADSIG`).
    Bad,
    /// Could not be checked (unknown signer, missing certificate, damaged file).
    Error,
    /// Made after its generation expired (`EXPKEYSIG`).
    ExpiredKey,
    /// Its signing key or identity was revoked (`REVKEYSIG`).
    RevokedKey,
}

/// The status lines after NEWSIG: the outcome with key id and user id, and for a good
/// signature VALIDSIG and the trust level. `key_id` must hold no space; `uid` is escaped by
/// the caller (one line).
pub fn outcome_lines(
    outcome: Outcome,
    key_id: &str,
    uid: &str,
    signed_at: u64,
    trusted: bool,
) -> String {
    let p = STATUS_PREFIX;
    match outcome {
        Outcome::Good => {
            let date = crate::time::rfc3339(signed_at);
            let day = date.get(..10).unwrap_or("1970-01-01");
            let trust = if trusted {
                "TRUST_FULLY 0 pgp"
            } else {
                "TRUST_UNDEFINED 0 pgp"
            };
            format!(
                "{p}GOODSIG {key_id} {uid}\n\
                 {p}VALIDSIG {key_id} {day} {signed_at} 0 4 0 0 10 00 {key_id}\n\
                 {p}{trust}\n"
            )
        }
        Outcome::Bad => format!("{p}BADSIG {key_id} {uid}\n"),
        Outcome::ExpiredKey => format!("{p}EXPKEYSIG {key_id} {uid}\n"),
        Outcome::RevokedKey => format!("{p}REVKEYSIG {key_id} {uid}\n"),
        // ERRSIG <keyid> <pkalgo> <hashalgo> <class> <time> <rc>; rc 9 is "no public key".
        Outcome::Error => format!("{p}ERRSIG {key_id} 0 10 00 {signed_at} 9\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn git_s_command_lines() {
        assert_eq!(
            parse_args(&args(&["--status-fd=2", "-bsau", "abcd"])),
            Ok(Invocation::Sign {
                status_fd: 2,
                key: "abcd".into()
            })
        );
        assert_eq!(
            parse_args(&args(&["--status-fd", "5", "-b", "-s", "-a", "-u", "k"])),
            Ok(Invocation::Sign {
                status_fd: 5,
                key: "k".into()
            })
        );
        assert_eq!(
            parse_args(&args(&["--status-fd=1", "--verify", "/tmp/x", "-"])),
            Ok(Invocation::Verify {
                status_fd: 1,
                sig_file: "/tmp/x".into()
            })
        );
        assert_eq!(
            parse_args(&args(&[
                "--keyid-format=long",
                "--status-fd=1",
                "--verify",
                "s",
                "-"
            ])),
            Ok(Invocation::Verify {
                status_fd: 1,
                sig_file: "s".into()
            })
        );
        for bad in [
            &["-bsa"][..],
            &["--status-fd=x", "-bsau", "k"],
            &["--verify", "s"],
            &["-bsau"],
            &["--frobnicate"],
            &["-bsqu", "k"],
            &[],
        ] {
            assert!(parse_args(&args(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn status_lines_parse_as_git_does() {
        let good = outcome_lines(
            Outcome::Good,
            "fp",
            "nexusq identity fp",
            1_800_000_000,
            true,
        );
        assert!(good.starts_with("[GNUPG:] GOODSIG fp nexusq identity fp\n"));
        // git needs "\n[GNUPG:] GOODSIG " (NEWSIG comes first), a known TRUST_ level, and
        // the primary fingerprint as VALIDSIG's tenth field.
        let all = new_sig() + &good;
        assert!(all.contains("\n[GNUPG:] GOODSIG "));
        assert!(all.contains("\n[GNUPG:] TRUST_FULLY "));
        let validsig = all.lines().find(|l| l.contains("VALIDSIG")).unwrap();
        let fields: Vec<&str> = validsig.split(' ').collect();
        assert_eq!((fields[2], fields[11]), ("fp", "fp"));
        assert!(outcome_lines(Outcome::Good, "fp", "u", 0, false).contains("TRUST_UNDEFINED"));
        for (o, word) in [
            (Outcome::Bad, "BADSIG"),
            (Outcome::Error, "ERRSIG"),
            (Outcome::ExpiredKey, "EXPKEYSIG"),
            (Outcome::RevokedKey, "REVKEYSIG"),
        ] {
            let l = outcome_lines(o, "fp", "u", 0, true);
            assert!(l.starts_with(&format!("[GNUPG:] {word} fp")), "{l}");
            assert!(!l.contains("GOODSIG") && !l.contains("TRUST_"));
        }
        assert!(sig_created(7, "fp").starts_with("[GNUPG:] SIG_CREATED D "));
    }
}

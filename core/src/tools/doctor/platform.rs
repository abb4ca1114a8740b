//! The machine and the process: platform, CPU features, the native backend, the terminal and
//! the process hardening.

use super::Check;

/// What Termux sets: PREFIX under com.termux, TERMUX_VERSION.
#[derive(Clone, Debug, Default)]
pub(super) struct TermuxEnv {
    pub(super) prefix: Option<String>,
    pub(super) termux_version: Option<String>,
}

impl TermuxEnv {
    pub(super) fn from_process() -> TermuxEnv {
        TermuxEnv {
            prefix: std::env::var("PREFIX").ok(),
            termux_version: std::env::var("TERMUX_VERSION").ok(),
        }
    }

    fn is_termux(&self) -> bool {
        self.termux_version
            .as_deref()
            .is_some_and(|v| !v.is_empty())
            || self
                .prefix
                .as_deref()
                .is_some_and(|p| p.contains("/com.termux/"))
    }
}

/// The operating system, the architecture and whether this is Termux.
pub(super) fn platform_check(os: &str, arch: &str, termux: &TermuxEnv) -> Check {
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
pub(super) fn cpu_check(arch: &str, model: &str, features: &[(&str, bool)]) -> Check {
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

/// Which native implementation would run, and which backend actually runs (its name, or the
/// message and hint of why it cannot).
pub(super) fn native_check(
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

/// The caller's terminal and password input, as it sees them.
#[derive(Clone, Debug, Default)]
pub struct TerminalFacts {
    /// Standard input is a terminal.
    pub stdin_tty: bool,
    /// Standard error is a terminal (where colour and prompts go).
    pub stderr_tty: bool,
    /// `/dev/tty` opens, so a password can be asked for.
    pub dev_tty: bool,
    /// `NO_COLOR` is set.
    pub no_color: bool,
}

/// Whether a password can be asked for here, and whether colour is on.
pub(super) fn terminal_check(t: &TerminalFacts) -> Check {
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

/// No core dumps and not dumpable before any password is read (docs/security.md); `failures`
/// is what the caller's hardening could not do.
pub(super) fn hardening_check(failures: &[String]) -> Check {
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
    use super::super::Status;
    use super::*;

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
    fn hardening_result() {
        assert_eq!(hardening_check(&[]).status, Status::Ok);
        let c = hardening_check(&["prctl(PR_SET_DUMPABLE, 0): EPERM".into()]);
        assert_eq!(c.status, Status::Warn);
        assert!(c.detail.contains("PR_SET_DUMPABLE"));
    }
}

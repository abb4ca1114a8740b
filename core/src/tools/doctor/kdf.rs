//! What the password costs: the vault's Argon2id parameters, one unlock timed here, and the
//! RAM that bounds them.

use super::Check;
use crate::error::Error;
use crate::secret::{Password, random_array};
use crate::vault::{Argon2id, KdfParams, KeyDerivation, kdf};
use std::time::{Duration, Instant};
use zeroize::Zeroizing;

/// The vault's Argon2id parameters against the default and this device's memory bound; the
/// default for new vaults when there is no vault.
pub(super) fn kdf_check(params: Option<&KdfParams>, ram: Option<u64>) -> Check {
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

/// `vault_kdf` when the vault's header cannot be read.
pub(super) fn unreadable_header_check(e: &Error) -> Check {
    Check::error(
        "vault_kdf",
        format!("cannot read the vault header: {}", e.message()),
        e.hint(),
    )
}

/// One Argon2id derivation with `params` (the vault's, else the default), a throwaway password
/// and a random salt: what one unlock costs here. The vault is not touched.
pub(super) fn unlock_time_check(params: Option<KdfParams>) -> Check {
    let (p, whose) = match params {
        Some(p) => (p, "the vault's parameters"),
        None => (KdfParams::for_new_vault(), "the default parameters"),
    };
    let password = Password::new(Zeroizing::new("nexusq doctor: not a password".into()));
    let salt = random_array();
    let start = Instant::now();
    match Argon2id.derive(&password, &salt, &p) {
        Ok(_) => timing_check(start.elapsed(), whose, &p),
        Err(e) => Check::error(
            "unlock_time",
            format!("Argon2id with {} failed: {}", p.describe(), e.message()),
            e.hint(),
        ),
    }
}

/// Unlocking longer than 10 s is worth a warning; anything shorter is a matter of taste.
pub(super) fn timing_check(elapsed: Duration, whose: &str, p: &KdfParams) -> Check {
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

/// The device's RAM, which bounds the memory Argon2id may use here.
pub(super) fn ram_check(ram: Option<u64>) -> Check {
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

#[cfg(test)]
mod tests {
    use super::super::Status;
    use super::*;

    const MIB: u64 = 1024 * 1024;

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
}

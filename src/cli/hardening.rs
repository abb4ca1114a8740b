//! Process hardening before any password is read (DESIGN.md section 4): no core dumps, not
//! dumpable (so other processes of the same uid, such as other Termux plugins, cannot ptrace
//! us or read /proc/<pid>/mem). Best effort: failures are reported, not fatal.

/// Returns what could not be done, for `--json` reports and debugging; empty when all went well.
pub fn harden_process() -> Vec<String> {
    let mut failed = Vec::new();
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::process::{
            DumpableBehavior, Resource, Rlimit, set_dumpable_behavior, setrlimit,
        };
        if let Err(e) = set_dumpable_behavior(DumpableBehavior::NotDumpable) {
            failed.push(format!("prctl(PR_SET_DUMPABLE, 0): {e}"));
        }
        let zero = Rlimit {
            current: Some(0),
            maximum: Some(0),
        };
        if let Err(e) = setrlimit(Resource::Core, zero) {
            failed.push(format!("setrlimit(RLIMIT_CORE, 0): {e}"));
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn core_limit_is_zero_after_hardening() {
        // Runs in the test process; harmless there.
        assert!(super::harden_process().is_empty());
        let lim = rustix::process::getrlimit(rustix::process::Resource::Core);
        assert_eq!(lim.current, Some(0));
        assert_eq!(
            rustix::process::dumpable_behavior().unwrap(),
            rustix::process::DumpableBehavior::NotDumpable
        );
    }
}

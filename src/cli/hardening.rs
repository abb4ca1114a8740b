//! Process hardening before any password is read (docs/security.md, section 3): no core dumps, not
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

/// Close every descriptor above 2 (stdin, stdout, stderr): the background agent must hold
/// nothing its starter had open, such as the `--password-fd` file or a caller's pipe
/// (docs/agent.md). Call it first thing, while the process is one thread and has opened
/// nothing of its own. `/proc/self/fd` is walked rather than `close_range(2)` called: that
/// system call is missing from older kernels and, on older Android, from the seccomp filter
/// of apps, where calling it kills the process.
pub fn close_inherited_descriptors() {
    let listed: Option<Vec<i32>> = std::fs::read_dir("/proc/self/fd").ok().map(|dir| {
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .filter(|&fd| fd > 2)
            .collect()
    });
    // Without /proc: every number up to the descriptor limit (bounded), those open.
    let fds = listed.unwrap_or_else(|| {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(1024)
            .min(65_536) as i32;
        (3..limit).collect()
    });
    for fd in fds {
        // SAFETY: the process has one thread and has opened nothing of its own yet, so an
        // open descriptor above 2 is inherited and owned by no object here; it is borrowed
        // only to ask whether it is open (the listing's own descriptor is closed by now),
        // then closed once.
        unsafe {
            let borrowed = std::os::fd::BorrowedFd::borrow_raw(fd);
            if rustix::io::fcntl_getfd(borrowed).is_ok() {
                rustix::io::close(fd);
            }
        }
    }
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

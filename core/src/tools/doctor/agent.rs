//! The key agent of this vault (docs/agent.md): running or not, and until when.

use super::Check;
use crate::agent::client::{self, Lookup};
use std::path::Path;

/// Whether an agent serves the vault at `vault`, and what it holds.
pub(super) fn agent_check(vault: Option<&Path>) -> Check {
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
                    crate::time::rfc3339(s.expires_at),
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

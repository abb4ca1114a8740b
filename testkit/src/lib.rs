//! Test support shared by the workspace's crates.
//!
//! The known-answer vectors are third-party data the repository does not carry (docs/vectors.md
//! lists their sources). Tests find them through [`vectors`]: `$NEXUSQ_VECTORS`, else
//! `../shared/vectors` beside the repository. On a clone without them the vector tests skip
//! with one loud line per test binary and every other test still runs; CI sets
//! `NEXUSQ_REQUIRE_VECTORS=1`, under which missing vectors fail the run instead.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The variable naming the vectors folder.
pub const VECTORS_VAR: &str = "NEXUSQ_VECTORS";
/// The variable that turns a missing vectors folder into a failure.
pub const REQUIRE_VAR: &str = "NEXUSQ_REQUIRE_VECTORS";

/// The workspace root (this crate sits one folder below it).
fn workspace_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Where the vectors folder should be: `$NEXUSQ_VECTORS`, else `../shared/vectors` beside the
/// repository. The folder may not exist.
pub fn vectors_dir() -> PathBuf {
    match std::env::var_os(VECTORS_VAR) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root().join("../shared/vectors"),
    }
}

fn required() -> bool {
    std::env::var_os(REQUIRE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether the vectors folder exists. When it does not:
/// under `NEXUSQ_REQUIRE_VECTORS` this panics; otherwise it prints one loud line per test
/// binary naming the first test that skips, and returns `false`; the caller then skips (see
/// [`skip_without_vectors!`]).
///
/// A folder that exists but lacks a file a test reads is a broken copy, not an absent one:
/// those tests fail on the missing file.
pub fn available() -> bool {
    let dir = vectors_dir();
    if dir.is_dir() {
        return true;
    }
    let msg = format!(
        "the known-answer vectors are not at {} (set {VECTORS_VAR}=DIR, or see docs/vectors.md \
         for where to get them)",
        dir.display()
    );
    if required() {
        panic!("{REQUIRE_VAR} is set and {msg}");
    }
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_default();
        // Cargo names test binaries `<file>-<16 hex digits>`: keep the file's name.
        let exe = match exe.rsplit_once('-') {
            Some((name, h)) if h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                name.to_owned()
            }
            _ => exe,
        };
        // The test harness names each test's thread after the test.
        let test = std::thread::current().name().unwrap_or("?").to_owned();
        let line = format!(
            "\n######## SKIPPED: the known-answer vector tests of {exe} (first: {test}): {msg}\n\n"
        );
        // Written to the stderr handle, not with eprintln!: the harness captures the macros'
        // output of passing tests, and this line must be seen. One write, so that the
        // harness's progress output does not land inside it.
        let _ = std::io::stderr().write_all(line.as_bytes());
    });
    false
}

/// The file `rel` in the vectors folder (call after [`available`] said yes).
pub fn vector_path(rel: &str) -> PathBuf {
    vectors_dir().join(rel)
}

/// Returns from the calling test when the known-answer vectors are absent (see [`available`]).
#[macro_export]
macro_rules! skip_without_vectors {
    () => {
        if !$crate::available() {
            return;
        }
    };
}

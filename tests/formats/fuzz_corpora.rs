//! The committed fuzz corpora (fuzz/corpus/<target>/) replayed through each cargo-fuzz target's
//! body (fuzz/src/targets/), so every `cargo test` checks the targets' assertions on the seeds
//! without libFuzzer or a nightly toolchain. A failing input is named.

use std::fs;
use std::panic;
use std::path::Path;

/// Runs `run` on every file of fuzz/corpus/`target`/, in name order: panics naming each input
/// that panicked (the target's own message is printed above it).
fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no corpus files", dir.display());
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            panic::catch_unwind(|| run(&bytes)).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "fuzz target {target} panicked on {} of {} corpus files: {failed:#?}",
        failed.len(),
        files.len()
    );
}

macro_rules! corpora {
    ($($target:ident),* $(,)?) => {
        const TARGETS: &[&str] = &[$(stringify!($target)),*];
        $(
            #[test]
            fn $target() {
                replay(stringify!($target), nexusq_fuzz::targets::$target::run);
            }
        )*
    };
}

corpora!(
    vault,
    identity,
    signature,
    kem,
    file_decrypt,
    recovery_words,
    native_mlkem,
    native_mldsa,
    native_slhdsa,
    agent_protocol,
);

/// A new target's corpus directory must get a test above.
#[test]
fn every_corpus_is_replayed() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut dirs: Vec<String> = fs::read_dir(&corpus)
        .expect("fuzz/corpus")
        .map(|entry| entry.expect("corpus entry"))
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut targets = TARGETS.to_vec();
    targets.sort();
    assert_eq!(dirs, targets);
}

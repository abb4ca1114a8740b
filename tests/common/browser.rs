//! Headless Chromium for the tests of the pages nexusq writes (`nexusq report`, the recovery
//! kit): finding the browser and the policy when it is missing, running it with a deadline,
//! and reading what it wrote.
//!
//! Chromium comes from Debian's `chromium` package (.ci/run installs it). Without it a test
//! says so loudly and passes only outside CI; in CI (CI set) it fails unless .ci/run could not
//! install the package and set NEXUSQ_SKIP_BROWSER=1, which it announces.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `$NEXUSQ_CHROMIUM`, else the first of Debian's names found on PATH.
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NEXUSQ_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// [`chromium`], or `None` after saying loudly that `what` (the browser test of …) did not
/// run; in CI a missing browser fails the test instead, unless NEXUSQ_SKIP_BROWSER is set.
pub fn chromium_or_skip(what: &str) -> Option<PathBuf> {
    if let Some(chromium) = chromium() {
        return Some(chromium);
    }
    let why = format!("chromium is not installed (apt-get install chromium): {what} did not run");
    if std::env::var_os("CI").is_some() && std::env::var_os("NEXUSQ_SKIP_BROWSER").is_none() {
        panic!("{why}; .ci/run installs it, or sets NEXUSQ_SKIP_BROWSER=1 when it cannot");
    }
    eprintln!("\n##########\n# SKIPPED: {why}\n##########\n");
    None
}

/// Chromium with the flags that work as root in a container, its own profile folder, and
/// console messages on stderr.
pub fn headless(chromium: &Path, profile: &Path, args: &[String]) -> Output {
    let child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    // Read the pipes while waiting, with a deadline: a hung browser must not hang the tests.
    let deadline = Instant::now() + Duration::from_secs(180);
    let out = std::thread::spawn(move || child.wait_with_output());
    while !out.is_finished() {
        assert!(
            Instant::now() < deadline,
            "chromium did not finish in 180 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    out.join().unwrap().expect("chromium ran")
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(
        bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "not a PNG"
    );
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes(b.try_into().unwrap());
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

/// Console lines that mean the page did not load cleanly.
pub fn page_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            l.contains("CONSOLE")
                || l.contains("Refused to")
                || l.contains("ERR_FILE_NOT_FOUND")
                || l.contains("net::ERR_")
        })
        .collect()
}

/// Asserts that Chromium exited well and its console has none of [`page_errors`].
pub fn assert_clean(run: &Output) {
    assert!(run.status.success(), "{run:?}");
    let stderr = String::from_utf8_lossy(&run.stderr);
    let errors = page_errors(&stderr);
    assert!(errors.is_empty(), "{errors:#?}");
}

/// The DOM of `url` after the browser loaded it (`--dump-dom`), with a clean console, and a
/// check that it is the page titled `title`.
pub fn dom(chromium: &Path, url: &str, title: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let run = headless(chromium, profile.path(), &["--dump-dom".into(), url.into()]);
    assert_clean(&run);
    let html = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        html.contains(&format!("<title>{title}</title>")),
        "{html:.400}"
    );
    html
}

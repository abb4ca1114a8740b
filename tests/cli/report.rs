//! `nexusq report` in a real browser: headless Chromium loads the page built from the
//! committed evidence (benches/results/), at phone width (390 px) and desktop width
//! (1280 px), to PNG; and its DOM after loading (`--dump-dom`) has every section and every
//! chart bar, with the console free of errors (the page has no scripts; a blocked load or a
//! Content-Security-Policy refusal would show there).
//!
//! And, with no browser needed, that text from hostile evidence keeps its bidi controls and
//! invisible characters visible on the page as code points.
//!
//! The browser, and the policy when it is missing, are in `common::browser`.

use crate::common;
use crate::common::browser::{self, assert_clean, chromium_or_skip, headless, png_size};
use std::path::{Path, PathBuf};

#[test]
fn the_page_renders_in_chromium_at_phone_and_desktop_width() {
    let Some(chromium) = chromium_or_skip("the browser test of `nexusq report`") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/results");
    let mut evidence: Vec<PathBuf> = std::fs::read_dir(&results)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    evidence.sort();
    let page = dir.path().join("report.html");
    common::bin()
        .arg("report")
        .args(&evidence)
        .arg("-o")
        .arg(&page)
        .assert()
        .success();
    let mut datasets = Vec::new();
    for p in &evidence {
        let text = std::fs::read_to_string(p).unwrap();
        datasets.extend(nexusq_core::tools::bench::evidence::parse("x", &text).unwrap());
    }
    let bars: usize = datasets.iter().map(|d| d.results.len()).sum();
    let url = format!("file://{}", page.display());

    // The DOM as the browser built it.
    let html = browser::dom(&chromium, &url, "nexusq performance evidence");
    assert_eq!(
        html.matches("<section class=\"dataset\"").count(),
        datasets.len()
    );
    // The parser turned each bar into an SVG element: count the elements, not our text.
    assert_eq!(
        html.matches("<rect class=\"bar").count(),
        bars,
        "chart bars"
    );
    assert_eq!(
        html.matches("<line class=\"p95\"").count(),
        bars,
        "p95 marks"
    );
    assert_eq!(
        html.matches("<svg ").count(),
        html.matches("</svg>").count()
    );
    assert!(html.contains("shorter is faster"));

    for (width, height) in [(390u32, 2400u32), (1280, 1600)] {
        let profile = tempfile::tempdir().unwrap();
        let png = dir.path().join(format!("report-{width}.png"));
        let shot = headless(
            &chromium,
            profile.path(),
            &[
                format!("--window-size={width},{height}"),
                format!("--screenshot={}", png.display()),
                url.clone(),
            ],
        );
        assert_clean(&shot);
        let bytes = std::fs::read(&png).expect("a screenshot");
        assert_eq!(png_size(&bytes), (width, height));
        // Not a blank page: a rendered page compresses far worse than one colour.
        assert!(
            bytes.len() > 20_000,
            "{width} px screenshot is {} bytes",
            bytes.len()
        );
    }
}

/// Evidence comes from other machines: a right-to-left override in its CPU name (which would
/// make "txt.exe" read "exe.txt"), an isolate, a zero-width space and a tag character reach
/// the page as `<U+XXXX>`, never as the characters themselves.
#[test]
fn hostile_evidence_text_shows_its_bidi_controls_as_code_points() {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/results/2026-12-01-x86_64-bench-baseline.jsonl");
    let mut lines: Vec<serde_json::Value> = std::fs::read_to_string(&source)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[0]["cpu_model"] = "AMD EPYC \u{202E}txt.exe".into();
    lines[0]["os"]["release"] = "6.18 \u{2067}rc\u{2069} \u{200B}\u{E0041}".into();
    let evidence = dir.path().join("hostile.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&evidence, text).unwrap();
    let page = dir.path().join("report.html");
    common::bin()
        .arg("report")
        .arg(&evidence)
        .arg("-o")
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    for c in ['\u{202E}', '\u{2067}', '\u{2069}', '\u{200B}', '\u{E0041}'] {
        assert!(!html.contains(c), "U+{:04X} reached the page", c as u32);
        let shown = format!("&lt;U+{:04X}&gt;", c as u32);
        assert!(html.contains(&shown), "{shown} is not on the page");
    }
    assert!(html.contains("AMD EPYC &lt;U+202E&gt;txt.exe"));
}

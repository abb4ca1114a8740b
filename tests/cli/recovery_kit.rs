//! The printable recovery kit in a real browser, rendered through the library
//! (`nexusq_core::recovery::kit::render`): a phrase page and three share pages print to a PDF
//! of exactly four A4 pages (so each sheet fits on one), the DOM after loading has every word
//! in its numbered box with the console free of errors (no scripts, nothing loaded, no
//! Content-Security-Policy refusal), and a screenshot at A4 size (794 × 1123 px at 96 dpi)
//! renders.
//!
//! The browser, and the policy when it is missing, are in `common::browser`.

use crate::common::browser::{self, assert_clean, chromium_or_skip, headless, png_size};
use nexusq_core::recovery::kit::{self, Kit, Page, Sheet};

/// The start of the BIP39 English list.
const BIP39: [&str; 84] = [
    "abandon", "ability", "able", "about", "above", "absent", "absorb", "abstract", "absurd",
    "abuse", "access", "accident", "account", "accuse", "achieve", "acid", "acoustic", "acquire",
    "across", "act", "action", "actor", "actress", "actual", "adapt", "add", "addict", "address",
    "adjust", "admit", "adult", "advance", "advice", "aerobic", "affair", "afford", "afraid",
    "again", "age", "agent", "agree", "ahead", "aim", "air", "airport", "aisle", "alarm", "album",
    "alcohol", "alert", "alien", "all", "alley", "allow", "almost", "alone", "alpha", "already",
    "also", "alter", "always", "amateur", "amazing", "among", "amount", "amused", "analyst",
    "anchor", "ancient", "anger", "angle", "angry", "animal", "ankle", "announce", "annual",
    "another", "answer", "antenna", "antique", "anxiety", "any", "apart", "apology",
];

/// Eight letters, the longest a BIP39 word has: the widest boxes a page can need.
const LONGEST: [&str; 6] = [
    "abstract", "accident", "acoustic", "announce", "artefact", "attitude",
];

/// A phrase page and three share pages (any 2 of 3), the last all eight-letter words.
fn sample() -> Kit<'static> {
    let mut pages = vec![Page {
        sheet: Sheet::Phrase,
        words: BIP39[..24].to_vec(),
    }];
    for index in 1..=3u8 {
        let words = if index == 3 {
            LONGEST.iter().cycle().take(30).copied().collect()
        } else {
            let start = 24 + 30 * usize::from(index - 1);
            BIP39[start..start + 30].to_vec()
        };
        pages.push(Page {
            sheet: Sheet::Share {
                index,
                threshold: 2,
                count: 3,
            },
            words,
        });
    }
    Kit {
        fingerprint: "abcd-efgh-ijkl-mnop-qrst-uvwx-yz23-4567",
        made: "2026-12-04",
        vault: "~/.local/share/nexusq/a-rather-long-folder-name/vault.nxq",
        pages,
    }
}

/// The page tree's page count: `/Count N` of the `/Type /Pages` object, and the number of
/// `/Type /Page` objects, which must agree.
fn pdf_pages(pdf: &str) -> usize {
    let leaves = pdf
        .match_indices("/Type /Page")
        .filter(|(i, m)| !pdf[i + m.len()..].starts_with('s'))
        .count();
    let root = pdf.find("/Type /Pages").expect("a /Pages object");
    let object = &pdf[pdf[..root].rfind("<<").unwrap()..];
    let object = &object[..object.find(">>").unwrap()];
    let count: usize = object
        .split("/Count ")
        .nth(1)
        .expect("/Count in /Pages")
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(leaves, count, "page objects against /Count");
    count
}

/// Every `/MediaBox [x0 y0 x1 y1]`, as width and height in points.
fn media_boxes(pdf: &str) -> Vec<(f64, f64)> {
    pdf.split("/MediaBox")
        .skip(1)
        .map(|rest| {
            let inside = &rest[rest.find('[').unwrap() + 1..rest.find(']').unwrap()];
            let v: Vec<f64> = inside
                .split_whitespace()
                .map(|n| n.parse().unwrap())
                .collect();
            assert_eq!(v.len(), 4, "{inside}");
            (v[2] - v[0], v[3] - v[1])
        })
        .collect()
}

#[test]
fn the_kit_prints_one_a4_page_per_sheet_in_chromium() {
    let Some(chromium) = chromium_or_skip("the browser test of the recovery kit") else {
        return;
    };
    let kit = sample();
    let temp = tempfile::tempdir().unwrap();
    // For a look by eye: NEXUSQ_KEEP_KIT=folder writes the page, the PDF and the PNG there.
    let keep = std::env::var_os("NEXUSQ_KEEP_KIT").map(std::path::PathBuf::from);
    let dir = keep.as_deref().unwrap_or(temp.path());
    let page = dir.join("kit.html");
    std::fs::write(&page, kit::render(&kit).as_bytes()).unwrap();
    let url = format!("file://{}", page.display());

    // Printed: one A4 page per sheet, nothing spilling onto a fifth.
    let pdf_path = dir.join("kit.pdf");
    let profile = tempfile::tempdir().unwrap();
    let print = headless(
        &chromium,
        profile.path(),
        &[
            format!("--print-to-pdf={}", pdf_path.display()),
            "--no-pdf-header-footer".into(),
            url.clone(),
        ],
    );
    assert_clean(&print);
    let pdf = std::fs::read(&pdf_path).expect("a PDF");
    assert!(pdf.starts_with(b"%PDF"), "not a PDF");
    let pdf = String::from_utf8_lossy(&pdf);
    assert_eq!(pdf_pages(&pdf), kit.pages.len(), "one page per sheet");
    let boxes = media_boxes(&pdf);
    assert!(!boxes.is_empty(), "no /MediaBox");
    for (w, h) in boxes {
        assert!(
            (w - 595.0).abs() <= 1.0 && (h - 842.0).abs() <= 1.0,
            "not A4: {w} × {h} pt"
        );
    }

    // The DOM as the browser built it: every word in its numbered box, in order.
    let html = browser::dom(&chromium, &url, "nexusq recovery kit");
    let sheets: Vec<&str> = html.split("<section class=\"sheet\"").skip(1).collect();
    assert_eq!(sheets.len(), kit.pages.len());
    for (sheet, page) in sheets.iter().zip(&kit.pages) {
        let mut at = 0;
        for (i, word) in page.words.iter().enumerate() {
            let cell = format!(
                "<span class=\"n\">{}</span><span class=\"w\">{word}</span>",
                i + 1
            );
            let found = sheet[at..]
                .find(&cell)
                .unwrap_or_else(|| panic!("{cell} is not on the page, in order"));
            at += found + cell.len();
        }
    }
    assert!(sheets[3].contains("nexusq recovery share 3 of 3 (any 2 rebuild the identity)"));

    // On screen, at A4 size: the first sheet renders (a blank page compresses to almost
    // nothing).
    let profile = tempfile::tempdir().unwrap();
    let png = dir.join("kit.png");
    let shot = headless(
        &chromium,
        profile.path(),
        &[
            "--window-size=794,1123".into(),
            format!("--screenshot={}", png.display()),
            url,
        ],
    );
    assert_clean(&shot);
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert_eq!(png_size(&bytes), (794, 1123));
    assert!(
        bytes.len() > 20_000,
        "the screenshot is {} bytes",
        bytes.len()
    );
}

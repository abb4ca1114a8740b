//! The printable recovery kit (`nexusq backup kit`): one self-contained HTML file with one A4
//! page per sheet, the 24-word phrase of the master secret or one 30-word Shamir share. Each
//! page has the words in numbered boxes, the identity's fingerprint and the date, where to keep
//! the page, how to recover with it, and what it does not cover.
//!
//! Like the evidence report: no scripts, no fonts, no network, a
//! Content-Security-Policy that allows nothing but inline CSS, and every interpolated string
//! HTML-escaped. The page holds the secret, so it is written into one [`Zeroizing`] string
//! reserved large enough up front (a `String` that grows leaves its old buffers behind,
//! unzeroized), and the words go into it without copies of their own.

use crate::untrusted::{html as esc, html_into as esc_into};
use std::fmt::{self, Write as _};
use zeroize::Zeroizing;

/// What a page holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sheet {
    /// The BIP39 phrase of the master secret (24 words).
    Phrase,
    /// Share `index` of `count`, any `threshold` of which rebuild the master secret (30 words).
    Share {
        /// This share's number, 1 to `count`.
        index: u8,
        /// How many shares rebuild the secret (K).
        threshold: u8,
        /// How many shares were made (N).
        count: u8,
    },
}

/// One printed page: what it is and its words, in order. `Debug` shows how many words, never
/// which; the word references are overwritten when the page is dropped (they are the secret as
/// much as the words are).
pub struct Page {
    /// A phrase or a share.
    pub sheet: Sheet,
    /// The words, from the BIP39 English list: 24 for a phrase, 30 for a share.
    pub words: Vec<&'static str>,
}

impl fmt::Debug for Page {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("sheet", &self.sheet)
            .field("words", &format_args!("[{} hidden]", self.words.len()))
            .finish()
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        self.words.iter_mut().for_each(|w| *w = "");
        // Best effort against the stores being dropped as dead before the buffer is freed.
        std::hint::black_box(&mut self.words);
    }
}

/// The whole kit: the identity it belongs to and its pages. `Debug` hides the words (through
/// [`Page`]'s).
#[derive(Debug)]
pub struct Kit<'a> {
    /// The identity's fingerprint, `abcd-efgh-…` (39 characters).
    pub fingerprint: &'a str,
    /// The day the kit was made, `2026-12-04`.
    pub made: &'a str,
    /// The vault's path as the user knows it, named in "How to recover".
    pub vault: &'a str,
    /// One page per sheet, printed in this order.
    pub pages: Vec<Page>,
}

/// The page's style: A4 sheets on screen, one A4 page per sheet in print. Dark on white, the
/// words large and monospaced, their numbers small.
const STYLE: &str = "
:root { color-scheme: light; }
* { box-sizing: border-box; }
html { background: #e5e7eb; }
body { margin: 0; color: #111; font: 10pt/1.3 system-ui, 'DejaVu Sans', 'Liberation Sans',
  Arial, sans-serif; }
.sheet { background: #fff; width: 210mm; max-width: 100%; min-height: 297mm; margin: 0 auto 6mm;
  padding: 14mm; box-shadow: 0 1px 4px rgba(0,0,0,.25); break-after: page; }
.sheet:last-of-type { break-after: auto; margin-bottom: 0; }
h1 { font-size: 14.5pt; line-height: 1.2; margin: 0 0 1.5mm; }
h2 { font-size: 11pt; margin: 3mm 0 .8mm; padding-top: 1.5mm; border-top: .3mm solid #999; }
p { margin: 1mm 0; }
ul { margin: 1mm 0; padding-left: 5mm; }
li { margin: .2mm 0; }
code, .fp { font-family: 'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace;
  font-size: .9em; overflow-wrap: anywhere; }
.cmd { margin: 1mm 0 1mm 4mm; }
.cmd code { font-size: 1em; white-space: pre-wrap; }
.lead { margin: 0 0 2mm; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .3mm 4mm; margin: 0; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.fp { font-size: 11pt; letter-spacing: .02em; }
ol.words { list-style: none; margin: 3.5mm 0; padding: 0; display: grid;
  grid-template-columns: repeat(4, 1fr); gap: 1.8mm; }
ol.words li { display: flex; align-items: baseline; gap: 2mm; margin: 0; padding: 1.3mm 2.5mm;
  border: .35mm solid #333; border-radius: 1.5mm; break-inside: avoid; }
ol.words .n { min-width: 5mm; text-align: right; font-size: 8pt; color: #444;
  font-variant-numeric: tabular-nums; }
ol.words .w { font: 600 14pt/1.2 'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas,
  monospace; letter-spacing: .03em; }
.warn { font-weight: 600; }
@page { size: A4; margin: 14mm; }
@media print {
  html, body { background: #fff; }
  .sheet { width: auto; max-width: none; min-height: 0; margin: 0; padding: 0; box-shadow: none; }
}
@media screen and (max-width: 600px) {
  .sheet { padding: 5mm; min-height: 0; }
  ol.words { grid-template-columns: repeat(2, 1fr); }
}
";

/// Bytes of markup and fixed text a page may need besides its escaped fields and words, and
/// the document around the pages. The capacity check in [`render`] holds them to it.
const PAGE_BYTES: usize = 6 * 1024;
const DOCUMENT_BYTES: usize = 1024;
/// How many times a page names each of the kit's fields.
const FIELD_USES: usize = 2;
/// An escaped character takes at most this many bytes (`&lt;U+E0041&gt;` for a 4-byte one).
const ESCAPED_PER_BYTE: usize = 16;

/// The kit as one HTML file, a page per sheet in order. Every interpolated string is escaped.
/// The word grid has four columns and as many rows as the words need.
pub fn render(kit: &Kit<'_>) -> Zeroizing<String> {
    let fields = kit.fingerprint.len() + kit.made.len() + kit.vault.len();
    let words: usize = kit
        .pages
        .iter()
        .flat_map(|p| &p.words)
        .map(|w| w.len())
        .sum();
    let capacity = STYLE.len()
        + DOCUMENT_BYTES
        + kit.pages.len() * (PAGE_BYTES + FIELD_USES * fields * ESCAPED_PER_BYTE)
        + words * ESCAPED_PER_BYTE;
    let mut out = Zeroizing::new(String::with_capacity(capacity));
    out.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <title>nexusq recovery kit</title>\n<style>",
    );
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    let fingerprint = esc(kit.fingerprint);
    let made = esc(kit.made);
    let vault = esc(kit.vault);
    for (i, page) in kit.pages.iter().enumerate() {
        let fields = Fields {
            fingerprint: &fingerprint,
            made: &made,
            vault: &vault,
            number: i + 1,
            pages: kit.pages.len(),
        };
        write_page(&mut out, page, &fields);
    }
    out.push_str("</body>\n</html>\n");
    debug_assert!(
        out.capacity() == capacity,
        "the kit outgrew its reserved buffer ({} of {capacity} bytes)",
        out.len()
    );
    out
}

/// A page's escaped fields and its place in the kit.
struct Fields<'a> {
    fingerprint: &'a str,
    made: &'a str,
    vault: &'a str,
    number: usize,
    pages: usize,
}

/// One sheet: its title, fingerprint and date, the words, then the three notes.
fn write_page(out: &mut String, page: &Page, f: &Fields<'_>) {
    let n = page.words.len();
    // Writing into a String cannot fail.
    let _ = write!(
        out,
        "<section class=\"sheet\" aria-labelledby=\"sheet-{}\">\n<header>\n<h1 id=\"sheet-{}\">",
        f.number, f.number
    );
    match page.sheet {
        Sheet::Phrase => out.push_str("nexusq recovery phrase"),
        Sheet::Share {
            index,
            threshold,
            count,
        } => {
            let _ = write!(
                out,
                "nexusq recovery share {index} of {count} (any {threshold} rebuild the identity)"
            );
        }
    }
    out.push_str("</h1>\n<p class=\"lead\">");
    match page.sheet {
        Sheet::Phrase => {
            let _ = write!(
                out,
                "These {n} words are the master secret of your nexusq identity. With them, \
                 <code>nexusq recover</code> rebuilds its root key and every key it derived, on \
                 any device. <span class=\"warn\">Whoever reads them can be you.</span>"
            );
        }
        Sheet::Share {
            threshold, count, ..
        } => {
            let _ = write!(
                out,
                "One share of the master secret of your nexusq identity. Any {threshold} of the \
                 {count} shares rebuild it with <code>nexusq recover</code>, on any device; \
                 fewer tell nothing about it. <span class=\"warn\">Whoever gathers \
                 {threshold} can be you.</span>"
            );
        }
    }
    let _ = write!(
        out,
        "</p>\n<dl class=\"meta\"><dt>Identity</dt><dd class=\"fp\">{}</dd>\
         <dt>Made</dt><dd>{}</dd><dt>Page</dt><dd>{} of {} in this kit</dd></dl>\n</header>\n",
        f.fingerprint, f.made, f.number, f.pages
    );

    let _ = writeln!(
        out,
        "<ol class=\"words\" aria-label=\"The {n} words, in order\">"
    );
    for (i, word) in page.words.iter().enumerate() {
        let _ = write!(
            out,
            "<li><span class=\"n\">{}</span><span class=\"w\">",
            i + 1
        );
        esc_into(out, word);
        out.push_str("</span></li>\n");
    }
    out.push_str("</ol>\n");

    out.push_str("<h2>Where to keep it</h2>\n<ul>\n");
    out.push_str(
        "<li>On paper only: do not photograph or scan it, and keep it out of cloud storage, \
         email, chat and other devices.</li>\n\
         <li>Out of sight, somewhere private and dry (a locked drawer, a safe), and not with \
         the phone.</li>\n",
    );
    match page.sheet {
        Sheet::Phrase => out.push_str(
            "<li>Write nothing on it that says what it is for, and make no copies you do not \
             keep as carefully.</li>\n",
        ),
        Sheet::Share { threshold, .. } => {
            let _ = writeln!(
                out,
                "<li>Give each share to a different person you trust, or keep it in a different \
                 place. Never keep {threshold} shares together, and never all of them with \
                 the phone.</li>"
            );
        }
    }
    out.push_str("</ul>\n");

    out.push_str("<h2>How to recover</h2>\n");
    match page.sheet {
        Sheet::Phrase => {
            out.push_str(
                "<p>At a terminal on the new device, which asks for the words one by one (the \
                 first 4 letters of each word are enough):</p>\n\
                 <p class=\"cmd\"><code>nexusq --vault NEW recover</code></p>\n",
            );
            let _ = write!(
                out,
                "<p>or from a file you typed the {n} words into (delete it afterwards):</p>\n\
                 <p class=\"cmd\"><code>nexusq --vault NEW recover --phrase-file FILE</code></p>\n"
            );
        }
        Sheet::Share { threshold, .. } => {
            let _ = write!(
                out,
                "<p>Gather {threshold} shares, type the words of each into a file of its own, \
                 and give one <code>--share-file</code> per share:</p>\n\
                 <p class=\"cmd\"><code>nexusq --vault NEW recover"
            );
            share_files(out, threshold);
            out.push_str("</code></p>\n");
        }
    }
    let _ = writeln!(
        out,
        "<p>NEW is the vault file to create; this kit was made for <code>{}</code>. Add \
         <code>--from-export EXPORT</code>, your public export (from a contact, or from where \
         you published it), to bring back every key generation it certifies with the same \
         certificates (a plain export carries only the newest one: keep an export made with \
         <code>nexusq identity export --full-history</code> with this page); without it, the \
         root and a new generation 1 come back. Check the words now with \
         <code>nexusq backup check</code> (it writes nothing), and again now and then, as a \
         drill.</p>",
        f.vault
    );

    out.push_str("<h2>What it does not cover</h2>\n<ul>\n");
    out.push_str(
        "<li>The contacts book and the agent&#39;s state: keep an encrypted copy of the vault \
         file and of the contacts book as well.</li>\n\
         <li>The certificates: they travel in your exports (<code>--from-export</code> \
         above).</li>\n",
    );
    let holders = match page.sheet {
        Sheet::Phrase => String::from("these words"),
        Sheet::Share { threshold, .. } => format!("{threshold} shares"),
    };
    let _ = write!(
        out,
        "<li>Forward secrecy: whoever holds {holders} can derive every key again, those retired \
         with <code>nexusq rotate --retire-older-than</code> included, and decrypt what they \
         protected. Keep this page as safe as the phone itself.</li>\n</ul>\n</section>\n"
    );
}

/// `--share-file F1 --share-file F2 …`, one per share needed; shortened past four.
fn share_files(out: &mut String, threshold: u8) {
    let threshold = threshold.max(1);
    if threshold <= 4 {
        for i in 1..=threshold {
            let _ = write!(out, " --share-file F{i}");
        }
    } else {
        let _ = write!(
            out,
            " --share-file F1 --share-file F2 … --share-file F{threshold}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first words of the BIP39 English list, and a few from further on.
    const WORDS: [&str; 32] = [
        "abandon", "ability", "able", "about", "above", "absent", "absorb", "abstract", "absurd",
        "abuse", "access", "accident", "account", "accuse", "achieve", "acid", "acoustic",
        "acquire", "across", "act", "action", "actor", "actress", "actual", "adapt", "add",
        "addict", "address", "adjust", "admit", "zebra", "zoo",
    ];

    fn words(n: usize, skip: usize) -> Vec<&'static str> {
        WORDS.iter().cycle().skip(skip).take(n).copied().collect()
    }

    fn kit<'a>(vault: &'a str) -> Kit<'a> {
        let mut pages = vec![Page {
            sheet: Sheet::Phrase,
            words: words(24, 0),
        }];
        for index in 1..=3 {
            pages.push(Page {
                sheet: Sheet::Share {
                    index,
                    threshold: 2,
                    count: 3,
                },
                words: words(30, usize::from(index)),
            });
        }
        Kit {
            fingerprint: "abcd-efgh-ijkl-mnop-qrst-uvwx-yz23-4567",
            made: "2026-12-04",
            vault,
            pages,
        }
    }

    /// The page's sections, each as its own text.
    fn sheets(html: &str) -> Vec<&str> {
        html.split("<section class=\"sheet\"").skip(1).collect()
    }

    #[test]
    fn one_page_per_sheet_with_its_title() {
        let kit = kit("~/vault.nxq");
        let html = render(&kit);
        let sheets = sheets(&html);
        assert_eq!(sheets.len(), 4);
        assert!(sheets[0].contains(">nexusq recovery phrase</h1>"));
        for (i, s) in sheets[1..].iter().enumerate() {
            let title = format!(
                ">nexusq recovery share {} of 3 (any 2 rebuild the identity)</h1>",
                i + 1
            );
            assert!(s.contains(&title), "{title}");
            assert!(s.contains("Any 2 of the 3 shares"));
            assert!(s.contains("Never keep 2 shares together"));
            assert!(s.contains("recover --share-file F1 --share-file F2</code>"));
            assert!(!s.contains("--phrase-file"));
        }
        assert!(sheets[0].contains("recover --phrase-file FILE</code>"));
        assert!(!sheets[0].contains("--share-file F1"));
        for (i, s) in sheets.iter().enumerate() {
            assert!(s.contains("abcd-efgh-ijkl-mnop-qrst-uvwx-yz23-4567"));
            assert!(s.contains("<dd>2026-12-04</dd>"));
            assert!(s.contains(&format!("<dd>{} of 4 in this kit</dd>", i + 1)));
            for needle in [
                "Where to keep it",
                "How to recover",
                "What it does not cover",
                "--from-export EXPORT",
                "nexusq backup check",
                "rotate --retire-older-than",
                "contacts book",
            ] {
                assert!(s.contains(needle), "page {} lacks {needle}", i + 1);
            }
        }
        // A4 pages, a break after every sheet but the last.
        assert!(html.contains("@page { size: A4; margin: 14mm; }"));
        assert!(html.contains("break-after: page"));
        assert!(html.contains(".sheet:last-of-type { break-after: auto;"));
    }

    #[test]
    fn the_words_are_in_order_in_boxes_numbered_from_one() {
        let kit = kit("v");
        let html = render(&kit);
        for (page, sheet) in kit.pages.iter().zip(sheets(&html)) {
            let mut at = 0;
            for (i, word) in page.words.iter().enumerate() {
                let cell = format!(
                    "<li><span class=\"n\">{}</span><span class=\"w\">{word}</span></li>",
                    i + 1
                );
                let found = sheet[at..].find(&cell).unwrap_or_else(|| panic!("{cell}"));
                at += found + cell.len();
            }
            assert_eq!(
                sheet.matches("<span class=\"n\">").count(),
                page.words.len()
            );
        }
    }

    #[test]
    fn self_contained_no_scripts_and_no_loads() {
        let html = render(&kit("v"));
        assert!(html.contains(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'; img-src data:\">"
        ));
        let lower = html.to_lowercase();
        for banned in [
            "<script", "http:", "https:", "//", "src=", "href=", "url(", "@import", "<link",
        ] {
            assert!(!lower.contains(banned), "{banned}");
        }
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.ends_with("</html>\n"));
    }

    #[test]
    fn every_field_is_escaped() {
        let vault = "~/a<b>&\"c'\u{202E}d.nxq";
        let mut kit = kit(vault);
        kit.fingerprint = "<i>fp</i>";
        kit.made = "2026&12";
        kit.pages[0].words[3] = "<b>";
        let html = render(&kit);
        assert!(html.contains("~/a&lt;b&gt;&amp;&quot;c&#39;&lt;U+202E&gt;d.nxq"));
        assert!(!html.contains(vault));
        assert!(!html.contains('\u{202E}'));
        assert!(html.contains("&lt;i&gt;fp&lt;/i&gt;"));
        assert!(!html.contains("<i>"));
        assert!(html.contains("<dd>2026&amp;12</dd>"));
        assert!(html.contains("<span class=\"w\">&lt;b&gt;</span>"));
        assert!(!html.contains("<b>"));
    }

    /// The reserved buffer is never outgrown (which would leave a copy behind), even with long
    /// fields that escape to many times their length, and many pages.
    #[test]
    fn the_page_stays_in_its_reserved_buffer() {
        let long = "\u{202E}<&".repeat(300);
        let mut kit = kit(&long);
        kit.fingerprint = &long;
        kit.made = &long;
        for _ in 0..20 {
            kit.pages.push(Page {
                sheet: Sheet::Share {
                    index: 200,
                    threshold: 255,
                    count: 255,
                },
                words: words(30, 0),
            });
        }
        // render's debug assertion checks the capacity; tests run with debug assertions.
        let html = render(&kit);
        assert!(html.contains("--share-file F2 … --share-file F255</code>"));
        assert_eq!(sheets(&html).len(), 24);
    }

    #[test]
    fn debug_shows_no_words() {
        let kit = kit("v");
        let shown = format!("{kit:?} {:?}", kit.pages[0]);
        for word in WORDS {
            assert!(!shown.contains(word), "{word} in {shown}");
        }
        assert!(shown.contains("[24 hidden]") && shown.contains("[30 hidden]"));
        assert!(shown.contains("Share { index: 1, threshold: 2, count: 3 }"));
    }
}

//! Small HTML pieces: escaping and tables. Every string that came from an evidence file goes
//! through [`esc`] before it is written into the page.

pub use crate::untrusted::{html as esc, html_into as esc_into};

/// A cell: its HTML (already escaped or built by us) and whether it holds a number.
pub struct Cell {
    /// The cell's content, already HTML.
    pub html: String,
    /// A number: right-aligned (CSS class `num`).
    pub numeric: bool,
    /// A further CSS class for the cell.
    pub class: Option<&'static str>,
}

impl Cell {
    /// Text from anywhere, escaped.
    pub fn text(s: &str) -> Cell {
        Cell {
            html: esc(s),
            numeric: false,
            class: None,
        }
    }

    /// A number we formatted, right-aligned.
    pub(crate) fn num(s: &str) -> Cell {
        Cell {
            html: esc(s),
            numeric: true,
            class: None,
        }
    }

    /// The same cell with the CSS class `class` added.
    pub fn class(mut self, class: &'static str) -> Cell {
        self.class = Some(class);
        self
    }
}

/// A table in a horizontally scrolling wrapper (narrow screens), with a caption.
pub fn table(caption: &str, header: &[&str], rows: &[Vec<Cell>]) -> String {
    let mut out = String::from("<div class=\"scroll\"><table>");
    out += &format!("<caption>{}</caption><thead><tr>", esc(caption));
    for h in header {
        out += &format!("<th scope=\"col\">{}</th>", esc(h));
    }
    out += "</tr></thead><tbody>";
    for row in rows {
        out += "<tr>";
        for cell in row {
            let mut classes = Vec::new();
            if cell.numeric {
                classes.push("num");
            }
            classes.extend(cell.class);
            if classes.is_empty() {
                out += &format!("<td>{}</td>", cell.html);
            } else {
                out += &format!("<td class=\"{}\">{}</td>", classes.join(" "), cell.html);
            }
        }
        out += "</tr>";
    }
    out += "</tbody></table></div>\n";
    out
}

/// Nanoseconds per operation in a readable unit: the formatter `nexusq bench`'s tables use too.
pub use crate::tools::bench::report::time;

/// A ratio to two decimals; "–" when undefined.
pub fn ratio(r: Option<f64>) -> String {
    r.filter(|r| r.is_finite())
        .map_or("–".into(), |r| format!("{r:.2}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            esc(r#"<script>alert("x&y")</script> it's"#),
            "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; it&#39;s"
        );
        assert_eq!(esc("a\u{1b}[31mb"), "a&lt;U+001B&gt;[31mb");
        assert_eq!(esc("tab\tand\nline"), "tab\tand\nline");
        let t = table("c<", &["h&"], &[vec![Cell::text("<b>"), Cell::num("1")]]);
        assert!(t.contains("<caption>c&lt;</caption>"));
        assert!(t.contains("<th scope=\"col\">h&amp;</th>"));
        assert!(t.contains("<td>&lt;b&gt;</td><td class=\"num\">1</td>"));
    }

    #[test]
    fn bidi_controls_and_invisible_characters_are_shown_by_code_point() {
        let hidden = [
            '\u{202A}',
            '\u{202B}',
            '\u{202C}',
            '\u{202D}',
            '\u{202E}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{200E}',
            '\u{200F}',
            '\u{061C}',
            '\u{200B}',
            '\u{200D}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{E0041}',
            '\u{85}',
            '\u{7f}',
        ];
        for c in hidden {
            let e = esc(&format!("a{c}b"));
            assert_eq!(e, format!("a&lt;U+{:04X}&gt;b", c as u32));
        }
        // A CPU name that would read "AMD EPYC exe.txt" with the override applied.
        let page = esc("AMD EPYC \u{202E}txt.exe");
        assert_eq!(page, "AMD EPYC &lt;U+202E&gt;txt.exe");
        // Other text, accents and emoji included, is untouched.
        assert_eq!(esc("Cortex-A78 — café 📱 µs"), "Cortex-A78 — café 📱 µs");
    }

    #[test]
    fn times_and_ratios() {
        // The shared formatter (bench::report::time has the full test).
        assert_eq!(time(12_345.0), "12.3 µs");
        assert_eq!(ratio(Some(0.6789)), "0.68");
        assert_eq!(ratio(None), "–");
    }
}

//! Small HTML pieces: escaping and tables. Every string that came from an evidence file goes
//! through [`esc`] before it is written into the page.

/// `text` with `& < > " '` replaced by character references.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and newline would only confuse a reader.
            c if c.is_control() && c != '\t' && c != '\n' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A cell: its HTML (already escaped or built by us) and whether it holds a number.
pub struct Cell {
    pub html: String,
    pub numeric: bool,
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
    pub fn num(s: &str) -> Cell {
        Cell {
            html: esc(s),
            numeric: true,
            class: None,
        }
    }

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

/// Nanoseconds per operation in a readable unit, three significant digits: "812 ns",
/// "12.3 µs", "1.05 ms", "2.50 s".
pub fn time(ns: f64) -> String {
    if !ns.is_finite() {
        return "–".into();
    }
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

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
        assert_eq!(esc("a\u{1b}[31mb"), "a\u{fffd}[31mb");
        let t = table("c<", &["h&"], &[vec![Cell::text("<b>"), Cell::num("1")]]);
        assert!(t.contains("<caption>c&lt;</caption>"));
        assert!(t.contains("<th scope=\"col\">h&amp;</th>"));
        assert!(t.contains("<td>&lt;b&gt;</td><td class=\"num\">1</td>"));
    }

    #[test]
    fn times_and_ratios() {
        assert_eq!(time(812.4), "812 ns");
        assert_eq!(time(12_345.0), "12.3 µs");
        assert_eq!(time(1_049_000.0), "1.05 ms");
        assert_eq!(time(2.5e9), "2.50 s");
        assert_eq!(time(f64::NAN), "–");
        assert_eq!(ratio(Some(0.6789)), "0.68");
        assert_eq!(ratio(None), "–");
    }
}

//! SVG bar charts of medians with p95 marks. Horizontal bars, the label above each bar, so the
//! chart reads at phone width without shrinking its text. Every bar is a `rect` of class
//! `bar` (the browser test counts them), every p95 mark a `line` of class `p95`.

use super::html::{esc, time};

/// One bar: who and what, its median and p95 in ns, and whether it is the subject.
pub(crate) struct Bar {
    pub label: String,
    pub median: f64,
    pub p95: f64,
    pub subject: bool,
}

/// Linear from zero (bars of one operation), or logarithmic (rows of very different cost).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    Linear,
    Log,
}

const WIDTH: f64 = 400.0;
const ROW: f64 = 34.0;
const TOP: f64 = 40.0;

/// The chart as an inline `<svg>`; `title` is its heading (escaped here).
pub fn bars(title: &str, bars: &[Bar], scale: Scale) -> String {
    let height = TOP + ROW * bars.len() as f64 + 8.0;
    let max = bars
        .iter()
        .flat_map(|b| [b.median, b.p95])
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    let min = bars
        .iter()
        .map(|b| b.median)
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    // Log scale: from a power of ten below the smallest median to one above the largest value.
    let (lo, hi) = (
        (min / 2.0).log10().floor(),
        max.log10().ceil().max((min / 2.0).log10().floor() + 1.0),
    );
    let x = |v: f64| -> f64 {
        if !(v.is_finite() && v > 0.0 && max > 0.0) {
            return 0.0;
        }
        let f = match scale {
            Scale::Linear => v / max,
            Scale::Log => (v.log10() - lo) / (hi - lo),
        };
        (f.clamp(0.0, 1.0) * WIDTH).max(1.0)
    };
    let note = match scale {
        Scale::Linear => "median per operation, p95 marked; shorter is faster",
        Scale::Log => "median per operation (log scale), p95 marked; shorter is faster",
    };
    let mut out = format!(
        "<figure class=\"chart\"><svg viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" \
         aria-label=\"{t}\" xmlns=\"http://www.w3.org/2000/svg\">\
         <text class=\"title\" x=\"0\" y=\"14\">{t}</text>\
         <text class=\"note\" x=\"0\" y=\"30\">{note}</text>",
        t = esc(title),
    );
    for (i, b) in bars.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let class = if b.subject { "bar subject" } else { "bar" };
        out += &format!(
            "<text class=\"label\" x=\"0\" y=\"{ly}\">{label}</text>\
             <text class=\"value\" x=\"{WIDTH}\" y=\"{ly}\" text-anchor=\"end\">{m} (p95 {p})</text>\
             <rect class=\"{class}\" x=\"0\" y=\"{by}\" width=\"{w:.1}\" height=\"12\"><title>{label}: median {m}, p95 {p}</title></rect>\
             <line class=\"p95\" x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{p1}\" y2=\"{p2}\"/>",
            ly = y + 11.0,
            by = y + 15.0,
            label = esc(&b.label),
            m = time(b.median),
            p = time(b.p95),
            w = x(b.median),
            px = x(b.p95),
            p1 = y + 13.0,
            p2 = y + 29.0,
        );
    }
    out += "</svg></figure>\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(label: &str, median: f64, p95: f64) -> Bar {
        Bar {
            label: label.into(),
            median,
            p95,
            subject: label == "ours",
        }
    }

    #[test]
    fn one_rect_and_one_mark_per_bar() {
        let svg = bars(
            "ML-KEM-768 <keygen>",
            &[bar("ours", 10.0, 12.0), bar("theirs", 20.0, 40.0)],
            Scale::Linear,
        );
        assert_eq!(svg.matches("<rect class=\"bar").count(), 2);
        assert_eq!(svg.matches("class=\"bar subject\"").count(), 1);
        assert_eq!(svg.matches("<line class=\"p95\"").count(), 2);
        assert!(svg.contains("shorter is faster"));
        assert!(svg.contains("ML-KEM-768 &lt;keygen&gt;"));
        // The longest value (theirs' p95) spans the width; the medians are in proportion.
        assert!(svg.contains("width=\"100.0\""), "{svg}");
        assert!(svg.contains("width=\"200.0\""), "{svg}");
        assert!(svg.contains("x1=\"400.0\""), "{svg}");
    }

    #[test]
    fn log_scale_keeps_small_bars_visible() {
        let svg = bars(
            "baseline",
            &[bar("a", 20_000.0, 25_000.0), bar("b", 500_000_000.0, 6e8)],
            Scale::Log,
        );
        assert!(svg.contains("log scale"));
        let widths: Vec<f64> = svg
            .split("width=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(widths.len(), 2);
        assert!(
            widths[0] > 20.0 && widths[0] < widths[1] && widths[1] <= 400.0,
            "{widths:?}"
        );
    }
}

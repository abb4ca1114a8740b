//! Summary statistics of timing samples: mean, median, nearest-rank p95, min, max.

use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub mean_ns: f64,
    pub median_ns: f64,
    pub p95_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
}

/// Nearest-rank percentile of sorted values: the smallest value with at least p% at or below it.
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn summarize(samples: &[Duration]) -> Summary {
    let mut ns: Vec<f64> = samples.iter().map(|d| d.as_nanos() as f64).collect();
    ns.sort_by(|a, b| a.total_cmp(b));
    let n = ns.len();
    let median = if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        ns[n / 2]
    } else {
        (ns[n / 2 - 1] + ns[n / 2]) / 2.0
    };
    Summary {
        count: n,
        mean_ns: if n == 0 {
            f64::NAN
        } else {
            ns.iter().sum::<f64>() / n as f64
        },
        median_ns: median,
        p95_ns: nearest_rank(&ns, 95.0),
        min_ns: ns.first().copied().unwrap_or(f64::NAN),
        max_ns: ns.last().copied().unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        let s: Vec<Duration> = (1..=20).map(Duration::from_nanos).collect();
        let sum = summarize(&s);
        assert_eq!(sum.count, 20);
        assert_eq!(sum.median_ns, 10.5);
        assert_eq!(sum.p95_ns, 19.0);
        assert_eq!(sum.min_ns, 1.0);
        assert_eq!(sum.max_ns, 20.0);
        assert_eq!(sum.mean_ns, 10.5);
        assert_eq!(nearest_rank(&[5.0], 95.0), 5.0);
        assert!(summarize(&[]).median_ns.is_nan());
    }
}

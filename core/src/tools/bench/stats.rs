//! Summary statistics of timing samples: mean, median, nearest-rank p95, min, max; pooling of
//! alternating rounds; ratios.

use std::time::Duration;

/// Statistics of a set of samples, in nanoseconds; NaN where none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    /// Mean.
    pub mean_ns: f64,
    /// Median; of an even count, the mean of the middle two.
    pub median_ns: f64,
    /// Nearest-rank 95th percentile ([`nearest_rank`]).
    pub p95_ns: f64,
    /// Smallest sample.
    pub min_ns: f64,
    /// Largest sample.
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

/// Summarize durations (see [`summarize_ns`]).
pub fn summarize(samples: &[Duration]) -> Summary {
    let ns: Vec<f64> = samples.iter().map(|d| d.as_nanos() as f64).collect();
    summarize_ns(&ns)
}

/// `summarize` of samples already in nanoseconds (the arena's are fractions: a batch's time
/// divided by its size).
pub fn summarize_ns(samples: &[f64]) -> Summary {
    let mut ns = samples.to_vec();
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

/// The samples of several rounds as one pool, in round order.
pub fn pool(rounds: &[Vec<Duration>]) -> Vec<Duration> {
    rounds.iter().flatten().copied().collect()
}

/// `candidate / baseline`; NaN when either is not a positive finite number.
pub fn ratio(candidate: f64, baseline: f64) -> f64 {
    if candidate.is_finite() && baseline.is_finite() && candidate >= 0.0 && baseline > 0.0 {
        candidate / baseline
    } else {
        f64::NAN
    }
}

/// A ratio passes the gate when it is a number no larger than the gate.
pub(crate) fn within_gate(ratio: f64, gate: f64) -> bool {
    ratio.is_finite() && ratio <= gate
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

    fn ns(values: &[u64]) -> Vec<Duration> {
        values.iter().copied().map(Duration::from_nanos).collect()
    }

    #[test]
    fn odd_count_median_and_unsorted_input() {
        let sum = summarize(&ns(&[50, 10, 40, 20, 30]));
        assert_eq!(sum.median_ns, 30.0);
        assert_eq!(sum.mean_ns, 30.0);
        assert_eq!((sum.min_ns, sum.max_ns), (10.0, 50.0));
        // ceil(0.95 * 5) = 5: the largest.
        assert_eq!(sum.p95_ns, 50.0);
    }

    #[test]
    fn nearest_rank_p95_boundaries() {
        let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&sorted, 95.0), 95.0);
        assert_eq!(nearest_rank(&sorted[..40], 95.0), 38.0); // ceil(38.0) = 38
        assert_eq!(nearest_rank(&sorted[..21], 95.0), 20.0); // ceil(19.95) = 20
        assert_eq!(nearest_rank(&sorted[..3], 95.0), 3.0);
        assert_eq!(nearest_rank(&sorted[..2], 50.0), 1.0);
        assert_eq!(nearest_rank(&sorted[..10], 0.0), 1.0);
        assert!(nearest_rank(&[], 95.0).is_nan());
    }

    #[test]
    fn pooled_rounds_are_one_sample() {
        // Three alternating rounds of 4; the pool is summarized as a whole, so a slow round
        // moves the p95 but barely the median.
        let rounds = vec![
            ns(&[10, 11, 12, 13]),
            ns(&[10, 12, 11, 13]),
            ns(&[40, 41, 42, 43]),
        ];
        let pooled = pool(&rounds);
        assert_eq!(pooled.len(), 12);
        assert_eq!(pooled[4], Duration::from_nanos(10));
        let s = summarize(&pooled);
        assert_eq!(s.count, 12);
        assert_eq!(s.median_ns, 12.5); // (12 + 13) / 2 of 10,10,11,11,12,12,13,13,40,...
        assert_eq!(s.p95_ns, 43.0); // ceil(11.4) = 12th
        assert_eq!(s.mean_ns, 258.0 / 12.0);
        assert!(pool(&[]).is_empty());
    }

    #[test]
    fn ratios_and_gate() {
        assert_eq!(ratio(150.0, 100.0), 1.5);
        assert_eq!(ratio(0.0, 100.0), 0.0);
        assert!(ratio(1.0, 0.0).is_nan());
        assert!(ratio(f64::NAN, 1.0).is_nan());
        assert!(within_gate(1.5, 1.5));
        assert!(within_gate(0.7, 1.5));
        assert!(!within_gate(1.500_001, 1.5));
        assert!(!within_gate(f64::NAN, 1.5));
    }
}

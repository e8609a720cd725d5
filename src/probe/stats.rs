//! Order statistics of latencies: exact nearest-rank percentiles over the sorted values.
//!
//! Definition (printed with every report): the p-th percentile of n sorted values x(1..n) is
//! x(ceil(p*n)), with p as an exact fraction so p99.9 of 10 000 values is x(9990), not x(9991)
//! through floating-point rounding. Sorting a million `i64` takes a few tens of ms, so no
//! approximate sketch is needed.

use serde::Serialize;

use super::units::Nanos;

/// A percentile as an exact fraction `num/den`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantile {
    pub num: u64,
    pub den: u64,
}

pub const MEDIAN: Quantile = Quantile { num: 1, den: 2 };
pub const P90: Quantile = Quantile { num: 9, den: 10 };
pub const P99: Quantile = Quantile { num: 99, den: 100 };
pub const P999: Quantile = Quantile {
    num: 999,
    den: 1000,
};

impl Quantile {
    /// The 1-based nearest rank among `n` values: ceil(num*n/den), at least 1.
    pub fn rank(self, n: usize) -> usize {
        let n = n as u128;
        let r = (u128::from(self.num) * n).div_ceil(u128::from(self.den));
        usize::try_from(r.max(1)).unwrap_or(usize::MAX)
    }
}

/// The 0-based index of the nearest-rank percentile among `n` sorted values; `None` when
/// there are none.
pub fn percentile_rank(n: usize, q: Quantile) -> Option<usize> {
    if n == 0 {
        return None;
    }
    q.rank(n).checked_sub(1)
}

/// The nearest-rank percentile of already sorted values; `None` when there are none.
pub fn percentile(sorted: &[Nanos], q: Quantile) -> Option<Nanos> {
    sorted.get(percentile_rank(sorted.len(), q)?).copied()
}

/// The figures reported for a set of latencies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub min_ns: Option<Nanos>,
    pub median_ns: Option<Nanos>,
    pub p90_ns: Option<Nanos>,
    pub p99_ns: Option<Nanos>,
    pub p999_ns: Option<Nanos>,
    pub max_ns: Option<Nanos>,
    pub mean_ns: Option<f64>,
}

impl Summary {
    /// Summarises `values` (sorted here).
    pub fn of(mut values: Vec<Nanos>) -> Summary {
        values.sort_unstable();
        Summary::of_sorted(&values)
    }

    pub fn of_sorted(sorted: &[Nanos]) -> Summary {
        Summary::of_ascending(sorted.len(), sorted.iter().copied())
    }

    /// Summarises `n` values given in ascending order, in one pass (the analyser's samples
    /// are read this way rather than copied out).
    pub fn of_ascending(n: usize, values: impl Iterator<Item = Nanos>) -> Summary {
        let ranks = [MEDIAN, P90, P99, P999].map(|q| percentile_rank(n, q));
        let mut at = [None; 4];
        let (mut min, mut max, mut sum, mut seen) = (None, None, 0.0, 0usize);
        for (i, v) in values.take(n).enumerate() {
            min = min.or(Some(v));
            max = Some(v);
            sum += v.0 as f64;
            seen += 1;
            for (slot, rank) in at.iter_mut().zip(ranks) {
                if rank == Some(i) {
                    *slot = Some(v);
                }
            }
        }
        let [median_ns, p90_ns, p99_ns, p999_ns] = at;
        Summary {
            n: seen,
            min_ns: min,
            median_ns,
            p90_ns,
            p99_ns,
            p999_ns,
            max_ns: max,
            mean_ns: (seen > 0).then(|| sum / seen as f64),
        }
    }
}

/// One bin of a log-scale histogram: `[lo, hi)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bin {
    pub lo_ns: Nanos,
    pub hi_ns: Nanos,
    pub count: usize,
}

/// A histogram with `per_octave` bins per doubling, from the smallest to the largest value.
/// Values at or below zero go into the first bin.
pub fn log_histogram(sorted: &[Nanos], per_octave: u32) -> Vec<Bin> {
    log_histogram_ascending(sorted.iter().copied(), per_octave)
}

/// [`log_histogram`] of values given in ascending order.
pub fn log_histogram_ascending(
    sorted: impl DoubleEndedIterator<Item = Nanos> + Clone,
    per_octave: u32,
) -> Vec<Bin> {
    let (Some(first), Some(last)) = (sorted.clone().next(), sorted.clone().next_back()) else {
        return Vec::new();
    };
    let lo = (first.0.max(1) as f64).log2();
    let hi = (last.0.max(1) as f64).log2();
    let step = 1.0 / f64::from(per_octave.max(1));
    let start = (lo / step).floor() * step;
    let bins = (((hi - start) / step).floor() as usize + 1).min(4096);
    let edge = |i: usize| Nanos((start + step * i as f64).exp2().round() as i64);
    let mut out: Vec<Bin> = (0..bins)
        .map(|i| Bin {
            lo_ns: edge(i),
            hi_ns: edge(i + 1),
            count: 0,
        })
        .collect();
    for v in sorted {
        let x = (v.0.max(1) as f64).log2();
        let i = (((x - start) / step).floor().max(0.0) as usize).min(bins - 1);
        out[i].count += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(v: &[i64]) -> Vec<Nanos> {
        v.iter().map(|x| Nanos(*x)).collect()
    }

    #[test]
    fn nearest_rank_against_hand_checked_vectors() {
        // Wikipedia's nearest-rank example: 15 20 35 40 50.
        let v = ns(&[15, 20, 35, 40, 50]);
        assert_eq!(
            percentile(&v, Quantile { num: 5, den: 100 }),
            Some(Nanos(15))
        );
        assert_eq!(
            percentile(&v, Quantile { num: 30, den: 100 }),
            Some(Nanos(20))
        );
        assert_eq!(
            percentile(&v, Quantile { num: 40, den: 100 }),
            Some(Nanos(20))
        );
        assert_eq!(percentile(&v, MEDIAN), Some(Nanos(35)));
        assert_eq!(percentile(&v, Quantile { num: 1, den: 1 }), Some(Nanos(50)));
        // 3 6 7 8 8 10 13 15 16 20: p25 = x(3) = 7, median = x(5) = 8, p75 = x(8) = 15, p90 = x(9) = 16.
        let v = ns(&[3, 6, 7, 8, 8, 10, 13, 15, 16, 20]);
        assert_eq!(percentile(&v, Quantile { num: 1, den: 4 }), Some(Nanos(7)));
        assert_eq!(percentile(&v, MEDIAN), Some(Nanos(8)));
        assert_eq!(percentile(&v, Quantile { num: 3, den: 4 }), Some(Nanos(15)));
        assert_eq!(percentile(&v, P90), Some(Nanos(16)));
        assert_eq!(percentile(&v, P99), Some(Nanos(20)));
        assert_eq!(percentile(&[], MEDIAN), None);
        assert_eq!(percentile(&ns(&[7]), P999), Some(Nanos(7)));
    }

    #[test]
    fn ranks_are_exact_for_the_lab_size() {
        assert_eq!(MEDIAN.rank(10_000), 5_000);
        assert_eq!(P99.rank(10_000), 9_900);
        assert_eq!(P999.rank(10_000), 9_990);
        assert_eq!(P999.rank(10_001), 9_991);
        assert_eq!(MEDIAN.rank(1), 1);
    }

    #[test]
    fn summary_of_one_to_a_hundred() {
        let s = Summary::of((1..=100).rev().map(Nanos).collect());
        assert_eq!(
            (s.n, s.min_ns, s.median_ns, s.p90_ns, s.p99_ns, s.max_ns),
            (
                100,
                Some(Nanos(1)),
                Some(Nanos(50)),
                Some(Nanos(90)),
                Some(Nanos(99)),
                Some(Nanos(100))
            )
        );
        assert_eq!(s.p999_ns, Some(Nanos(100)));
        assert_eq!(s.mean_ns, Some(50.5));
        assert_eq!(Summary::of(Vec::new()).median_ns, None);
    }

    #[test]
    fn histogram_counts_every_value_once() {
        let v = ns(&[4_100, 4_100, 4_150, 40_000, 49_000]);
        let h = log_histogram(&v, 4);
        assert_eq!(h.iter().map(|b| b.count).sum::<usize>(), 5);
        assert!(h.first().unwrap().lo_ns.0 <= 4_100 && h.last().unwrap().hi_ns.0 > 49_000);
        assert!(log_histogram(&[], 4).is_empty());
        assert_eq!(
            log_histogram(&ns(&[-5, 0]), 4)
                .iter()
                .map(|b| b.count)
                .sum::<usize>(),
            2
        );
    }
}

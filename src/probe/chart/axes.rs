//! Axes a latency engineer can read at a glance: latency on a log scale with 1-2-5 ticks
//! ("4 µs" falls between the labelled 2 and 5, not on a bare stretch between 10 and 20),
//! percentiles on the HdrHistogram scale where 90 %, 99 %, 99.9 % and 99.99 % are evenly
//! spaced (x = log10(1 / (1 - p))), and counts as whole numbers ("12,000", never "12000.0").

use std::ops::Range;

use plotters::coord::combinators::{BindKeyPoints, IntoLogRange, LogCoord, WithKeyPoints};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

use crate::units::Nanos;

/// A linear axis whose ticks are given (plotters' own f64 axis picks its own, and its
/// key-point wrapper cannot be formatted).
#[derive(Clone, Debug)]
pub struct Ticked {
    pub range: Range<f64>,
    pub ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let share = if span > 0.0 {
            (value - self.range.start) / span
        } else {
            0.0
        };
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// The x of percentile `p` (a fraction) on the percentile plot: 0 % at 0, 90 % at 1, 99 % at
/// 2, 99.9 % at 3.
pub fn pct_x(p: f64) -> f64 {
    -(1.0 - p).max(1e-15).log10()
}

/// The x where the `i`-th (0-based) of `n` sorted values begins: the share of values below it.
/// The slowest value sits at log10(n).
pub fn rank_x(i: usize, n: usize) -> f64 {
    pct_x(i as f64 / n.max(1) as f64)
}

/// The 0-based index of the value shown at `x` among `n` sorted values.
pub fn index_at(x: f64, n: usize) -> usize {
    let p = 1.0 - 10f64.powf(-x);
    ((p * n as f64).floor().max(0.0) as usize).min(n.saturating_sub(1))
}

/// Ticks of the percentile axis up to `x_max`: 0 %, 50 %, 90 %, 99 %, 99.9 % ...
pub fn pct_ticks(x_max: f64) -> Vec<f64> {
    // 0 % is the axis itself; 50 % (the median) is the first tick worth reading.
    let mut ticks = vec![2f64.log10()];
    ticks.extend((1..=12).map(f64::from).take_while(|x| *x <= x_max + 1e-9));
    ticks
}

/// The label of a percentile tick: "50%", "99.9%".
pub fn pct_label(x: f64) -> String {
    let p = 100.0 * (1.0 - 10f64.powf(-x));
    let decimals = (x.round() as i64 - 2).clamp(0, 10) as usize;
    let mut s = format!("{p:.decimals$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    format!("{s}%")
}

/// Log-scale ticks between `lo` and `hi` (both > 0): 1, 2, 5 of every decade as labelled
/// ticks when that makes at most 10 of them, else the powers of ten labelled and 2 and 5 as
/// grid lines only.
pub fn ticks_125(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    let (lo, hi) = (lo.max(1e-12), hi.max(lo * 1.000_001));
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    let inside = |v: &f64| *v >= lo * 0.999_999 && *v <= hi * 1.000_001;
    let at = |mantissas: &[f64]| -> Vec<f64> {
        (first..=last)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(inside)
            .collect()
    };
    let all = at(&[1.0, 2.0, 5.0]);
    if all.len() <= 10 {
        // Unlabelled lines at 3, 4, 6 … help read a value between two labels.
        (all, at(&[3.0, 4.0, 6.0, 7.0, 8.0, 9.0]))
    } else {
        (at(&[1.0]), at(&[2.0, 5.0]))
    }
}

/// The largest 1-2-5 value (…, 1, 2, 5, 10, …) at or below `v` (> 0).
pub fn tick_below(v: f64) -> f64 {
    let decade = 10f64.powf(v.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|t| *t <= v * 1.000_001)
        .unwrap_or(decade)
}

/// The smallest 1-2-5 value at or above `v` (> 0).
pub fn tick_above(v: f64) -> f64 {
    let decade = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|t| *t >= v * 0.999_999)
        .unwrap_or(decade * 10.0)
}

/// A log latency axis from `lo` to `hi` µs with [`ticks_125`].
pub fn latency_axis(lo: f64, hi: f64) -> WithKeyPoints<LogCoord<f64>> {
    let (bold, light) = ticks_125(lo, hi);
    (lo..hi)
        .log_scale()
        .with_key_points(bold)
        .with_light_points(light)
}

/// A value with up to three significant digits and no trailing zeros: 4.1, 18.5, 1000.
pub fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let digits = v.abs().log10().floor() as i32;
    let decimals = (2 - digits).clamp(0, 9) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A latency tick given in µs: "500 ns", "5 µs", "2 ms".
pub fn latency_label(us: f64) -> String {
    if us >= 1000.0 {
        format!("{} ms", significant(us / 1000.0))
    } else if us < 1.0 {
        format!("{} ns", significant(us * 1000.0))
    } else {
        format!("{} µs", significant(us))
    }
}

/// A latency for the chart's text: "4.10 µs", "45.1 µs", "1.20 ms", "-12 ns".
pub fn show(ns: Nanos) -> String {
    let v = ns.0 as f64;
    let three = |x: f64| {
        let digits = x.abs().max(1.0).log10().floor() as i32;
        let decimals = (2 - digits).clamp(0, 3) as usize;
        format!("{x:.decimals$}")
    };
    if v.abs() >= 1e9 {
        format!("{} s", significant(v / 1e9))
    } else if v.abs() >= 1e6 {
        format!("{} ms", three(v / 1e6))
    } else if v.abs() >= 1e3 {
        format!("{} µs", three(v / 1e3))
    } else {
        format!("{} ns", ns.0)
    }
}

/// A whole number with thousands separators: "12,000".
pub fn count_label(n: f64) -> String {
    let n = n.round().max(0.0) as u64;
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Ticks of a linear axis from 0 to at least `max`: 0 and multiples of a 1-2-5 step, about
/// five of them; the last tick is the axis' end.
pub fn linear_ticks(max: f64) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let step = tick_above(max / 5.0);
    let count = (max / step).ceil().max(1.0) as usize;
    (0..=count).map(|i| i as f64 * step).collect()
}

/// Ticks of a log count axis up to `peak`: 1, 10, 100 ... (and 2, 5 when that is few).
pub fn count_ticks(peak: f64) -> Vec<f64> {
    let (bold, _) = ticks_125(1.0, peak.max(1.0));
    if bold.len() >= 3 {
        bold
    } else {
        vec![1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .filter(|v| *v <= peak.max(2.0))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_evenly_spaced_nines() {
        assert!((pct_x(0.9) - 1.0).abs() < 1e-9);
        assert!((pct_x(0.999) - 3.0).abs() < 1e-9);
        assert_eq!(pct_ticks(4.3).len(), 5);
        let labels: Vec<String> = pct_ticks(4.3).into_iter().map(pct_label).collect();
        assert_eq!(labels, ["50%", "90%", "99%", "99.9%", "99.99%"]);
        assert_eq!(pct_label(0.0), "0%");
        // The slowest of 20,000 sits at log10(20,000), and is what x_max shows.
        assert!((rank_x(19_999, 20_000) - 20_000f64.log10()).abs() < 1e-9);
        assert_eq!(index_at(rank_x(19_999, 20_000), 20_000), 19_999);
        assert_eq!(index_at(0.0, 20_000), 0);
        assert_eq!(index_at(pct_x(0.5), 20_000), 10_000);
        assert_eq!(index_at(9.0, 0), 0);
    }

    #[test]
    fn latency_ticks_label_the_lab_figures_neighbourhood() {
        let (bold, light) = ticks_125(3.0, 60.0);
        assert_eq!(bold, [5.0, 10.0, 20.0, 50.0]);
        assert_eq!(light[..3], [3.0, 4.0, 6.0]);
        assert_eq!(
            (tick_below(4.1 / 1.15), tick_above(45.6 * 1.15)),
            (2.0, 100.0)
        );
        assert_eq!(
            (tick_below(1.0), tick_above(1.0), tick_above(0.6)),
            (1.0, 1.0, 1.0)
        );
        let (bold, _) = ticks_125(1.5, 60.0);
        assert_eq!(bold, [2.0, 5.0, 10.0, 20.0, 50.0]);
        let (bold, light) = ticks_125(0.05, 200_000.0);
        assert_eq!(bold.len(), 7);
        assert!(light.contains(&2.0) && light.contains(&5.0));
        let labels: Vec<String> = [0.5, 4.1, 18.5, 2000.0].map(latency_label).into();
        assert_eq!(labels, ["500 ns", "4.1 µs", "18.5 µs", "2 ms"]);
    }

    #[test]
    fn linear_ticks_are_round_numbers() {
        assert_eq!(linear_ticks(12_000.0), [0.0, 5_000.0, 10_000.0, 15_000.0]);
        assert_eq!(linear_ticks(180.0), [0.0, 50.0, 100.0, 150.0, 200.0]);
        assert_eq!(linear_ticks(0.0).len(), 6);
    }

    #[test]
    fn counts_are_whole_numbers() {
        assert_eq!(count_label(12_000.0), "12,000");
        assert_eq!(count_label(2.0), "2");
        assert_eq!(count_label(1_000_000.0), "1,000,000");
        assert_eq!(count_ticks(12_000.0), [1.0, 10.0, 100.0, 1_000.0, 10_000.0]);
        assert_eq!(count_ticks(3.0), [1.0, 2.0]);
        assert_eq!(
            [4_100, 45_120, 18_500_000, -12].map(|v| show(Nanos(v))),
            ["4.10 µs", "45.1 µs", "18.5 ms", "-12 ns"]
        );
    }
}

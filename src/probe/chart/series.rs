//! What the latency charts draw, computed from the samples without copying them: the
//! percentile curve of all packets or of one class, the marks for first packets and packets
//! after a pause, and a log histogram split by class. Pure functions, so the tests can check
//! the numbers apart from the pixels.

use super::axes::{index_at, rank_x};
use crate::analysis::Class;
use crate::samples::Samples;
use crate::units::Nanos;

/// Points across the percentile axis (plus the slowest values, each at its own place).
const CURVE_POINTS: usize = 400;
const TAIL_POINTS: usize = 64;
/// Marks drawn per class at most (every k-th beyond that, the slowest always).
pub const MARKS_MAX: usize = 120;

/// µs, for the chart's axes.
pub fn us(ns: Nanos) -> f64 {
    ns.0 as f64 / 1e3
}

/// The percentile curve of `class` (or of all packets): (x on the percentile axis, latency
/// in µs), at least `floor_us`, ending at the slowest value at x = log10(n).
pub fn curve(samples: &Samples, class: Option<Class>, floor_us: f64) -> Vec<(f64, f64)> {
    let n = class.map_or(samples.len(), |c| samples.count(c));
    if n == 0 {
        return Vec::new();
    }
    let x_max = (n as f64).log10();
    let mut wanted: Vec<usize> = (0..=CURVE_POINTS)
        .map(|k| index_at(x_max * k as f64 / CURVE_POINTS as f64, n))
        .chain(n.saturating_sub(TAIL_POINTS)..n)
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let values: Vec<Nanos> = match class {
        None => wanted
            .iter()
            .filter_map(|i| samples.at(*i).map(|(l, _)| l))
            .collect(),
        Some(c) => pick(samples.of(c), &wanted),
    };
    wanted
        .iter()
        .zip(values)
        .map(|(i, v)| (rank_x(*i, n), us(v).max(floor_us)))
        .collect()
}

/// The values at the (ascending) indices `wanted`, in one pass.
fn pick(values: impl Iterator<Item = Nanos>, wanted: &[usize]) -> Vec<Nanos> {
    let mut out = Vec::with_capacity(wanted.len());
    let mut next = wanted.iter().peekable();
    for (i, v) in values.enumerate() {
        while next.peek().is_some_and(|w| **w == i) {
            out.push(v);
            next.next();
        }
        if next.peek().is_none() {
            break;
        }
    }
    out
}

/// The packets of `class` as marks on the all-packets curve: (x, latency in µs), and how
/// many there are in all. At most one mark per 1/[`MARKS_MAX`] of the percentile axis, so a
/// class that is every packet does not bury the curve; the slowest is always marked.
pub fn marks(samples: &Samples, class: Class, floor_us: f64) -> (Vec<(f64, f64)>, usize) {
    let total = samples.count(class);
    let n = samples.len();
    let x_max = (n.max(2) as f64).log10();
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut last_bucket = None;
    let mut slowest = None;
    for (i, (latency, c)) in samples.iter().enumerate() {
        if c != class {
            continue;
        }
        let mark = (rank_x(i, n), us(latency).max(floor_us));
        let bucket = (mark.0 / x_max * MARKS_MAX as f64) as usize;
        if last_bucket != Some(bucket) {
            out.push(mark);
            last_bucket = Some(bucket);
        }
        slowest = Some(mark);
    }
    if let Some(mark) = slowest
        && out.last() != Some(&mark)
    {
        out.push(mark);
    }
    (out, total)
}

/// One bin of the chart's histogram: `[lo, hi)` in µs and its packets by class.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bar {
    pub lo: f64,
    pub hi: f64,
    pub all: usize,
    pub first: usize,
    pub after_pause: usize,
}

/// A histogram with `per_octave` bins per doubling from `lo_us` to `hi_us`; values outside
/// go into the first or last bin.
pub fn bars(samples: &Samples, lo_us: f64, hi_us: f64, per_octave: u32) -> Vec<Bar> {
    let per = f64::from(per_octave.max(1));
    let count = (((hi_us / lo_us).log2() * per).ceil().max(1.0) as usize).min(2048);
    let edge = |k: usize| lo_us * (k as f64 / per).exp2();
    let mut out: Vec<Bar> = (0..count)
        .map(|k| Bar {
            lo: edge(k),
            hi: edge(k + 1),
            ..Bar::default()
        })
        .collect();
    for (latency, class) in samples.iter() {
        let v = us(latency);
        let k = if v <= lo_us {
            0
        } else {
            (((v / lo_us).log2() * per).floor() as usize).min(count - 1)
        };
        if let Some(bar) = out.get_mut(k) {
            bar.all += 1;
            match class {
                Class::First => bar.first += 1,
                Class::AfterPause => bar.after_pause += 1,
                Class::Steady => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::Calibration;
    use crate::samples::SampleLog;

    fn samples(values: &[(i64, Class)]) -> Samples {
        let mut log = SampleLog::default();
        for (ns, class) in values {
            log.push(Nanos(*ns), *class);
        }
        log.sorted(Calibration::default())
    }

    fn offloaded(n: usize) -> Samples {
        let mut v: Vec<(i64, Class)> = (0..n)
            .map(|i| (4_100 + (i % 30) as i64, Class::Steady))
            .collect();
        v[0] = (45_000, Class::First);
        v[1] = (41_000, Class::First);
        samples(&v)
    }

    #[test]
    fn the_curve_ends_at_the_slowest_packet_and_rises() {
        let s = offloaded(20_000);
        let all = curve(&s, None, 0.01);
        let last = all.last().copied().unwrap();
        assert!((last.0 - 20_000f64.log10()).abs() < 1e-9);
        assert_eq!(last.1, 45.0);
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        // The median of the steady state is at 50 % and 4.1 us.
        let steady = curve(&s, Some(Class::Steady), 0.01);
        let at_half = steady
            .iter()
            .find(|(x, _)| *x >= 2f64.log10() - 1e-9)
            .unwrap();
        assert!((at_half.1 - 4.115).abs() < 0.02, "{at_half:?}");
        assert!(steady.iter().all(|(_, y)| *y < 5.0));
        assert!(curve(&samples(&[]), None, 0.01).is_empty());
        assert_eq!(
            curve(&samples(&[(7_000, Class::Steady)]), None, 0.01),
            [(0.0, 7.0)]
        );
    }

    #[test]
    fn marks_sit_on_the_all_packets_curve_at_the_top() {
        let s = offloaded(20_000);
        let (m, total) = marks(&s, Class::First, 0.01);
        assert_eq!(total, 2);
        assert_eq!(m.len(), 2);
        assert!(m.iter().all(|(x, _)| *x > 4.0));
        assert_eq!(m[1].1, 45.0);
        // Many marks are thinned, the slowest kept.
        let many = samples(
            &(0..10_000)
                .map(|i| (10_000 + i, Class::First))
                .collect::<Vec<_>>(),
        );
        let (m, total) = marks(&many, Class::First, 0.01);
        assert_eq!(total, 10_000);
        assert!(m.len() <= MARKS_MAX + 2, "{}", m.len());
        assert_eq!(m.last().unwrap().1, 19.999);
        // Spread along the axis: no two marks closer than a bucket, except the slowest.
        let width = 10_000f64.log10() / MARKS_MAX as f64;
        assert!(
            m[..m.len() - 1]
                .windows(2)
                .all(|w| w[1].0 - w[0].0 > width * 0.5)
        );
    }

    #[test]
    fn bars_count_every_packet_once_and_keep_two_slow_ones_apart() {
        let s = offloaded(20_000);
        let b = bars(&s, 2.0, 80.0, 8);
        assert_eq!(b.iter().map(|b| b.all).sum::<usize>(), 20_000);
        assert_eq!(b.iter().map(|b| b.first).sum::<usize>(), 2);
        let slow: Vec<&Bar> = b.iter().filter(|b| b.lo > 6.0 && b.all > 0).collect();
        assert_eq!(slow.iter().map(|b| b.all).sum::<usize>(), 2);
        assert!(b.iter().all(|b| b.hi > b.lo));
        // Values below the axis land in the first bin rather than vanish.
        let low = samples(&[(-50, Class::Steady), (4_000, Class::Steady)]);
        assert_eq!(bars(&low, 1.0, 10.0, 4)[0].all, 1);
    }
}

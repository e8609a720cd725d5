//! The latency of every pair in eight bytes: the raw difference and the packet's place in its
//! session, packed into one `u64` so that sorting the numbers sorts by latency.
//!
//! This is all the analyser keeps per request once the copies are paired (a million requests:
//! 8 MB), and it is enough for exact nearest-rank percentiles over all packets and over the
//! steady state, the histogram, and the chart's percentile curves and marks. The raw difference
//! is kept rather than the calibrated latency so that the raw median comes from the same
//! numbers; calibration is monotonic, so the order is the same.

use serde::Serialize;

use super::calibration::Calibration;
use super::stats::{Quantile, Summary, percentile_rank};
use super::units::Nanos;

/// Which part of a session a packet belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// One of the first K packets of its 5-tuple: session setup, expected on the CPU.
    First,
    /// One of the first K packets after a pause longer than the idle timer.
    AfterPause,
    Steady,
}

impl Class {
    /// The class as stored beside each latency.
    pub fn bits(self) -> u64 {
        match self {
            Class::Steady => 0,
            Class::First => 1,
            Class::AfterPause => 2,
        }
    }

    pub fn from_bits(bits: u64) -> Class {
        match bits {
            1 => Class::First,
            2 => Class::AfterPause,
            _ => Class::Steady,
        }
    }
}

const CLASS_BITS: u32 = 8;

/// The largest raw difference kept exactly (2^56 ns, 833 days); a larger one is clamped.
pub const MAX_RAW: i64 = (1 << (64 - CLASS_BITS)) - 1;

fn pack(raw: Nanos, class: Class) -> u64 {
    ((raw.0.clamp(0, MAX_RAW) as u64) << CLASS_BITS) | class.bits()
}

fn unpack(v: u64) -> (Nanos, Class) {
    (
        Nanos((v >> CLASS_BITS) as i64),
        Class::from_bits(v & ((1 << CLASS_BITS) - 1)),
    )
}

/// Samples as the stream adds them, in send order.
#[derive(Clone, Debug, Default)]
pub struct SampleLog {
    packed: Vec<u64>,
    clamped: usize,
}

impl SampleLog {
    pub fn push(&mut self, raw: Nanos, class: Class) {
        self.clamped += usize::from(!(0..=MAX_RAW).contains(&raw.0));
        self.packed.push(pack(raw, class));
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// Sorts them (fastest first) and applies the calibration on reading.
    pub fn sorted(mut self, calibration: Calibration) -> Samples {
        self.packed.sort_unstable();
        self.packed.shrink_to_fit();
        let mut counts = [0; 3];
        for v in &self.packed {
            counts[unpack(*v).1.bits() as usize] += 1;
        }
        Samples {
            packed: self.packed,
            counts,
            clamped: self.clamped,
            calibration,
        }
    }
}

/// Every pair's latency, fastest first, with its place in the session.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    packed: Vec<u64>,
    counts: [usize; 3],
    clamped: usize,
    calibration: Calibration,
}

impl Samples {
    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// How many packets of a class there are.
    pub fn count(&self, class: Class) -> usize {
        self.counts[class.bits() as usize]
    }

    /// Raw differences beyond [`MAX_RAW`] (only a damaged capture has them).
    pub fn clamped(&self) -> usize {
        self.clamped
    }

    /// The `i`-th fastest latency (0-based) and its class.
    pub fn at(&self, i: usize) -> Option<(Nanos, Class)> {
        let (raw, class) = unpack(*self.packed.get(i)?);
        Some((self.calibration.apply(raw), class))
    }

    /// Every latency (calibration removed) with its class, fastest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (Nanos, Class)> + Clone + '_ {
        let calibration = self.calibration;
        self.packed.iter().map(move |v| {
            let (raw, class) = unpack(*v);
            (calibration.apply(raw), class)
        })
    }

    /// Every latency, fastest first.
    pub fn latencies(&self) -> impl DoubleEndedIterator<Item = Nanos> + Clone + '_ {
        self.iter().map(|(l, _)| l)
    }

    /// The latencies of one class, fastest first.
    pub fn of(&self, class: Class) -> impl DoubleEndedIterator<Item = Nanos> + Clone + '_ {
        self.iter()
            .filter(move |(_, c)| *c == class)
            .map(|(l, _)| l)
    }

    /// The nearest-rank percentile of the raw differences (before calibration).
    pub fn raw_percentile(&self, q: Quantile) -> Option<Nanos> {
        let rank = percentile_rank(self.len(), q)?;
        self.packed.get(rank).map(|v| unpack(*v).0)
    }

    /// The figures over all pairs.
    pub fn summary(&self) -> Summary {
        Summary::of_ascending(self.len(), self.latencies())
    }

    /// The figures over one class.
    pub fn summary_of(&self, class: Class) -> Summary {
        Summary::of_ascending(self.count(class), self.of(class))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{MEDIAN, P99, Quantile};

    #[test]
    fn packing_sorts_by_latency_and_keeps_the_class() {
        let mut log = SampleLog::default();
        let input = [
            (45_000, Class::First),
            (4_100, Class::Steady),
            (4_099, Class::AfterPause),
            (4_100, Class::First),
            (0, Class::Steady),
        ];
        for (ns, class) in input {
            log.push(Nanos(ns), class);
        }
        let s = log.sorted(Calibration::fixed(100.0));
        let got: Vec<(i64, Class)> = s.iter().map(|(l, c)| (l.0, c)).collect();
        assert_eq!(
            got,
            [
                (-100, Class::Steady),
                (3_999, Class::AfterPause),
                (4_000, Class::Steady),
                (4_000, Class::First),
                (44_900, Class::First)
            ]
        );
        assert_eq!((s.count(Class::First), s.count(Class::Steady)), (2, 2));
        assert_eq!(s.raw_percentile(MEDIAN), Some(Nanos(4_100)));
        assert_eq!(s.summary_of(Class::Steady).max_ns, Some(Nanos(4_000)));
        assert_eq!(s.summary().p99_ns, Some(Nanos(44_900)));
        assert_eq!(s.clamped(), 0);
    }

    #[test]
    fn out_of_range_differences_are_clamped_and_counted() {
        let mut log = SampleLog::default();
        log.push(Nanos(i64::MAX), Class::Steady);
        log.push(Nanos(-5), Class::Steady);
        let s = log.sorted(Calibration::default());
        assert_eq!(s.clamped(), 2);
        assert_eq!(s.raw_percentile(MEDIAN), Some(Nanos(0)));
        assert_eq!(
            s.raw_percentile(Quantile { num: 1, den: 1 }),
            Some(Nanos(MAX_RAW))
        );
        assert_eq!(
            SampleLog::default()
                .sorted(Calibration::default())
                .summary()
                .n,
            0
        );
        assert_eq!(
            SampleLog::default()
                .sorted(Calibration::default())
                .raw_percentile(P99),
            None
        );
    }
}

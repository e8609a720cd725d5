//! Which part of its session each packet is, decided as the pairs stream by: the first K
//! packets of each 5-tuple and the first K after a pause longer than the idle timer (set
//! up by the firewall's CPU), or the steady state. Slow packets and pauses are counted here
//! too, and every latency goes into the [`SampleLog`] with its class.
//!
//! The pairs must be taken in the order of their "before" copy. Pairing settles them in the
//! order their first copy arrived, which is that order in a capture written in time order; a
//! window of the last [`WINDOW`] pairs puts right what a capture tool wrote slightly out of
//! order, and anything beyond it is counted and noted rather than silently misclassified.

use std::collections::VecDeque;

use super::calibration::Calibration;
use super::figures::{Listed, Pause, Slow};
use super::frame::FiveTuple;
use super::options::Options;
use super::request::{FastMap, Pair};
use super::samples::{Class, SampleLog, Samples};
use super::units::Nanos;

/// Pairs held back to be put in order.
pub const WINDOW: usize = 1024;
const LISTED_MAX: usize = 100;
const PAUSES_MAX: usize = 20;
const SLOW_EXAMPLES: usize = 20;

/// A listed packet with its flow still a number (named at the end).
#[derive(Clone, Copy, Debug)]
struct ListedAt {
    index: usize,
    seq: Option<u64>,
    flow: u32,
    latency: Nanos,
    slow: bool,
}

#[derive(Clone, Debug)]
struct PauseAt {
    index: usize,
    flow: u32,
    gap: Nanos,
    after: Vec<Nanos>,
    slow_after: bool,
}

/// What classifying the pairs gave.
#[derive(Clone, Debug, Default)]
pub struct Classified {
    pub pairs: usize,
    pub samples: Samples,
    /// Distinct 5-tuples among the pairs.
    pub sessions: usize,
    pub first_packets_total: usize,
    pub first_packets: Vec<Listed>,
    pub pauses: Vec<Pause>,
    pub slow: Slow,
    /// Pairs that came later than the window could put right.
    pub out_of_order: usize,
}

/// Classifies pairs as they come.
pub struct Classifier {
    threshold: Nanos,
    idle_timer: Nanos,
    first_k: usize,
    calibration: Calibration,
    window: VecDeque<Pair>,
    last: Option<(Nanos, Option<u64>)>,
    out_of_order: usize,
    flows: Flows,
    /// Flows whose first packets after a pause are still coming: the pause's index.
    open_pause: FastMap<u32, usize>,
    index: usize,
    log: SampleLog,
    first_total: usize,
    first_packets: Vec<ListedAt>,
    pauses: Vec<PauseAt>,
    slow: Slow,
    slow_examples: Vec<ListedAt>,
}

/// Per flow: packets since the session (re)started, and the last "before" time. Pairing
/// numbers flows densely from 0, so most live in a vector; others (non-IP, or numbers from a
/// caller's own pairing) in a map.
#[derive(Default)]
struct Flows {
    dense: Vec<Option<(usize, Nanos)>>,
    sparse: FastMap<u32, (usize, Nanos)>,
    seen: usize,
}

const DENSE_MAX: u32 = 1 << 20;

impl Flows {
    /// The flow's state, new (no packets yet, last seen `now`) when it was not seen before.
    fn get(&mut self, flow: u32, now: Nanos) -> &mut (usize, Nanos) {
        if flow >= DENSE_MAX {
            let seen = &mut self.seen;
            return self.sparse.entry(flow).or_insert_with(|| {
                *seen += 1;
                (0, now)
            });
        }
        let i = flow as usize;
        if i >= self.dense.len() {
            self.dense.resize(i + 1, None);
        }
        let slot = &mut self.dense[i];
        if slot.is_none() {
            self.seen += 1;
        }
        slot.get_or_insert((0, now))
    }
}

fn order(p: &Pair) -> (Nanos, Option<u64>) {
    (p.before, p.seq)
}

impl Classifier {
    pub fn new(options: &Options) -> Self {
        Classifier {
            threshold: options.threshold,
            idle_timer: options.idle_timer,
            first_k: options.first_k,
            calibration: options.calibration,
            window: VecDeque::with_capacity(WINDOW + 1),
            last: None,
            out_of_order: 0,
            flows: Flows::default(),
            open_pause: FastMap::default(),
            index: 0,
            log: SampleLog::default(),
            first_total: 0,
            first_packets: Vec::new(),
            pauses: Vec::new(),
            slow: Slow {
                threshold_ns: options.threshold,
                ..Slow::default()
            },
            slow_examples: Vec::new(),
        }
    }

    /// Takes one pair (in about the order of its "before" copy).
    pub fn pair(&mut self, pair: Pair) {
        let key = order(&pair);
        if self.window.back().is_none_or(|p| order(p) <= key) {
            self.window.push_back(pair);
        } else {
            let at = self.window.partition_point(|p| order(p) <= key);
            self.window.insert(at, pair);
        }
        if self.window.len() > WINDOW
            && let Some(first) = self.window.pop_front()
        {
            self.classify(first);
        }
    }

    fn classify(&mut self, pair: Pair) {
        let key = order(&pair);
        if self.last.is_some_and(|last| key < last) {
            self.out_of_order += 1;
        }
        self.last = Some(key);
        let index = self.index;
        self.index += 1;
        let raw = pair.delta();
        let latency = self.calibration.apply(raw);
        let is_slow = latency > self.threshold;
        let entry = self.flows.get(pair.flow, pair.before);
        let gap = pair.before - entry.1;
        if entry.0 > 0 && gap > self.idle_timer {
            entry.0 = 0;
            if self.pauses.len() < PAUSES_MAX {
                self.pauses.push(PauseAt {
                    index,
                    flow: pair.flow,
                    gap,
                    after: Vec::new(),
                    slow_after: false,
                });
                self.open_pause.insert(pair.flow, self.pauses.len() - 1);
            }
        }
        let position = entry.0;
        entry.0 += 1;
        entry.1 = pair.before;
        let after_pause = if self.open_pause.is_empty() {
            None
        } else {
            self.open_pause.get(&pair.flow).copied()
        };
        let class = match (position < self.first_k, after_pause) {
            (true, Some(p)) => {
                if let Some(pause) = self.pauses.get_mut(p) {
                    pause.after.push(latency);
                    pause.slow_after |= is_slow;
                }
                Class::AfterPause
            }
            (true, None) => Class::First,
            (false, None) => Class::Steady,
            (false, Some(_)) => {
                self.open_pause.remove(&pair.flow);
                Class::Steady
            }
        };
        self.log.push(raw, class);
        let listed = ListedAt {
            index,
            seq: pair.seq,
            flow: pair.flow,
            latency,
            slow: is_slow,
        };
        match class {
            Class::First => {
                self.first_total += 1;
                self.slow.first += usize::from(is_slow);
                if self.first_packets.len() < LISTED_MAX {
                    self.first_packets.push(listed);
                }
            }
            Class::AfterPause => self.slow.after_pause += usize::from(is_slow),
            Class::Steady if is_slow => {
                self.slow.steady += 1;
                if self.slow_examples.len() < SLOW_EXAMPLES {
                    self.slow_examples.push(listed);
                }
            }
            Class::Steady => {}
        }
    }

    /// Classifies what the window still holds; `flows` names the flows.
    pub fn finish(mut self, flows: &[FiveTuple]) -> Classified {
        while let Some(pair) = self.window.pop_front() {
            self.classify(pair);
        }
        let name = |id: u32| {
            flows
                .get(id as usize)
                .map_or_else(|| "non-IP".to_string(), ToString::to_string)
        };
        let list = |l: &ListedAt| Listed {
            index: l.index,
            seq: l.seq,
            flow: name(l.flow),
            latency_ns: l.latency,
            slow: l.slow,
        };
        let samples = self.log.sorted(self.calibration);
        let steady = samples.count(Class::Steady);
        let mut slow = self.slow;
        slow.total = slow.first + slow.after_pause + slow.steady;
        slow.steady_fraction = if steady == 0 {
            0.0
        } else {
            slow.steady as f64 / steady as f64
        };
        slow.steady_examples = self.slow_examples.iter().map(list).collect();
        Classified {
            pairs: samples.len(),
            sessions: self.flows.seen,
            first_packets_total: self.first_total,
            first_packets: self.first_packets.iter().map(list).collect(),
            pauses: self
                .pauses
                .into_iter()
                .map(|p| Pause {
                    index: p.index,
                    flow: name(p.flow),
                    gap_ns: p.gap,
                    after_ns: p.after,
                    slow_after: p.slow_after,
                })
                .collect(),
            slow,
            out_of_order: self.out_of_order,
            samples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(seq: u64, before: i64, latency: i64) -> Pair {
        Pair {
            before: Nanos(before),
            after: Nanos(before + latency),
            flow: 0,
            seq: Some(seq),
        }
    }

    fn classes(c: &Classified) -> Vec<(i64, Class)> {
        c.samples.iter().map(|(l, c)| (l.0, c)).collect()
    }

    #[test]
    fn first_packets_pauses_and_steady_state() {
        let options = Options {
            idle_timer: Nanos(1_000),
            ..Options::default()
        };
        let mut c = Classifier::new(&options);
        // Two slow first packets, steady, a pause of 5000 ns, two slow again, steady.
        let input = [
            (45_000, 0),
            (44_000, 10),
            (4_100, 20),
            (4_101, 30),
            (46_000, 5_030),
            (47_000, 5_040),
            (4_102, 5_050),
        ];
        for (seq, (latency, before)) in input.iter().enumerate() {
            c.pair(pair(seq as u64, *before, *latency));
        }
        let got = c.finish(&[]);
        assert_eq!(got.pairs, 7);
        assert_eq!(got.first_packets_total, 2);
        assert_eq!(got.pauses.len(), 1);
        assert_eq!(got.pauses[0].after_ns, [Nanos(46_000), Nanos(47_000)]);
        assert!(got.pauses[0].slow_after);
        assert_eq!(
            (got.slow.first, got.slow.after_pause, got.slow.steady),
            (2, 2, 0)
        );
        assert_eq!(
            classes(&got),
            [
                (4_100, Class::Steady),
                (4_101, Class::Steady),
                (4_102, Class::Steady),
                (44_000, Class::First),
                (45_000, Class::First),
                (46_000, Class::AfterPause),
                (47_000, Class::AfterPause)
            ]
        );
        assert_eq!(got.out_of_order, 0);
    }

    #[test]
    fn pairs_slightly_out_of_order_are_put_right_and_far_ones_counted() {
        let mut c = Classifier::new(&Options::default());
        // seq 1 comes before seq 0: the window reorders, so seq 0 is still a first packet.
        c.pair(pair(1, 1_000, 4_100));
        c.pair(pair(0, 0, 45_000));
        for seq in 2..10 {
            c.pair(pair(seq, seq as i64 * 1_000, 4_100));
        }
        let got = c.finish(&[]);
        let first: Vec<_> = got.first_packets.iter().map(|l| l.seq).collect();
        assert_eq!(first, [Some(0), Some(1)]);
        assert_eq!(got.out_of_order, 0);

        let mut c = Classifier::new(&Options::default());
        for seq in 1..(WINDOW as u64 + 10) {
            c.pair(pair(seq, seq as i64 * 1_000, 4_100));
        }
        c.pair(pair(0, 0, 4_100));
        assert_eq!(c.finish(&[]).out_of_order, 1);
    }
}

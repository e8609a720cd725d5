//! Pairing: find the two copies of each request (before the firewall, after it) in one or more
//! captures.
//!
//! A copy's key is premarket's own payload (magic, run, round, seq) when present, else a hash
//! of the frame's bytes after the VLAN tags, so captures of any sender pair when its requests
//! are distinct. Which VLAN is "before" is given, or else the VLAN whose copy comes first in
//! most pairs (decided by time stamps, so the order of files and records does not matter; see
//! `probe::sides`).
//!
//! The [`Pairer`] streams: a request waits only until it can no longer change (its twin came
//! and [`Limits::horizon`] of capture time passed, or too many newer requests wait), then it is
//! handed on as [`Settled`] and forgotten. [`resolve`] turns a settled request into a pair or
//! what went wrong with it, once the sides are known. [`pair_all`] keeps everything, for tests
//! and tools that want the pairs themselves. The request's own words (its key, [`Settled`],
//! [`Outcome`], [`Pairing`]) are in `probe::request`, below this module and `probe::sides`.

use std::collections::VecDeque;

use super::frame::{self, FiveTuple};
use super::record::Record;
use super::request::{EMPTY, FastMap, Slot, key_of};
use super::sides::Votes;
use super::units::Nanos;

// A request's words and what becomes of it are named in `request`; they stay reachable here,
// where pairing's callers have always found them.
pub use super::request::{
    LOST_EXAMPLES, LostRequest, Outcome, Pair, PairError, Pairing, Settled, Sides, Tally, resolve,
};

/// How long a request may wait for its twin, and how many may wait at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Capture time after a request's first copy when it is settled, paired or not. A firewall
    /// that holds a packet this long has lost it; the late copy then counts as an orphan.
    pub horizon: Nanos,
    /// More waiting requests than this settle the oldest first (at 1 ms per request the
    /// horizon keeps 10,000 waiting; this bounds memory at line rate).
    pub max_open: usize,
}

impl Limits {
    /// Nothing settles before the end (for pairing everything in memory).
    pub const UNBOUNDED: Limits = Limits {
        horizon: Nanos(i64::MAX),
        max_open: usize::MAX,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            horizon: Nanos(10_000_000_000),
            max_open: 1 << 17,
        }
    }
}

/// Collects copies record by record and settles each request when its copies are complete:
/// [`Pairer::add`] hands settled requests on, [`Pairer::finish`] the rest. Only waiting
/// requests are kept, a few dozen bytes each, never the frames.
#[derive(Default)]
pub struct Pairer {
    given: Sides,
    limits: Limits,
    slots: FastMap<u128, Slot>,
    /// Waiting requests in the order their first copy came: (its time, key).
    waiting: VecDeque<(i64, u128)>,
    newest: Option<i64>,
    flow_ids: FastMap<FiveTuple, u32>,
    flows: Vec<FiveTuple>,
    last_flow: Option<(FiveTuple, u32)>,
    duplicates: usize,
    ignored: usize,
    frames: usize,
}

impl Pairer {
    pub fn new(given: Sides) -> Result<Self, PairError> {
        Pairer::with_limits(given, Limits::default())
    }

    pub fn with_limits(given: Sides, limits: Limits) -> Result<Self, PairError> {
        if let (Some(b), Some(a)) = (given.before, given.after)
            && a == b
        {
            return Err(PairError::SameVlan(a));
        }
        Ok(Pairer {
            given,
            limits,
            ..Pairer::default()
        })
    }

    /// Adds one captured frame; requests that can wait no longer go to `settled`.
    pub fn add(&mut self, record: &Record<'_>, settled: &mut impl FnMut(Settled)) {
        self.frames += 1;
        let Ok(parsed) = frame::parse(record.data) else {
            self.ignored += 1;
            return;
        };
        let Some(vlan) = parsed.vlans[0] else {
            self.ignored += 1;
            return;
        };
        let wanted = [self.given.before, self.given.after];
        if wanted.iter().any(Option::is_some) && !wanted.contains(&Some(vlan)) {
            self.ignored += 1;
            return;
        }
        let key = key_of(parsed.payload, parsed.body);
        let flows = &mut self.flows;
        let flow = match parsed.flow {
            // Most captures are one flow: skip the map when the flow is the last one seen.
            Some(t) if self.last_flow.is_some_and(|(l, _)| l == t) => {
                self.last_flow.map_or(0, |(_, id)| id)
            }
            Some(t) => {
                let id = *self.flow_ids.entry(t).or_insert_with(|| {
                    flows.push(t);
                    (flows.len() - 1) as u32
                });
                self.last_flow = Some((t, id));
                id
            }
            None => u32::MAX,
        };
        // Settle first, so that a twin later than the horizon finds its request gone.
        let newest = self.newest.map_or(record.ts.0, |n| n.max(record.ts.0));
        self.newest = Some(newest);
        self.settle(newest.saturating_sub(self.limits.horizon.0), settled);
        let waiting = &mut self.waiting;
        let slot = self.slots.entry(key).or_insert_with(|| {
            waiting.push_back((record.ts.0, key));
            Slot {
                ts: [0; 2],
                vlan: [EMPTY; 2],
                flow,
            }
        });
        let copy = (vlan, record.ts);
        let copies = slot.copies();
        let same = copies
            .iter()
            .position(|c| matches!(c, Some((v, _)) if *v == vlan));
        match (same, copies) {
            (Some(i), _) => {
                self.duplicates += 1;
                if copies[i].is_some_and(|(_, t)| record.ts < t) {
                    slot.set(i, copy);
                }
            }
            (None, [None, _]) => slot.set(0, copy),
            (None, [Some(_), None]) => slot.set(1, copy),
            (None, [Some(_), Some(_)]) => self.duplicates += 1,
        }
        if self.waiting.len() > self.limits.max_open {
            self.settle(i64::MIN, settled);
        }
    }

    /// Settles the requests whose first copy came before `oldest`, and the oldest ones while
    /// too many wait.
    fn settle(&mut self, oldest: i64, settled: &mut impl FnMut(Settled)) {
        while let Some(&(ts, key)) = self.waiting.front() {
            if ts >= oldest && self.waiting.len() <= self.limits.max_open {
                break;
            }
            self.waiting.pop_front();
            if let Some(slot) = self.slots.remove(&key) {
                settled(Settled { key, slot });
            }
        }
    }

    /// Settles every request still waiting; returns what pairing counted besides the pairs
    /// (the sides, pairs and losses are for whoever resolves the settled requests).
    pub fn finish(mut self, settled: &mut impl FnMut(Settled)) -> Pairing {
        self.settle(i64::MAX, settled);
        Pairing {
            duplicates: self.duplicates,
            ignored: self.ignored,
            frames: self.frames,
            flows: self.flows,
            ..Pairing::default()
        }
    }
}

/// Pairs every record given, keeping every pair (for tests and small captures; the analyser
/// streams instead, see `probe::offline`).
pub fn pair_all<'a>(
    records: impl IntoIterator<Item = Record<'a>>,
    given: Sides,
) -> Result<Pairing, PairError> {
    let mut pairer = Pairer::with_limits(given, Limits::UNBOUNDED)?;
    let mut all = Vec::new();
    for record in records {
        pairer.add(&record, &mut |s| all.push(s));
    }
    let counts = pairer.finish(&mut |s| all.push(s));
    Ok(resolve_all(counts, &all, given))
}

/// Decides the sides over all settled requests and resolves them: the pairs sorted by their
/// "before" copy, and what did not pair. `counts` is what [`Pairer::finish`] returned.
pub fn resolve_all(mut pairing: Pairing, all: &[Settled], given: Sides) -> Pairing {
    let mut votes = Votes::default();
    for s in all {
        votes.add(s, given);
    }
    let sides = match votes.decide(given) {
        Ok(sides) => sides,
        Err(e) => {
            pairing.lost = all.len();
            pairing.problem = Some(e.to_string());
            return pairing;
        }
    };
    pairing.sides = sides;
    let mut tally = Tally::default();
    for s in all {
        match resolve(s, sides.both()) {
            Outcome::Pair(p) => pairing.pairs.push(p),
            other => tally.count(other),
        }
    }
    pairing.pairs.sort_unstable_by_key(|p| (p.before, p.seq));
    tally.into_pairing(&mut pairing);
    pairing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{FrameSpec, Payload, build, insert_tag};
    use crate::units::Vlan;

    fn copy(seq: u64, vlan: u16, ts: i64) -> (Vec<u8>, i64) {
        let f = build(
            &FrameSpec::default(),
            &Payload {
                run: 1,
                round: 0,
                flags: 0,
                seq,
            },
        );
        (insert_tag(&f, 0x8100, vlan), ts)
    }

    fn pair(copies: &[(Vec<u8>, i64)], given: Sides) -> Result<Pairing, PairError> {
        pair_all(
            copies.iter().map(|(data, ts)| Record {
                ts: Nanos(*ts),
                interface: 0,
                data,
                orig_len: data.len() as u32,
            }),
            given,
        )
    }

    #[test]
    fn pairs_by_payload_and_decides_sides_by_time() {
        let copies = vec![
            copy(1, 10, 1000),
            copy(1, 20, 5100),
            copy(2, 10, 2000),
            copy(2, 20, 6200),
        ];
        let p = pair(&copies, Sides::default()).unwrap();
        assert_eq!(
            p.sides,
            Sides {
                before: Some(Vlan(10)),
                after: Some(Vlan(20))
            }
        );
        let deltas: Vec<i64> = p.pairs.iter().map(|p| p.delta().0).collect();
        assert_eq!(deltas, vec![4100, 4200]);
        assert_eq!((p.lost, p.duplicates, p.orphans), (0, 0, 0));
        assert_eq!(p.requests(), 2);
    }

    #[test]
    fn reordered_records_pair_the_same() {
        let copies = vec![
            copy(2, 20, 6200),
            copy(1, 20, 5100),
            copy(2, 10, 2000),
            copy(1, 10, 1000),
        ];
        let p = pair(&copies, Sides::default()).unwrap();
        assert_eq!(
            p.pairs.iter().map(|p| p.seq.unwrap()).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(p.sides.before, Some(Vlan(10)));
    }

    #[test]
    fn missing_after_is_lost_and_missing_before_is_an_orphan() {
        let copies = vec![
            copy(1, 10, 1000),
            copy(1, 20, 5000),
            copy(2, 10, 2000),
            copy(3, 20, 9000),
        ];
        let p = pair(&copies, Sides::default()).unwrap();
        assert_eq!((p.pairs.len(), p.lost, p.orphans), (1, 1, 1));
        assert_eq!(p.lost_examples[0].seq, Some(2));
    }

    #[test]
    fn duplicates_are_counted_and_the_earliest_copy_kept() {
        let copies = vec![
            copy(1, 10, 1000),
            copy(1, 10, 900),
            copy(1, 20, 5000),
            copy(1, 20, 5050),
        ];
        let p = pair(&copies, Sides::default()).unwrap();
        assert_eq!(p.duplicates, 2);
        assert_eq!(p.pairs[0].delta(), Nanos(4100));
    }

    #[test]
    fn given_vlans_filter_and_can_be_reversed() {
        let copies = vec![copy(1, 10, 1000), copy(1, 20, 5000), copy(1, 30, 7000)];
        let p = pair(
            &copies,
            Sides {
                before: Some(Vlan(20)),
                after: Some(Vlan(30)),
            },
        )
        .unwrap();
        assert_eq!(p.pairs[0].delta(), Nanos(2000));
        assert_eq!(p.ignored, 1);
        let p = pair(
            &copies[..2],
            Sides {
                before: Some(Vlan(20)),
                after: Some(Vlan(10)),
            },
        )
        .unwrap();
        assert_eq!((p.pairs.len(), p.negative), (0, 1));
    }

    #[test]
    fn one_vlan_only_cannot_tell_sides() {
        let copies = vec![copy(1, 10, 1000), copy(2, 10, 2000)];
        let p = pair(&copies, Sides::default()).unwrap();
        assert_eq!((p.pairs.len(), p.lost), (0, 2));
        assert!(p.problem.unwrap().contains("VLANs seen: 10"));
        let p = pair(
            &copies,
            Sides {
                before: Some(Vlan(10)),
                after: Some(Vlan(20)),
            },
        )
        .unwrap();
        assert_eq!(p.lost, 2);
    }

    #[test]
    fn foreign_frames_pair_by_their_bytes() {
        let mut a = build(
            &FrameSpec::default(),
            &Payload {
                run: 0,
                round: 0,
                flags: 0,
                seq: 0,
            },
        );
        a[42] = 0; // break the magic: not our payload any more
        let mut b = a.clone();
        b[50] = 1;
        let copies = vec![
            (insert_tag(&a, 0x8100, 10), 100),
            (insert_tag(&b, 0x8100, 10), 200),
            (insert_tag(&a, 0x8100, 20), 4200),
            (insert_tag(&b, 0x8100, 20), 4400),
        ];
        let p = pair(&copies, Sides::default()).unwrap();
        assert_eq!(
            p.pairs.iter().map(|p| p.delta().0).collect::<Vec<_>>(),
            vec![4100, 4200]
        );
        assert_eq!(p.pairs[0].seq, None);
    }

    #[test]
    fn untagged_and_garbage_frames_are_ignored() {
        let mut copies = vec![copy(1, 10, 1000), copy(1, 20, 5000)];
        copies.push((
            build(
                &FrameSpec::default(),
                &Payload {
                    run: 1,
                    round: 0,
                    flags: 0,
                    seq: 5,
                },
            ),
            3,
        ));
        copies.push((vec![1, 2, 3], 4));
        let p = pair(&copies, Sides::default()).unwrap();
        assert_eq!((p.pairs.len(), p.ignored, p.frames), (1, 2, 4));
    }

    #[test]
    fn requests_settle_once_their_twin_is_too_late_or_too_many_wait() {
        let limits = Limits {
            horizon: Nanos(10_000),
            max_open: 3,
        };
        let mut p = Pairer::with_limits(Sides::default(), limits).unwrap();
        let mut settled = Vec::new();
        let mut add = |p: &mut Pairer, (data, ts): &(Vec<u8>, i64)| {
            let r = Record {
                ts: Nanos(*ts),
                interface: 0,
                data,
                orig_len: 0,
            };
            p.add(&r, &mut |s| settled.push((s.seq(), s.copies())));
        };
        // Request 1's twin comes 20 us later: by then request 1 has settled alone.
        add(&mut p, &copy(1, 10, 0));
        add(&mut p, &copy(2, 10, 1_000));
        add(&mut p, &copy(2, 20, 5_000));
        add(&mut p, &copy(1, 20, 20_000));
        // Four more requests without twins: never more than three wait.
        for seq in 3..7 {
            add(&mut p, &copy(seq, 10, 20_000 + seq as i64));
            assert!(p.waiting.len() <= 3);
        }
        let counts = p.finish(&mut |s| settled.push((s.seq(), s.copies())));
        assert_eq!(counts.frames, 8);
        let first: Vec<Option<u64>> = settled.iter().map(|(seq, _)| *seq).collect();
        assert_eq!(first[..2], [Some(1), Some(2)]);
        let one_copy = |seq| {
            settled
                .iter()
                .filter(|(s, c)| *s == Some(seq) && c[1].is_none())
                .count()
        };
        // Request 1 twice with one copy (the late twin started a request of its own);
        // request 2 once with both.
        assert_eq!(one_copy(1), 2);
        assert_eq!(one_copy(2), 0);
        assert_eq!(settled.len(), 7);
    }
}

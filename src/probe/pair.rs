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
//! and tools that want the pairs themselves.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use super::frame::{self, FiveTuple};
use super::record::Record;
use super::units::{Nanos, Vlan};

/// One request seen on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    pub before: Nanos,
    pub after: Nanos,
    /// Index into [`Pairing::flows`]; `u32::MAX` when the frame is not IPv4.
    pub flow: u32,
    /// premarket's sequence number, when the payload is ours.
    pub seq: Option<u64>,
}

impl Pair {
    /// The raw difference, calibration not yet removed.
    pub fn delta(&self) -> Nanos {
        self.after - self.before
    }
}

/// The VLANs that say which copy is which.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sides {
    pub before: Option<Vlan>,
    pub after: Option<Vlan>,
}

impl Sides {
    /// (before, after) when both are known.
    pub fn both(self) -> Option<(Vlan, Vlan)> {
        self.before.zip(self.after)
    }
}

/// The result of pairing: the pairs in the order of their "before" copy, and what did not pair.
#[derive(Clone, Debug, Default)]
pub struct Pairing {
    pub sides: Sides,
    pub pairs: Vec<Pair>,
    /// Requests seen before the firewall and never after it.
    pub lost: usize,
    /// Up to 20 lost requests (sequence number when ours, else their time), for the report.
    pub lost_examples: Vec<LostRequest>,
    /// Copies seen after the firewall with no copy before it (a capture or switch problem).
    pub orphans: usize,
    /// Extra copies of a request on a side that already had one.
    pub duplicates: usize,
    /// Pairs whose "after" copy is stamped earlier than the "before" copy (left out).
    pub negative: usize,
    /// Frames that are not part of any pair: unreadable, untagged, or on another VLAN.
    pub ignored: usize,
    pub flows: Vec<FiveTuple>,
    pub frames: usize,
    /// Why no pair could be formed at all (e.g. only one VLAN seen), for the verdict.
    pub problem: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LostRequest {
    pub seq: Option<u64>,
    pub before_ns: Nanos,
}

impl Pairing {
    /// Requests: everything seen before the firewall.
    pub fn requests(&self) -> usize {
        self.pairs.len() + self.lost
    }

    pub fn flow(&self, pair: &Pair) -> Option<&FiveTuple> {
        self.flows.get(pair.flow as usize)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    /// Up to two copies (time, VLAN); `EMPTY` marks a free place. Kept flat so a million
    /// requests fit in a small map.
    ts: [i64; 2],
    vlan: [u16; 2],
    flow: u32,
}

const EMPTY: u16 = u16::MAX;

impl Slot {
    fn copies(&self) -> [Option<(Vlan, Nanos)>; 2] {
        [0, 1].map(|i| (self.vlan[i] != EMPTY).then(|| (Vlan(self.vlan[i]), Nanos(self.ts[i]))))
    }

    fn set(&mut self, i: usize, copy: (Vlan, Nanos)) {
        self.vlan[i] = copy.0.0;
        self.ts[i] = copy.1.0;
    }
}

/// premarket's sequence number, when the key came from our payload.
pub(crate) fn seq_of(key: u128) -> Option<u64> {
    (key & OURS != 0).then_some(key as u64)
}

/// Mixes a u128 key into 64 bits (keys are sequence numbers or already hashes; SipHash would
/// be most of the analysis time on a million requests).
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    /// Keys of one run differ only in their sequence number (low bits). Keeping those bits as
    /// the low bits of the hash puts consecutive requests in neighbouring buckets (hashbrown
    /// indexes by the low bits), so a million-request map is walked in cache order; the top 7
    /// bits, hashbrown's tag, stay well mixed. Hashed (foreign) keys are random anyway.
    fn write_u128(&mut self, v: u128) {
        const TOP7: u64 = !((1 << 57) - 1);
        let (lo, hi) = (v as u64, (v >> 64) as u64);
        let mixed = (lo ^ hi.rotate_left(29) ^ self.0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = (lo.wrapping_add(hi.wrapping_mul(0x0100_0000_01b3)) & !TOP7) | (mixed & TOP7);
    }
    fn write_u64(&mut self, v: u64) {
        let x = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = x ^ (x >> 29);
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<KeyHasher>>;

const OURS: u128 = 1 << 127;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A request's copies once pairing is done with it: its twin arrived (and any late duplicate
/// had its chance), or it waited longer than the [`Limits`] allow, or the input ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settled {
    key: u128,
    slot: Slot,
}

impl Settled {
    /// premarket's sequence number, when the key came from our payload.
    pub fn seq(&self) -> Option<u64> {
        seq_of(self.key)
    }

    pub fn copies(&self) -> [Option<(Vlan, Nanos)>; 2] {
        self.slot.copies()
    }

    pub fn flow(&self) -> u32 {
        self.slot.flow
    }
}

/// What a settled request is once the sides are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pair(Pair),
    /// Both copies, the "after" one stamped earlier (left out).
    Negative,
    Lost(LostRequest),
    Orphan,
    /// Copies on neither side.
    Ignored(usize),
    /// The sides could not be told apart: every request counts as lost.
    Unsided,
}

/// Resolves a settled request against the sides (before, after); `None`: no sides.
pub fn resolve(settled: &Settled, sides: Option<(Vlan, Vlan)>) -> Outcome {
    let Some((before, after)) = sides else {
        return Outcome::Unsided;
    };
    let copies = settled.copies();
    let find = |vlan: Vlan| {
        copies
            .iter()
            .flatten()
            .find(|(v, _)| *v == vlan)
            .map(|(_, t)| *t)
    };
    let seq = settled.seq();
    match (find(before), find(after)) {
        (Some(b), Some(a)) if a < b => Outcome::Negative,
        (Some(b), Some(a)) => Outcome::Pair(Pair {
            before: b,
            after: a,
            flow: settled.slot.flow,
            seq,
        }),
        (Some(b), None) => Outcome::Lost(LostRequest { seq, before_ns: b }),
        (None, Some(_)) => Outcome::Orphan,
        (None, None) => Outcome::Ignored(copies.iter().flatten().count()),
    }
}

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

/// Pairing could not even tell the sides apart.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairError {
    #[error(
        "no request was seen on two VLANs, so before and after cannot be told apart; give --before-vlan and --after-vlan (VLANs seen: {0})"
    )]
    NoSides(String),
    #[error("--before-vlan and --after-vlan are both {0}")]
    SameVlan(Vlan),
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
        let key = match parsed.payload {
            Some(p) => {
                OURS | (u128::from(p.round) << 80) | (u128::from(p.run) << 64) | u128::from(p.seq)
            }
            None => (u128::from(parsed.body.len() as u64) << 64) | u128::from(fnv1a(parsed.body)),
        };
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
    let mut votes = super::sides::Votes::default();
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

/// Counts what is not a pair among the outcomes, keeping the earliest lost requests.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub negative: usize,
    pub lost: usize,
    /// The earliest lost requests, at most [`LOST_EXAMPLES`], in time order.
    pub lost_examples: Vec<LostRequest>,
    pub orphans: usize,
    pub ignored: usize,
}

/// How many lost requests the report lists.
pub const LOST_EXAMPLES: usize = 20;

impl Tally {
    /// Counts an outcome other than a pair.
    pub fn count(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Pair(_) => {}
            Outcome::Negative => self.negative += 1,
            Outcome::Lost(l) => {
                self.lost += 1;
                let at = self
                    .lost_examples
                    .partition_point(|e| (e.before_ns, e.seq) <= (l.before_ns, l.seq));
                if at < LOST_EXAMPLES {
                    self.lost_examples.insert(at, l);
                    self.lost_examples.truncate(LOST_EXAMPLES);
                }
            }
            Outcome::Orphan => self.orphans += 1,
            Outcome::Ignored(n) => self.ignored += n,
            Outcome::Unsided => self.lost += 1,
        }
    }

    /// Adds the counts to a pairing's.
    pub fn into_pairing(self, pairing: &mut Pairing) {
        pairing.negative += self.negative;
        pairing.lost += self.lost;
        pairing.lost_examples = self.lost_examples;
        pairing.orphans += self.orphans;
        pairing.ignored += self.ignored;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{FrameSpec, Payload, build, insert_tag};

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

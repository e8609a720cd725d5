//! A request on its way through pairing: what it is ([`Pair`], [`Sides`], [`Pairing`],
//! [`LostRequest`]), the key that finds its copies and the map keyed by it, the copies held
//! while it waits ([`Settled`] once it can no longer change), what it becomes once the sides
//! are known ([`resolve`] gives an [`Outcome`]), and the [`Tally`] of what did not pair.
//!
//! The streaming pairer ([`super::pair`]) fills these and the side vote ([`super::sides`])
//! reads them; both stand on this module, so neither needs the other's words.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use super::frame::{FiveTuple, Payload};
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
pub(crate) struct Slot {
    /// Up to two copies (time, VLAN); `EMPTY` marks a free place. Kept flat so a million
    /// requests fit in a small map.
    pub(crate) ts: [i64; 2],
    pub(crate) vlan: [u16; 2],
    pub(crate) flow: u32,
}

pub(crate) const EMPTY: u16 = u16::MAX;

impl Slot {
    pub(crate) fn copies(&self) -> [Option<(Vlan, Nanos)>; 2] {
        [0, 1].map(|i| (self.vlan[i] != EMPTY).then(|| (Vlan(self.vlan[i]), Nanos(self.ts[i]))))
    }

    pub(crate) fn set(&mut self, i: usize, copy: (Vlan, Nanos)) {
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

/// A copy's key: premarket's own payload (run, round, seq) when present, else a hash of the
/// frame's bytes after the VLAN tags.
pub(crate) fn key_of(payload: Option<Payload>, body: &[u8]) -> u128 {
    match payload {
        Some(p) => {
            OURS | (u128::from(p.round) << 80) | (u128::from(p.run) << 64) | u128::from(p.seq)
        }
        None => (u128::from(body.len() as u64) << 64) | u128::from(fnv1a(body)),
    }
}

/// A request's copies once pairing is done with it: its twin arrived (and any late duplicate
/// had its chance), or it waited longer than the [`super::pair::Limits`] allow, or the input ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settled {
    pub(crate) key: u128,
    pub(crate) slot: Slot,
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

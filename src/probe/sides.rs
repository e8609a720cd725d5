//! Which VLAN is "before" the firewall and which "after", when the user did not say: the order
//! whose copy comes first in most requests, decided by time stamps (so the order of files and
//! records does not matter).
//!
//! The analyser streams, so it cannot wait for the last request to resolve the first. The
//! [`Resolver`] holds back the first settled requests until 1024 of them have voted, decides
//! provisionally, and resolves everything after that at once. Votes go on to the end; when the
//! whole capture's majority differs from the provisional one (a capture whose first thousand
//! requests say otherwise than the rest), the caller reads the capture again with the sides
//! fixed ([`Resolved::consistent`]), so the result is what deciding over all requests gives.

use super::request::{FastMap, Outcome, PairError, Settled, Sides, resolve};
use super::units::Vlan;

/// Votes taken before the provisional decision.
const DECIDE_AFTER: usize = 1024;
/// Settled requests held back at most while too few vote (one VLAN only, say).
const HOLD_MAX: usize = 1 << 16;
/// Distinct (first, second) VLAN orders counted; more is not a probe capture.
const ORDERS_MAX: usize = 1024;

/// The votes: for each request seen on two VLANs, which came first.
#[derive(Clone, Debug)]
pub struct Votes {
    orders: FastMap<(Vlan, Vlan), usize>,
    /// The VLANs seen, one bit each.
    seen: Box<[u64; 1024]>,
    total: usize,
}

impl Default for Votes {
    fn default() -> Self {
        Votes {
            orders: FastMap::default(),
            seen: Box::new([0; 1024]),
            total: 0,
        }
    }
}

impl Votes {
    pub fn add(&mut self, settled: &Settled, given: Sides) {
        let copies = settled.copies();
        for (v, _) in copies.iter().flatten() {
            if let Some(word) = self.seen.get_mut(usize::from(v.0 / 64)) {
                *word |= 1 << (v.0 % 64);
            }
        }
        if let [Some((v0, t0)), Some((v1, t1))] = copies {
            let order = if t0 <= t1 { (v0, v1) } else { (v1, v0) };
            let fits = given.before.is_none_or(|b| b == order.0)
                && given.after.is_none_or(|a| a == order.1);
            if fits && (self.orders.len() < ORDERS_MAX || self.orders.contains_key(&order)) {
                *self.orders.entry(order).or_default() += 1;
                self.total += 1;
            }
        }
    }

    /// The given sides, or the order most requests voted for (ties: the lowest VLANs).
    pub fn decide(&self, given: Sides) -> Result<Sides, PairError> {
        if given.both().is_some() {
            return Ok(given);
        }
        match self
            .orders
            .iter()
            .max_by_key(|(order, n)| (**n, std::cmp::Reverse(**order)))
        {
            Some(((before, after), _)) => Ok(Sides {
                before: Some(*before),
                after: Some(*after),
            }),
            None => {
                let seen: Vec<String> = (0..=u16::MAX)
                    .filter(|v| {
                        self.seen
                            .get(usize::from(v / 64))
                            .is_some_and(|w| w & (1 << (v % 64)) != 0)
                    })
                    .take(10)
                    .map(|v| v.to_string())
                    .collect();
                let list = if seen.is_empty() {
                    "none".to_string()
                } else {
                    seen.join(", ")
                };
                Err(PairError::NoSides(list))
            }
        }
    }
}

/// Resolves settled requests as they come, deciding the sides on the way.
pub struct Resolver {
    given: Sides,
    votes: Votes,
    /// `Err`: still holding back requests until the votes decide.
    decided: Result<Option<(Vlan, Vlan)>, Vec<Settled>>,
}

/// The sides used, and whether they are the capture's own decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The decision over every request (or the given sides).
    pub sides: Result<Sides, PairError>,
    /// The sides the requests were resolved with equal that decision.
    pub consistent: bool,
}

impl Resolver {
    /// `fixed`: sides known in advance (both given, or decided by an earlier reading).
    pub fn new(given: Sides, fixed: Option<Sides>) -> Self {
        let known = fixed.and_then(Sides::both).or(given.both());
        Resolver {
            given,
            votes: Votes::default(),
            decided: match known {
                Some(sides) => Ok(Some(sides)),
                None => Err(Vec::new()),
            },
        }
    }

    pub fn settle(&mut self, settled: Settled, out: &mut impl FnMut(Outcome)) {
        self.votes.add(&settled, self.given);
        match &mut self.decided {
            Ok(sides) => out(resolve(&settled, *sides)),
            Err(held) => {
                held.push(settled);
                if self.votes.total >= DECIDE_AFTER || held.len() >= HOLD_MAX {
                    self.decide(out);
                }
            }
        }
    }

    fn decide(&mut self, out: &mut impl FnMut(Outcome)) {
        let sides = self.votes.decide(self.given).ok().and_then(Sides::both);
        if let Err(held) = std::mem::replace(&mut self.decided, Ok(sides)) {
            for settled in &held {
                out(resolve(settled, sides));
            }
        }
    }

    /// Resolves what is still held back and compares the sides used with the final decision.
    pub fn finish(mut self, out: &mut impl FnMut(Outcome)) -> Resolved {
        if self.decided.is_err() {
            self.decide(out);
        }
        let used = self.decided.ok().flatten();
        let sides = self.votes.decide(self.given);
        let consistent = match &sides {
            Ok(s) => s.both() == used,
            Err(_) => used.is_none(),
        };
        Resolved { sides, consistent }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{FrameSpec, Payload, build, insert_tag};
    use crate::pair::Pairer;
    use crate::record::Record;
    use crate::units::Nanos;

    /// Settled requests of `n` pairs with the first copy on `a` and the second on `b`.
    fn settled(n: u64, a: u16, b: u16, start: u64) -> Vec<Settled> {
        let mut pairer = Pairer::new(Sides::default()).unwrap();
        let mut out = Vec::new();
        for seq in start..start + n {
            let f = build(
                &FrameSpec::default(),
                &Payload {
                    run: 1,
                    round: 0,
                    flags: 0,
                    seq,
                },
            );
            for (vlan, ts) in [(a, seq as i64 * 1000), (b, seq as i64 * 1000 + 400)] {
                let data = insert_tag(&f, 0x8100, vlan);
                let r = Record {
                    ts: Nanos(ts),
                    interface: 0,
                    data: &data,
                    orig_len: 0,
                };
                pairer.add(&r, &mut |s| out.push(s));
            }
        }
        pairer.finish(&mut |s| out.push(s));
        out
    }

    fn run(resolver: &mut Resolver, all: &[Settled]) -> (usize, usize) {
        let (mut pairs, mut negative) = (0, 0);
        for s in all {
            resolver.settle(*s, &mut |o| match o {
                Outcome::Pair(_) => pairs += 1,
                Outcome::Negative => negative += 1,
                _ => {}
            });
        }
        (pairs, negative)
    }

    #[test]
    fn the_provisional_decision_holds_when_the_capture_agrees() {
        let all = settled(3000, 10, 20, 0);
        let mut r = Resolver::new(Sides::default(), None);
        let (pairs, negative) = run(&mut r, &all);
        let resolved = r.finish(&mut |_| {});
        assert_eq!((pairs, negative), (3000, 0));
        assert!(resolved.consistent);
        assert_eq!(resolved.sides.unwrap().both(), Some((Vlan(10), Vlan(20))));
    }

    #[test]
    fn a_majority_against_the_first_thousand_asks_for_a_second_reading() {
        let mut all = settled(1100, 20, 10, 0);
        all.extend(settled(2000, 10, 20, 5000));
        let mut r = Resolver::new(Sides::default(), None);
        run(&mut r, &all);
        let resolved = r.finish(&mut |_| {});
        assert!(!resolved.consistent);
        let sides = resolved.sides.unwrap();
        assert_eq!(sides.both(), Some((Vlan(10), Vlan(20))));
        // The second reading, with the sides fixed, resolves all requests with them.
        let mut r = Resolver::new(Sides::default(), Some(sides));
        let (pairs, negative) = run(&mut r, &all);
        assert_eq!((pairs, negative), (2000, 1100));
        assert!(r.finish(&mut |_| {}).consistent);
    }

    #[test]
    fn one_vlan_only_holds_back_a_bounded_number_and_says_why() {
        let mut pairer = Pairer::new(Sides::default()).unwrap();
        let f = build(
            &FrameSpec::default(),
            &Payload {
                run: 1,
                round: 0,
                flags: 0,
                seq: 0,
            },
        );
        let data = insert_tag(&f, 0x8100, 10);
        let mut all = Vec::new();
        pairer.add(
            &Record {
                ts: Nanos(1),
                interface: 0,
                data: &data,
                orig_len: 0,
            },
            &mut |s| all.push(s),
        );
        pairer.finish(&mut |s| all.push(s));
        let mut r = Resolver::new(Sides::default(), None);
        let mut unsided = 0;
        for i in 1..=HOLD_MAX + 5 {
            r.settle(all[0], &mut |o| {
                unsided += usize::from(o == Outcome::Unsided)
            });
            // Nothing comes out until the hold is full; then everything comes out at once.
            let want = if i < HOLD_MAX { 0 } else { i };
            assert_eq!(unsided, want, "after {i}");
        }
        let resolved = r.finish(&mut |_| {});
        assert!(resolved.consistent);
        assert!(
            resolved
                .sides
                .unwrap_err()
                .to_string()
                .contains("VLANs seen: 10")
        );
    }
}

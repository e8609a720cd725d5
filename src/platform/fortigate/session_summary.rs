//! `diagnose sys session list` as the pipeline reads it: a bounded summary folded from the
//! sessions while they stream ([`SessionReader`] over [`Raw::reader`]), never the list itself.
//!
//! A socket-per-send sender at 1 kpps keeps ~180,000 sessions alive on one filter, so the fact
//! the flow checks judge must not grow with the list. It keeps counts (sessions, offloaded,
//! distinct source ports in a 64 k-bit map, tallies by policy, `no_ofld_reason`, `proto_state`
//! and `timeout=`, ages in a few buckets), the least `expire` and the oldest session, and for
//! evidence a few sessions: the first [`FIRST`], the first not offloaded, the one closest to
//! expiring (offloaded and not, because the NP refreshes offloaded sessions' `expire` only
//! every `max-session-timeout`), and the first of each policy. Whatever the list's length the
//! summary holds at most [`MAX_KEYS`] keys per tally and a dozen sessions.
//!
//! Counting first (`| grep -c "session info"`, research §4) was not chosen: FortiOS has no way
//! to list a bounded sample afterwards (no `grep -m`, no `head`), so a count would add a second
//! walk of the session table without shortening the list; the list's own `total session N`
//! line is the count, checked against the blocks read.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde::{Deserialize, Serialize};

use super::session_filter::SessionFilter;
use super::session_list::{Session, SessionReader};
use super::ttl::Ttl;
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

/// Sessions kept from the start of the list, for evidence.
pub const FIRST: usize = 5;
/// Distinct keys a tally keeps; the rest are counted under [`OTHER`].
pub const MAX_KEYS: usize = 32;
/// The tally key of everything past [`MAX_KEYS`].
pub const OTHER: &str = "(other)";
/// Policies whose first session is kept as an example.
const POLICY_EXAMPLES: usize = 4;

/// Counts by key, bounded: past [`MAX_KEYS`] distinct keys, new keys count under [`OTHER`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Tally(pub BTreeMap<String, u64>);

impl Tally {
    pub fn add(&mut self, key: &str) {
        if let Some(n) = self.0.get_mut(key) {
            *n += 1;
        } else if self.0.len() < MAX_KEYS {
            self.0.insert(key.to_string(), 1);
        } else {
            *self.0.entry(OTHER.to_string()).or_default() += 1;
        }
    }

    pub fn get(&self, key: &str) -> u64 {
        self.0.get(key).copied().unwrap_or(0)
    }

    /// `key: n` pairs, most frequent first.
    pub fn describe(&self) -> String {
        let mut pairs: Vec<(&String, &u64)> = self.0.iter().collect();
        pairs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        pairs
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// How old the sessions are (`duration=`), in buckets around the UDP idle timer (180 s by
/// default): a flow with one long-lived session has one old session; a sender that opens a
/// socket per send has many, none older than the idle timer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ages {
    pub under_10s: u64,
    pub under_1m: u64,
    pub under_3m: u64,
    pub under_1h: u64,
    pub older: u64,
    /// No `duration=` printed.
    pub unknown: u64,
}

impl Ages {
    fn add(&mut self, duration: Option<u64>) {
        let slot = match duration {
            None => &mut self.unknown,
            Some(d) if d < 10 => &mut self.under_10s,
            Some(d) if d < 60 => &mut self.under_1m,
            Some(d) if d < 180 => &mut self.under_3m,
            Some(d) if d < 3600 => &mut self.under_1h,
            Some(_) => &mut self.older,
        };
        *slot += 1;
    }

    /// Sessions younger than three minutes (the default UDP idle timer).
    pub fn younger_than_3m(&self) -> u64 {
        self.under_10s + self.under_1m + self.under_3m
    }
}

/// What the checks need of one flow's session list, in bounded size.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// `total session N` as printed (checked against `sessions`); `None` when not printed.
    pub total: Option<u64>,
    /// Session blocks read.
    pub sessions: u64,
    /// Sessions offloaded in every direction that carried traffic ([`Session::offloaded`]).
    pub offloaded: u64,
    pub distinct_source_ports: u32,
    /// Sessions per `policy_id` (keys are the ids as text).
    pub policies: Tally,
    /// Sessions per `no_ofld_reason` word (a session with two words counts under both).
    pub no_ofld_reasons: Tally,
    pub proto_states: Tally,
    /// Sessions per `timeout=` value (`0`, `never`, seconds).
    pub timeouts: Tally,
    pub ages: Ages,
    /// The least `expire=` of any session (`never` only when every session says `never`).
    pub least_expire: Option<Ttl>,
    /// The oldest session's `duration=`.
    pub oldest_s: Option<u64>,
    /// The first sessions of the list.
    pub first: Vec<Session>,
    /// The first session not offloaded.
    pub first_not_offloaded: Option<Session>,
    /// The session with the least `expire` among the offloaded ones, and among the others.
    pub least_expire_offloaded: Option<Session>,
    pub least_expire_not_offloaded: Option<Session>,
    /// The first session of each of the first few policies seen.
    pub policy_examples: BTreeMap<String, Session>,
}

impl SessionSummary {
    /// Sessions not offloaded in some direction that carried traffic.
    pub fn not_offloaded(&self) -> u64 {
        self.sessions - self.offloaded
    }

    /// Sessions of policies other than `policy`.
    pub fn other_policies(&self, policy: u32) -> u64 {
        let own = policy.to_string();
        self.policies
            .0
            .iter()
            .filter(|(k, _)| **k != own)
            .map(|(_, n)| n)
            .sum()
    }

    /// A session of a policy other than `policy`, for evidence.
    pub fn example_of_other_policy(&self, policy: u32) -> Option<&Session> {
        let own = policy.to_string();
        self.policy_examples
            .iter()
            .find(|(k, _)| **k != own)
            .map(|(_, s)| s)
    }

    /// The sessions kept for evidence, each once, in list order of their kind: the first ones,
    /// then the notable ones.
    pub fn examples(&self) -> Vec<&Session> {
        let mut out: Vec<&Session> = Vec::new();
        let notable = [
            self.first_not_offloaded.as_ref(),
            self.least_expire_not_offloaded.as_ref(),
            self.least_expire_offloaded.as_ref(),
        ];
        for s in self
            .first
            .iter()
            .chain(notable.into_iter().flatten())
            .chain(self.policy_examples.values())
        {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}

/// Folds sessions into a [`SessionSummary`] one at a time.
pub struct Summarizer {
    summary: SessionSummary,
    /// One bit per source port.
    ports: Box<[u64; 1024]>,
}

impl Default for Summarizer {
    fn default() -> Self {
        Summarizer {
            summary: SessionSummary::default(),
            ports: Box::new([0; 1024]),
        }
    }
}

/// `a` expires sooner than `b` (`never` is latest).
fn sooner(a: Option<Ttl>, b: Option<Ttl>) -> bool {
    let key = |t: Option<Ttl>| match t {
        Some(Ttl::Seconds(s)) => s,
        Some(Ttl::Never) | None => u64::MAX,
    };
    key(a) < key(b)
}

impl Summarizer {
    pub fn add(&mut self, s: Session) {
        let sum = &mut self.summary;
        sum.sessions += 1;
        let offloaded = s.offloaded();
        sum.offloaded += u64::from(offloaded);
        if let Some(port) = s.sport {
            let (word, bit) = (usize::from(port) / 64, port % 64);
            if self.ports[word] & (1 << bit) == 0 {
                self.ports[word] |= 1 << bit;
                sum.distinct_source_ports += 1;
            }
        }
        let policy = s.policy_id.map_or("?".to_string(), |p| p.to_string());
        sum.policies.add(&policy);
        for reason in &s.no_ofld_reason {
            sum.no_ofld_reasons.add(reason);
        }
        sum.proto_states
            .add(s.proto_state.as_deref().unwrap_or("(not printed)"));
        sum.timeouts.add(
            &s.timeout
                .map_or("(not printed)".to_string(), |t| t.to_string()),
        );
        sum.ages.add(s.duration);
        sum.least_expire = match (sum.least_expire, s.expire) {
            (None, e) => e,
            (Some(old), e) if sooner(e, Some(old)) => e,
            (old, _) => old,
        };
        sum.oldest_s = sum.oldest_s.max(s.duration);
        let least = if offloaded {
            &mut sum.least_expire_offloaded
        } else {
            &mut sum.least_expire_not_offloaded
        };
        if least.as_ref().is_none_or(|l| sooner(s.expire, l.expire)) {
            *least = Some(s.clone());
        }
        if !offloaded && sum.first_not_offloaded.is_none() {
            sum.first_not_offloaded = Some(s.clone());
        }
        if sum.policy_examples.len() < POLICY_EXAMPLES && !sum.policy_examples.contains_key(&policy)
        {
            sum.policy_examples.insert(policy, s.clone());
        }
        if sum.first.len() < FIRST {
            sum.first.push(s);
        }
    }

    pub fn finish(self, total: Option<u64>) -> SessionSummary {
        SessionSummary {
            total,
            ..self.summary
        }
    }
}

/// Reads a session list from `reader` into its summary, in bounded memory. A damaged block or
/// a total that disagrees with the blocks read is an error, as in [`super::session_list::parse`].
pub fn summarize(reader: impl BufRead) -> Result<SessionSummary, ParseError> {
    let mut sessions = SessionReader::new(reader);
    let mut summarizer = Summarizer::default();
    let mut first_error = None;
    for session in sessions.by_ref() {
        match session {
            Ok(s) if first_error.is_none() => summarizer.add(s),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // A count that disagrees says more (the list was cut) than the damaged block it leaves.
    let total = sessions.finish()?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(summarizer.finish(total)),
    }
}

/// The sessions that `filter` selects (`diagnose sys session list` after the filter lines).
pub struct ListSessions(pub SessionFilter);

impl ListSessions {
    pub const TEXT: &'static str = "diagnose sys session list";
}

impl Query for ListSessions {
    const KIND: &'static str = "fortigate.session-list";
    type Fact = SessionSummary;
    fn command(&self) -> Command {
        Command::in_context(self.0.context(), Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<SessionSummary, ParseError> {
        summarize(raw.reader())
    }
}

#[cfg(test)]
mod tests {
    use super::super::session_list::parse;
    use super::*;

    fn block(sport: u32, policy: u32, duration: u64, expire: &str, offloaded: bool) -> String {
        let npu = if offloaded {
            "npu_state=0x4000400 ofld-O\nno_ofld_reason: "
        } else {
            "npu_state=0x4000000\nno_ofld_reason:  not-established"
        };
        format!(
            "session info: proto=17 proto_state=00 duration={duration} expire={expire} timeout=0\n\
             statistic(bytes/packets/allow_err): org=46/1/1 reply=0/0/0 tuples=2\n\
             hook=pre dir=org act=noop 10.10.1.10:{sport}->10.20.1.20:5000(0.0.0.0:0)\n\
             misc=0 policy_id={policy} vd=0\n{npu}\n"
        )
    }

    fn list(blocks: &[String]) -> String {
        format!(
            "fw1 # diagnose sys session list\n{}total session {}\n\nfw1 # ",
            blocks.concat(),
            blocks.len()
        )
    }

    #[test]
    fn counts_what_the_checks_need() {
        let text = list(&[
            block(40000, 1, 3611, "174", true),
            block(40001, 1, 3, "177", false),
            block(40001, 7, 5, "20", false),
            block(40002, 1, 200, "never", false),
        ]);
        let s = summarize(text.as_bytes()).unwrap();
        assert_eq!((s.total, s.sessions, s.offloaded), (Some(4), 4, 1));
        assert_eq!(s.distinct_source_ports, 3);
        assert_eq!((s.policies.get("1"), s.policies.get("7")), (3, 1));
        assert_eq!(s.other_policies(1), 1);
        assert_eq!(s.example_of_other_policy(1).unwrap().sport, Some(40001));
        assert_eq!(s.no_ofld_reasons.get("not-established"), 3);
        assert_eq!((s.proto_states.get("00"), s.timeouts.get("0")), (4, 4));
        assert_eq!(s.least_expire, Some(Ttl::Seconds(20)));
        assert_eq!(s.oldest_s, Some(3611));
        assert_eq!((s.ages.under_10s, s.ages.under_1h, s.ages.older), (2, 1, 1));
        assert_eq!(s.ages.younger_than_3m(), 2);
        assert_eq!(
            s.least_expire_not_offloaded.as_ref().unwrap().expire,
            Some(Ttl::Seconds(20))
        );
        assert_eq!(
            s.least_expire_offloaded.as_ref().unwrap().sport,
            Some(40000)
        );
        assert_eq!(s.first_not_offloaded.as_ref().unwrap().sport, Some(40001));
        assert_eq!(s.first.len(), 4);
        // The summary agrees with the whole list read in memory.
        let whole = parse(&text).unwrap();
        assert_eq!(whole.sessions.len() as u64, s.sessions);
        // Every session of a short list is an example, each once.
        assert_eq!(s.examples().len(), 4);
    }

    #[test]
    fn stays_bounded_whatever_the_list() {
        let blocks: Vec<String> = (0..3000u32)
            .map(|i| {
                block(
                    1024 + i,
                    i,
                    u64::from(i),
                    &(i % 170 + 10).to_string(),
                    i % 2 == 0,
                )
            })
            .collect();
        let s = summarize(list(&blocks).as_bytes()).unwrap();
        assert_eq!(s.sessions, 3000);
        assert_eq!(s.distinct_source_ports, 3000);
        assert_eq!(s.policies.0.len(), MAX_KEYS + 1);
        assert_eq!(s.policies.get(OTHER), 3000 - MAX_KEYS as u64);
        assert_eq!(s.first.len(), FIRST);
        assert_eq!(s.policy_examples.len(), POLICY_EXAMPLES);
        assert!(serde_json::to_string(&s).unwrap().len() < 16 * 1024);
    }

    #[test]
    fn never_expires_only_when_every_session_says_so() {
        let never = summarize(list(&[block(1, 1, 5, "never", true)]).as_bytes()).unwrap();
        assert_eq!(never.least_expire, Some(Ttl::Never));
        let json = serde_json::to_value(&never).unwrap();
        assert_eq!(json["least_expire"], "never");
        let mixed = summarize(
            list(&[block(1, 1, 5, "never", true), block(2, 1, 5, "30", true)]).as_bytes(),
        )
        .unwrap();
        assert_eq!(mixed.least_expire, Some(Ttl::Seconds(30)));
    }

    #[test]
    fn damage_is_an_error_with_the_block_as_excerpt() {
        let mut blocks: Vec<String> = (0..40u32)
            .map(|i| block(40000 + i, 1, 5, "100", true))
            .collect();
        blocks[30] = blocks[30].replace("expire=100", "expire=-5");
        let e = summarize(list(&blocks).as_bytes()).unwrap_err();
        assert!(e.reason.contains("session block 31"), "{}", e.reason);
        assert!(
            e.excerpt.starts_with("session info") && e.excerpt.contains(":40030->"),
            "{}",
            e.excerpt
        );
        let cut = list(&blocks[..3]).replace("total session 3", "total session 9");
        let e = summarize(cut.as_bytes()).unwrap_err();
        assert!(e.reason.contains("total session 9") && e.excerpt.contains("total session 9"));
        for bad in ["", "Command fail. Return code -61\n", "hello"] {
            assert!(summarize(bad.as_bytes()).is_err(), "{bad:?}");
        }
        let empty =
            summarize("fw1 # diagnose sys session list\ntotal session 0\n".as_bytes()).unwrap();
        assert_eq!((empty.sessions, empty.total), (0, Some(0)));
    }
}

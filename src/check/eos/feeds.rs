//! The market-data feeds a switch's baseline lists (`market_feeds`), shared by the checks that
//! follow a feed: flowing now (its ingress port's counter), its multicast route (RPF interface,
//! outgoing interfaces, packets forwarded) and, over several switches, the independence of its
//! two sides. A feed lists the sides this switch receives: both on a switch that takes both
//! hand-offs, one each where side A and side B land on different switches (the second lists the
//! same feed name with its own side).
//!
//! ```yaml
//! market_feeds:
//!   - name: exchange-md
//!     a: { group: 239.1.1.1, source: 10.10.1.10, port: Ethernet1, vlan: 100 }
//!     b: { group: 239.2.1.1, source: 10.10.2.10, port: Ethernet9, vlan: 100,
//!          rpf: Ethernet9, outgoing: [Ethernet4], uplink: carrier-b-pe1 }
//! ```

use std::fmt;
use std::net::{IpAddr, Ipv4Addr};

use serde::Deserialize;

use crate::Invalid;

/// The gap between the two reads of a sampled counter when the baseline sets none: long
/// enough for EOS to refresh its counters (a few seconds, research §6.2) and for a
/// heartbeat-only feed to send.
pub const DEFAULT_GAP_S: u32 = 10;

/// `expect:` keys read by the checks that follow the feeds on one switch (flowing now, their
/// routes): the feeds and the gap between the two samples.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    pub market_feeds: Vec<Feed>,
    #[serde(default)]
    pub feed_sample_gap_s: Option<u32>,
}

impl Input {
    pub fn gap_s(&self) -> u32 {
        self.feed_sample_gap_s.unwrap_or(DEFAULT_GAP_S)
    }

    /// For a check's `validate`: the gap is 1-300 s, and the feeds read ([`validate`]).
    pub fn validate(&self) -> Result<(), Invalid> {
        if !(1..=300).contains(&self.gap_s()) {
            return Err(Invalid(format!(
                "`expect.feed_sample_gap_s` {} is not 1-300 seconds",
                self.gap_s()
            )));
        }
        validate(&self.market_feeds)
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Feed {
    pub name: String,
    #[serde(default)]
    pub a: Option<Side>,
    #[serde(default)]
    pub b: Option<Side>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Side {
    pub group: Ipv4Addr,
    #[serde(default)]
    pub source: Option<IpAddr>,
    /// Where the side's packets enter the switch.
    pub port: String,
    pub vlan: u16,
    /// The interface its multicast route must take as RPF (default: `port`; a VLAN interface
    /// where the hand-off is switched, `Vlan100`).
    #[serde(default)]
    pub rpf: Option<String>,
    /// Interfaces its route must forward to, towards the receivers (default: at least one).
    #[serde(default)]
    pub outgoing: Vec<String>,
    /// The device the side arrives from, for a hand-off whose far end sends no LLDP.
    #[serde(default)]
    pub uplink: Option<String>,
}

impl Side {
    /// The interface the route must arrive on.
    pub fn rpf(&self) -> &str {
        self.rpf.as_deref().unwrap_or(&self.port)
    }

    /// The source when it is an IPv4 address (multicast routes are IPv4 here).
    pub fn source_v4(&self) -> Option<Ipv4Addr> {
        match self.source {
            Some(IpAddr::V4(s)) => Some(s),
            _ => None,
        }
    }
}

/// `A` or `B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Letter {
    A,
    B,
}

impl fmt::Display for Letter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Letter::A => "A",
            Letter::B => "B",
        })
    }
}

/// Every side the feeds list, with its feed and letter.
pub fn sides(feeds: &[Feed]) -> impl Iterator<Item = (&Feed, Letter, &Side)> {
    feeds.iter().flat_map(|f| {
        f.a.iter()
            .map(move |s| (f, Letter::A, s))
            .chain(f.b.iter().map(move |s| (f, Letter::B, s)))
    })
}

/// What `side A (239.1.1.1 from 10.10.1.10)` of `feed` is called in messages.
pub fn describe(feed: &str, letter: Letter, s: &Side) -> String {
    let source = s.source.map(|a| format!(" from {a}")).unwrap_or_default();
    format!(
        "{feed} side {letter} ({}{source}, VLAN {})",
        s.group, s.vlan
    )
}

/// For a check's `validate`: at least one feed, each with a side, each side a multicast group
/// and a port name.
pub fn validate(feeds: &[Feed]) -> Result<(), Invalid> {
    if feeds.is_empty() {
        return Err("`expect.market_feeds` lists no feed".into());
    }
    if let Some(f) = feeds.iter().find(|f| f.a.is_none() && f.b.is_none()) {
        return Err(Invalid(format!(
            "`expect.market_feeds` {}: neither side `a` nor side `b` is given",
            f.name
        )));
    }
    for (feed, letter, s) in sides(feeds) {
        if !s.group.is_multicast() {
            return Err(Invalid(format!(
                "`expect.market_feeds` {} side {letter}: {} is not a multicast group",
                feed.name, s.group
            )));
        }
        let names = std::iter::once(s.port.as_str())
            .chain(s.rpf.as_deref())
            .chain(s.outgoing.iter().map(String::as_str));
        for name in names {
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(Invalid(format!(
                    "`expect.market_feeds` {} side {letter}: {name:?} is not an interface name",
                    feed.name
                )));
            }
        }
    }
    Ok(())
}

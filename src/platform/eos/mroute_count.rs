//! `show ip mroute count | json`: each multicast route's packet counter, read twice a few
//! seconds apart in one session (the same two samples `eos.multicast.flowing` takes of the
//! ports): a feed whose route exists but whose counter holds still is not being forwarded.
//!
//! Neither the JSON nor the text of this command is public (the hand-off set's README): the JSON
//! read here is modelled on EOS's conventions and on `show ip mroute`'s model
//! (`groups.<group>.groupSources.<source>.{packets, bytes}`, optionally under `vrfs.<vrf>`,
//! counters cumulative). A reply of any other shape is an ERROR with its excerpt.

use std::net::Ipv4Addr;

use serde::{Deserialize, Serialize};

use super::json::required;
use super::mroute::{ByVrf, modelled};
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MrouteCounts {
    pub counts: Vec<MrouteCount>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MrouteCount {
    pub vrf: String,
    pub group: Ipv4Addr,
    pub source: Ipv4Addr,
    /// Packets forwarded on the route, cumulative.
    pub packets: u64,
}

impl MrouteCounts {
    /// The (source, group) route's packets, in any VRF.
    pub fn packets(&self, group: Ipv4Addr, source: Ipv4Addr) -> Option<u64> {
        self.counts
            .iter()
            .find(|c| c.group == group && c.source == source)
            .map(|c| c.packets)
    }
}

/// `show ip mroute count | json`: the first sample, or the second `gap_s` seconds after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShowMrouteCount {
    pub second_after_s: Option<u32>,
}

impl ShowMrouteCount {
    pub const TEXT: &'static str = "show ip mroute count | json";

    pub fn first() -> Self {
        ShowMrouteCount {
            second_after_s: None,
        }
    }

    pub fn second(gap_s: u32) -> Self {
        ShowMrouteCount {
            second_after_s: Some(gap_s),
        }
    }
}

impl Query for ShowMrouteCount {
    const KIND: &'static str = "eos.show-ip-mroute-count";
    type Fact = MrouteCounts;
    fn command(&self) -> Command {
        let command = Command::new(Self::TEXT);
        match self.second_after_s {
            Some(gap) => command.resampled(gap),
            None => command,
        }
    }
    fn parse(raw: &mut Raw<'_>) -> Result<MrouteCounts, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
struct JsonCount {
    packets: u64,
}

pub fn parse(raw: &str) -> Result<MrouteCounts, ParseError> {
    let model = "`groups.<group>.groupSources.<source>.packets`";
    let doc: ByVrf<JsonCount> = required(raw, "show ip mroute count")
        .map_err(|e| modelled(e, "show ip mroute count", model))?;
    let counts = doc
        .entries()
        .map_err(|why| ParseError::new(why.0, raw))?
        .into_iter()
        .map(|(vrf, group, source, c)| MrouteCount {
            vrf,
            group,
            source,
            packets: c.packets,
        })
        .collect();
    Ok(MrouteCounts { counts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_per_route_and_two_samples() {
        let raw = r#"{"groups": {"239.1.1.1": {"groupSources": {"10.10.1.10": {"packets": 1200, "bytes": 76800}}}}}"#;
        let c = parse(raw).unwrap();
        let (g, s) = ("239.1.1.1".parse().unwrap(), "10.10.1.10".parse().unwrap());
        assert_eq!(c.packets(g, s), Some(1200));
        assert_eq!(c.packets(g, Ipv4Addr::UNSPECIFIED), None);
        for bad in [
            raw.replace("\"packets\": 1200, ", ""),
            raw.replace("1200", "-1"),
            "IP Multicast Statistics\n1 routes".to_string(),
            "% Invalid input".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
        let second = ShowMrouteCount::second(10).command();
        assert_eq!(second.first_sample(), ShowMrouteCount::first().command());
    }
}

//! `eos.pim.neighbors`: a PIM neighbour on each hand-off interface, from `show ip pim neighbor`.

use std::net::IpAddr;

use serde::Deserialize;

use crate::Check;
use crate::outcome::combine;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::ShowPimNeighbors;

/// On each hand-off interface the baseline names there is a PIM neighbour (the baseline's
/// address, where it gives one). Without the adjacency the switch cannot join the exchange's
/// groups upstream: the feed stops as soon as the current join state times out. A baseline
/// without `pim_neighbors` (or with none: most leaves run no PIM) is a SKIP that says so, and
/// nothing is sent.
///
/// ```yaml
/// - id: eos.pim.neighbors
///   platform: eos
/// ```
/// Baseline: `expect.pim_neighbors: [{ interface: Ethernet1, address: 10.1.1.1 }]` (`address`
/// optional).
pub struct PimNeighbors;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    #[serde(default)]
    pim_neighbors: Vec<Expected>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    interface: String,
    #[serde(default)]
    address: Option<IpAddr>,
}

impl Check for PimNeighbors {
    const ID: &'static str = "eos.pim.neighbors";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        if input.pim_neighbors.is_empty() {
            return Vec::new();
        }
        vec![Box::new(ShowPimNeighbors)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        if input.pim_neighbors.is_empty() {
            return Ok(Verdict::skip(
                "the baseline names no PIM neighbour (`expect.pim_neighbors`): nothing to judge on this switch; where it joins feeds over PIM, list the hand-off interfaces there (`- { interface, address }`)",
            ));
        }
        let pim = facts.get(&ShowPimNeighbors)?;
        let parts = input
            .pim_neighbors
            .iter()
            .map(|want| {
                let on: Vec<String> = pim.on(&want.interface).map(|n| n.address.clone()).collect();
                let evidence = if on.is_empty() {
                    let all: Vec<String> = pim
                        .neighbors
                        .iter()
                        .map(|n| format!("{} on {}", n.address, n.interface))
                        .collect();
                    format!(
                        "PIM neighbours: {}",
                        if all.is_empty() { "none".to_string() } else { all.join(", ") }
                    )
                } else {
                    format!("{}: {}", want.interface, on.join(", "))
                };
                let found = match want.address {
                    None => !on.is_empty(),
                    Some(a) => on.iter().any(|n| n.parse::<IpAddr>() == Ok(a)),
                };
                let what = want
                    .address
                    .map(|a| format!("PIM neighbour {a}"))
                    .unwrap_or_else(|| "a PIM neighbour".to_string());
                if found {
                    return Verdict::ok(format!("{}: {what} is up", want.interface)).evidence(evidence);
                }
                let seen = if on.is_empty() {
                    "no PIM neighbour at all".to_string()
                } else {
                    format!("neighbours {} instead", on.join(", "))
                };
                Verdict::fail(format!("{}: {what} expected, {seen}", want.interface))
                    .evidence(evidence)
                    .remedy(format!(
                        "Check PIM on {0} (`show ip pim interface {0}`: `pim ipv4 sparse-mode`), the link, and the exchange's or carrier's router on the other end; without the adjacency the feed's joins are not sent upstream. Rerun `premarket check eos.pim.neighbors`.",
                        want.interface
                    ))
            })
            .collect();
        Ok(combine(
            parts,
            "hand-off interfaces",
            "a PIM neighbour on every hand-off interface of the baseline",
        ))
    }
}

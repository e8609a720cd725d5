//! Queue drops on the trading ports from whichever counter the switch's family has: VOQ drops
//! on 7280R/7500R/7800R/7020R (`show interfaces counters queue drops`), egress queue drops on
//! Trident/Tomahawk families (`... queue detail`), discards where neither is documented
//! (`show interfaces counters discards`). Each is planned with its availability; the model
//! decides which one was sent, and the first one with a fact is read here with its previous
//! run's fact (within one boot, as every counter).

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use super::since::{Before, before};
use premarket_parse::model::applies;
use premarket_parse::{AnyQuery, Applies, FactError, Facts, Query, Recorded};
use premarket_platform::eos::{
    Discards, EgressQueueDrops, QueueDrops, ShowDiscards, ShowQueueDetail, ShowQueueDrops,
};

/// Drops per port, now or in a previous run (`None`: the port is not listed).
pub type Totals = BTreeMap<String, Option<u64>>;

/// The sources, in the order they are tried.
pub fn queries() -> Vec<Box<dyn AnyQuery>> {
    vec![
        Box::new(ShowQueueDrops),
        Box::new(ShowQueueDetail),
        Box::new(ShowDiscards),
    ]
}

/// One source's fact, read as drops per port.
pub trait PortDrops {
    fn drops(&self, port: &str) -> Option<u64>;
}

impl PortDrops for QueueDrops {
    fn drops(&self, port: &str) -> Option<u64> {
        self.total(port)
    }
}

impl PortDrops for EgressQueueDrops {
    fn drops(&self, port: &str) -> Option<u64> {
        self.total(port)
    }
}

impl PortDrops for Discards {
    fn drops(&self, port: &str) -> Option<u64> {
        self.total(port)
    }
}

/// The drops found, with what they are and what the previous run saw.
pub struct Found {
    /// `queue drops` (VOQ), `egress queue drops`, `discards`.
    pub label: &'static str,
    pub now: Totals,
    pub before: Before<Totals>,
    /// The previous run's record of this source.
    pub previous: Option<Recorded>,
}

impl Found {
    /// No drop source: only LANZ is judged.
    pub fn nothing() -> Found {
        Found {
            label: "drops",
            now: Totals::new(),
            before: Before::FirstRun,
            previous: None,
        }
    }
}

/// The first source the switch answered, or why none applies to it: the device's refusal of
/// the source it was asked for, else what the model lacks (`not on MODEL: ...`).
pub fn read(facts: &Facts, ports: &[String]) -> Result<Result<Found, NoSource>, FactError> {
    let tried = [
        source(facts, &ShowQueueDrops, "queue drops", ports)?,
        source(facts, &ShowQueueDetail, "egress queue drops", ports)?,
        source(facts, &ShowDiscards, "discards", ports)?,
    ];
    let mut refused = Vec::new();
    let mut lacks = Vec::new();
    for t in tried {
        match t {
            Ok(found) => return Ok(Ok(found)),
            Err(Absent::Refused(why)) => refused.push(why),
            Err(Absent::Lacks(why)) => lacks.push(why),
        }
    }
    if !refused.is_empty() {
        return Ok(Err(NoSource::Refused(refused)));
    }
    let model = facts
        .model()
        .map_or_else(|| "this model".to_string(), ToString::to_string);
    Ok(Err(NoSource::NotOn { model, lacks }))
}

/// Why no source of drops applies to the switch (the verdict is SKIP with it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoSource {
    /// The switch refused the sources it was asked for: its answers.
    #[error("{}", .0.join("; "))]
    Refused(Vec<String>),
    /// The model is known to lack every source.
    #[error("not on {model}: {}", .lacks.join("; "))]
    NotOn { model: String, lacks: Vec<String> },
}

/// Why a source gave no drops.
enum Absent {
    /// The model is known not to have it (the reason, without the model).
    Lacks(String),
    /// It was sent and the device said it has no such command.
    Refused(String),
}

fn source<Q: Query>(
    facts: &Facts,
    query: &Q,
    label: &'static str,
    ports: &[String],
) -> Result<Result<Found, Absent>, FactError>
where
    Q::Fact: DeserializeOwned + PortDrops,
{
    let now = match facts.get(query) {
        Ok(now) => now,
        Err(e) if e.not_available() => {
            return Ok(Err(match applies(query, facts.model()) {
                Applies::No(why) => Absent::Lacks(why),
                _ => Absent::Refused(e.to_string()),
            }));
        }
        Err(e) => return Err(e),
    };
    let totals =
        |fact: &Q::Fact| -> Totals { ports.iter().map(|p| (p.clone(), fact.drops(p))).collect() };
    let before = match before(facts, query)? {
        Before::FirstRun => Before::FirstRun,
        Before::NotComparable(why) => Before::NotComparable(why),
        Before::Run { fact, run_id } => Before::Run {
            fact: totals(&fact),
            run_id,
        },
    };
    Ok(Ok(Found {
        label,
        now: totals(now),
        before,
        previous: facts.previous(query).map(|(_, r)| r.clone()),
    }))
}

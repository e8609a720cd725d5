//! What the switch's previous run left to compare with: its boot (from `show version`), and the
//! previous fact of a counter query when its counters continue into this run's.
//!
//! Counters are cumulative since boot or `clear counters`. They are compared only within one
//! boot; a counter that went down means they restarted (a reboot or a clear) and is said as
//! such, never read as growth. The first run on a switch records and judges no growth.

use serde::de::DeserializeOwned;

use crate::reboot::{Since, boot_instant};
use premarket_parse::{FactError, Facts, Query};
use premarket_platform::eos::{ShowVersion, Version};

/// The boot instant `version` gives (the switch's own `bootupTimestamp`, else collection time
/// minus uptime), in epoch seconds.
fn boot(version: &Version, collected_at: Option<chrono::DateTime<chrono::Utc>>) -> Option<i64> {
    version
        .bootup_timestamp_s
        .and_then(|b| i64::try_from(b).ok())
        .or_else(|| Some(boot_instant(collected_at?, version.uptime_s?)))
}

/// The boot now, and how it relates to the previous run's. `Ok(None)` when `show version` gives
/// no boot time (a text form without uptime).
pub fn boot_since(facts: &Facts) -> Result<Option<(i64, Since)>, FactError> {
    let version = facts.get(&ShowVersion)?;
    let Some(now) = boot(version, facts.collected_at()) else {
        return Ok(None);
    };
    let previous = facts.previous(&ShowVersion).and_then(|(fact, record)| {
        Some((
            boot(&fact.ok()?, record.collected_at)?,
            record.run_id.clone(),
        ))
    });
    Ok(Some((
        now,
        Since::compare(now, previous.as_ref().map(|(b, r)| (*b, r.as_str()))),
    )))
}

/// The previous fact of a counter query, as far as it can be compared.
#[derive(Debug)]
pub enum Before<T> {
    /// No earlier run recorded it: this run only records.
    FirstRun,
    /// Recorded, but the counters restarted since (or the record is unreadable): why.
    NotComparable(String),
    /// The previous run's fact.
    Run { fact: T, run_id: String },
}

/// The previous fact of `query`, unless the switch rebooted since it was recorded.
pub fn before<Q: Query>(facts: &Facts, query: &Q) -> Result<Before<Q::Fact>, FactError>
where
    Q::Fact: DeserializeOwned,
{
    let Some((fact, record)) = facts.previous(query) else {
        return Ok(Before::FirstRun);
    };
    let fact = match fact {
        Ok(f) => f,
        Err(e) => {
            return Ok(Before::NotComparable(format!(
                "the previous run's record ({}) is unreadable ({e})",
                record.run_id
            )));
        }
    };
    if let Some((_, since)) = boot_since(facts)?
        && let Some(why) = since.breaks_counters()
    {
        return Ok(Before::NotComparable(why));
    }
    Ok(Before::Run {
        fact,
        run_id: record.run_id.clone(),
    })
}

/// One counter now and in the previous run.
#[derive(Clone, Copy, Debug)]
pub struct Counter {
    pub label: &'static str,
    pub now: Option<u64>,
    pub before: Option<u64>,
}

/// What a set of counters did since the previous run.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// Some counter went down: they restarted (reboot or clear); the labels that did.
    Restarted(Vec<&'static str>),
    /// Growth of each counter that grew (label, by how much); empty when none grew.
    Grew(Vec<(&'static str, u64)>),
}

pub fn change(counters: &[Counter]) -> Change {
    let down: Vec<&'static str> = counters
        .iter()
        .filter(|c| matches!((c.now, c.before), (Some(n), Some(b)) if n < b))
        .map(|c| c.label)
        .collect();
    if !down.is_empty() {
        return Change::Restarted(down);
    }
    Change::Grew(
        counters
            .iter()
            .filter_map(|c| match (c.now, c.before) {
                (Some(n), Some(b)) if n > b => Some((c.label, n - b)),
                _ => None,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(label: &'static str, now: u64, before: u64) -> Counter {
        Counter {
            label,
            now: Some(now),
            before: Some(before),
        }
    }

    #[test]
    fn growth_and_restart() {
        assert_eq!(change(&[c("fcs", 3, 3)]), Change::Grew(vec![]));
        assert_eq!(
            change(&[c("fcs", 1846, 3), c("flaps", 3, 1)]),
            Change::Grew(vec![("fcs", 1843), ("flaps", 2)])
        );
        assert_eq!(
            change(&[c("fcs", 0, 3), c("flaps", 5, 1)]),
            Change::Restarted(vec!["fcs"])
        );
        let unknown = Counter {
            label: "x",
            now: None,
            before: Some(1),
        };
        assert_eq!(change(&[unknown]), Change::Grew(vec![]));
    }
}

//! The fact a query read in the previous run of a check on a device, as far as it can be
//! compared with this run's: what counter checks (growth since then) and session checks (reset
//! since then) start from. The first run records and judges nothing; a record that no longer
//! reads as the fact (premarket was upgraded) is said, never read as a change.

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;

use premarket_parse::{Facts, Query};

/// The previous run's fact of a query.
#[derive(Debug)]
pub enum Earlier<T> {
    /// No earlier run recorded it: this run records.
    FirstRun,
    /// Recorded, but unreadable now: why.
    Unreadable(String),
    /// The previous run's fact, its run id and when it was collected.
    Run {
        fact: T,
        run_id: String,
        collected_at: Option<DateTime<Utc>>,
    },
}

/// The previous run's fact of `query`.
pub fn earlier<Q: Query>(facts: &Facts, query: &Q) -> Earlier<Q::Fact>
where
    Q::Fact: DeserializeOwned,
{
    match facts.previous(query) {
        None => Earlier::FirstRun,
        Some((Err(e), record)) => Earlier::Unreadable(format!(
            "the previous run's record ({}) is unreadable ({e})",
            record.run_id
        )),
        Some((Ok(fact), record)) => Earlier::Run {
            fact,
            run_id: record.run_id.clone(),
            collected_at: record.collected_at,
        },
    }
}

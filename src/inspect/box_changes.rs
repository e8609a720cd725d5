//! What the report says changed in a device's box facts (model, serial, software, ...) against
//! the device's box facts reference ([`premarket_parse::BoxReference`]: a full run compares
//! with the full runs before it, a rerun with what the latest full run compared with, each only
//! the facts it read), and the record of them the archive keeps for the next run. The values
//! are device text: compared as the archive keeps them (a secret the device printed masked, as
//! in the reference's record) and shown redacted, escaped and bounded.

use chrono::{DateTime, Utc};

use premarket_check::box_facts;
use premarket_parse::{Facts, Recorded};
use premarket_plan::DevicePlan;
use premarket_report::changed::{self, BoxFacts, FactChange};
use premarket_report::escape::{capped, control};
use premarket_report::redact::Redactor;

/// The box facts this run read on the device (to archive, `run_id`'s) and those that differ
/// from the device's box facts reference, only those this run read; values are device text,
/// shown redacted, escaped and bounded.
pub(crate) fn compare(
    plan: &DevicePlan,
    facts: &Facts,
    run_id: &str,
    collected_at: DateTime<Utc>,
    redactor: &Redactor,
) -> (Vec<FactChange>, Option<Recorded>) {
    let now = box_facts::read(facts);
    if now.is_empty() {
        return (Vec::new(), None);
    }
    let before: BoxFacts = plan
        .box_facts
        .compare_with
        .as_ref()
        .and_then(|r| r.fact.read().ok())
        .unwrap_or_default();
    let clean = |v: Option<String>| v.map(|v| capped(control(&redactor.literals(&v))));
    // Compared as archived, secrets masked: the previous record was.
    let archived: BoxFacts = now
        .iter()
        .map(|(fact, value)| (fact.clone(), redactor.literals(value)))
        .collect();
    let changed = changed::compare(&plan.device.name, &before, &archived)
        .into_iter()
        .map(|c| FactChange {
            before: clean(c.before),
            after: clean(c.after),
            ..c
        })
        .collect();
    let record = Recorded {
        key: box_facts::key(),
        run_id: run_id.to_string(),
        collected_at: Some(collected_at),
        fact: premarket_parse::FactJson::of(&now),
        masked: false,
    };
    (changed, Some(record))
}

//! What the report says changed in a device's box facts (model, serial, software, ...) since
//! the previous run, and the record of them the archive keeps for the next run. The values are
//! device text: compared as the archive keeps them (a secret the device printed masked, as in
//! the previous run's record) and shown redacted, escaped and bounded.

use chrono::{DateTime, Utc};

use premarket_check::box_facts;
use premarket_parse::{Facts, Recorded};
use premarket_plan::DevicePlan;
use premarket_report::changed::{self, BoxFacts, FactChange};
use premarket_report::escape::{capped, control};
use premarket_report::redact::Redactor;

/// The box facts this run read on the device (to archive) and those that differ from the
/// previous run's record; values are device text, shown redacted, escaped and bounded.
pub(crate) fn compare(
    plan: &DevicePlan,
    facts: &Facts,
    collected_at: DateTime<Utc>,
    redactor: &Redactor,
) -> (Vec<FactChange>, Option<Recorded>) {
    let now = box_facts::read(facts);
    if now.is_empty() {
        return (Vec::new(), None);
    }
    let before: BoxFacts = plan
        .previous
        .get(&box_facts::key())
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
        run_id: String::new(),
        collected_at: Some(collected_at),
        fact: premarket_parse::FactJson::of(&now),
        masked: false,
    };
    (changed, Some(record))
}

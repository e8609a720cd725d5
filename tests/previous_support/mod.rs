//! A previous run for the check tables: outputs parsed by the device's planned queries and
//! recorded as the archive records them, collected some time ago, so growth and reboot checks
//! are judged against it exactly as against a real earlier run.

use chrono::{Duration, Utc};
use premarket::core::Command;
use premarket::parse::{Previous, Raw, Recorded, Reference};
use premarket::plan::DevicePlan;

/// What a run `ago` before now would have archived from `outputs`.
pub fn previous(device: &DevicePlan, outputs: &[(Command, String)], ago: Duration) -> Previous {
    let at = Utc::now() - ago;
    let mut records = Vec::new();
    for (command, text) in outputs {
        for query in device
            .queries
            .iter()
            .filter(|q| q.archived() && &q.key().command == command)
        {
            let fact = query
                .parse_any(&mut Raw::new(text))
                .unwrap_or_else(|e| panic!("previous `{command}`: {e}\n{}", e.excerpt));
            records.push(Recorded {
                key: query.key(),
                run_id: "20261130T081500.000".to_string(),
                collected_at: Some(at),
                fact: fact.to_json().into(),
                masked: false,
            });
        }
    }
    Previous::from_newest_first(records)
}

/// Makes `previous` what every check of `device` that compares judges against (each check's
/// reference, as the archive's store would give it) and the device's newest records.
pub fn judge_against(device: &mut DevicePlan, previous: Previous) {
    for check in device.checks.iter_mut().filter(|c| c.compares()) {
        check.reference = Reference::Reading {
            previous: previous.clone(),
            accepted: None,
        };
    }
    device.previous = previous;
}

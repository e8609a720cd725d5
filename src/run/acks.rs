//! The run's known FAILs: `baselines/acks.yaml` read before the inspection (a bad entry is a
//! problem the report states, and acknowledges nothing: a typo never silences a FAIL, and
//! never stops the morning's inspection either), applied once the results and a rerun's
//! standing state are known, at the time the run started.

use chrono::{DateTime, Utc};

use premarket_config::Config;
use premarket_config::acks::Acks;
use premarket_report::Report;

/// The site's acknowledgements; each mistake in them is added to `problems`.
pub(crate) fn load(config: &Config, problems: &mut Vec<String>) -> Acks {
    let acks = Acks::load(config);
    for e in &acks.errors {
        problems.push(format!(
            "{e}; this acknowledgement is ignored: it covers nothing (`premarket validate` lists every mistake)"
        ));
    }
    acks
}

/// Acknowledges the FAILs of `report` that the acks cover at the run's start; returns a line
/// for each ack that has ended (its FAIL counts again until it is removed).
pub(crate) fn apply(config: &Config, acks: &Acks, report: &mut Report) -> Vec<String> {
    let tz = config.site.timezone;
    let now = DateTime::parse_from_rfc3339(&report.started_at)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|_| Utc::now());
    premarket_report::ack::acknowledge(report, &acks.acks, tz, now);
    acks.expired(now, tz)
        .map(|a| {
            let ticket = a.ticket.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
            let remove = report
                .invocation
                .complete(&format!("premarket ack --remove {}", a.number));
            format!(
                "{}: the acknowledgement of {} on {}{ticket} expired at the start of {}: its FAIL counts again; delete it (`{remove}`)",
                a.entry(),
                a.check,
                a.device,
                a.until.format("%Y-%m-%d"),
            )
        })
        .collect()
}

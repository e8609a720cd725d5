//! A verdict as the report keeps it: one [`CheckResult`] with the catalog's title, severity and
//! finding, the remedy (the check's own, the catalog's, or how to get an answer next time),
//! device text redacted with the platform's rules and every secret known, premarket's own
//! sentences with the secrets known only, control characters escaped and each value capped.
//! Every device check's verdict and every site check's goes through here; a device check that
//! compares with a reference says how to make this reading the reference, and when it was
//! accepted ([`super::reference`]).

use premarket_config::Entry;
use premarket_core::{Platform, Status, Verdict};
use premarket_plan::PlannedCheck;
use premarket_report::CheckResult;
use premarket_report::escape::{capped, control};
use premarket_report::redact::{self, Redactor};

/// The result as the report keeps it: redacted, control characters escaped.
/// `planned`: the device check as planned (none for a site check).
pub(super) fn result(
    entry: &Entry,
    planned: Option<&PlannedCheck>,
    device: &str,
    verdict: Verdict,
    platform: Platform,
    redactor: &Redactor,
) -> CheckResult {
    let mut remedy = remedy(&verdict, entry, device);
    if let Some(hint) = planned
        .and_then(|check| super::reference::accept_hint(check, device))
        .filter(|_| verdict.status == Status::Fail)
    {
        remedy = format!("{remedy} {hint}");
    }
    // Device text (actual, evidence) gets the platform's secret-line rules as well as the known
    // secrets; premarket's own sentences only the known secrets, or "unknown host key for sw1"
    // would lose everything after EOS's `key`.
    // Each value is kept up to its cap (a device can print a 60 MB string), after the
    // redaction: a cut never leaves part of a secret behind.
    let device_text = |text: &str| capped(control(&redact::device_text(redactor, platform, text)));
    let own_words = |text: &str| capped(control(&redactor.literals(text)));
    let mut result = CheckResult::new(&entry.id, device, verdict.status, "");
    result.title = entry.title.clone();
    result.summary = own_words(&verdict.summary);
    result.expected = own_words(&verdict.expected);
    result.actual = device_text(&verdict.actual);
    result.evidence = device_text(&verdict.evidence);
    result.remedy = own_words(&remedy);
    result.severity = entry.severity;
    result.lead = verdict.lead.as_deref().map(own_words).unwrap_or_default();
    result.when = verdict
        .when
        .and_then(|at| chrono::DateTime::from_timestamp(at, 0))
        .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    if verdict.status == Status::Fail {
        result.finding = match &verdict.finding {
            Some(own) => own_words(own),
            None => entry.finding.clone().unwrap_or_default(),
        };
        // Names read from the device (ports, configuration lines) are device text.
        result.subjects = verdict.subjects.iter().map(|s| device_text(s)).collect();
    }
    result.accepted = planned
        .and_then(|check| super::reference::accepted(check, verdict.status))
        .map(|a| premarket_core::Accepted {
            by: own_words(&a.by),
            at: own_words(&a.at),
            reason: own_words(&a.reason),
            ticket: a.ticket.as_deref().map(own_words),
        });
    result
}

/// FAIL: the check's own advice or the catalog's. ERROR: how to get an answer next time.
fn remedy(verdict: &Verdict, entry: &Entry, device: &str) -> String {
    match (verdict.status, &verdict.remedy) {
        (_, Some(specific)) => specific.clone(),
        (Status::Fail, None) => entry.remedy.clone(),
        (Status::Error, None) => format!(
            "premarket could not tell. Fix the cause above (reachability, credentials, saved output), then rerun \
             `premarket check {}{}`.",
            entry.id,
            if entry.platform == Platform::Site {
                String::new()
            } else {
                format!(" --device {device}")
            }
        ),
        (Status::Ok | Status::Skip, None) => String::new(),
    }
}

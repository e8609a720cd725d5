//! The subject line, the one thing read on a locked phone:
//! `[premarket] OK lab 2026-11-30 08:15 CST` or
//! `[premarket] FAIL lab 2026-11-30 08:15 CST — 2 FAIL, 1 ERROR`.
//! The word after `[premarket]` is the report's status, so an ERROR never reads OK; a rerun of
//! selected checks says so, so its OK is not taken for the whole site's.

use chrono::DateTime;

use super::message::Context;
use crate::core::Status;
use crate::report::Report;

pub fn subject(report: &Report, ctx: &Context) -> String {
    let when = DateTime::parse_from_rfc3339(&report.started_at)
        .map(|at| ctx.date_time_tz(at))
        .unwrap_or_else(|_| report.started_at.clone());
    let mut subject = format!("[premarket] {} {} {when}", report.status, report.site);
    let c = report.counts;
    let mut bad = Vec::new();
    if c.fail > 0 {
        bad.push(format!("{} FAIL", c.fail));
    }
    if c.error > 0 {
        bad.push(format!("{} ERROR", c.error));
    }
    if !bad.is_empty() {
        subject.push_str(" — ");
        subject.push_str(&bad.join(", "));
    }
    if report.partial {
        let n = report.results.len();
        subject.push_str(&format!(
            " (rerun of {n} check{})",
            if n == 1 { "" } else { "s" }
        ));
    }
    debug_assert!(report.status != Status::Ok || bad.is_empty());
    subject
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::CheckResult;

    fn result(status: Status) -> CheckResult {
        CheckResult {
            check: "eos.lanz.persisted".into(),
            device: "sw1".into(),
            status,
            title: String::new(),
            summary: String::new(),
            expected: String::new(),
            actual: String::new(),
            evidence: String::new(),
            remedy: String::new(),
            duration_ms: 1,
        }
    }

    #[test]
    fn subjects() {
        let ctx = Context::new(chrono_tz::Asia::Taipei, None);
        let at = "2026-11-30T08:15:00.123+08:00".to_string();
        let report = |statuses: &[Status]| {
            Report::new(
                "r".into(),
                "lab".into(),
                at.clone(),
                at.clone(),
                statuses.iter().map(|s| result(*s)).collect(),
            )
        };
        use Status::*;
        let cases: [(&[Status], &str); 4] = [
            (&[Ok, Skip], "[premarket] OK lab 2026-11-30 08:15 CST"),
            (
                &[Fail, Fail, Error, Ok],
                "[premarket] FAIL lab 2026-11-30 08:15 CST — 2 FAIL, 1 ERROR",
            ),
            (
                &[Error, Ok],
                "[premarket] ERROR lab 2026-11-30 08:15 CST — 1 ERROR",
            ),
            (&[Ok], "[premarket] OK lab 2026-11-30 08:15 CST"),
        ];
        for (statuses, want) in cases {
            assert_eq!(subject(&report(statuses), &ctx), want);
        }
        let mut rerun = report(&[Ok]);
        rerun.partial = true;
        assert_eq!(
            subject(&rerun, &ctx),
            "[premarket] OK lab 2026-11-30 08:15 CST (rerun of 1 check)"
        );
    }
}

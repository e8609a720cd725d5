//! The subject line, the one thing read on a locked phone:
//! `[premarket] OK lab 08:15 +08` or `[premarket] FAIL lab 08:31 +08 — sw1 LANZ not saved (+1)`.
//!
//! The word after `[premarket]` is the site's status as it stands (for a rerun: what it
//! rechecked and what still stands from before), so an ERROR never reads OK and a rerun never
//! reads OK while a FAIL stands. Then the top finding in a few words and how many more follow.
//! The zone is a UTC offset: `CST` is China, Cuba or the US Midwest.

use chrono::DateTime;

use super::context::Context;
use crate::Report;

pub fn subject(report: &Report, ctx: &Context) -> String {
    let when = DateTime::parse_from_rfc3339(&report.started_at)
        .map(|at| ctx.time_zone(at))
        .unwrap_or_else(|_| report.started_at.clone());
    let mut subject = format!(
        "[premarket] {} {} {when}",
        report.shown_status(),
        report.site
    );
    match (&report.closed, report.top_finding()) {
        (Some(_), _) => subject.push_str(" — market closed"),
        (None, Some((what, more))) => {
            subject.push_str(" — ");
            subject.push_str(&what);
            if more > 0 {
                subject.push_str(&format!(" (+{more})"));
            }
        }
        (None, None) if report.recovered() => subject.push_str(" — recovered"),
        (None, None) => {}
    }
    let mut marks = Vec::new();
    if report.partial {
        let n = report.results.len();
        marks.push(format!(
            "rerun of {n} check{}",
            if n == 1 { "" } else { "s" }
        ));
    }
    if report.offline {
        marks.push("offline".to_string());
    }
    if !marks.is_empty() {
        subject.push_str(&format!(" [{}]", marks.join(", ")));
    }
    subject
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckResult;
    use premarket_core::Status;

    fn result(check: &str, status: Status, finding: &str) -> CheckResult {
        let mut r = CheckResult::new(check, "sw1", status, "s");
        r.finding = finding.into();
        r
    }

    #[test]
    fn subjects() {
        let ctx = Context::new(chrono_tz::Asia::Taipei, None);
        let at = "2026-11-30T08:31:00.123+08:00".to_string();
        let report = |results: Vec<CheckResult>| {
            Report::new("r".into(), "lab".into(), at.clone(), at.clone(), results)
        };
        use Status::*;
        let cases: Vec<(Vec<CheckResult>, &str)> = vec![
            (
                vec![result("a.b.c", Ok, ""), result("a.b.d", Skip, "")],
                "[premarket] OK lab 08:31 +08",
            ),
            (
                vec![
                    result("eos.config.saved", Fail, "running-config not saved"),
                    result("eos.lanz.persisted", Fail, "LANZ not saved"),
                    result("eos.lanz.running", Ok, ""),
                ],
                "[premarket] FAIL lab 08:31 +08 — sw1 LANZ not saved (+1)",
            ),
            (
                vec![result("eos.version.pinned", Error, "")],
                "[premarket] ERROR lab 08:31 +08 — sw1 eos.version.pinned could not be judged",
            ),
        ];
        for (mut results, want) in cases {
            // The LANZ case: lanz.persisted explains config.saved.
            for r in &mut results {
                if r.check == "eos.config.saved" {
                    r.explained_by = Some("eos.lanz.persisted".into());
                }
            }
            assert_eq!(subject(&report(results), &ctx), want);
        }
        let mut rerun = report(vec![result("eos.lanz.persisted", Ok, "")]);
        rerun.partial = true;
        rerun.standing = vec![result("eos.config.saved", Fail, "running-config not saved")];
        rerun.standing_status = Some(Fail);
        assert_eq!(
            subject(&rerun, &ctx),
            "[premarket] FAIL lab 08:31 +08 — sw1 running-config not saved [rerun of 1 check]"
        );
        let india = Context::new(chrono_tz::Asia::Kolkata, None);
        assert_eq!(
            subject(&report(vec![result("a.b.c", Ok, "")]), &india),
            "[premarket] OK lab 06:01 +05:30"
        );
    }
}

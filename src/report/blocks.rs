//! The report as people read it: blocks that need attention, in reading order, then the
//! checks that are fine. Every renderer (terminal, email text and HTML) walks the same view, so
//! they say the same things in the same order and only their markup differs.
//!
//! A device that could not be inspected is one block standing for all the checks it blocked
//! (ten ERROR blocks saying "timed out" would bury the one command that hung). A rerun's view
//! is the standing state: what it rechecked and, marked as not rechecked, the latest result of
//! everything else, so it never reads all clear while a FAIL stands. A FAIL acknowledged until a
//! date ([`crate::ack`]) is not a block: it is listed apart, with who acknowledged it and why.

use super::{CheckResult, DeviceDown, Report, order};
use premarket_core::Status;

/// One thing to read and act on.
#[derive(Clone, Copy, Debug)]
pub enum Block<'a> {
    /// A FAIL or ERROR result (an explained one names its cause in `explained_by`).
    Result(&'a CheckResult),
    /// A device that could not be inspected, standing for the checks it blocked.
    Device(&'a DeviceDown),
}

/// What a renderer shows, in order.
#[derive(Debug, Default)]
pub struct View<'a> {
    pub attention: Vec<Block<'a>>,
    /// FAILs acknowledged until a date, in reading order.
    pub acknowledged: Vec<&'a CheckResult>,
    /// OK then SKIP.
    pub fine: Vec<&'a CheckResult>,
}

impl Report {
    /// The blocks to show, in reading order (a rerun's include its standing results).
    pub fn view(&self) -> View<'_> {
        let all: Vec<&CheckResult> = self.results.iter().chain(&self.standing).collect();
        let blocked = self.blocked_pairs();
        let mut view = View::default();
        let mut shown_devices: Vec<&str> = Vec::new();
        for i in order::reading_order(&all, &blocked) {
            let r = all[i];
            match r.status {
                Status::Ok | Status::Skip => view.fine.push(r),
                Status::Fail if r.acknowledged.is_some() => view.acknowledged.push(r),
                Status::Fail | Status::Error => {
                    let down = self.devices_not_inspected.iter().find(|d| {
                        r.status == Status::Error
                            && d.device == r.device
                            && d.blocked.contains(&r.check)
                    });
                    match down {
                        Some(d) if shown_devices.contains(&d.device.as_str()) => {}
                        Some(d) => {
                            shown_devices.push(&d.device);
                            view.attention.push(Block::Device(d));
                        }
                        None => view.attention.push(Block::Result(r)),
                    }
                }
            }
        }
        // A device whose checks are not known (its baseline does not say its platform) blocks
        // no result, and is shown all the same.
        view.attention.extend(
            self.devices_not_inspected
                .iter()
                .filter(|d| d.blocked.is_empty())
                .map(Block::Device),
        );
        view
    }

    /// The top finding in a few words and how many more blocks follow, for the subject:
    /// `sw1 LANZ not saved`, 1.
    pub fn top_finding(&self) -> Option<(String, usize)> {
        if let Some(first) = self.config_errors.first() {
            return Some((
                format!("configuration error: {first}"),
                self.config_errors.len() - 1,
            ));
        }
        let view = self.view();
        let first = view.attention.first()?;
        Some((first.short(), view.attention.len() - 1))
    }
}

impl Report {
    /// The first line: site, status and counts, and what kind of run it was.
    /// `lab FAIL: 2 FAIL, 12 OK` / `lab FAIL: 1 FAIL, 13 OK (rerun of 1 check; ...)`.
    pub fn headline(&self) -> String {
        if !self.config_errors.is_empty() {
            let n = self.config_errors.len();
            return format!(
                "{} ERROR: {n} configuration error{}, nothing was inspected",
                self.site,
                if n == 1 { "" } else { "s" }
            );
        }
        if let Some(why) = &self.closed {
            return format!(
                "{}: market closed ({why}), nothing was inspected",
                self.site
            );
        }
        let all: Vec<CheckResult> = self.results.iter().chain(&self.standing).cloned().collect();
        let c = super::Counts::of(&all);
        let mut parts = Vec::new();
        for (n, what) in [
            (c.fail, "FAIL"),
            (c.error, "ERROR"),
            (c.acknowledged, "acknowledged"),
            (c.ok, "OK"),
            (c.skip, "SKIP"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        let mut scope = Vec::new();
        if self.partial {
            let n = self.results.len();
            scope.push(format!(
                "rerun of {n} check{}{}",
                if n == 1 { "" } else { "s" },
                if self.standing.is_empty() {
                    ""
                } else {
                    "; the others as they stand"
                }
            ));
        }
        if self.offline {
            scope.push("offline: saved outputs, not the devices now".to_string());
        }
        let scope = if scope.is_empty() {
            String::new()
        } else {
            format!(" ({})", scope.join("; "))
        };
        format!(
            "{} {}: {}{scope}",
            self.site,
            self.shown_status(),
            parts.join(", ")
        )
    }

    /// What to say about the cause a result names (`explained_by`): shown above while it still
    /// fails; fixed since (a rerun rechecked it), so this one needs a recheck of its own.
    pub fn cause_note(&self, r: &CheckResult) -> Option<String> {
        let cause = r.explained_by.as_deref()?;
        let now = self
            .results
            .iter()
            .chain(&self.standing)
            .find(|c| c.check == cause && c.device == r.device)?;
        Some(match now.status {
            Status::Fail if now.acknowledged.is_some() => format!(
                "Explained by {cause}, which is acknowledged (listed under Acknowledged): act on that first."
            ),
            Status::Fail => format!("Explained by {cause} above: act on that first."),
            status => format!(
                "Its cause, {cause}, is {status} now: recheck this one (`{}`).",
                self.rerun_for(r)
            ),
        })
    }

    /// A rerun's rechecked results, one line each (`OK eos.lanz.persisted on sw1`).
    pub fn rechecked(&self) -> Vec<String> {
        if !self.partial || self.standing_status.is_none() {
            return Vec::new();
        }
        self.results
            .iter()
            .map(|r| format!("{} {} on {}", r.status, r.check, r.device))
            .collect()
    }

    /// In a rerun, whether a result was rechecked now or stands from an earlier run (and, for
    /// a FAIL this rerun could not re-examine, that it stands because of that).
    pub fn mark(&self, r: &CheckResult) -> Option<String> {
        let mark = self.standing_mark(&r.judged_in)?;
        let blocked = r.judged_in.is_some()
            && self.results.iter().any(|now| {
                now.check == r.check && now.device == r.device && now.status == Status::Error
            });
        Some(if blocked {
            mark.replacen(
                "not rechecked",
                "stands: this rerun could not inspect it (its ERROR says why)",
                1,
            )
        } else {
            mark
        })
    }

    /// In a rerun, whether a device block was found now or stands from an earlier run.
    pub fn device_mark(&self, d: &DeviceDown) -> Option<String> {
        self.standing_mark(&d.judged_in)
    }

    fn standing_mark(&self, judged_in: &Option<String>) -> Option<String> {
        if !self.partial || self.standing_status.is_none() {
            return None;
        }
        // A run is named by its time ([`Report::readable`] turns the id into `08:31`).
        Some(match judged_in {
            Some(run) => format!("not rechecked: as judged in the run of {run}"),
            None => "rechecked now".to_string(),
        })
    }
}

impl Block<'_> {
    /// A few words: `sw1 LANZ not saved`, `fw1 not answering`.
    pub fn short(&self) -> String {
        match self {
            Block::Device(d) => format!("{} {}", d.device, d.cause),
            Block::Result(r) => match (r.status, r.finding.is_empty()) {
                (Status::Fail, false) => format!("{} {}", r.device, r.finding),
                (Status::Fail, true) => format!("{} {} failed", r.device, r.check),
                _ => format!("{} {} could not be judged", r.device, r.check),
            },
        }
    }

    pub fn status(&self) -> Status {
        match self {
            Block::Device(_) => Status::Error,
            Block::Result(r) => r.status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_down_device_is_one_block_and_a_rerun_shows_what_still_fails() {
        let mut fail = CheckResult::new(
            "eos.lanz.persisted",
            "sw1",
            Status::Fail,
            "off after reload",
        );
        fail.finding = "LANZ not saved".into();
        let results = vec![
            CheckResult::new("fortigate.ha.state", "fw1", Status::Error, "timed out"),
            CheckResult::new("fortigate.cpu.ceiling", "fw1", Status::Error, "not run"),
            fail,
            CheckResult::new("eos.lanz.running", "sw1", Status::Ok, "running"),
        ];
        let mut report = Report::new("r".into(), "lab".into(), "t".into(), "t".into(), results);
        report.devices_not_inspected = vec![DeviceDown {
            device: "fw1".into(),
            cause: "not answering".into(),
            what: "timed out after 5 s".into(),
            command: Some("get system status".into()),
            remedy: "log in by hand".into(),
            blocked: vec!["fortigate.ha.state".into(), "fortigate.cpu.ceiling".into()],
            judged_in: None,
            judged_at: None,
        }];
        report.sort();
        let view = report.view();
        let shorts: Vec<String> = view.attention.iter().map(Block::short).collect();
        assert_eq!(shorts, ["sw1 LANZ not saved", "fw1 not answering"]);
        assert_eq!(view.fine.len(), 1);
        assert_eq!(report.top_finding(), Some(("sw1 LANZ not saved".into(), 1)));

        // A rerun of the LANZ check alone: the FAIL of the full run still stands.
        let mut rerun = Report::new(
            "r2".into(),
            "lab".into(),
            "t".into(),
            "t".into(),
            vec![CheckResult::new(
                "eos.lanz.running",
                "sw1",
                Status::Ok,
                "running",
            )],
        );
        let mut standing = CheckResult::new("eos.config.saved", "sw1", Status::Fail, "unsaved");
        standing.judged_in = Some("r".into());
        rerun.standing = vec![standing];
        rerun.standing_status = Some(Status::Fail);
        rerun.partial = true;
        let view = rerun.view();
        assert_eq!(view.attention.len(), 1);
        assert_eq!(rerun.shown_status(), Status::Fail);
    }
}

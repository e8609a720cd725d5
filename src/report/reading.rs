//! What the renderers add so that the first screen is the finding and every command on it
//! works when pasted: the report in a reader's words ([`Report::readable`]), the complete
//! rerun command of each block, remedies that point at it instead of repeating it, evidence
//! not repeated under the checks a cause explains, one note for devices that restarted
//! together, and whether a rerun reads as a recovery.

use chrono::{DateTime, Utc};

use super::human::Human;
use super::invoke::Invocation;
use super::{CheckResult, DeviceDown, Report};
use premarket_core::Status;

/// Two restarts this close together are told as one event.
const TOGETHER_S: i64 = 10 * 60;

/// The words that replace a remedy's own rerun command (the block prints it once, below).
const BELOW: &str = "(command below)";

impl Report {
    /// A copy for people to read (terminal, email): times in the site's zone, runs by their
    /// time, sizes in KiB and MiB. The JSON and the archive keep the exact forms. The raw
    /// outputs are not copied (no renderer reads them).
    pub fn readable(&self, tz: chrono_tz::Tz) -> Report {
        let human = Human::new(tz, &self.started_at);
        let mut shown = self.without_outputs();
        for r in shown.results.iter_mut().chain(shown.standing.iter_mut()) {
            for text in [
                &mut r.summary,
                &mut r.lead,
                &mut r.expected,
                &mut r.actual,
                &mut r.remedy,
            ] {
                *text = human.text(text);
            }
            r.evidence = human.annotations(&r.evidence);
            if let Some(run) = &r.judged_in {
                r.judged_in = Some(human.run(run));
            }
        }
        for d in &mut shown.devices_not_inspected {
            d.what = human.text(&d.what);
            if let Some(run) = &d.judged_in {
                d.judged_in = Some(human.run(run));
            }
        }
        for p in &mut shown.problems {
            *p = human.text(p);
        }
        shown
    }

    /// A copy without the raw outputs, their facts and the charts. Every field is named (no
    /// `..self.clone()`, which would copy the outputs before dropping them: at a thousand
    /// devices, a hundred and fifty MB copied for nothing).
    fn without_outputs(&self) -> Report {
        Report {
            run_id: self.run_id.clone(),
            site: self.site.clone(),
            started_at: self.started_at.clone(),
            finished_at: self.finished_at.clone(),
            status: self.status,
            counts: self.counts,
            results: self.results.clone(),
            changes: self.changes.clone(),
            partial: self.partial,
            offline: self.offline,
            devices_not_inspected: self.devices_not_inspected.clone(),
            standing: self.standing.clone(),
            standing_status: self.standing_status,
            probe: self.probe.clone(),
            deadline: self.deadline.clone(),
            config_errors: self.config_errors.clone(),
            problems: self.problems.clone(),
            closed: self.closed.clone(),
            changed_facts: self.changed_facts.clone(),
            not_archived: self.not_archived.clone(),
            drift: self.drift.clone(),
            charts: Vec::new(),
            raw: Vec::new(),
            invocation: self.invocation.clone(),
            diffs: self.diffs.clone(),
        }
    }

    /// The command that judges `r` again, complete for this run.
    pub fn rerun_for(&self, r: &CheckResult) -> String {
        self.invocation.complete(&r.rerun_command())
    }

    /// The command that inspects `d` again, complete for this run.
    pub fn device_rerun(&self, d: &DeviceDown) -> String {
        self.invocation.complete(&d.rerun_command())
    }

    /// `r`'s remedy with every premarket command complete for this run, and its own rerun
    /// replaced by a pointer to the block's rerun line.
    pub fn remedy_for(&self, r: &CheckResult) -> String {
        self.commands_in(&r.remedy, |c| {
            Invocation::is_rerun_of(c, &r.check, &r.device) || r.rerun.as_deref() == Some(c)
        })
    }

    /// `d`'s remedy, as [`Report::remedy_for`].
    pub fn device_remedy(&self, d: &DeviceDown) -> String {
        self.commands_in(&d.remedy, |c| Invocation::is_device_rerun(c, &d.device))
    }

    fn commands_in(&self, text: &str, own: impl Fn(&str) -> bool) -> String {
        let parts: Vec<&str> = text.split('`').collect();
        // An unpaired backtick leaves the last part as it is.
        let paired = if parts.len() % 2 == 1 {
            parts.len()
        } else {
            parts.len().saturating_sub(1)
        };
        let mut out = String::with_capacity(text.len());
        for (i, part) in parts.iter().enumerate() {
            if i >= paired {
                out.push('`');
                out.push_str(part);
            } else if i % 2 == 0 {
                out.push_str(part);
            } else if !part.starts_with("premarket") {
                out.push('`');
                out.push_str(part);
                out.push('`');
            } else if own(part) {
                let after_rerun = out.trim_end().to_lowercase().ends_with("rerun");
                if after_rerun {
                    out.push_str(BELOW);
                } else {
                    out.push_str("the rerun command below");
                }
            } else {
                out.push('`');
                out.push_str(&self.invocation.complete(part));
                out.push('`');
            }
        }
        out
    }

    /// `r`'s evidence without the lines already shown under its cause, and a note saying so.
    pub fn evidence_for(&self, r: &CheckResult) -> (String, Option<String>) {
        let cause = r.explained_by.as_deref().and_then(|cause| {
            self.results.iter().chain(&self.standing).find(|c| {
                c.check == cause
                    && c.device == r.device
                    && c.status == Status::Fail
                    && c.acknowledged.is_none()
            })
        });
        let Some(cause) = cause.filter(|_| r.status == Status::Fail) else {
            return (r.evidence.clone(), None);
        };
        let shown: Vec<&str> = cause
            .evidence
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let own: Vec<&str> = r.evidence.lines().collect();
        let kept: Vec<&str> = own
            .iter()
            .copied()
            .filter(|l| l.trim().is_empty() || !shown.contains(&l.trim()))
            .collect();
        let dropped = own.iter().filter(|l| !l.trim().is_empty()).count()
            - kept.iter().filter(|l| !l.trim().is_empty()).count();
        if dropped == 0 {
            return (r.evidence.clone(), None);
        }
        if kept.iter().all(|l| l.trim().is_empty()) {
            return (
                String::new(),
                Some(format!("Evidence: as under {} above.", cause.check)),
            );
        }
        (
            kept.join("\n").trim().to_string(),
            Some(format!(
                "Evidence: {dropped} line(s) as under {} above; the rest below.",
                cause.check
            )),
        )
    }

    /// When devices restarted within minutes of each other, the one line that says so, for
    /// the first of their blocks only: `fw1 and sw1 both restarted around 09:44 — a power
    /// event?`.
    pub fn restart_note(&self, r: &CheckResult, tz: chrono_tz::Tz) -> Option<String> {
        let restarts: Vec<(&CheckResult, DateTime<Utc>)> = self
            .view()
            .attention
            .iter()
            .filter_map(|b| match b {
                super::blocks::Block::Result(x) => Some(*x),
                super::blocks::Block::Device(_) => None,
            })
            .filter(|x| x.status == Status::Fail && x.check.ends_with(".uptime.stable"))
            .filter_map(|x| {
                let at = DateTime::parse_from_rfc3339(x.when.as_deref()?).ok()?;
                Some((x, at.with_timezone(&Utc)))
            })
            .collect();
        let (first, _) = restarts.first()?;
        if first.check != r.check || first.device != r.device {
            return None;
        }
        let earliest = restarts.iter().map(|(_, t)| *t).min()?;
        let latest = restarts.iter().map(|(_, t)| *t).max()?;
        let mut devices: Vec<&str> = restarts.iter().map(|(x, _)| x.device.as_str()).collect();
        devices.dedup();
        if devices.len() < 2 || (latest - earliest).num_seconds() > TOGETHER_S {
            return None;
        }
        let names = match devices.split_last() {
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => return None,
        };
        let both = if devices.len() == 2 { "both" } else { "all" };
        Some(format!(
            "{names} {both} restarted around {} — a power event?",
            earliest.with_timezone(&tz).format("%H:%M")
        ))
    }

    /// A rerun after which nothing fails any more, having fixed what failed before (a FAIL
    /// acknowledged until a date still fails: no banner says otherwise).
    pub fn recovered(&self) -> bool {
        let view = self.view();
        self.partial
            && self.standing_status == Some(Status::Ok)
            && self.config_errors.is_empty()
            && view.attention.is_empty()
            && view.acknowledged.is_empty()
            && self.changes.as_ref().is_some_and(|c| !c.fixed.is_empty())
    }
}

/// The recovery banner's words.
pub const RECOVERED: &str = "RECOVERED: everything that failed this morning is OK now";

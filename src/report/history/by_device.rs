//! "Since the previous run" as on-call reads it: one line per change, except that the checks a
//! device could not be inspected for (a hang, a refused login: every one of its checks ERROR,
//! each [`Transition::blocked`]) are one line for the device, `fw1: 15 checks blocked, were OK`,
//! not fifteen. The terminal and the email render these lines in their own words; the JSON
//! report keeps every transition.

use std::collections::BTreeMap;

use super::{Changes, Transition};
use premarket_core::Status;

/// The groups of changes, in the order they are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    NewlyFailing,
    Changed,
    Fixed,
    StillFailing,
}

impl Group {
    /// `Newly failing`, as the email labels its lines.
    pub fn label(self) -> &'static str {
        match self {
            Group::NewlyFailing => "Newly failing",
            Group::Changed => "Changed",
            Group::Fixed => "Fixed",
            Group::StillFailing => "Still failing",
        }
    }
}

/// One line of the section.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// One check on one device.
    Check(&'a Transition),
    /// A device's blocked checks, together.
    Device(DeviceLine<'a>),
}

/// The checks of one device that moved together because it could not be inspected: blocked
/// now, or OK again after it was.
#[derive(Debug, PartialEq, Eq)]
pub struct DeviceLine<'a> {
    pub device: &'a str,
    pub checks: Vec<&'a Transition>,
    /// OK again (it was blocked), rather than blocked now.
    pub unblocked: bool,
}

impl DeviceLine<'_> {
    /// The transition whose failure began first: the one whose "since" the line names.
    pub fn earliest(&self) -> Option<&Transition> {
        self.checks
            .iter()
            .filter(|t| t.since.is_some())
            .min_by(|a, b| a.since.cmp(&b.since))
            .copied()
    }

    /// `fw1: 15 checks blocked, were OK`; `sw1: 14 checks blocked, were 13 OK, 1 FAIL
    /// (eos.lanz.persisted)`; `fw1: 15 checks OK again, were blocked`. `since` (the start of
    /// the failure, in the renderer's words) follows a failure that was already there.
    pub fn words(&self, since: Option<&str>) -> String {
        let n = self.checks.len();
        let (checks, were) = if n == 1 {
            ("check", "was")
        } else {
            ("checks", "were")
        };
        let since = since.map(|s| format!(" since {s}")).unwrap_or_default();
        if self.unblocked {
            return format!(
                "{}: {n} {checks} OK again, {were} blocked{since}",
                self.device
            );
        }
        let mut tally: BTreeMap<(u8, &str), usize> = BTreeMap::new();
        for t in &self.checks {
            let key = match t.from {
                Some(s) => (order(s), s.as_str()),
                None => (4, "never judged"),
            };
            *tally.entry(key).or_default() += 1;
        }
        let before = match tally.len() {
            1 => tally
                .keys()
                .next()
                .map(|(_, s)| s.to_string())
                .unwrap_or_default(),
            _ => tally
                .iter()
                .map(|((_, s), k)| format!("{k} {s}"))
                .collect::<Vec<_>>()
                .join(", "),
        };
        // A FAIL that is now unknown is named: on-call knew it, and nobody can tell now.
        let failed: Vec<&str> = self
            .checks
            .iter()
            .filter(|t| t.from == Some(Status::Fail))
            .map(|t| t.check.as_str())
            .collect();
        let failed = if failed.is_empty() {
            String::new()
        } else {
            format!(" ({})", failed.join(", "))
        };
        let since = if self.checks.iter().any(|t| t.from == Some(Status::Error)) {
            since
        } else {
            String::new()
        };
        format!(
            "{}: {n} {checks} blocked, {were} {before}{failed}{since}",
            self.device
        )
    }
}

fn order(s: Status) -> u8 {
    match s {
        Status::Ok => 0,
        Status::Fail => 1,
        Status::Error => 2,
        Status::Skip => 3,
    }
}

/// The section's lines in order: each group's device lines first (a device down is the
/// larger news), then its checks, in the report's order.
pub fn by_device(changes: &Changes) -> Vec<(Group, Line<'_>)> {
    let lists = [
        (Group::NewlyFailing, &changes.newly_failing),
        (Group::Changed, &changes.changed),
        (Group::Fixed, &changes.fixed),
        (Group::StillFailing, &changes.still_failing),
    ];
    // Each device's blocked transitions, with the group its line goes to: the first group
    // (in the order above) that holds one of them.
    let mut devices: Vec<(Group, DeviceLine<'_>)> = Vec::new();
    let mut checks: Vec<(Group, Line<'_>)> = Vec::new();
    for (group, list) in lists {
        for t in list.iter() {
            if !t.blocked {
                checks.push((group, Line::Check(t)));
                continue;
            }
            let unblocked = group == Group::Fixed;
            match devices
                .iter_mut()
                .find(|(_, d)| d.device == t.device && d.unblocked == unblocked)
            {
                Some((_, d)) => d.checks.push(t),
                None => devices.push((
                    group,
                    DeviceLine {
                        device: &t.device,
                        checks: vec![t],
                        unblocked,
                    },
                )),
            }
        }
    }
    let mut lines: Vec<(Group, Line<'_>)> = devices
        .into_iter()
        .map(|(g, d)| (g, Line::Device(d)))
        .collect();
    lines.extend(checks);
    // Stable: within a group, devices stay ahead of checks and each keeps its order.
    lines.sort_by_key(|(g, line)| (*g, matches!(line, Line::Check(_))));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(check: &str, device: &str, from: Option<Status>, to: Status, blocked: bool) -> Transition {
        Transition {
            check: check.into(),
            device: device.into(),
            from,
            to,
            since: (from == Some(Status::Error)).then(|| "2026-12-04T02:17:05+08:00".into()),
            since_run_id: None,
            blocked,
        }
    }

    fn shown(changes: &Changes) -> Vec<String> {
        by_device(changes)
            .iter()
            .map(|(g, line)| match line {
                Line::Check(t) => format!("{}: {} {}", g.label(), t.check, t.device),
                Line::Device(d) => format!("{}: {}", g.label(), d.words(Some("02:17"))),
            })
            .collect()
    }

    #[test]
    fn a_device_s_blocked_checks_are_one_line_in_the_group_of_its_news() {
        use Status::*;
        let mut changes = Changes::default();
        for i in 0..14 {
            let check = format!("fortigate.c{i}");
            changes
                .newly_failing
                .push(t(&check, "fw1", Some(Ok), Error, true));
        }
        // A FAIL that is now unknown moves from "changed" into fw1's line, named.
        changes
            .changed
            .push(t("fortigate.ha.state", "fw1", Some(Fail), Error, true));
        changes
            .newly_failing
            .push(t("eos.lanz.persisted", "sw1", Some(Ok), Fail, false));
        for i in 0..3 {
            let check = format!("eos.c{i}");
            changes
                .still_failing
                .push(t(&check, "sw2", Some(Error), Error, true));
            changes.fixed.push(t(&check, "sw3", Some(Error), Ok, true));
        }
        assert_eq!(
            shown(&changes),
            [
                "Newly failing: fw1: 15 checks blocked, were 14 OK, 1 FAIL (fortigate.ha.state)",
                "Newly failing: eos.lanz.persisted sw1",
                "Fixed: sw3: 3 checks OK again, were blocked since 02:17",
                "Still failing: sw2: 3 checks blocked, were ERROR since 02:17",
            ]
        );
        let one = Changes {
            newly_failing: vec![t("a", "fw1", None, Error, true)],
            ..Changes::default()
        };
        assert_eq!(
            shown(&one),
            ["Newly failing: fw1: 1 check blocked, was never judged"]
        );
    }
}

//! The order a report is read in, the same in the terminal, the email and the JSON.
//!
//! On-call acts on the first block, so the first block must be the thing to act on. A check
//! that explains another on the same device (its catalog entry's `explains:`) comes first when
//! both FAIL, and the explained one is placed right under it: the LANZ incident reads "LANZ not
//! saved" before "running-config not saved", whose `write memory` would otherwise save LANZ off.
//! The rest: FAIL, then ERROR from a device that could not be inspected, then other ERROR, then
//! the FAILs acknowledged until a date (known, listed apart; their symptoms stand on their own),
//! then OK and SKIP; within what needs attention, critical before warning, then device and check
//! id (the fine list by device and check id). One level
//! only: a cause that is itself explained is shown under its own cause, and its symptoms
//! stand on their own, so no result can be lost to a loop.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::CheckResult;
use premarket_config::Severity;
use premarket_core::Status;

/// Sorts `results` into reading order; `blocked` lists the (check, device) pairs left ERROR by
/// a device that could not be inspected.
pub fn sort(results: &mut Vec<CheckResult>, blocked: &[(String, String)]) {
    let refs: Vec<&CheckResult> = results.iter().collect();
    let order = reading_order(&refs, blocked);
    let mut slots: Vec<Option<CheckResult>> =
        std::mem::take(results).into_iter().map(Some).collect();
    *results = order.into_iter().filter_map(|i| slots[i].take()).collect();
}

/// The indices of `results` in reading order.
pub fn reading_order(results: &[&CheckResult], blocked: &[(String, String)]) -> Vec<usize> {
    // The first FAIL of each (check, device): looked up, not searched for, as a fleet's
    // report has tens of thousands of results.
    let mut failing: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, r) in results.iter().enumerate() {
        if r.status == Status::Fail && r.acknowledged.is_none() {
            failing.entry((&r.check, &r.device)).or_insert(i);
        }
    }
    let cause_of = |i: usize| -> Option<usize> {
        let r = results[i];
        let cause = r.explained_by.as_deref()?;
        if !matches!(r.status, Status::Fail | Status::Error) {
            return None;
        }
        failing.get(&(cause, r.device.as_str())).copied()
    };
    let cause: Vec<Option<usize>> = (0..results.len())
        .map(|i| cause_of(i).filter(|c| cause_of(*c).is_none()))
        .collect();
    let rank = |i: usize| {
        let r = results[i];
        let is_blocked = blocked.iter().any(|(c, d)| *c == r.check && *d == r.device);
        let class = match r.status {
            Status::Fail if r.acknowledged.is_some() => 3,
            Status::Fail => 0,
            Status::Error if is_blocked => 1,
            Status::Error => 2,
            Status::Ok => 4,
            Status::Skip => 5,
        };
        // Severity orders what needs attention; the fine list reads by device.
        let severity = if class < 4 {
            severity_rank(r.severity)
        } else {
            0
        };
        (class, severity, &r.device, &r.check)
    };
    let by_rank = |a: &usize, b: &usize| -> Ordering { rank(*a).cmp(&rank(*b)) };
    let mut roots: Vec<usize> = (0..results.len()).filter(|i| cause[*i].is_none()).collect();
    roots.sort_by(by_rank);
    // Each root's symptoms, in index order as the sort below expects.
    let mut under: Vec<Vec<usize>> = vec![Vec::new(); results.len()];
    for (i, c) in cause.iter().enumerate() {
        if let Some(c) = c {
            under[*c].push(i);
        }
    }
    let mut out = Vec::with_capacity(results.len());
    for root in roots {
        out.push(root);
        let mut symptoms = std::mem::take(&mut under[root]);
        symptoms.sort_by(by_rank);
        out.extend(symptoms);
    }
    out
}

fn severity_rank(s: Severity) -> u8 {
    match s {
        Severity::Critical => 0,
        Severity::Warning => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(check: &str, device: &str, status: Status, explained_by: Option<&str>) -> CheckResult {
        let mut r = CheckResult::new(check, device, status, "");
        r.explained_by = explained_by.map(str::to_string);
        r
    }

    fn ids(results: &[CheckResult]) -> Vec<String> {
        results
            .iter()
            .map(|r| format!("{} {} {}", r.status, r.device, r.check))
            .collect()
    }

    #[test]
    fn causes_lead_their_symptoms_and_severity_orders_the_rest() {
        use Status::*;
        let mut warning = r("eos.version.pinned", "sw1", Fail, None);
        warning.severity = Severity::Warning;
        let cases: Vec<(&str, Vec<CheckResult>, Vec<&str>)> = vec![
            (
                "lanz: the cause first although its id sorts later",
                vec![
                    r("eos.config.saved", "sw1", Fail, Some("eos.lanz.persisted")),
                    r("eos.lanz.persisted", "sw1", Fail, None),
                    r("eos.lanz.running", "sw1", Ok, None),
                ],
                vec![
                    "FAIL sw1 eos.lanz.persisted",
                    "FAIL sw1 eos.config.saved",
                    "OK sw1 eos.lanz.running",
                ],
            ),
            (
                "an OK cause explains nothing; a cause on another device neither",
                vec![
                    r("a.x.b", "sw1", Fail, Some("a.x.c")),
                    r("a.x.c", "sw1", Ok, None),
                    r("a.x.d", "sw2", Fail, Some("a.x.e")),
                    r("a.x.e", "sw1", Fail, None),
                ],
                vec![
                    "FAIL sw1 a.x.b",
                    "FAIL sw1 a.x.e",
                    "FAIL sw2 a.x.d",
                    "OK sw1 a.x.c",
                ],
            ),
            (
                "critical FAIL before a warning FAIL, FAIL before blocked ERROR before ERROR",
                vec![
                    r("z.other.error", "sw1", Error, None),
                    r("fw.blocked", "fw1", Error, None),
                    warning.clone(),
                    r("eos.lanz.running", "sw2", Fail, None),
                ],
                vec![
                    "FAIL sw2 eos.lanz.running",
                    "FAIL sw1 eos.version.pinned",
                    "ERROR fw1 fw.blocked",
                    "ERROR sw1 z.other.error",
                ],
            ),
            (
                "a loop loses nothing",
                vec![
                    r("a.b.c", "sw1", Fail, Some("a.b.d")),
                    r("a.b.d", "sw1", Fail, Some("a.b.c")),
                ],
                vec!["FAIL sw1 a.b.c", "FAIL sw1 a.b.d"],
            ),
        ];
        let blocked = vec![("fw.blocked".to_string(), "fw1".to_string())];
        for (name, mut results, want) in cases {
            sort(&mut results, &blocked);
            assert_eq!(ids(&results), want, "{name}");
        }
    }
}

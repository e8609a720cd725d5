//! An archive written before premarket kept references: each (check, device) gets the reading of
//! the newest run whose report judged it OK, as the store would have kept it. Where the newest
//! judgement kept is a FAIL and no OK reading is kept (retention took it, or the check never
//! passed), there is nothing that may stand as the reference: the check is ERROR until a reading
//! is accepted, never "first reading, OK" (that would clear the FAIL it never re-examined).
//!
//! The store is written into a temporary directory and renamed into place, so a reader sees it
//! whole or not at all; a second premarket migrating at the same moment loses the rename and
//! reads the first one's. Should it not be written at all, the migrated references still serve
//! the run that made them.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::{DeviceReferences, Kept, References};
use crate::Report;
use crate::archive::{Archive, ArchiveError, TMP_PREFIX};
use premarket_core::Status;
use premarket_files::{self as file, os};
use premarket_parse::Recorded;

/// Migrates `archive` into `store` (which does not exist yet). An archive with no run yet has
/// nothing to migrate: the first run's references make the store.
pub(super) fn run(archive: &Archive, store: &mut References) {
    let (reports, problems) = match archive.history_outline() {
        Ok(read) => read,
        Err(e) => {
            tracing::warn!("cannot read the archive to find the references: {e}");
            return;
        }
    };
    for p in problems {
        tracing::warn!("skipped an unreadable archived run while finding references: {p}");
    }
    if reports.is_empty() {
        return;
    }
    let found = references_in(&reports, |run, device| archive.run_facts(run, device));
    if let Err(e) = write(archive, store, &found) {
        tracing::warn!("cannot write the archive's references ({e}); this run uses them unsaved");
    }
    store.migrated = Some(Arc::new(found));
}

/// The references `reports` (oldest first) leave, each device's records read by `facts(run id,
/// device)`.
fn references_in(
    reports: &[Report],
    facts: impl Fn(&str, &str) -> Result<Vec<Recorded>, ArchiveError>,
) -> BTreeMap<String, DeviceReferences> {
    type Pair<'a> = (&'a str, &'a str);
    let mut ok: HashMap<Pair, &Report> = HashMap::new();
    let mut failed: HashMap<Pair, &str> = HashMap::new();
    for report in reports.iter().rev() {
        for r in &report.results {
            let pair = (r.check.as_str(), r.device.as_str());
            if ok.contains_key(&pair) {
                continue;
            }
            match r.status {
                Status::Ok => {
                    ok.insert(pair, report);
                }
                Status::Fail => {
                    failed.entry(pair).or_insert(&report.run_id);
                }
                Status::Error | Status::Skip => {}
            }
        }
    }
    let mut read: HashMap<(&str, &str), Vec<Recorded>> = HashMap::new();
    let mut out: BTreeMap<String, DeviceReferences> = BTreeMap::new();
    for ((check, device), report) in &ok {
        let records = read
            .entry((report.run_id.as_str(), device))
            .or_insert_with(|| facts(&report.run_id, device).unwrap_or_default());
        if records.is_empty() {
            continue;
        }
        let kept = Kept {
            run_id: report.run_id.clone(),
            at: report.started_at.clone(),
            accepted: None,
            records: records.clone(),
        };
        let device = out.entry(device.to_string()).or_default();
        device.checks.insert(check.to_string(), kept);
    }
    for ((check, device), run) in failed {
        let refs = out.entry(device.to_string()).or_default();
        if refs.checks.contains_key(check) {
            continue;
        }
        refs.unaccepted.insert(
            check.to_string(),
            format!(
                "no accepted reference: the newest run kept that judged this check on {device} \
                 ({run}) found it FAIL, and no reading it judged OK is kept (this archive was \
                 written before premarket kept references), so there is nothing to compare with"
            ),
        );
    }
    out
}

/// Writes `found` as the store: into a temporary directory, renamed into place.
fn write(
    archive: &Archive,
    store: &References,
    found: &BTreeMap<String, DeviceReferences>,
) -> Result<(), ArchiveError> {
    let pid = std::process::id();
    let temp = file::temp_dir(
        archive.root(),
        &format!("{TMP_PREFIX}references-"),
        &format!("-{pid}"),
    )?;
    let staging = References {
        dir: temp.path().to_path_buf(),
        migrated: None,
    };
    for (device, refs) in found {
        staging.write(device, refs, super::Flush::WithTheRun)?;
    }
    os::sync_file_system(temp.path());
    match std::fs::rename(temp.path(), &store.dir) {
        Ok(()) => {
            let _ = temp.keep();
            file::sync_dir(archive.root());
            Ok(())
        }
        // Another premarket migrated first: its store stands, this one is removed.
        Err(_) if store.dir.is_dir() => Ok(()),
        Err(source) => Err(ArchiveError::Write {
            path: store.dir.clone(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckResult;
    use premarket_parse::{FactJson, QueryKey};

    fn report(run: &str, results: &[(&str, &str, Status)]) -> Report {
        let results = results
            .iter()
            .map(|(c, d, s)| CheckResult::new(c, d, *s, ""))
            .collect();
        Report::new(run.into(), "lab".into(), run.into(), run.into(), results)
    }

    fn record(run: &str) -> Recorded {
        Recorded {
            key: QueryKey {
                command: premarket_core::Command::new("show running-config"),
                kind: "eos.running-config-lines".into(),
            },
            run_id: run.into(),
            collected_at: None,
            fact: FactJson::of(&run),
            masked: false,
        }
    }

    #[test]
    fn the_newest_ok_reading_stands_and_a_fail_without_one_is_no_first_reading() {
        use Status::{Error, Fail, Ok as Pass};
        let reports = [
            report(
                "r1",
                &[
                    ("cfg", "sw1", Pass),
                    ("cfg", "sw2", Fail),
                    ("cpu", "sw1", Pass),
                ],
            ),
            report("r2", &[("cfg", "sw1", Fail), ("cfg", "sw2", Error)]),
            report("r3", &[("cfg", "sw1", Error), ("cfg", "sw3", Pass)]),
        ];
        let found = references_in(&reports, |run, _| Ok(vec![record(run)]));
        let sw1 = &found["sw1"];
        assert_eq!(
            sw1.checks["cfg"].run_id, "r1",
            "the FAIL of r2 never moved it"
        );
        assert_eq!(sw1.checks["cfg"].records, [record("r1")]);
        assert!(sw1.unaccepted.is_empty());
        assert_eq!(found["sw3"].checks["cfg"].run_id, "r3");
        let sw2 = &found["sw2"];
        assert!(sw2.checks.is_empty());
        assert!(
            sw2.unaccepted["cfg"].contains("no accepted reference")
                && sw2.unaccepted["cfg"].contains("r1"),
            "{sw2:?}"
        );
        // An OK run whose facts are gone is no reading: with a FAIL after it, no reference.
        let found = references_in(&reports, |run, _| {
            Ok(if run == "r1" {
                Vec::new()
            } else {
                vec![record(run)]
            })
        });
        assert!(
            found["sw1"].unaccepted.contains_key("cfg"),
            "{:?}",
            found["sw1"]
        );
        assert!(!found["sw1"].checks.contains_key("cpu"));
    }
}

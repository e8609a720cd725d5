//! What each comparison judges against, and what a device's run leaves for the next: the
//! inspection's side of the archive's reference store
//! ([`premarket_report::archive::References`]).
//!
//! Before the inspection, [`attach`] reads from the archive each device's newest records (the
//! model the previous run saw), each comparing check's reference and the device's box facts
//! reference: a full run compares the box facts with the full runs' before it and moves that
//! reference on; a rerun compares what it read with what the latest full run compared with.
//!
//! A check that compares with an earlier reading ([`PlannedCheck::compares`]) judges a view of
//! the device's facts holding its own reference: the reading of the newest run that judged it
//! OK, or one accepted since; never simply the latest run, which may be the FAIL a rerun
//! re-examines. One whose reference may not stand is ERROR without being judged, never "first
//! reading, OK"; nor is one whose reference holds a record the archive masked
//! ([`crate::masked`]). The result of a check judged against an accepted reading says who
//! accepted it. After judging, each comparing check judged OK hands its reading on
//! ([`advance`]). The box facts are compared with the device's box facts reference, only those
//! this run read ([`crate::box_changes`]).

use std::collections::HashMap;

use premarket_check::box_facts;
use premarket_core::Platform;
use premarket_core::{Accepted, Status, Verdict};
use premarket_parse::{BoxReference, Facts, QueryKey, Recorded, Reference};
use premarket_plan::{DevicePlan, Plan, PlannedCheck};
use premarket_report::CheckResult;
use premarket_report::archive::{Advance, Archive, ArchiveError, DeviceReferences};

use crate::masked;

/// Attaches to `plan` what the archive says each device and check judges against (`full`: the
/// run judges every check of every device).
pub fn attach(archive: &Archive, plan: &mut Plan, full: bool) {
    // The archive listed once for the fleet; each device reads back only as far as its
    // archived facts go (at 1000 devices and a month of runs, not 30,000 files).
    let previous = archive.previous_facts();
    let wanted: HashMap<String, Vec<QueryKey>> = plan
        .devices
        .iter()
        .map(|d| (d.device.name.to_string(), previous_wanted(d)))
        .collect();
    plan.attach_previous(|device| {
        previous.of(device, wanted.get(device).map_or(&[], Vec::as_slice))
    });
    let store = archive.references();
    let attach = |devices: Vec<&mut DevicePlan>| {
        for device in devices {
            let kept = store.of(&device.device.name);
            attach_device(device, kept.as_ref(), full);
        }
    };
    premarket_core::in_halves(plan.devices.iter_mut().collect(), attach);
}

/// The archived records a device's plan reads ([`Plan::attach_previous`]): its archived
/// queries' facts (the identity query's says the model) and, on a platform that has them, its
/// box facts. The archive is read back only until each has been found.
fn previous_wanted(plan: &DevicePlan) -> Vec<QueryKey> {
    let mut keys: Vec<QueryKey> = plan
        .queries
        .iter()
        .filter(|q| q.archived())
        .map(|q| q.key())
        .collect();
    if matches!(plan.device.platform, Platform::Eos | Platform::Fortigate) {
        keys.push(box_facts::key());
    }
    keys
}

/// Sets each comparing check's reference and the box facts reference of `device`, from its
/// references as the store keeps them (or why they cannot be read: every comparing check is
/// then ERROR saying so, never a first reading).
fn attach_device(
    device: &mut DevicePlan,
    kept: Result<&DeviceReferences, &ArchiveError>,
    full: bool,
) {
    for check in device.checks.iter_mut().filter(|c| c.compares()) {
        check.reference = match &kept {
            Ok(kept) => kept.reference(&check.entry.id),
            Err(why) => Reference::Missing(format!(
                "the reference this check judges against cannot be read: {why}"
            )),
        };
    }
    let stored = kept.ok().and_then(|k| k.box_facts.as_ref());
    let compare_with = match stored {
        Some(b) if full => b.current.clone(),
        Some(b) => b.compared.clone(),
        // No full run has set one yet (an archive of an older premarket): the newest record.
        None => device.previous.get(&box_facts::key()).cloned(),
    };
    device.box_facts = BoxReference {
        compare_with,
        advance: full,
    };
}

/// How a check is judged in this run.
pub(crate) enum Judging {
    /// Over these facts: the device's, with the check's own reference when it compares.
    Over(Facts),
    /// Not evaluated: its reference may not stand (the ERROR saying why and what to do).
    Unjudged(Box<Verdict>),
}

/// How `check` is judged: over the device's facts with its own reference when it compares
/// (nothing earlier otherwise), or ERROR unjudged when its reference may not stand or holds a
/// masked record.
pub(crate) fn view(check: &PlannedCheck, facts: &Facts, device: &str) -> Judging {
    if !check.compares() {
        return Judging::Over(facts.clone());
    }
    let not_judged = match &check.reference {
        Reference::Missing(why) => Verdict::error(why.clone()),
        reference => match masked::unjudgeable(check) {
            Some(not_judged) => not_judged,
            None => return Judging::Over(facts.with_previous(reference.previous())),
        },
    };
    Judging::Unjudged(Box::new(not_judged.remedy(format!(
        "Check the device by hand (what changed, what the counters say), then make its latest \
         reading the reference: `{}`.",
        accept_command(check, device)
    ))))
}

/// Who accepted the reading `check` was judged against, for a result judged against it.
pub(crate) fn accepted(check: &PlannedCheck, status: Status) -> Option<Accepted> {
    let judged = matches!(status, Status::Ok | Status::Fail);
    check
        .reference
        .accepted()
        .filter(|_| judged && check.compares())
        .cloned()
}

/// What a comparing check's FAIL adds to its remedy: how to make this reading the reference.
pub(crate) fn accept_hint(check: &PlannedCheck, device: &str) -> Option<String> {
    check.compares().then(|| {
        format!(
            "If this is as it should be now (a planned change; a fault fixed whose counters were \
             not cleared), make this reading the reference: `{}`.",
            accept_command(check, device)
        )
    })
}

fn accept_command(check: &PlannedCheck, device: &str) -> String {
    format!(
        "premarket accept --device {device} --check {} --reason WHY",
        check.entry.id
    )
}

/// What `plan`'s run moves in the device's references: each comparing check judged OK, with
/// its archived queries' keys, and (a full run) this run's box facts.
pub(crate) fn advance(
    plan: &DevicePlan,
    results: &[CheckResult],
    box_record: Option<&Recorded>,
) -> Advance {
    let checks = plan
        .checks
        .iter()
        .zip(results)
        .filter(|(check, result)| check.compares() && result.status == Status::Ok)
        .map(|(check, _)| (check.entry.id.clone(), check.archived_keys()))
        .collect();
    Advance {
        checks,
        box_facts: box_record.filter(|_| plan.box_facts.advance).cloned(),
    }
}

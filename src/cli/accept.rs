//! `premarket accept --device NAME [--check ID] --reason TEXT [--ticket T]`: the device's
//! latest reading becomes the reference its comparisons judge against (a planned change, or a
//! fault fixed whose counters were not cleared). The latest reading is the newest archived
//! record of each query the check reads, as the latest run or rerun archived them; no device is
//! contacted. Without `--check`, every check of the device that compares with an earlier
//! reading. It is recorded in the archive's reference store with who (the login name), when,
//! why and the ticket; the next report shows "accepted by NAME (TICKET)" beside the result.
//!
//! Refused (exit 3) for a device or check the site does not have, a check that compares with
//! nothing, and a device with nothing archived. The reason is the user's text: known secrets are
//! masked before it is kept, and control characters escaped whenever it is printed.

use std::path::{Path, PathBuf};

use clap_complete::ArgValueCandidates;

use super::{Stop, load};
use crate::config::Config;
use crate::core::Accepted;
use crate::parse::Recorded;
use crate::plan::{Plan, PlannedCheck, Selection};
use crate::report::archive::Archive;
use crate::report::escape::line;
use crate::report::{Invocation, Mode, redact};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The device whose latest reading becomes the reference.
    #[arg(long, value_name = "NAME", add = ArgValueCandidates::new(super::complete::device_names))]
    pub device: String,
    /// Only this check (one that compares with an earlier reading) [default: every such check
    /// of the device].
    #[arg(long = "check", value_name = "ID", add = ArgValueCandidates::new(super::complete::check_ids))]
    pub check: Option<String>,
    /// Why the reading is as it should be (kept in the archive, shown in the next report).
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// The change or incident ticket.
    #[arg(long, value_name = "T")]
    pub ticket: Option<String>,
    /// Accept in the demo's archive (what `premarket demo` wrote) instead of the site's.
    #[arg(long)]
    pub demo: bool,
    /// With --demo: the demo's home, as given to `premarket demo --home` [default: the demo's].
    #[arg(long, value_name = "DIR", requires = "demo")]
    pub home: Option<PathBuf>,
}

pub fn run(dir: &Path, invocation: Invocation, args: Args) -> Result<u8, Stop> {
    // The demo's site lives only while the demo runs: rebuild it (the guard removes it).
    let (config, _site, invocation) = if args.demo {
        let (config, site) = super::demo_home::site(args.home.as_deref())?;
        let demo = Invocation {
            dir: None,
            mode: Mode::Demo {
                home: args.home.as_deref().map(super::absolute),
            },
        };
        (config, Some(site), demo)
    } else {
        (load(dir)?, None, invocation)
    };
    let reason = args.reason.trim();
    if reason.is_empty() {
        return Err(Stop::config(
            "accept: --reason must say why the reading is right",
        ));
    }
    let selection = Selection {
        checks: args.check.iter().cloned().collect(),
        devices: vec![args.device.clone()],
        tags: Vec::new(),
    };
    let plan = Plan::new(&config, &selection)?;
    let device = &args.device;
    let checks = comparing(&plan, device, args.check.as_deref())?;
    let archive = Archive::new(&config.site.archive.dir);
    let readings = latest_readings(&archive, device, &checks);
    if readings.is_empty() {
        return Err(Stop::config(format!(
            "accept: nothing is archived for {} in {}: there is no reading to accept yet. Run \
             the inspection first (`{}`); accept contacts no device.",
            line(device),
            archive.root().display(),
            invocation.complete(&format!("premarket run --device {device}"))
        )));
    }
    let redactor = redact::from_config(&config);
    let accepted = Accepted {
        by: crate::files::os::login_name(),
        at: chrono::Utc::now()
            .with_timezone(&config.site.timezone)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        reason: redactor.literals(reason),
        ticket: args.ticket.as_deref().map(|t| redactor.literals(t)),
    };
    archive
        .references()
        .accept(device, &readings, &accepted)
        .map_err(|e| Stop::config(format!("accept: {e}")))?;
    outln!(
        "{}",
        said(&config, device, &readings, &checks, &accepted, &invocation)
    );
    Ok(0)
}

/// The checks of `device` that compare with an earlier reading (only `check`, when given), or
/// why there is none.
fn comparing<'a>(
    plan: &'a Plan,
    device: &str,
    check: Option<&str>,
) -> Result<Vec<&'a PlannedCheck>, Stop> {
    let planned: Vec<&PlannedCheck> = plan.devices.iter().flat_map(|d| &d.checks).collect();
    let checks: Vec<&PlannedCheck> = planned.iter().copied().filter(|c| c.compares()).collect();
    if !checks.is_empty() {
        return Ok(checks);
    }
    let why = match (check, planned.first()) {
        (Some(id), Some(c)) if c.skip.is_some() => {
            format!("the baseline of {} skips {}", line(device), line(id))
        }
        (Some(id), _) => format!(
            "{} does not compare with an earlier reading, so there is no reference to accept",
            line(id)
        ),
        (None, _) => format!(
            "no check of {} compares with an earlier reading, so there is no reference to accept",
            line(device)
        ),
    };
    Err(Stop::config(format!("accept: {why}")))
}

/// Each check's latest reading: the newest archived record of each query it reads. Checks with
/// nothing archived are left out.
fn latest_readings(
    archive: &Archive,
    device: &str,
    checks: &[&PlannedCheck],
) -> Vec<(String, Vec<Recorded>)> {
    let keys: Vec<_> = checks.iter().flat_map(|c| c.archived_keys()).collect();
    let latest = archive.previous_facts().of(device, &keys);
    checks
        .iter()
        .filter_map(|c| {
            let records: Vec<Recorded> = c
                .archived_keys()
                .iter()
                .filter_map(|k| latest.get(k).cloned())
                .collect();
            (!records.is_empty()).then(|| (c.entry.id.clone(), records))
        })
        .collect()
}

/// What was accepted, and how to see it judged now.
fn said(
    config: &Config,
    device: &str,
    readings: &[(String, Vec<Recorded>)],
    checks: &[&PlannedCheck],
    accepted: &Accepted,
    invocation: &Invocation,
) -> String {
    let tz = config.site.timezone;
    let mut out = format!(
        "Accepted on {} as the reference, {}: {}\n",
        line(device),
        line(&accepted.note()),
        line(&accepted.reason)
    );
    for (check, records) in readings {
        let newest = records.iter().max_by_key(|r| r.collected_at);
        let when = newest
            .and_then(|r| r.collected_at)
            .map(|t| {
                format!(
                    ", read {}",
                    t.with_timezone(&tz).format("%Y-%m-%d %H:%M:%S")
                )
            })
            .unwrap_or_default();
        let run = newest.map(|r| r.run_id.as_str()).unwrap_or_default();
        out.push_str(&format!(
            "  {check}: the reading of run {}{when}\n",
            line(run)
        ));
    }
    for c in checks
        .iter()
        .filter(|c| !readings.iter().any(|(id, _)| *id == c.entry.id))
    {
        out.push_str(&format!(
            "  {}: nothing archived yet, not accepted\n",
            c.entry.id
        ));
    }
    let rerun = match readings {
        [(check, _)] => format!("premarket check {check} --device {device}"),
        _ => format!("premarket run --device {device}"),
    };
    out.push_str(&format!(
        "The next run judges against it. To judge now: {}",
        invocation.complete(&rerun)
    ));
    out
}

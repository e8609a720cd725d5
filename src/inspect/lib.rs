#![doc = include_str!("README.md")]

mod box_changes;
mod corroborate;
mod down;
pub mod interrupt;
mod masked;
mod reference;
mod result;
mod site;
mod task;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::sync::Semaphore;

use premarket_check::bounded::{self, Evaluation, GaveUp};
use premarket_collect::Collector;
use premarket_config::Config;
use premarket_core::{CollectError, Output, Outputs, Platform};
use premarket_core::{Status, Verdict};
use premarket_parse::{AnyQuery, Facts, Query};
use premarket_plan::{DevicePlan, Plan};
use premarket_probe::facts::Measure;
use premarket_report::archive::Staged;
use premarket_report::changed::FactChange;
use premarket_report::escape::control;
use premarket_report::redact::{self, Redactor};
use premarket_report::{CheckResult, DeviceDown, DeviceOutputs, ProbeFigures, Report};
use reference::Judging;

pub use interrupt::Interrupt;
pub use reference::attach as attach_references;
use result::result;

/// The longest one check's evaluation may take: a thousand times what the example site's
/// checks take, a fraction of any run's window.
pub const CHECK_BUDGET: Duration = Duration::from_secs(10);

/// What an evaluation is given even past the deadline or the stop signal's grace, so that a
/// verdict already decided (an output that never came) is said as such, not "not judged".
const AT_LEAST: Duration = Duration::from_millis(100);

/// How a run is bounded.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Everything not finished by then is ERROR.
    pub deadline: Option<tokio::time::Instant>,
    /// Devices collected at once (SSH sessions open); parsing, judging and archiving a device
    /// after its session need no slot.
    pub concurrency: usize,
    /// The longest one check's evaluation may take ([`CHECK_BUDGET`]).
    pub check_budget: Duration,
    /// The run's stop signal.
    pub interrupt: Interrupt,
}

impl Limits {
    pub fn from_config(config: &Config) -> Self {
        Limits {
            deadline: None,
            concurrency: config.site.ssh.concurrency.max(1),
            check_budget: CHECK_BUDGET,
            interrupt: Interrupt::default(),
        }
    }
}

/// What one device gave.
struct Inspected {
    results: Vec<CheckResult>,
    /// The whole diff behind a configuration check's evidence, redacted.
    diff: Option<String>,
    /// The box facts that differ from the previous run's.
    changed: Vec<FactChange>,
    raw: DeviceOutputs,
    down: Option<DeviceDown>,
    probe: Option<ProbeFigures>,
    /// The device's facts, kept when a site check reads them (or why there are none).
    facts: Option<Result<Arc<Facts>, String>>,
}

/// Runs the plan with `collector` and returns the report.
///
/// Each device is its own task on the runtime's workers: polled together from this one
/// future, every session's driver, parser and redaction ran on the one thread that awaited it,
/// which at a thousand devices was the run's bottleneck while the other core waited.
pub async fn inspect(
    config: &Config,
    plan: impl Into<Arc<Plan>>,
    collector: Arc<dyn Collector>,
    limits: &Limits,
) -> Report {
    inspect_staging(config, plan, collector, limits, None).await
}

/// [`inspect`], each device written into the run's archive directory (`staged`) as soon as it
/// is judged; the report then holds its raw outputs only where it still reads them.
pub async fn inspect_staging(
    config: &Config,
    plan: impl Into<Arc<Plan>>,
    collector: Arc<dyn Collector>,
    limits: &Limits,
    staged: Option<Arc<Staged>>,
) -> Report {
    let started = Utc::now();
    let clock = Instant::now();
    let tz = config.site.timezone;
    // The run's id up front: the references a device leaves name the run they come from.
    let id: Arc<str> = run_id(started, tz).into();
    let plan: Arc<Plan> = plan.into();
    let redactor = Arc::new(redact::from_config(config));
    let shared_limits = Arc::new(limits.clone());
    // Sessions at once (the site's `concurrency`), in plan order: the semaphore is fair.
    let sessions = Arc::new(Semaphore::new(limits.concurrency.max(1)));
    // Writes to the archive, one per core at once: each holds a compression context and a
    // thread, and the devices waiting still hold only what they held before.
    let writers = Arc::new(Semaphore::new(
        std::thread::available_parallelism().map_or(2, |n| n.get()),
    ));
    let tasks = (0..plan.devices.len()).map(|i| {
        let (plan, redactor) = (plan.clone(), redactor.clone());
        let task = task::Owned::spawn({
            let (plan, redactor) = (plan.clone(), redactor.clone());
            let (collector, limits) = (collector.clone(), shared_limits.clone());
            let (staged, writers, sessions) = (staged.clone(), writers.clone(), sessions.clone());
            let id = id.clone();
            async move {
                let device = &plan.devices[i];
                let keep = plan.site_reads(&device.device.name);
                let inspected =
                    inspect_device(device, collector, &limits, &sessions, &redactor, &id, keep)
                        .await;
                match staged {
                    Some(staged) => {
                        // Never closed: an error here cannot happen, and only skips staging.
                        let _turn = writers.acquire_owned().await;
                        stage(inspected, staged).await
                    }
                    None => inspected,
                }
            }
        });
        async move {
            let done = task.await;
            done.unwrap_or_else(|bug| Inspected::bug(&plan.devices[i], bug, &redactor))
        }
    });
    // Every device's task is started at once; each waits for a session slot.
    let mut devices: Vec<Inspected> = futures::future::join_all(tasks).await;
    let mut site_facts = premarket_check::site::SiteFacts::default();
    for (plan, device) in plan.devices.iter().zip(&mut devices) {
        if let Some(facts) = device.facts.take() {
            site_facts.insert(&plan.device.name, facts);
        }
    }
    // A device set aside for its baseline's mistakes is named by the site checks it takes part
    // in, never judged as absent.
    for device in &plan.invalid {
        let why =
            "premarket did not inspect this device: its baseline has mistakes (see its block)";
        site_facts.insert(&device.name, Err(why.to_string()));
    }
    let site_results = site::judge(&plan, site_facts, limits, &redactor, clock).await;
    let finished = Utc::now();
    let mut results = Vec::new();
    let mut raw = Vec::new();
    let mut down = Vec::new();
    let mut probe = Vec::new();
    let mut diffs = Vec::new();
    let mut changed_facts = Vec::new();
    for device in devices {
        changed_facts.extend(device.changed);
        if let Some(diff) = device.diff {
            diffs.push((device.raw.device.clone(), diff));
        }
        results.extend(device.results);
        raw.push(device.raw);
        down.extend(device.down);
        probe.extend(device.probe);
    }
    for device in &plan.invalid {
        let (blocked, block) = down::invalid(device, &config.dir);
        results.extend(blocked);
        down.push(block);
    }
    results.extend(site_results);
    corroborate::probe_and_firewall(&mut results, &probe);
    let mut report = Report::new(
        id.to_string(),
        config.site.name.clone(),
        timestamp(started, tz),
        timestamp(finished, tz),
        results,
    );
    report.raw = raw;
    report.diffs = diffs;
    report.changed_facts = changed_facts;
    report.devices_not_inspected = down;
    report.probe = probe;
    report.sort();
    report
}

impl Inspected {
    /// A device whose inspection ended in a bug (a panic): every check ERROR saying so.
    fn bug(plan: &DevicePlan, why: task::Ended, redactor: &Redactor) -> Inspected {
        let why = format!("premarket could not inspect this device (a bug in premarket): {why}");
        let verdict = Verdict::error(why.clone());
        let (name, platform) = (&plan.device.name, plan.device.platform);
        let results = plan
            .checks
            .iter()
            .map(|check| {
                result(
                    &check.entry,
                    Some(check),
                    name,
                    verdict.clone(),
                    platform,
                    redactor,
                )
            })
            .collect();
        Inspected {
            results,
            diff: None,
            changed: Vec::new(),
            raw: empty_outputs(&plan.device.name, plan.device.platform),
            down: None,
            probe: None,
            facts: Some(Err(why)),
        }
    }
}

async fn inspect_device(
    plan: &DevicePlan,
    collector: Arc<dyn Collector>,
    limits: &Limits,
    sessions: &Semaphore,
    redactor: &Redactor,
    run_id: &str,
    keep_facts: bool,
) -> Inspected {
    // When the device's session began: after it waited for one of the site's `concurrency`
    // slots, which it holds only while collecting (parsing, judging and archiving need none).
    let mut began = None;
    let session = async {
        // Never closed; were it, the device would be collected without waiting.
        let _slot = sessions.acquire().await;
        began = Some((Instant::now(), Utc::now()));
        collector.collect(plan).await
    };
    let collect = async {
        match limits.deadline {
            None => session.await,
            Some(at) => match tokio::time::timeout_at(at, session).await {
                Ok(outputs) => outputs,
                Err(_) => Outputs::all_failed(&plan.commands, CollectError::Deadline),
            },
        }
    };
    let outputs = tokio::select! {
        biased;
        outputs = collect => outputs,
        signalled = limits.interrupt.wait() => Outputs::all_failed(
            &plan.commands,
            CollectError::Interrupted(signalled.name.to_string()),
        ),
    };
    let (start, collected_at) = began.unwrap_or_else(|| (Instant::now(), Utc::now()));
    let collected_ms = elapsed_ms(start);
    tracing::info!(device = %plan.device.name, ms = collected_ms, "collection ended");
    let platform = plan.device.platform;
    let queries: Vec<&dyn AnyQuery> = plan.queries.iter().map(|q| q.as_ref()).collect();
    let mut facts = premarket_parse::parse(&outputs, &queries);
    facts.set_collected_at(collected_at);
    facts.set_device(&plan.device.name);
    let (changed, box_record) = box_changes::compare(plan, &facts, run_id, collected_at, redactor);
    // Kept masked, as every archived record: the run's facts and the box facts reference.
    let box_record = box_record.map(|record| redact::record(redactor, record));
    let raw = DeviceOutputs {
        device: plan.device.name.to_string(),
        platform,
        outputs: outputs
            .results
            .iter()
            .map(|(c, r)| {
                let redacted = r.as_ref().map(|o| redacted(o, platform, redactor));
                (
                    c.clone(),
                    redacted.map_err(|e| redactor.clean_error(e.clone())),
                )
            })
            .collect(),
        // Archived: a secret the device printed is masked there, the record marked.
        facts: facts
            .to_record(&queries, run_id)
            .into_iter()
            .chain(box_record.clone())
            .map(|record| redact::record(redactor, record))
            .collect(),
        advance: Default::default(),
    };
    let mut raw = raw;

    let judged = judge(plan, &facts, limits).await;
    // A verdict's attachment is a configuration diff: one per device.
    let diff = judged
        .iter()
        .find_map(|(v, _)| v.attachment.as_deref())
        .map(|text| control(&redact::device_text(redactor, platform, text)));
    let mut results: Vec<CheckResult> = plan
        .checks
        .iter()
        .zip(judged)
        .map(|(check, (verdict, took))| {
            let mut result = result(
                &check.entry,
                Some(check),
                &plan.device.name,
                verdict,
                platform,
                redactor,
            );
            let eval_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
            result.duration_ms = collected_ms.saturating_add(eval_ms);
            result.eval_us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
            result
        })
        .collect();
    raw.advance = reference::advance(plan, &results, box_record.as_ref());
    explain(plan, &mut results);
    let down = down::find(plan, &outputs, &results).map(|mut d| {
        d.what = control(&redactor.literals(&d.what));
        d
    });
    let probe = (platform == Platform::Probe)
        .then(|| figures(&plan.device.name, &facts))
        .flatten();
    Inspected {
        results,
        diff,
        changed,
        raw,
        down,
        probe,
        facts: keep_facts.then_some(Ok(Arc::new(facts))),
    }
}

/// Writes the device into the run's archive directory, off the runtime's workers (files and
/// compression); the report keeps its outputs only if it has a FAIL or an ERROR (the email
/// attaches them) or is one of those [`Staged`] keeps.
async fn stage(mut inspected: Inspected, staged: Arc<Staged>) -> Inspected {
    let failing = inspected
        .results
        .iter()
        .any(|r| matches!(r.status, Status::Fail | Status::Error));
    let (device, platform) = (inspected.raw.device.clone(), inspected.raw.platform);
    let mut raw = std::mem::replace(&mut inspected.raw, empty_outputs(&device, platform));
    let written = tokio::task::spawn_blocking(move || {
        staged.device(&mut raw, failing);
        raw
    })
    .await;
    // Only a runtime shutting down or a panic (a bug) ends it without a value (`Staged::device`
    // keeps its errors for the end): the device is then written at the end with nothing, like
    // a device never collected.
    inspected.raw = written.unwrap_or_else(|_| empty_outputs(&device, platform));
    inspected
}

fn empty_outputs(device: &str, platform: Platform) -> DeviceOutputs {
    DeviceOutputs {
        device: device.to_string(),
        platform,
        outputs: Vec::new(),
        facts: Vec::new(),
        advance: Default::default(),
    }
}

/// Every check of the device: the prepared ones judged one after another on one evaluation
/// thread, each bounded on its own ([`bounded::evaluate_each`]) and each over its own view of the
/// facts ([`reference::view`]); a skipped one says why, one whose reference may not stand is
/// ERROR unjudged. Each verdict comes with how long its evaluation took (zero for a check not
/// evaluated).
async fn judge(
    plan: &DevicePlan,
    facts: &Facts,
    limits: &Limits,
) -> Vec<(Verdict, std::time::Duration)> {
    let device = plan.device.name.as_str();
    let views: Vec<Option<Judging>> = plan
        .checks
        .iter()
        .map(|check| {
            check
                .prepared
                .as_ref()
                .map(|_| reference::view(check, facts, device))
        })
        .collect();
    let evaluations = plan
        .checks
        .iter()
        .zip(&views)
        .filter_map(|(check, view)| match (&check.prepared, view) {
            (Some(prepared), Some(Judging::Over(facts))) => Some(Evaluation {
                check: prepared.clone(),
                facts: facts.clone(),
                rerun: format!("premarket check {} --device {device}", check.entry.id),
            }),
            _ => None,
        })
        .collect();
    let mut judged = bounded::evaluate_each(evaluations, || give_up(limits))
        .await
        .into_iter();
    plan.checks
        .iter()
        .zip(views)
        .map(|(check, view)| match view {
            Some(Judging::Unjudged(verdict)) => (*verdict, std::time::Duration::ZERO),
            Some(Judging::Over(_)) => judged.next().unwrap_or_else(|| {
                (
                    Verdict::error("not judged (a bug in premarket)"),
                    std::time::Duration::ZERO,
                )
            }),
            None => (
                Verdict::skip(format!(
                    "skipped by the baseline: {}",
                    check.skip.as_deref().unwrap_or("no reason given")
                )),
                std::time::Duration::ZERO,
            ),
        })
        .collect()
}

/// When the run gives up on an evaluation started now: its budget, the deadline, or the stop
/// signal's grace for judging, whichever comes first (but never before [`AT_LEAST`]).
async fn give_up(limits: &Limits) -> GaveUp {
    let started = tokio::time::Instant::now();
    let floor = started + AT_LEAST;
    let deadline = async {
        match limits.deadline {
            Some(at) => tokio::time::sleep_until(at.max(floor)).await,
            None => std::future::pending().await,
        }
    };
    let interrupted = async {
        let signalled = limits.interrupt.wait().await;
        tokio::time::sleep_until((signalled.at + interrupt::JUDGING_GRACE).max(floor)).await;
        signalled.name
    };
    tokio::select! {
        () = tokio::time::sleep_until(started + limits.check_budget) => GaveUp::Budget(limits.check_budget),
        () = deadline => GaveUp::Deadline,
        signal = interrupted => GaveUp::Interrupted(signal),
    }
}

/// An output as the report keeps it: the text redacted, or a spooled output's head (its file
/// is redacted as the archive copies it, never read whole here).
fn redacted(output: &Output, platform: Platform, redactor: &Redactor) -> Output {
    match output {
        Output::Text(text) => match redact::device_text_kept(redactor, platform, text) {
            Cow::Borrowed(_) => Output::Text(text.clone()),
            Cow::Owned(masked) => Output::Text(masked.into()),
        },
        Output::Spooled(spool) => {
            Output::Spooled(spool.with_head(redact::device_text(redactor, platform, spool.head())))
        }
    }
}

/// Ties each FAIL that another FAIL on this device explains (catalog `explains:`) to it.
fn explain(plan: &DevicePlan, results: &mut [CheckResult]) {
    let failing: Vec<String> = results
        .iter()
        .filter(|r| r.status == Status::Fail)
        .map(|r| r.check.clone())
        .collect();
    for r in results.iter_mut().filter(|r| r.status == Status::Fail) {
        r.explained_by = plan
            .checks
            .iter()
            .filter(|c| failing.contains(&c.entry.id) && c.entry.id != r.check)
            .find(|c| c.entry.explains.iter().any(|(id, _)| *id == r.check))
            .map(|c| c.entry.id.clone());
    }
}

/// What the probe measured, when it measured anything.
fn figures(device: &str, facts: &Facts) -> Option<ProbeFigures> {
    let l = facts.get(&Measure).ok()?;
    // The means are in the analysis JSON (the probe's "output") but not in its fact.
    let analysis: Option<serde_json::Value> = facts
        .raw(&Measure.command())
        .and_then(|text| serde_json::from_str(text).ok());
    let mean =
        |v: Option<&serde_json::Value>| v.and_then(|m| m.get("mean_ns")).and_then(|m| m.as_f64());
    Some(ProbeFigures {
        mean_ns: mean(analysis.as_ref()),
        steady_mean_ns: mean(analysis.as_ref().and_then(|a| a.get("steady"))),
        device: device.to_string(),
        verdict: l.verdict.as_str().to_string(),
        pairs: l.pairs,
        lost: l.lost,
        median_ns: l.median_ns.map(|n| n.0),
        p99_ns: l.p99_ns.map(|n| n.0),
        steady_n: l.steady.n,
        steady_median_ns: l.steady.median_ns.map(|n| n.0),
        steady_p99_ns: l.steady.p99_ns.map(|n| n.0),
    })
}

fn elapsed_ms(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// RFC 3339 with the site's offset, e.g. `2026-11-30T08:15:00.123+08:00`.
pub fn timestamp(at: DateTime<Utc>, tz: chrono_tz::Tz) -> String {
    at.with_timezone(&tz)
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, false)
}

/// Sortable and unique enough for one site: `20261130T081500.123`.
pub fn run_id(at: DateTime<Utc>, tz: chrono_tz::Tz) -> String {
    at.with_timezone(&tz)
        .format("%Y%m%dT%H%M%S%.3f")
        .to_string()
}

//! The pipeline end to end: plan -> collect -> parse -> evaluate -> report.
//!
//! Devices are inspected concurrently (bounded), each collected once for all its checks. A
//! device that does not finish by the deadline gets ERROR "not finished by the deadline" on
//! every check that needed it, and the report still comes out on time.

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};
use futures::StreamExt;

use crate::collect::Collector;
use crate::config::Config;
use crate::core::{CollectError, Outputs};
use crate::core::{Status, Verdict};
use crate::parse::AnyQuery;
use crate::plan::{DevicePlan, Plan, PlannedCheck};
use crate::report::redact::Redactor;
use crate::report::{CheckResult, DeviceOutputs, Report};

/// How a run is bounded.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Everything not finished by then is ERROR.
    pub deadline: Option<tokio::time::Instant>,
    /// Devices inspected at once.
    pub concurrency: usize,
}

impl Limits {
    pub fn from_config(config: &Config) -> Self {
        Limits {
            deadline: None,
            concurrency: config.site.ssh.concurrency.max(1),
        }
    }
}

/// The next `time` of day in the site's time zone: today's if it is still ahead, else
/// tomorrow's (a run started by cron at 23:00 with a deadline of 08:45 gets the morning's).
/// A time that does not exist on a DST day falls to the earliest valid instant after it.
pub fn next_deadline(
    tz: chrono_tz::Tz,
    time: chrono::NaiveTime,
    now: DateTime<Utc>,
) -> DateTime<chrono_tz::Tz> {
    let local = now.with_timezone(&tz).date_naive();
    for day in [
        local,
        local + chrono::Days::new(1),
        local + chrono::Days::new(2),
    ] {
        let mut naive = day.and_time(time);
        // Skip a DST gap minute by minute (at most a few hours).
        for _ in 0..240 {
            if let Some(at) = naive.and_local_timezone(tz).earliest() {
                if at.with_timezone(&Utc) > now {
                    return at;
                }
                break;
            }
            naive += chrono::Duration::minutes(1);
        }
    }
    now.with_timezone(&tz)
}

/// The tokio timer instant of a wall-clock time (now when it has passed).
pub fn instant_at(at: DateTime<chrono_tz::Tz>) -> tokio::time::Instant {
    let left = (at.with_timezone(&Utc) - Utc::now())
        .to_std()
        .unwrap_or_default();
    tokio::time::Instant::now() + left
}

/// Runs the plan with `collector` and returns the report.
pub async fn inspect(
    config: &Config,
    plan: &Plan,
    collector: Arc<dyn Collector>,
    limits: &Limits,
) -> Report {
    let started = Utc::now();
    let redactor = Redactor::from_config(config);
    let devices: Vec<(Vec<CheckResult>, DeviceOutputs)> =
        futures::stream::iter(plan.devices.iter())
            .map(|device| inspect_device(device, collector.clone(), limits.deadline, &redactor))
            .buffered(limits.concurrency.max(1))
            .collect()
            .await;
    let finished = Utc::now();
    let tz = config.site.timezone;
    let (results, raw): (Vec<Vec<CheckResult>>, Vec<DeviceOutputs>) = devices.into_iter().unzip();
    let mut report = Report::new(
        run_id(started, tz),
        config.site.name.clone(),
        timestamp(started, tz),
        timestamp(finished, tz),
        results.into_iter().flatten().collect(),
    );
    report.raw = raw;
    report
}

async fn inspect_device(
    plan: &DevicePlan,
    collector: Arc<dyn Collector>,
    deadline: Option<tokio::time::Instant>,
    redactor: &Redactor,
) -> (Vec<CheckResult>, DeviceOutputs) {
    let start = Instant::now();
    let collected_at = Utc::now();
    let outputs = match deadline {
        None => collector.collect(plan).await,
        Some(at) => match tokio::time::timeout_at(at, collector.collect(plan)).await {
            Ok(outputs) => outputs,
            Err(_) => Outputs::all_failed(&plan.commands, CollectError::Deadline),
        },
    };
    let collected_ms = elapsed_ms(start);
    let platform = plan.device.platform;
    let queries: Vec<&dyn AnyQuery> = plan.queries.iter().map(|q| q.as_ref()).collect();
    let mut facts = crate::parse::parse(&outputs, &queries);
    facts.set_previous(plan.previous.clone());
    facts.set_collected_at(collected_at);
    let raw = DeviceOutputs {
        device: plan.device.name.to_string(),
        platform,
        outputs: outputs
            .results
            .iter()
            .map(|(c, r)| {
                (
                    c.clone(),
                    r.as_ref()
                        .map(|t| redactor.redact(platform, t))
                        .map_err(Clone::clone),
                )
            })
            .collect(),
        facts: facts.to_record(&queries, ""),
    };

    let results = plan
        .checks
        .iter()
        .map(|check| {
            let eval_start = Instant::now();
            let verdict = match (&check.prepared, &check.skip) {
                (Some(prepared), _) => prepared.evaluate(&facts),
                (None, reason) => Verdict::skip(format!(
                    "skipped by the baseline: {}",
                    reason.as_deref().unwrap_or("no reason given")
                )),
            };
            let remedy = remedy(&verdict, check, &plan.device.name);
            CheckResult {
                check: check.entry.id.clone(),
                device: plan.device.name.to_string(),
                status: verdict.status,
                title: check.entry.title.clone(),
                summary: verdict.summary,
                expected: verdict.expected,
                actual: redactor.redact(platform, &verdict.actual),
                evidence: redactor.redact(platform, &verdict.evidence),
                remedy,
                duration_ms: collected_ms + elapsed_ms(eval_start),
            }
        })
        .collect();
    (results, raw)
}

/// FAIL: the check's own advice or the catalog's. ERROR: how to get an answer next time.
fn remedy(verdict: &Verdict, check: &PlannedCheck, device: &str) -> String {
    match (verdict.status, &verdict.remedy) {
        (_, Some(specific)) => specific.clone(),
        (Status::Fail, None) => check.entry.remedy.clone(),
        (Status::Error, None) => format!(
            "premarket could not tell. Fix the cause above (reachability, credentials, saved output), then rerun \
             `premarket check {} --device {device}`.",
            check.entry.id
        ),
        (Status::Ok | Status::Skip, None) => String::new(),
    }
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

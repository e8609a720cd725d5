//! The metrics channel: the run as a Prometheus text file for node_exporter's textfile
//! collector (`--metrics-file PATH`, or `metrics: { textfile: PATH }` in site.yaml), so the
//! monitoring that already pages on-call also knows whether the network is ready for the open
//! and whether premarket ran at all. Written with prometheus-client, then renamed into place:
//! node_exporter never reads half a file.
//!
//! The series are a contract (alert rules depend on them):
//! - `premarket_check_result{site,device,check,result}`: 1 for the current result of each
//!   check on each device (`ok`, `fail`, `error`, `skip`, or `acknowledged` for a FAIL
//!   acknowledged until a date: as a silence in Alertmanager, an alert on `fail` stops for it),
//!   0 for the others;
//! - `premarket_checks{site,result}`: how many checks have each result;
//! - `premarket_run_timestamp_seconds{site}`, `premarket_run_duration_seconds{site}`;
//! - `premarket_probe_latency_seconds{site,device,quantile}`: the probe's steady-state median
//!   and p99 (all packets when there is no steady state), a summary (its `_count` is the
//!   packets measured, its `_sum` their total from the analysis's mean; prometheus-client has
//!   no summary type, so this family is written by hand in the same format);
//! - `premarket_trading_day{site}`: 0 when the calendar says the market is closed (nothing was
//!   inspected), and `premarket_config_errors{site}`: mistakes that stopped the run.
//!
//! A rerun writes the standing state (its rechecked results and the latest of the others), so
//! a rerun of one check never clears another check's FAIL from the dashboard.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;

use chrono::DateTime;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode_registry;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::channel::{BoxFuture, Channel, Context, Delivered};
use super::{CheckResult, Report};
use premarket_core::Status;

type F64 = Gauge<f64, AtomicU64>;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Site {
    site: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CheckLabels {
    site: String,
    device: String,
    check: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CountLabels {
    site: String,
    result: String,
}

const RESULTS: [&str; 5] = ["ok", "fail", "error", "skip", "acknowledged"];

/// The `result` label of `r`.
fn result_of(r: &CheckResult) -> &'static str {
    match r.status {
        Status::Ok => "ok",
        Status::Fail if r.acknowledged.is_some() => "acknowledged",
        Status::Fail => "fail",
        Status::Error => "error",
        Status::Skip => "skip",
    }
}

/// Writes the metrics file.
pub struct Metrics {
    pub path: PathBuf,
}

impl Channel for Metrics {
    fn name(&self) -> &'static str {
        "metrics"
    }

    fn deliver<'a>(
        &'a self,
        report: &'a mut Report,
        _ctx: &'a Context,
    ) -> BoxFuture<'a, Delivered> {
        Box::pin(async move {
            let text = render(report);
            Delivered::file(&self.path, text.as_bytes(), "metrics", "metrics")
        })
    }
}

/// The text file's contents.
pub fn render(report: &Report) -> String {
    let site = report.site.clone();
    let mut registry = Registry::default();
    let results = Family::<CheckLabels, F64>::default();
    let counts = Family::<CountLabels, F64>::default();
    let timestamp = Family::<Site, F64>::default();
    let duration = Family::<Site, F64>::default();
    let trading = Family::<Site, F64>::default();
    let config_errors = Family::<Site, F64>::default();
    registry.register(
        "premarket_check_result",
        "1 for the current result of a check on a device (ok, fail, error, skip, acknowledged), 0 for the others",
        results.clone(),
    );
    registry.register(
        "premarket_checks",
        "Number of checks with each result in the latest run (a rerun: the standing state)",
        counts.clone(),
    );
    registry.register(
        "premarket_run_timestamp_seconds",
        "Unix time the latest run started",
        timestamp.clone(),
    );
    registry.register(
        "premarket_run_duration_seconds",
        "How long the latest run took",
        duration.clone(),
    );
    registry.register(
        "premarket_trading_day",
        "1 when the calendar says the market trades today (the run inspected), 0 when closed",
        trading.clone(),
    );
    registry.register(
        "premarket_config_errors",
        "Configuration mistakes that stopped the latest run (0: it ran)",
        config_errors.clone(),
    );
    let current: Vec<&CheckResult> = report.results.iter().chain(&report.standing).collect();
    let s = || Site { site: site.clone() };
    for r in &current {
        let now = result_of(r);
        for name in RESULTS {
            results
                .get_or_create(&CheckLabels {
                    site: site.clone(),
                    device: r.device.clone(),
                    check: r.check.clone(),
                    result: name.to_string(),
                })
                .set(if name == now { 1.0 } else { 0.0 });
        }
    }
    if report.closed.is_none() && report.config_errors.is_empty() {
        for name in RESULTS {
            let n = current.iter().filter(|r| result_of(r) == name).count();
            counts
                .get_or_create(&CountLabels {
                    site: site.clone(),
                    result: name.to_string(),
                })
                .set(n as f64);
        }
    }
    let started = DateTime::parse_from_rfc3339(&report.started_at).ok();
    let finished = DateTime::parse_from_rfc3339(&report.finished_at).ok();
    if let Some(start) = started {
        timestamp
            .get_or_create(&s())
            .set(start.timestamp_millis() as f64 / 1000.0);
        if let Some(end) = finished {
            duration
                .get_or_create(&s())
                .set((end - start).num_milliseconds().max(0) as f64 / 1000.0);
        }
    }
    trading
        .get_or_create(&s())
        .set(if report.closed.is_some() { 0.0 } else { 1.0 });
    config_errors
        .get_or_create(&s())
        .set(report.config_errors.len() as f64);
    let mut out = String::new();
    // Encoding into a String cannot fail; an empty file would only drop the series.
    let _ = encode_registry(&mut out, &registry);
    probe_summary(&mut out, &site, report);
    out
}

/// `premarket_probe_latency_seconds` as a summary: quantile lines and `_count`.
fn probe_summary(out: &mut String, site: &str, report: &Report) {
    if report.probe.is_empty() {
        return;
    }
    out.push_str("# HELP premarket_probe_latency_seconds Latency through the firewall measured by the probe (steady state; all packets when there is none).\n");
    out.push_str("# TYPE premarket_probe_latency_seconds summary\n");
    for p in &report.probe {
        let steady = p.steady_median_ns.is_some();
        let pick =
            |steady_v: Option<i64>, all_v: Option<i64>| if steady { steady_v } else { all_v };
        let labels = |extra: &str| {
            format!(
                "site=\"{}\",device=\"{}\"{extra}",
                label_value(site),
                label_value(&p.device)
            )
        };
        for (q, v) in [
            ("0.5", pick(p.steady_median_ns, p.median_ns)),
            ("0.99", pick(p.steady_p99_ns, p.p99_ns)),
        ] {
            if let Some(ns) = v {
                let _ = writeln!(
                    out,
                    "premarket_probe_latency_seconds{{{}}} {}",
                    labels(&format!(",quantile=\"{q}\"")),
                    ns as f64 / 1e9
                );
            }
        }
        let (count, mean) = if steady {
            (p.steady_n, p.steady_mean_ns)
        } else {
            (p.pairs, p.mean_ns)
        };
        if let Some(mean) = mean {
            let _ = writeln!(
                out,
                "premarket_probe_latency_seconds_sum{{{}}} {}",
                labels(""),
                mean * count as f64 / 1e9
            );
        }
        let _ = writeln!(
            out,
            "premarket_probe_latency_seconds_count{{{}}} {count}",
            labels("")
        );
    }
}

/// A label value in the text format: backslash, quote and newline escaped.
fn label_value(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProbeFigures;

    #[test]
    fn the_series_of_the_contract() {
        let results = vec![
            CheckResult::new("eos.lanz.persisted", "sw1", Status::Fail, "x"),
            CheckResult::new("eos.lanz.running", "sw1", Status::Ok, "x"),
        ];
        let mut report = Report::new(
            "r".into(),
            "lab".into(),
            "2026-11-30T08:15:00.000+08:00".into(),
            "2026-11-30T08:15:02.500+08:00".into(),
            results,
        );
        report.probe = vec![ProbeFigures {
            device: "probe1".into(),
            verdict: "offloaded".into(),
            pairs: 10,
            lost: 0,
            median_ns: Some(4_100),
            p99_ns: Some(45_000),
            steady_n: 8,
            mean_ns: None,
            steady_mean_ns: Some(4_120.0),
            steady_median_ns: Some(4_100),
            steady_p99_ns: Some(4_137),
        }];
        let text = render(&report);
        for line in [
            "premarket_check_result{site=\"lab\",device=\"sw1\",check=\"eos.lanz.persisted\",result=\"fail\"} 1.0",
            "premarket_check_result{site=\"lab\",device=\"sw1\",check=\"eos.lanz.persisted\",result=\"ok\"} 0.0",
            "premarket_checks{site=\"lab\",result=\"fail\"} 1.0",
            "premarket_checks{site=\"lab\",result=\"ok\"} 1.0",
            "premarket_run_timestamp_seconds{site=\"lab\"} 1795997700.0",
            "premarket_run_duration_seconds{site=\"lab\"} 2.5",
            "premarket_trading_day{site=\"lab\"} 1.0",
            "premarket_probe_latency_seconds{site=\"lab\",device=\"probe1\",quantile=\"0.99\"} 0.000004137",
            "premarket_probe_latency_seconds_count{site=\"lab\",device=\"probe1\"} 8",
            "premarket_probe_latency_seconds_sum{site=\"lab\",device=\"probe1\"} 0.00003296",
            "# TYPE premarket_probe_latency_seconds summary",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line}\n{text}");
        }
        assert!(
            !text.contains("# EOF"),
            "a textfile, not an OpenMetrics exposition"
        );
    }
}

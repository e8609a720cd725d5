//! The lab against the project's own parsers and checks: run every planned command on the lab
//! devices over SSH, hand the outputs (echo and prompt stripped, as the SSH collector does) to
//! the pipeline, and judge. Each switch scenario must give exactly the verdicts the lab notes
//! would predict.

use crate::lab_support;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use lab_support::*;
use premarket::collect::{BoxFuture, Collector};
use premarket::config::Config;
use premarket::core::Command;
use premarket::core::Platform;
use premarket::core::{CollectError, Outputs};
use premarket::inspect::{Limits, inspect};
use premarket::lab::{Lab, Scenario};
use premarket::plan::{DevicePlan, Plan, Selection};
use premarket::{Report, Status};

/// Outputs captured from the lab, served to the pipeline like the SSH collector serves them.
struct Captured(HashMap<String, Vec<Output>>);

type Output = (Command, Result<premarket::core::Output, CollectError>);

impl Collector for Captured {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            let results = self
                .0
                .get(plan.device.name.as_str())
                .cloned()
                .unwrap_or_default();
            Outputs { results }
        })
    }
}

/// Runs every planned command on every lab device; keeps the output between echo and prompt.
async fn capture(lab: &Lab, plan: &Plan) -> Captured {
    let mut captured = HashMap::new();
    for device in &plan.devices {
        if device.commands.is_empty() {
            continue;
        }
        let name = device.device.name.to_string();
        let handle = connect(lab, &name).await.expect("connect");
        let prompt = format!(r"(^|\r\n){}( \([\w-]+\))?( # |[>#])$", regex::escape(&name));
        // A tall terminal keeps the FortiGate pager quiet without touching its config.
        let mut t = Term::open(&handle, 1000, &prompt).await;
        if device.device.platform == Platform::Eos {
            t.send("enable").await;
            t.until_prompt_or_password().await;
            let lab_device = lab.device(&name).expect("a lab device");
            t.cmd(
                lab_device
                    .enable_secret
                    .as_deref()
                    .expect("a switch's enable secret"),
            )
            .await;
            t.cmd("terminal length 0").await;
        }
        let mut results = Vec::new();
        // A second sample is sent at least its gap after the first, as the SSH driver does.
        let mut first_sent: HashMap<Command, std::time::Instant> = HashMap::new();
        for command in &device.commands {
            if let Some(resample) = &command.resample {
                if let Some(at) = first_sent.get(&command.first_sample()) {
                    let gap = Duration::from_secs(u64::from(resample.gap_s));
                    tokio::time::sleep(gap.saturating_sub(at.elapsed())).await;
                }
            } else {
                first_sent.insert(command.clone(), std::time::Instant::now());
            }
            let mut raw = String::new();
            for line in command.lines() {
                raw = t.cmd(line).await.replace("\r\n", "\n");
            }
            let body = raw
                .split_once('\n')
                .map(|(_, rest)| rest)
                .unwrap_or_default();
            let body = body
                .rsplit_once('\n')
                .map(|(b, _)| format!("{b}\n"))
                .unwrap_or_default();
            results.push((command.clone(), Ok(body.into())));
        }
        captured.insert(name, results);
    }
    Captured(captured)
}

async fn judge(scenario: &str) -> Report {
    let scenarios: Vec<Scenario> = if scenario == "healthy" {
        vec![]
    } else {
        vec![scenario.parse().unwrap()]
    };
    let lab = Lab::start(&scenarios, 2).await.unwrap();
    let config = Config::load(&lab.site_dir).unwrap_or_else(|e| panic!("{e}"));
    let plan = Plan::new(&config, &Selection::default()).unwrap();
    let captured = tokio::time::timeout(Duration::from_secs(60), capture(&lab, &plan))
        .await
        .expect("capture in time");
    let limits = Limits::from_config(&config);
    let report = inspect(&config, plan.clone(), Arc::new(captured), &limits).await;
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
    lab.shutdown().await;
    report
}

/// Every switch check on each switch scenario, on a first run (no archive): the checks that
/// judge growth since the previous run record and pass; the state checks fail their scenario.
#[tokio::test]
async fn switch_scenarios_give_the_expected_verdicts() {
    use Status::Fail;
    let cases: &[(&str, &[(&str, Status)])] = &[
        ("healthy", &[]),
        (
            "lanz-unsaved",
            &[("eos.lanz.persisted", Fail), ("eos.config.saved", Fail)],
        ),
        (
            "lanz-off",
            &[("eos.lanz.running", Fail), ("eos.lanz.persisted", Fail)],
        ),
        ("config-unsaved", &[("eos.config.saved", Fail)]),
        ("version-drift", &[("eos.version.pinned", Fail)]),
        ("ptp-unlocked", &[("eos.ptp.synchronised", Fail)]),
        ("no-querier", &[("eos.multicast.feeds", Fail)]),
        ("low-light", &[("eos.transceivers.light", Fail)]),
        // A 3 MiB record seconds old is a microburst even without a previous run.
        ("microburst", &[("eos.lanz.congestion", Fail)]),
        ("ntp-unsynchronised", &[("eos.ntp.synchronised", Fail)]),
        // Growth and reboots need a previous run: a first run records them (errors counted
        // before it are history, issue 18).
        ("crc-errors", &[]),
        ("rebooted", &[]),
        // The exchange hand-off (issue 35): states, judged on a first run too.
        ("bgp-down", &[("eos.bgp.peers", Fail)]),
        ("bgp-prefixes-low", &[("eos.bgp.peers", Fail)]),
        ("bfd-down", &[("eos.bfd.peers", Fail)]),
        ("mroute-wrong-rpf", &[("eos.multicast.routes", Fail)]),
        (
            "feed-stalled",
            &[
                ("eos.multicast.flowing", Fail),
                ("eos.multicast.routes", Fail),
            ],
        ),
    ];
    for (scenario, not_ok) in cases {
        let report = judge(scenario).await;
        let results: Vec<_> = report
            .results
            .iter()
            .filter(|r| r.device == "sw1")
            .collect();
        assert!(results.len() >= 10, "{scenario}: {} results", results.len());
        for result in results {
            // The lab notes' switch has no MLAG: its check is SKIP, saying so.
            let usual = if result.check == "eos.mlag.healthy" {
                Status::Skip
            } else {
                Status::Ok
            };
            let want = not_ok
                .iter()
                .find(|(id, _)| *id == result.check)
                .map_or(usual, |(_, s)| *s);
            assert_eq!(
                result.status, want,
                "{scenario}: {}: {} / {}",
                result.check, result.summary, result.evidence
            );
        }
    }
}

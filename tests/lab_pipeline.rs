//! The lab against the project's own parsers and checks: run every planned command on the lab
//! devices over SSH, hand the outputs (echo and prompt stripped, as the SSH collector does) to
//! the pipeline, and judge. Each switch scenario must give exactly the verdicts the lab notes
//! would predict.

mod lab_support;

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
use premarket::lab::{Lab, Scenario, topology};
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
            t.cmd(topology::EOS_ENABLE_SECRET).await;
            t.cmd("terminal length 0").await;
        }
        let mut results = Vec::new();
        for command in &device.commands {
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
    let report = inspect(&config, &plan, Arc::new(captured), &limits).await;
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
    lab.shutdown().await;
    report
}

#[tokio::test]
async fn switch_scenarios_give_the_expected_verdicts() {
    use Status::{Fail, Ok};
    let cases: &[(&str, [Status; 4])] = &[
        // version.pinned, lanz.running, lanz.persisted, config.saved
        ("healthy", [Ok, Ok, Ok, Ok]),
        ("lanz-unsaved", [Ok, Ok, Fail, Fail]),
        ("lanz-off", [Ok, Fail, Fail, Ok]),
        ("config-unsaved", [Ok, Ok, Ok, Fail]),
        ("version-drift", [Fail, Ok, Ok, Ok]),
    ];
    let ids = [
        "eos.version.pinned",
        "eos.lanz.running",
        "eos.lanz.persisted",
        "eos.config.saved",
    ];
    for (scenario, expected) in cases {
        let report = judge(scenario).await;
        for (id, want) in ids.iter().zip(expected) {
            let result = report
                .results
                .iter()
                .find(|r| r.check == *id && r.device == "sw1")
                .unwrap_or_else(|| panic!("{scenario}: no result for {id}"));
            assert_eq!(
                result.status, *want,
                "{scenario}: {id}: {} / {}",
                result.summary, result.evidence
            );
        }
    }
}

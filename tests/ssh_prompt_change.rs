//! The prompt changing under a session, over real SSH against the lab: a FortiGate that falls
//! back from VDOM `trading` to root (`vdom-dropped`) and a switch that loses privileged mode
//! (`privilege-dropped`), each after the third command typed in that context. The command whose
//! reply ends at the other prompt is an ERROR that names both prompts, every command after it is
//! an ERROR too, and nothing more is typed in the session: the device's journal ends with that
//! command.

use crate::ssh_common::{Collected, Outcome};

use premarket::collect::ssh::{collect, settings};
use premarket::config::Config;
use premarket::core::CollectError;
use premarket::lab::{Fault, Lab, Scenario};
use premarket::plan::{Plan, Selection};

/// Runs `device`'s planned commands on the lab under `fault`: each command with its result,
/// and the lines the device received.
async fn session(fault: Fault, device: &str) -> (Collected, Vec<String>) {
    let lab = Lab::start(&[Scenario::new(fault)], 2)
        .await
        .expect("lab starts");
    let config = Config::load(&lab.site_dir).unwrap_or_else(|e| panic!("{e}"));
    let plan = Plan::new(&config, &Selection::default()).expect("plan");
    let planned = plan
        .devices
        .iter()
        .find(|d| d.device.name.as_str() == device)
        .expect("planned");
    let settings = settings(&config);
    let session = collect(&planned.device, &planned.commands, &settings);
    let results = tokio::time::timeout(std::time::Duration::from_secs(60), session)
        .await
        .expect("the session ends within 60 s");
    let typed = lab.journal().commands(device);
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
    lab.shutdown().await;
    (results, typed)
}

/// Checks the session after `entered` (the line that entered the context) in `typed`: the
/// context's first two lines answered, the third is the last line typed, and the commands from
/// it on are ERRORs naming `changed` (the prompt that came) and `context`.
fn judged(results: &[Outcome], typed: &[String], entered: &str, changed: &str, context: &str) {
    let at = typed
        .iter()
        .position(|l| l == entered)
        .unwrap_or_else(|| panic!("{entered:?} was typed: {typed:?}"));
    let inside = &typed[at + 1..];
    assert_eq!(
        inside.len(),
        Fault::CONTEXT_LASTS,
        "nothing is typed after the prompt changed: {inside:?}"
    );
    let answered = &typed[..typed.len() - 1];
    let said = format!("the prompt changed to `{changed}` while in {context}");
    for (command, result) in results {
        match result {
            Ok(_) | Err(CollectError::Unsupported(_)) => assert!(
                answered.contains(&command.text),
                "{command} answered, but typed after the change: {typed:?}"
            ),
            Err(e) => assert!(e.to_string().contains(&said), "{command}: {e}"),
        }
    }
    let failed = results.iter().filter(|(_, r)| r.is_err()).count();
    assert!(failed > 0, "the command at the change failed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_vdom_that_falls_back_to_root_is_an_error_and_nothing_more_is_typed() {
    let (results, typed) = session(Fault::VdomDropped, "fw1").await;
    judged(
        &results,
        &typed,
        "edit trading",
        "fw1 (root) #",
        "VDOM trading",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_switch_that_loses_privileged_mode_is_an_error_and_nothing_more_is_typed() {
    let (results, typed) = session(Fault::PrivilegeDropped, "sw1").await;
    judged(&results, &typed, "enable", "sw1>", "privileged mode");
}

//! The SSH collector against the lab's emulated FortiGate and switch over real SSH: each
//! device receives exactly the lines its session script (what `premarket plan` prints) holds,
//! and the lab records no configuration line. A VDOM configured on the lab's FortiGate, whose
//! VDOMs are disabled like the example site's 201G, is an ERROR that says so, after nothing but
//! the read-only `get system status`.

use premarket::collect::Collector;
use premarket::collect::ssh::{Ssh, collect, profile, settings};
use premarket::config::Config;
use premarket::core::CollectError;
use premarket::lab::{Lab, LabOptions};
use premarket::plan::{Plan, Selection};
use premarket::ssh::script::Script;

async fn lab() -> (Lab, Config) {
    let lab = Lab::start_with(LabOptions::default())
        .await
        .expect("lab starts");
    let config = Config::load(&lab.site_dir).unwrap_or_else(|e| panic!("{e}"));
    (lab, config)
}

#[tokio::test(flavor = "multi_thread")]
async fn each_lab_device_receives_exactly_its_script_and_no_configuration_line() {
    let (lab, config) = lab().await;
    let plan = Plan::new(&config, &Selection::default()).expect("plan");
    for device in &plan.devices {
        let ssh = device.device.ssh().expect("an SSH device");
        let profile = profile(device.device.platform).expect("a profile");
        let results = Ssh::from_config(&config).collect(device).await.results;
        // A command the model lacks is a conditional line of the script: not typed.
        let mut withheld = Vec::new();
        for (command, result) in &results {
            match result {
                Ok(_) => {}
                Err(CollectError::NotApplicable(_)) => withheld.push(command.text.clone()),
                Err(e) => panic!("{}: {command}: {e}", device.device.name),
            }
        }
        let mut shown: Vec<String> = Script::new(profile, &device.commands, ssh.vdom.as_deref())
            .expect("script")
            .shown(profile, None)
            .into_iter()
            .map(|s| s.text)
            .filter(|text| !withheld.contains(text))
            .collect();
        // The script ends with Enter alone, which the lab's journal (commands only) does not
        // record.
        assert_eq!(shown.pop().as_deref(), Some(""), "{}", device.device.name);
        assert_eq!(
            lab.journal().commands(&device.device.name),
            shown,
            "{}",
            device.device.name
        );
    }
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
    lab.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_vdom_on_the_lab_firewall_without_vdoms_is_an_error_and_nothing_else_is_sent() {
    let (lab, mut config) = lab().await;
    let fw1 = config
        .devices
        .iter_mut()
        .find(|d| d.name.as_str() == "fw1")
        .expect("fw1");
    fw1.ssh_mut().expect("ssh").vdom = Some("root".into());
    let fw1 = fw1.clone();
    let plan = Plan::new(&config, &Selection::default()).expect("plan");
    let commands = &plan
        .devices
        .iter()
        .find(|d| d.device.name.as_str() == "fw1")
        .expect("fw1 planned")
        .commands;

    let results = collect(&fw1, commands, &settings(&config)).await;

    for (command, result) in &results {
        if command.text == "get system status" {
            continue;
        }
        let e = result.as_ref().unwrap_err().to_string();
        assert!(
            e.contains("ssh.vdom is root, but VDOMs are disabled on this box"),
            "{command}: {e}"
        );
    }
    assert_eq!(lab.journal().commands("fw1"), ["get system status"]);
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
    lab.shutdown().await;
}

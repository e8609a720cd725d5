//! A secret the device also prints cannot hide what a check reads (issue 33, class 7): a switch
//! whose login password is `Ethernet4`, the very port a microburst sits on, over real SSH. The
//! outputs are judged as the switch printed them, so `eos.lanz.congestion` is a FAIL (it said OK
//! when the port read `********`); the report masks the password all the same, a run whose
//! reference is the archive's masked record (accepted) does not compare with it (ERROR, saying
//! why), and `validate` warns that the
//! password is an interface name. The canary test (`secrets_canary`) proves
//! every path out masks a secret the device prints.

use crate::ssh_common;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use assert_cmd::Command as Bin;
use ssh_common::device::{Device, Script};
use ssh_common::{pw_file, switch_site};

const PASSWORD: &str = "Ethernet4";

/// LANZ as a 7280R3 prints it: a 3 MiB queue on Ethernet4 seconds ago.
fn microburst() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let at = now - 5.0;
    format!(
        r#"{{"reportTime": {now:.6}, "bytesPerTxmpSegment": 512, "globalHitCount": 1, "lanzEnabled": true,
 "platformName": "Sand", "entryList": [{{"entryType": "P", "interface": "Ethernet4", "trafficClass": 0,
 "queueLength": 3145728, "duration": 0, "durationUsecs": 1840, "entryTime": {at:.6},
 "entryTimeUsecs": {us}, "globalProtectionModeEnabled": true, "ingressPortSet": ["Ethernet3"]}}]}}"#,
        us = (at * 1e6) as u64
    )
}

/// VOQ drop counters, none dropped, on the trading port.
const QUEUE_DROPS: &str = r#"{"interfaces": {"Ethernet4": {"trafficClasses": {"TC0": {
 "ingressVoqCounters": {"countersSum": {"droppedPackets": 0}},
 "egressQueueCounters": {"countersSum": {"droppedPackets": 0}}}}}}}"#;

fn site(dir: &Path, dev: &Device) {
    let expect = "expect:\n  trading_ports: [Ethernet4]\n  lanz_queue_max_bytes: 100000\n";
    let password = pw_file(dir, PASSWORD);
    switch_site(
        dir,
        dev.port,
        &dev.known_hosts_line(),
        &password,
        5,
        "",
        expect,
    );
}

fn premarket(dir: &Path, args: &[&str]) -> std::process::Output {
    Bin::cargo_bin("premarket")
        .unwrap()
        .timeout(std::time::Duration::from_secs(60))
        .arg("--dir")
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_that_is_the_congested_port_does_not_hide_the_microburst() {
    let script = Script::eos("sw1", PASSWORD)
        .answer("show queue-monitor length | json", &microburst())
        .answer("show interfaces counters queue drops | json", QUEUE_DROPS)
        .answer(
            "show version | json",
            r#"{"mfgName": "Arista", "modelName": "DCS-7280SR3-48YC8", "version": "4.31.6M", "uptime": 1234.5}"#,
        );
    let dev = Device::start(script).await;
    let dir = tempfile::tempdir().unwrap();
    site(dir.path(), &dev);
    let root = dir.path().to_path_buf();
    let args = [
        "run",
        "--check",
        "eos.lanz.congestion",
        "--format",
        "json",
        "--no-email",
    ];
    let (run, again, validate) = tokio::task::spawn_blocking(move || {
        let run = premarket(&root, &args);
        // The microburst seen, its reading accepted as the reference: the archive's masked one.
        let accept = [
            "accept",
            "--device",
            "sw1",
            "--check",
            "eos.lanz.congestion",
            "--reason",
            "seen",
        ];
        let accepted = premarket(&root, &accept);
        assert!(accepted.status.success(), "{accepted:?}");
        let again = premarket(&root, &args);
        (run, again, premarket(&root, &["validate"]))
    })
    .await
    .unwrap();

    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let result = &report["results"][0];
    assert_eq!(result["check"], "eos.lanz.congestion", "{report:#}");
    assert_eq!(result["status"], "FAIL", "{result:#}");
    // What leaves is masked: the port the password names reads `********` in the report.
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(!text.contains(PASSWORD), "{text}");
    assert!(result["summary"].as_str().unwrap().contains("********"));

    // The archive kept the queue drops with the password masked (`********` for Ethernet4):
    // the next run does not compare with them as its reference, and says why.
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    let result = &report["results"][0];
    assert_eq!(result["status"], "ERROR", "{result:#}");
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .contains("has one of this device's secrets masked in it"),
        "{result:#}"
    );

    let warned = String::from_utf8_lossy(&validate.stderr);
    assert!(
        warned.contains("warning: device sw1: ssh.password (file:")
            && warned.contains("is an interface name, a word the device prints"),
        "{warned}"
    );
    assert!(!warned.contains(PASSWORD), "{warned}");
}

//! The SSH commands end to end through the binary, against a scripted switch on loopback:
//! `capture` writes the offline layout, `run` over SSH agrees with `run --offline` on that
//! capture, and `trust` prints the key without writing it. The canary password never appears.

#[path = "common/ssh.rs"]
mod ssh_common;

use std::path::Path;

use assert_cmd::Command as Bin;
use ssh_common::device::{Device, Script};
use ssh_common::*;

const VERSION_JSON: &str = r#"{
    "mfgName": "Arista",
    "modelName": "DCS-7130-48LB",
    "version": "4.31.6M",
    "architecture": "x86_64",
    "uptime": 1234.5
}"#;
const LANZ_JSON: &str = r#"{
    "lanzEnabled": true,
    "platformName": "Strata",
    "globalHitCount": 0
}"#;
/// For the declarative checks of checks/eos.yaml (eos.ports.errors-absent, eos.ntp.synchronised).
const ERRORS_JSON: &str = r#"{
    "interfaceErrorCounters": {
        "Ethernet1": {"inErrors": 0, "fcsErrors": 0, "outErrors": 0}
    }
}"#;
const NTP_STATUS: &str =
    "synchronised to NTP server (10.0.0.1) at stratum 3\n   polling server every 64 s";
const STARTUP: &str = "! Command: show startup-config\n! device: sw1 (DCS-7130-48LB, EOS-4.31.6M)\n!\nhostname sw1\n!\nqueue-monitor length\n!\nend";

fn switch() -> Script {
    let mut script = Script::eos("sw1", CANARY)
        .answer("show version | json", VERSION_JSON)
        .answer("show queue-monitor length status | json", LANZ_JSON)
        .answer("show startup-config", STARTUP)
        .answer("show interfaces counters errors | json", ERRORS_JSON)
        .answer("show ntp status", NTP_STATUS)
        .answer("show running-config diffs", "");
    script.privileged_only.push("show startup-config".into());
    script
}

/// A site directory with one switch at `port`, the repository's EOS catalog, and a known_hosts.
fn site(dir: &Path, port: u16, known_hosts_line: &str) {
    let baselines = dir.join("baselines");
    std::fs::create_dir_all(&baselines).unwrap();
    std::fs::create_dir_all(dir.join("checks")).unwrap();
    std::fs::copy("checks/eos.yaml", dir.join("checks/eos.yaml")).unwrap();
    std::fs::write(
        baselines.join("known_hosts"),
        format!("{known_hosts_line}\n"),
    )
    .unwrap();
    std::fs::write(dir.join("pw"), CANARY).unwrap();
    std::fs::write(
        baselines.join("site.yaml"),
        "site: test\ntimezone: Asia/Taipei\ndevices:\n  - name: sw1\n    baseline: sw1.yaml\n\
         ssh:\n  known_hosts: known_hosts\n  connect_timeout_s: 5\n  command_timeout_s: 5\n",
    )
    .unwrap();
    std::fs::write(
        baselines.join("sw1.yaml"),
        format!(
            "platform: eos\nssh:\n  host: 127.0.0.1\n  port: {port}\n  user: premarket\n  password: {{ file: {} }}\n\
             expect:\n  version: {{ allowed: [4.31.6M] }}\n  lanz: true\n  trading_ports: [Ethernet1]\n  max_in_errors: 0\n",
            dir.join("pw").display()
        ),
    )
    .unwrap();
}

fn premarket(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Bin::cargo_bin("premarket")
        .unwrap()
        .timeout(std::time::Duration::from_secs(60))
        .arg("--dir")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        !stdout.contains(CANARY) && !stderr.contains(CANARY),
        "the password leaked:\n{stdout}\n{stderr}"
    );
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// The statuses of a JSON report, as (check, status) pairs.
fn statuses(json: &str) -> Vec<(String, String)> {
    let report: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["check"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn capture_then_run_offline_agrees_with_run_over_ssh() {
    let dev = Device::start(switch()).await;
    let dir = tempfile::tempdir().unwrap();
    site(dir.path(), dev.port, &dev.known_hosts_line());
    let root = dir.path().to_path_buf();
    let out = root.join("capture");

    let (code, stdout, stderr) = tokio::task::spawn_blocking({
        let (root, out) = (root.clone(), out.clone());
        move || {
            premarket(
                &root,
                &["capture", "--device", "sw1", "--out", out.to_str().unwrap()],
            )
        }
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{stdout}{stderr}");
    let read = |name: &str| std::fs::read_to_string(out.join("sw1").join(name)).unwrap();
    assert_eq!(
        read("show-running-config-diffs.txt"),
        "sw1#show running-config diffs\n"
    );
    assert_eq!(
        read("show-version-json.txt"),
        format!("sw1#show version | json\n{VERSION_JSON}")
    );
    assert!(
        read("show-startup-config.txt")
            .starts_with("sw1#show startup-config\n! Command: show startup-config")
    );

    let over_ssh = tokio::task::spawn_blocking({
        let root = root.clone();
        move || premarket(&root, &["run", "--format", "json"])
    })
    .await
    .unwrap();
    let offline = premarket(
        &root,
        &[
            "run",
            "--offline",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(statuses(&over_ssh.1).len(), 6, "{}", over_ssh.1);
    assert_eq!(statuses(&over_ssh.1), statuses(&offline.1));
    assert_eq!(over_ssh.0, offline.0);
    assert!(
        !over_ssh.1.contains("cannot connect") && !over_ssh.1.contains("authentication failed"),
        "{}",
        over_ssh.1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn trust_prints_the_key_and_writes_nothing() {
    let dev = Device::start(switch()).await;
    let dir = tempfile::tempdir().unwrap();
    site(dir.path(), dev.port, "# no keys yet");
    let known_hosts = dir.path().join("baselines/known_hosts");
    let before = std::fs::read(&known_hosts).unwrap();
    let root = dir.path().to_path_buf();

    let (code, stdout, stderr) =
        tokio::task::spawn_blocking(move || premarket(&root, &["trust", "--device", "sw1"]))
            .await
            .unwrap();

    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&premarket::ssh::hostkey::fingerprint(&dev.host_key)),
        "{stdout}"
    );
    assert!(stdout.contains(&dev.known_hosts_line()), "{stdout}");
    assert!(stdout.contains("not trusted yet"), "{stdout}");
    assert_eq!(
        std::fs::read(&known_hosts).unwrap(),
        before,
        "trust must never write known_hosts"
    );
    assert!(
        dev.received().is_empty(),
        "trust must not log in or send anything"
    );

    // And `run` refuses the unknown key with the same fingerprint.
    let root = dir.path().to_path_buf();
    let (code, stdout, _) =
        tokio::task::spawn_blocking(move || premarket(&root, &["run", "--format", "json"]))
            .await
            .unwrap();
    assert_eq!(code, 2);
    assert!(stdout.contains("unknown host key for sw1"), "{stdout}");
}

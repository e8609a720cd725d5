//! The SSH commands end to end through the binary, against a scripted switch on loopback:
//! `capture` writes the offline layout (with the platform's redaction), `run` over SSH agrees
//! with `run --offline` on that capture, `plan` prints exactly the lines the switch receives,
//! a secret holding a line break is refused by `validate` and `run`, and `trust` prints the key
//! without writing it. The canary passwords never appear.

use crate::ssh_common;

use crate::common;

use std::path::Path;

use assert_cmd::Command as Bin;
use ssh_common::device::{Device, Script};
use ssh_common::*;

const VERSION_JSON: &str = r#"{
    "mfgName": "Arista",
    "modelName": "DCS-7280SR3-48YC8",
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
const NTP_ASSOCIATIONS: &str = r#"{"peers": {"10.0.0.1": {"condition": "sys.peer", "peerIpAddr": "10.0.0.1", "stratumLevel": 2, "offset": 0.731, "reachabilityHistory": [true, true, true, true, true, true, true, true]}}}"#;
const STARTUP: &str = "! Command: show startup-config\n! device: sw1 (DCS-7280SR3-48YC8, EOS-4.31.6M)\n!\nhostname sw1\n!\nqueue-monitor length\n!\nend";

/// The whole configuration (`eos.config.unchanged`), as cEOS prints it.
const RUNNING: &str = "! Command: show running-config\n! device: sw1 (DCS-7280SR3-48YC8, EOS-4.31.6M)\n!\nhostname sw1\n!\nqueue-monitor length\n!\nend";

pub(crate) fn switch() -> Script {
    let mut script = Script::eos("sw1", CANARY)
        .answer("show version | json", VERSION_JSON)
        .answer("show queue-monitor length status | json", LANZ_JSON)
        .answer("show startup-config", STARTUP)
        .answer("show interfaces counters errors | json", ERRORS_JSON)
        .answer("show ntp status", NTP_STATUS)
        .answer("show ntp associations | json", NTP_ASSOCIATIONS)
        .answer("show running-config diffs", "")
        .answer("show running-config", RUNNING);
    script.privileged_only.push("show startup-config".into());
    script.privileged_only.push("show running-config".into());
    script
}

/// A site directory with one switch at `port`, the repository's EOS catalog, and a known_hosts.
pub(crate) fn site(dir: &Path, port: u16, known_hosts_line: &str) {
    let password = format!("{{ file: {} }}", dir.join("pw").display());
    site_with(dir, port, known_hosts_line, &password, "");
}

/// [`site`] with the switch's `password:` reference and more `ssh:` lines.
fn site_with(dir: &Path, port: u16, known_hosts_line: &str, password: &str, more_ssh: &str) {
    std::fs::write(dir.join("pw"), CANARY).unwrap();
    let baseline = format!("{more_ssh}{BASIC_SWITCH}");
    switch_site(dir, port, known_hosts_line, password, 5, "", &baseline);
}

pub(crate) fn premarket(dir: &Path, args: &[&str]) -> (i32, String, String) {
    premarket_env(dir, args, &[])
}

pub(crate) fn premarket_env(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, String, String) {
    let out = Bin::cargo_bin("premarket")
        .unwrap()
        .timeout(std::time::Duration::from_secs(60))
        .arg("--dir")
        .arg(dir)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    for canary in [CANARY, ENABLE_CANARY] {
        assert!(
            !stdout.contains(canary) && !stderr.contains(canary),
            "a secret leaked:\n{stdout}\n{stderr}"
        );
    }
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// The statuses of a JSON report, as (check, status) pairs.
pub(crate) fn statuses(json: &str) -> Vec<(String, String)> {
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
    // Seven inspected checks and thirteen skipped by the baseline.
    assert_eq!(statuses(&over_ssh.1).len(), 20, "{}", over_ssh.1);
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

    // No key known yet: a script can tell (1), and the key is printed to be checked and pinned.
    assert_eq!(code, 1, "{stdout}{stderr}");
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

/// `trust` tells a script what it found by its exit code: 0 the offered key is the known one,
/// 3 it is not (HOST KEY CHANGED), as `trust --help` says.
#[tokio::test(flavor = "multi_thread")]
async fn trust_exits_3_when_the_offered_key_is_not_the_known_one() {
    let dev = Device::start(switch()).await;
    let other = Device::start(switch()).await;
    let dir = tempfile::tempdir().unwrap();
    // The other device's key, written for this device's address: a changed key.
    let changed = other
        .known_hosts_line()
        .replace(&format!("]:{} ", other.port), &format!("]:{} ", dev.port));
    assert_ne!(changed, dev.known_hosts_line());
    for (line, code, words) in [
        (changed.as_str(), 3, "HOST KEY CHANGED"),
        (dev.known_hosts_line().as_str(), 0, "already trusted"),
    ] {
        site(dir.path(), dev.port, line);
        let root = dir.path().to_path_buf();
        let (got, stdout, stderr) =
            tokio::task::spawn_blocking(move || premarket(&root, &["trust", "--device", "sw1"]))
                .await
                .unwrap();
        assert_eq!(got, code, "{line}:\n{stdout}{stderr}");
        assert!(stdout.contains(words), "{stdout}");
    }
    assert!(dev.received().is_empty(), "trust never logs in");

    let (code, help, _) = premarket(dir.path(), &["trust", "--help"]);
    assert_eq!(code, 0);
    for words in ["Exit codes:", "0 ", "1 ", "3 "] {
        assert!(help.contains(words), "{help}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_prints_every_line_the_switch_receives_in_order() {
    let mut script = switch();
    script.enable_password = Some(ENABLE_CANARY.into());
    let dev = Device::start(script).await;
    let dir = tempfile::tempdir().unwrap();
    let enable = dir.path().join("enable");
    std::fs::write(&enable, format!("{ENABLE_CANARY}\n")).unwrap();
    let password = format!("{{ file: {} }}", dir.path().join("pw").display());
    let more = format!("  enable_secret: {{ file: {} }}\n", enable.display());
    site_with(
        dir.path(),
        dev.port,
        &dev.known_hosts_line(),
        &password,
        &more,
    );
    let root = dir.path().to_path_buf();

    let (code, plan, stderr) = premarket(&root, &["plan"]);
    assert_eq!(code, 0, "{plan}{stderr}");
    let (code, report, _) =
        tokio::task::spawn_blocking(move || premarket(&root, &["run", "--format", "json"]))
            .await
            .unwrap();
    assert!(code <= 1, "{report}");

    let planned: Vec<String> = plan
        .lines()
        // `(keys: ...)` and `(model: ...)` describe the session; every other line is sent.
        .filter(|l| l.starts_with("  ") && !l.starts_with("  ("))
        .map(|l| l.split(" # ").next().unwrap_or_default().trim().to_string())
        .collect();
    let placeholder = format!("<enable secret from file:{}>", enable.display());
    let received: Vec<String> = dev
        .received()
        .into_iter()
        .map(|l| {
            if l == ENABLE_CANARY {
                placeholder.clone()
            } else {
                l
            }
        })
        .collect();
    assert_eq!(received, planned, "{plan}");
    assert_eq!(
        &received[..4],
        [
            "terminal length 0",
            "terminal width 511",
            "enable",
            placeholder.as_str()
        ]
    );
    assert!(plan.contains("(keys: \" \" at each `--More--`)"), "{plan}");
}

#[tokio::test(flavor = "multi_thread")]
async fn capture_applies_the_platform_redaction() {
    const HASH: &str = "$6$CAPTUREHASHdonotleak";
    let startup = format!(
        "! Command: show startup-config\nhostname sw1\nusername admin privilege 15 role network-admin secret sha512 {HASH}\nenable password sha512 {HASH}\nqueue-monitor length\nend"
    );
    let dev = Device::start(switch().answer("show startup-config", &startup)).await;
    let dir = tempfile::tempdir().unwrap();
    site(dir.path(), dev.port, &dev.known_hosts_line());
    let (root, out) = (dir.path().to_path_buf(), dir.path().join("capture"));

    let (code, stdout, stderr) = tokio::task::spawn_blocking({
        let out = out.clone();
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
    let saved = std::fs::read_to_string(out.join("sw1/show-startup-config.txt")).unwrap();
    assert!(!saved.contains("CAPTUREHASH"), "{saved}");
    assert!(
        saved.contains("role network-admin secret <redacted>"),
        "{saved}"
    );
    assert!(saved.contains("enable password <redacted>"), "{saved}");
    assert!(saved.contains("\nqueue-monitor length\n"), "{saved}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secret_with_a_line_break_is_refused_by_validate_and_run_naming_only_its_variable() {
    const VAR: &str = "PREMARKET_TEST_PW_WITH_CR";
    let dev = Device::start(switch()).await;
    let dir = tempfile::tempdir().unwrap();
    site_with(
        dir.path(),
        dev.port,
        &dev.known_hosts_line(),
        &format!("{{ env: {VAR} }}"),
        "",
    );
    let root = dir.path().to_path_buf();
    let hostile = format!("{CANARY}\rconfigure terminal");

    // Offline work needs no secret: without the variable, validate is content.
    let (code, stdout, stderr) = premarket(&root, &["validate"]);
    assert_eq!(code, 0, "{stdout}{stderr}");

    let (code, stdout, stderr) = premarket_env(&root, &["validate"], &[(VAR, &hostile)]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    let at = format!(
        "{}:6:3: device sw1: ssh.password",
        root.join("baselines/sw1.yaml").display()
    );
    assert!(stderr.contains(&at), "{stderr}");
    assert!(
        stderr.contains(&format!("secret env:{VAR} holds a line break")),
        "{stderr}"
    );
    assert!(!stderr.contains("configure"), "{stderr}");

    let (code, report, stderr) = tokio::task::spawn_blocking(move || {
        premarket_env(&root, &["run", "--format", "json"], &[(VAR, &hostile)])
    })
    .await
    .unwrap();
    assert_eq!(code, 2, "{report}{stderr}");
    assert!(
        report.contains(&format!(
            "password (env:{VAR}): secret env:{VAR} holds a line break"
        )),
        "{report}"
    );
    assert!(dev.received().is_empty(), "{:?}", dev.received());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secret_shorter_than_8_characters_is_refused_by_validate_and_run_naming_only_its_variable()
 {
    const VAR: &str = "PREMARKET_TEST_PW_SHORT";
    const SHORT: &str = "Q7z-pw";
    let dev = Device::start(switch()).await;
    let dir = tempfile::tempdir().unwrap();
    site_with(
        dir.path(),
        dev.port,
        &dev.known_hosts_line(),
        &format!("{{ env: {VAR} }}"),
        "",
    );
    let root = dir.path().to_path_buf();

    let (code, stdout, stderr) = premarket_env(&root, &["validate"], &[(VAR, SHORT)]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    let at = format!(
        "{}:6:3: device sw1: ssh.password",
        root.join("baselines/sw1.yaml").display()
    );
    assert!(stderr.contains(&at), "{stderr}");
    assert!(
        stderr.contains(&format!("secret env:{VAR} is shorter than 8 characters")),
        "{stderr}"
    );
    assert!(!stderr.contains(SHORT), "{stderr}");

    let (code, report, stderr) = tokio::task::spawn_blocking(move || {
        premarket_env(&root, &["run", "--format", "json"], &[(VAR, SHORT)])
    })
    .await
    .unwrap();
    assert_eq!(code, 2, "{report}{stderr}");
    assert!(
        report.contains(&format!(
            "password (env:{VAR}): secret env:{VAR} is shorter than 8 characters"
        )),
        "{report}"
    );
    assert!(
        !report.contains(SHORT) && !stderr.contains(SHORT),
        "{report}{stderr}"
    );
    assert!(dev.received().is_empty(), "{:?}", dev.received());
}

#[test]
fn validate_and_plan_refuse_a_vdom_the_guard_would_refuse() {
    let site = common::Site::example();
    let fw1 = site.read("baselines/fw1.yaml");
    site.write(
        "baselines/fw1.yaml",
        &fw1.replace(
            "  user: premarket\n",
            "  user: premarket\n  vdom: \"root; execute reboot\"\n",
        ),
    );
    let (code, stdout, stderr) = premarket(site.path(), &["validate"]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    let at = format!(
        "{}:7:3: device fw1: ssh.vdom:",
        site.path().join("baselines/fw1.yaml").display()
    );
    assert!(
        stderr.contains(&at) && stderr.contains("was not sent: not a VDOM name"),
        "{stderr}"
    );

    let (code, stdout, stderr) = premarket(site.path(), &["plan", "--device", "fw1"]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(
        stdout.contains("  ERROR: `root; execute reboot` was not sent"),
        "{stdout}"
    );

    site.write(
        "baselines/fw1.yaml",
        &fw1.replace(
            "  user: premarket\n",
            "  user: premarket\n  vdom: trading\n",
        ),
    );
    let (code, stdout, stderr) = premarket(site.path(), &["validate"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, plan, _) = premarket(site.path(), &["plan", "--device", "fw1"]);
    assert_eq!(code, 0, "{plan}");
    let lines: Vec<&str> = plan
        .lines()
        .map(|l| l.split(" # ").next().unwrap_or_default().trim())
        .collect();
    let at = |line: &str| {
        lines
            .iter()
            .position(|l| *l == line)
            .unwrap_or_else(|| panic!("{line} missing: {plan}"))
    };
    assert!(at("get system status") < at("config global"));
    assert!(at("config global") < at("diagnose sys vd list"));
    assert!(at("diagnose sys vd list") < at("get system ha status"));
    assert!(at("get system ha status") < at("config vdom"));
    assert!(at("config vdom") < at("edit trading"));
    assert!(at("edit trading") < at("diagnose sys session list"));
    // `end`, then Enter alone, whose reply proves the prompt that ended `end`.
    assert_eq!(
        lines[lines.len().saturating_sub(2)..],
        ["end", ""],
        "{plan}"
    );
    assert!(plan.trim_end().ends_with("(out of step)"), "{plan}");
    assert!(plan.contains("only if the listing shows trading"), "{plan}");
}

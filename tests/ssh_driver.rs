//! The SSH client against a scripted device over real SSH on loopback: login, host keys,
//! `enable`, pager, VDOMs, context groups, device errors, timeouts, frozen and deaf devices,
//! the read-only guard and secrets. Every case uses short timeouts; none can hang.

use crate::ssh_common;

use std::time::{Duration, Instant};

use premarket::Command;
use premarket::core::CollectError;
use premarket::core::Platform;
use premarket::ssh::{self, Captured};
#[allow(unused_imports)]
use ssh_common::collect;
use ssh_common::device::{Device, Kind, Script};
use ssh_common::*;

const SHORT: Duration = Duration::from_secs(3);

fn output(results: &[(Command, Result<Captured, CollectError>)], i: usize) -> &str {
    match &results[i].1 {
        Ok(c) => c.output.text().expect("a small output is held in memory"),
        Err(e) => panic!("{} failed: {e}", results[i].0),
    }
}

fn error(results: &[(Command, Result<Captured, CollectError>)], i: usize) -> String {
    match &results[i].1 {
        Ok(c) => panic!("{} should fail, got {:?}", results[i].0, c.output),
        Err(e) => e.to_string(),
    }
}

/// Command `i` failed, and its reason contains `needle`.
fn assert_fails_with(
    results: &[(Command, Result<Captured, CollectError>)],
    i: usize,
    needle: &str,
) {
    let reason = error(results, i);
    assert!(
        reason.contains(needle),
        "{}: {reason:?} lacks {needle:?}",
        results[i].0
    );
}

/// Everything a run produced, as one string, to prove a secret is absent.
fn everything(results: &[(Command, Result<Captured, CollectError>)]) -> String {
    results
        .iter()
        .map(|(c, r)| match r {
            Ok(o) => format!("{c}\n{}\n{}", o.prompt, o.output.head()),
            Err(e) => format!("{c}\n{e}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A scripted device, and the client-side device and settings that trust it.
async fn rig(
    script: Script,
) -> (
    Device,
    tempfile::TempDir,
    premarket::config::Device,
    ssh::Settings,
) {
    let (name, platform) = match script.kind {
        Kind::Eos => ("sw1", Platform::Eos),
        Kind::Fortigate => ("fw1", Platform::Fortigate),
    };
    let dir = tempfile::tempdir().unwrap();
    let dev = Device::start(script).await;
    let conn = connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY)));
    let settings = settings(
        Some(known_hosts(dir.path(), &dev.known_hosts_line())),
        SHORT,
    );
    (dev, dir, device(name, platform, conn), settings)
}

#[tokio::test]
async fn eos_enable_with_password_then_privileged_commands_through_the_pager() {
    let mut script = Script::eos("sw1", CANARY)
        .answer(
            "show version",
            "Arista DCS-7280SR3-48YC8\nSoftware image version: 4.31.6M",
        )
        .answer(
            "show running-config",
            &(1..=12)
                .map(|i| format!("line {i}"))
                .collect::<Vec<_>>()
                .join("\n"),
        );
    script.enable_password = Some(ENABLE_CANARY.into());
    script.page_lines = Some(5);
    script.pager_sticky = true;
    let (dev, dir, mut device, settings) = rig(script).await;
    device.ssh_mut().expect("an SSH device").enable_secret =
        Some(secret_file(dir.path(), "enable", ENABLE_CANARY));

    let results = collect(
        &device,
        &commands(&["show version", "show running-config"]),
        &settings,
    )
    .await;

    assert_eq!(
        output(&results, 0),
        "Arista DCS-7280SR3-48YC8\nSoftware image version: 4.31.6M"
    );
    let expected: Vec<String> = (1..=12).map(|i| format!("line {i}")).collect();
    assert_eq!(output(&results, 1), expected.join("\n"));
    assert_eq!(results[1].1.as_ref().unwrap().prompt, "sw1#");
    let received = dev.received();
    assert_eq!(
        &received[..3],
        ["terminal length 0", "terminal width 511", "enable"]
    );
    assert!(
        !everything(&results).contains(ENABLE_CANARY) && !everything(&results).contains(CANARY)
    );
}

#[tokio::test]
async fn eos_enable_secret_echoed_by_the_device_is_redacted() {
    let mut script = Script::eos("sw1", CANARY)
        .answer("show version", &format!("banner {ENABLE_CANARY} {CANARY}"));
    script.enable_password = Some(ENABLE_CANARY.into());
    script.echo_password = true;
    let (_dev, dir, mut device, settings) = rig(script).await;
    device.ssh_mut().expect("an SSH device").enable_secret =
        Some(secret_file(dir.path(), "enable", ENABLE_CANARY));

    let results = collect(&device, &commands(&["show version"]), &settings).await;

    // Judged as printed; masked on the way out.
    assert_eq!(
        output(&results, 0),
        format!("banner {ENABLE_CANARY} {CANARY}")
    );
    assert_eq!(leaves(output(&results, 0)), "banner ******** ********");
    assert!(!leaves(&everything(&results)).contains("CANARY"));
}

#[tokio::test]
async fn eos_wrong_or_missing_enable_secret_and_authorization_are_clear_errors() {
    // Wrong secret.
    let mut script = Script::eos("sw1", CANARY).answer("show version", "x");
    script.enable_password = Some("the-right-one".into());
    let (_dev, dir, mut device, settings) = rig(script.clone()).await;
    device.ssh_mut().expect("an SSH device").enable_secret =
        Some(secret_file(dir.path(), "enable", ENABLE_CANARY));
    let results = collect(
        &device,
        &commands(&["show version", "show running-config"]),
        &settings,
    )
    .await;
    let e = error(&results, 0);
    assert!(
        e.contains("enable secret") && e.contains("is wrong") && !e.contains(ENABLE_CANARY),
        "{e}"
    );
    assert_eq!(error(&results, 1), e, "every command gets the same reason");

    // No secret configured although the switch asks for one.
    let (_dev, _dir, device, settings) = rig(script).await;
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    assert_fails_with(&results, 0, "no ssh.enable_secret");

    // AAA refuses `enable`.
    let mut script = Script::eos("sw1", CANARY);
    script.enable_denied = true;
    let (_dev, _dir, device, settings) = rig(script).await;
    let results = collect(&device, &commands(&["show running-config"]), &settings).await;
    assert_fails_with(&results, 0, "% Authorization denied");

    // A command that still says privileged mode is required.
    let script = Script::eos("sw1", CANARY)
        .answer(
            "show running-config diffs",
            "% Invalid input (privileged mode required)",
        )
        .answer("show version", "ok");
    let (_dev, _dir, device, settings) = rig(script).await;
    let results = collect(
        &device,
        &commands(&["show running-config diffs", "show version"]),
        &settings,
    )
    .await;
    let e = error(&results, 0);
    assert!(
        e.contains("privileged mode required") && e.contains("enable_secret"),
        "{e}"
    );
    assert_eq!(
        output(&results, 1),
        "ok",
        "a device error fails only its command"
    );
}

#[tokio::test]
async fn refused_commands_are_never_sent() {
    let script = Script::eos("sw1", CANARY).answer("show version", "ok");
    let (dev, _dir, device, settings) = rig(script).await;
    let lines = [
        "configure",
        "show version",
        "write memory",
        "copy running-config startup-config",
        "reload",
        "show running-config | write flash:x",
        "show running-config > flash:x",
        "show version\nreload",
    ];
    let results = collect(&device, &commands(&lines), &settings).await;
    for (i, line) in lines.iter().enumerate() {
        if *line == "show version" {
            assert_eq!(output(&results, i), "ok");
        } else {
            assert!(
                matches!(results[i].1, Err(CollectError::Refused(_))),
                "{line:?}: {:?}",
                results[i].1
            );
        }
    }
    let received = dev.received();
    for line in lines.iter().filter(|l| **l != "show version") {
        for part in line.split('\n') {
            if part != "show version" {
                assert!(
                    !received.iter().any(|r| r == part),
                    "{part:?} reached the device: {received:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn fortigate_vdom_banner_pager_and_context_groups() {
    let mut status: Vec<String> = vec![
        "Version: FortiGate-201G v7.6.7,build3651,250606 (GA.M)".into(),
        "Virtual domain configuration: multiple".into(),
    ];
    status.extend((3..=9).map(|i| format!("Field {i}: value {i}")));
    let mut script = Script::fortigate("FGT-TEST", CANARY)
        .answer("get system status", &status.join("\n"))
        .answer("diagnose sys session filter clear", "")
        .answer("diagnose sys session filter dport 5000", "")
        .answer(
            "diagnose sys session filter",
            "session filter:\n        dport: 5000-5000",
        )
        .answer(
            "diagnose sys session list",
            "session info: proto=17\ntotal session 1",
        );
    script.vdoms = vec!["root".into()];
    script.banner = true;
    script.page_lines = Some(4);
    let (dev, _dir, mut device, settings) = rig(script).await;
    device.ssh_mut().expect("an SSH device").vdom = Some("root".into());
    let context = vec![
        "diagnose sys session filter clear".to_string(),
        "diagnose sys session filter dport 5000".to_string(),
    ];
    let plan = vec![
        Command::in_context(context.clone(), "diagnose sys session filter"),
        Command::in_context(context, "diagnose sys session list"),
        Command::new("get system status"),
    ];

    let results = collect(&device, &plan, &settings).await;

    assert!(output(&results, 0).contains("dport: 5000-5000"));
    assert_eq!(
        output(&results, 1).trim(),
        "session info: proto=17\ntotal session 1"
    );
    assert_eq!(output(&results, 2), status.join("\n"));
    assert_eq!(results[2].1.as_ref().unwrap().prompt, "FGT-TEST # ");
    assert_eq!(results[1].1.as_ref().unwrap().prompt, "FGT-TEST (root) # ");
    assert_eq!(
        dev.received(),
        [
            "get system status",
            "config global",
            "diagnose sys vd list",
            "end",
            "config vdom",
            "edit root",
            "diagnose sys session filter clear",
            "diagnose sys session filter dport 5000",
            "diagnose sys session filter",
            "diagnose sys session list",
            "diagnose sys session filter clear",
            "end",
            // Enter alone: the reply proves `end`'s prompt was the real one.
            "",
        ]
    );
}

#[tokio::test]
async fn fortigate_errors_and_a_vdom_on_a_box_without_vdoms() {
    let script = Script::fortigate("FGT-TEST", CANARY)
        .answer("get system global", "Command fail. Return code -61")
        .answer("show firewall policy 7", "command parse error before '7'")
        .answer("get system status", "Version: FortiGate-201G v7.6.7");
    let (_dev, _dir, device, settings) = rig(script.clone()).await;
    let plan = commands(&[
        "get system global",
        "get system ha status",
        "show firewall policy 7",
        "get system status",
    ]);
    let results = collect(&device, &plan, &settings).await;
    assert_fails_with(&results, 0, "Command fail");
    assert_fails_with(&results, 1, "Unknown action");
    assert_fails_with(&results, 2, "command parse error");
    assert_eq!(output(&results, 3), "Version: FortiGate-201G v7.6.7");

    // VDOMs are disabled on this box: a configured VDOM is an ERROR that says so, and nothing
    // but the read-only mode check is sent (FortiOS would answer `config vdom` with an error,
    // but premarket does not even try).
    let mut script = script;
    script.answers.remove("get system status");
    let (dev, _dir, mut device, settings) = rig(script).await;
    device.ssh_mut().expect("an SSH device").vdom = Some("trading".into());
    let results = collect(
        &device,
        &commands(&["get system ha status", "get system status"]),
        &settings,
    )
    .await;
    assert_fails_with(
        &results,
        0,
        "ssh.vdom is trading, but VDOMs are disabled on this box",
    );
    assert!(output(&results, 1).contains("Virtual domain configuration: disable"));
    assert_eq!(dev.received(), ["get system status"]);
}

#[tokio::test]
async fn an_unknown_vdom_is_never_edited_and_the_error_names_the_vdoms_that_exist() {
    let mut script = Script::fortigate("FGT-TEST", CANARY)
        .answer("get system ha status", "Mode: a-p")
        .answer("diagnose sys session stat", "misc info: session_count=3");
    script.vdoms = vec!["root".into(), "trading".into()];
    let (dev, _dir, mut device, settings) = rig(script).await;
    device.ssh_mut().expect("an SSH device").vdom = Some("tradnig".into());
    let results = collect(
        &device,
        &commands(&["diagnose sys session stat", "get system ha status"]),
        &settings,
    )
    .await;
    assert_fails_with(
        &results,
        0,
        "VDOM tradnig does not exist on this box; its VDOMs are: root, trading",
    );
    assert_eq!(
        output(&results, 1),
        "Mode: a-p",
        "the global part still ran"
    );
    let received = dev.received();
    assert_eq!(
        received,
        [
            "get system status",
            "config global",
            "diagnose sys vd list",
            "get system ha status",
            "end",
        ]
    );
    assert!(dev.created.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_vdom_is_entered_only_after_the_listing_showed_it() {
    let mut script = Script::fortigate("FGT-TEST", CANARY)
        .answer("get system ha status", "Mode: a-p")
        .answer("diagnose sys session stat", "misc info: session_count=3");
    script.vdoms = vec!["root".into(), "trading".into()];
    let (dev, _dir, mut device, settings) = rig(script).await;
    device.ssh_mut().expect("an SSH device").vdom = Some("trading".into());
    let results = collect(
        &device,
        &commands(&["diagnose sys session stat", "get system ha status"]),
        &settings,
    )
    .await;
    assert_eq!(output(&results, 0), "misc info: session_count=3");
    assert_eq!(
        results[0].1.as_ref().unwrap().prompt,
        "FGT-TEST (trading) # "
    );
    assert_eq!(
        results[1].1.as_ref().unwrap().prompt,
        "FGT-TEST (global) # "
    );
    let received = dev.received();
    let listed = received.iter().position(|l| l == "diagnose sys vd list");
    let edit = received.iter().position(|l| l == "edit trading");
    assert!(listed.is_some() && listed < edit, "{received:?}");
    assert_eq!(
        received[received.len().saturating_sub(2)..],
        ["end".to_string(), String::new()]
    );
    assert!(dev.created.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_hung_command_times_out_and_the_rest_are_not_run() {
    let mut script = Script::eos("sw1", CANARY).answer("show version", "ok");
    script.hang_on = Some("show startup-config".into());
    let (_dev, dir, device, _) = rig(script).await;
    let kh = dir.path().join("known_hosts");
    let settings = settings(Some(kh), Duration::from_secs(1));
    let started = Instant::now();
    let results = collect(
        &device,
        &commands(&["show version", "show startup-config", "show running-config"]),
        &settings,
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(output(&results, 0), "ok");
    assert_fails_with(&results, 1, "the device is not answering for 1 s");
    assert_fails_with(
        &results,
        2,
        "not run: `show startup-config`: the device is not answering",
    );
}

#[tokio::test]
async fn a_hung_firewall_in_a_vdom_is_abandoned_without_leaving_steps() {
    let mut script = Script::fortigate("FGT-TEST", CANARY);
    script.vdoms = vec!["root".into()];
    script.hang_on = Some("get system ha status".into());
    let (dev, _dir, mut device, settings) = rig(script).await;
    device.ssh_mut().expect("an SSH device").vdom = Some("root".into());
    let settings = ssh::Settings {
        command_timeout: Duration::from_secs(1),
        ..settings
    };
    let started = Instant::now();
    let results = collect(
        &device,
        &commands(&["get system status", "get system ha status"]),
        &settings,
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_millis(1900),
        "took {:?}",
        started.elapsed()
    );
    assert!(output(&results, 0).contains("Virtual domain configuration: multiple"));
    assert_fails_with(&results, 1, "not answering for 1 s");
    assert_eq!(
        dev.received().last().map(String::as_str),
        Some("get system ha status"),
        "nothing after the hang"
    );
}

#[tokio::test]
async fn a_stray_prompt_does_not_shift_outputs_to_the_wrong_command() {
    let mut script = Script::eos("sw1", CANARY)
        .answer("show version", "version output")
        .answer("show startup-config", "startup output");
    script.stray_prompt = true;
    script.delay = Duration::from_millis(100);
    let (_dev, _dir, device, settings) = rig(script).await;
    let results = collect(
        &device,
        &commands(&["show version", "show startup-config"]),
        &settings,
    )
    .await;
    assert_eq!(output(&results, 0), "version output");
    assert_eq!(output(&results, 1), "startup output");
}

#[tokio::test]
async fn an_unrecognised_prompt_says_what_was_seen() {
    let (_dev, _dir, mut device, settings) = rig(Script::eos("sw1", CANARY)).await;
    device.platform = Platform::Fortigate;
    let settings = ssh::Settings {
        command_timeout: Duration::from_secs(1),
        ..settings
    };
    let results = collect(&device, &commands(&["get system status"]), &settings).await;
    assert_fails_with(
        &results,
        0,
        "no fortigate prompt recognised within 1 s after login (last line seen: \"sw1>\")",
    );
}

#[tokio::test]
async fn a_slow_device_still_answers_within_the_timeout() {
    let mut script = Script::eos("sw1", CANARY).answer("show version", "ok");
    script.delay = Duration::from_millis(200);
    let (_dev, _dir, device, settings) = rig(script).await;
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    assert_eq!(output(&results, 0), "ok");
}

#[tokio::test]
async fn host_keys_unknown_changed_and_pinned() {
    let script = Script::eos("sw1", CANARY).answer("show version", "ok");
    let dev = Device::start(script).await;
    let dir = tempfile::tempdir().unwrap();
    let device = device(
        "sw1",
        Platform::Eos,
        connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY))),
    );
    let fingerprint = ssh::hostkey::fingerprint(&dev.host_key);
    let cmds = commands(&["show version"]);

    // Unknown: no known_hosts entry, no pin.
    let results = collect(&device, &cmds, &settings(None, SHORT)).await;
    let e = error(&results, 0);
    assert!(
        e.starts_with("unknown host key for sw1")
            && e.contains(&fingerprint)
            && e.contains("host_key"),
        "{e}"
    );
    assert!(
        dev.received().is_empty(),
        "nothing may be sent to an unverified device"
    );

    // Changed: known_hosts holds another key for the same host and port.
    let other = Device::start(Script::eos("sw9", "x")).await;
    let forged = ssh::hostkey::known_hosts_line("127.0.0.1", dev.port, &other.host_key);
    let kh = known_hosts(dir.path(), &forged);
    let results = collect(&device, &cmds, &settings(Some(kh), SHORT)).await;
    let e = error(&results, 0);
    assert!(
        e.starts_with("HOST KEY CHANGED for sw1") && e.contains(&fingerprint),
        "{e}"
    );

    // Pinned fingerprint: trusted without known_hosts; a wrong pin is a changed key.
    let mut pinned = device.clone();
    pinned.ssh_mut().expect("an SSH device").host_key = Some(fingerprint.clone());
    let results = collect(&pinned, &cmds, &settings(None, SHORT)).await;
    assert_eq!(output(&results, 0), "ok");
    pinned.ssh_mut().expect("an SSH device").host_key =
        Some(ssh::hostkey::fingerprint(&other.host_key));
    let results = collect(&pinned, &cmds, &settings(None, SHORT)).await;
    assert_fails_with(&results, 0, "HOST KEY CHANGED");
}

#[tokio::test]
async fn login_falls_back_to_keyboard_interactive_and_wrong_passwords_do_not_leak() {
    let mut script = Script::eos("sw1", CANARY).answer("show version", "ok");
    script.keyboard_interactive_only = true;
    let (_dev, _dir, device, settings) = rig(script).await;
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    assert_eq!(output(&results, 0), "ok");

    let script = Script::eos("sw1", "another-password").answer("show version", "ok");
    let (_dev, _dir, device, settings) = rig(script).await;
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    let e = error(&results, 0);
    assert!(
        e.starts_with("authentication failed") && e.contains("password") && !e.contains(CANARY),
        "{e}"
    );

    let (_dev, _dir, mut device, settings) = rig(Script::eos("sw1", CANARY)).await;
    device.ssh_mut().expect("an SSH device").password = Some(premarket::config::SecretRef::Env(
        "PREMARKET_TEST_UNSET_VARIABLE".into(),
    ));
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    assert_fails_with(&results, 0, "PREMARKET_TEST_UNSET_VARIABLE is not set");
}

#[tokio::test]
async fn legacy_algorithms_only_when_the_baseline_allows_them() {
    let mut script = Script::eos("sw1", CANARY).answer("show version", "ok");
    script.legacy_only = true;
    let (_dev, _dir, mut device, settings) = rig(script).await;
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    let e = error(&results, 0);
    assert!(
        e.starts_with("cannot connect") && e.contains("legacy_algorithms: true"),
        "{e}"
    );

    device.ssh_mut().expect("an SSH device").legacy_algorithms = true;
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    assert_eq!(output(&results, 0), "ok");
}

#[tokio::test]
async fn a_failing_device_does_not_affect_another() {
    use premarket::collect::Collector;
    use premarket::plan::DevicePlan;
    use std::sync::Arc;

    let good = Script::eos("sw1", CANARY).answer("show version", "ok");
    let (_good_dev, _d1, good_device, settings) = rig(good).await;
    let mut bad = Script::eos("sw2", CANARY).answer("show version", "ok");
    bad.hang_on = Some("show version".into());
    let (_bad_dev, _d2, mut bad_device, _) = rig(bad).await;
    bad_device.name = premarket::core::DeviceName::new("sw2").expect("name");
    let mut known = std::fs::read_to_string(settings.known_hosts.as_ref().unwrap()).unwrap();
    known.push_str(&_bad_dev.known_hosts_line());
    known.push('\n');
    std::fs::write(settings.known_hosts.as_ref().unwrap(), known).unwrap();
    let settings = ssh::Settings {
        command_timeout: Duration::from_secs(1),
        ..settings
    };
    let collector = premarket::collect::ssh::Ssh::new(settings);
    let plan = |d: premarket::config::Device| DevicePlan {
        device: Arc::new(d),
        checks: Vec::new(),
        queries: Vec::new(),
        commands: commands(&["show version"]),
        previous: Default::default(),
        box_facts: Default::default(),
        model: None,
    };
    let (p1, p2) = (plan(good_device), plan(bad_device));
    let (a, b) = tokio::join!(collector.collect(&p1), collector.collect(&p2));
    assert_eq!(a.results[0].1.as_ref().map(|o| o.head()), Ok("ok"));
    let e = b.results[0].1.as_ref().unwrap_err().to_string();
    assert!(e.contains("not answering for 1 s"), "{e}");
}

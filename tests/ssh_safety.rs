//! Issue 9's classes over real SSH on loopback against the scripted device: a hostile enable
//! secret file never types its later lines, a device that floods `--More--` and stops reading
//! cannot hold the run, a frozen device is "not answering for N s", a secret echoed over two
//! lines is still redacted, and what `plan` shows for a VDOM session is what the device
//! receives. Every case is bounded; none can hang.

use crate::ssh_common;

use std::time::{Duration, Instant};

use premarket::core::Platform;
use premarket::platform::fortigate;
use premarket::ssh::script::Script;
use ssh_common::device::{Device, Script as Scripted};
use ssh_common::*;

const SHORT: Duration = Duration::from_secs(3);

async fn switch(script: Scripted) -> (Device, tempfile::TempDir, premarket::config::Device) {
    let dir = tempfile::tempdir().unwrap();
    let dev = Device::start(script).await;
    known_hosts(dir.path(), &dev.known_hosts_line());
    let conn = connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY)));
    (dev, dir, device("sw1", Platform::Eos, conn))
}

fn kh(dir: &tempfile::TempDir) -> Option<std::path::PathBuf> {
    Some(dir.path().join("known_hosts"))
}

fn errors(results: &[Outcome]) -> Vec<String> {
    results
        .iter()
        .map(|(c, r)| match r {
            Ok(o) => panic!("{c} should fail, got {:?}", o.output),
            Err(e) => e.to_string(),
        })
        .collect()
}

#[tokio::test]
async fn a_hostile_enable_secret_file_never_types_its_later_lines() {
    let mut script = Scripted::eos("sw1", CANARY).answer("show version", "ok");
    script.enable_password = Some(ENABLE_CANARY.into());
    let (dev, dir, mut device) = switch(script).await;
    let hostile =
        format!("{ENABLE_CANARY}\nconfigure terminal\nusername backdoor secret x\nwrite memory");
    let secret = secret_file(dir.path(), "enable", &hostile);
    let path = dir.path().join("enable").display().to_string();
    device.ssh_mut().expect("ssh").enable_secret = Some(secret);

    let results = collect(
        &device,
        &commands(&["show version", "show running-config"]),
        &settings(kh(&dir), SHORT),
    )
    .await;

    for e in errors(&results) {
        assert!(
            e.contains("enable secret") && e.contains(&path) && e.contains("line break"),
            "{e}"
        );
        assert!(!e.contains("CANARY") && !e.contains("configure"), "{e}");
    }
    let received = dev.received();
    for line in [
        "configure terminal",
        "username backdoor secret x",
        "write memory",
        ENABLE_CANARY,
    ] {
        assert!(
            !received.iter().any(|r| r == line),
            "{line:?} reached the switch: {received:?}"
        );
    }
}

#[tokio::test]
async fn a_secret_echoed_over_two_lines_is_still_redacted() {
    let (head, tail) = ENABLE_CANARY.split_at(11);
    let mut script = Scripted::eos("sw1", CANARY).answer(
        "show version",
        &format!("motd {head}\n{tail} end\n{CANARY}"),
    );
    script.enable_password = Some(ENABLE_CANARY.into());
    script.echo_password_split = true;
    let (_dev, dir, mut device) = switch(script).await;
    device.ssh_mut().expect("ssh").enable_secret =
        Some(secret_file(dir.path(), "enable", ENABLE_CANARY));

    let results = collect(
        &device,
        &commands(&["show version"]),
        &settings(kh(&dir), SHORT),
    )
    .await;

    // Judged as printed; masked on the way out.
    let output = results[0].1.as_ref().expect("show version").output.head();
    assert_eq!(output, format!("motd {head}\n{tail} end\n{CANARY}"));
    let left = leaves(output);
    assert_eq!(left, "motd ********\n end\n********");
    assert!(!left.contains(head) && !left.contains(tail), "{left}");
}

#[tokio::test]
async fn a_frozen_device_is_not_answering_not_closed() {
    let mut script = Scripted::eos("sw1", CANARY).answer("show version", "ok");
    script.start_privileged = true;
    script.freeze_on = Some("show interfaces".into());
    let (dev, dir, device) = switch(script).await;
    let settings = premarket::ssh::Settings {
        keepalive: Duration::from_secs(1),
        ..settings(kh(&dir), Duration::from_secs(30))
    };

    let started = Instant::now();
    let results = collect(
        &device,
        &commands(&["show version", "show interfaces", "show running-config"]),
        &settings,
    )
    .await;

    let took = started.elapsed();
    assert!(took < Duration::from_secs(12), "took {took:?}");
    assert_eq!(
        results[0].1.as_ref().expect("before the freeze").output,
        "ok"
    );
    let e = results[1].1.as_ref().unwrap_err().to_string();
    assert!(
        e.contains("`show interfaces`: the device is not answering for") && !e.contains("closed"),
        "{e}"
    );
    let silent: u64 = e
        .split("not answering for ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a number of seconds");
    assert!(
        (3..=took.as_secs() + 1).contains(&silent),
        "{e} after {took:?}"
    );
    assert!(
        results[2]
            .1
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("not run")
    );
    assert_eq!(
        dev.received().last().map(String::as_str),
        Some("show interfaces")
    );
}

#[tokio::test]
async fn a_device_that_floods_the_pager_and_stops_reading_cannot_hold_the_run() {
    let mut script = Scripted::eos("sw1", CANARY).answer("show version", "ok");
    script.start_privileged = true;
    script.flood_on = Some("show logging".into());
    let (_dev, dir, device) = switch(script).await;
    let settings = settings(kh(&dir), SHORT);

    let started = Instant::now();
    let results = collect(
        &device,
        &commands(&["show version", "show logging", "show running-config"]),
        &settings,
    )
    .await;

    let took = started.elapsed();
    assert!(took < SHORT + Duration::from_secs(5), "took {took:?}");
    assert_eq!(
        results[0].1.as_ref().expect("before the flood").output,
        "ok"
    );
    let e = results[1].1.as_ref().unwrap_err().to_string();
    assert!(e.contains("the device stopped reading"), "{e}");
    assert!(
        results[2]
            .1
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("not run")
    );
}

#[tokio::test]
async fn what_plan_shows_for_a_vdom_session_is_what_the_device_receives() {
    let mut script = Scripted::fortigate("FGT-TEST", CANARY)
        .answer("get system ha status", "Mode: a-p")
        .answer("get system performance status", "CPU states: 1% user")
        .answer("diagnose sys session filter clear", "")
        .answer("diagnose sys session filter proto 17", "")
        .answer(
            "diagnose sys session filter",
            "session filter:\n        proto: 17",
        )
        .answer("diagnose sys session list", "total session 0");
    script.vdoms = vec!["root".into(), "trading".into()];
    let dir = tempfile::tempdir().unwrap();
    let dev = Device::start(script).await;
    known_hosts(dir.path(), &dev.known_hosts_line());
    let mut conn = connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY)));
    conn.vdom = Some("trading".into());
    let device = device("fw1", Platform::Fortigate, conn);
    let filter = vec![
        "diagnose sys session filter clear".to_string(),
        "diagnose sys session filter proto 17".to_string(),
    ];
    let plan = vec![
        premarket::Command::new("get system performance status"),
        premarket::Command::in_context(filter.clone(), "diagnose sys session filter"),
        premarket::Command::in_context(filter, "diagnose sys session list"),
        premarket::Command::new("get system status"),
        premarket::Command::new("get system ha status"),
    ];

    let results = collect(&device, &plan, &settings(kh(&dir), SHORT)).await;

    assert!(results.iter().all(|(_, r)| r.is_ok()), "{results:?}");
    let profile = &fortigate::cli::PROFILE;
    let shown: Vec<String> = Script::new(profile, &plan, Some("trading"))
        .unwrap()
        .shown(profile, None)
        .into_iter()
        .map(|s| s.text)
        .collect();
    assert_eq!(dev.received(), shown);
}

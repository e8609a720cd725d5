//! Load figure for the lab (a benchmark, not a timed assertion): N devices, one PTY session
//! per device at once, each running the commands an inspection sends. Ignored by default:
//! `PREMARKET_LAB_DEVICES=200 cargo test --release --test integration lab_load:: -- --ignored --nocapture`.

use crate::lab_support;

use std::time::{Duration, Instant};

use lab_support::*;
use premarket::lab::{Lab, LabDevice};

const FORTIGATE: &[&str] = &[
    "get system status | grep .",
    "get system performance status | grep .",
    "get system ha status | grep .",
    "diagnose sys session filter clear",
    "diagnose sys session filter dst 10.20.1.20",
    "diagnose sys session filter dport 5000",
    "diagnose sys session filter",
    "diagnose sys session list | grep .",
    "diagnose sys session filter clear",
    "diagnose sys session stat | grep .",
    "diagnose sys mcast-session list | grep .",
    "show firewall policy | grep .",
];

const EOS: &[&str] = &[
    "terminal length 0",
    "show version | json",
    "show queue-monitor length status | json",
    "show startup-config",
    "show running-config",
    "show running-config diffs",
];

/// One device's whole inspection; returns the bytes read.
async fn inspect(lab: &Lab, device: &LabDevice) -> usize {
    let handle = connect(lab, &device.name).await.expect("connect");
    let fortigate = device.name.starts_with("fw");
    let prompt = format!(
        r"(^|\r\n){}( \([\w-]+\))?( # |[>#])$",
        regex::escape(&device.name)
    );
    let mut t = Term::open(&handle, 24, &prompt).await;
    let mut bytes = 0;
    if !fortigate {
        t.send("enable").await;
        t.until_prompt_or_password().await;
        t.cmd(
            device
                .enable_secret
                .as_deref()
                .expect("a switch's enable secret"),
        )
        .await;
    }
    for cmd in if fortigate { FORTIGATE } else { EOS } {
        bytes += t.cmd(cmd).await.len();
    }
    bytes
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark; run with --ignored --nocapture"]
async fn many_devices_at_once() {
    let n: usize = std::env::var("PREMARKET_LAB_DEVICES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let started = Instant::now();
    let lab = std::sync::Arc::new(Lab::start(&[], n).await.expect("lab"));
    println!("started {n} devices in {:?}", started.elapsed());

    let one = Instant::now();
    let bytes =
        inspect(&lab, &lab.devices[0]).await + inspect(&lab, lab.device("sw1").unwrap()).await;
    let single = one.elapsed();
    println!("one fw + one sw, one after the other: {single:?} ({bytes} bytes)");

    let all = Instant::now();
    let tasks: Vec<_> = (0..lab.devices.len())
        .map(|i| {
            let lab = lab.clone();
            tokio::spawn(async move { inspect(&lab, &lab.devices[i]).await })
        })
        .collect();
    let mut total = 0;
    for t in tasks {
        total += tokio::time::timeout(Duration::from_secs(300), t)
            .await
            .expect("in time")
            .expect("task");
    }
    let wall = all.elapsed();
    println!(
        "{n} devices at once: {wall:?} ({total} bytes); ratio to one pair: {:.1}",
        wall.as_secs_f64() / single.as_secs_f64()
    );
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        for line in status.lines().filter(|l| {
            l.starts_with("VmHWM") || l.starts_with("VmRSS") || l.starts_with("Threads")
        }) {
            println!("{line}");
        }
    }
    assert!(lab.config_attempts().is_empty());
}

//! The two-sample primitive over real SSH on loopback: a command read twice in one session, the
//! second no sooner than its gap after the first was answered; the session waits only for what
//! the other commands left of the gap, never past the run's deadline, and never sends a second
//! sample whose first was not answered.

use crate::ssh_common;

use std::time::{Duration, Instant};

use premarket::Command;
use premarket::core::Platform;
use ssh_common::device::{Device, Script};
use ssh_common::*;

const SAMPLED: &str = "show interfaces Ethernet1 | json";

async fn rig(script: Script) -> (Device, tempfile::TempDir, premarket::config::Device) {
    let dir = tempfile::tempdir().unwrap();
    let dev = Device::start(script).await;
    let conn = connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY)));
    (dev, dir, device("sw1", Platform::Eos, conn))
}

fn eos() -> Script {
    Script::eos("sw1", CANARY)
        .answer(SAMPLED, "{\"interfaces\": {}}")
        .answer("show version", "Arista DCS-7280SR3-48YC8")
        .answer("show ptp", "PTP Mode: Boundary Clock")
        .answer("show clock", "Mon Nov 30 07:02:11 2026")
}

/// When the device received `line` (the `nth` time, 0-based).
fn arrival(dev: &Device, line: &str, nth: usize) -> Instant {
    dev.received_timed()
        .into_iter()
        .filter(|(l, _)| l == line)
        .nth(nth)
        .unwrap_or_else(|| panic!("{line} #{nth} not received: {:?}", dev.received()))
        .1
}

#[tokio::test]
async fn the_second_sample_waits_only_for_what_is_left_of_its_gap() {
    let mut script = eos();
    // Each answer takes 0.4 s: the three commands between the samples fill 1.2 s of the gap.
    script.delay = Duration::from_millis(400);
    let (dev, dir, device) = rig(script).await;
    let settings = settings(
        Some(known_hosts(dir.path(), &dev.known_hosts_line())),
        Duration::from_secs(5),
    );
    let gap = 2;
    let plan = vec![
        Command::new(SAMPLED),
        Command::new("show version"),
        Command::new("show ptp"),
        Command::new("show clock"),
        Command::new(SAMPLED).resampled(gap),
    ];
    let results = collect(&device, &plan, &settings).await;
    for (command, result) in &results {
        assert!(result.is_ok(), "{command}: {result:?}");
    }
    let apart = arrival(&dev, SAMPLED, 1) - arrival(&dev, SAMPLED, 0);
    // Due 2 s after the first sample's answer (0.4 s after it was sent); a wait of the whole gap
    // after the other commands would put it 2 + 4 x 0.4 = 3.6 s after.
    assert!(
        apart >= Duration::from_secs(2) && apart < Duration::from_millis(3000),
        "{apart:?}"
    );
    assert_eq!(
        dev.received().iter().filter(|l| *l == SAMPLED).count(),
        2,
        "{:?}",
        dev.received()
    );
}

#[tokio::test]
async fn a_second_sample_due_after_the_deadline_is_not_sent_and_the_rest_is_kept() {
    let (dev, dir, device) = rig(eos()).await;
    let mut settings = settings(
        Some(known_hosts(dir.path(), &dev.known_hosts_line())),
        Duration::from_secs(5),
    );
    settings.deadline = Some(tokio::time::Instant::now() + Duration::from_secs(4));
    let started = Instant::now();
    let plan = vec![
        Command::new(SAMPLED),
        Command::new("show version"),
        Command::new(SAMPLED).resampled(10),
    ];
    let results = collect(&device, &plan, &settings).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(results[0].1.is_ok() && results[1].1.is_ok(), "{results:?}");
    let why = results[2].1.as_ref().expect_err("not taken").to_string();
    assert!(
        why.contains("second sample not taken") && why.contains("deadline"),
        "{why}"
    );
    assert_eq!(
        dev.received().iter().filter(|l| *l == SAMPLED).count(),
        1,
        "{:?}",
        dev.received()
    );
}

#[tokio::test]
async fn a_second_sample_whose_first_failed_is_not_sent() {
    let (dev, dir, device) = rig(eos()).await;
    let settings = settings(
        Some(known_hosts(dir.path(), &dev.known_hosts_line())),
        Duration::from_secs(5),
    );
    // The switch refuses the command: there is nothing to compare a second sample with.
    let refused = "show interfaces Ethernet9 | json";
    let plan = vec![
        Command::new(refused),
        Command::new("show version"),
        Command::new(refused).resampled(1),
    ];
    let results = collect(&device, &plan, &settings).await;
    assert!(results[0].1.is_err() && results[1].1.is_ok(), "{results:?}");
    let why = results[2].1.as_ref().expect_err("not taken").to_string();
    assert!(why.contains("first sample was not answered"), "{why}");
    assert_eq!(
        dev.received().iter().filter(|l| *l == refused).count(),
        1,
        "{:?}",
        dev.received()
    );
}

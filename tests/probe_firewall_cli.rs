//! `premarket probe run --firewall DEVICE [--clear-session]` as a user runs it, against the lab
//! over SSH. No root needed: the round itself fails on an interface that does not exist, but
//! the firewall steps before it (connect, guarded clear) are real and land in the lab journal.

use assert_cmd::Command;
use premarket::lab::{Lab, LabOptions};
use premarket::platform::fortigate::firewall::ProbeFlow;
use premarket::platform::fortigate::{SESSION_FILTER, SessionFilter};
use premarket::probe::frame::FrameSpec;
use tokio::runtime::Runtime;

const CLEAR: &str = "diagnose sys session clear";

fn premarket() -> Command {
    Command::cargo_bin("premarket").unwrap()
}

/// The default probe flow (`--src-port`/`--dst-port` not given), as the firewall filters it.
fn probe_flow() -> ProbeFlow {
    let t = FrameSpec::default();
    ProbeFlow {
        filter: SessionFilter {
            proto: 17,
            src: Some(t.src_ip.into()),
            dst: Some(t.dst_ip.into()),
            dport: Some(t.dport.0),
        },
        sport: t.sport.0,
    }
}

fn run_probe(lab: &Lab, extra: &[&str]) -> (Option<i32>, String) {
    let out = premarket()
        .arg("--dir")
        .arg(&lab.site_dir)
        .args([
            "probe",
            "run",
            "--tx",
            "pm-no-such-if0",
            "--rx",
            "pm-no-such-if1",
            "--count",
            "10",
        ])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn clear_session_runs_the_guarded_clear_before_the_round_and_only_then() {
    let runtime = Runtime::new().unwrap();
    let lab = runtime
        .block_on(Lab::start_with(LabOptions::default()))
        .expect("lab starts");

    let (code, err) = run_probe(&lab, &["--firewall", "fw1"]);
    assert_ne!(code, Some(0), "{err}");
    assert!(lab.config_attempts().is_empty(), "{err}");

    let (code, err) = run_probe(&lab, &["--firewall", "fw1", "--clear-session"]);
    assert_ne!(code, Some(0), "the round cannot run here: {err}");
    let sent = lab.journal().commands("fw1");
    let at = sent.iter().position(|l| l == CLEAR).expect("clear sent");
    let mut want = probe_flow().lines();
    want.push(SESSION_FILTER.into());
    assert_eq!(&sent[at - want.len()..at], want.as_slice(), "{sent:#?}");
    assert_eq!(sent.iter().filter(|l| *l == CLEAR).count(), 1);
    assert_eq!(lab.config_attempts().len(), 1);

    let (code, err) = run_probe(&lab, &["--firewall", "sw1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a FortiGate"), "{err}");
    let (code, err) = run_probe(&lab, &["--firewall", "fw9"]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("no such device"), "{err}");
    runtime.block_on(lab.shutdown());
}

#[test]
fn clear_session_needs_a_firewall_and_one_flow() {
    for extra in [
        &["--clear-session"][..],
        &["--firewall", "fw1", "--new-port-per-packet"][..],
    ] {
        let out = premarket()
            .args(["probe", "run", "--tx", "a", "--rx", "b"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{extra:?}");
    }
}

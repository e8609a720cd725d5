//! `premarket lab serve` as a user runs it: scenario list, usage errors, and a served lab that
//! prints its devices and site directory and stops on Ctrl-C (SIGINT).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn scenario_list_and_usage_errors() {
    let out = assert_cmd::Command::cargo_bin("premarket")
        .unwrap()
        .args(["lab", "serve", "--scenario", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "healthy",
        "lanz-unsaved",
        "offload-disabled",
        "hang",
        "host-key-changed",
    ] {
        assert!(text.contains(name), "{text}");
    }
    let out = assert_cmd::Command::cargo_bin("premarket")
        .unwrap()
        .args(["lab", "serve", "--scenario", "bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown scenario \"bogus\""));
    let out = assert_cmd::Command::cargo_bin("premarket")
        .unwrap()
        .args(["lab", "serve", "--scenario", "hang@fw9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("names device fw9"));
}

#[test]
fn serve_prints_devices_and_stops_on_interrupt() {
    let bin = assert_cmd::cargo::cargo_bin("premarket");
    let mut child = Command::new(bin)
        .args(["lab", "serve", "--devices", "4", "--scenario", "cpu-high"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let done = line.starts_with("site:");
        seen.push(line);
        if done {
            break;
        }
    }
    let text = seen.join("\n");
    for expect in [
        "fw1 ",
        "fw2 ",
        "sw1 ",
        "sw2 ",
        "fortigate",
        "eos",
        "SHA256:",
        "cpu-high",
    ] {
        assert!(text.contains(expect), "{expect}: {text}");
    }
    let site = seen
        .last()
        .unwrap()
        .trim_start_matches("site:")
        .trim()
        .to_string();
    assert!(
        std::path::Path::new(&site)
            .join("baselines/known_hosts")
            .is_file()
    );
    // Ctrl-C, sent to our own child by its pid.
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let mut waited = Duration::ZERO;
    while child.try_wait().unwrap().is_none() {
        assert!(
            waited < Duration::from_secs(10),
            "lab serve did not stop on SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
        waited += Duration::from_millis(50);
    }
    assert!(
        !std::path::Path::new(&site).exists(),
        "temporary site removed on exit"
    );
}

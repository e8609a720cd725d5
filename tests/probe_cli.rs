//! `premarket probe analyze` as a user runs it: exit codes, the JSON contract, the chart.

use std::path::Path;

use assert_cmd::Command;
use premarket::probe::synth::{self, Profile, Spec};

fn synth(dir: &Path, profile: Profile, count: usize) -> std::path::PathBuf {
    let path = dir.join(format!("{profile:?}.pcap"));
    synth::generate(
        &Spec::lab(profile, count, 11),
        std::fs::File::create(&path).unwrap(),
    )
    .unwrap();
    path
}

fn premarket() -> Command {
    Command::cargo_bin("premarket").unwrap()
}

#[test]
fn json_keys_are_the_contract_and_exit_codes_follow_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (Profile::Offloaded, "offloaded", 0),
        (Profile::Cpu, "cpu_path", 1),
        (Profile::Loss, "loss", 1),
    ];
    for (profile, verdict, code) in cases {
        let file = synth(dir.path(), profile, 5_000);
        let out = premarket()
            .args([
                "probe",
                "analyze",
                "--calibration-ns",
                "436.8",
                "--format",
                "json",
            ])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{profile:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for key in ["median_ns", "p99_ns", "max_ns", "pairs", "lost", "verdict"] {
            assert!(json.get(key).is_some(), "{key} missing");
        }
        assert_eq!(json["verdict"], verdict);
        assert!(json["median_ns"].as_i64().unwrap() > 0);
        assert_eq!(
            json["pairs"].as_u64().unwrap() + json["lost"].as_u64().unwrap(),
            5_000
        );
    }
}

#[test]
fn text_output_prints_n_and_the_chart_is_a_png_and_an_svg() {
    let dir = tempfile::tempdir().unwrap();
    let file = synth(dir.path(), Profile::Offloaded, 2_000);
    let chart = dir.path().join("chart.png");
    let svg = dir.path().join("chart.svg");
    let out = premarket()
        .args(["probe", "analyze", "--calibration-ns", "436.8", "--chart"])
        .arg(&chart)
        .arg("--chart-svg")
        .arg(&svg)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("n=2000"), "{text}");
    assert!(text.contains("verdict: offloaded"));
    let png = std::fs::read(&chart).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 10_000);
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.contains("firewall latency: offloaded"));
}

#[test]
fn unreadable_input_and_bad_flags_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.pcap");
    std::fs::write(&junk, b"not a capture at all").unwrap();
    let out = premarket()
        .args(["probe", "analyze"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a pcap or pcapng file"));
    let out = premarket()
        .args(["probe", "analyze", "--before-vlan", "5000", "x.pcap"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let out = premarket()
        .args(["probe", "analyze"])
        .arg(dir.path().join("missing.pcap"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn too_few_pairs_is_inconclusive_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = synth(dir.path(), Profile::Offloaded, 50);
    let out = premarket()
        .args(["probe", "analyze"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("too few pairs"));
}

//! The trend over mornings from a real archive: twelve `premarket run`s of the example probe
//! site, one per morning (the archived start time set to the morning), the last one 500 ns
//! slower in every packet (still within the baseline's limits). The archive's probe outputs
//! give the trend points; the drift detector finds the last morning's rise against the week
//! before; the trend renders with the limits drawn, and with one point or none it renders a
//! note instead of failing. Set PREMARKET_CHART_DIR to keep the images.

use crate::chart_support;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use chart_support::{decode, keep, pixels_of};
use chrono::{DateTime, FixedOffset};
use premarket::probe::chart::canvas::{WIDTH, palette};
use premarket::probe::synth::{self, Profile, Spec};
use premarket::probe::units::Nanos;
use premarket::report::trend::{self, DriftRule, FirewallPoint, Limits, TrendPoint};

fn site() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/probe/site");
    for sub in ["baselines", "checks"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        for entry in std::fs::read_dir(fixture.join(sub)).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), root.join(sub).join(entry.file_name())).unwrap();
        }
    }
    std::fs::create_dir_all(root.join("baselines/captures")).unwrap();
    std::fs::create_dir_all(root.join("saved")).unwrap();
    (dir, root)
}

fn morning(day: u32) -> String {
    format!("2026-11-{day:02}T08:30:00.000+08:00")
}

/// Runs the site once on a capture `extra_ns` slower than the lab and dates the run `day`.
fn run_on(root: &Path, day: u32, extra_ns: f64) {
    let mut spec = Spec::lab(Profile::Offloaded, 5_000, u64::from(day));
    spec.calibration_ns += extra_ns;
    let file = std::fs::File::create(root.join("baselines/captures/open.pcap")).unwrap();
    synth::generate(&spec, file).unwrap();
    let out = Command::cargo_bin("premarket")
        .unwrap()
        .arg("--dir")
        .arg(root)
        .args([
            "run",
            "--format",
            "json",
            "--no-email",
            "--archive",
            "--offline",
        ])
        .arg(root.join("saved"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run_id = report["run_id"].as_str().unwrap();
    let path = root.join("archive").join(run_id).join("report.json");
    let mut archived: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    archived["started_at"] = serde_json::Value::String(morning(day));
    std::fs::write(&path, serde_json::to_vec(&archived).unwrap()).unwrap();
}

/// What `premarket history --chart` will read: each archived run's start and its probe output.
fn points_from_archive(archive: &Path) -> Vec<TrendPoint> {
    let mut points = Vec::new();
    for run in std::fs::read_dir(archive).unwrap() {
        let run = run.unwrap().path();
        let Ok(report) = std::fs::read(run.join("report.json")) else {
            continue;
        };
        let report: serde_json::Value = serde_json::from_slice(&report).unwrap();
        let started: DateTime<FixedOffset> =
            DateTime::parse_from_rfc3339(report["started_at"].as_str().unwrap()).unwrap();
        let raw = std::fs::read_dir(run.join("raw/probe1"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        // The archive keeps raw outputs compressed.
        let json = String::from_utf8(zstd::decode_all(std::fs::File::open(raw).unwrap()).unwrap())
            .unwrap();
        let id = report["run_id"].as_str().unwrap();
        points.push(TrendPoint::from_probe_json(id, started, &json).unwrap());
    }
    points
}

/// FortiGate figures shaped on the lab: a dozen offloaded sessions, a few setups per second.
fn firewall(points: &[TrendPoint]) -> Vec<FirewallPoint> {
    points
        .iter()
        .enumerate()
        .map(|(i, p)| FirewallPoint {
            run_id: p.run_id.clone(),
            started_at: p.started_at,
            npu_session_count: Some(12 + (i % 3) as u64),
            setup_rate: Some(4 + (i % 2) as u64),
        })
        .collect()
}

#[test]
fn twelve_mornings_from_the_archive_show_the_last_ones_drift() {
    let (_dir, root) = site();
    for day in 1..=12 {
        run_on(&root, day, if day == 12 { 500.0 } else { 0.0 });
    }
    let mut points = points_from_archive(&root.join("archive"));
    assert_eq!(points.len(), 12);
    points.sort_by_key(|p| p.started_at);
    let drifts = trend::probe_drifts(&points, &DriftRule::default());
    let median = drifts
        .iter()
        .find(|d| d.figure == "probe median")
        .unwrap_or_else(|| panic!("no median drift in {drifts:?}"));
    assert_eq!(median.run_id, points[11].run_id);
    assert_eq!(median.runs, 6, "the six mornings of the week before");
    assert!((median.change - 500.0 / 4_100.0).abs() < 0.01, "{median:?}");
    // The eleven mornings before had no drift.
    assert!(trend::probe_drifts(&points[..11], &DriftRule::default()).is_empty());

    let limits = Limits {
        median_max: Some(Nanos(5_000)),
        p99_max: Some(Nanos(6_000)),
        npu_sessions_min: Some(1),
        setup_rate_max: Some(200),
    };
    let fw = firewall(&points);
    let png = trend::png(&points, &fw, &limits, &[]).unwrap();
    keep("trend.png", &png);
    let (width, _, rgb) = decode(&png);
    assert_eq!(width, WIDTH);
    // Twelve dots and a line in each of the median and p99 colours, the npu sessions too.
    for color in [palette::BLUE, palette::ORANGE, palette::GREEN] {
        assert!(pixels_of(&rgb, color) > 12 * 100, "{color:?}");
    }
    // The drift is written in the heading.
    assert!(pixels_of(&rgb, palette::VERMILLION) > 200);
    // The last morning FAILed, the one before could not tell: both are marked in words, and
    // the points are labelled with date and time (the runs span days).
    let statuses = [
        (points[10].run_id.clone(), premarket::Status::Error),
        (points[11].run_id.clone(), premarket::Status::Fail),
        (points[9].run_id.clone(), premarket::Status::Ok),
    ];
    let svg = trend::svg(&points, &fw, &limits, &statuses).unwrap();
    assert!(svg.contains("DRIFT: probe median"), "{svg}");
    assert_eq!(svg.matches("\nFAIL\n").count(), 1, "{svg}");
    assert_eq!(svg.matches("\nERROR\n").count(), 1, "{svg}");
    let label = points[0].started_at.format("%m-%d %H:%M").to_string();
    assert!(svg.contains(&label), "{label} not in {svg}");
    keep("trend.svg", svg.as_bytes());
}

#[test]
fn one_point_or_none_renders_a_note() {
    let at = DateTime::parse_from_rfc3339(&morning(3)).unwrap();
    let one = [TrendPoint {
        run_id: "r1".into(),
        started_at: at,
        median_ns: Some(Nanos(4_100)),
        p99_ns: Some(Nanos(4_140)),
    }];
    let svg = trend::svg(&one, &[], &Limits::default(), &[]).unwrap();
    assert!(svg.contains("a trend needs two"));
    assert!(svg.contains("no FortiGate figures in the archive yet"));
    let png = trend::png(&[], &[], &Limits::default(), &[]).unwrap();
    keep("trend-empty.png", &png);
    assert_eq!(decode(&png).0, WIDTH);
    let svg = trend::svg(&[], &[], &Limits::default(), &[]).unwrap();
    assert!(svg.contains("no probe runs in the archive yet"));
}

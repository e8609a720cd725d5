//! The trend over mornings through the binary, from archives the tests make with
//! `premarket demo` (the lab over real loopback SSH, the probe on the lab's captures):
//!
//! - `history --chart` draws eleven runs (healthy mornings, one with offload disabled, one
//!   with a new source port per send, one whose firewall cannot be inspected): the image's
//!   size, the median, p99 and session series in their palette colours, gaps where a run has
//!   no figure, a damaged output said on stderr; one run draws with a note.
//! - A run whose probe median rose more than 10 % against the week before says so in one line
//!   and its email shows the trend; a run without drift does not. The archive keeps the probe
//!   chart (PNG and SVG) beside every run, and the trend beside the run that drifted.
//!
//! What the tests change in their own archive, to stand for what they cannot wait for: the
//! start time of the chart test's runs (set to eleven mornings, so the axis shows days), the
//! raw outputs of three runs compressed as the archive will keep them (`.zst`), one run's
//! probe output removed (a gap) and one run's session stat overwritten with a device error.
//! Set PREMARKET_CHART_DIR to keep the images.

use crate::chart_support;
use crate::email_support;

use std::path::{Path, PathBuf};

use chart_support::{decode, keep, pixels_of};
use email_support::{bin, files, parse_mail, repo, text};
use premarket::probe::chart::canvas::{WIDTH, palette};
use serde_json::Value;

/// A copy of the example site with the probe listed, whose `archive: dir: archive` is the
/// demo's archive when the demo's home is this directory.
fn site() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    for sub in ["baselines", "checks"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        for entry in std::fs::read_dir(repo().join(sub)).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), root.join(sub).join(entry.file_name())).unwrap();
            }
        }
    }
    premarket::lab::probe_capture::add_to_site(&root, &premarket::lab::Example::Dir(repo()), &[])
        .unwrap();
    (dir, root)
}

/// `premarket demo --home <site> [--scenario S]`: the report and the email it wrote.
fn demo(site: &Path, scenario: Option<&str>) -> (Value, PathBuf) {
    let eml = site.join("last.eml");
    let _ = std::fs::remove_file(&eml);
    let mut cmd = std::process::Command::new(bin());
    cmd.arg("demo")
        .arg("--home")
        .arg(site)
        .args(["--format", "json", "--email-to-file"])
        .arg(&eml);
    if let Some(s) = scenario {
        cmd.args(["--scenario", s]);
    }
    let out = cmd.output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0..=2)),
        "{scenario:?}: {}",
        text(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stderr)));
    (report, eml)
}

fn run_dir(site: &Path, report: &Value) -> PathBuf {
    site.join("archive")
        .join(report["run_id"].as_str().unwrap())
}

fn history(site: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(bin())
        .arg("--dir")
        .arg(site)
        .arg("history")
        .args(args)
        .output()
        .unwrap()
}

/// Every raw output of a run compressed, as the archive keeps them once it compresses.
fn compress_raw(run: &Path) {
    for file in files(&run.join("raw")) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".txt") {
            let bytes = std::fs::read(&file).unwrap();
            let zst = zstd::encode_all(&bytes[..], 3).unwrap();
            std::fs::write(file.with_file_name(format!("{name}.zst")), zst).unwrap();
            std::fs::remove_file(&file).unwrap();
        }
    }
}

/// The inline image with this Content-ID.
fn inline(raw: &[u8], id: &str) -> Option<Vec<u8>> {
    use mail_parser::{MessageParser, MimeHeaders};
    let message = MessageParser::default().parse(raw).expect("a MIME message");
    message
        .parts
        .iter()
        .find(|p| p.content_id() == Some(id))
        .map(|p| p.contents().to_vec())
}

fn set_start(run: &Path, at: &str) {
    let path = run.join("report.json");
    let mut report: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    report["started_at"] = Value::String(at.into());
    std::fs::write(&path, serde_json::to_vec(&report).unwrap()).unwrap();
}

const SESSION_STAT: &str = "raw/fw1/diagnose-sys-session-stat.txt";

#[test]
fn eleven_demo_runs_draw_the_trend_and_one_run_draws_a_note() {
    let (_dir, site) = site();
    let scenarios = [
        None,
        None,
        None,
        Some("offload-disabled"),
        None,
        None,
        Some("new-source-port"),
        None,
        Some("host-key-changed@fw1"),
        None,
        None,
    ];
    let mut runs = Vec::new();
    for (i, scenario) in scenarios.iter().enumerate() {
        let (report, _) = demo(&site, *scenario);
        let run = run_dir(&site, &report);
        // The probe's chart is kept beside the run, SVG for a desk and PNG as mailed.
        let svg = std::fs::read_to_string(run.join("charts/latency-probe1.svg")).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
        assert_eq!(
            decode(&std::fs::read(run.join("charts/latency-probe1.png")).unwrap()).0,
            WIDTH
        );
        set_start(&run, &format!("2026-11-{:02}T08:30:00.000+08:00", i + 1));
        runs.push(run);
    }
    assert!(
        runs[8].join(format!("{SESSION_STAT}.error")).exists(),
        "fw1 was not inspected in run 9"
    );
    for run in &runs[..3] {
        compress_raw(run);
    }
    // Whether the archive kept them plain or compressed.
    let either = |run: &Path, file: &str| [run.join(file), run.join(format!("{file}.zst"))];
    let removed = either(&runs[5], "raw/probe1/probe-measure.txt")
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count();
    assert_eq!(removed, 1);
    for path in either(&runs[9], SESSION_STAT) {
        let _ = std::fs::remove_file(path);
    }
    std::fs::write(runs[9].join(SESSION_STAT), "Unknown action 0\n").unwrap();

    let out_dir = tempfile::tempdir().unwrap();
    let (png_path, svg_path) = (
        out_dir.path().join("trend.png"),
        out_dir.path().join("trend.svg"),
    );
    let out = history(
        &site,
        &[
            "--chart",
            png_path.to_str().unwrap(),
            "--chart-svg",
            svg_path.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("11 full run(s) of 11 in the archive; probe probe1: figures in 10; FortiGate fw1: figures in 9."),
        "{stdout}"
    );
    let damaged = runs[9].file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        stderr.contains(&format!(
            "a gap in the trend: run {damaged}: fw1: diagnose sys session stat:"
        )) && stderr.contains("Unknown action 0"),
        "{stderr}"
    );
    let png = std::fs::read(&png_path).unwrap();
    keep("history-trend.png", &png);
    let (width, height, rgb) = decode(&png);
    assert_eq!(width, WIDTH, "drawn for a 390 px phone at 2x");
    assert!((1200..2000).contains(&height), "{height}");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    keep("history-trend.svg", svg.as_bytes());
    assert!(svg.contains("trend over the last 11 runs"), "{svg}");
    assert!(svg.contains("from 2026-11-01 to 2026-11-11"), "{svg}");
    // The baselines' limits are drawn and labelled.
    assert!(svg.contains("limit: median 5 µs"), "{svg}");

    // The same archive, one run: the panels say a trend needs two instead of failing.
    let one_png = out_dir.path().join("one.png");
    let one_svg = out_dir.path().join("one.svg");
    for path in [&one_png, &one_svg] {
        let out = history(&site, &["--chart", path.to_str().unwrap(), "--last", "1"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let one = std::fs::read(&one_png).unwrap();
    keep("history-trend-one.png", &one);
    let svg = std::fs::read_to_string(&one_svg).unwrap();
    assert!(svg.contains("trend over the last 1 runs"), "{svg}");
    assert!(
        svg.contains("one run with probe runs so far: a trend needs two"),
        "{svg}"
    );
    let (one_width, _, one_rgb) = decode(&one);
    assert_eq!(one_width, WIDTH);

    // Eleven runs put eleven dots and a line in each series' colour where one run has a dot:
    // legend swatches and limit lines are in both, so the difference is the series.
    for (color, name) in [
        (palette::BLUE, "median"),
        (palette::ORANGE, "p99 and setup rate"),
        (palette::GREEN, "npu sessions"),
    ] {
        let (many, few) = (pixels_of(&rgb, color), pixels_of(&one_rgb, color));
        assert!(
            many > few + 1_500,
            "{name}: {many} pixels vs {few} for one run"
        );
    }
}

#[test]
fn a_median_up_on_the_week_puts_the_trend_in_the_email() {
    let (_dir, site) = site();
    let trend_in = |eml: &Path| {
        let raw = std::fs::read(eml).unwrap();
        (parse_mail(&raw), inline(&raw, "trend"))
    };
    // Three runs are the least the week needs as a reference; the fourth is steady.
    for _ in 0..3 {
        demo(&site, None);
    }
    let (report, eml) = demo(&site, None);
    let (mail, png) = trend_in(&eml);
    assert!(png.is_none(), "no drift, no trend");
    assert!(report.get("drift").is_none(), "{report}");
    assert!(!mail.text.contains("Drift:"), "{}", mail.text);
    assert!(
        inline(&mail.raw, "chart-probe1").is_some(),
        "the probe chart is always shown"
    );
    assert!(!run_dir(&site, &report).join("charts/trend.png").exists());

    // Offload off: the steady median goes from 4.1 us to the CPU path's ~18.5 us.
    let (report, eml) = demo(&site, Some("offload-disabled"));
    let (mail, png) = trend_in(&eml);
    let png = png.expect("the trend attached when the median drifted");
    keep("drift-trend.png", &png);
    assert_eq!(decode(&png).0, WIDTH);
    let drift = report["drift"].as_str().expect("the drift in report.json");
    assert!(
        drift.starts_with("probe median 18.")
            && drift.contains("on the week before (4.10 µs, 4 runs)"),
        "{drift}"
    );
    let line = mail
        .text
        .lines()
        .find(|l| l.starts_with("Drift: "))
        .unwrap_or_else(|| panic!("{}", mail.text));
    assert!(
        line.contains("probe median") && line.ends_with("see the trend chart"),
        "{line}"
    );
    assert!(
        mail.html.contains("<b>Drift:</b> probe median"),
        "{}",
        mail.html
    );
    assert!(mail.html.contains("cid:trend"), "the trend is shown inline");
    let run = run_dir(&site, &report);
    assert_eq!(std::fs::read(run.join("charts/trend.png")).unwrap(), png);
    assert!(
        std::fs::read_to_string(run.join("charts/trend.svg"))
            .unwrap()
            .contains("DRIFT: probe median")
    );

    // Healthy again: the week's median is still 4.1 us, so nothing drifted.
    let (report, eml) = demo(&site, None);
    assert!(trend_in(&eml).1.is_none(), "{:?}", report.get("drift"));
}

/// The x labels of a trend SVG: the texts that read as a time (`04:07`, `04:07:31`).
fn time_labels(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let inner = t.split_once('>')?.1.split("</text>").next()?.trim();
            let shape = inner.len() >= 5
                && inner.split(':').count() >= 2
                && inner
                    .split(':')
                    .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()));
            shape.then(|| inner.to_string())
        })
        .collect()
}

/// Five mornings within a minute or two: each is named apart on the trend's axis (to the
/// second where runs share a minute). The fourth drifted (offload disabled: the probe's median
/// up) and the fifth, the latest, has no probe figure: the trend says nothing drifted of the
/// latest run rather than showing the fourth's drift as if it were now.
#[test]
fn runs_of_one_minute_are_named_apart_and_only_the_latest_run_s_drift_is_shown() {
    let (_dir, site) = site();
    let mut last = None;
    for scenario in [None, None, None, Some("offload-disabled"), None] {
        last = Some(demo(&site, scenario).0);
    }
    let run = run_dir(&site, &last.expect("a run"));
    let removed = [
        run.join("raw/probe1/probe-measure.txt"),
        run.join("raw/probe1/probe-measure.txt.zst"),
    ]
    .iter()
    .filter(|p| std::fs::remove_file(p).is_ok())
    .count();
    assert_eq!(removed, 1);
    let out_dir = tempfile::tempdir().unwrap();
    let svg_path = out_dir.path().join("trend.svg");
    let out = history(&site, &["--chart-svg", svg_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    keep("history-one-minute.svg", svg.as_bytes());
    let labels = time_labels(&svg);
    // Three panels over the same five runs.
    assert_eq!(labels.len(), 15, "{labels:?}");
    for panel in labels.chunks(5) {
        assert_eq!(panel, &labels[..5], "{labels:?}");
        for (i, a) in panel.iter().enumerate() {
            assert!(!panel[i + 1..].contains(a), "{a} twice: {labels:?}");
        }
    }
    assert!(!svg.contains("DRIFT"), "the latest run has no probe figure");
    assert!(
        !svg.contains("no drift against the week before"),
        "it cannot tell"
    );
    assert!(svg.contains("the latest run has no probe figures"), "{svg}");
}

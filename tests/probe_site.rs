//! `premarket run` on a site whose only device is the latency probe: the probe's verdict comes
//! out as `probe.latency.offloaded` in the same report as every other check.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use premarket::probe::synth::{self, Profile, Spec};

fn site(profile: Profile) -> (tempfile::TempDir, PathBuf) {
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
    let file = std::fs::File::create(root.join("baselines/captures/open.pcap")).unwrap();
    synth::generate(&Spec::lab(profile, 10_000, 21), file).unwrap();
    std::fs::create_dir_all(root.join("saved")).unwrap();
    (dir, root)
}

fn run(root: &Path) -> (Option<i32>, serde_json::Value) {
    let out = Command::cargo_bin("premarket")
        .unwrap()
        .arg("--dir")
        .arg(root)
        .args(["run", "--format", "json", "--offline"])
        .arg(root.join("saved"))
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

/// The result's (check, status, headline), for the catalog's examples.
fn seen(result: &serde_json::Value) -> (String, premarket::Status, String) {
    let result: premarket::report::CheckResult =
        serde_json::from_value(result.clone()).expect("a result");
    (result.check.clone(), result.status, result.headline())
}

#[test]
fn offloaded_capture_is_ok_in_the_report_and_the_chart_is_written() {
    let (_dir, root) = site(Profile::Offloaded);
    let (code, report) = run(&root);
    assert_eq!(code, Some(0), "{report:#}");
    let result = &report["results"][0];
    assert_eq!(result["check"], "probe.latency.offloaded");
    assert_eq!(result["device"], "probe1");
    assert_eq!(result["status"], "OK");
    assert!(result["summary"].as_str().unwrap().contains("offloaded"));
    assert!(result["evidence"].as_str().unwrap().contains("10000 pairs"));
    crate::explain::assert_examples(&[seen(result)]);
    let png = std::fs::read(root.join("baselines/captures/open.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
}

#[test]
fn cpu_path_capture_fails_with_the_policy_remedy() {
    let (_dir, root) = site(Profile::Cpu);
    let (code, report) = run(&root);
    assert_eq!(code, Some(1));
    let result = &report["results"][0];
    assert_eq!(result["status"], "FAIL");
    assert!(result["summary"].as_str().unwrap().starts_with("cpu_path"));
    crate::explain::assert_examples(&[seen(result)]);
    assert!(
        result["remedy"]
            .as_str()
            .unwrap()
            .contains("auto-asic-offload")
    );
}

#[test]
fn a_missing_capture_is_an_error_not_ok() {
    let (_dir, root) = site(Profile::Offloaded);
    std::fs::remove_file(root.join("baselines/captures/open.pcap")).unwrap();
    let (code, report) = run(&root);
    assert_eq!(code, Some(2));
    assert_eq!(report["results"][0]["status"], "ERROR");
    assert!(
        report["results"][0]["summary"]
            .as_str()
            .unwrap()
            .contains("cannot read")
    );
}

#[test]
fn the_routing_collector_keeps_the_chart_for_the_email() {
    use std::sync::Arc;

    use premarket::collect::Collector;
    use premarket::collect::offline::Offline;
    use premarket::collect::probe::Routing;
    use premarket::inspect::{Limits, inspect};
    use premarket::{Config, Plan, Selection};

    let (_dir, root) = site(Profile::Offloaded);
    let config = Config::load(&root).unwrap();
    let plan = Plan::new(&config, &Selection::default()).unwrap();
    let routing = Arc::new(Routing::new(Arc::new(Offline::new(root.join("saved")))));
    let collector: Arc<dyn Collector> = routing.clone();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let report = runtime.block_on(inspect(
        &config,
        plan.clone(),
        collector,
        &Limits::from_config(&config),
    ));
    assert_eq!(report.exit_code(), 0);
    let charts = routing.charts();
    assert_eq!(charts.len(), 1);
    assert_eq!(charts[0].device, "probe1");
    assert_eq!(&charts[0].png[..8], b"\x89PNG\r\n\x1a\n");
}

/// The offloaded capture rewritten as pcapng whose interfaces claim `tsresol`, each stamp
/// `stamp(ns)` in the file's units as that clock would have written it.
fn rewrite_as_pcapng(root: &Path, tsresol: u8, stamp: fn(i64) -> i64) {
    use premarket::probe::format::Records;
    use premarket::probe::pcapng::Writer;
    use premarket::probe::record::Endian;

    let path = root.join("baselines/captures/open.pcap");
    let bytes = std::fs::read(&path).unwrap();
    let mut out = Vec::new();
    let mut writer = Writer::new(&mut out, Endian::Little).unwrap();
    let id = writer.interface(Some(tsresol)).unwrap();
    for record in Records::open(&bytes).unwrap() {
        let record = record.unwrap();
        let ts = premarket::probe::Nanos(stamp(record.ts.0));
        writer.write(id, ts, record.data).unwrap();
    }
    drop(writer);
    std::fs::write(&path, out).unwrap();
}

#[test]
fn a_capture_clock_that_cannot_measure_the_threshold_is_an_error_naming_it() {
    // (tsresol byte, the clock as the ERROR names it, how a stamp becomes the file's value):
    // a clock that claims 2^-63 s units but counts nanoseconds (every difference reads as
    // nothing), and one that stamps whole seconds. Both gave "offloaded ... median -437 ns".
    fn nanos_as_2_63(ns: i64) -> i64 {
        (i128::from(ns) * 1_000_000_000 / (1i128 << 63)) as i64
    }
    type Stamp = fn(i64) -> i64;
    let cases: [(u8, &str, Stamp); 2] =
        [(0x80 | 63, "2^-63 s", nanos_as_2_63), (0, "1 s", |ns| ns)];
    for (tsresol, clock, stamp) in cases {
        let (_dir, root) = site(Profile::Offloaded);
        rewrite_as_pcapng(&root, tsresol, stamp);
        let (code, report) = run(&root);
        let result = &report["results"][0];
        assert_eq!(result["status"], "ERROR", "{clock}: {result:#}");
        assert_eq!(code, Some(2), "{clock}");
        let summary = result["summary"].as_str().unwrap();
        assert!(summary.contains(clock), "{clock}: {summary}");
    }
}

//! Each device goes into the run's archive as soon as it is judged, and the report lets go of
//! the raw outputs it no longer reads: a device with no FAIL or ERROR, not drawn by the trend.
//! A failing device keeps them (the email attaches them), the trend's firewall keeps them, and
//! the archive holds every device's outputs all the same: replayed offline, it judges alike.

use crate::common;

use std::path::Path;

use premarket::Status;
use premarket::report::Report;
use premarket::report::email::EmailMode;
use premarket::run::{Request, drive};

fn run(site: &Path, offline: &Path) -> Report {
    let outcome = drive(Request {
        dir: site.to_path_buf(),
        offline: Some(offline.to_path_buf()),
        email: Some(EmailMode::Off),
        archive: true,
        ..Request::default()
    });
    outcome.report.expect("a report")
}

fn failing(report: &Report, device: &str) -> bool {
    report
        .results
        .iter()
        .any(|r| r.device == device && matches!(r.status, Status::Fail | Status::Error))
}

fn held(report: &Report, device: &str) -> bool {
    report
        .raw
        .iter()
        .find(|d| d.device == device)
        .is_some_and(|d| !d.outputs.is_empty())
}

fn archived_files(report: &Report, site: &Path, device: &str) -> usize {
    let dir = site
        .join("archive")
        .join(&report.run_id)
        .join("raw")
        .join(device);
    std::fs::read_dir(&dir).map_or(0, |entries| entries.count())
}

#[test]
fn devices_are_archived_as_judged_and_the_report_keeps_only_what_it_reads() {
    // (fixture, sw1 failing): fw1 is the trend's firewall in the example site. Each run is its
    // site's first, so that the replay (which reads no history) judges what the run judged.
    for (fixture, sw1_failing) in [("site/healthy", false), ("site/lanz-incident", true)] {
        let site = common::Site::example();
        let report = run(site.path(), &common::fixture(fixture));
        assert_eq!(failing(&report, "sw1"), sw1_failing, "{fixture}");
        assert_eq!(
            held(&report, "sw1"),
            sw1_failing,
            "{fixture}: sw1's outputs"
        );
        assert!(
            held(&report, "fw1"),
            "{fixture}: the trend's firewall keeps its outputs"
        );
        for device in ["fw1", "sw1"] {
            assert!(
                archived_files(&report, site.path(), device) > 3,
                "{fixture}: {device} not archived"
            );
        }
        // The archive is whole: replayed, it judges as the run did.
        let raw = site.path().join("archive").join(&report.run_id).join("raw");
        let replay = drive(Request {
            dir: site.path().to_path_buf(),
            offline: Some(raw),
            email: Some(EmailMode::Off),
            ..Request::default()
        })
        .report
        .expect("a replay");
        let verdicts = |r: &Report| {
            let mut v: Vec<_> = r
                .results
                .iter()
                .map(|x| (x.device.clone(), x.check.clone(), format!("{:?}", x.status)))
                .collect();
            v.sort();
            v
        };
        assert_eq!(verdicts(&replay), verdicts(&report), "{fixture}");
        // Nothing of the run is left in a hidden directory.
        let hidden: Vec<_> = std::fs::read_dir(site.path().join("archive"))
            .expect("archive")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
            .map(|e| e.file_name())
            .collect();
        assert!(hidden.is_empty(), "{fixture}: {hidden:?}");
    }
}

/// Answers like the offline collector, but holds fw1 until sw1 is in the run's staged
/// directory (its facts are written last), then deletes the whole archive directory under the
/// running run.
struct DeletesTheArchive {
    saved: premarket::collect::offline::Offline,
    archive: std::path::PathBuf,
}

impl premarket::collect::Collector for DeletesTheArchive {
    fn collect<'a>(
        &'a self,
        plan: &'a premarket::plan::DevicePlan,
    ) -> premarket::collect::BoxFuture<'a, premarket::core::Outputs> {
        Box::pin(async move {
            if plan.device.name == "fw1" {
                let staged = || {
                    std::fs::read_dir(&self.archive)
                        .into_iter()
                        .flatten()
                        .filter_map(Result::ok)
                        .any(|e| e.path().join("facts/sw1.json").is_file())
                };
                for _ in 0..400 {
                    if staged() {
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                assert!(staged(), "sw1 was never staged");
                std::fs::remove_dir_all(&self.archive).unwrap();
            }
            self.saved.collect(plan).await
        })
    }
}

#[test]
fn a_run_whose_archive_lost_a_device_says_so_and_history_marks_it() {
    let site = common::Site::example();
    let archive = site.path().join("archive");
    let outcome = drive(Request {
        dir: site.path().to_path_buf(),
        collector: Some(std::sync::Arc::new(DeletesTheArchive {
            saved: premarket::collect::offline::Offline::new(common::fixture("site/healthy")),
            archive: archive.clone(),
        })),
        email: Some(EmailMode::Off),
        archive: true,
        ..Request::default()
    });
    let report = outcome.report.expect("a report");
    let said = outcome.messages.join("\n");
    assert!(said.contains("sw1 not archived"), "{said}");
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("sw1 not archived")),
        "{:?}",
        report.problems
    );
    assert_eq!(outcome.code, 2, "a healthy run whose archive is incomplete");
    let run = archive.join(&report.run_id);
    let marker = std::fs::read_to_string(run.join("INCOMPLETE")).expect("the marker");
    assert!(marker.contains("sw1"), "{marker}");
    assert!(run.join("raw/fw1").is_dir(), "what could be archived is");
    let history = assert_cmd::Command::cargo_bin("premarket")
        .unwrap()
        .arg("--dir")
        .arg(site.path())
        .arg("history")
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&history.stdout);
    assert!(
        listing.contains("incomplete: sw1 not archived"),
        "{listing}"
    );
}

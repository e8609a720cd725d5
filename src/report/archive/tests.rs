//! The archive written and read back: layout, retention, locks, previous facts.

use super::*;
use crate::DeviceOutputs;
use premarket_core::CollectError;
use premarket_core::Command;
use premarket_core::Platform;

#[test]
fn a_run_is_written_whole_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path().join("a"));
    let mut report = Report::new(
        "20261130T081500.000".into(),
        "lab".into(),
        "2026-11-30T08:15:00.000+08:00".into(),
        "2026-11-30T08:15:01.000+08:00".into(),
        Vec::new(),
    );
    report.raw = vec![DeviceOutputs {
        device: "sw1".into(),
        platform: Platform::Eos,
        outputs: vec![
            (Command::new("show version | json"), Ok("{}".into())),
            (
                Command::new("show running-config diffs"),
                Ok(String::new().into()),
            ),
            (
                Command::new("show startup-config"),
                Err(CollectError::Deadline),
            ),
        ],
        facts: Vec::new(),
        advance: Default::default(),
    }];
    let first = archive.write(&mut report.clone()).unwrap();
    let mut second = report.clone();
    let path = archive.write(&mut second).unwrap();
    assert_ne!(first, path);
    assert_eq!(second.run_id, "20261130T081500.000-1");
    let version = fs::read(path.join("raw/sw1/show-version-json.txt.zst")).unwrap();
    assert_eq!(
        zstd::decode_all(&version[..]).unwrap(),
        b"{}",
        "kept compressed"
    );
    assert!(
        path.join("raw/sw1/show-running-config-diffs.txt.empty")
            .is_file()
    );
    assert!(path.join("raw/sw1/show-startup-config.txt.error").is_file());
    let (reports, problems) = archive.reports().unwrap();
    assert_eq!(reports.len(), 2);
    assert!(problems.is_empty());
    assert!(
        fs::read_dir(archive.root()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".tmp"))
    );
    assert!(archive.prune(1).unwrap().is_empty());
}

#[test]
fn a_spooled_output_is_redacted_as_it_is_copied_in() {
    use premarket_core::Megabytes;
    use premarket_spool::{IN_MEMORY, SpoolDir, SpoolWriter};
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path().join("a"));
    let mut writer = SpoolWriter::new(&SpoolDir::temporary(), Megabytes(64));
    let block = "config system admin\n    edit \"admin\"\n        set password ENC SH2abcdefsecretblob=\n    next\nend\n";
    let mut written = 0;
    while written <= IN_MEMORY {
        writer.write(block.as_bytes()).unwrap();
        written += block.len();
    }
    // The secret broken over two lines: still masked.
    writer.write(b"banner hunter2-\r\n  canary\n").unwrap();
    let output = writer.finish().unwrap();
    assert!(matches!(output, premarket_core::Output::Spooled(_)));
    let mut report = Report::new(
        "r1".into(),
        "lab".into(),
        "t".into(),
        "t".into(),
        Vec::new(),
    );
    report.raw = vec![DeviceOutputs {
        device: "fw1".into(),
        platform: Platform::Fortigate,
        outputs: vec![(Command::new("show full-configuration"), Ok(output))],
        facts: Vec::new(),
        advance: Default::default(),
    }];
    let mut redactor = Redactor::default();
    redactor.add("hunter2-canary");
    let path = archive.write_redacted(&mut report, &redactor).unwrap();
    let kept = fs::read(path.join("raw/fw1/show-full-configuration.txt.zst")).unwrap();
    let text = String::from_utf8(zstd::decode_all(&kept[..]).unwrap()).unwrap();
    assert_eq!(
        text.matches("set password ENC <redacted>").count(),
        written / block.len()
    );
    assert!(!text.contains("SH2abc") && !text.contains("canary"));
    assert!(
        text.ends_with("banner ********\n\n"),
        "{}",
        &text[text.len() - 40..]
    );
}

#[test]
fn the_oldest_runs_go_until_the_archive_fits_and_the_newest_stays() {
    use premarket_core::Megabytes;
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    // Four runs of about 490 kB each, compressed (random text compresses little).
    for id in [
        "20261126T081500.000",
        "20261127T081500.000",
        "20261128T081500.000",
        "20261129T081500.000",
    ] {
        let mut report = Report::new(id.into(), "lab".into(), "t".into(), "t".into(), Vec::new());
        let noise: String = (0..600_000)
            .map(|_| char::from(b'!' + rand::random::<u8>() % 90))
            .collect();
        report.raw = vec![DeviceOutputs {
            device: "sw1".into(),
            platform: Platform::Eos,
            outputs: vec![(Command::new("show tech-support"), Ok(noise.into()))],
            facts: Vec::new(),
            advance: Default::default(),
        }];
        archive.write(&mut report).unwrap();
    }
    fs::create_dir_all(archive.outbox()).unwrap();
    fs::write(archive.outbox().join("unsent.eml"), vec![b'x'; 2 << 20]).unwrap();
    let removed = archive.prune_to_size(Megabytes(1)).unwrap();
    let names: Vec<String> = removed
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["20261126T081500.000", "20261127T081500.000"],
        "oldest first, until it fits"
    );
    assert_eq!(archive.reports().unwrap().0.len(), 2);
    assert!(
        archive.outbox().join("unsent.eml").exists(),
        "undelivered email is not a run"
    );
    let removed = archive.prune_to_size(Megabytes(0)).unwrap();
    assert_eq!(removed.len(), 1, "the newest run always stays");
    assert_eq!(archive.reports().unwrap().0.len(), 1);
}

/// A run of many small outputs takes far more disk than its bytes: one block (4 KB here) per
/// file. Size retention counts the disk taken, as `du` does, or an archive kept "within 3 MB"
/// would fill ten times that.
#[test]
fn size_retention_counts_the_disk_small_files_take() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    let ids = [
        "20261126T081500.000",
        "20261127T081500.000",
        "20261128T081500.000",
    ];
    for id in ids {
        let mut report = Report::new(id.into(), "lab".into(), "t".into(), "t".into(), Vec::new());
        report.raw = vec![DeviceOutputs {
            device: "sw1".into(),
            platform: Platform::Eos,
            outputs: (0..400)
                .map(|i| (Command::new(format!("show counter {i}")), Ok("1".into())))
                .collect(),
            facts: Vec::new(),
            advance: Default::default(),
        }];
        archive.write(&mut report).unwrap();
    }
    let run = dir.path().join(ids[0]);
    let length: u64 = fs::read_dir(run.join("raw/sw1"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(length < 100_000, "400 tiny outputs are {length} bytes long");
    assert!(
        size_of(&run) >= 400 * 4096,
        "a run of 400 files takes at least 400 blocks of 4 KB on ext4 and tmpfs: {} bytes counted",
        size_of(&run)
    );
    // About 1.6 MB each on disk: three do not fit in 3 MB, one does.
    let removed = archive.prune_to_size(Megabytes(3)).unwrap();
    let names: Vec<String> = removed
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ids[..2], "oldest first, until the disk taken fits");
}

#[test]
fn leftovers_of_dead_writers_are_removed_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    // pid 1 exists (init); a pid above pid_max never does.
    let live = dir.path().join(".tmp-20261130T081500.000-1");
    let dead = dir.path().join(".tmp-20261130T081500.000-2147483647");
    let dead_file = dir.path().join(".tmp-report.eml-2147483646");
    fs::create_dir_all(live.join("raw")).unwrap();
    fs::create_dir_all(dead.join("raw")).unwrap();
    fs::write(&dead_file, b"x").unwrap();
    let mut report = Report::new(
        "r1".into(),
        "lab".into(),
        "t".into(),
        "t".into(),
        Vec::new(),
    );
    archive.write(&mut report).unwrap();
    assert!(live.exists(), "a running writer's directory stays");
    assert!(!dead.exists() && !dead_file.exists(), "leftovers are gone");
}

/// An empty report of one morning's run, for the staged runs below.
fn morning_report() -> Report {
    Report::new(
        "20261202T081500.000".into(),
        "lab".into(),
        "2026-12-02T08:15:00.000+08:00".into(),
        "2026-12-02T08:15:01.000+08:00".into(),
        Vec::new(),
    )
}

fn device(name: &str, text: &str) -> DeviceOutputs {
    DeviceOutputs {
        device: name.into(),
        platform: Platform::Eos,
        outputs: vec![(Command::new("show version | json"), Ok(text.into()))],
        facts: Vec::new(),
        advance: Default::default(),
    }
}

/// Staged devices are in the run as written at the end; a passing device not kept lets go
/// of its outputs, a failing one and a kept one do not.
#[test]
fn a_staged_run_holds_every_device_and_lets_go_of_the_passing_ones() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path().join("a"));
    let staged = archive
        .stage(Redactor::default(), ["fw1".to_string()].into())
        .unwrap();
    let mut passing = device("sw1", "{\"v\": 1}");
    let mut failing = device("sw2", "{\"v\": 2}");
    let mut kept = device("fw1", "{\"v\": 3}");
    staged.device(&mut passing, false);
    staged.device(&mut failing, true);
    staged.device(&mut kept, false);
    assert!(passing.outputs.is_empty());
    assert_eq!((failing.outputs.len(), kept.outputs.len()), (1, 1));
    let mut report = morning_report();
    // sw3 was not staged: written at the end.
    report.raw = vec![passing, failing, kept, device("sw3", "{\"v\": 4}")];
    let run = archive
        .write_staged(&mut report, &Redactor::default(), Some(&staged))
        .unwrap();
    for (name, text) in [("sw1", "1"), ("sw2", "2"), ("fw1", "3"), ("sw3", "4")] {
        let file = fs::read(run.join(format!("raw/{name}/show-version-json.txt.zst"))).unwrap();
        let text = format!("{{\"v\": {text}}}");
        assert_eq!(
            zstd::decode_all(&file[..]).unwrap(),
            text.as_bytes(),
            "{name}"
        );
    }
    assert!(run.join("report.json").is_file());
    // Taken once: a second write has nothing staged to write into.
    assert!(
        archive
            .write_staged(&mut report, &Redactor::default(), Some(&staged))
            .is_err()
    );
}

/// A device that cannot be written keeps its outputs, the later ones are not staged, and the
/// run is not archived (the report says so), with nothing left behind.
#[test]
fn a_staging_failure_keeps_the_outputs_and_the_run_is_not_archived() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path().join("a"));
    let staged = archive.stage(Redactor::default(), Keep::new()).unwrap();
    // The run's directory replaced by a file: nothing can be created under it.
    let hidden = fs::read_dir(archive.root())
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with(".tmp-staged-"))
        .unwrap()
        .path();
    fs::remove_dir_all(&hidden).unwrap();
    fs::write(&hidden, b"in the way").unwrap();
    let mut first = device("sw1", "{}");
    let mut second = device("sw2", "{}");
    staged.device(&mut first, false);
    staged.device(&mut second, false);
    assert_eq!((first.outputs.len(), second.outputs.len()), (1, 1));
    let mut report = morning_report();
    report.raw = vec![first, second];
    let failed = archive.write_staged(&mut report, &Redactor::default(), Some(&staged));
    assert!(
        matches!(failed, Err(ArchiveError::Write { .. })),
        "{failed:?}"
    );
    let (reports, _) = archive.reports().unwrap();
    assert!(reports.is_empty());
}

/// The hidden directories of the run that is writing them, as the leftover cleaning sees them
/// after the clock stepped more than a day forward: they look a day old, and are this
/// process's own.
fn age_own_leftovers(archive: &Archive) {
    let two_days_ago = std::time::SystemTime::now() - Duration::from_secs(2 * 86_400);
    for entry in fs::read_dir(archive.root()).unwrap().filter_map(Result::ok) {
        if entry.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
            fs::File::open(entry.path())
                .unwrap()
                .set_modified(two_days_ago)
                .unwrap();
        }
    }
}

#[test]
fn the_running_runs_own_directories_survive_a_clock_step() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path().join("a"));
    let staged = archive.stage(Redactor::default(), Keep::new()).unwrap();
    let mut sw1 = device("sw1", "{\"v\": 1}");
    staged.device(&mut sw1, false);
    age_own_leftovers(&archive);
    archive.clean_leftovers();
    archive.prune(30).unwrap();
    let mut report = morning_report();
    report.raw = vec![sw1];
    let run = archive
        .write_staged(&mut report, &Redactor::default(), Some(&staged))
        .unwrap();
    assert!(
        run.join("raw/sw1/show-version-json.txt.zst").is_file(),
        "the run's own staged device is in its archive"
    );
}

/// The archive directory deleted while the run was still writing it: what was staged is
/// gone, the rest is archived, and the run says what it lacks (the report's problems, a
/// marker in the run's directory, `not_archived`).
#[test]
fn a_run_whose_staged_devices_vanished_says_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path().join("a"));
    let staged = archive.stage(Redactor::default(), Keep::new()).unwrap();
    let mut sw1 = device("sw1", "{\"v\": 1}");
    staged.device(&mut sw1, false);
    fs::remove_dir_all(archive.root()).unwrap();
    let mut report = morning_report();
    report.raw = vec![sw1, device("fw1", "{\"v\": 2}")];
    let run = archive
        .write_staged(&mut report, &Redactor::default(), Some(&staged))
        .unwrap();
    assert!(run.join("raw/fw1/show-version-json.txt.zst").is_file());
    assert_eq!(report.not_archived, ["sw1"]);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("sw1 not archived")),
        "{:?}",
        report.problems
    );
    let marker = fs::read_to_string(run.join(INCOMPLETE)).unwrap();
    assert!(marker.contains("sw1"), "{marker}");
    let written: Report =
        serde_json::from_str(&fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    assert_eq!(written.not_archived, ["sw1"]);
}

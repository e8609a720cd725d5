//! The archive's order is the order runs were written; old runs without a number come first,
//! those dated in the future first of all; what is read back is escaped.

use super::*;
use crate::CheckResult;
use premarket_core::Status;

fn report(id: &str, started_at: &str, results: Vec<CheckResult>) -> Report {
    Report::new(
        id.into(),
        "lab".into(),
        started_at.into(),
        started_at.into(),
        results,
    )
}

fn ids(archive: &Archive) -> Vec<String> {
    archive.runs().unwrap().into_iter().map(|r| r.id).collect()
}

#[test]
fn runs_are_in_the_order_they_were_written_not_their_clock() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    // The clock was ahead for the first run, right for the next two.
    for (id, at) in [
        ("20991130T081500.000", "2099-11-30T08:15:00.000+08:00"),
        ("20261130T081500.000", "2026-11-30T08:15:00.000+08:00"),
        ("20261201T081500.000", "2026-12-01T08:15:00.000+08:00"),
    ] {
        archive.write(&mut report(id, at, Vec::new())).unwrap();
    }
    assert_eq!(
        ids(&archive),
        [
            "20991130T081500.000",
            "20261130T081500.000",
            "20261201T081500.000"
        ]
    );
    let numbers: Vec<_> = archive
        .runs()
        .unwrap()
        .into_iter()
        .map(|r| r.sequence)
        .collect();
    assert_eq!(numbers, [Some(1), Some(2), Some(3)]);
    let (reports, _) = archive.reports().unwrap();
    assert_eq!(reports.last().unwrap().run_id, "20261201T081500.000");
}

#[test]
fn unnumbered_runs_come_first_and_those_dated_in_the_future_first_of_all() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    // Runs of an older premarket: no sequence file.
    for id in [
        "20261129T081500.000",
        "20991130T081500.000",
        "20261128T081500.000",
    ] {
        fs::create_dir_all(dir.path().join(id)).unwrap();
    }
    archive
        .write(&mut report(
            "r-new",
            "2026-11-30T08:15:00.000+08:00",
            Vec::new(),
        ))
        .unwrap();
    // A damaged number reads as none.
    fs::write(dir.path().join("20261129T081500.000/sequence"), "x\n").unwrap();
    assert_eq!(
        ids(&archive),
        [
            "20991130T081500.000",
            "20261128T081500.000",
            "20261129T081500.000",
            "r-new"
        ]
    );
    archive
        .write(&mut report(
            "r-next",
            "2026-11-30T09:15:00.000+08:00",
            Vec::new(),
        ))
        .unwrap();
    assert_eq!(ids(&archive).last().map(String::as_str), Some("r-next"));
    assert_eq!(archive.runs().unwrap().last().unwrap().sequence, Some(2));
}

#[test]
fn a_report_read_back_has_its_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    let mut planted = report(
        "r1",
        "2026-11-30T08:15:00.000+08:00\u{1b}[2J",
        vec![CheckResult::new(
            "eos.lanz.persisted\u{1b}]0;owned\u{7}",
            "sw1\r",
            Status::Fail,
            "summary\u{9b}31m",
        )],
    );
    archive.write(&mut planted).unwrap();
    let (reports, problems) = archive.reports().unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let read = &reports[0];
    assert_eq!(read.started_at, "2026-11-30T08:15:00.000+08:00\\x1b[2J");
    assert_eq!(
        read.results[0].check,
        "eos.lanz.persisted\\x1b]0;owned\\x07"
    );
    assert_eq!(read.results[0].device, "sw1\\r");
    assert_eq!(read.results[0].summary, "summary\\x9b31m");
}

fn key(text: &str) -> premarket_parse::QueryKey {
    premarket_parse::QueryKey {
        command: premarket_core::Command::new(text),
        kind: "eos.x".into(),
    }
}

/// Archives a run whose only device, sw1, recorded `facts` (each a number).
fn write_facts(archive: &Archive, id: &str, facts: Vec<(premarket_parse::QueryKey, i64)>) {
    let mut report = Report::new(id.into(), "lab".into(), "t".into(), "t".into(), Vec::new());
    report.raw = vec![crate::DeviceOutputs {
        device: "sw1".into(),
        platform: premarket_core::Platform::Eos,
        outputs: Vec::new(),
        facts: facts
            .into_iter()
            .map(|(key, n)| Recorded {
                key,
                run_id: String::new(),
                collected_at: None,
                fact: serde_json::json!(n).into(),
                masked: false,
            })
            .collect(),
        advance: Default::default(),
    }];
    archive.write(&mut report).unwrap();
}

#[test]
fn previous_facts_come_from_the_latest_written_run_that_kept_them() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    let run =
        |id: &str, facts: Vec<(premarket_parse::QueryKey, i64)>| write_facts(&archive, id, facts);
    assert!(archive.previous("sw1").get(&key("a")).is_none());
    // Written first, while the clock was ahead: older than what follows, whatever its date.
    run("20991130T081500.000", vec![(key("a"), 99)]);
    run("20261129T081500.000", vec![(key("a"), 1), (key("b"), 10)]);
    run("20261130T081500.000", vec![(key("a"), 2)]);
    let previous = archive.previous("sw1");
    let a = previous.get(&key("a")).unwrap();
    let b = previous.get(&key("b")).unwrap();
    assert_eq!(
        (a.fact.value(), a.run_id.as_str()),
        (serde_json::json!(2), "20261130T081500.000")
    );
    assert_eq!(
        (b.fact.value(), b.run_id.as_str()),
        (serde_json::json!(10), "20261129T081500.000")
    );
    assert!(archive.previous("sw2").get(&key("a")).is_none());
}

#[test]
fn previous_facts_stop_at_the_newest_run_that_holds_every_wanted_key() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    let run =
        |id: &str, facts: Vec<(premarket_parse::QueryKey, i64)>| write_facts(&archive, id, facts);
    run("20261128T081500.000", vec![(key("c"), 7)]);
    run("20261129T081500.000", vec![(key("a"), 1), (key("b"), 10)]);
    run("20261130T081500.000", vec![(key("a"), 2)]);
    let previous = archive.previous_facts();
    let fact = |p: &Previous, k: &str| p.get(&key(k)).map(|r| (r.fact.value(), r.run_id.clone()));
    // `a` is in the newest run: nothing older is read, so `b` and `c` are not seen.
    let only_a = previous.of("sw1", &[key("a")]);
    assert_eq!(
        fact(&only_a, "a"),
        Some((serde_json::json!(2), "20261130T081500.000".into()))
    );
    assert_eq!((fact(&only_a, "b"), fact(&only_a, "c")), (None, None));
    // `b` only in the run before: read back to it, not further.
    let a_and_b = previous.of("sw1", &[key("a"), key("b")]);
    assert_eq!(
        (
            fact(&a_and_b, "a"),
            fact(&a_and_b, "b"),
            fact(&a_and_b, "c")
        ),
        (
            Some((serde_json::json!(2), "20261130T081500.000".into())),
            Some((serde_json::json!(10), "20261129T081500.000".into())),
            None
        )
    );
    // A key no run kept, or nothing wanted: every run is read, as `Archive::previous` does.
    for wanted in [vec![key("a"), key("z")], Vec::new()] {
        let all = previous.of("sw1", &wanted);
        assert_eq!(
            fact(&all, "c"),
            Some((serde_json::json!(7), "20261128T081500.000".into()))
        );
    }
}

#[test]
fn history_reads_runs_before_the_newest_full_one_in_outline() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    let fail = |summary: &str| {
        vec![
            CheckResult::new("eos.lanz.persisted", "sw1\u{1b}", Status::Fail, summary),
            CheckResult::new("eos.config.saved", "sw1\u{1b}", Status::Ok, ""),
        ]
    };
    let mut runs = vec![
        report("20261128T081500.000", "t1", fail("old full run")),
        report("20261129T081500.000", "t2", fail("an old rerun")),
        report("20261130T081500.000", "t3", fail("the newest full run")),
        report("20261130T091500.000", "t4", fail("a rerun after it")),
    ];
    runs[1].partial = true;
    runs[3].partial = true;
    // The rerun could not inspect the device: its check is blocked (what "since the previous
    // run" groups by device, outline or whole).
    runs[3].results[0].status = Status::Error;
    runs[3].devices_not_inspected.push(crate::DeviceDown {
        device: "sw1\u{1b}".into(),
        cause: "not answering".into(),
        what: "no answer".into(),
        command: None,
        remedy: String::new(),
        blocked: vec!["eos.lanz.persisted".into()],
        judged_in: None,
        judged_at: None,
    });
    for run in &mut runs {
        archive.write(run).unwrap();
    }
    let (whole, _) = archive.reports().unwrap();
    let (history, problems) = archive.history().unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let summaries: Vec<&str> = history
        .iter()
        .map(|r| r.results[0].summary.as_str())
        .collect();
    assert_eq!(
        summaries,
        ["", "", "the newest full run", "a rerun after it"]
    );
    assert_eq!(
        history[2..],
        whole[2..],
        "read whole from the newest full run on"
    );
    for (outline, whole) in history.iter().zip(&whole).take(2) {
        let said = |r: &Report| {
            let results: Vec<_> = r
                .results
                .iter()
                .map(|x| (x.check.clone(), x.device.clone(), x.status))
                .collect();
            (
                r.run_id.clone(),
                r.started_at.clone(),
                r.status,
                r.partial,
                results,
            )
        };
        assert_eq!(said(outline), said(whole), "escaped as a whole report is");
    }
    let current = report("20261201T081500.000", "t5", fail("now"));
    // The archive escapes the device's name: a run that judges it again names it so.
    let mut ok_now = report("20261201T081500.000", "t5", whole[3].results.clone());
    ok_now.results[0].status = Status::Ok;
    let fixed = crate::history::changes(&whole, &ok_now).unwrap().fixed;
    assert!(fixed[0].blocked, "{fixed:?}");
    // What a run's history says over `read` is what it says over every report whole.
    let says_the_same = |read: &[Report]| {
        for now in [&current, &ok_now] {
            assert_eq!(
                crate::history::changes(read, now),
                crate::history::changes(&whole, now)
            );
        }
        assert_eq!(
            crate::history::last_failed(read),
            crate::history::last_failed(&whole)
        );
    };
    says_the_same(&history);
    let (reaching, _) = archive.history_reaching(|r| r.partial).unwrap();
    let counts: Vec<usize> = reaching.iter().map(|r| r.results.len()).collect();
    let n = |r: &Report| r.results.len();
    assert!(n(&whole[2]) > 0 && n(&whole[3]) > 0);
    assert_eq!(
        counts,
        [0, 0, n(&whole[2]), n(&whole[3])],
        "read back to the newest full run"
    );
    assert_eq!(
        crate::history::last_failed(&reaching),
        crate::history::last_failed(&whole)
    );
    let (outline, _) = archive.history_outline().unwrap();
    assert!(outline.iter().all(|r| r.results[0].summary.is_empty()));
    says_the_same(&outline);
}

//! The reference store written by runs and `accept`, and read back.

use super::*;
use crate::{CheckResult, Report};
use premarket_core::{Command, Platform, Status};

fn key(command: &str) -> QueryKey {
    QueryKey {
        command: Command::new(command),
        kind: command.into(),
    }
}

fn record(command: &str, run: &str, value: i64) -> Recorded {
    Recorded {
        key: key(command),
        run_id: run.into(),
        collected_at: None,
        fact: serde_json::json!(value).into(),
        masked: false,
    }
}

/// A run of sw1 reading `config` and `counters` (the given values), in which `ok` were judged
/// OK, as the inspection hands it to the archive.
fn run(run: &str, config: i64, counters: i64, ok: &[&str]) -> DeviceOutputs {
    let reads = |check: &str| match check {
        "cfg" => vec![key("show config")],
        _ => vec![key("show counters")],
    };
    DeviceOutputs {
        device: "sw1".into(),
        platform: Platform::Eos,
        outputs: Vec::new(),
        facts: vec![
            record("show config", run, config),
            record("show counters", run, counters),
        ],
        advance: Advance {
            checks: ok.iter().map(|c| (c.to_string(), reads(c))).collect(),
            box_facts: None,
        },
    }
}

/// A run's report judging "cfg" on sw1 `status`, with `device`'s outputs.
fn archived(id: &str, status: Status, device: DeviceOutputs) -> Report {
    let results = vec![CheckResult::new("cfg", "sw1", status, "")];
    let mut report = Report::new(id.into(), "lab".into(), "t".into(), "t".into(), results);
    report.raw = vec![device];
    report
}

fn value(refs: &DeviceReferences, check: &str, command: &str) -> Option<String> {
    match refs.reference(check) {
        Reference::Reading { previous, .. } => previous
            .get(&key(command))
            .map(|r| format!("{} {}", r.run_id, r.fact.text())),
        Reference::First => None,
        Reference::Missing(why) => Some(why),
    }
}

#[test]
fn only_an_ok_judgement_or_an_acceptance_moves_a_reference() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    let store = archive.references();
    let at = "2026-12-05T00:00:00Z";
    store
        .advance(&run("r1", 1, 10, &["cfg", "errors"]), at)
        .unwrap();
    // r2: the configuration changed (cfg FAIL), the counters did not grow (errors OK).
    store.advance(&run("r2", 2, 10, &["errors"]), at).unwrap();
    // r3, a rerun: still changed, and the counters grew (both FAIL).
    store.advance(&run("r3", 2, 15, &[]), at).unwrap();
    let refs = store.of("sw1").unwrap();
    assert_eq!(value(&refs, "cfg", "show config").as_deref(), Some("r1 1"));
    assert_eq!(
        value(&refs, "errors", "show counters").as_deref(),
        Some("r2 10")
    );
    assert_eq!(
        value(&refs, "other", "show config"),
        None,
        "never judged: first"
    );
    assert!(matches!(refs.reference("other"), Reference::First));
    // Each check holds its own queries' records; a reading two share is kept once.
    assert!(value(&refs, "cfg", "show counters").is_none());
    let text = std::fs::read_to_string(dir.path().join("references/sw1.json")).unwrap();
    assert_eq!(text.matches("\"run_id\":\"r1\"").count(), 2, "{text}");

    let accepted = Accepted {
        by: "alice".into(),
        at: "2026-12-05T08:00:00+08:00".into(),
        reason: "planned\u{1b}[2J".into(),
        ticket: Some("CHG123".into()),
    };
    store
        .accept(
            "sw1",
            &[("cfg".into(), vec![record("show config", "r3", 2)])],
            &accepted,
        )
        .unwrap();
    let refs = store.of("sw1").unwrap();
    assert_eq!(value(&refs, "cfg", "show config").as_deref(), Some("r3 2"));
    let Reference::Reading {
        accepted: Some(a), ..
    } = refs.reference("cfg")
    else {
        panic!("accepted: {:?}", refs.reference("cfg"));
    };
    assert_eq!(
        (a.by.as_str(), a.ticket.as_deref()),
        ("alice", Some("CHG123"))
    );
    assert!(
        !a.reason.contains('\u{1b}'),
        "escaped as read back: {}",
        a.reason
    );
    let log = store.accepted_log();
    assert_eq!(log.len(), 1);
    assert_eq!(
        (log[0].device.as_str(), log[0].checks.as_slice()),
        ("sw1", &["cfg".to_string()][..])
    );
    assert_eq!(log[0].runs, ["r3"]);

    // The next OK reading replaces the accepted one: no acceptance any more.
    store.advance(&run("r4", 2, 15, &["cfg"]), at).unwrap();
    let refs = store.of("sw1").unwrap();
    assert!(refs.reference("cfg").accepted().is_none());
}

#[test]
fn box_facts_move_with_full_runs_and_keep_what_a_run_did_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = Archive::new(dir.path()).references();
    let boxed = |run: &str, facts: &[(&str, &str)]| {
        let facts: BoxFacts = facts
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut device = run_facts(run);
        device.advance.box_facts = Some(Recorded {
            key: key(" box facts"),
            run_id: run.into(),
            collected_at: None,
            fact: FactJson::of(&facts),
            masked: false,
        });
        device
    };
    fn run_facts(run_id: &str) -> DeviceOutputs {
        run(run_id, 1, 1, &[])
    }
    let at = "t";
    store
        .advance(&boxed("r1", &[("version", "1"), ("link", "up")]), at)
        .unwrap();
    store
        .advance(&boxed("r2", &[("version", "2")]), at)
        .unwrap();
    let refs = store.of("sw1").unwrap();
    let b = refs.box_facts.expect("box facts");
    let read = |r: Option<Recorded>| r.map(|r| r.fact.read::<BoxFacts>().unwrap());
    let current = read(b.current).unwrap();
    assert_eq!(current["version"], "2");
    assert_eq!(current["link"], "up", "not read in r2: kept");
    assert_eq!(read(b.compared).unwrap()["version"], "1");
}

#[test]
fn a_damaged_store_is_an_error_not_a_first_reading() {
    let dir = tempfile::tempdir().unwrap();
    let store = Archive::new(dir.path()).references();
    store.advance(&run("r1", 1, 1, &["cfg"]), "t").unwrap();
    let path = dir.path().join("references/sw1.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"records\":[0]", "\"records\":[7]")).unwrap();
    let err = store.of("sw1").unwrap_err().to_string();
    assert!(err.contains("record 7"), "{err}");
    std::fs::write(&path, "{").unwrap();
    assert!(store.of("sw1").is_err());
}

#[test]
fn the_store_is_no_run_and_retention_leaves_it() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    let mut report = archived("r1", Status::Ok, run("r1", 1, 1, &["cfg"]));
    archive.write(&mut report).unwrap();
    assert!(dir.path().join("references/sw1.json").is_file());
    assert_eq!(archive.run_ids().unwrap(), ["r1"]);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(90 * 86_400);
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::File::open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let removed = archive.prune(30).unwrap();
    assert_eq!(removed, [dir.path().join("r1")]);
    let refs = archive.references().of("sw1").unwrap();
    assert!(
        value(&refs, "cfg", "show config").is_some_and(|v| v == "r1 1"),
        "the reference outlives its run"
    );
}

#[test]
fn an_older_archive_is_migrated_once() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Archive::new(dir.path());
    for (id, status) in [("r1", Status::Ok), ("r2", Status::Fail)] {
        let mut report = archived(id, status, run(id, 1, 1, &[]));
        archive.write(&mut report).unwrap();
    }
    // Written before the store: none yet.
    std::fs::remove_dir_all(dir.path().join(REFERENCES)).ok();
    let refs = archive.references().of("sw1").unwrap();
    assert_eq!(value(&refs, "cfg", "show config").as_deref(), Some("r1 1"));
    assert!(dir.path().join("references/sw1.json").is_file(), "written");
    // With the OK run gone, the FAIL has no reference: ERROR, not a first reading.
    std::fs::remove_dir_all(dir.path().join(REFERENCES)).unwrap();
    std::fs::remove_dir_all(dir.path().join("r1")).unwrap();
    let refs = archive.references().of("sw1").unwrap();
    assert!(
        matches!(refs.reference("cfg"), Reference::Missing(why) if why.contains("r2")),
        "{:?}",
        refs.reference("cfg")
    );
}

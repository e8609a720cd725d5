//! Evaluation is bounded. `validate` refuses a rule path nested past the budget, at its place.
//! A rule that the budget admits but that is slow anyway (a JSONPath `match()` compiles its
//! regex once per node) runs over the lab's real output, collected over SSH: past the budget
//! per check it is ERROR naming the path and the run goes on; at the deadline it is ERROR and
//! the report (the email, written to a file) still goes out on time.

use crate::common;

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use assert_cmd::Command as Bin;
use premarket::Status;
use premarket::lab::Lab;
use premarket::report::email::EmailMode;
use premarket::run::{Request, drive};

/// Nested four filters deep, each over every descendant: minutes over a few hundred kilobytes.
const NESTED: &str = "$..[?@..[?@..[?@..zz]]]";

/// Within the nesting budget, but `match()` compiles its regex for every string it meets:
/// about 0.15 s each in a release build, 0.7 s in a debug one, and the lab's `show interfaces
/// | json` holds hundreds of strings.
const SLOW: &str = r#"$..[?match(@, "\\w{1,100}x")]"#;

/// A declarative EOS check over `show interfaces | json` with `path`, appended to the catalog.
fn catalog_entry(id: &str, path: &str) -> String {
    format!(
        "\n- id: {id}\n  title: Interface texts are short words\n  platform: eos\n  remedy: Narrow the rule.\n  \
         command: show interfaces | json\n  rule:\n    path: '{path}'\n    count_at_most: 0\n"
    )
}

fn append(file: &Path, text: &str) -> usize {
    let before = std::fs::read_to_string(file).expect("read catalog");
    std::fs::write(file, format!("{before}{text}")).expect("write catalog");
    before.lines().count()
}

/// The lab's site without its 08:45 deadline (a run near that time would be cut by it).
fn without_deadline(site: &Path) {
    let file = site.join("baselines/site.yaml");
    let text = std::fs::read_to_string(&file).expect("site.yaml");
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("deadline:"))
        .collect();
    std::fs::write(&file, kept.join("\n") + "\n").expect("write site.yaml");
}

#[test]
fn validate_refuses_a_path_nested_past_the_budget_at_its_place() {
    let site = common::Site::example();
    let catalog = site.path().join("checks/eos.yaml");
    let lines = append(&catalog, &catalog_entry("eos.interfaces.nested", NESTED));
    let out = Bin::cargo_bin("premarket")
        .unwrap()
        .timeout(Duration::from_secs(60))
        .arg("--dir")
        .arg(site.path())
        .arg("validate")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    // The entry starts after a blank line; `path:` is its 7th line, the value at column 11.
    let at = format!("eos.yaml:{}:11: ", lines + 8);
    assert!(
        stderr
            .lines()
            .any(|l| l.contains(&at) && l.contains(NESTED) && l.contains("nest")),
        "wanted an error at {at} naming the path and its nesting:\n{stderr}"
    );
}

/// Starts the healthy lab (a FortiGate and a switch over loopback SSH) on `rt`, with the slow
/// rule in its catalog and no deadline in its site.
fn lab_with_slow_rule(rt: &tokio::runtime::Runtime) -> Lab {
    let lab = rt.block_on(Lab::start(&[], 2)).expect("lab");
    append(
        &lab.site_dir.join("checks/eos.yaml"),
        &catalog_entry("eos.interfaces.slow", SLOW),
    );
    without_deadline(&lab.site_dir);
    lab
}

/// The slow rule's result, which is an ERROR.
fn slow_check(report: &premarket::Report) -> &premarket::report::CheckResult {
    let slow = report
        .results
        .iter()
        .find(|r| r.check == "eos.interfaces.slow")
        .expect("the slow check is in the report");
    assert_eq!(slow.status, Status::Error, "{slow:#?}");
    slow
}

#[test]
fn an_evaluation_past_its_budget_is_error_naming_the_path_and_the_run_goes_on() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let lab = lab_with_slow_rule(&rt);
    let start = Instant::now();
    let out = Bin::cargo_bin("premarket")
        .unwrap()
        .timeout(Duration::from_secs(90))
        .arg("--dir")
        .arg(&lab.site_dir)
        .args(["run", "--format", "json", "--no-email", "--device", "sw1"])
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: premarket::Report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report after {took:?} ({e}):\n{stderr}"));
    // The budget is 10 s per check; the lab answers in about a second.
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let slow = slow_check(&report);
    assert!(
        slow.summary.contains(SLOW) && slow.summary.contains("10 s"),
        "names the path and the budget: {}",
        slow.summary
    );
    assert!(slow.remedy.contains("premarket check"), "{}", slow.remedy);
    // The other checks of the switch were judged as usual.
    let version = report
        .results
        .iter()
        .find(|r| r.check == "eos.version.pinned")
        .expect("eos.version.pinned");
    assert_eq!(version.status, Status::Ok, "{version:#?}");
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    rt.block_on(lab.shutdown());
}

#[test]
fn the_deadline_bounds_evaluation_and_the_email_still_goes_out() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let lab = lab_with_slow_rule(&rt);
    let tz = chrono_tz::Asia::Taipei;
    let now = chrono::Utc::now().with_timezone(&tz);
    // Collection takes a second or two; the slow rule would take minutes; its budget (10 s)
    // ends after the deadline.
    let deadline = now + chrono::Duration::seconds(7);
    if deadline.date_naive() != now.date_naive() {
        return; // seconds before midnight the deadline would be tomorrow's
    }
    let eml = lab.site_dir.join("report.eml");
    let request = Request {
        dir: lab.site_dir.clone(),
        deadline: Some(deadline.time()),
        email: Some(EmailMode::ToFile(eml.clone())),
        archive: true,
        ..Request::default()
    };
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(drive(request));
    });
    let outcome = rx
        .recv_timeout(Duration::from_secs(40))
        .unwrap_or_else(|_| panic!("the run was still going 40 s in, past its 7 s deadline"));
    let took = start.elapsed();
    assert!(took < Duration::from_secs(12), "took {took:?}");
    let report = outcome.report.expect("a report");
    let slow = slow_check(&report);
    assert!(
        slow.summary.contains("deadline") && slow.summary.contains(SLOW),
        "{}",
        slow.summary
    );
    // What finished was judged.
    for id in ["eos.version.pinned", "eos.lanz.running"] {
        let r = report.results.iter().find(|r| r.check == id).expect(id);
        assert_eq!(r.status, Status::Ok, "{r:#?}");
    }
    let mail = std::fs::read_to_string(&eml).expect("the email was written");
    assert!(mail.contains("eos.interfaces.slow"), "{mail}");
    assert_eq!(outcome.code, 2, "{:?}", outcome.messages);
    rt.block_on(lab.shutdown());
}

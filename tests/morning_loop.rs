//! The on-call loop of issue 32 as one story over real SSH against the lab: the real binary
//! inspects the lab's firewall and switch, someone changes the switch's configuration (over SSH,
//! saved), on-call reads the FAIL, reruns, reverts, accepts; a port counts errors, on-call
//! reruns, accepts, the counters go down. Every comparison judges against the reference (the
//! reading of the newest run that judged it OK, or an accepted one), never against the failing
//! run itself: a rerun that fixed nothing is still FAIL and never "RECOVERED".
//!
//! Each step is a method of [`Morning`] that leaves the lab and the archive as the next step
//! expects; a new step is appended to [`the_morning_loop`].

use std::path::PathBuf;
use std::process::Output;

use assert_cmd::Command;
use premarket::lab::{Fault, Lab};
use premarket::{Report, Status};

use crate::lab_support::eos_ready;

const CONFIG: &str = "eos.config.unchanged";
const ERRORS: &str = "eos.interfaces.errors";
/// The planned change, acknowledged then accepted.
const PLANNED: &str = "ip host md-backup 10.2.2.9";

/// The lab, its site (the archive inside it) and where each run writes its email.
struct Morning {
    rt: tokio::runtime::Runtime,
    lab: Option<Lab>,
    site: PathBuf,
    email: PathBuf,
    /// The configuration lines this test typed (premarket must never add one).
    typed: std::cell::Cell<usize>,
}

impl Morning {
    fn start() -> Morning {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let lab = rt.block_on(Lab::start(&[], 2)).expect("lab");
        let site = lab.site_dir.clone();
        // No deadline: the lab's 08:45 would cut a run near that time.
        let site_file = site.join("baselines/site.yaml");
        let text = std::fs::read_to_string(&site_file).expect("site.yaml");
        let text: String = text
            .lines()
            .filter(|l| !l.starts_with("deadline:"))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&site_file, text).expect("site.yaml");
        Morning {
            rt,
            email: site.join("last.eml"),
            lab: Some(lab),
            site,
            typed: Default::default(),
        }
    }

    fn lab(&self) -> &Lab {
        self.lab.as_ref().expect("the lab runs")
    }

    /// `premarket --dir SITE ARGS`, as cron or on-call types it.
    fn premarket(&self, args: &[&str]) -> Output {
        Command::new(crate::email_support::bin())
            .arg("--dir")
            .arg(&self.site)
            .args(args)
            .env("NO_COLOR", "1")
            .timeout(std::time::Duration::from_secs(180))
            .output()
            .expect("premarket runs")
    }

    /// `premarket ARGS --format json --email-to-file EMAIL`: the exit code and the report.
    fn inspect(&self, args: &[&str]) -> (i32, Report) {
        let mut all = args.to_vec();
        let email = self.email.to_str().expect("utf-8 path");
        all.extend(["--format", "json", "--email-to-file", email]);
        let out = self.premarket(&all);
        let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: no JSON report ({e}); stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap_or(-1), report)
    }

    /// The full morning run.
    fn run(&self) -> (i32, Report) {
        self.inspect(&["run"])
    }

    /// The rerun a report prints for `check` on sw1.
    fn rerun(&self, check: &str) -> (i32, Report) {
        self.inspect(&["check", check, "--device", "sw1"])
    }

    /// `premarket ack CHECK --device sw1 --until UNTIL` for the planned change.
    fn ack(&self, check: &str, until: chrono::NaiveDate) {
        let until = until.format("%Y-%m-%d").to_string();
        let out = self.premarket(&[
            "ack",
            check,
            "--device",
            "sw1",
            "--until",
            &until,
            "--reason",
            "backup gateway, window tonight",
            "--ticket",
            "CHG123",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn accept(&self, check: &str, reason: &str, ticket: &str) -> String {
        let out = self.premarket(&[
            "accept", "--device", "sw1", "--check", check, "--reason", reason, "--ticket", ticket,
        ]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }

    /// The text body of the last run's email.
    fn email(&self) -> String {
        let eml = std::fs::read(&self.email).expect("email");
        let mail = mail_parser::MessageParser::default()
            .parse(&eml)
            .expect("mime");
        mail.body_text(0).unwrap_or_default().into_owned()
    }

    /// Types `lines` in the switch's configuration mode over SSH and saves them, as an
    /// engineer at the switch's CLI would.
    fn configure_switch(&self, lines: &[&str]) {
        self.rt.block_on(async {
            let (_handle, mut term) = eos_ready(self.lab()).await;
            term.cmd("configure").await;
            for line in lines {
                term.cmd(line).await;
            }
            term.cmd("end").await;
            term.cmd("write memory").await;
        });
        self.typed.set(self.typed.get() + lines.len() + 3);
    }

    /// The FCS error counter of a trading port starts (or stops) counting.
    fn optic_errors(&self, on: bool) {
        assert!(self.lab().switch_fault("sw1", Fault::CrcErrors, on));
    }

    // The steps, in the order the morning goes.

    fn first_run_records(&self) {
        let (code, report) = self.run();
        assert_eq!(code, 0, "a healthy morning: {}", not_ok(&report));
        assert!(result(&report, CONFIG).summary.starts_with("first run"));
    }

    fn a_saved_change_fails(&self) {
        self.configure_switch(&["ip host rogue-tap 10.66.6.6"]);
        let run = self.run();
        let r = the_rogue_line_fails(&run);
        assert!(
            r.remedy
                .contains("premarket accept --device sw1 --check eos.config.unchanged"),
            "{}",
            r.remedy
        );
    }

    fn a_rerun_without_the_revert_still_fails(&self) {
        let rerun = self.rerun(CONFIG);
        the_rogue_line_fails(&rerun);
        assert_eq!(rerun.1.standing_status, Some(Status::Fail));
        assert!(!self.email().contains("RECOVERED"), "no false all-clear");
    }

    fn the_revert_is_ok_at_the_first_rerun(&self) {
        self.configure_switch(&["no ip host rogue-tap 10.66.6.6"]);
        let (code, report) = self.rerun(CONFIG);
        let r = result(&report, CONFIG);
        assert_eq!((code, r.status), (0, Status::Ok), "{r:?}");
        assert_eq!(report.standing_status, Some(Status::Ok));
        assert!(
            self.email().contains("RECOVERED"),
            "everything that failed is OK"
        );
    }

    /// A planned change FAILs; acknowledged until a day, it reads OK on the first screen and
    /// exits 0 while it FAILs on; another change beside it is not covered; the
    /// acknowledgement moves no reference, so once it ends the change FAILs again.
    fn an_acknowledged_change_fails_on_until_its_day(&self) {
        self.configure_switch(&[PLANNED]);
        let (code, report) = self.run();
        assert_eq!((code, result(&report, CONFIG).status), (1, Status::Fail));
        let today = chrono::Utc::now()
            .with_timezone(&chrono_tz::Asia::Taipei)
            .date_naive();
        let until = today + chrono::Duration::days(3);
        self.ack(CONFIG, until);
        let (code, report) = self.rerun(CONFIG);
        let r = result(&report, CONFIG);
        assert_eq!((code, r.status), (0, Status::Fail), "{r:?}");
        assert!(r.acknowledged.is_some(), "{r:?}");
        let email = self.email();
        let heading = format!("Acknowledged (until {}, CHG123)", until.format("%m-%d"));
        assert!(email.contains(&heading), "{email}");
        assert!(!email.contains("RECOVERED"), "{email}");

        // Another line beside the acknowledged one: a FAIL the ack does not cover.
        self.configure_switch(&["ip host rogue-two 10.66.6.7"]);
        let (code, report) = self.rerun(CONFIG);
        let r = result(&report, CONFIG);
        assert_eq!((code, r.status), (1, Status::Fail), "{r:?}");
        assert!(r.acknowledged.is_none(), "{r:?}");
        self.configure_switch(&["no ip host rogue-two 10.66.6.7"]);
        let (code, report) = self.rerun(CONFIG);
        assert_eq!(code, 0, "{:?}", result(&report, CONFIG));

        // Written until today, the ack ended at midnight: the change FAILs against the reference
        // the acknowledged runs never moved.
        let acks = self.site.join("baselines/acks.yaml");
        let file = std::fs::read_to_string(&acks).expect("acks.yaml");
        let day = |d: chrono::NaiveDate| format!("until: {}", d.format("%Y-%m-%d"));
        std::fs::write(&acks, file.replace(&day(until), &day(today))).expect("acks.yaml");
        let (code, report) = self.rerun(CONFIG);
        let r = result(&report, CONFIG);
        assert_eq!((code, r.status), (1, Status::Fail), "{r:?}");
        assert!(
            r.acknowledged.is_none() && r.evidence.contains(PLANNED),
            "{r:?}"
        );
    }

    fn an_accepted_change_is_the_new_reference(&self) {
        let said = self.accept(CONFIG, "backup market-data gateway", "CHG123");
        assert!(said.contains(CONFIG), "{said}");
        let site = self.site.to_str().expect("utf-8 path");
        assert!(
            said.contains(&format!(
                "premarket check {CONFIG} --device sw1 --dir {site}"
            )),
            "the command to rerun: {said}"
        );
        let (code, report) = self.run();
        let r = result(&report, CONFIG);
        assert_eq!((code, r.status), (0, Status::Ok), "{r:?}");
        let accepted = r.accepted.as_ref().expect("accepted");
        assert_eq!(
            (accepted.reason.as_str(), accepted.ticket.as_deref()),
            ("backup market-data gateway", Some("CHG123"))
        );
        let email = self.email();
        assert!(
            email.contains(&format!("accepted by {} (CHG123)", accepted.by)),
            "{email}"
        );
        let out = self.premarket(&["history", "--check", CONFIG]);
        let history = String::from_utf8_lossy(&out.stdout);
        assert!(
            history.contains(&format!(
                "sw1: {CONFIG}  accepted by {} (CHG123): backup market-data gateway",
                accepted.by
            )),
            "{history}"
        );
        // The run after: judged against that run's OK reading, no acceptance to show.
        let (_, later) = self.rerun(CONFIG);
        assert!(result(&later, CONFIG).accepted.is_none());
    }

    fn counter_growth_stands_until_accepted(&self) {
        self.optic_errors(true);
        let (code, report) = self.run();
        assert_eq!((code, result(&report, ERRORS).status), (1, Status::Fail));
        // Minutes later nothing new counted: not a fix.
        let (code, report) = self.rerun(ERRORS);
        let r = result(&report, ERRORS);
        assert_eq!((code, r.status), (1, Status::Fail), "{r:?}");
        assert!(!self.email().contains("RECOVERED"));
        // The optic replaced, the counters left as they are: accept the reading.
        self.accept(ERRORS, "optic on Ethernet3 replaced", "INC77");
        let (_, report) = self.rerun(ERRORS);
        let r = result(&report, ERRORS);
        assert_eq!(r.status, Status::Ok, "{r:?}");
        assert!(r.accepted.is_some());
    }

    fn counter_growth_clears_when_the_counter_goes_down(&self) {
        // Cleared on the device: below the accepted reading, the comparison restarts.
        self.optic_errors(false);
        let (_, report) = self.rerun(ERRORS);
        assert_eq!(result(&report, ERRORS).status, Status::Ok);
        // Counting again, then cleared again without any acceptance.
        self.optic_errors(true);
        let (code, report) = self.rerun(ERRORS);
        assert_eq!((code, result(&report, ERRORS).status), (1, Status::Fail));
        self.optic_errors(false);
        let (code, report) = self.rerun(ERRORS);
        let r = result(&report, ERRORS);
        assert_eq!((code, r.status), (0, Status::Ok), "{r:?}");
        assert!(r.accepted.is_none());
    }

    fn shutdown(mut self) {
        if let Some(lab) = self.lab.take() {
            let attempts = lab.config_attempts();
            self.rt.block_on(lab.shutdown());
            // Only the test's own session configured anything; premarket never did.
            assert_eq!(attempts.len(), self.typed.get(), "{attempts:?}");
        }
    }
}

/// The configuration check FAILs on the line added behind on-call's back, exit 1.
fn the_rogue_line_fails((code, report): &(i32, Report)) -> &premarket::report::CheckResult {
    let r = result(report, CONFIG);
    assert_eq!((*code, r.status), (1, Status::Fail), "{r:?}");
    assert!(
        r.evidence.contains("+ip host rogue-tap 10.66.6.6"),
        "{}",
        r.evidence
    );
    r
}

fn result<'a>(report: &'a Report, check: &str) -> &'a premarket::report::CheckResult {
    report
        .results
        .iter()
        .find(|r| r.check == check && r.device == "sw1")
        .unwrap_or_else(|| panic!("no {check} on sw1: {}", not_ok(report)))
}

fn not_ok(report: &Report) -> String {
    report
        .results
        .iter()
        .filter(|r| r.status != Status::Ok)
        .map(|r| format!("{} {} {}: {}", r.status, r.device, r.check, r.summary))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_morning_loop() {
    let morning = Morning::start();
    morning.first_run_records();
    morning.a_saved_change_fails();
    morning.a_rerun_without_the_revert_still_fails();
    morning.the_revert_is_ok_at_the_first_rerun();
    morning.an_acknowledged_change_fails_on_until_its_day();
    morning.an_accepted_change_is_the_new_reference();
    morning.counter_growth_stands_until_accepted();
    morning.counter_growth_clears_when_the_counter_goes_down();
    morning.shutdown();
}

//! A stop signal still reports. The real binary inspects the lab over SSH while the firewall
//! hangs on its first command; once the switch is done, it gets SIGTERM (systemd stopping the
//! unit). It must stop collecting, judge what it has (the firewall's checks ERROR
//! "interrupted"), archive, write or queue the email and exit with the verdicts' code within
//! the grace (10 s). A relay that hangs cannot hold it past the grace: the email is queued in
//! the outbox. A second signal exits at once.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use premarket::lab::{Lab, Scenario};
use premarket::{Config, Plan, Report, Selection, Status};

/// What the binary promises between the first signal and its exit.
const GRACE: Duration = Duration::from_secs(10);

struct Running {
    lab: Lab,
    rt: tokio::runtime::Runtime,
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// The lab with the firewall hung on its first command, `site.yaml` changed by `edit`, and
/// `premarket run ARGS` started on it; returns once the switch has been sent its last command.
fn start(edit: impl Fn(&str) -> String, args: &[&str]) -> Running {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hang: Scenario = "hang".parse().unwrap();
    let lab = rt.block_on(Lab::start(&[hang], 2)).expect("lab");
    let site_file = lab.site_dir.join("baselines/site.yaml");
    let site = std::fs::read_to_string(&site_file).unwrap();
    // No deadline: the lab's 08:45 would cut a run near that time.
    let site: String = site
        .lines()
        .filter(|l| !l.starts_with("deadline:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&site_file, edit(&site)).unwrap();
    let config = Config::load(&lab.site_dir).unwrap_or_else(|e| panic!("{e}"));
    let plan = Plan::new(&config, &Selection::default()).unwrap();
    let sw1 = plan
        .devices
        .iter()
        .find(|d| d.device.name.as_str() == "sw1")
        .expect("sw1 is planned");
    let last = sw1.commands.last().cloned().expect("sw1 has commands");
    // The last command may be a second sample of an earlier one: the same text, sent again.
    let times = sw1.commands.iter().filter(|c| c.text == last.text).count();
    let stdout = lab.site_dir.join("stdout.json");
    let stderr = lab.site_dir.join("stderr.txt");
    let child = Command::new(assert_cmd::cargo::cargo_bin("premarket"))
        .arg("--dir")
        .arg(&lab.site_dir)
        .arg("run")
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::from(std::fs::File::create(&stdout).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&stderr).unwrap()))
        .spawn()
        .expect("spawn premarket");
    let began = Instant::now();
    while lab
        .journal()
        .commands("sw1")
        .iter()
        .filter(|c| c.contains(&last.text))
        .count()
        < times
    {
        assert!(
            began.elapsed() < Duration::from_secs(30),
            "sw1 never got `{}`",
            last.text
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Its answer and the logout.
    std::thread::sleep(Duration::from_secs(1));
    Running {
        lab,
        rt,
        child,
        stdout,
        stderr,
    }
}

impl Running {
    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the exit (at most `limit`); the exit code and how long it took.
    fn wait(&mut self, limit: Duration) -> (Option<i32>, Duration) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status.code(), start.elapsed());
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "still running {limit:?} after the signal:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn report(&self) -> Report {
        let json = std::fs::read_to_string(&self.stdout).unwrap_or_default();
        serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("no JSON report ({e}):\n{json}\n{}", self.stderr()))
    }

    fn archive(&self) -> PathBuf {
        self.lab.site_dir.join("archive")
    }

    fn finish(self) {
        assert!(self.lab.config_attempts().is_empty());
        self.rt.block_on(self.lab.shutdown());
    }
}

/// The firewall's checks are ERROR "interrupted", the switch's were judged.
fn judged_what_was_collected(report: &Report) {
    let fw: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.device == "fw1")
        .collect();
    let sw: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.device == "sw1")
        .collect();
    assert!(!fw.is_empty() && !sw.is_empty(), "{report:#?}");
    for r in fw {
        assert_eq!(r.status, Status::Error, "{r:#?}");
        assert!(r.summary.contains("interrupted"), "{}", r.summary);
    }
    for r in sw {
        assert!(!r.summary.contains("interrupted"), "{r:#?}");
    }
    assert!(
        report
            .devices_not_inspected
            .iter()
            .any(|d| d.device == "fw1" && d.cause == "interrupted"),
        "{:#?}",
        report.devices_not_inspected
    );
}

fn archived_reports(archive: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(archive)
        .map(|dir| {
            dir.flatten()
                .map(|e| e.path().join("report.json"))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default()
}

fn outbox(archive: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(archive.join("outbox"))
        .map(|dir| {
            dir.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigterm_mid_run_judges_what_was_collected_archives_and_emails_within_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let eml = dir.path().join("report.eml");
    let mut run = start(
        |site| site.to_string(),
        &["--format", "json", "--email-to-file", eml.to_str().unwrap()],
    );
    run.signal("TERM");
    let (code, took) = run.wait(GRACE + Duration::from_secs(5));
    assert!(took < GRACE, "exited {took:?} after SIGTERM");
    assert_eq!(code, Some(2), "ERROR, no FAIL:\n{}", run.stderr());
    let report = run.report();
    judged_what_was_collected(&report);
    let mail = std::fs::read_to_string(&eml).expect("the email was written");
    assert!(mail.contains("interrupted"), "{mail}");
    assert_eq!(
        archived_reports(&run.archive()).len(),
        1,
        "one archived run"
    );
    assert!(run.stderr().contains("SIGTERM"), "{}", run.stderr());
    run.finish();
}

/// Accepts connections and never speaks.
fn hanging_relay() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

/// site.yaml with its `email:` block pointed at `port` (no TLS, 30 s per attempt).
fn relay_at(port: u16) -> impl Fn(&str) -> String {
    move |site: &str| {
        let mut out = String::new();
        let mut skipping = false;
        for line in site.lines() {
            if line.starts_with("email:") {
                skipping = true;
                out.push_str(&format!(
                    "email:\n  host: 127.0.0.1\n  port: {port}\n  tls: none\n  from: \"premarket <premarket@lab.test>\"\n  \
                     to: [\"oncall@lab.test\"]\n  timeout_s: 30\n  retry_for_s: 120\n"
                ));
                continue;
            }
            if skipping && (line.starts_with(' ') || line.starts_with('#') || line.is_empty()) {
                continue;
            }
            skipping = false;
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

#[test]
fn sigterm_with_a_hanging_relay_queues_the_email_within_the_grace() {
    let port = hanging_relay();
    let mut run = start(relay_at(port), &["--format", "json"]);
    run.signal("TERM");
    let (code, took) = run.wait(GRACE + Duration::from_secs(5));
    assert!(took < GRACE, "exited {took:?} after SIGTERM");
    assert_eq!(code, Some(2), "{}", run.stderr());
    judged_what_was_collected(&run.report());
    assert_eq!(
        outbox(&run.archive()).len(),
        1,
        "the email is queued for the next run:\n{}",
        run.stderr()
    );
    assert_eq!(archived_reports(&run.archive()).len(), 1);
    run.finish();
}

#[test]
fn a_second_signal_exits_at_once() {
    let port = hanging_relay();
    let mut run = start(relay_at(port), &["--format", "json"]);
    run.signal("TERM");
    // The run is now judging, archiving and trying the relay, which never answers.
    std::thread::sleep(Duration::from_secs(1));
    run.signal("INT");
    let (code, took) = run.wait(GRACE);
    // Tens of milliseconds when the machine is idle; without the second signal the relay
    // would hold it about 6 s more.
    assert!(
        took < Duration::from_secs(2),
        "exited {took:?} after the second signal"
    );
    assert_eq!(code, Some(130), "128 + SIGINT:\n{}", run.stderr());
    assert!(run.stderr().contains("at once"), "{}", run.stderr());
    run.finish();
}

//! The deadline: a device that has not answered by then is one "not finished by the deadline"
//! block (every check it blocked ERROR), and the report (here the email, written to a file)
//! still comes out on time. A deadline that passed minutes ago is missed today, not moved to
//! tomorrow: the run goes ahead bounded by a short grace and says so.

use crate::email_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use email_support::*;
use premarket::collect::offline::Offline;
use premarket::collect::{BoxFuture, Collector};
use premarket::core::Outputs;
use premarket::inspect::{Limits, inspect};
use premarket::plan::DevicePlan;
use premarket::report::channel::{Channel, Context, Deadline};
use premarket::report::email::{EmailChannel, EmailMode};
use premarket::report::redact::Redactor;
use premarket::{Config, Plan, Selection, Status};

/// Answers like the offline collector, but only after a long stall.
struct Stalled(Offline);

impl Collector for Stalled {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(30)).await;
            self.0.collect(plan).await
        })
    }
}

#[tokio::test]
async fn what_is_not_finished_by_the_deadline_is_error_and_the_email_still_goes_out() {
    let site = Site::new("archive:\n  dir: archive\n");
    let config = Config::load(site.path()).expect("config");
    let plan = Plan::new(&config, &Selection::default()).expect("plan");
    let collector = Arc::new(Stalled(Offline::new(scenario("healthy"))));
    let mut limits = Limits::from_config(&config);
    let now = chrono::Utc::now();
    let at = now.with_timezone(&config.site.timezone) + chrono::Duration::milliseconds(300);
    limits.deadline = Some(tokio::time::Instant::now() + Duration::from_millis(300));

    let start = Instant::now();
    let mut report = inspect(&config, plan.clone(), collector, &limits).await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(report.status, Status::Error);
    assert!(
        report.results.iter().all(
            |r| r.status == Status::Error && r.summary.contains("not finished by the deadline")
        ),
        "{:#?}",
        report.results
    );
    // One block for the device, naming every check it blocked.
    assert_eq!(report.devices_not_inspected.len(), 1);
    let down = &report.devices_not_inspected[0];
    assert_eq!(
        (
            down.device.as_str(),
            down.cause.as_str(),
            down.blocked.len()
        ),
        ("sw1", "not finished by the deadline", 4)
    );

    let eml = site.path().join("late.eml");
    let channel = EmailChannel {
        mode: EmailMode::ToFile(eml.clone()),
        settings: None,
        outbox: site.archive().join("outbox"),
        redactor: Redactor::default(),
    };
    let ctx = Context {
        tz: config.site.timezone,
        deadline: Some(Deadline {
            at,
            instant: limits.deadline.unwrap(),
        }),
        attachments: Vec::new(),
        prune: false,
    };
    let delivered = channel.deliver(&mut report, &ctx).await;
    assert!(delivered.problems.is_empty(), "{:?}", delivered.problems);
    let mail = parse_mail(&std::fs::read(&eml).unwrap());
    assert!(
        mail.subject.starts_with("[premarket] ERROR lab"),
        "{}",
        mail.subject
    );
    assert!(
        mail.subject.ends_with("— sw1 not finished by the deadline"),
        "{}",
        mail.subject
    );
    assert_eq!(
        mail.text.matches("not finished by the deadline").count(),
        2,
        "one block (its headline and what happened), not one per check:\n{}",
        mail.text
    );
    assert!(mail.text.contains("Deadline "), "{}", mail.text);
}

#[test]
fn a_deadline_that_just_passed_is_missed_today_and_said() {
    let tz = chrono_tz::Asia::Taipei;
    let now = chrono::Utc::now().with_timezone(&tz);
    let earlier = now - chrono::Duration::minutes(1);
    if earlier.date_naive() != now.date_naive() {
        return; // a minute after midnight there is no earlier time today
    }
    let site = Site::new("");
    let eml = site.path().join("late.eml");
    let deadline = earlier.format("%H:%M").to_string();
    let out = site.run(
        "healthy",
        &[
            "--deadline",
            &deadline,
            "--format",
            "json",
            "--email-to-file",
            eml.to_str().unwrap(),
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: premarket::Report = serde_json::from_slice(&out.stdout).expect("json");
    let note = report.deadline.expect("the deadline is in the report");
    assert!(note.passed, "{note:?}");
    assert!(
        note.at.starts_with(&now.format("%Y-%m-%d").to_string()),
        "today's deadline, not tomorrow's: {note:?}"
    );
    assert!(stderr.contains("had already passed"), "{stderr}");
    let mail = parse_mail(&std::fs::read(&eml).unwrap());
    assert!(mail.text.contains("had already passed"), "{}", mail.text);
}

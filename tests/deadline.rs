//! The deadline: a device that has not answered by then is ERROR "not finished by the
//! deadline", and the report (here the email, written to a file) still comes out on time.

mod email_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use email_support::*;
use premarket::collect::offline::Offline;
use premarket::collect::{BoxFuture, Collector};
use premarket::core::Outputs;
use premarket::inspect::{Limits, inspect, next_deadline};
use premarket::plan::DevicePlan;
use premarket::report::publish::{Deadline, EmailMode, Options, publish};
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
    let mut report = inspect(&config, &plan, collector, &limits).await;
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

    let eml = site.path().join("late.eml");
    let options = Options {
        email: EmailMode::ToFile(eml.clone()),
        deadline: Some(Deadline {
            at,
            instant: limits.deadline.unwrap(),
        }),
        extra_attachments: Vec::new(),
        prune: false,
    };
    let published = publish(&config, &mut report, options).await;
    assert!(published.problems.is_empty(), "{:?}", published.problems);
    assert_eq!(published.exit_code(&report), 2);
    let mail = parse_mail(&std::fs::read(&eml).unwrap());
    assert!(
        mail.subject.starts_with("[premarket] ERROR lab"),
        "{}",
        mail.subject
    );
    assert!(mail.subject.ends_with("— 4 ERROR"), "{}", mail.subject);
    assert!(
        mail.text.contains("not finished by the deadline"),
        "{}",
        mail.text
    );
    assert!(mail.text.contains("Deadline "), "{}", mail.text);
}

#[test]
fn the_deadline_is_the_next_such_time_in_the_site_zone() {
    let tz = chrono_tz::Asia::Taipei;
    let t = |s: &str| chrono::NaiveTime::parse_from_str(s, "%H:%M").unwrap();
    let utc = |s: &str| {
        chrono::DateTime::parse_from_rfc3339(s)
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    let cases = [
        // 07:30 in Taipei: today's 08:45.
        ("2026-11-29T23:30:00Z", "08:45", "2026-11-30T08:45:00+08:00"),
        // 09:00 in Taipei: the deadline has passed, tomorrow's.
        ("2026-11-30T01:00:00Z", "08:45", "2026-12-01T08:45:00+08:00"),
        // Cron at 23:00 the evening before.
        ("2026-11-30T15:00:00Z", "08:45", "2026-12-01T08:45:00+08:00"),
    ];
    for (now, time, want) in cases {
        assert_eq!(
            next_deadline(tz, t(time), utc(now)).to_rfc3339(),
            want,
            "{now} {time}"
        );
    }
    // New York's spring-forward gap: 02:30 does not exist on 2026-03-08; the next valid minute.
    let ny = chrono_tz::America::New_York;
    let at = next_deadline(ny, t("02:30"), utc("2026-03-08T05:00:00Z"));
    assert_eq!(at.to_rfc3339(), "2026-03-08T03:00:00-04:00");
}

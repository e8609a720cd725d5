//! An endpoint that stays down does not grow the outbox without end: each run keeps its own
//! message, and past the cap per endpoint the oldest go, said in the run's problems. The
//! endpoint is a real HTTP server on loopback that answers 500 to everything.

use crate::email_support;
use crate::notify_support;

use std::time::Duration;

use email_support::*;
use notify_support::*;

/// Runs with the endpoint down; one more than the cap, and one more again.
const RUNS: usize = 12;

#[test]
fn the_outbox_keeps_at_most_its_cap_per_endpoint_and_says_what_it_dropped() {
    let recorder = Recorder::start();
    recorder.fail_next("/services/", 1_000);
    let site = Site::new(
        "notify:\n  - kind: slack\n    url: { env: NOTIFY_SLACK_URL }\n    timeout_s: 2\n    retry_for_s: 0\n",
    );
    let kept = || {
        files(&site.archive().join("outbox/notify"))
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .count()
    };
    let mut last = String::new();
    for _ in 0..RUNS {
        let offline = scenario("lanz-unsaved");
        let mut cmd = site.cmd(&[
            "run",
            "--offline",
            offline.to_str().unwrap(),
            "--archive",
            "--no-email",
            "--notify",
        ]);
        cmd.timeout(Duration::from_secs(60));
        for (name, value) in env(&recorder) {
            cmd.env(name, value);
        }
        clear_proxies(&mut cmd);
        let out = cmd.output().unwrap();
        last = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{last}");
    }
    assert_eq!(kept(), 10, "{last}");
    assert!(
        last.contains("dropped the oldest") && last.contains("at most 10"),
        "{last}"
    );
    // The newest messages stay: the last run's is among them.
    let posts = recorder.to("/services/");
    let newest = posts.last().unwrap().json();
    assert!(
        newest["text"].as_str().unwrap().contains("FAIL"),
        "{newest}"
    );
}

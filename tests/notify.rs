//! Notifications through the binary, to a real HTTP server on loopback that records each POST
//! (tests/notify_support): a FAIL run delivers one message to each of a webhook, Slack, Teams
//! and PagerDuty with the bodies each expects; an endpoint that answers 500 keeps its message
//! in the outbox (the run says so) and the next run sends it first; the healthy run after
//! resolves the PagerDuty incident with the same dedup_key; no URL token or routing key reaches
//! any output or file. Also: offline runs notify only with `--notify`, `on:` chooses, an OK
//! rerun of some checks never resolves, retries within the run, a stalled endpoint is bounded,
//! and every mistake in `notify:` is reported at file:line:column.

use crate::email_support;
use crate::notify_support;

use std::process::Output;
use std::time::{Duration, Instant};

use email_support::*;
use notify_support::*;

/// `premarket run --offline SCENARIO ARGS` with the endpoints' secrets in the environment and
/// the most verbose logging.
fn run(site: &Site, recorder: &Recorder, scenario_name: &str, args: &[&str]) -> Output {
    let offline = scenario(scenario_name);
    let mut all = vec![
        "-vv",
        "run",
        "--offline",
        offline.to_str().unwrap(),
        "--no-email",
    ];
    all.extend_from_slice(args);
    let mut cmd = site.cmd(&all);
    cmd.env("RUST_LOG", "trace")
        .timeout(Duration::from_secs(120));
    for (name, value) in env(recorder) {
        cmd.env(name, value);
    }
    for proxy in [
        "ALL_PROXY",
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "all_proxy",
        "https_proxy",
        "http_proxy",
    ] {
        cmd.env_remove(proxy);
    }
    cmd.output().unwrap()
}

fn notify_files(site: &Site) -> Vec<std::path::PathBuf> {
    files(&site.archive().join("outbox/notify"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect()
}

#[test]
fn a_fail_run_notifies_every_endpoint_and_the_healthy_run_after_resolves_and_flushes_first() {
    let recorder = Recorder::start();
    let site = Site::new(&notify_yaml(""));
    // Slack answers 500 to the first request: its message waits in the outbox.
    recorder.fail_next("/services/", 1);
    let json = site.path().join("report.json");
    let first = run(
        &site,
        &recorder,
        "lanz-unsaved",
        &["--notify", "--format", "json"],
    );
    let (stdout, stderr) = (text(&first.stdout), text(&first.stderr));
    assert_eq!(first.status.code(), Some(1), "{stderr}");
    std::fs::write(&json, &stdout).unwrap();
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("the JSON report");
    let posts = recorder.posts();
    assert_eq!(posts.len(), 4, "one POST to each endpoint: {posts:#?}");
    for post in &posts {
        assert_eq!(post.method, "POST");
        assert_eq!(post.content_type, "application/json", "{}", post.path);
    }

    // premarket's own JSON: the headline, status, counts and the non-OK results.
    let hook = recorder.to("/hooks/")[0].json();
    assert_eq!(hook["schema"], "premarket.notify/1");
    assert_eq!(hook["event"], "fail");
    assert_eq!(hook["status"], "FAIL");
    assert_eq!(hook["counts"], report["counts"]);
    assert_eq!(hook["offline"], true);
    assert!(
        hook["headline"]
            .as_str()
            .unwrap()
            .starts_with("[premarket] FAIL lab "),
        "{hook}"
    );
    let checks: Vec<&str> = hook["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        ["eos.lanz.persisted", "eos.config.saved"],
        "the FAILs in reading order, no OK"
    );
    // Complete for this run, as the terminal's and the email's rerun lines are.
    assert_eq!(
        hook["findings"][0]["rerun"],
        format!(
            "premarket check eos.lanz.persisted --device sw1 --offline {} --dir {}",
            scenario("lanz-unsaved").display(),
            site.path().display()
        )
    );

    // Slack: text plus a header and one section per finding with its check id and device.
    let slack = recorder.to("/services/");
    assert_eq!(slack.len(), 1);
    assert_eq!(slack[0].status, 500);
    let slack = slack[0].json();
    assert_eq!(slack["text"], hook["headline"]);
    let blocks = slack["blocks"].as_array().unwrap();
    assert_eq!(blocks[0]["type"], "header");
    let first_finding = blocks[1]["text"]["text"].as_str().unwrap();
    assert!(
        first_finding.starts_with("*FAIL* sw1 `eos.lanz.persisted` — LANZ not saved"),
        "{first_finding}"
    );
    assert!(
        first_finding
            .contains("*Rerun:* `premarket check eos.lanz.persisted --device sw1 --offline "),
        "{first_finding}"
    );
    assert_eq!(blocks.last().unwrap()["type"], "context");

    // Teams: an Adaptive Card in attachments.
    let teams = recorder.to("/workflows/")[0].json();
    assert_eq!(
        teams["attachments"][0]["contentType"],
        "application/vnd.microsoft.card.adaptive"
    );
    let card = &teams["attachments"][0]["content"];
    assert_eq!(card["type"], "AdaptiveCard");
    // Every text of a card is Markdown-escaped: the headline's brackets show as typed.
    let headline = hook["headline"].as_str().unwrap();
    assert_eq!(
        card["body"][0]["text"],
        premarket::report::escape::markdown(headline)
    );
    assert_eq!(
        card["body"][1]["items"][0]["text"],
        "FAIL sw1 eos.lanz.persisted"
    );

    // PagerDuty: a trigger with the routing key, a dedup_key for the site and the day.
    let trigger = recorder.to(PAGERDUTY_PATH)[0].json();
    assert_eq!(trigger["routing_key"], PAGERDUTY_KEY);
    assert_eq!(trigger["event_action"], "trigger");
    let day = &report["started_at"].as_str().unwrap()[..10];
    assert_eq!(trigger["dedup_key"], format!("premarket-lab-{day}"));
    assert_eq!(trigger["payload"]["severity"], "critical");
    assert_eq!(trigger["payload"]["component"], "sw1");
    assert_eq!(trigger["payload"]["class"], "eos.lanz.persisted");
    assert_eq!(trigger["payload"]["source"], "premarket lab");

    // The undelivered message is said, and kept without its token.
    assert!(stderr.contains("notify slack (127.0.0.1:"), "{stderr}");
    assert!(
        stderr.contains("was not delivered: HTTP 500: boom after 1 attempt(s)"),
        "{stderr}"
    );
    let kept = notify_files(&site);
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept_text = std::fs::read_to_string(&kept[0]).unwrap();
    assert!(kept_text.contains("\"endpoint\": \"slack\""), "{kept_text}");

    // The next healthy run: the kept FAIL message first, then the recovered one; PagerDuty
    // resolves the incident it triggered.
    recorder.clear();
    let second = run(&site, &recorder, "healthy", &["--notify"]);
    let stderr2 = text(&second.stderr);
    assert_eq!(second.status.code(), Some(0), "{stderr2}");
    let slack: Vec<serde_json::Value> = recorder.to("/services/").iter().map(Post::json).collect();
    assert_eq!(slack.len(), 2, "{slack:#?}");
    assert!(
        slack[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[premarket] FAIL lab "),
        "{}",
        slack[0]
    );
    assert!(
        slack[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("[premarket] OK lab "),
        "{}",
        slack[1]
    );
    assert!(
        slack[1]["text"].as_str().unwrap().contains("recovered"),
        "{}",
        slack[1]
    );
    let resolve = recorder.to(PAGERDUTY_PATH);
    assert_eq!(resolve.len(), 1);
    let resolve = resolve[0].json();
    assert_eq!(resolve["event_action"], "resolve");
    assert_eq!(resolve["dedup_key"], trigger["dedup_key"]);
    assert_eq!(resolve["routing_key"], PAGERDUTY_KEY);
    let hook = recorder.to("/hooks/")[0].json();
    assert_eq!(hook["event"], "recovered");
    assert_eq!(hook["recovered_from"]["status"], "FAIL");
    assert!(
        notify_files(&site).is_empty(),
        "the outbox is empty once delivered"
    );

    // No token anywhere: the terminal, the logs at trace level, every file the runs wrote.
    for (what, out) in [("first run", &first), ("second run", &second)] {
        assert_no_token(&format!("{what}: stdout"), &text(&out.stdout));
        assert_no_token(&format!("{what}: stderr"), &text(&out.stderr));
    }
    for file in files(&site.archive()) {
        assert_no_token(
            &file.display().to_string(),
            &String::from_utf8_lossy(&std::fs::read(&file).unwrap()),
        );
    }
}

#[test]
fn an_offline_run_notifies_only_when_asked() {
    let recorder = Recorder::start();
    let site = Site::new(&notify_yaml(""));
    let out = run(&site, &recorder, "lanz-unsaved", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(recorder.posts().is_empty(), "{:#?}", recorder.posts());
    assert!(!site.archive().join(".notify-state.json").exists());
}

#[test]
fn on_chooses_the_runs_an_endpoint_hears_of() {
    let recorder = Recorder::start();
    let site = Site::new(
        "notify:\n  - kind: webhook\n    name: everything\n    url: { env: NOTIFY_WEBHOOK_URL }\n    on: [fail, error, recovered, ok]\n\
         \x20 - kind: slack\n    url: { env: NOTIFY_SLACK_URL }\n    on: [ok]\n\
         \x20 - kind: pagerduty\n    url: { env: NOTIFY_PD_URL }\n    routing_key: { env: NOTIFY_PD_KEY }\n",
    );
    let events = |recorder: &Recorder, prefix: &str| -> Vec<String> {
        recorder
            .to(prefix)
            .iter()
            .map(|p| {
                let body = p.json();
                body["event"]
                    .as_str()
                    .or(body["event_action"].as_str())
                    .unwrap_or("slack")
                    .to_string()
            })
            .collect()
    };
    // OK, FAIL, ERROR, OK: every kind of run, in order.
    for scenario_name in ["healthy", "lanz-unsaved", "version-garbled", "healthy"] {
        let out = run(&site, &recorder, scenario_name, &["--notify"]);
        assert!(
            out.status.code().is_some_and(|c| c <= 2),
            "{}",
            text(&out.stderr)
        );
    }
    assert_eq!(
        events(&recorder, "/hooks/"),
        ["ok", "fail", "error", "recovered"]
    );
    // Slack only hears of the first OK (the last is `recovered`, which it does not list).
    assert_eq!(recorder.to("/services/").len(), 1);
    // PagerDuty (the default on: fail, error, recovered): two triggers of the day's incident,
    // one resolve.
    assert_eq!(
        events(&recorder, PAGERDUTY_PATH),
        ["trigger", "trigger", "resolve"]
    );
    let keys: Vec<String> = recorder
        .to(PAGERDUTY_PATH)
        .iter()
        .map(|p| p.json()["dedup_key"].to_string())
        .collect();
    assert!(keys.windows(2).all(|w| w[0] == w[1]), "{keys:?}");
    // The ERROR run's severity comes from the catalog (eos.version.pinned is a warning).
    let error_trigger = recorder.to(PAGERDUTY_PATH)[1].json();
    assert_eq!(
        error_trigger["payload"]["severity"], "warning",
        "{error_trigger}"
    );
}

#[test]
fn an_ok_rerun_of_some_checks_never_resolves_the_morning_incident() {
    let recorder = Recorder::start();
    let site = Site::new(&notify_yaml(""));
    let out = run(&site, &recorder, "lanz-unsaved", &["--notify"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    recorder.clear();
    // An offline rerun of a check that is OK: it does not know the rest of the site.
    let out = run(
        &site,
        &recorder,
        "lanz-unsaved",
        &["--notify", "--check", "eos.lanz.running"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        recorder.to(PAGERDUTY_PATH).is_empty(),
        "{:#?}",
        recorder.posts()
    );
    let hook = recorder.to("/hooks/");
    assert!(
        hook.is_empty(),
        "an OK rerun is `ok`, not in the default on: {hook:#?}"
    );
    // The full healthy run then resolves.
    let out = run(&site, &recorder, "healthy", &["--notify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let resolve = recorder.to(PAGERDUTY_PATH);
    assert_eq!(resolve.len(), 1);
    assert_eq!(resolve[0].json()["event_action"], "resolve");
}

#[test]
fn a_rerun_after_which_everything_that_failed_is_ok_resolves_the_incident() {
    let recorder = Recorder::start();
    // The routing key from a file this time (a URL or key may be either kind of reference).
    let key_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(key_file.path(), format!("{PAGERDUTY_KEY}\n")).unwrap();
    let site = Site::new(&format!(
        "notify:\n  - kind: webhook\n    url: {{ env: NOTIFY_WEBHOOK_URL }}\n\
         \x20 - kind: pagerduty\n    url: {{ env: NOTIFY_PD_URL }}\n    routing_key: {{ file: {} }}\n",
        key_file.path().display()
    ));
    let events = |recorder: &Recorder| -> Vec<(String, String)> {
        recorder
            .posts()
            .iter()
            .map(|p| {
                let body = p.json();
                let what = body["event"].as_str().or(body["event_action"].as_str());
                (p.path.clone(), what.unwrap_or("?").to_string())
            })
            .collect()
    };
    // The morning's run, archived: two FAILs on sw1.
    let out = run(&site, &recorder, "lanz-unsaved", &["--notify", "--archive"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let trigger = recorder.to(PAGERDUTY_PATH)[0].json();
    assert_eq!(trigger["event_action"], "trigger");
    assert_eq!(trigger["routing_key"], PAGERDUTY_KEY, "read from the file");
    // A rerun of the check the cause explains, OK now: the cause (`eos.lanz.persisted`) still
    // stands, so the site is still FAIL. (A rerun of the cause would recheck both.)
    recorder.clear();
    let out = run(
        &site,
        &recorder,
        "healthy",
        &["--notify", "--archive", "--check", "eos.config.saved"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !events(&recorder)
            .iter()
            .any(|(_, e)| e == "resolve" || e == "recovered"),
        "{:#?}",
        events(&recorder)
    );
    // The rerun of what is left (`--last-failed`): everything that failed is OK.
    recorder.clear();
    let out = run(
        &site,
        &recorder,
        "healthy",
        &["--notify", "--archive", "--last-failed"],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let hook = recorder.to("/hooks/");
    assert_eq!(hook.len(), 1, "{:#?}", events(&recorder));
    let hook = hook[0].json();
    assert_eq!(hook["event"], "recovered", "{hook}");
    assert_eq!(hook["recovered_from"]["status"], "FAIL");
    let resolve = recorder.to(PAGERDUTY_PATH);
    assert_eq!(resolve.len(), 1, "{:#?}", events(&recorder));
    let resolve = resolve[0].json();
    assert_eq!(resolve["event_action"], "resolve");
    assert_eq!(resolve["dedup_key"], trigger["dedup_key"]);
    assert_no_token("stderr", &stderr);
    // Three archived runs, the state and the outbox: no key or token in any of them.
    for file in files(&site.archive()) {
        assert_no_token(
            &file.display().to_string(),
            &String::from_utf8_lossy(&std::fs::read(&file).unwrap()),
        );
    }
}

#[test]
fn a_failing_endpoint_is_retried_within_the_run() {
    let recorder = Recorder::start();
    let site = Site::new(
        "notify:\n  - kind: slack\n    url: { env: NOTIFY_SLACK_URL }\n    timeout_s: 2\n    retry_for_s: 10\n",
    );
    recorder.fail_next("/services/", 2);
    let out = run(&site, &recorder, "lanz-unsaved", &["--notify"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let statuses: Vec<u16> = recorder.to("/services/").iter().map(|p| p.status).collect();
    assert_eq!(statuses, [500, 500, 200]);
    assert!(
        stderr.contains("the fail message of run") && stderr.contains("sent (3 attempt(s))"),
        "{stderr}"
    );
    assert!(notify_files(&site).is_empty());
}

#[test]
fn an_ok_run_whose_notification_is_not_delivered_exits_2_until_it_is() {
    let recorder = Recorder::start();
    let site = Site::new(&notify_yaml("    on: [fail, error, recovered, ok]\n"));
    recorder.fail_next("/services/", 100);
    let out = run(
        &site,
        &recorder,
        "healthy",
        &["--notify", "--format", "json"],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("will be sent first by the next run"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the checks were OK, but the exit code is 2"),
        "{stderr}"
    );
    // Still undelivered: still 2, and the new message queues behind the old one.
    let out = run(&site, &recorder, "healthy", &["--notify"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1 message(s) behind it"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(notify_files(&site).len(), 2);
    recorder.fail_next("/services/", 0);
    let out = run(&site, &recorder, "healthy", &["--notify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(notify_files(&site).is_empty());
}

#[test]
fn an_endpoint_that_never_answers_is_bounded_and_its_message_kept() {
    // Accepts connections (the kernel's backlog) and never answers.
    let stalled = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = stalled.local_addr().unwrap().port();
    let recorder = Recorder::start();
    let site = Site::new(
        "notify:\n  - kind: webhook\n    url: { env: STALLED_URL }\n    timeout_s: 2\n    retry_for_s: 0\n",
    );
    let offline = scenario("lanz-unsaved");
    let started = Instant::now();
    let out = site
        .cmd(&[
            "run",
            "--offline",
            offline.to_str().unwrap(),
            "--no-email",
            "--notify",
        ])
        .env(
            "STALLED_URL",
            format!("http://127.0.0.1:{port}/hooks/{WEBHOOK_TOKEN}"),
        )
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(took < Duration::from_secs(10), "{took:?}: {stderr}");
    assert!(stderr.contains("no answer within 2 s"), "{stderr}");
    assert_eq!(notify_files(&site).len(), 1);
    assert_no_token("stderr", &stderr);
    drop((stalled, recorder));
}

#[test]
fn notify_mistakes_are_reported_at_file_line_and_column() {
    let site = Site::new(
        "notify:\n  - kind: telegram\n    url: { env: X_URL }\n\
         \x20 - kind: pagerduty\n    on: [fail, page]\n\
         \x20 - kind: teams\n    url: { env: NOTIFY_TEAMS_URL }\n    routing_key: { env: NOTIFY_PD_KEY }\n\
         \x20 - kind: webhook\n    url: { env: PLAIN_HTTP_URL }\n\
         \x20 - kind: webhook\n    url: { env: NOTIFY_WEBHOOK_URL }\n    on: []\n",
    );
    let out = site
        .cmd(&["validate"])
        .env(
            "PLAIN_HTTP_URL",
            format!("http://hooks.example.net/{WEBHOOK_TOKEN}"),
        )
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    for (line, column, says) in [
        (
            2,
            11,
            "kind \"telegram\" is not one of webhook, slack, teams, pagerduty",
        ),
        (4, 11, "notify pagerduty: kind pagerduty needs routing_key"),
        (
            5,
            16,
            "notify pagerduty: on: \"page\" is not one of fail, error, recovered, ok",
        ),
        (
            8,
            18,
            "notify teams: routing_key is only for kind: pagerduty",
        ),
        (
            10,
            10,
            "notify webhook: url (env:PLAIN_HTTP_URL): http:// would send the token to hooks.example.net in clear",
        ),
        (
            11,
            11,
            "notify webhook: two notify entries are named webhook",
        ),
        (13, 9, "notify webhook: on: lists nothing"),
    ] {
        let at = at_line(&site, line, column);
        assert!(
            stderr
                .lines()
                .any(|l| l.contains(&format!("{at}: ")) && l.contains(says)),
            "{at} {says}:\n{stderr}"
        );
    }
    assert_no_token("validate", &stderr);
}

#[test]
fn a_url_written_inline_is_refused_without_quoting_it() {
    let site = Site::new(
        "notify:\n  - kind: slack\n    url: https://hooks.slack.com/services/T0/B0/inline-tok3n\n",
    );
    let out = site.cmd(&["validate"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with(&format!("premarket: {}", at_line(&site, 3, 10))),
        "{stderr}"
    );
    assert!(
        stderr.contains("a secret is never written in a baseline"),
        "{stderr}"
    );
    assert!(!stderr.contains("inline-tok3n"), "{stderr}");
}

/// `site.yaml:LINE:COLUMN`, LINE counted in what the test appended.
fn at_line(site: &Site, line: usize, column: usize) -> String {
    let base =
        std::fs::read_to_string(repo().join("tests/fixtures/email/site/baselines/site.yaml"))
            .unwrap();
    format!(
        "{}:{}:{column}",
        site.path().join("baselines/site.yaml").display(),
        base.lines().count() + line
    )
}

#[test]
fn fails_acknowledged_until_a_date_page_nobody_and_resolve_the_incident() {
    let recorder = Recorder::start();
    let site = Site::new(&notify_yaml(""));
    let first = run(&site, &recorder, "lanz-unsaved", &["--notify", "--archive"]);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    let trigger = recorder.to(PAGERDUTY_PATH)[0].json();
    assert_eq!(trigger["event_action"], "trigger");
    recorder.clear();
    for check in ["eos.lanz.persisted", "eos.config.saved"] {
        site.ack(check, "saved in tonight's window", "CHG77");
    }
    let second = run(&site, &recorder, "lanz-unsaved", &["--notify", "--archive"]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let hook = recorder.to("/hooks/")[0].json();
    assert_eq!(hook["status"], "OK", "{hook}");
    assert_eq!(hook["event"], "recovered", "{hook}");
    assert_eq!(hook["counts"]["fail"], 0, "{hook}");
    assert_eq!(hook["counts"]["acknowledged"], 2, "{hook}");
    assert_eq!(
        hook["findings"],
        serde_json::json!([]),
        "nothing to act on: {hook}"
    );
    // Never "everything is OK again" while a FAIL stands, even a known one.
    let headline = hook["headline"].as_str().unwrap();
    assert!(
        headline.contains("recovered: nothing needs attention")
            && headline.contains("2 FAIL acknowledged until a date"),
        "{headline}"
    );
    let slack = serde_json::to_string(&recorder.to("/services/")[0].json()).unwrap();
    assert!(
        slack.contains("Nothing needs attention: 2 FAIL acknowledged until a date")
            && !slack.contains("OK again"),
        "{slack}"
    );
    let acked: Vec<&serde_json::Value> = hook["results"].as_array().unwrap().iter().collect();
    assert_eq!(acked.len(), 2, "{hook}");
    assert!(
        acked
            .iter()
            .all(|r| r["status"] == "FAIL" && r["acknowledged"]["ticket"] == "CHG77"),
        "{hook}"
    );
    let resolve = recorder.to(PAGERDUTY_PATH);
    assert_eq!(resolve.len(), 1, "{resolve:#?}");
    let resolve = resolve[0].json();
    assert_eq!(resolve["event_action"], "resolve");
    assert_eq!(resolve["dedup_key"], trigger["dedup_key"]);
}

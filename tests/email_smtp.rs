//! The emailed report against real SMTP servers in this process: mailin-embedded with
//! STARTTLS (an rcgen certificate) and AUTH PLAIN; a port where nothing listens (refused) and
//! a server that accepts and never speaks (hanging), for retry, outbox and exit codes.

use crate::email_support;
use crate::notify_support::{self, PAGERDUTY_PATH, Recorder, notify_yaml, slack_path};

use std::io;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use email_support::*;
use mailin_embedded::{AuthMechanism, Handler, Response, Server, SslConfig, response};

#[derive(Clone, Default)]
struct Inbox {
    messages: Arc<Mutex<Vec<Vec<u8>>>>,
    auths: Arc<Mutex<Vec<(String, String)>>>,
    current: Vec<u8>,
}

impl Handler for Inbox {
    fn auth_plain(&mut self, _authz: &str, user: &str, password: &str) -> Response {
        self.auths
            .lock()
            .unwrap()
            .push((user.to_string(), password.to_string()));
        if user == "premarket" && password == SMTP_PASSWORD {
            response::AUTH_OK
        } else {
            response::INVALID_CREDENTIALS
        }
    }

    fn data_start(
        &mut self,
        _domain: &str,
        _from: &str,
        _is8bit: bool,
        _to: &[String],
    ) -> Response {
        self.current.clear();
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> io::Result<()> {
        self.current.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        self.messages
            .lock()
            .unwrap()
            .push(std::mem::take(&mut self.current));
        response::OK
    }
}

impl Inbox {
    fn received(&self) -> Vec<Vec<u8>> {
        self.messages.lock().unwrap().clone()
    }
}

/// Starts mailin-embedded on a free loopback port with STARTTLS and AUTH PLAIN. It has no
/// shutdown: the thread ends with the test process.
fn start_relay(dir: &std::path::Path) -> (u16, Inbox, std::path::PathBuf) {
    let (cert, key) = certificate(dir);
    let inbox = Inbox::default();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let mut server = Server::new(inbox.clone());
    server
        .with_name("localhost")
        .with_auth(AuthMechanism::Plain)
        .with_tcp_listener(listener);
    server
        .with_ssl(SslConfig::SelfSigned {
            cert_path: cert.display().to_string(),
            key_path: key.display().to_string(),
        })
        .map_err(|e| e.to_string())
        .expect("mailin TLS setup");
    std::thread::spawn(move || {
        let _ = server.serve().map_err(|e| e.to_string());
    });
    (port, inbox, cert)
}

fn email_yaml(
    port: u16,
    tls: &str,
    ca: Option<&std::path::Path>,
    timeout_s: u64,
    retry_for_s: u64,
) -> String {
    let auth = if tls == "none" {
        String::new()
    } else {
        "  user: premarket\n  password: { env: PREMARKET_SMTP_PASSWORD }\n".to_string()
    };
    let ca = ca
        .map(|c| format!("  ca_file: {}\n", c.display()))
        .unwrap_or_default();
    format!(
        "email:\n  host: 127.0.0.1\n  port: {port}\n  tls: {tls}\n{auth}{ca}  from: \"premarket <premarket@lab.test>\"\n  to: [\"oncall@lab.test\"]\n  fail_to: [\"lead@lab.test\"]\n  timeout_s: {timeout_s}\n  retry_for_s: {retry_for_s}\narchive:\n  dir: archive\n  lock_wait_s: 30\n"
    )
}

fn outbox(site: &Site) -> Vec<std::path::PathBuf> {
    let mut list: Vec<_> = files(&site.archive().join("outbox"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    list.sort();
    list
}

#[test]
fn starttls_and_auth_deliver_a_message_that_parses_back_without_secrets() {
    let certs = tempfile::tempdir().unwrap();
    let (port, inbox, cert) = start_relay(certs.path());
    let site = Site::new(&email_yaml(port, "starttls", Some(&cert), 10, 10));
    let out = site.run("lanz-unsaved", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("email sent via 127.0.0.1"), "{stderr}");

    assert_eq!(
        *inbox.auths.lock().unwrap(),
        [("premarket".to_string(), SMTP_PASSWORD.to_string())]
    );
    let received = inbox.received();
    assert_eq!(received.len(), 1);
    let mail = parse_mail(&received[0]);
    mail.assert_no_secret();
    mail.assert_wire_format();
    assert!(!text(&mail.raw).contains(SMTP_PASSWORD));

    assert!(
        mail.subject.starts_with("[premarket] FAIL lab "),
        "{}",
        mail.subject
    );
    // The top finding, an unambiguous zone, the count of what follows.
    assert!(
        mail.subject
            .ends_with(" +08 — sw1 LANZ not saved (+1) [offline]"),
        "{}",
        mail.subject
    );
    for header in ["Message-ID: <", "Date: "] {
        assert!(text(&mail.raw).contains(header), "no {header} header");
    }
    assert!(
        text(&mail.raw).contains("lead@lab.test"),
        "fail_to is added on FAIL"
    );

    // The cause first, its symptom under it, with everything needed to act; then changes;
    // then OK one line each.
    let t = &mail.text;
    let cause = t
        .find("FAIL sw1 eos.lanz.persisted — LANZ not saved: ")
        .expect(t);
    let symptom = t
        .find("FAIL sw1 eos.config.saved — running-config not saved")
        .expect(t);
    let ok = t.find("== OK (2) ==").expect(t);
    assert!(cause < symptom && symptom < ok, "{t}");
    assert!(
        t[symptom..].contains("Explained by eos.lanz.persisted above"),
        "{t}"
    );
    for needle in [
        "Expected: queue-monitor length in startup-config",
        "Actual: running: enabled",
        "Evidence:",
        "Remedy:",
        "premarket check eos.lanz.persisted --device sw1",
        "== Timing ==",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    assert!(
        mail.html
            .contains("<b>Expected:</b> queue-monitor length in startup-config"),
        "{}",
        mail.html
    );
    // Commands in backticks are code, and a command breaks only between words.
    assert!(!mail.html.contains("`write memory`"), "{}", mail.html);
    assert!(
        mail.html
            .contains("<span style=\"white-space:nowrap\">--device</span>"),
        "{}",
        mail.html
    );
    assert!(!mail.html.contains("<table"), "no tables for phones");

    let report: premarket::Report =
        serde_json::from_slice(mail.attachment("report.json")).expect("report.json");
    assert_eq!(report.status, premarket::Status::Fail);
    assert_eq!(report.counts.fail, 2);
    let raw = text(mail.attachment("raw-sw1.txt"));
    assert!(raw.contains("### show startup-config"), "{raw}");
    assert!(raw.contains("secret <redacted>"), "{raw}");

    // The archive keeps the same evidence, redacted too.
    let archived = files(&site.archive());
    assert!(
        archived
            .iter()
            .any(|p| p.ends_with("raw/sw1/show-startup-config.txt.zst")),
        "{archived:?}"
    );
    for path in archived {
        // Raw outputs are kept compressed: read them as `zstdcat` would.
        let bytes = std::fs::read(&path).unwrap_or_default();
        let bytes = match path.extension().is_some_and(|e| e == "zst") {
            true => zstd::decode_all(&bytes[..]).expect("a zstd file"),
            false => bytes,
        };
        let content = String::from_utf8_lossy(&bytes);
        assert!(!content.contains("CANARY"), "secret in {}", path.display());
    }
}

/// A run from a shell without cron's environment (a pasted rerun) still logs in to the relay,
/// reaches the webhook, Slack, Teams and PagerDuty and masks the device's password: every
/// secret is read from the site's `environment_file:` alone.
#[test]
fn the_relay_notify_and_device_secrets_come_from_the_site_s_environment_file() {
    use std::os::unix::fs::PermissionsExt;
    let certs = tempfile::tempdir().unwrap();
    let (port, inbox, cert) = start_relay(certs.path());
    let recorder = Recorder::start();
    let email = email_yaml(port, "starttls", Some(&cert), 10, 10);
    let notify = notify_yaml("");
    let site = Site::new(&format!("environment_file: secrets.env\n{email}{notify}"));
    let secrets = site.path().join("secrets.env");
    let endpoints: String = notify_support::env(&recorder)
        .into_iter()
        .map(|(name, value)| format!("{name}=\"{value}\"\n"))
        .collect();
    std::fs::write(
        &secrets,
        format!(
            "# systemd EnvironmentFile syntax\nPREMARKET_SMTP_PASSWORD='{SMTP_PASSWORD}'\n\
             PREMARKET_SW1_PASSWORD={SW1_PASSWORD}\n{endpoints}"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o600)).unwrap();
    let offline = scenario("lanz-unsaved");
    let out = std::process::Command::new(bin())
        .env_clear()
        .env("NO_COLOR", "1")
        .arg("--dir")
        .arg(site.path())
        .args(["run", "--archive", "--email", "--notify", "--offline"])
        .arg(&offline)
        .output()
        .expect("premarket");
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("email sent via 127.0.0.1"), "{said}");
    assert!(!said.contains("CANARY"), "{said}");
    assert_eq!(
        *inbox.auths.lock().unwrap(),
        [("premarket".to_string(), SMTP_PASSWORD.to_string())]
    );
    let received = inbox.received();
    assert_eq!(received.len(), 1);
    let mail = parse_mail(&received[0]);
    // The fixture's banner holds the switch's password: masked by the value the file gave.
    mail.assert_no_secret();
    for path in [
        "/hooks/".to_string(),
        slack_path(),
        "/workflows/".to_string(),
        PAGERDUTY_PATH.to_string(),
    ] {
        let posts = recorder.to(&path);
        assert_eq!(posts.len(), 1, "{path}: {:#?}\n{said}", recorder.posts());
    }
}

#[test]
fn an_ok_run_whose_mail_is_refused_exits_2_and_the_next_run_sends_it_first() {
    let port = free_port();
    let site = Site::new(&email_yaml(port, "none", None, 2, 3));
    let out = site.run("healthy", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "OK checks, undelivered mail: {stderr}"
    );
    assert!(stderr.contains("was not delivered"), "{stderr}");
    assert!(
        stderr.contains("after 2 attempt(s)"),
        "retried once within 3 s: {stderr}"
    );
    let pending = outbox(&site);
    assert_eq!(pending.len(), 1, "{pending:?}");
    let first_run = parse_mail(&std::fs::read(&pending[0]).unwrap());
    first_run.assert_no_secret();

    // A FAIL run with the relay still down keeps exit code 1 and a second message.
    let out = site.run("lanz-unsaved", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(outbox(&site).len(), 2);

    let certs = tempfile::tempdir().unwrap();
    let (port, inbox, cert) = start_relay(certs.path());
    site.set_extra(&email_yaml(port, "starttls", Some(&cert), 10, 10));
    let out = site.run("healthy", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("then sent the pending email"), "{stderr}");
    let received: Vec<Received> = inbox.received().iter().map(|m| parse_mail(m)).collect();
    let subjects: Vec<&str> = received.iter().map(|m| m.subject.as_str()).collect();
    assert_eq!(received.len(), 3, "{subjects:?}");
    // The fresh report first (the backlog never eats its window), then the backlog, oldest
    // first.
    assert_ne!(
        received[0].attachment("report.json"),
        first_run.attachment("report.json"),
        "the fresh report goes first: {subjects:?}"
    );
    assert!(subjects[0].starts_with("[premarket] OK"), "{subjects:?}");
    assert!(subjects[1].starts_with("[premarket] OK"), "{subjects:?}");
    assert!(subjects[2].starts_with("[premarket] FAIL"), "{subjects:?}");
    assert_eq!(
        received[1].attachment("report.json"),
        first_run.attachment("report.json")
    );
    assert!(
        outbox(&site).is_empty(),
        "delivered messages leave the outbox"
    );
}

#[test]
fn a_hanging_relay_is_bounded_and_the_run_still_ends() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accepts and never sends a greeting.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let site = Site::new(&email_yaml(port, "none", None, 1, 3));
    let start = Instant::now();
    let out = site.run("healthy", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no answer within 1 s"), "{stderr}");
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(outbox(&site).len(), 1);
}

#[test]
fn email_to_file_and_no_email_send_nothing() {
    let certs = tempfile::tempdir().unwrap();
    let (port, inbox, cert) = start_relay(certs.path());
    let site = Site::new(&email_yaml(port, "starttls", Some(&cert), 10, 10));
    let eml = site.path().join("out.eml");
    let out = site.run(
        "version-garbled",
        &["--email-to-file", eml.to_str().unwrap()],
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "ERROR and no FAIL: {}",
        text(&out.stderr)
    );
    let mail = parse_mail(&std::fs::read(&eml).unwrap());
    mail.assert_wire_format();
    assert!(
        mail.subject.starts_with("[premarket] ERROR lab "),
        "an ERROR never reads OK: {}",
        mail.subject
    );
    assert!(
        mail.subject
            .ends_with("— sw1 eos.version.pinned could not be judged [offline]"),
        "{}",
        mail.subject
    );
    assert!(
        mail.text.contains("ERROR sw1 eos.version.pinned — "),
        "{}",
        mail.text
    );
    mail.assert_no_secret();

    let out = site.run("healthy", &["--no-email"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(inbox.received().is_empty());
}

#[test]
fn an_inline_chart_is_attached_and_shown_in_the_html() {
    use premarket::report::email::{Addresses, Attachment, Context, compose};
    use premarket::report::redact::Redactor;
    let json = r#"{"run_id":"r1","site":"lab","started_at":"2026-11-30T08:15:00.000+08:00","finished_at":"2026-11-30T08:15:01.000+08:00","status":"OK","counts":{"ok":0,"fail":0,"error":0,"skip":0},"results":[]}"#;
    let report: premarket::Report = serde_json::from_str(json).unwrap();
    let png = b"\x89PNG\r\n\x1a\nnot really a png".to_vec();
    let chart = Attachment::inline_image("latency.png", "image/png", png.clone(), "chart");
    let ctx = Context::new(chrono_tz::Asia::Taipei, None);
    let composed = compose(
        &report,
        &ctx,
        &Addresses::placeholder(),
        vec![chart],
        &Redactor::default(),
    )
    .unwrap();
    let mail = parse_mail(&composed.bytes);
    assert!(mail.html.contains("src=\"cid:chart\""), "{}", mail.html);
    assert!(text(&composed.bytes).contains("Content-ID: <chart>"));
    assert_eq!(mail.subject, "[premarket] OK lab 08:15 +08");
}

#[test]
fn email_settings_are_validated_with_file_line_and_column() {
    let cases = [
        (
            "email:\n  host: relay\n  from: not an address\n  to: [a@b.test]\n",
            "email.from",
            ":10:",
        ),
        (
            "email:\n  host: relay\n  from: a@b.test\n  to: [a@b.test, \"x@\"]\n",
            "email.to",
            ":11:",
        ),
        (
            "email:\n  host: relay\n  from: a@b.test\n  to: [a@b.test]\n  user: premarket\n",
            "email.password is not",
            ":12:",
        ),
        (
            "email:\n  host: relay\n  tls: ssl\n  from: a@b.test\n  to: [a@b.test]\n",
            "tls",
            ":10:",
        ),
        ("archive:\n  retention_days: 0\n", "retention_days", ":9:"),
        (
            "email:\n  host: smtp.example.net\n  tls: none\n  user: premarket\n  password: { env: X }\n  from: a@b.test\n  to: [a@b.test]\n",
            "would send the password in clear",
            ":9:",
        ),
        (
            "metrics:\n  textfile: premarket.txt\n",
            "must end in .prom",
            ":9:",
        ),
        (
            "calendar:\n  trading_days: [mon, funday]\n",
            "\"funday\" is not a weekday",
            ":9:",
        ),
        (
            "calendar:\n  holidays: [\"2026-02-30\"]\n",
            "is not a date YYYY-MM-DD",
            ":9:",
        ),
    ];
    for (extra, needle, line) in cases {
        let site = Site::new(extra);
        let out = site.cmd(&["validate"]).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{extra}\n{stderr}");
        assert!(
            stderr.contains(needle) && stderr.contains(&format!("site.yaml{line}")),
            "{extra}\n{stderr}"
        );
    }
}

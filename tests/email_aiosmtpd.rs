//! The emailed report against a real, independent SMTP server: aiosmtpd on loopback, started
//! by each test (a Python script written to a temp dir, on a free port). Plain SMTP, STARTTLS
//! with AUTH, implicit TLS with AUTH, and a server that stalls in the middle of DATA.
//!
//! Needs `python3` with `aiosmtpd` (`pip install aiosmtpd` or Debian `python3-aiosmtpd`). When
//! it is missing the tests skip with a message, unless PREMARKET_REQUIRE_AIOSMTPD=1 (CI), where
//! they fail.

use crate::email_support;

use std::time::{Duration, Instant};

use email_support::aiosmtpd::{Aiosmtpd, available};
use email_support::*;

fn deliver(mode: &str, tls: &str, auth: bool, scenario_name: &str, code: i32) {
    if !available() {
        return;
    }
    let server = Aiosmtpd::start(mode);
    let site = Site::new(&server.email_yaml(tls, auth, 10, 10));
    let out = site.run(scenario_name, &[]);
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    let received = server.received();
    assert_eq!(received.len(), 1, "{}", text(&out.stderr));
    let (mail, meta) = &received[0];
    mail.assert_no_secret();
    mail.assert_wire_format();
    assert_eq!(meta["tls"], serde_json::json!(tls != "none"), "{meta}");
    assert_eq!(
        meta["auth"],
        if auth {
            serde_json::json!("premarket")
        } else {
            serde_json::Value::Null
        },
        "{meta}"
    );
    assert_eq!(meta["rcpt"], serde_json::json!(["oncall@lab.test"]));
    assert!(
        mail.subject.starts_with(if code == 0 {
            "[premarket] OK lab "
        } else {
            "[premarket] FAIL lab "
        }),
        "{}",
        mail.subject
    );
    assert!(
        !mail.text.is_empty() && mail.html.contains("<html"),
        "both alternatives"
    );
    let report: premarket::Report = serde_json::from_slice(mail.attachment("report.json")).unwrap();
    assert_eq!(i32::from(report.exit_code()), code);
}

#[test]
fn aiosmtpd_plain() {
    deliver("plain", "none", false, "healthy", 0);
}

#[test]
fn aiosmtpd_starttls_with_auth() {
    deliver("starttls", "starttls", true, "lanz-unsaved", 1);
}

#[test]
fn aiosmtpd_implicit_tls_with_auth() {
    deliver("tls", "tls", true, "healthy", 0);
}

#[test]
fn aiosmtpd_stalled_in_data_then_refused_then_delivered_from_the_outbox() {
    if !available() {
        return;
    }
    let site = Site::new("");
    let outbox = |site: &Site| {
        files(&site.archive().join("outbox"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .count()
    };

    let hang = Aiosmtpd::start("hang");
    site.set_extra(&hang.email_yaml("none", false, 1, 2));
    let start = Instant::now();
    let out = site.run("healthy", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no answer within 1 s"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(15));
    assert_eq!(outbox(&site), 1);
    drop(hang);

    let refused = free_port();
    site.set_extra(&format!("email:\n  host: 127.0.0.1\n  port: {refused}\n  tls: none\n  from: premarket@lab.test\n  to: [oncall@lab.test]\n  timeout_s: 2\n  retry_for_s: 3\n"));
    let out = site.run("healthy", &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // The fresh report is tried first; with the relay down the backlog is not tried in vain.
    assert!(stderr.contains("was not delivered"), "{stderr}");
    assert!(stderr.contains("after 2 attempt(s)"), "{stderr}");
    assert_eq!(outbox(&site), 2);

    let server = Aiosmtpd::start("starttls");
    site.set_extra(&server.email_yaml("starttls", true, 10, 10));
    let out = site.run("lanz-unsaved", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let received = server.received();
    let subjects: Vec<&str> = received.iter().map(|(m, _)| m.subject.as_str()).collect();
    assert_eq!(subjects.len(), 3, "{subjects:?}");
    // The fresh report first, then the backlog, oldest first.
    assert!(subjects[0].starts_with("[premarket] FAIL"), "{subjects:?}");
    assert!(
        subjects[1].starts_with("[premarket] OK") && subjects[2].starts_with("[premarket] OK"),
        "{subjects:?}"
    );
    assert_eq!(outbox(&site), 0);
}

//! Acknowledging a known FAIL over the real pieces (issue 32): the lab's switch with a dirty
//! optic, inspected over loopback SSH by the binary, the email to a real SMTP server
//! (aiosmtpd). The FAIL is emailed; `premarket ack` binds it; the next run's email reads OK and
//! lists it under "Acknowledged (until MM-DD, CHG123)" with who and why; written until today,
//! the ack has ended and the next run FAILs again.

use crate::email_support;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use chrono::Duration as Days;
use email_support::aiosmtpd::{Aiosmtpd, available};
use email_support::{Received, text};
use premarket::lab::{Lab, Scenario};

/// `premarket --dir SITE ARGS`.
fn premarket(site: &Path, args: &[&str]) -> Output {
    assert_cmd::Command::new(email_support::bin())
        .arg("--dir")
        .arg(site)
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("PREMARKET_DIR")
        .timeout(Duration::from_secs(180))
        .output()
        .expect("premarket")
}

/// The lab's site.yaml without its deadline (the lab's 08:45 would cut a run near that time)
/// and with its email sent to `server`.
fn mail_to(site: &Path, server: &Aiosmtpd) {
    let path = site.join("baselines/site.yaml");
    let text = std::fs::read_to_string(&path).expect("site.yaml");
    let mut kept = String::new();
    let mut in_email = false;
    for line in text.lines() {
        let top = !line.starts_with(' ') && !line.is_empty();
        if top {
            in_email = line.starts_with("email:");
        }
        if in_email || line.starts_with("deadline:") {
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    kept.push_str(&server.email_yaml("none", false, 10, 10));
    std::fs::write(&path, kept).expect("write site.yaml");
}

/// The newest message the server received.
fn last_mail(server: &Aiosmtpd, expected: usize) -> Received {
    let mut received = server.received();
    assert_eq!(received.len(), expected, "messages received");
    received.pop().expect("a message").0
}

#[test]
fn an_acknowledged_fail_over_ssh_is_emailed_as_acknowledged_until_its_day() {
    if !available() {
        return;
    }
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let low_light: Scenario = "low-light".parse().expect("scenario");
    let lab = rt.block_on(Lab::start(&[low_light], 2)).expect("lab");
    let server = Aiosmtpd::start("plain");
    let site = lab.site_dir.clone();
    mail_to(&site, &server);

    let first = premarket(&site, &["run"]);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    let mail = last_mail(&server, 1);
    assert!(
        mail.subject.starts_with("[premarket] FAIL lab ") && mail.subject.contains("sw1"),
        "{}",
        mail.subject
    );

    let today = chrono::Utc::now()
        .with_timezone(&chrono_tz::Asia::Taipei)
        .date_naive();
    let until = today + Days::days(3);
    let acked = premarket(
        &site,
        &[
            "ack",
            "eos.transceivers.light",
            "--device",
            "sw1",
            "--until",
            &until.format("%Y-%m-%d").to_string(),
            "--reason",
            "optic on order, RMA 4411",
            "--ticket",
            "CHG123",
        ],
    );
    assert_eq!(acked.status.code(), Some(0), "{}", text(&acked.stderr));

    let second = premarket(&site, &["run"]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    let mail = last_mail(&server, 2);
    mail.assert_no_secret();
    assert!(
        mail.subject.starts_with("[premarket] OK lab "),
        "{}",
        mail.subject
    );
    let heading = format!("Acknowledged (until {}, CHG123)", until.format("%m-%d"));
    for body in [&mail.text, &mail.html] {
        assert!(body.contains(&heading), "{heading} not in\n{body}");
        assert!(body.contains("optic on order, RMA 4411"), "{body}");
        assert!(body.contains("Ethernet3"), "{body}");
    }
    let report: premarket::Report =
        serde_json::from_slice(mail.attachment("report.json")).expect("report.json");
    assert_eq!(report.counts.acknowledged, 1);
    assert_eq!(report.exit_code(), 0);
    let optics = report
        .results
        .iter()
        .find(|r| r.check == "eos.transceivers.light")
        .expect("the optics result");
    assert_eq!(optics.subjects, ["Ethernet3"]);
    assert!(optics.acknowledged.is_some(), "{optics:#?}");

    // Written until today, the ack ended at midnight: the FAIL is a FAIL again.
    let acks = site.join("baselines/acks.yaml");
    let file = std::fs::read_to_string(&acks).expect("acks.yaml");
    let ended = file.replace(
        &format!("until: {}", until.format("%Y-%m-%d")),
        &format!("until: {}", today.format("%Y-%m-%d")),
    );
    std::fs::write(&acks, ended).expect("rewrite acks.yaml");
    let third = premarket(&site, &["run"]);
    assert_eq!(third.status.code(), Some(1), "{}", text(&third.stderr));
    let mail = last_mail(&server, 3);
    assert!(
        mail.subject.starts_with("[premarket] FAIL lab "),
        "{}",
        mail.subject
    );
    assert!(!mail.text.contains("Acknowledged ("), "{}", mail.text);
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
    rt.block_on(lab.shutdown());
}

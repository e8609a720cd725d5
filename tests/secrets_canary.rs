//! No secret reaches any output. A switch whose login password, enable secret and SMTP password are
//! canaries, and which prints them back (the enable secret echoed at `Password:`, the login
//! password inside a banner line and as its serial number, a secret hash in its startup-config:
//! outputs are judged as read, so these reach the parsers and the facts the archive keeps), is
//! inspected over real SSH
//! with the most verbose logging; then every output is searched: the terminal (text and JSON),
//! stderr with `-vv` and `RUST_LOG=trace`, the run archive (every file, `.zst` decompressed), the
//! outbox of undelivered mail, the email written to a file (every MIME part decoded, attachments
//! included) and a `capture` directory.

use crate::ssh_common;

use std::path::Path;

use assert_cmd::Command as Bin;
use ssh_common::device::{Device, Script};
use ssh_common::*;

const SMTP_CANARY: &str = "CANARY-smtp-5d1e-do-not-leak";
const HASH_CANARY: &str = "$6$CANARYHASH0b2f";

/// The login password printed as the switch's serial number: a fact the archive keeps (and a
/// box fact whose change the report shows), judged as read and masked on the way out.
const VERSION_JSON: &str = r#"{"mfgName": "Arista", "modelName": "DCS-7280SR3-48YC8", "version": "4.31.6M", "serialNumber": "CANARY-7f3a-pw-do-not-leak", "uptime": 1234.5}"#;
const LANZ_JSON: &str = r#"{"lanzEnabled": true}"#;
const ERRORS_JSON: &str =
    r#"{"interfaceErrorCounters": {"Ethernet1": {"inErrors": 0, "fcsErrors": 0}}}"#;
const NTP_STATUS: &str = "synchronised to NTP server (10.0.0.1) at stratum 3";

pub(crate) fn switch() -> Script {
    let startup = format!(
        "! Command: show startup-config\nhostname sw1\nbanner login\nwelcome {CANARY}\nEOF\n\
         username admin privilege 15 role network-admin secret sha512 {HASH_CANARY}\n\
         queue-monitor length\nend"
    );
    let mut script = Script::eos("sw1", CANARY)
        .answer("show version | json", VERSION_JSON)
        .answer("show queue-monitor length status | json", LANZ_JSON)
        .answer("show startup-config", &startup)
        .answer("show interfaces counters errors | json", ERRORS_JSON)
        .answer("show ntp status", NTP_STATUS)
        // An unsaved change that carries the login password: the diff is evidence in the report.
        .answer(
            "show running-config diffs",
            &format!(
                "--- flash:/startup-config\n+++ system:/running-config\n@@ -1,3 +1,4 @@\n hostname sw1\n+snmp-server location {CANARY}\n banner login"
            ),
        );
    script.enable_password = Some(ENABLE_CANARY.into());
    script.echo_password = true;
    script.privileged_only.push("show startup-config".into());
    script
}

fn site(dir: &Path, dev: &Device) {
    let password = pw_file(dir, CANARY);
    site_with_password(dir, dev, &password);
}

/// The canary site, the switch's login password read through `password` (a reference).
pub(crate) fn site_with_password(dir: &Path, dev: &Device, password: &str) {
    std::fs::write(dir.join("enable"), ENABLE_CANARY).unwrap();
    // A relay on a closed loopback port: the message cannot go out and waits in the outbox.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let email = format!(
        "email:\n  host: 127.0.0.1\n  port: {closed}\n  tls: none\n  user: premarket\n\
         \x20 password: {{ env: PREMARKET_SMTP_PASSWORD }}\n  from: \"premarket <p@example.net>\"\n\
         \x20 to: [\"oncall@example.net\"]\n  timeout_s: 2\n  retry_for_s: 2\n"
    );
    let baseline = format!(
        "  enable_secret: {{ file: {} }}\n{BASIC_SWITCH}",
        dir.join("enable").display()
    );
    let kh = dev.known_hosts_line();
    switch_site(dir, dev.port, &kh, password, 5, &email, &baseline);
}

/// Runs the binary with the most verbose logging; returns stdout and stderr.
pub(crate) fn premarket(dir: &Path, args: &[&str]) -> (String, String) {
    let out = Bin::cargo_bin("premarket")
        .unwrap()
        .timeout(std::time::Duration::from_secs(90))
        .arg("--dir")
        .arg(dir)
        .arg("-vv")
        .args(args)
        .env("RUST_LOG", "trace")
        .env("PREMARKET_SMTP_PASSWORD", SMTP_CANARY)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `root` as text: `.zst` files decompressed, `.eml` files with each MIME part
/// decoded (so a secret hidden in base64 or quoted-printable is found too).
pub(crate) fn every_file(root: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            every_file(&path, out);
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_default();
        let name = path.display().to_string();
        let text = if name.ends_with(".zst") {
            let plain = zstd::decode_all(bytes.as_slice()).expect("a readable .zst file");
            String::from_utf8_lossy(&plain).into_owned()
        } else {
            String::from_utf8_lossy(&bytes).into_owned()
        };
        if let Some(mail) = mail_parser::MessageParser::default().parse(&bytes)
            && name.ends_with(".eml")
        {
            for part in mail.parts.iter() {
                let decoded = String::from_utf8_lossy(part.contents()).into_owned();
                out.push((format!("{name} (MIME part)"), decoded));
            }
        }
        out.push((name, text));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_secret_reaches_any_output() {
    let dev = Device::start(switch()).await;
    let dir = tempfile::tempdir().unwrap();
    site(dir.path(), &dev);
    let root = dir.path().to_path_buf();
    let outputs = tokio::task::spawn_blocking(move || {
        let mut seen = Vec::new();
        let (stdout, stderr) = premarket(&root, &["run"]);
        seen.push(("run: stdout".to_string(), stdout));
        seen.push(("run: stderr".to_string(), stderr));
        let mail = root.join("mail.eml");
        let (stdout, stderr) = premarket(
            &root,
            &[
                "run",
                "--format",
                "json",
                "--email-to-file",
                mail.to_str().unwrap(),
            ],
        );
        seen.push(("run --format json: stdout".to_string(), stdout));
        seen.push(("run --format json: stderr".to_string(), stderr));
        let capture = root.join("capture");
        let (stdout, stderr) = premarket(
            &root,
            &[
                "capture",
                "--device",
                "sw1",
                "--out",
                capture.to_str().unwrap(),
            ],
        );
        seen.push(("capture: stdout".to_string(), stdout));
        seen.push(("capture: stderr".to_string(), stderr));
        seen
    })
    .await
    .unwrap();

    let mut files = Vec::new();
    every_file(dir.path(), &mut files);
    // The inputs themselves hold the canaries; everything premarket wrote must not.
    let inputs = ["/pw", "/enable", "/baselines/", "/checks/"];
    let written: Vec<&(String, String)> = files
        .iter()
        .filter(|(name, _)| !inputs.iter().any(|i| name.contains(i)))
        .collect();
    let kinds = |needle: &str| written.iter().any(|(name, _)| name.contains(needle));
    assert!(kinds("/archive/"), "the run archive was written: {files:?}");
    assert!(
        kinds("/facts/sw1.json"),
        "the archive kept the switch's facts: {files:?}"
    );
    assert!(
        kinds("/outbox/"),
        "the undelivered mail waits in the outbox"
    );
    assert!(kinds("mail.eml"), "the email was written to its file");
    assert!(
        kinds("/capture/sw1/"),
        "capture wrote the outputs: {outputs:?}"
    );
    assert!(
        outputs.iter().any(|(what, text)| what.contains("stderr")
            && (text.contains("DEBUG") || text.contains("TRACE"))),
        "the most verbose logs were produced: {outputs:?}"
    );
    // The run did read what the device printed: the unsaved line is there, without its secret.
    assert!(
        written
            .iter()
            .any(|(_, text)| text.contains("snmp-server location")),
        "the device output was kept"
    );

    assert_no_canary(outputs.iter().chain(written.iter().copied()));
}

/// No canary in any of `texts` (what, text); a leak is shown by its lines.
pub(crate) fn assert_no_canary<'a>(texts: impl Iterator<Item = &'a (String, String)>) {
    for (what, text) in texts {
        for canary in [CANARY, ENABLE_CANARY, SMTP_CANARY, HASH_CANARY] {
            assert!(
                !text.contains(canary),
                "{canary} leaked into {what}:\n{}",
                text.lines()
                    .filter(|l| l.contains(canary))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

/// A switch that splits its secrets the way a reader still reads them whole: the enable secret
/// echoed at `Password:` over three lines in three packets, the login password over three lines
/// and packets in a banner of its startup-config and in its unsaved diff, and the enable secret
/// again right after a line longer than the body's 64 KiB buffer, cut at a packet boundary.
fn splitting_switch() -> Script {
    let (pw1, pw2, pw3) = (&CANARY[..9], &CANARY[9..17], &CANARY[17..]);
    let (en1, en2) = ENABLE_CANARY.split_at(12);
    let long = "x".repeat(70 << 10);
    let mut script = switch()
        .paced(
            "show startup-config",
            &[
                &format!(
                    "! Command: show startup-config\r\nhostname sw1\r\nbanner login\r\nwelcome {pw1}\r\n"
                ),
                &format!("  {pw2}\r\n"),
                &format!("{pw3}\r\nEOF\r\ninterface Ethernet1\r\n   description {long}{en1}"),
                &format!(
                    "{en2}\r\nusername admin privilege 15 role network-admin secret sha512 {HASH_CANARY}\r\nqueue-monitor length\r\nend\r\n"
                ),
            ],
        )
        .paced(
            "show running-config diffs",
            &[
                "--- flash:/startup-config\r\n+++ system:/running-config\r\n@@ -1,3 +1,4 @@\r\n hostname sw1\r\n",
                &format!("+snmp-server location {pw1}\r\n"),
                &format!("   {pw2}\r\n   {pw3}\r\n banner login\r\n"),
            ],
        );
    script.echo_password_cuts = vec![7, 16];
    script
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secret_split_over_lines_and_packets_reaches_no_output() {
    let dev = Device::start(splitting_switch()).await;
    let dir = tempfile::tempdir().unwrap();
    site(dir.path(), &dev);
    let root = dir.path().to_path_buf();
    let outputs = tokio::task::spawn_blocking(move || {
        let mut seen = Vec::new();
        let (stdout, stderr) = premarket(&root, &["run"]);
        seen.push(("run: terminal".to_string(), stdout));
        seen.push(("run: -vv logs".to_string(), stderr));
        let mail = root.join("mail.eml");
        let metrics = root.join("premarket.prom");
        let (stdout, stderr) = premarket(
            &root,
            &[
                "run",
                "--format",
                "json",
                "--email-to-file",
                mail.to_str().unwrap(),
                "--metrics-file",
                metrics.to_str().unwrap(),
            ],
        );
        seen.push(("run --format json: stdout".to_string(), stdout));
        seen.push(("run --format json: -vv logs".to_string(), stderr));
        seen
    })
    .await
    .unwrap();

    let mut files = Vec::new();
    every_file(dir.path(), &mut files);
    let inputs = ["/pw", "/enable", "/baselines/", "/checks/"];
    let written: Vec<&(String, String)> = files
        .iter()
        .filter(|(name, _)| !inputs.iter().any(|i| name.contains(i)))
        .collect();
    let kinds = |needle: &str| written.iter().any(|(name, _)| name.contains(needle));
    for kind in [
        ".zst",
        "report.json",
        "mail.eml (MIME part)",
        "premarket.prom",
    ] {
        assert!(
            kinds(kind),
            "{kind} was written: {:?}",
            files.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
    }
    // The run read the outputs the secrets were split in: their other lines are there.
    assert!(
        written
            .iter()
            .any(|(_, text)| text.contains("snmp-server location")),
        "the unsaved diff was kept"
    );
    assert!(
        written
            .iter()
            .any(|(_, text)| text.contains("queue-monitor length")),
        "the startup-config was read to its end"
    );

    for canary in [CANARY, ENABLE_CANARY, SMTP_CANARY, HASH_CANARY] {
        for (what, text) in outputs.iter().chain(written.iter().copied()) {
            let seen = ssh_common::reader_view(text);
            assert!(
                !seen.contains(canary),
                "{canary} leaked into {what}, as a reader sees it:\n{}",
                text.lines()
                    .filter(|l| canary.contains(l.trim()) && l.trim().len() > 3)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

//! Issue 17's first two classes over real SSH on loopback, against the scripted device sending
//! its output as separate packets with pauses between them:
//! - a secret the device splits over lines and packets, or prints right after a line longer than
//!   the body's buffer, is in the output as printed (judged as read) and masked in what leaves
//!   premarket (read as a reader sees it);
//! - a secret shorter than 8 characters is refused where it is read, naming only its reference;
//! - a prompt the device prints inside an output (a banner line) followed by more output is not
//!   the end of that output: the command is an ERROR "out of step", never judged on half of it,
//!   whether it is followed by another command or is the session's last.

use crate::ssh_common;

use std::time::Duration;

use premarket::Command;
use premarket::core::{CollectError, Platform};
use premarket::ssh::Captured;
use ssh_common::device::{Device, Script};
use ssh_common::*;

const SHORT: Duration = Duration::from_secs(3);

type Results = Vec<(Command, Result<Captured, CollectError>)>;

async fn run(script: Script, texts: &[&str]) -> (Device, Results) {
    let dir = tempfile::tempdir().unwrap();
    let dev = Device::start(script).await;
    let kh = known_hosts(dir.path(), &dev.known_hosts_line());
    let conn = connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY)));
    let device = device("sw1", Platform::Eos, conn);
    let results = collect(&device, &commands(texts), &settings(Some(kh), SHORT)).await;
    (dev, results)
}

/// Everything the collector handed on: outputs, prompts, errors.
fn everything(results: &Results) -> String {
    results
        .iter()
        .map(|(c, r)| match r {
            Ok(o) => format!("{c}\n{}\n{}", o.prompt, o.output.head()),
            Err(e) => format!("{c}\n{e}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn switch() -> Script {
    let mut script = Script::eos("sw1", CANARY).answer("show version", "Arista DCS-7130");
    script.start_privileged = true;
    script
}

#[tokio::test]
async fn a_secret_split_over_three_lines_in_three_packets_is_masked() {
    let (head, rest) = CANARY.split_at(9);
    let (middle, tail) = rest.split_at(8);
    let script = switch().paced(
        "show clock",
        &[
            &format!("motd {head}\r\n"),
            &format!("  {middle}\r\n"),
            &format!("{tail} end\r\n"),
        ],
    );

    let (_dev, results) = run(script, &["show clock", "show version"]).await;

    let all = leaves(&everything(&results));
    let output = results[0].1.as_ref().expect("show clock").output.head();
    assert_eq!(output, format!("motd {head}\n  {middle}\n{tail} end"));
    assert!(!reader_view(&all).contains(CANARY), "{all}");
    assert!(!all.contains(head) && !all.contains(tail), "{all}");
}

#[tokio::test]
async fn a_secret_right_after_a_line_longer_than_the_buffer_is_masked() {
    let long = "x".repeat(70 << 10);
    let (head, tail) = CANARY.split_at(11);
    let script = switch().paced(
        "show clock",
        &[
            &format!("{long}{head}"),
            &format!("{tail}\r\nnext line\r\n"),
        ],
    );

    let (_dev, results) = run(script, &["show clock"]).await;

    let all = leaves(&everything(&results));
    let output = results[0].1.as_ref().expect("show clock").output.head();
    assert!(
        output.ends_with(&format!("{CANARY}\nnext line")),
        "{}",
        &output[output.len() - 60..]
    );
    assert!(!reader_view(&all).contains(CANARY));
    assert!(!all.contains(head) && !all.contains(tail));
}

#[tokio::test]
async fn an_enable_secret_echoed_in_paced_pieces_reaches_nothing() {
    let mut script = Script::eos("sw1", CANARY).answer("show version", "Arista DCS-7130");
    script.enable_password = Some(ENABLE_CANARY.into());
    script.echo_password_cuts = vec![7, 16];
    let dir = tempfile::tempdir().unwrap();
    let dev = Device::start(script).await;
    let kh = known_hosts(dir.path(), &dev.known_hosts_line());
    let conn = connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY)));
    let mut device = device("sw1", Platform::Eos, conn);
    device.ssh_mut().expect("ssh").enable_secret =
        Some(secret_file(dir.path(), "enable", ENABLE_CANARY));

    let results = collect(
        &device,
        &commands(&["show version"]),
        &settings(Some(kh), SHORT),
    )
    .await;

    let all = leaves(&everything(&results));
    assert!(results[0].1.is_ok(), "{all}");
    assert!(!reader_view(&all).contains(ENABLE_CANARY), "{all}");
}

#[tokio::test]
async fn a_secret_shorter_than_8_characters_is_refused_where_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let dev = Device::start(switch()).await;
    let kh = known_hosts(dir.path(), &dev.known_hosts_line());
    let path = dir.path().join("pw").display().to_string();
    let conn = connection(dev.port, Some(secret_file(dir.path(), "pw", "Pw-Q7zV")));
    let device = device("sw1", Platform::Eos, conn);

    let results = collect(
        &device,
        &commands(&["show version"]),
        &settings(Some(kh), SHORT),
    )
    .await;

    let e = results[0].1.as_ref().expect_err("refused").to_string();
    assert!(
        e.contains(&format!("file:{path}")) && e.contains("shorter than 8 characters"),
        "{e}"
    );
    assert!(!e.contains("Pw-Q7zV"), "{e}");
    assert!(dev.received().is_empty(), "{:?}", dev.received());
}

/// A startup-config with a banner line that is the switch's own prompt, after which the switch
/// pauses: the lines after it (`no queue-monitor length`) must not be lost.
fn lying_banner(script: Script) -> Script {
    script.paced(
        "show startup-config",
        &[
            "! Command: show startup-config\r\nhostname sw1\r\nbanner motd\r\nsw1#",
            "\r\nEOF\r\nno queue-monitor length\r\nend\r\n",
        ],
    )
}

#[tokio::test]
async fn a_prompt_inside_an_output_followed_by_more_output_is_out_of_step() {
    let (dev, results) = run(
        lying_banner(switch()),
        &["show startup-config", "show version"],
    )
    .await;

    let e = results[0]
        .1
        .as_ref()
        .expect_err("judged on half an output")
        .to_string();
    assert!(
        e.contains("the device printed after its prompt: output out of step"),
        "{e}"
    );
    assert!(e.contains("no queue-monitor length"), "{e}");
    assert_eq!(
        results[1].1.as_ref().expect("show version").output,
        "Arista DCS-7130"
    );
    // Nothing but the script: its settings, the two commands and the closing empty line.
    assert_eq!(
        dev.received(),
        [
            "terminal length 0",
            "terminal width 511",
            "show startup-config",
            "show version",
            ""
        ]
    );
}

#[tokio::test]
async fn a_prompt_inside_the_last_output_is_out_of_step_too() {
    let (_dev, results) = run(
        lying_banner(switch()),
        &["show version", "show startup-config"],
    )
    .await;

    assert_eq!(
        results[0].1.as_ref().expect("show version").output,
        "Arista DCS-7130"
    );
    let e = results[1]
        .1
        .as_ref()
        .expect_err("judged on half an output")
        .to_string();
    assert!(
        e.contains("the device printed after its prompt: output out of step"),
        "{e}"
    );
}

#[tokio::test]
async fn an_honest_slow_device_is_in_step() {
    let script = switch().paced(
        "show startup-config",
        &[
            "! Command: show startup-config\r\nhostname sw1\r\n",
            "queue-monitor length\r\nend\r\n",
        ],
    );

    let (_dev, results) = run(script, &["show startup-config", "show version"]).await;

    assert_eq!(
        results[0].1.as_ref().expect("show startup-config").output,
        "! Command: show startup-config\nhostname sw1\nqueue-monitor length\nend"
    );
    assert!(results[1].1.is_ok(), "{results:?}");
}

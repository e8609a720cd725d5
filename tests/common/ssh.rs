//! Test support for the SSH tests: a scripted device on loopback SSH (russh server) and helpers
//! to describe the device to the client. Deliberately small: the full emulator lab lives in
//! src/lab. Included by the tests as `#[path = "common/ssh.rs"] mod ssh_common;` so it stays
//! independent of `tests/common/mod.rs`.

#![allow(dead_code)]

#[path = "ssh_device.rs"]
pub mod device;
#[path = "ssh_wire.rs"]
pub mod wire;

use std::path::{Path, PathBuf};
use std::time::Duration;

use premarket::Command;
use premarket::config::{Access, BaselineText, Connection, Device, Position, SecretRef};
use premarket::core::{DeviceName, Platform};
use premarket::ssh::Settings;

/// A value that must never appear in any output, error, file or report.
pub const CANARY: &str = "CANARY-7f3a-pw-do-not-leak";
pub const ENABLE_CANARY: &str = "CANARY-enable-91c2-do-not-leak";

/// Writes `secret` to a file in `dir` and returns its reference (tests run in parallel threads,
/// so environment variables would race).
pub fn secret_file(dir: &Path, name: &str, secret: &str) -> SecretRef {
    let path = dir.join(name);
    std::fs::write(&path, format!("{secret}\n")).unwrap();
    SecretRef::File(path)
}

pub fn connection(port: u16, password: Option<SecretRef>) -> Connection {
    Connection {
        host: "127.0.0.1".into(),
        port,
        user: "premarket".into(),
        password,
        ..Connection::default()
    }
}

pub fn device(name: &str, platform: Platform, ssh: Connection) -> Device {
    let file = PathBuf::from(format!("baselines/{name}.yaml"));
    let name = DeviceName::new(name).expect("a plain device name");
    let baseline = BaselineText::new(
        premarket::config::Owner::Device(name.clone()),
        &file,
        "expect: {}\n".into(),
        Position::file_start(&file),
        Vec::new(),
    );
    Device {
        name,
        platform,
        file,
        access: Access::Ssh(ssh),
        baseline,
        skip: Default::default(),
        model: None,
        environment: Default::default(),
    }
}

pub fn settings(known_hosts: Option<PathBuf>, command_timeout: Duration) -> Settings {
    Settings {
        known_hosts,
        connect_timeout: Duration::from_secs(5),
        command_timeout,
        keepalive: premarket::ssh::transport::KEEPALIVE,
        ..Settings::default()
    }
}

pub fn commands(texts: &[&str]) -> Vec<Command> {
    texts.iter().map(|t| Command::new(*t)).collect()
}

/// Writes a known_hosts file trusting `line` and returns its path.
pub fn known_hosts(dir: &Path, line: &str) -> PathBuf {
    let path = dir.join("known_hosts");
    std::fs::write(&path, format!("# test site\n{line}\n")).unwrap();
    path
}

/// One command with what the collector made of it.
pub type Outcome = (
    Command,
    Result<premarket::ssh::Captured, premarket::core::CollectError>,
);

/// Each command of a session with what the collector made of it.
pub type Collected = Vec<Outcome>;

/// The collector's `collect` with a hard upper bound, so a client bug fails the test instead of
/// hanging it.
pub async fn collect(device: &Device, commands: &[Command], settings: &Settings) -> Collected {
    tokio::time::timeout(
        Duration::from_secs(30),
        premarket::collect::ssh::collect(device, commands, settings),
    )
    .await
    .expect("the SSH client did not finish within 30 s")
}

/// `text` as a reader sees it once line breaks and what draws nothing are gone: control
/// characters, a line break's indentation, escapes as the report writes them (`\n`, `\x1b`,
/// `\u{202e}`, JSON's `\u001b`) and HTML tags. A secret the device split over lines, packets or
/// escape codes reads whole here, so a test that looks for it in this view finds every way it
/// could leak.
pub fn reader_view(text: &str) -> String {
    let escapes = regex::Regex::new(
        r#"\\[nrt]|\\x[0-9a-fA-F]{2}|\\u\{[0-9a-fA-F]+\}|\\u[0-9a-fA-F]{4}|<[^>]*>|&#1[03];"#,
    )
    .expect("static regex");
    let text = escapes.replace_all(text, "\n");
    let mut out = String::with_capacity(text.len());
    let mut after_break = false;
    for c in text.chars() {
        let blank = c.is_control() || (after_break && c == ' ');
        if c == '\n' || c == '\r' {
            after_break = true;
        } else if !blank {
            after_break = false;
            out.push(c);
        }
    }
    out
}

/// Writes `password` to `DIR/pw`; its reference as a baseline writes it (`{ file: ... }`).
pub fn pw_file(dir: &Path, password: &str) -> String {
    std::fs::write(dir.join("pw"), password).unwrap();
    format!("{{ file: {} }}", dir.join("pw").display())
}

/// A site of one EOS switch `sw1` on 127.0.0.1:`port` for the binary: the example's
/// `checks/eos.yaml`, `known_hosts_line` trusted, `password` its baseline's reference
/// ([`pw_file`]), commands given `command_timeout_s`. `site` is appended to `site.yaml` (an
/// `email:` block), `baseline` to `sw1.yaml` after its `password:` line (more `ssh:` lines,
/// `expect:`).
pub fn switch_site(
    dir: &Path,
    port: u16,
    known_hosts_line: &str,
    password: &str,
    command_timeout_s: u64,
    site: &str,
    baseline: &str,
) {
    let baselines = dir.join("baselines");
    std::fs::create_dir_all(&baselines).unwrap();
    std::fs::create_dir_all(dir.join("checks")).unwrap();
    std::fs::copy("checks/eos.yaml", dir.join("checks/eos.yaml")).unwrap();
    std::fs::write(
        baselines.join("known_hosts"),
        format!("{known_hosts_line}\n"),
    )
    .unwrap();
    std::fs::write(
        baselines.join("site.yaml"),
        format!(
            "site: test\ntimezone: Asia/Taipei\ndevices:\n  - name: sw1\n    baseline: sw1.yaml\n\
             ssh:\n  known_hosts: known_hosts\n  connect_timeout_s: 5\n  \
             command_timeout_s: {command_timeout_s}\n{site}"
        ),
    )
    .unwrap();
    std::fs::write(
        baselines.join("sw1.yaml"),
        format!(
            "platform: eos\nssh:\n  host: 127.0.0.1\n  port: {port}\n  user: premarket\n  \
             password: {password}\n{baseline}"
        ),
    )
    .unwrap();
}

/// The `expect:` and `skip:` of a scripted switch that answers the basic commands only: its
/// version, LANZ, one trading port; the checks of what it does not emulate skipped.
pub const BASIC_SWITCH: &str = "expect:\n  version: { allowed: [4.31.6M] }\n  lanz: true\n  \
    trading_ports: [Ethernet1]\n  max_in_errors: 0\n\
    skip:\n  eos.interfaces.errors: not on this test switch\n\
    \x20 eos.ptp.synchronised: not on this test switch\n\
    \x20 eos.multicast.feeds: not on this test switch\n\
    \x20 eos.multicast.flowing: not on this test switch\n\
    \x20 eos.lanz.congestion: not on this test switch\n\
    \x20 eos.uptime.stable: not on this test switch\n\
    \x20 eos.transceivers.light: not on this test switch\n\
    \x20 eos.bgp.peers: not on this test switch\n\
    \x20 eos.bfd.peers: not on this test switch\n\
    \x20 eos.pim.neighbors: not on this test switch\n\
    \x20 eos.multicast.routes: not on this test switch\n\
    \x20 eos.mlag.healthy: not on this test switch\n\
    \x20 eos.hardware.drops: not on this test switch\n";

/// `text` as it leaves premarket (report, archive, email): the canaries masked by the report's
/// redactor, with EOS's secret lines. Outputs are judged as the device printed them, so a
/// secret the device prints is in the collector's output and masked only here.
pub fn leaves(text: &str) -> String {
    let mut redactor = premarket::report::redact::Redactor::default();
    redactor.add_all([CANARY, ENABLE_CANARY]);
    premarket::report::redact::device_text(&redactor, premarket::core::Platform::Eos, text)
}

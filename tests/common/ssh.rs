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
        name.clone(),
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

/// The collector's `collect` with a hard upper bound, so a client bug fails the test instead of
/// hanging it.
pub async fn collect(
    device: &Device,
    commands: &[Command],
    settings: &Settings,
) -> Vec<(
    Command,
    Result<premarket::ssh::Captured, premarket::core::CollectError>,
)> {
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

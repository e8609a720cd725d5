//! Shared by the email, archive and history tests: a private copy of the test site in a temp
//! dir (with `email:` and `archive:` appended), the offline scenarios, the binary, and a
//! MIME parse of what a server received.
#![allow(dead_code)]

pub mod aiosmtpd;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// The literal value of the switch password in every test: it also appears in the fixtures'
/// banner, so it must be redacted by value.
pub const SW1_PASSWORD: &str = "sw1-CANARY-literal-password";
pub const SMTP_PASSWORD: &str = "smtp-CANARY-password";

/// The binary under test: `PREMARKET_BIN` when set (an installed or release build, or a
/// worktree's own build when several share a target directory), else cargo's.
pub fn bin() -> PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fixtures/email/<scenario>` (offline outputs of sw1).
pub fn scenario(name: &str) -> PathBuf {
    repo().join("tests/fixtures/email").join(name)
}

/// A configuration directory: the test site plus `extra` YAML appended to site.yaml.
pub struct Site {
    pub dir: tempfile::TempDir,
}

impl Site {
    pub fn new(extra: &str) -> Site {
        let dir = tempfile::tempdir().expect("tempdir");
        let src = repo().join("tests/fixtures/email/site");
        for sub in ["baselines", "checks"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
            for entry in std::fs::read_dir(src.join(sub)).expect("read fixture site") {
                let entry = entry.expect("entry");
                std::fs::copy(entry.path(), dir.path().join(sub).join(entry.file_name()))
                    .expect("copy");
            }
        }
        let site = Site { dir };
        site.set_extra(extra);
        site
    }

    /// Replaces what is appended to site.yaml.
    pub fn set_extra(&self, extra: &str) {
        let base =
            std::fs::read_to_string(repo().join("tests/fixtures/email/site/baselines/site.yaml"))
                .expect("site.yaml");
        std::fs::write(
            self.path().join("baselines/site.yaml"),
            format!("{base}{extra}"),
        )
        .expect("write site.yaml");
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn archive(&self) -> PathBuf {
        self.path().join("archive")
    }

    /// `premarket --dir <site> ARGS` with the secrets of the test site in the environment.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin());
        cmd.arg("--dir").arg(self.path()).args(args);
        cmd.env("PREMARKET_SW1_PASSWORD", SW1_PASSWORD)
            .env("PREMARKET_SMTP_PASSWORD", SMTP_PASSWORD)
            .env("NO_COLOR", "1");
        cmd
    }

    /// Runs `premarket run --offline <scenario> --archive ARGS`, as a live run would (it
    /// archives, and emails unless ARGS say otherwise): offline runs do neither by default.
    pub fn run(&self, scenario_name: &str, args: &[&str]) -> Output {
        let offline = scenario(scenario_name);
        let mut all = vec![
            "run",
            "--offline",
            offline.to_str().expect("utf-8 path"),
            "--archive",
        ];
        if !args
            .iter()
            .any(|a| *a == "--no-email" || *a == "--email-to-file")
        {
            all.push("--email");
        }
        all.extend_from_slice(args);
        self.cmd(&all).output().expect("run premarket")
    }
}

/// The scenario `name`'s outputs copied into `into/outputs`, so that one can be replaced.
pub fn outputs(name: &str, into: &Path) -> PathBuf {
    let dir = into.join("outputs");
    let sw1 = dir.join("sw1");
    std::fs::create_dir_all(&sw1).unwrap();
    for entry in std::fs::read_dir(scenario(name).join("sw1")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), sw1.join(entry.file_name())).unwrap();
    }
    dir
}

/// `premarket ARGS...` (add them) with `kib` KiB of address space (`ulimit -v`: a reader that
/// takes without bound aborts instead of eating the machine's memory), the test site's secrets
/// in the environment and its own time limit.
pub fn limited(kib: u64, limit: std::time::Duration) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(bin())
        .env("PREMARKET_SW1_PASSWORD", SW1_PASSWORD)
        .env("PREMARKET_SMTP_PASSWORD", SMTP_PASSWORD)
        .env("NO_COLOR", "1")
        .timeout(limit);
    cmd
}

/// A Python peer started from `script` (written into `dir`) with `args`, once it printed
/// `READY` on its stdout.
pub fn python_peer(dir: &Path, script: &str, args: &[&std::ffi::OsStr]) -> std::process::Child {
    let path = dir.join("peer.py");
    std::fs::write(&path, script).unwrap();
    let mut child = std::process::Command::new("python3")
        .arg(&path)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start python3");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "READY", "the Python peer did not start");
    child
}

/// Tomorrow in the test sites' time zone (Asia/Taipei), `YYYY-MM-DD`: an acknowledgement until
/// then holds now.
pub fn tomorrow() -> String {
    (chrono::Utc::now().with_timezone(&chrono_tz::Asia::Taipei) + chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string()
}

impl Site {
    /// `premarket ack CHECK --device sw1 --until tomorrow --reason REASON --ticket TICKET`,
    /// which must succeed.
    pub fn ack(&self, check: &str, reason: &str, ticket: &str) {
        let out = self
            .cmd(&[
                "ack",
                check,
                "--device",
                "sw1",
                "--until",
                &tomorrow(),
                "--reason",
                reason,
                "--ticket",
                ticket,
            ])
            .output()
            .expect("premarket ack");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, recursively.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// What a received message says, decoded.
#[derive(Debug)]
pub struct Received {
    pub subject: String,
    pub text: String,
    pub html: String,
    /// (file name, decoded contents)
    pub attachments: Vec<(String, Vec<u8>)>,
    pub raw: Vec<u8>,
}

pub fn parse_mail(raw: &[u8]) -> Received {
    use mail_parser::{MessageParser, MimeHeaders};
    let message = MessageParser::default().parse(raw).expect("a MIME message");
    Received {
        subject: message.subject().unwrap_or_default().to_string(),
        text: message
            .body_text(0)
            .map(|t| t.into_owned())
            .unwrap_or_default(),
        html: message
            .body_html(0)
            .map(|t| t.into_owned())
            .unwrap_or_default(),
        attachments: message
            .attachments()
            .map(|a| {
                (
                    a.attachment_name().unwrap_or_default().to_string(),
                    a.contents().to_vec(),
                )
            })
            .collect(),
        raw: raw.to_vec(),
    }
}

impl Received {
    /// Asserts that no canary secret appears in the raw message or in any decoded part.
    pub fn assert_no_secret(&self) {
        let mut all = vec![
            self.subject.clone(),
            self.text.clone(),
            self.html.clone(),
            text(&self.raw),
        ];
        all.extend(self.attachments.iter().map(|(_, b)| text(b)));
        for (i, part) in all.iter().enumerate() {
            assert!(
                !part.contains("CANARY"),
                "a canary secret leaked into part {i}:\n{part}"
            );
        }
    }

    /// SMTP's limits on the wire: CRLF line ends only, no line over 998 octets.
    pub fn assert_wire_format(&self) {
        for (i, line) in self.raw.split(|b| *b == b'\n').enumerate() {
            assert!(line.len() <= 999, "line {i} is {} octets long", line.len());
            let last = self.raw.split(|b| *b == b'\n').count() - 1;
            assert!(
                i == last || line.ends_with(b"\r"),
                "line {i} ends with a bare LF: {:?}",
                text(line)
            );
        }
    }

    pub fn attachment(&self, name: &str) -> &[u8] {
        self.attachments
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
            .unwrap_or_else(|| {
                panic!(
                    "no attachment {name}; have {:?}",
                    self.attachments.iter().map(|(n, _)| n).collect::<Vec<_>>()
                )
            })
    }
}

/// A self-signed certificate for 127.0.0.1/localhost without CA:TRUE (rustls refuses a CA
/// certificate used as a server's own); returns (cert path, key path) in `dir`.
pub fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let certified =
        rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .expect("rcgen");
    let cert = dir.join("relay.crt");
    let key = dir.join("relay.key");
    std::fs::write(&cert, certified.cert.pem()).expect("write cert");
    std::fs::write(&key, certified.signing_key.serialize_pem()).expect("write key");
    (cert, key)
}

/// A free TCP port on loopback (bound, then released for the server under test).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

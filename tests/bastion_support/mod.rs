//! Jump hosts for the tests: a real OpenSSH sshd as the bastion in front of the lab's devices,
//! and the lab's site rewritten to reach its devices through it (`bastions:` in site.yaml,
//! `ssh: { via: ... }` in each baseline). The bastion runs a ForceCommand that leaves a mark:
//! a session on it (a shell, an exec, anything typed) would leave the file `ran` behind.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::sshd::{self, keygen, public, run};
use premarket::Report;
use premarket::core::Status;

/// A jump host: an sshd whose host key (and certificate, when made) and login key are in its
/// directory; `client` logs in as the test's user.
pub struct Bastion {
    pub sshd: sshd::Sshd,
}

/// How to make a bastion's sshd: its extra configuration lines (`{dir}` is its directory), and
/// a step run on its directory before it starts (a host certificate to sign, a CA to trust).
#[derive(Default)]
pub struct Options<'a> {
    pub config: &'a str,
    pub prepare: Option<&'a dyn Fn(&Path)>,
}

impl Bastion {
    pub fn start(options: Options<'_>) -> Bastion {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keygen(&d.join("host"), "ed25519", "");
        keygen(&d.join("client"), "ed25519", "");
        std::fs::copy(d.join("client.pub"), d.join("authorized_keys")).unwrap();
        if let Some(prepare) = options.prepare {
            prepare(d);
        }
        let config = format!(
            "HostKey {host}\nAuthorizedKeysFile {auth}\nForceCommand /bin/touch {ran}\n\
             PermitTTY no\nLogLevel DEBUG1\n{extra}",
            host = d.join("host").display(),
            auth = d.join("authorized_keys").display(),
            ran = d.join("ran").display(),
            extra = options.config.replace("{dir}", &d.display().to_string()),
        );
        Bastion {
            sshd: sshd::Sshd::start(dir, &config),
        }
    }

    pub fn port(&self) -> u16 {
        self.sshd.port
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.sshd.path(name)
    }

    /// Its known_hosts line, as `ssh-keyscan` would give it.
    pub fn known_host(&self) -> String {
        format!(
            "[127.0.0.1]:{} {}",
            self.port(),
            public(&self.path("host.pub"))
        )
    }

    /// Its host key's `SHA256:...` fingerprint, as `ssh-keygen -lf` prints it.
    pub fn fingerprint(&self) -> String {
        let printed = run(Command::new("ssh-keygen")
            .arg("-lf")
            .arg(self.path("host.pub")));
        printed.split_whitespace().nth(1).unwrap().to_string()
    }

    /// Its entry of site.yaml's `bastions:`, logging in with the client key.
    pub fn entry(&self, name: &str, extra: &str) -> String {
        format!(
            "  - name: {name}\n    host: 127.0.0.1\n    port: {}\n    user: {}\n    key_file: {:?}\n{extra}",
            self.port(),
            sshd::user(),
            self.path("client").display().to_string(),
        )
    }

    /// Whether anything ran on it: its ForceCommand leaves `ran` behind.
    pub fn ran_something(&self) -> bool {
        self.path("ran").exists()
    }

    /// Logins it accepted (one per connection) and `direct-tcpip` channels it was asked for.
    pub fn logins_and_channels(&self) -> (usize, usize) {
        let log = self.sshd.log();
        (
            log.matches("Accepted publickey").count(),
            log.matches("server_request_direct_tcpip").count(),
        )
    }
}

/// `ssh-keygen -s CA -I premarket-test ARGS PUB` in `dir`: a certificate beside `PUB`.
pub fn sign(dir: &Path, ca: &str, args: &[&str], public: &str) {
    run(Command::new("ssh-keygen")
        .current_dir(dir)
        .args(["-q", "-s", ca, "-I", "premarket-test"])
        .args(args)
        .arg(public));
}

/// A copy of the lab's site in `to`, without its deadline (a run near 08:45 would be cut).
pub fn copy_site(from: &Path, to: &Path) {
    crate::common::copy_dir(from, to);
    let site = to.join("baselines/site.yaml");
    let text: String = std::fs::read_to_string(&site)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("deadline:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(site, text).unwrap();
}

/// Adds `entries` (each a `bastions:` item) to site.yaml, `known_hosts` lines to the site's
/// known_hosts, and `via` to each device's baseline (`None`: left direct).
pub fn through(
    site: &Path,
    entries: &[String],
    known_hosts: &[String],
    via: impl Fn(&str) -> Option<String>,
) {
    let baselines = site.join("baselines");
    let mut text = std::fs::read_to_string(baselines.join("site.yaml")).unwrap();
    text.push_str("bastions:\n");
    for entry in entries {
        text.push_str(entry);
    }
    std::fs::write(baselines.join("site.yaml"), text).unwrap();
    let mut hosts = std::fs::read_to_string(baselines.join("known_hosts")).unwrap();
    for line in known_hosts {
        hosts.push_str(line);
        hosts.push('\n');
    }
    std::fs::write(baselines.join("known_hosts"), hosts).unwrap();
    for entry in std::fs::read_dir(&baselines).unwrap() {
        let path = entry.unwrap().path();
        let Some(device) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if device == "site" || path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let Some(via) = via(device) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\nssh:\n"), "{}", path.display());
        let text = text.replacen("\nssh:\n", &format!("\nssh:\n  via: {via}\n"), 1);
        std::fs::write(&path, text).unwrap();
    }
}

/// `premarket run --format json` on `site` with `args`: the report, the exit code and how long
/// it took.
pub fn run_site(site: &Path, args: &[&str]) -> (Report, i32, Duration) {
    let began = Instant::now();
    let out = Command::new(assert_cmd::cargo::cargo_bin("premarket"))
        .arg("--dir")
        .arg(site)
        .args(["run", "--format", "json", "--no-email"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run premarket");
    let took = began.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Report = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out.status.code().unwrap_or(-1), took)
}

/// `premarket trust ARGS` on `site`: the exit code and what it said (stdout, then stderr).
pub fn trust(site: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("premarket"))
        .arg("--dir")
        .arg(site)
        .arg("trust")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run premarket trust");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), said)
}

/// Every result as `STATUS device check`, sorted.
pub fn verdicts(report: &Report) -> Vec<String> {
    let mut all: Vec<String> = report
        .results
        .iter()
        .map(|r| format!("{:?} {} {}", r.status, r.device, r.check))
        .collect();
    all.sort();
    all
}

/// The devices with at least one result that is not ERROR.
pub fn inspected(report: &Report) -> Vec<String> {
    let mut devices: Vec<String> = report
        .results
        .iter()
        // The site's checks stand under its name, not a device's.
        .filter(|r| r.status != Status::Error && r.device != report.site)
        .map(|r| r.device.clone())
        .collect();
    devices.sort();
    devices.dedup();
    devices
}

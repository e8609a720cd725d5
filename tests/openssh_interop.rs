//! Interop beyond russh-to-russh: the client against a real OpenSSH sshd on loopback, started
//! by the test on a free port with a ForceCommand script that plays an EOS switch on the PTY.
//! One server offers only legacy algorithms. Public-key login by key file (passphrase from a
//! secret reference) and by ssh-agent.
//!
//! Mandatory when PREMARKET_REQUIRE_OPENSSH=1 (CI); otherwise skipped, with the reason printed,
//! when sshd is not installed (Debian: `apt-get install openssh-server`).

use crate::common::sshd::{self, keygen, public, run};
use crate::ssh_common;

use std::path::PathBuf;
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use premarket::core::CollectError;
use premarket::core::Platform;
use premarket::ssh;
use ssh_common::*;

/// The device the ForceCommand plays: prompt, enable, privilege error, two show commands.
const DEVICE_SCRIPT: &str = r#"#!/bin/bash
host=sw-ossh; priv=0
prompt() { if [ "$priv" = 1 ]; then printf '%s#' "$host"; else printf '%s>' "$host"; fi; }
prompt
while IFS= read -r line; do
  line=${line%$'\r'}
  case "$line" in
    "") ;;
    enable) priv=1 ;;
    "terminal length 0") echo "Pagination disabled." ;;
    "terminal width 511") echo "Width set to 511 columns." ;;
    "show version") echo "Arista DCS-7050TX-64"; echo "Software image version: 4.31.6M" ;;
    "show running-config")
      if [ "$priv" = 1 ]; then echo "hostname sw-ossh"; echo "queue-monitor length"; echo "end";
      else echo "% Invalid input (privileged mode required)"; fi ;;
    *) echo "% Invalid input" ;;
  esac
  prompt
done
"#;

/// The OpenSSH server playing the switch, with the host key's public line.
struct Sshd {
    server: sshd::Sshd,
    port: u16,
    host_pub: String,
}

/// The session settings of these tests: 5 s per command, and 20 s to connect and log in,
/// because a debug build derives the passphrase's key (bcrypt, 16 rounds) in seconds on a
/// loaded 2-core machine; these tests are about interop, not timing.
fn patient(known_hosts: Option<PathBuf>) -> ssh::Settings {
    ssh::Settings {
        connect_timeout: Duration::from_secs(20),
        ..settings(known_hosts, Duration::from_secs(5))
    }
}

fn openssh_available() -> bool {
    sshd::openssh_available(&[sshd::SSHD, "ssh-keygen"])
}

impl Sshd {
    fn start(legacy: bool) -> Sshd {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let host_key = d.join(if legacy { "host_rsa" } else { "host_ed25519" });
        keygen(&host_key, if legacy { "rsa" } else { "ed25519" }, "");
        keygen(&d.join("client_enc"), "ed25519", CANARY);
        keygen(&d.join("client_plain"), "ed25519", "");
        let authorized: String = ["client_enc.pub", "client_plain.pub"]
            .iter()
            .map(|f| std::fs::read_to_string(d.join(f)).unwrap())
            .collect();
        std::fs::write(d.join("authorized_keys"), authorized).unwrap();
        std::fs::write(d.join("device.sh"), DEVICE_SCRIPT).unwrap();
        let mut config = format!(
            "HostKey {}\nAuthorizedKeysFile {}\nForceCommand /bin/bash {}\n",
            host_key.display(),
            d.join("authorized_keys").display(),
            d.join("device.sh").display(),
        );
        if legacy {
            config.push_str(
                "KexAlgorithms diffie-hellman-group14-sha1\nHostKeyAlgorithms ssh-rsa\nCiphers aes128-cbc\nMACs hmac-sha1\n",
            );
        }
        let host_pub = public(&host_key.with_extension("pub"));
        let server = sshd::Sshd::start(dir, &config);
        Sshd {
            port: server.port,
            server,
            host_pub,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.server.path(name)
    }

    /// The known_hosts line built from the host key's .pub (ssh-keyscan finds nothing on the
    /// legacy-only server).
    fn known_hosts(&self) -> PathBuf {
        let mut parts = self.host_pub.split(' ');
        let line = format!(
            "[127.0.0.1]:{} {} {}",
            self.port,
            parts.next().unwrap(),
            parts.next().unwrap()
        );
        known_hosts(self.server.dir.path(), &line)
    }

    /// What OpenSSH itself says the fingerprint is.
    fn fingerprint(&self) -> String {
        let host_key = if self.path("host_rsa.pub").exists() {
            "host_rsa.pub"
        } else {
            "host_ed25519.pub"
        };
        let out = run(Process::new("ssh-keygen")
            .args(["-l", "-E", "sha256", "-f"])
            .arg(self.path(host_key)));
        out.split(' ').nth(1).unwrap().to_string()
    }

    fn device(&self) -> premarket::config::Device {
        let mut conn = connection(self.port, None);
        conn.user = sshd::user();
        conn.key_file = Some(self.path("client_enc"));
        conn.key_passphrase = Some(secret_file(self.server.dir.path(), "passphrase", CANARY));
        device("sw-ossh", Platform::Eos, conn)
    }
}

fn assert_switch_outputs(results: &[(premarket::Command, Result<ssh::Captured, CollectError>)]) {
    let out = |i: usize| {
        results[i]
            .1
            .as_ref()
            .map(|c| c.output.clone())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        out(0),
        Ok("Arista DCS-7050TX-64\nSoftware image version: 4.31.6M".into())
    );
    assert_eq!(
        out(1),
        Ok("hostname sw-ossh\nqueue-monitor length\nend".into())
    );
    assert_eq!(results[1].1.as_ref().unwrap().prompt, "sw-ossh#");
    let all = format!("{results:?}");
    assert!(!all.contains(CANARY), "the passphrase leaked: {all}");
}

const SWITCH_COMMANDS: [&str; 2] = ["show version", "show running-config"];

#[tokio::test]
async fn key_file_with_passphrase_against_openssh() {
    if !openssh_available() {
        return;
    }
    let sshd = Sshd::start(false);
    let settings = patient(Some(sshd.known_hosts()));
    let results = collect(&sshd.device(), &commands(&SWITCH_COMMANDS), &settings).await;
    assert_switch_outputs(&results);

    // A wrong passphrase: a clear error, and the wrong value is not in it either.
    let mut device = sshd.device();
    device.ssh_mut().expect("an SSH device").key_passphrase = Some(secret_file(
        sshd.server.dir.path(),
        "wrong",
        "CANARY-wrong-passphrase",
    ));
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    let e = results[0].1.as_ref().unwrap_err().to_string();
    assert!(
        e.contains("cannot load key file") && !e.contains("CANARY"),
        "{e}"
    );
}

#[tokio::test]
async fn host_key_fingerprint_matches_openssh_and_unknown_keys_are_refused() {
    if !openssh_available() {
        return;
    }
    let sshd = Sshd::start(false);
    let fingerprint = sshd.fingerprint();
    let results = premarket::collect::ssh::collect(
        &sshd.device(),
        &commands(&["show version"]),
        &patient(None),
    )
    .await;
    let e = results[0].1.as_ref().unwrap_err().to_string();
    assert!(
        e.starts_with("unknown host key") && e.contains(&fingerprint),
        "{e} (ssh-keygen says {fingerprint})"
    );

    let mut pinned = sshd.device();
    pinned.ssh_mut().expect("an SSH device").host_key = Some(fingerprint);
    let results =
        premarket::collect::ssh::collect(&pinned, &commands(&["show version"]), &patient(None))
            .await;
    assert!(results[0].1.is_ok(), "{:?}", results[0].1);
}

#[tokio::test]
async fn legacy_only_openssh_needs_legacy_algorithms() {
    if !openssh_available() {
        return;
    }
    let sshd = Sshd::start(true);
    let settings = patient(Some(sshd.known_hosts()));
    let mut device = sshd.device();
    let results = collect(&device, &commands(&["show version"]), &settings).await;
    let e = results[0].1.as_ref().unwrap_err().to_string();
    assert!(
        e.starts_with("cannot connect") && e.contains("legacy_algorithms"),
        "{e}"
    );

    device.ssh_mut().expect("an SSH device").legacy_algorithms = true;
    let results = collect(&device, &commands(&SWITCH_COMMANDS), &settings).await;
    assert_switch_outputs(&results);
}

#[tokio::test]
async fn ssh_agent_login_against_openssh() {
    if !openssh_available() {
        return;
    }
    let sshd = Sshd::start(false);
    let socket = sshd.path("agent.sock");
    let mut agent = Process::new("ssh-agent")
        .args(["-D", "-a"])
        .arg(&socket)
        .stdout(Stdio::null())
        .spawn()
        .expect("start ssh-agent");
    let started = Instant::now();
    while !socket.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "ssh-agent did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    run(Process::new("ssh-add")
        .env("SSH_AUTH_SOCK", &socket)
        .arg(sshd.path("client_plain")));
    // Only this test reads SSH_AUTH_SOCK in this test binary.
    unsafe { std::env::set_var("SSH_AUTH_SOCK", &socket) };

    let mut device = sshd.device();
    device.ssh_mut().expect("an SSH device").key_file = None;
    device.ssh_mut().expect("an SSH device").key_passphrase = None;
    device.ssh_mut().expect("an SSH device").agent = true;
    let settings = patient(Some(sshd.known_hosts()));
    let results = collect(&device, &commands(&SWITCH_COMMANDS), &settings).await;
    let _ = agent.kill();
    let _ = agent.wait();
    assert_switch_outputs(&results);
}

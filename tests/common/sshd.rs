//! A real OpenSSH server for the tests: Debian's `sshd`, started by the test on a free loopback
//! port with a configuration of its own in a temporary directory, killed when dropped. The
//! caller makes the keys it needs there (`keygen`, `ssh-keygen -s` for certificates) and adds
//! its lines to the common ones (the port, root logins by key only, no PAM).
//!
//! Mandatory when PREMARKET_REQUIRE_OPENSSH=1 (CI); otherwise the tests skip, with the reason
//! printed, when OpenSSH is not installed (Debian: `apt-get install openssh-server
//! openssh-client`).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const SSHD: &str = "/usr/sbin/sshd";

/// Returns false (after printing why) when the test must be skipped: one of `tools` is
/// missing and PREMARKET_REQUIRE_OPENSSH is not 1 (with it, a missing tool fails the test).
pub fn openssh_available(tools: &[&str]) -> bool {
    let missing: Vec<&&str> = tools
        .iter()
        .filter(|tool| {
            Command::new(tool)
                .arg("-?")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_err()
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let why = format!("{missing:?} not installed (apt-get install openssh-server openssh-client)");
    if std::env::var("PREMARKET_REQUIRE_OPENSSH").as_deref() == Ok("1") {
        panic!("PREMARKET_REQUIRE_OPENSSH=1 but {why}");
    }
    eprintln!("SKIPPED: {why}; set PREMARKET_REQUIRE_OPENSSH=1 to make this fail");
    false
}

/// Runs a helper that must succeed; its standard output.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run helper");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A key pair at `path` and `path.pub`, of `kind` (`ed25519`, `rsa`), protected by
/// `passphrase` (empty: none).
pub fn keygen(path: &Path, kind: &str, passphrase: &str) {
    let mut cmd = Command::new("ssh-keygen");
    cmd.args(["-q", "-t", kind, "-N", passphrase, "-C", "", "-f"])
        .arg(path);
    if kind == "rsa" {
        cmd.args(["-b", "2048"]);
    }
    run(&mut cmd);
}

/// `ssh-ed25519 AAAA...` from a .pub file (no comment).
pub fn public(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The user the tests run as, whom every sshd here lets in by key.
pub fn user() -> String {
    run(Command::new("id").arg("-un")).trim().to_string()
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether `ssh` itself, with strict host key checking, accepts the host key (or certificate)
/// of the sshd on `port` by `known_hosts`, offering `host_key_algorithms` and logging in with
/// `identity`; a failure for another reason than the host key fails the test.
pub fn ssh_accepts(
    port: u16,
    known_hosts: &Path,
    identity: &Path,
    host_key_algorithms: &str,
) -> bool {
    let out = Command::new("ssh")
        .args(["-F", "/dev/null", "-p", &port.to_string()])
        .args(["-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes"])
        .arg("-o")
        .arg(format!("UserKnownHostsFile={}", known_hosts.display()))
        .args([
            "-o",
            "GlobalKnownHostsFile=/dev/null",
            "-o",
            "UpdateHostKeys=no",
        ])
        .args(["-o", "CheckHostIP=no", "-o", "ConnectTimeout=5"])
        .args(["-o", &format!("HostKeyAlgorithms={host_key_algorithms}")])
        .args(["-o", "IdentitiesOnly=yes", "-i"])
        .arg(identity)
        .arg(format!("{}@127.0.0.1", user()))
        .arg("true")
        .stdin(Stdio::null())
        .output()
        .expect("run ssh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return true;
    }
    assert!(
        stderr.contains("Host key verification failed."),
        "ssh failed for another reason than the host key: {stderr}"
    );
    false
}

/// A running sshd; killed when dropped.
pub struct Sshd {
    child: Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Sshd {
    /// Starts sshd with the files the caller made in `dir` and `config`'s lines (HostKey,
    /// AuthorizedKeysFile, ForceCommand ...) after the common ones; it logs to `sshd.log` there.
    pub fn start(dir: tempfile::TempDir, config: &str) -> Sshd {
        let d = dir.path();
        let port = free_port();
        let common = format!(
            "Port {port}\nListenAddress 127.0.0.1\nPidFile {pid}\nStrictModes no\nUsePAM no\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
             PermitRootLogin yes\n",
            pid = d.join("sshd.pid").display(),
        );
        std::fs::write(d.join("sshd_config"), format!("{common}{config}")).unwrap();
        let _ = std::fs::create_dir_all("/run/sshd");
        let child = Command::new(SSHD)
            .args(["-D", "-E"])
            .arg(d.join("sshd.log"))
            .arg("-f")
            .arg(d.join("sshd_config"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start sshd");
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "sshd did not listen on {port}: {}",
                std::fs::read_to_string(d.join("sshd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Sshd { child, port, dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// What sshd logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.path("sshd.log")).unwrap_or_default()
    }

    /// The listener's process id (its connections are children of it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The CPU time (user + system) sshd spent, its ended connections' included: waits (up to
    /// 10 s) until the listener has reaped every connection, whose time then counts in its
    /// children's (`cutime`, `cstime` of /proc/PID/stat).
    pub fn cpu(&self) -> Duration {
        let pid = self.pid();
        let started = Instant::now();
        let children = format!("/proc/{pid}/task/{pid}/children");
        while !std::fs::read_to_string(&children)
            .unwrap_or_default()
            .trim()
            .is_empty()
        {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "sshd's connections did not end"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        // After "pid (comm) ": state is field 3, utime 14 .. cstime 17.
        let fields: Vec<u64> = stat
            .rsplit_once(") ")
            .unwrap()
            .1
            .split_whitespace()
            .skip(11)
            .take(4)
            .map(|f| f.parse().unwrap())
            .collect();
        let ticks = run(Command::new("getconf").arg("CLK_TCK"))
            .trim()
            .parse::<u64>()
            .unwrap();
        Duration::from_millis(fields.iter().sum::<u64>() * 1000 / ticks)
    }
}

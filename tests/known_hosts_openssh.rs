//! premarket's known_hosts reader against OpenSSH itself, on the same files: `ssh-keygen -F`
//! for which lines name a host, and `ssh -o StrictHostKeyChecking=yes` against a real sshd on
//! loopback for which files accept or refuse its key, next to premarket's own SSH handshake with
//! that sshd. Revoked, negated, wildcard, hashed and port forms are compared case by case, and
//! `@cert-authority` lines with the sshd's host certificate (made with `ssh-keygen -s`); the
//! place where premarket deliberately refuses what `ssh` accepts is a row of its own.
//!
//! Mandatory when PREMARKET_REQUIRE_OPENSSH=1 (CI); otherwise skipped, with the reason printed,
//! when OpenSSH is not installed (Debian: `apt-get install openssh-server openssh-client`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::sshd::{self, SSHD, keygen, openssh_available, public, run};

use premarket::core::CollectError;
use premarket::ssh::hostkey::{Expected, KnownHosts, Role};
use premarket::ssh::known_hosts::{self, Marker};
use premarket::ssh::transport;

const FIXTURE: &str = "tests/fixtures/known_hosts/site.txt";

/// `(line, marker)` of every line `ssh-keygen -F name` reports, in file order (`# Host X found: line N [CA|REVOKED]`).
fn ssh_keygen_finds(file: &Path, name: &str) -> Vec<(usize, Marker)> {
    let out = Command::new("ssh-keygen")
        .args(["-F", name, "-f"])
        .arg(file)
        .output()
        .expect("run ssh-keygen");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let prefix = format!("# Host {name} found: line ");
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|rest| {
            let mut words = rest.split_whitespace();
            let line = words.next().and_then(|n| n.parse().ok()).expect(rest);
            let marker = match words.next() {
                None => Marker::Plain,
                Some("REVOKED") => Marker::Revoked,
                Some("CA") => Marker::CertAuthority,
                Some(other) => panic!("ssh-keygen printed marker {other}"),
            };
            (line, marker)
        })
        .collect()
}

#[test]
fn lookup_agrees_with_ssh_keygen() {
    if !openssh_available(&["ssh-keygen"]) {
        return;
    }
    let text = std::fs::read(FIXTURE).unwrap();
    let names = [
        ("fw1.example", 22),
        ("FW1.Example", 22),
        ("10.1.0.1", 22),
        ("10.1.0.1", 2222),
        ("sw1.example", 22),
        ("sw1.example", 2222),
        ("sw2.example", 22),
        ("edge1.lab.example", 22),
        ("core1.lab.example", 22),
        ("core12.lab.example", 22),
        ("10.0.0.1", 2222),
        ("10.0.0.1", 22),
        ("2001:db8::1", 830),
        ("fw9.example", 22),
        ("unknown.org", 22),
    ];
    let mut compared = 0;
    for (host, port) in names {
        let name = known_hosts::lookup_name(host, port);
        let ours: Vec<(usize, Marker)> = known_hosts::entries(&text, &name)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .into_iter()
            .map(|e| (e.line, e.marker))
            .collect();
        let theirs = ssh_keygen_finds(Path::new(FIXTURE), &name);
        assert_eq!(ours, theirs, "lines naming {name} ({host} port {port})");
        compared += theirs.len();
    }
    // The fixture must exercise the reader, not agree on emptiness.
    assert!(compared >= 30, "only {compared} matching lines compared");
}

/// A running sshd with an ed25519 host key and a host certificate.
struct Sshd {
    server: sshd::Sshd,
    port: u16,
}

impl Sshd {
    fn start() -> Sshd {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for name in ["host", "other", "ca", "client"] {
            keygen(&d.join(name), "ed25519", "");
        }
        // The host key signed by the CA for the name `ssh` checks (the address as typed).
        run(Command::new("ssh-keygen")
            .args(["-q", "-s"])
            .arg(d.join("ca"))
            .args([
                "-I",
                "premarket-test",
                "-h",
                "-n",
                "127.0.0.1",
                "-V",
                "-5m:+1h",
            ])
            .arg(d.join("host.pub")));
        std::fs::copy(d.join("client.pub"), d.join("authorized_keys")).unwrap();
        let config = format!(
            "HostKey {host}\nHostCertificate {host}-cert.pub\nAuthorizedKeysFile {auth}\n\
             ForceCommand /bin/true\n",
            host = d.join("host").display(),
            auth = d.join("authorized_keys").display(),
        );
        let server = sshd::Sshd::start(dir, &config);
        Sshd {
            port: server.port,
            server,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.server.path(name)
    }

    /// `template` with {N} (the name looked up), {KEY} (the host key), {OTHER}, {CA}, {HASHED}
    /// (the name as `ssh-keygen -H` hashes it) filled in, written to a file of its own.
    fn known_hosts(&self, case: usize, template: &str) -> PathBuf {
        let name = format!("[127.0.0.1]:{}", self.port);
        let key = public(&self.path("host.pub"));
        let path = self.path(&format!("known_hosts.{case}"));
        let text = template
            .replace("{HASHED}", &self.hashed(&name, &key))
            .replace("{N}", &name)
            .replace("{KEY}", &key)
            .replace("{OTHER}", &public(&self.path("other.pub")))
            .replace("{CA}", &public(&self.path("ca.pub")));
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `name` hashed by OpenSSH itself, so premarket's hashing is checked, not assumed.
    fn hashed(&self, name: &str, key: &str) -> String {
        let file = self.path("to_hash");
        std::fs::write(&file, format!("{name} {key}\n")).unwrap();
        run(Command::new("ssh-keygen").arg("-H").arg("-f").arg(&file));
        let text = std::fs::read_to_string(&file).unwrap();
        let hashed = text.split_whitespace().next().unwrap().to_string();
        assert!(hashed.starts_with("|1|"), "{text}");
        hashed
    }

    /// Whether `ssh` accepts the host key with `known_hosts` and strict checking.
    fn ssh_accepts(&self, known_hosts: &Path, host_key_algorithms: &str) -> bool {
        sshd::ssh_accepts(
            self.port,
            known_hosts,
            &self.path("client"),
            host_key_algorithms,
        )
    }

    /// premarket's handshake with the sshd: `Ok` once the host key passed, or the refusal.
    async fn premarket_accepts(&self, known_hosts: &Path) -> Result<(), String> {
        let known_hosts = KnownHosts::read(known_hosts);
        let expected = Expected {
            device: "sw-ossh",
            role: Role::Device,
            host: "127.0.0.1",
            port: self.port,
            pin: None,
            known_hosts: Some(&known_hosts),
        };
        let handler = transport::verifying(expected);
        match transport::connect(
            "127.0.0.1",
            self.port,
            false,
            Duration::from_secs(5),
            handler,
        )
        .await
        {
            Ok(_) => Ok(()),
            Err(CollectError::HostKey(e)) => Err(e),
            Err(e) => panic!("premarket failed for another reason than the host key: {e}"),
        }
    }
}

/// One known_hosts file, what `ssh` does with it and what premarket does (a fragment of its
/// refusal).
struct Case {
    what: &'static str,
    file: &'static str,
    ssh_host_key_algorithms: &'static str,
    ssh_accepts: bool,
    premarket: Result<(), &'static str>,
}

const PLAIN: &str = "ssh-ed25519";
/// `ssh`'s default order: the host's certificate first, its plain key else.
const CERT_FIRST: &str = "ssh-ed25519-cert-v01@openssh.com,ssh-ed25519";

/// A row where `ssh` asks for the host's certificate first, as it does by default.
fn agree_certificate(
    what: &'static str,
    file: &'static str,
    premarket: Result<(), &'static str>,
) -> Case {
    Case {
        ssh_host_key_algorithms: CERT_FIRST,
        ..agree(what, file, premarket)
    }
}

fn agree(what: &'static str, file: &'static str, premarket: Result<(), &'static str>) -> Case {
    Case {
        what,
        file,
        ssh_host_key_algorithms: PLAIN,
        ssh_accepts: premarket.is_ok(),
        premarket,
    }
}

#[tokio::test]
async fn ssh_and_premarket_accept_and_refuse_the_same_files() {
    if !openssh_available(&[SSHD, "ssh", "ssh-keygen"]) {
        return;
    }
    let sshd = Sshd::start();
    let revoked = Err("is REVOKED in known_hosts");
    let unknown = Err("unknown host key for sw-ossh");
    let cases = [
        agree("a plain entry", "# site\n{N} {KEY}\n", Ok(())),
        agree("tabs between fields", "{N}\t{KEY} \t comment\n", Ok(())),
        agree("revoked", "{N} {KEY}\n@revoked {N} {KEY}\n", revoked),
        agree(
            "revoked for every host",
            "@revoked * {KEY}\n{N} {KEY}\n",
            revoked,
        ),
        agree(
            "revoked under a hashed name",
            "{N} {KEY}\n@revoked {HASHED} {KEY}\n",
            revoked,
        ),
        agree(
            "a revocation that excludes this host",
            "@revoked *,!{N} {KEY}\n{N} {KEY}\n",
            Ok(()),
        ),
        agree(
            "another key revoked",
            "@revoked * {OTHER}\n{N} {KEY}\n",
            Ok(()),
        ),
        agree("a wildcard", "[127.0.0.?]:* {KEY}\n", Ok(())),
        agree(
            "a wildcard, this host negated",
            "[127.0.0.*]:*,!{N} {KEY}\n",
            unknown,
        ),
        agree("hashed", "{HASHED} {KEY}\n", Ok(())),
        // Off port 22, `ssh` falls back to the bare host when the port's name lists no key.
        agree("the bare host", "127.0.0.1 {KEY}\n", Ok(())),
        agree("the bare host, another key", "127.0.0.1 {OTHER}\n", unknown),
        agree(
            "the bare host, not read when the port lists a key",
            "{N} {OTHER}\n127.0.0.1 {KEY}\n",
            Err("HOST KEY CHANGED for sw-ossh"),
        ),
        agree(
            "revoked under the bare host, which is read",
            "@revoked 127.0.0.1 {KEY}\n127.0.0.1 {KEY}\n",
            revoked,
        ),
        agree(
            "revoked under the bare host, which is not read",
            "{N} {KEY}\n@revoked 127.0.0.1 {KEY}\n",
            Ok(()),
        ),
        agree(
            "[host]:22 is not the bare host",
            "[127.0.0.1]:22 {KEY}\n",
            unknown,
        ),
        agree(
            "another key",
            "{N} {OTHER}\n",
            Err("HOST KEY CHANGED for sw-ossh"),
        ),
        agree("several keys", "{N} {OTHER}\n{N} {KEY}\n", Ok(())),
        // A CA line makes premarket ask for the host's certificate, as `ssh` asks by default.
        agree_certificate("only a CA", "@cert-authority {N} {CA}\n", Ok(())),
        agree_certificate(
            "only a CA, under the bare host",
            "@cert-authority 127.0.0.1 {CA}\n",
            Ok(()),
        ),
        agree_certificate(
            "a CA and another plain key: the certificate decides",
            "@cert-authority {N} {CA}\n{N} {OTHER}\n",
            Ok(()),
        ),
        agree_certificate(
            "a CA line for another CA",
            "@cert-authority {N} {OTHER}\n",
            Err("its host certificate was refused: it is signed by SHA256:"),
        ),
        agree_certificate(
            "the CA revoked",
            "@cert-authority {N} {CA}\n@revoked * {CA}\n",
            Err("an authority REVOKED in known_hosts"),
        ),
        agree_certificate(
            "the certified key revoked",
            "@cert-authority {N} {CA}\n@revoked {N} {KEY}\n",
            revoked,
        ),
        agree_certificate(
            "a CA line excluding this host, the plain key listed",
            "@cert-authority *,!{N} {CA}\n{N} {KEY}\n",
            Ok(()),
        ),
        // Deliberate differences: `ssh` accepts, premarket refuses.
        Case {
            what: "a tab after @revoked and a space later (OpenSSH's check_markers then reads \
                   the marker as `@revoked\\t[127...` and skips the line)",
            file: "@revoked\t{N} {KEY}\n{N} {KEY}\n",
            ssh_host_key_algorithms: PLAIN,
            ssh_accepts: true,
            premarket: revoked,
        },
    ];
    // Every row is run, and every disagreement reported together.
    let mut wrong = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let file = sshd.known_hosts(i, case.file);
        let ssh = sshd.ssh_accepts(&file, case.ssh_host_key_algorithms);
        if ssh != case.ssh_accepts {
            wrong.push(format!(
                "ssh on {} ({:?}): accepts = {ssh}",
                case.what, case.file
            ));
        }
        let ours = sshd.premarket_accepts(&file).await;
        match (case.premarket, &ours) {
            (Ok(()), Ok(())) => {}
            (Err(fragment), Err(e)) if e.contains(fragment) => {}
            _ => wrong.push(format!(
                "premarket on {} ({:?}): expected {:?}, got {ours:?}",
                case.what, case.file, case.premarket
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

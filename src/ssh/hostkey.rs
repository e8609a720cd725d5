//! Host key verification: the device must prove it is the device we mean before we send a
//! password. A key is trusted only when it is pinned in the device's baseline (`host_key:
//! SHA256:...`) or listed in the site's known_hosts file, read by OpenSSH's rules in
//! [`super::known_hosts`]. Never trust on first use, never add a key by ourselves: an unknown
//! key is refused with the fingerprint and how to pin it, and a changed key is refused loudly.
//! A key marked `@revoked` for the host is refused whatever else vouches for it, the pin
//! included. `@cert-authority` lines are not trusted: premarket negotiates plain host keys only
//! (no `*-cert-v01` algorithm is offered), so a host that only a CA line names is refused with
//! a message saying so.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use russh::keys::{HashAlg, PublicKey};

use super::known_hosts::{self, Entry, Listed, Marker};

/// Where a device is and which keys it may present.
#[derive(Clone, Debug)]
pub struct Expected<'a> {
    pub device: &'a str,
    pub host: &'a str,
    pub port: u16,
    /// The device's pinned fingerprint (`ssh.host_key`).
    pub pin: Option<&'a str>,
    /// The site's known_hosts file (`ssh.known_hosts` in site.yaml), as read before connecting.
    pub known_hosts: Option<&'a KnownHosts>,
}

mod read_once;
pub use read_once::ReadOnce;

/// The site's known_hosts file as read before a connection. The key check runs inside the
/// SSH handshake, on the session's async task, where no file is read: a slow disk would stall
/// the task, and a file that blocks (a FIFO) would hang it past the run's deadline. A run
/// reads it once for all its devices ([`ReadOnce`]).
#[derive(Clone, Debug)]
pub struct KnownHosts {
    path: PathBuf,
    /// The file, indexed by name; `None` when it does not exist; the error when it cannot be
    /// read.
    text: Result<Option<Arc<known_hosts::Index>>, known_hosts::Error>,
}

impl KnownHosts {
    /// Reads the file at `path` ([`known_hosts::read`]). Blocking: run it off the async
    /// threads (`spawn_blocking`) or before the runtime.
    pub fn read(path: &Path) -> KnownHosts {
        KnownHosts {
            path: path.to_path_buf(),
            text: known_hosts::read(path).map(|t| t.map(|t| Arc::new(known_hosts::Index::new(t)))),
        }
    }
}

/// Why a host key was refused. Messages say what was offered and what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HostKeyError {
    #[error(
        "unknown host key for {device} ({addr}): it offered {fingerprint}; {note}. After checking the \
         fingerprint with the device's administrator, pin it in the device baseline (ssh: host_key: \"{fingerprint}\") \
         or add `{known_hosts_line}` to the site's known_hosts (`premarket trust --device {device}` prints both)"
    )]
    Unknown {
        device: String,
        addr: String,
        fingerprint: String,
        known_hosts_line: String,
        note: String,
    },
    #[error(
        "HOST KEY CHANGED for {device} ({addr})! It offered {fingerprint} but {source_} says {expected}. Someone may \
         be intercepting the connection, or the device was replaced or re-keyed: do not connect until the new key \
         is verified with the device's administrator, then update {source_}"
    )]
    Changed {
        device: String,
        addr: String,
        fingerprint: String,
        expected: String,
        source_: String,
    },
    #[error(
        "host key of {device} ({addr}) is REVOKED in known_hosts {path} line {line}: it offered {fingerprint}, \
         a key that must never be accepted (a stolen key may be impersonating the device). Do not connect; \
         get the device's new key from its administrator"
    )]
    Revoked {
        device: String,
        addr: String,
        fingerprint: String,
        path: String,
        line: usize,
    },
    #[error(
        "known_hosts {path} line {line} is a @cert-authority entry for {device}; premarket accepts plain \
         host keys only: add the device's key (`{known_hosts_line}`) or pin it (ssh: host_key: \"{fingerprint}\") \
         after checking {fingerprint} with the device's administrator"
    )]
    CertAuthority {
        device: String,
        fingerprint: String,
        path: String,
        line: usize,
        known_hosts_line: String,
    },
    #[error("cannot read known_hosts {path}: {reason}")]
    KnownHosts { path: String, reason: String },
    /// The key a device presented at a re-key during the session, refused as it would be at
    /// login: the session ended there.
    #[error(
        "{0} (presented at a re-key during the session, after login: the session ended there, \
         before anything more was typed or read)"
    )]
    AtRekey(Box<HostKeyError>),
    /// The file is not one premarket reads (the message names it and says why).
    #[error("{0}")]
    KnownHostsFile(String),
}

/// `SHA256:<base64>` as `ssh-keygen -lf` prints it.
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// The known_hosts line that trusts `key` for `host:port` (OpenSSH format, the name `ssh`
/// looks up).
pub fn known_hosts_line(host: &str, port: u16, key: &PublicKey) -> String {
    let name = known_hosts::lookup_name(host, port);
    let openssh = key.to_openssh().unwrap_or_default();
    // Drop the key's comment: it is not part of the trust decision.
    let mut parts = openssh.split(' ');
    let (alg, data) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    format!("{name} {alg} {data}")
}

/// Compares pins without caring about the `SHA256:` prefix or base64 padding.
fn same_fingerprint(pin: &str, offered: &str) -> bool {
    let norm = |s: &str| {
        s.trim()
            .trim_start_matches("SHA256:")
            .trim_end_matches('=')
            .to_string()
    };
    norm(pin) == norm(offered)
}

/// What the site's known_hosts says about the key a device offered.
enum Known<'a> {
    /// site.yaml names no known_hosts file.
    NoFile,
    /// It names one that does not exist (OpenSSH reads that as empty).
    Missing(&'a Path),
    /// What the lines `ssh` consults say.
    Said(&'a Path, Said),
}

/// The verdict of the consulted lines; `line` is the 1-based line that decided it.
enum Said {
    Listed,
    Revoked { line: usize },
    Changed { line: usize, expected: String },
    CertAuthorityOnly { line: usize },
    Unlisted { note: String },
}

/// Judges `key` by the known_hosts file read before the connection. A file that cannot be
/// read, or that has a broken line for this device, fails closed.
fn known<'a>(expected: &Expected<'a>, key: &PublicKey) -> Result<Known<'a>, HostKeyError> {
    let Some(file) = expected.known_hosts else {
        return Ok(Known::NoFile);
    };
    let path = file.path.as_path();
    let text = match &file.text {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Known::Missing(path)),
        Err(known_hosts::Error::Unreadable(reason)) => {
            return Err(HostKeyError::KnownHostsFile(reason.clone()));
        }
        Err(e) => {
            return Err(HostKeyError::KnownHosts {
                path: path.display().to_string(),
                reason: e.to_string(),
            });
        }
    };
    match text.listed(expected.host, expected.port) {
        Ok(listed) => Ok(Known::Said(path, judge(&listed, key, expected.host))),
        Err(e) => Err(HostKeyError::KnownHosts {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
    }
}

/// Judges `key` by the lines `ssh` consults: those under the device's name (`[host]:port` off
/// port 22) and, only when those list no plain key at all, those under the bare host name
/// (sshconnect.c, "checking without port identifier"). Revocation first; another key of the
/// same type under the device's own name is a changed key; a CA line vouches for nothing here.
fn judge(listed: &Listed, key: &PublicKey, host: &str) -> Said {
    let own_plain = || marked(listed.own.iter(), Marker::Plain);
    let consulted: Vec<&Entry> = match own_plain().next() {
        Some(_) => listed.own.iter().collect(),
        None => listed.own.iter().chain(&listed.bare).collect(),
    };
    let consulted = |marker| marked(consulted.iter().copied(), marker);
    let same_key = |e: &&Entry| e.key.key_data() == key.key_data();
    if let Some(e) = consulted(Marker::Revoked).find(same_key) {
        return Said::Revoked { line: e.line };
    }
    if consulted(Marker::Plain).any(|e| same_key(&e)) {
        return Said::Listed;
    }
    if let Some(e) = own_plain().find(|e| e.key.algorithm() == key.algorithm()) {
        return Said::Changed {
            line: e.line,
            expected: fingerprint(&e.key),
        };
    }
    if let Some(e) = consulted(Marker::CertAuthority).next() {
        return Said::CertAuthorityOnly { line: e.line };
    }
    let note = if own_plain().next().is_some() {
        "lists it only with other key types".to_string()
    } else if consulted(Marker::Plain).next().is_some() {
        format!(
            "lists only other keys for {} (port 22)",
            known_hosts::lookup_name(host, 22)
        )
    } else {
        "has no entry for it".to_string()
    };
    Said::Unlisted { note }
}

fn marked<'e>(
    entries: impl Iterator<Item = &'e Entry>,
    marker: Marker,
) -> impl Iterator<Item = &'e Entry> {
    entries.filter(move |e| e.marker == marker)
}

/// Accepts `key` when the pin or known_hosts vouch for it and known_hosts does not revoke it.
/// A revocation refuses the key first, pinned or not; then the pin decides alone; then
/// known_hosts.
pub fn verify(expected: &Expected<'_>, key: &PublicKey) -> Result<(), HostKeyError> {
    let offered = fingerprint(key);
    let addr = format!("{}:{}", expected.host, expected.port);
    let known = known(expected, key)?;
    let revoked = |path: &Path, line| HostKeyError::Revoked {
        device: expected.device.to_string(),
        addr: addr.clone(),
        fingerprint: offered.clone(),
        path: path.display().to_string(),
        line,
    };
    if let Known::Said(path, Said::Revoked { line }) = known {
        return Err(revoked(path, line));
    }
    if let Some(pin) = expected.pin {
        if same_fingerprint(pin, &offered) {
            return Ok(());
        }
        return Err(HostKeyError::Changed {
            device: expected.device.to_string(),
            addr,
            fingerprint: offered,
            expected: pin.to_string(),
            source_: "the pinned ssh.host_key in its baseline".into(),
        });
    }
    let line = known_hosts_line(expected.host, expected.port, key);
    let unknown = |note: String| HostKeyError::Unknown {
        device: expected.device.to_string(),
        addr: addr.clone(),
        fingerprint: offered.clone(),
        known_hosts_line: line.clone(),
        note,
    };
    let (path, said) = match known {
        Known::NoFile => {
            return Err(unknown(
                "no ssh.host_key is pinned and site.yaml names no ssh.known_hosts file".into(),
            ));
        }
        Known::Missing(path) => {
            return Err(unknown(format!(
                "the known_hosts file {} does not exist",
                path.display()
            )));
        }
        Known::Said(path, said) => (path, said),
    };
    match said {
        Said::Listed => Ok(()),
        Said::Changed {
            line,
            expected: old,
        } => Err(HostKeyError::Changed {
            device: expected.device.to_string(),
            addr,
            fingerprint: offered,
            expected: old,
            source_: format!("known_hosts {} line {line}", path.display()),
        }),
        Said::CertAuthorityOnly { line: ca } => Err(HostKeyError::CertAuthority {
            device: expected.device.to_string(),
            fingerprint: offered,
            path: path.display().to_string(),
            line: ca,
            known_hosts_line: line,
        }),
        Said::Unlisted { note } => Err(unknown(format!("{} {note}", path.display()))),
        // Already refused above, before the pin.
        Said::Revoked { line } => Err(revoked(path, line)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use russh::keys::{Algorithm, PrivateKey};

    fn key() -> PublicKey {
        PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519)
            .map(|k| k.public_key().clone())
            .unwrap()
    }

    fn expected<'a>(pin: Option<&'a str>, known_hosts: Option<&'a KnownHosts>) -> Expected<'a> {
        Expected {
            device: "sw1",
            host: "127.0.0.1",
            port: 2201,
            pin,
            known_hosts,
        }
    }

    #[test]
    fn pin_and_known_hosts_decide() {
        let k = key();
        let other = key();
        let fp = fingerprint(&k);
        let dir = tempfile::tempdir().unwrap();
        let kh = dir.path().join("known_hosts");
        std::fs::write(
            &kh,
            format!("# site keys\n{}\n", known_hosts_line("127.0.0.1", 2201, &k)),
        )
        .unwrap();
        let kh = KnownHosts::read(&kh);

        assert_eq!(verify(&expected(Some(&fp), None), &k), Ok(()));
        assert_eq!(
            verify(&expected(Some(fp.trim_start_matches("SHA256:")), None), &k),
            Ok(())
        );
        assert!(matches!(
            verify(&expected(Some(&fp), None), &other),
            Err(HostKeyError::Changed { .. })
        ));
        assert_eq!(verify(&expected(None, Some(&kh)), &k), Ok(()));
        let changed = verify(&expected(None, Some(&kh)), &other).unwrap_err();
        assert!(
            changed.to_string().starts_with("HOST KEY CHANGED for sw1"),
            "{changed}"
        );
        let unknown = verify(&expected(None, None), &k).unwrap_err().to_string();
        assert!(
            unknown.contains(&fp) && unknown.contains("host_key"),
            "{unknown}"
        );
        let elsewhere = Expected {
            port: 2299,
            ..expected(None, Some(&kh))
        };
        assert!(matches!(
            verify(&elsewhere, &k),
            Err(HostKeyError::Unknown { .. })
        ));
        let missing = KnownHosts::read(&dir.path().join("nope"));
        assert!(
            verify(&expected(None, Some(&missing)), &k)
                .unwrap_err()
                .to_string()
                .contains("does not exist")
        );
    }

    /// One device at `[10.0.0.1]:2222` offering key A, against a known_hosts text and a pin.
    /// `Ok(())` or a fragment of the refusal.
    #[test]
    fn known_hosts_decides_as_openssh_reads_it() {
        use crate::known_hosts::test_keys::{A, B, E, HASHED_10_0_0_1_2222};
        let a = PublicKey::from_openssh(A).unwrap();
        let pin_a = fingerprint(&a);
        let pin_b = fingerprint(&PublicKey::from_openssh(B).unwrap());
        let n = "[10.0.0.1]:2222";
        type Row<'a> = (&'a str, String, Option<&'a str>, Result<(), &'a str>);
        let table: Vec<Row> = vec![
            ("listed", format!("{n} {A}\n"), None, Ok(())),
            (
                "listed and revoked",
                format!("{n} {A}\n@revoked {n} {A}\n"),
                None,
                Err("host key of sw1 (10.0.0.1:2222) is REVOKED in known_hosts KH line 2"),
            ),
            (
                "revoked for every host",
                format!("# revoked\n@revoked * {A}\n{n} {A}\n"),
                None,
                Err("is REVOKED in known_hosts KH line 2"),
            ),
            (
                "a revocation that excludes this host",
                format!("@revoked *,!{n} {A}\n{n} {A}\n"),
                None,
                Ok(()),
            ),
            (
                "another key revoked",
                format!("@revoked * {B}\n{n} {A}\n"),
                None,
                Ok(()),
            ),
            (
                "a revocation beats the pin",
                format!("@revoked [10.0.0.?]:* {A}\n"),
                Some(&pin_a),
                Err("is REVOKED in known_hosts KH line 1"),
            ),
            (
                "the pin when known_hosts is silent",
                String::new(),
                Some(&pin_a),
                Ok(()),
            ),
            (
                "the pin is decided before known_hosts",
                format!("{n} {A}\n"),
                Some(&pin_b),
                Err("HOST KEY CHANGED for sw1 (10.0.0.1:2222)! It offered"),
            ),
            (
                "another key of the same type",
                format!("{n} {E}\n{n} {B}\n"),
                None,
                Err("but known_hosts KH line 2 says SHA256:"),
            ),
            ("several keys", format!("{n} {B}\n{n} {A}\n"), None, Ok(())),
            (
                "only another key type",
                format!("{n} {E}\n"),
                None,
                Err("KH lists it only with other key types"),
            ),
            (
                "only a CA",
                format!("@cert-authority *.example,[10.0.0.1]:* {B}\n"),
                None,
                Err("known_hosts KH line 1 is a @cert-authority entry for sw1; \
                     premarket accepts plain host keys only: add the device's key (`[10.0.0.1]:2222 ssh-ed25519"),
            ),
            (
                "a CA and a changed plain key",
                format!("@cert-authority * {B}\n{n} {B}\n"),
                None,
                Err("HOST KEY CHANGED"),
            ),
            ("a wildcard", format!("[10.0.0.*]:* {A}\n"), None, Ok(())),
            (
                "a wildcard with this host negated",
                format!("[10.0.0.*]:*,!{n} {A}\n"),
                None,
                Err("unknown host key for sw1 (10.0.0.1:2222): it offered SHA256:"),
            ),
            (
                "the bare host when the port has no key (as ssh falls back)",
                format!("10.0.0.1 {A}\n"),
                None,
                Ok(()),
            ),
            (
                "the bare host lists another key",
                format!("10.0.0.1 {B}\n"),
                None,
                Err("KH lists only other keys for 10.0.0.1 (port 22)"),
            ),
            (
                "the bare host is not read when the port lists a key",
                format!("{n} {E}\n10.0.0.1 {A}\n"),
                None,
                Err("KH lists it only with other key types"),
            ),
            (
                "revoked under the bare host, which is not read (as by ssh)",
                format!("{n} {A}\n@revoked 10.0.0.1 {A}\n"),
                None,
                Ok(()),
            ),
            (
                "revoked under the bare host, which is read",
                format!("@revoked 10.0.0.1 {A}\n10.0.0.1 {A}\n"),
                None,
                Err("is REVOKED in known_hosts KH line 1"),
            ),
            (
                "revoked under the bare host, which is read, and pinned",
                format!("@revoked 10.0.0.1 {A}\n"),
                Some(&pin_a),
                Err("is REVOKED in known_hosts KH line 1"),
            ),
            (
                "[host]:22 is not the bare host",
                format!("[10.0.0.1]:22 {A}\n"),
                None,
                Err("KH has no entry for it"),
            ),
            (
                "hashed",
                format!("{HASHED_10_0_0_1_2222} {A}\n"),
                None,
                Ok(()),
            ),
            (
                "a broken line for this host",
                format!("@revokd {n} {A}\n{n} {A}\n"),
                None,
                Err("cannot read known_hosts KH: line 1: unknown marker `@revokd`"),
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        let kh = dir.path().join("known_hosts");
        for (what, text, pin, want) in table {
            std::fs::write(&kh, text).unwrap();
            let file = KnownHosts::read(&kh);
            let device = Expected {
                device: "sw1",
                host: "10.0.0.1",
                port: 2222,
                pin,
                known_hosts: Some(&file),
            };
            let got = verify(&device, &a)
                .map_err(|e| e.to_string().replace(&kh.display().to_string(), "KH"));
            match (want, &got) {
                (Ok(()), Ok(())) => {}
                (Err(fragment), Err(e)) if e.contains(fragment) => {}
                _ => panic!("{what}: expected {want:?}, got {got:?}"),
            }
        }
        // A known_hosts that cannot be read fails closed, pinned or not.
        let directory = KnownHosts::read(dir.path());
        for pin in [None, Some(pin_a.as_str())] {
            let unreadable = Expected {
                device: "sw1",
                host: "10.0.0.1",
                port: 2222,
                pin,
                known_hosts: Some(&directory),
            };
            assert!(matches!(
                verify(&unreadable, &a),
                Err(HostKeyError::KnownHostsFile(_))
            ));
        }
    }
}

//! Host key verification: a device (or a bastion on the way to it) must prove it is the host
//! we mean before we send a password. A key is trusted only when it is pinned (`host_key:
//! SHA256:...` in the device's baseline, or the bastion's entry in site.yaml) or listed in the
//! site's known_hosts file, read by OpenSSH's rules in [`super::known_hosts`], or when it comes
//! in a host certificate that an `@cert-authority` line of that file vouches for
//! ([`certificate`]). Never trust on first use, never add a key by ourselves: an unknown key is
//! refused with the fingerprint and how to pin it, and a changed key is refused loudly. A key
//! marked `@revoked` for the host (or the authority that signed its certificate) is refused
//! whatever else vouches for it, the pin included.
//!
//! The one check for every key exchange of every connection: the login's and each re-key's, a
//! device's and a bastion's ([`verify_offered`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use russh::keys::{HashAlg, PublicKey, PublicKeyOrCertificate};

use super::known_hosts::{self, Entry, Listed, Marker};

pub mod certificate;
use certificate::Verdict;

/// Whose key is checked: a device's, pinned in its baseline, or a bastion's, pinned in its
/// entry of site.yaml. Only the messages differ: where to pin, which `premarket trust` shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    #[default]
    Device,
    Bastion,
}

impl Role {
    /// How messages name the host: `sw1`, `bastion b1`.
    pub fn named(self, name: &str) -> String {
        match self {
            Role::Device => name.to_string(),
            Role::Bastion => format!("bastion {name}"),
        }
    }

    /// Where its fingerprint is pinned.
    fn pin_at(self, name: &str, fingerprint: &str) -> String {
        match self {
            Role::Device => format!("the device baseline (ssh: host_key: \"{fingerprint}\")"),
            Role::Bastion => {
                format!("site.yaml's bastions: entry for {name} (host_key: \"{fingerprint}\")")
            }
        }
    }

    /// The `premarket trust` arguments that show its key.
    fn trust(self, name: &str) -> String {
        match self {
            Role::Device => format!("--device {name}"),
            Role::Bastion => format!("--bastion {name}"),
        }
    }
}

/// Where a device (or bastion) is and which keys it may present.
#[derive(Clone, Debug)]
pub struct Expected<'a> {
    /// Its name in the site (a device's, or a bastion's).
    pub device: &'a str,
    pub role: Role,
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
        "unknown host key for {} ({addr}): it offered {fingerprint}; {note}. After checking the \
         fingerprint with its administrator, pin it in {} or add `{known_hosts_line}` to the \
         site's known_hosts (`premarket trust {}` prints both)",
        .role.named(.device),
        .role.pin_at(.device, .fingerprint),
        .role.trust(.device)
    )]
    Unknown {
        /// Its name in the site; `role` says whether a device's or a bastion's.
        device: String,
        role: Role,
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
        "known_hosts {path} line {line} is a @cert-authority entry for {}, but it offered a plain \
         host key, not a certificate: give it a host certificate signed by that authority, or add its key \
         (`{known_hosts_line}`) or pin it in {} after checking {fingerprint} with its administrator",
        .role.named(.device),
        .role.pin_at(.device, .fingerprint)
    )]
    CertAuthority {
        /// Its name in the site; `role` says whether a device's or a bastion's.
        device: String,
        role: Role,
        fingerprint: String,
        path: String,
        line: usize,
        known_hosts_line: String,
    },
    /// A host certificate that was not accepted, and its key, judged alone, was not either (as
    /// `ssh` falls back to the plain key).
    #[error("its host certificate was refused: {reason}; and on its own: {plain}")]
    Certificate {
        reason: String,
        plain: Box<HostKeyError>,
    },
    #[error(
        "the host certificate of {device} ({addr}) is signed by {authority}, an authority REVOKED in \
         known_hosts {path} line {line}: nothing it signed may be accepted. Do not connect; get the \
         host's new certificate (or key) from its administrator"
    )]
    RevokedAuthority {
        device: String,
        addr: String,
        authority: String,
        path: String,
        line: usize,
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

/// What the site's known_hosts lists for the host, before any key is judged.
enum Lines<'a> {
    /// site.yaml names no known_hosts file.
    NoFile,
    /// It names one that does not exist (OpenSSH reads that as empty).
    Missing(&'a Path),
    /// The lines that name the host.
    Read(&'a Path, Listed),
}

/// What the site's known_hosts says about the key a device offered.
enum Known<'a> {
    NoFile,
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

/// The lines of the known_hosts file read before the connection that name the host. A file
/// that cannot be read, or that has a broken line for this host, fails closed.
fn lines<'a>(expected: &Expected<'a>) -> Result<Lines<'a>, HostKeyError> {
    let Some(file) = expected.known_hosts else {
        return Ok(Lines::NoFile);
    };
    let path = file.path.as_path();
    let text = match &file.text {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Lines::Missing(path)),
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
        Ok(listed) => Ok(Lines::Read(path, listed)),
        Err(e) => Err(HostKeyError::KnownHosts {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
    }
}

/// Judges `key` by the known_hosts file read before the connection.
fn known<'a>(expected: &Expected<'a>, key: &PublicKey) -> Result<Known<'a>, HostKeyError> {
    Ok(match lines(expected)? {
        Lines::NoFile => Known::NoFile,
        Lines::Missing(path) => Known::Missing(path),
        Lines::Read(path, listed) => Known::Said(path, judge(&listed, key, expected.host)),
    })
}

/// Whether the host's certificate is worth asking for: no pin decides instead, and a
/// `@cert-authority` line names the host. Otherwise premarket offers plain host key
/// algorithms only, as before certificates were read, so a device without a CA line is
/// reached exactly as it always was.
pub fn wants_certificate(expected: &Expected<'_>) -> bool {
    if expected.pin.is_some() {
        return false;
    }
    match lines(expected) {
        Ok(Lines::Read(_, listed)) => listed
            .own
            .iter()
            .chain(&listed.bare)
            .any(|e| e.marker == Marker::CertAuthority),
        _ => false,
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
    verify_key(expected, key, false)
}

/// [`verify`]; `in_certificate`: the key came in a certificate that was not accepted, so a
/// host named only by `@cert-authority` lines has simply no entry for the key.
fn verify_key(
    expected: &Expected<'_>,
    key: &PublicKey,
    in_certificate: bool,
) -> Result<(), HostKeyError> {
    let offered = fingerprint(key);
    let addr = format!("{}:{}", expected.host, expected.port);
    let device = expected.role.named(expected.device);
    let known = known(expected, key)?;
    let revoked = |path: &Path, line| HostKeyError::Revoked {
        device: device.clone(),
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
        let source_ = match expected.role {
            Role::Device => "the pinned ssh.host_key in its baseline".into(),
            Role::Bastion => "the pinned host_key of its bastions: entry in site.yaml".into(),
        };
        return Err(HostKeyError::Changed {
            device,
            addr,
            fingerprint: offered,
            expected: pin.to_string(),
            source_,
        });
    }
    let line = known_hosts_line(expected.host, expected.port, key);
    let unknown = |note: String| HostKeyError::Unknown {
        device: expected.device.to_string(),
        role: expected.role,
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
            device: device.clone(),
            addr,
            fingerprint: offered,
            expected: old,
            source_: format!("known_hosts {} line {line}", path.display()),
        }),
        Said::CertAuthorityOnly { .. } if in_certificate => Err(unknown(format!(
            "{} names it only in @cert-authority lines",
            path.display()
        ))),
        Said::CertAuthorityOnly { line: ca } => Err(HostKeyError::CertAuthority {
            device: expected.device.to_string(),
            role: expected.role,
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

/// [`verify`] for what a host offered at a key exchange: a plain key, or a host certificate
/// ([`certificate`]). A revocation of the certificate's key or of its authority refuses it;
/// without a pin, an authority line vouching for a valid certificate accepts it; otherwise its
/// key is judged as a plain key, as `ssh` falls back to it, and a refusal then also says why
/// the certificate was not enough.
pub fn verify_offered(
    expected: &Expected<'_>,
    offered: &PublicKeyOrCertificate,
) -> Result<(), HostKeyError> {
    let key = offered.public_key();
    let Some(cert) = offered.certificate() else {
        return verify(expected, &key);
    };
    let mut reason = None;
    if let Lines::Read(path, listed) = lines(expected)? {
        match certificate::judge(cert, &listed, expected.host, unix_now()) {
            Verdict::Revoked { line, authority } => {
                let device = expected.role.named(expected.device);
                let addr = format!("{}:{}", expected.host, expected.port);
                let path = path.display().to_string();
                return Err(if authority {
                    HostKeyError::RevokedAuthority {
                        device,
                        addr,
                        authority: cert
                            .signature_key()
                            .fingerprint(HashAlg::Sha256)
                            .to_string(),
                        path,
                        line,
                    }
                } else {
                    HostKeyError::Revoked {
                        device,
                        addr,
                        fingerprint: fingerprint(&key),
                        path,
                        line,
                    }
                });
            }
            Verdict::Trusted { .. } if expected.pin.is_none() => return Ok(()),
            Verdict::Trusted { .. } => {}
            Verdict::Plain(why) => reason = why,
        }
    }
    verify_key(expected, &key, true).map_err(|plain| match reason {
        Some(reason) => HostKeyError::Certificate {
            reason,
            plain: Box::new(plain),
        },
        None => plain,
    })
}

/// Seconds since 1970, for a certificate's validity window (0 if the clock is before it).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests;

//! Host key verification: the device must prove it is the device we mean before we send a
//! password. A key is trusted only when it is pinned in the device's baseline (`host_key:
//! SHA256:...`) or listed in the site's known_hosts file. Never trust on first use, never add
//! a key by ourselves: an unknown key is refused with the fingerprint and how to pin it, and a
//! changed key is refused loudly.

use std::path::Path;

use russh::keys::{HashAlg, PublicKey};

/// Where a device is and which keys it may present.
#[derive(Clone, Debug)]
pub struct Expected<'a> {
    pub device: &'a str,
    pub host: &'a str,
    pub port: u16,
    /// The device's pinned fingerprint (`ssh.host_key`).
    pub pin: Option<&'a str>,
    /// The site's known_hosts file (`ssh.known_hosts` in site.yaml).
    pub known_hosts: Option<&'a Path>,
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
    #[error("cannot read known_hosts {path}: {reason}")]
    KnownHosts { path: String, reason: String },
}

/// `SHA256:<base64>` as `ssh-keygen -lf` prints it.
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// The known_hosts line that trusts `key` for `host:port` (OpenSSH format).
pub fn known_hosts_line(host: &str, port: u16, key: &PublicKey) -> String {
    let name = if port == 22 {
        host.to_string()
    } else {
        format!("[{host}]:{port}")
    };
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

/// Accepts `key` when the pin or known_hosts vouch for it.
pub fn verify(expected: &Expected<'_>, key: &PublicKey) -> Result<(), HostKeyError> {
    let offered = fingerprint(key);
    let addr = format!("{}:{}", expected.host, expected.port);
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
    let unknown = |note: String| HostKeyError::Unknown {
        device: expected.device.to_string(),
        addr: addr.clone(),
        fingerprint: offered.clone(),
        known_hosts_line: known_hosts_line(expected.host, expected.port, key),
        note,
    };
    let Some(path) = expected.known_hosts else {
        return Err(unknown(
            "no ssh.host_key is pinned and site.yaml names no ssh.known_hosts file".into(),
        ));
    };
    if !path.is_file() {
        return Err(unknown(format!(
            "the known_hosts file {} does not exist",
            path.display()
        )));
    }
    let recorded =
        russh::keys::known_hosts::known_host_keys_path(expected.host, expected.port, path)
            .map_err(|e| HostKeyError::KnownHosts {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
    if recorded.iter().any(|(_, k)| k.key_data() == key.key_data()) {
        return Ok(());
    }
    if let Some((line, old)) = recorded
        .iter()
        .find(|(_, k)| k.algorithm() == key.algorithm())
    {
        return Err(HostKeyError::Changed {
            device: expected.device.to_string(),
            addr,
            fingerprint: offered,
            expected: fingerprint(old),
            source_: format!("known_hosts {} (entry {line})", path.display()),
        });
    }
    let note = if recorded.is_empty() {
        format!("{} has no entry for it", path.display())
    } else {
        format!("{} lists it only with other key types", path.display())
    };
    Err(unknown(note))
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

    fn expected<'a>(pin: Option<&'a str>, known_hosts: Option<&'a Path>) -> Expected<'a> {
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
        let missing = dir.path().join("nope");
        assert!(
            verify(&expected(None, Some(&missing)), &k)
                .unwrap_err()
                .to_string()
                .contains("does not exist")
        );
    }
}

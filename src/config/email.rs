//! The validated `email:` section of `site.yaml`: where the report is relayed and to whom.
//!
//! Addresses are parsed at load time, so `premarket validate` catches a typo in a recipient
//! at `file:line:column` instead of the first failed delivery at 08:45. The password stays a
//! [`SecretRef`] until the moment of sending.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lettre::message::Mailbox;
use serde_saphyr::Spanned;

use super::environment::Environment;
use super::error::{ConfigError, Position};
use super::secret::SecretRef;
use super::site::EmailFile;
pub use super::site::TlsMode;

/// The SMTP relay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relay {
    pub host: String,
    pub port: u16,
    pub tls: TlsMode,
    /// User and password reference, when the relay wants AUTH.
    pub auth: Option<(String, SecretRef)>,
    /// CA certificates (PEM) trusted instead of the system store, resolved against `baselines/`.
    pub ca_file: Option<PathBuf>,
    /// Where an `{ env: NAME }` password is read (the site's).
    pub environment: Environment,
}

/// Validated email settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email {
    pub enabled: bool,
    pub relay: Relay,
    pub from: Mailbox,
    pub to: Vec<Mailbox>,
    /// Also receive the report when it is not OK.
    pub fail_to: Vec<Mailbox>,
    /// Bound on one delivery attempt, connect to QUIT.
    pub timeout: Duration,
    /// How long to keep retrying when no deadline is closer.
    pub retry_for: Duration,
}

/// A relay on this host: plain SMTP never leaves the machine.
fn is_loopback(host: &str) -> bool {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

pub(super) fn validate(
    path: &Path,
    baselines: &Path,
    file: &EmailFile,
    environment: &Environment,
    errors: &mut Vec<ConfigError>,
) -> Option<Email> {
    let before = errors.len();
    let mut mailbox = |field: &Spanned<String>, what: &str| match field.value.parse::<Mailbox>() {
        Ok(m) => Some(m),
        Err(e) => {
            errors.push(ConfigError::new(
                Position::from_location(path, field.defined),
                format!(
                    "email.{what}: {:?} is not an email address ({e})",
                    field.value
                ),
            ));
            None
        }
    };
    let from = mailbox(&file.from, "from");
    let to: Vec<Option<Mailbox>> = file.to.iter().map(|m| mailbox(m, "to")).collect();
    let fail_to: Vec<Option<Mailbox>> =
        file.fail_to.iter().map(|m| mailbox(m, "fail_to")).collect();
    let at = |s: &Spanned<String>| Position::from_location(path, s.defined);
    if file.to.is_empty() {
        errors.push(ConfigError::new(
            at(&file.from),
            "email.to lists no recipient",
        ));
    }
    let auth = match (&file.user, &file.password) {
        (Some(user), Some(password)) => Some((user.value.clone(), password.clone())),
        (None, None) => None,
        (Some(user), None) => {
            errors.push(ConfigError::new(at(user), "email.user is set but email.password is not (give { env: NAME } or { file: PATH })"));
            None
        }
        (None, Some(_)) => {
            errors.push(ConfigError::new(
                at(&file.host),
                "email.password is set but email.user is not",
            ));
            None
        }
    };
    if file.host.value.trim().is_empty() {
        errors.push(ConfigError::new(at(&file.host), "email.host is empty"));
    }
    if file.tls == TlsMode::None
        && auth.is_some()
        && !file.allow_plaintext_auth
        && !is_loopback(&file.host.value)
    {
        errors.push(ConfigError::new(
            at(&file.host),
            format!(
                "email: tls: none with a user and password would send the password in clear to {}; \
                 use tls: starttls or tls, a relay on loopback, or set allow_plaintext_auth: true \
                 if that network is trusted",
                file.host.value
            ),
        ));
    }
    if errors.len() > before {
        return None;
    }
    let port = file.port.unwrap_or(match file.tls {
        TlsMode::None => 25,
        TlsMode::Starttls => 587,
        TlsMode::Tls => 465,
    });
    Some(Email {
        enabled: file.enabled,
        relay: Relay {
            host: file.host.value.clone(),
            port,
            tls: file.tls,
            auth,
            ca_file: file.ca_file.as_ref().map(|p| baselines.join(&p.value)),
            environment: environment.clone(),
        },
        from: from?,
        to: to.into_iter().collect::<Option<_>>()?,
        fail_to: fail_to.into_iter().collect::<Option<_>>()?,
        timeout: Duration::from_secs(file.timeout_s.unwrap_or(30).max(1)),
        retry_for: Duration::from_secs(file.retry_for_s.unwrap_or(120)),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn loopback_relays() {
        for (host, want) in [
            ("127.0.0.1", true),
            ("127.8.0.1", true),
            ("::1", true),
            ("[::1]", true),
            ("localhost", true),
            ("smtp.example.net", false),
            ("10.0.0.1", false),
        ] {
            assert_eq!(super::is_loopback(host), want, "{host}");
        }
    }
}

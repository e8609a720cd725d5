//! Delivery through the site's SMTP relay (lettre over tokio and rustls, one connection per
//! attempt with a bound on what is read from it: `super::relay`).
//!
//! Each attempt is bounded as a whole, connect to QUIT: a relay that accepts and then stalls
//! must not hold the report past the deadline. Transient failures are retried with backoff
//! until `until`; a permanent answer (5xx: bad credentials, refused recipient) is not retried.

use std::time::Duration;

use lettre::address::Envelope;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, CertificateStore, TlsParameters};
use secrecy::ExposeSecret;
use tokio::time::Instant;

use super::EmailError;
use super::relay::{self, Encryption, Failed};
use premarket_config::{Relay, TlsMode};

/// Why one attempt failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    #[error("no answer within {0} s")]
    Timeout(u64),
    #[error("{0}")]
    Transient(String),
    #[error("the relay refused the message: {0}")]
    Permanent(String),
}

/// The outcome of a delivery with retries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub attempts: u32,
    /// `None` when delivered; otherwise the last attempt's error.
    pub error: Option<SendError>,
}

/// A configured relay.
pub struct Sender {
    relay: relay::Relay,
    timeout: Duration,
    describe: String,
}

impl Sender {
    /// Resolves the password and the CA file now, so a missing secret is reported before any
    /// attempt.
    pub fn new(relay: &Relay, timeout: Duration) -> Result<Sender, EmailError> {
        let describe = format!("{}:{} ({})", relay.host, relay.port, tls_name(relay.tls));
        let fail = |reason: String| EmailError::Relay {
            relay: describe.clone(),
            reason,
        };
        let mut encryption = Encryption::None;
        if relay.tls != TlsMode::None {
            let mut params = TlsParameters::builder(relay.host.clone());
            if let Some(path) = &relay.ca_file {
                let pem = premarket_files::read(path, premarket_files::Kind::CERTIFICATES)
                    .map_err(|e| fail(format!("ca_file: {e}")))?;
                let cert = Certificate::from_pem(&pem)
                    .map_err(|e| fail(format!("ca_file {}: {e}", path.display())))?;
                params = params
                    .certificate_store(CertificateStore::None)
                    .add_root_certificate(cert);
            }
            let params = params.build_rustls().map_err(|e| fail(e.to_string()))?;
            encryption = match relay.tls {
                TlsMode::Starttls => Encryption::Starttls(params),
                _ => Encryption::Implicit(params),
            };
        }
        let mut credentials = None;
        if let Some((user, password)) = &relay.auth {
            let password = password
                .resolve(&relay.environment)
                .map_err(|e| fail(format!("SMTP password: {e}")))?;
            credentials = Some(Credentials::new(
                user.clone(),
                password.expose_secret().to_string(),
            ));
        }
        Ok(Sender {
            relay: relay::Relay {
                host: relay.host.clone(),
                port: relay.port,
                encryption,
                credentials,
            },
            timeout,
            describe,
        })
    }

    /// `host:port (tls mode)`, for messages.
    pub fn describe(&self) -> &str {
        &self.describe
    }

    /// One attempt, bounded by the timeout and by `until`.
    pub async fn send_once(
        &self,
        envelope: &Envelope,
        bytes: &[u8],
        until: Instant,
    ) -> Result<(), SendError> {
        let bound = self
            .timeout
            .min(until.saturating_duration_since(Instant::now()));
        match tokio::time::timeout(bound, self.relay.send(envelope, bytes)).await {
            Err(_) => Err(SendError::Timeout(bound.as_secs())),
            Ok(Ok(())) => Ok(()),
            Ok(Err(Failed::Smtp(e))) if e.is_permanent() => {
                Err(SendError::Permanent(e.to_string()))
            }
            Ok(Err(Failed::Smtp(e))) => Err(SendError::Transient(smtp_error(&e))),
            Ok(Err(Failed::Connect(e))) => {
                Err(SendError::Transient(format!("Connection error: {e}")))
            }
        }
    }

    /// Attempts until delivered, refused for good, or `until`; no attempt runs past `until`.
    /// Waits 1 s, 2 s, 4 s ... (at most 30 s) between attempts.
    pub async fn send(&self, envelope: &Envelope, bytes: &[u8], until: Instant) -> Delivery {
        let mut attempts = 0;
        let mut backoff = Duration::from_secs(1);
        loop {
            attempts += 1;
            let error = match self.send_once(envelope, bytes, until).await {
                Ok(()) => {
                    return Delivery {
                        attempts,
                        error: None,
                    };
                }
                Err(e) => e,
            };
            let permanent = matches!(error, SendError::Permanent(_));
            // A retry needs at least a second of its own before `until` to be worth starting.
            if permanent || Instant::now() + backoff + Duration::from_secs(1) > until {
                return Delivery {
                    attempts,
                    error: Some(error),
                };
            }
            tracing::warn!(
                "email to {} not delivered (attempt {attempts}): {error}; retrying in {backoff:?}",
                self.describe
            );
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(30));
        }
    }
}

/// lettre's error with its cause: "network error" alone does not say that the relay's reply
/// never ended.
fn smtp_error(e: &lettre::transport::smtp::Error) -> String {
    match std::error::Error::source(e) {
        Some(cause) if !e.to_string().contains(&cause.to_string()) => format!("{e}: {cause}"),
        _ => e.to_string(),
    }
}

fn tls_name(mode: TlsMode) -> &'static str {
    match mode {
        TlsMode::None => "plain",
        TlsMode::Starttls => "STARTTLS",
        TlsMode::Tls => "TLS",
    }
}

//! One HTTP POST of a notification, with ureq over rustls: the certificate verified by the
//! platform's verifier with the aws-lc-rs provider (the same TLS stack as the email's lettre),
//! a proxy from `ALL_PROXY` / `HTTPS_PROXY` / `HTTP_PROXY` and `NO_PROXY` as usual, redirects
//! not followed (a webhook that moves is a configuration to fix, and a redirected POST could
//! carry the body elsewhere).
//!
//! ureq is blocking: each attempt runs on tokio's blocking pool, bounded as a whole (resolve,
//! connect, proxy, TLS, request and answer) by ureq's global timeout, and again from outside.
//! Errors are written here, from their kind: a library's message may quote the URL, whose path
//! is the token; only the host is ever named.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};

/// Why one attempt failed; the message names no URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PostError {
    #[error("no answer within {0} s")]
    Timeout(u64),
    /// Worth another try: the network, a 5xx, 408 or 429.
    #[error("{0}")]
    Transient(String),
    /// Not worth another try in this run: a 4xx, a redirect, a certificate refused.
    #[error("{0}")]
    Permanent(String),
}

/// An HTTP client for one endpoint.
pub struct Poster {
    agent: ureq::Agent,
    timeout: Duration,
}

/// The most of an answer's status line and headers premarket reads.
const MAX_ANSWER_HEAD: usize = 64 << 10;

/// How much of an endpoint's answer a message quotes (Slack's `invalid_payload`, PagerDuty's
/// `Event object is invalid`).
const ANSWER_EXCERPT: usize = 200;

impl Poster {
    pub fn new(timeout: Duration) -> Poster {
        let tls = TlsConfig::builder()
            .provider(TlsProvider::Rustls)
            .root_certs(RootCerts::PlatformVerifier)
            .unversioned_rustls_crypto_provider(Arc::new(
                rustls::crypto::aws_lc_rs::default_provider(),
            ))
            .build();
        let agent = ureq::Agent::config_builder()
            .tls_config(tls)
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .user_agent(concat!("premarket/", env!("CARGO_PKG_VERSION")))
            // An answer's status line and headers are read into a buffer of their own and
            // refused past this: a peer whose line never ends cannot make premarket read on
            // (ureq's default, said here so that it stays the bound).
            .max_response_header_size(MAX_ANSWER_HEAD)
            .timeout_global(Some(timeout))
            .build()
            .new_agent();
        Poster { agent, timeout }
    }

    /// One attempt, bounded by the timeout and by `until`.
    pub async fn post_once(&self, url: &str, body: &[u8], until: Instant) -> Result<(), PostError> {
        let bound = self
            .timeout
            .min(until.saturating_duration_since(Instant::now()))
            .max(Duration::from_millis(100));
        let (agent, url, body) = (self.agent.clone(), url.to_string(), body.to_vec());
        let attempt = tokio::task::spawn_blocking(move || post(&agent, &url, &body, bound));
        // ureq's own bound is the one that matters; this one only keeps a stuck thread from
        // holding the run.
        match tokio::time::timeout(bound + Duration::from_secs(1), attempt).await {
            Err(_) => Err(PostError::Timeout(seconds(bound))),
            Ok(Err(joined)) => Err(PostError::Transient(format!(
                "the attempt failed: {joined}"
            ))),
            Ok(Ok(result)) => result,
        }
    }

    /// Attempts until delivered, refused for good, or `until`; 1 s, 2 s, 4 s ... (at most
    /// 30 s) between attempts. Returns how many attempts were made and the last error.
    pub async fn post(&self, url: &str, body: &[u8], until: Instant) -> (u32, Option<PostError>) {
        let mut attempts = 0;
        let mut backoff = Duration::from_secs(1);
        loop {
            attempts += 1;
            let error = match self.post_once(url, body, until).await {
                Ok(()) => return (attempts, None),
                Err(e) => e,
            };
            let permanent = matches!(error, PostError::Permanent(_));
            if permanent || Instant::now() + backoff + Duration::from_secs(1) > until {
                return (attempts, Some(error));
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(30));
        }
    }
}

fn post(agent: &ureq::Agent, url: &str, body: &[u8], bound: Duration) -> Result<(), PostError> {
    let answer = agent
        .post(url)
        .config()
        .timeout_global(Some(bound))
        .build()
        .header("content-type", "application/json")
        .send(body);
    let mut response = answer.map_err(|e| classify(&e, bound))?;
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(());
    }
    let excerpt: String = response
        .body_mut()
        .with_config()
        .limit(16 * 1024)
        .read_to_string()
        .unwrap_or_default()
        .chars()
        .take(ANSWER_EXCERPT)
        .collect();
    let said = match crate::escape::line(excerpt.trim()) {
        text if text.is_empty() => format!("HTTP {status}"),
        text => format!("HTTP {status}: {text}"),
    };
    match status {
        408 | 429 | 500..=599 => Err(PostError::Transient(said)),
        300..=399 => Err(PostError::Permanent(format!(
            "{said} (a redirect: point url at where it leads)"
        ))),
        _ => Err(PostError::Permanent(said)),
    }
}

/// A bound in whole seconds as said (1.98 s of a 2 s timeout left is "2 s").
fn seconds(bound: Duration) -> u64 {
    ((bound.as_millis() + 500) / 1000).max(1) as u64
}

/// The error in words of our own where ureq's could quote the URL (`BadUri`).
fn classify(e: &ureq::Error, bound: Duration) -> PostError {
    use ureq::Error as E;
    match e {
        E::Timeout(_) => PostError::Timeout(seconds(bound)),
        // rustls's refusal (an unknown issuer, a name that does not match) arrives as an I/O
        // error; trying again will not change the certificate.
        E::Io(io) => match io.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) {
            Some(tls) => PostError::Permanent(format!("TLS: {tls}")),
            None => PostError::Transient(io.to_string()),
        },
        E::HostNotFound => PostError::Transient("the host name does not resolve".into()),
        E::ConnectionFailed => PostError::Transient("cannot connect".into()),
        E::ConnectProxyFailed(why) => {
            PostError::Transient(format!("the proxy refused the connection: {why}"))
        }
        E::InvalidProxyUrl => PostError::Permanent(
            "the proxy in ALL_PROXY / HTTPS_PROXY / HTTP_PROXY is not a URL".into(),
        ),
        E::Rustls(tls) => PostError::Permanent(format!("TLS: {tls}")),
        E::Tls(tls) => PostError::Permanent(format!("TLS: {tls}")),
        E::BadUri(_) | E::Http(_) => PostError::Permanent("the url is not a valid URL".into()),
        E::Protocol(p) => PostError::Transient(format!("the answer is not HTTP: {p}")),
        // The channel masks every secret in what it says, the URL and its path included.
        other => PostError::Transient(format!("the request failed: {other}")),
    }
}

//! The validated `notify:` section of `site.yaml`: the chat rooms, pagers and webhooks that
//! hear the verdict besides the email.
//!
//! A webhook URL carries its token (Slack's `/services/T../B../secret`, a Teams workflow's
//! `sig=`), and a PagerDuty routing key is a credential, so both are secret references
//! (`{ env: NAME }` or `{ file: PATH }`) like every password: never written in `site.yaml`,
//! resolved only to post, and then learnt by the redactor, the URL whole and its path and query
//! alone, so that no message, log line or archived file can carry them. Only the host is ever
//! shown ([`Target::host`]). Everything else is checked at load time at `file:line:column`.

use std::path::Path;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::environment::Environment;
use super::error::{ConfigError, Position};
use super::secret::{self, SecretError, SecretRef};

/// PagerDuty's Events API v2, when `url:` does not say otherwise (an EU account's
/// `events.eu.pagerduty.com`, a relay).
pub const PAGERDUTY_EVENTS: &str = "https://events.pagerduty.com/v2/enqueue";

/// One entry of `notify:` as written.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotifyFile {
    /// `webhook`, `slack`, `teams` or `pagerduty`.
    #[schemars(with = "String")]
    pub kind: Spanned<String>,
    /// How messages and the outbox name it (default: the kind).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub name: Option<Spanned<String>>,
    #[serde(default)]
    #[schemars(with = "Option<SecretRef>")]
    pub url: Option<Spanned<SecretRef>>,
    /// PagerDuty only: the integration's routing key.
    #[serde(default)]
    #[schemars(with = "Option<SecretRef>")]
    pub routing_key: Option<Spanned<SecretRef>>,
    /// Which runs it hears of: `fail`, `error`, `recovered`, `ok`.
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub on: Option<Spanned<Vec<Spanned<String>>>>,
    /// Bound on one request, connect to response (default 10).
    #[serde(default)]
    #[schemars(with = "Option<u64>")]
    pub timeout_s: Option<Spanned<u64>>,
    /// How long to keep retrying when the deadline is not closer (default 120).
    #[serde(default)]
    pub retry_for_s: Option<u64>,
}

/// What renders the message.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum NotifyKind {
    /// premarket's own JSON.
    Webhook,
    /// A Slack incoming webhook: `text` and blocks.
    Slack,
    /// A Teams Workflows webhook: an Adaptive Card.
    Teams,
    /// PagerDuty Events API v2: trigger and resolve.
    #[serde(rename = "pagerduty")]
    PagerDuty,
}

impl NotifyKind {
    const ALL: [(NotifyKind, &'static str); 4] = [
        (NotifyKind::Webhook, "webhook"),
        (NotifyKind::Slack, "slack"),
        (NotifyKind::Teams, "teams"),
        (NotifyKind::PagerDuty, "pagerduty"),
    ];

    pub fn as_str(self) -> &'static str {
        NotifyKind::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("webhook", |(_, name)| name)
    }
}

/// What a run was, as the notifications see it. `Recovered` is a run that is OK after runs
/// that were not; `Ok` is an OK run after an OK run.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum NotifyOn {
    Fail,
    Error,
    Recovered,
    Ok,
}

impl NotifyOn {
    const ALL: [(NotifyOn, &'static str); 4] = [
        (NotifyOn::Fail, "fail"),
        (NotifyOn::Error, "error"),
        (NotifyOn::Recovered, "recovered"),
        (NotifyOn::Ok, "ok"),
    ];

    pub fn as_str(self) -> &'static str {
        NotifyOn::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("ok", |(_, name)| name)
    }
}

/// A secret reference and where it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretAt {
    pub secret: SecretRef,
    pub at: Position,
}

/// One validated endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// Unique among the endpoints; letters, digits, `-` and `_` (it names outbox files).
    pub name: String,
    pub kind: NotifyKind,
    /// `None` only for PagerDuty (its Events API is then used).
    pub url: Option<SecretAt>,
    /// PagerDuty's routing key (always set for `pagerduty`, never for the others).
    pub routing_key: Option<SecretAt>,
    pub on: Vec<NotifyOn>,
    pub timeout: Duration,
    pub retry_for: Duration,
    /// Where the entry is (its `kind:`).
    pub position: Position,
    /// Where its `{ env: NAME }` secrets are read (the site's).
    pub environment: Environment,
}

/// An endpoint's secrets, resolved to post. Only [`Target::host`] may be shown.
pub struct Target {
    pub url: SecretString,
    /// `host` or `host:port`: what messages say instead of the URL.
    pub host: String,
    pub routing_key: Option<SecretString>,
    /// What the redactor must mask: the URL, its path and query alone (where a webhook's
    /// token is), the routing key. PagerDuty's public Events API URL is none of them.
    masked: Vec<SecretString>,
}

impl Target {
    /// Every value the redactor must mask.
    pub fn secrets(&self) -> Vec<&str> {
        self.masked.iter().map(|s| s.expose_secret()).collect()
    }
}

/// Why an endpoint's secrets could not be used. The value is never shown, only the reference
/// and the host.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    #[error("{what}: {source}")]
    Secret {
        what: &'static str,
        at: Position,
        source: SecretError,
    },
    #[error("url ({reference}): {why}")]
    Url {
        reference: String,
        at: Position,
        why: UrlError,
    },
}

/// Why a notification URL is refused. The URL itself is never quoted (its path is a token).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The parser's message, which never quotes the input.
    #[error("not a URL ({0})")]
    NotUrl(url::ParseError),
    #[error("the URL names no host")]
    NoHost,
    /// `http://` to a host that is not this machine: `shown` is the host (and port).
    #[error(
        "http:// would send the token to {shown} in clear; use https:// (plain http only to a loopback address)"
    )]
    PlainHttp { shown: String },
    #[error("{0}: is not http(s)")]
    Scheme(String),
}

impl NotifyError {
    /// Where in `site.yaml` the reference is written.
    pub fn position(&self) -> &Position {
        match self {
            NotifyError::Secret { at, .. } | NotifyError::Url { at, .. } => at,
        }
    }
}

impl Endpoint {
    /// Reads the URL and the routing key, checks the URL, and teaches the log writer its path
    /// and query too (a library logs a request line without the host).
    pub fn target(&self) -> Result<Target, NotifyError> {
        let (url, reference, at) = match &self.url {
            Some(s) => (
                s.secret
                    .resolve(&self.environment)
                    .map_err(|source| NotifyError::Secret {
                        what: "url",
                        at: s.at.clone(),
                        source,
                    })?,
                s.secret.to_string(),
                s.at.clone(),
            ),
            None => (
                SecretString::from(PAGERDUTY_EVENTS),
                "the PagerDuty Events API".to_string(),
                self.position.clone(),
            ),
        };
        let (host, path_and_query) = check_url(url.expose_secret())
            .map_err(|why| NotifyError::Url { reference, at, why })?;
        let routing_key =
            match &self.routing_key {
                Some(s) => Some(s.secret.resolve(&self.environment).map_err(|source| {
                    NotifyError::Secret {
                        what: "routing_key",
                        at: s.at.clone(),
                        source,
                    }
                })?),
                None => None,
            };
        let mut masked = Vec::new();
        if self.url.is_some() {
            masked.push(url.clone());
            if path_and_query.chars().count() >= secret::MIN_CHARS {
                secret::remember(&path_and_query);
                masked.push(SecretString::from(path_and_query));
            }
        }
        masked.extend(routing_key.clone());
        Ok(Target {
            url,
            host,
            routing_key,
            masked,
        })
    }

    /// Whether reading a secret of the endpoint would run a program.
    fn reads_by_command(&self) -> bool {
        [&self.url, &self.routing_key]
            .into_iter()
            .flatten()
            .any(|s| matches!(s.secret, SecretRef::Command(_)))
    }

    /// Whether every secret of the endpoint is there to read (`validate` reads only those).
    pub fn secrets_present(&self) -> bool {
        [&self.url, &self.routing_key]
            .into_iter()
            .flatten()
            .all(|s| s.secret.is_present(&self.environment))
    }
}

/// The URL's host (and port, when not the scheme's) and its path and query; `https` always,
/// plain `http` only to this machine (a webhook's token must not cross a network in clear).
fn check_url(text: &str) -> Result<(String, String), UrlError> {
    let url = url::Url::parse(text.trim()).map_err(UrlError::NotUrl)?;
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or(UrlError::NoHost)?;
    let shown = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    };
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(host) => {}
        "http" => {
            return Err(UrlError::PlainHttp { shown });
        }
        other => return Err(UrlError::Scheme(other.to_string())),
    }
    let mut path = url.path().to_string();
    if let Some(query) = url.query() {
        path.push('?');
        path.push_str(query);
    }
    Ok((shown, path))
}

fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

pub(super) fn validate(
    path: &Path,
    files: &[NotifyFile],
    environment: &Environment,
    errors: &mut Vec<ConfigError>,
) -> Vec<Endpoint> {
    let mut endpoints: Vec<Endpoint> = Vec::new();
    for file in files {
        let before = errors.len();
        let at = |l: serde_saphyr::Location| Position::from_location(path, l);
        let position = at(file.kind.defined);
        let kind = NotifyKind::ALL
            .iter()
            .find(|(_, name)| *name == file.kind.value)
            .map(|(k, _)| *k);
        let Some(kind) = kind else {
            errors.push(ConfigError::new(
                position,
                format!(
                    "notify: kind {:?} is not one of webhook, slack, teams, pagerduty",
                    file.kind.value
                ),
            ));
            continue;
        };
        let name = file
            .name
            .as_ref()
            .map_or(kind.as_str().to_string(), |n| n.value.clone());
        let name_at = file
            .name
            .as_ref()
            .map_or(position.clone(), |n| at(n.defined));
        let what = format!("notify {name}");
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            errors.push(ConfigError::new(
                name_at.clone(),
                format!("{what}: a name is letters, digits, - and _ (it names the outbox's files)"),
            ));
        }
        if let Some(first) = endpoints.iter().find(|e| e.name == name) {
            errors.push(ConfigError::new(
                name_at,
                format!(
                    "{what}: two notify entries are named {name} (the first at {}); give each a name:",
                    first.position
                ),
            ));
        }
        let secret_at = |s: &Spanned<SecretRef>| SecretAt {
            secret: s.value.clone(),
            at: at(s.defined),
        };
        let url = file.url.as_ref().map(secret_at);
        let routing_key = file.routing_key.as_ref().map(secret_at);
        match (kind, &url, &routing_key) {
            (NotifyKind::PagerDuty, _, None) => errors.push(ConfigError::new(
                position.clone(),
                format!("{what}: kind pagerduty needs routing_key: {{ env: NAME }} or {{ file: PATH }}"),
            )),
            (NotifyKind::PagerDuty, _, Some(_)) => {}
            (_, None, _) => errors.push(ConfigError::new(
                position.clone(),
                format!("{what}: kind {} needs url: {{ env: NAME }} or {{ file: PATH }} (the webhook's URL carries its token)", kind.as_str()),
            )),
            (_, Some(_), Some(key)) => errors.push(ConfigError::new(
                key.at.clone(),
                format!("{what}: routing_key is only for kind: pagerduty"),
            )),
            (_, Some(_), None) => {}
        }
        let on = match &file.on {
            None => vec![NotifyOn::Fail, NotifyOn::Error, NotifyOn::Recovered],
            Some(list) => {
                let mut on = Vec::new();
                for word in &list.value {
                    match NotifyOn::ALL.iter().find(|(_, w)| *w == word.value) {
                        Some((event, _)) => on.push(*event),
                        None => errors.push(ConfigError::new(
                            at(word.defined),
                            format!(
                                "{what}: on: {:?} is not one of fail, error, recovered, ok",
                                word.value
                            ),
                        )),
                    }
                }
                if list.value.is_empty() {
                    errors.push(ConfigError::new(
                        at(list.defined),
                        format!("{what}: on: lists nothing, so nothing would ever be sent (leave on: out for fail, error, recovered)"),
                    ));
                }
                on.sort();
                on.dedup();
                on
            }
        };
        if let Some(t) = file.timeout_s.as_ref().filter(|t| t.value == 0) {
            errors.push(ConfigError::new(
                at(t.defined),
                format!("{what}: timeout_s must be at least 1"),
            ));
        }
        if errors.len() > before {
            continue;
        }
        endpoints.push(Endpoint {
            name,
            kind,
            url,
            routing_key,
            on,
            timeout: Duration::from_secs(file.timeout_s.as_ref().map_or(10, |t| t.value)),
            retry_for: Duration::from_secs(file.retry_for_s.unwrap_or(120)),
            position,
            environment: environment.clone(),
        });
    }
    endpoints
}

/// Reads every endpoint secret that is present and checks the URL it holds; `validate` calls
/// it (a run reports the same problems when it posts).
pub fn check_secrets(endpoints: &[Endpoint]) -> Vec<ConfigError> {
    endpoints
        .iter()
        // A secret command is not run by `validate`: its URL is checked by the run.
        .filter(|e| e.secrets_present() && !e.reads_by_command())
        .filter_map(|e| e.target().err().map(|err| (e, err)))
        .map(|(e, err)| {
            ConfigError::new(err.position().clone(), format!("notify {}: {err}", e.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_https_or_loopback_http_and_only_the_host_is_shown() {
        for (url, want) in [
            (
                "https://hooks.slack.com/services/T0/B0/tok3n-Secret",
                Ok(("hooks.slack.com", "/services/T0/B0/tok3n-Secret")),
            ),
            (
                "https://x.example:8443/hook?sig=abc",
                Ok(("x.example:8443", "/hook?sig=abc")),
            ),
            ("http://127.0.0.1:9/hook", Ok(("127.0.0.1:9", "/hook"))),
            ("http://[::1]:9/hook", Ok(("[::1]:9", "/hook"))),
            ("http://hooks.example/t0ken", Err("in clear")),
            ("ftp://hooks.example/t0ken", Err("not http(s)")),
            ("hooks.example/t0ken", Err("not a URL")),
        ] {
            match (check_url(url), want) {
                (Ok((host, path)), Ok((h, p))) => {
                    assert_eq!((host.as_str(), path.as_str()), (h, p))
                }
                (Err(why), Err(w)) => {
                    let why = why.to_string();
                    assert!(why.contains(w), "{url}: {why}");
                    assert!(!why.contains("t0ken"), "the URL is quoted: {why}");
                }
                (got, _) => panic!("{url}: {got:?}"),
            }
        }
    }
}

//! The channels that carry the verdict to where a team already looks, besides the email: the
//! JUnit XML file a CI pipeline reads (`--junit`) and the chat, paging and webhook endpoints of
//! `notify:`. An offline run notifies only when asked (`--notify`): a replay of saved outputs
//! that paged "FAIL", or resolved a live incident, would be a false alarm or a false all-clear.

use std::time::Duration;

use tokio::time::Instant;

use super::Request;
use super::stop::EMAIL_BY;
use premarket_config::Config;
use premarket_inspect::interrupt::Signalled;
use premarket_report::archive::Archive;
use premarket_report::channel::Channel;
use premarket_report::junit::Junit;
use premarket_report::notify::NotifyChannel;
use premarket_report::redact;

/// The JUnit channel, when `--junit` asks for the file.
pub(super) fn junit(config: &Config, req: &Request) -> Option<Box<dyn Channel>> {
    let path = req.junit.clone()?;
    Some(Box::new(Junit {
        path,
        redactor: redact::from_config(config),
    }))
}

/// The notify channel, when the site has endpoints and the run notifies; after `signalled`,
/// each endpoint bounded by what is left of the grace (what does not go out stays queued).
pub(super) fn notify(
    config: &Config,
    req: &Request,
    archive: &Archive,
    signalled: Option<Signalled>,
) -> Option<Box<dyn Channel>> {
    if !req.notify || config.site.notify.is_empty() {
        return None;
    }
    let mut endpoints = config.site.notify.clone();
    if let Some(s) = signalled {
        let left = (s.at + EMAIL_BY)
            .saturating_duration_since(Instant::now())
            .max(Duration::from_secs(1));
        for e in &mut endpoints {
            e.timeout = e.timeout.min(left);
            e.retry_for = e.retry_for.min(left);
        }
    }
    Some(Box::new(NotifyChannel {
        endpoints,
        archive: archive.root().to_path_buf(),
        outbox: archive.outbox(),
        redactor: redact::from_config(config),
    }))
}

/// Time kept free before the deadline for the notifications: one request's bound.
pub(super) fn reserve(config: &Config, req: &Request) -> Duration {
    if !req.notify {
        return Duration::ZERO;
    }
    config
        .site
        .notify
        .iter()
        .map(|e| e.timeout)
        .max()
        .unwrap_or_default()
}

//! The email as one of the run's channels: compose the message, then write it to a file
//! (`--email-to-file`) or send it through the site's relay. The fresh report goes first;
//! messages that earlier runs could not deliver (the outbox) follow in the time left, so a
//! backlog never eats the window of the report on-call is waiting for. What cannot be
//! delivered is kept in the outbox for the next run.

use std::path::PathBuf;
use std::time::Duration;

use tokio::time::Instant;

use super::{Addresses, Composed, Context as MailContext, Sender, compose, outbox};
use crate::Report;
use crate::channel::{BoxFuture, Channel, Context, Deadline, Delivered};
use crate::redact::Redactor;
use premarket_config::Email;
use premarket_files::write_atomic;

/// What to do with the email.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmailMode {
    /// Through the site's relay (when `site.yaml` has an enabled `email:` section).
    Send,
    /// Write the `.eml` to this path instead (`--email-to-file`).
    ToFile(PathBuf),
    /// `--no-email` (and offline runs unless asked).
    Off,
}

/// The email channel.
pub struct EmailChannel {
    pub mode: EmailMode,
    /// `None` when site.yaml has no (readable) `email:` section.
    pub settings: Option<Email>,
    /// Where undelivered messages wait (`<archive>/outbox`).
    pub outbox: PathBuf,
    pub redactor: Redactor,
}

impl Channel for EmailChannel {
    fn name(&self) -> &'static str {
        "email"
    }

    fn deliver<'a>(&'a self, report: &'a mut Report, ctx: &'a Context) -> BoxFuture<'a, Delivered> {
        Box::pin(async move {
            let mut done = Delivered::default();
            let mail_ctx = MailContext::new(ctx.tz, ctx.deadline.map(|d| d.at));
            let addresses = self
                .settings
                .as_ref()
                .map(Addresses::of)
                .unwrap_or_else(Addresses::placeholder);
            let composed = || {
                compose(
                    report,
                    &mail_ctx,
                    &addresses,
                    ctx.attachments.clone(),
                    &self.redactor,
                )
            };
            match &self.mode {
                EmailMode::Off => {}
                EmailMode::ToFile(path) => {
                    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                        let _ = std::fs::create_dir_all(parent);
                    }
                    match composed() {
                        Err(e) => done.problem(e.to_string()),
                        Ok(m) => match write_atomic(path, &m.bytes) {
                            Ok(()) => done.note(format!("email written to {}", path.display())),
                            Err(e) => done.problem(format!("the email was not written: {e}")),
                        },
                    }
                }
                EmailMode::Send => match &self.settings {
                    None => done.note("no email: section in site.yaml, so no email was sent"),
                    Some(s) if !s.enabled => {
                        done.note("email is disabled in site.yaml (enabled: false); not sent")
                    }
                    Some(settings) => {
                        let until = send_until(ctx.deadline, settings.timeout, settings.retry_for);
                        match composed() {
                            Err(e) => done.problem(e.to_string()),
                            Ok(message) => {
                                self.send(settings, &report.run_id, &message, until, &mut done)
                                    .await
                            }
                        }
                    }
                },
            }
            done
        })
    }
}

impl EmailChannel {
    async fn send(
        &self,
        settings: &Email,
        run_id: &str,
        message: &Composed,
        until: Instant,
        done: &mut Delivered,
    ) {
        let keep = |reason: String, attempts: u32, done: &mut Delivered| {
            match outbox::keep(&self.outbox, run_id, message, &reason, attempts) {
                Ok(path) => done.problem(format!(
                    "the email was not delivered: {reason}. It is kept in {} and will be sent by the next run",
                    path.display()
                )),
                Err(e) => done.problem(format!(
                    "the email was not delivered ({reason}) and could not be kept: {e}"
                )),
            }
        };
        let sender = match Sender::new(&settings.relay, settings.timeout) {
            Ok(sender) => sender,
            Err(e) => return keep(e.to_string(), 0, done),
        };
        let delivery = sender.send(&message.envelope, &message.bytes, until).await;
        if let Some(e) = delivery.error {
            // The relay is failing: the backlog would fail the same way.
            return keep(
                format!(
                    "{e} after {} attempt(s) via {}",
                    delivery.attempts,
                    sender.describe()
                ),
                delivery.attempts,
                done,
            );
        }
        done.note(format!(
            "email sent via {} ({} attempt(s))",
            sender.describe(),
            delivery.attempts
        ));
        // The backlog after the fresh report, with the time left (at least one attempt each).
        let later = until.max(Instant::now() + settings.timeout);
        let flushed = outbox::flush(&self.outbox, &sender, later).await;
        for sent in &flushed.sent {
            done.note(format!("then sent the pending email {}", sent.display()));
        }
        for (kept, why) in &flushed.kept {
            done.note(format!(
                "the pending email {} is still not delivered: {why}",
                kept.display()
            ));
        }
    }
}

/// Retry until the deadline, or for `retry_for` when no deadline is closer; always allow one
/// full attempt, even when the deadline has already passed.
fn send_until(deadline: Option<Deadline>, timeout: Duration, retry_for: Duration) -> Instant {
    let now = Instant::now();
    let by_retry = now + retry_for.max(timeout);
    let until = match deadline {
        Some(d) => d.instant.min(by_retry),
        None => by_retry,
    };
    until.max(now + timeout)
}

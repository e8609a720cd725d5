//! After the checks: compare with the previous runs, archive the run, email it. This is the
//! part of a run that must happen whatever the verdicts, and whose own failures must not go
//! unnoticed: each problem is returned to be printed, and [`Published::degraded`] lifts an OK
//! exit code to 2 (the checks were fine, but nobody may have heard of it).

use std::path::PathBuf;
use std::time::Duration;

use chrono::DateTime;
use chrono_tz::Tz;
use tokio::time::Instant;

use super::archive::Archive;
use super::email::{self, Addresses, Attachment, Context, Sender, outbox};
use super::redact::Redactor;
use super::{Report, history};
use crate::config::Config;

/// What to do with the email.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmailMode {
    /// Through the site's relay (when `site.yaml` has an enabled `email:` section).
    Send,
    /// Write the `.eml` to this path instead (`--email-to-file`).
    ToFile(PathBuf),
    /// `--no-email`.
    Off,
}

/// The run's deadline, as shown and as a timer.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    pub at: DateTime<Tz>,
    pub instant: Instant,
}

pub struct Options {
    pub email: EmailMode,
    pub deadline: Option<Deadline>,
    /// Attachments from other stages (e.g. the probe's PNG chart, shown inline with an id).
    pub extra_attachments: Vec<Attachment>,
    /// Delete runs past the retention (only while holding the run lock).
    pub prune: bool,
}

#[derive(Debug, Default)]
pub struct Published {
    /// The run's archive directory, when it was written.
    pub archived: Option<PathBuf>,
    /// Where the message went (relay, file), for the operator.
    pub notes: Vec<String>,
    /// What went wrong, to print.
    pub problems: Vec<String>,
    /// Something the operator must know failed (archive or delivery): OK exits 2.
    pub degraded: bool,
}

impl Published {
    fn problem(&mut self, message: String) {
        self.problems.push(message);
        self.degraded = true;
    }

    /// The exit code for `report`: its own, but never 0 when the result did not get out.
    pub fn exit_code(&self, report: &Report) -> u8 {
        match report.exit_code() {
            0 if self.degraded => 2,
            code => code,
        }
    }
}

/// Adds the changes since the previous runs to `report`, archives it, and emails it.
pub async fn publish(config: &Config, report: &mut Report, options: Options) -> Published {
    let mut out = Published::default();
    let archive = Archive::new(&config.site.archive.dir);
    match archive.reports() {
        Ok((earlier, problems)) => {
            report.changes = history::changes(&earlier, report);
            for p in problems {
                out.notes
                    .push(format!("skipped an unreadable archived run: {p}"));
            }
        }
        Err(e) => out.problem(format!(
            "{e}; the report cannot say what changed since the previous run"
        )),
    }
    match archive.write(report) {
        Ok(path) => out.archived = Some(path),
        Err(e) => out.problem(format!("{e}: this run is not archived")),
    }
    if options.prune {
        match archive.prune(config.site.archive.retention_days) {
            Ok(removed) if !removed.is_empty() => out.notes.push(format!(
                "removed {} run(s) older than {} days from the archive",
                removed.len(),
                config.site.archive.retention_days
            )),
            Ok(_) => {}
            Err(e) => out.notes.push(format!("archive retention: {e}")),
        }
    }
    let ctx = Context::new(config.site.timezone, options.deadline.map(|d| d.at));
    let redactor = Redactor::from_config(config);
    let addresses = config
        .site
        .email
        .as_ref()
        .map(Addresses::of)
        .unwrap_or_else(Addresses::placeholder);
    let composed = || {
        email::compose(
            report,
            &ctx,
            &addresses,
            options.extra_attachments.clone(),
            &redactor,
        )
    };
    match &options.email {
        EmailMode::Off => {}
        EmailMode::ToFile(path) => match composed().and_then(|m| {
            super::archive::write_atomic(path, &m.bytes)
                .map_err(|e| email::EmailError::Build(e.to_string()))
        }) {
            Ok(()) => out
                .notes
                .push(format!("email written to {}", path.display())),
            Err(e) => out.problem(format!("{e}")),
        },
        EmailMode::Send => match &config.site.email {
            None => out
                .notes
                .push("no email: section in site.yaml, so no email was sent".into()),
            Some(settings) if !settings.enabled => out
                .notes
                .push("email is disabled in site.yaml (enabled: false); not sent".into()),
            Some(settings) => {
                let until = send_until(options.deadline, settings.timeout, settings.retry_for);
                match composed() {
                    Err(e) => out.problem(format!("{e}")),
                    Ok(message) => {
                        send(&archive, settings, report, &message, until, &mut out).await
                    }
                }
            }
        },
    }
    out
}

async fn send(
    archive: &Archive,
    settings: &crate::config::Email,
    report: &Report,
    message: &email::Composed,
    until: Instant,
    out: &mut Published,
) {
    let keep = |reason: String, attempts: u32, out: &mut Published| {
        match outbox::keep(&archive.outbox(), &report.run_id, message, &reason, attempts) {
            Ok(path) => out.problem(format!("the email was not delivered: {reason}. It is kept in {} and will be sent first by the next run", path.display())),
            Err(e) => out.problem(format!("the email was not delivered ({reason}) and could not be kept: {e}")),
        }
    };
    let sender = match Sender::new(&settings.relay, settings.timeout) {
        Ok(sender) => sender,
        Err(e) => return keep(e.to_string(), 0, out),
    };
    let flushed = outbox::flush(&archive.outbox(), &sender, until).await;
    for sent in &flushed.sent {
        out.notes
            .push(format!("sent the pending email {} first", sent.display()));
    }
    for (kept, why) in &flushed.kept {
        out.notes.push(format!(
            "the pending email {} is still not delivered: {why}",
            kept.display()
        ));
    }
    let delivery = sender.send(&message.envelope, &message.bytes, until).await;
    match delivery.error {
        None => out.notes.push(format!(
            "email sent via {} ({} attempt(s))",
            sender.describe(),
            delivery.attempts
        )),
        Some(e) => keep(
            format!(
                "{} after {} attempt(s) via {}",
                e,
                delivery.attempts,
                sender.describe()
            ),
            delivery.attempts,
            out,
        ),
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

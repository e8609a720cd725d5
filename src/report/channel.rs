//! The ways a report leaves premarket: the terminal, the archive, the email, the metrics file.
//! Each is one [`Channel`] in one file with its own settings block, so a new way out (a chat
//! webhook, a syslog line) is one more file and one more block in `site.yaml`.
//!
//! Channels are delivered in order by the run's driver. A channel may add a line to the
//! report's `problems` for the channels after it: the archive says it failed, so the email
//! that follows tells on-call this run is not archived. A channel's own failure never stops the
//! others; it is returned to be printed, and lifts an all-OK exit code to 2.

use std::future::Future;
use std::pin::Pin;

use chrono_tz::Tz;

use chrono::DateTime;

use super::Report;
use super::email::Attachment;

/// The run's deadline, as shown and as a timer.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    pub at: DateTime<Tz>,
    pub instant: tokio::time::Instant,
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What every channel may need besides the report.
#[derive(Clone, Debug)]
pub struct Context {
    pub tz: Tz,
    pub deadline: Option<Deadline>,
    /// Attachments from other stages (the probe's charts, shown inline in the email).
    pub attachments: Vec<Attachment>,
    /// Whether this run may delete runs past the retention (a full run holding the lock).
    pub prune: bool,
}

/// What a delivery did: notes for the operator, and problems (something did not get out).
#[derive(Debug, Default)]
pub struct Delivered {
    pub notes: Vec<String>,
    pub problems: Vec<String>,
}

impl Delivered {
    pub fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    pub fn problem(&mut self, problem: impl Into<String>) {
        self.problems.push(problem.into());
    }

    pub fn extend(&mut self, other: Delivered) {
        self.notes.extend(other.notes);
        self.problems.extend(other.problems);
    }

    /// A file a channel renders (JUnit XML, metrics) written where the user asked: its
    /// directory made, the file replaced atomically; "`what` written to PATH", or a problem
    /// `failed: ERROR`.
    pub fn file(path: &std::path::Path, bytes: &[u8], what: &str, failed: &str) -> Delivered {
        let mut done = Delivered::default();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(parent);
        }
        match premarket_files::write_atomic(path, bytes) {
            Ok(()) => done.note(format!("{what} written to {}", path.display())),
            Err(e) => done.problem(format!("{failed}: {e}")),
        }
        done
    }
}

/// One way out of the run.
pub trait Channel: Send + Sync {
    /// A word for messages: `terminal`, `archive`, `email`, `metrics`.
    fn name(&self) -> &'static str;

    /// Delivers `report`; may note a problem in `report.problems` for later channels.
    fn deliver<'a>(&'a self, report: &'a mut Report, ctx: &'a Context) -> BoxFuture<'a, Delivered>;
}

/// Delivers through every channel in order; what each did, in order.
pub async fn deliver_all(
    channels: &[Box<dyn Channel>],
    report: &mut Report,
    ctx: &Context,
) -> Delivered {
    let mut all = Delivered::default();
    for channel in channels {
        let done = channel.deliver(report, ctx).await;
        tracing::debug!(
            channel = channel.name(),
            problems = done.problems.len(),
            "delivered"
        );
        all.extend(done);
    }
    all
}

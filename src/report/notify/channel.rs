//! The notifications as one of the run's channels. The run is first named (fail, error,
//! recovered, ok: [`super::notice::event`]); each endpoint whose `on:` lists it gets its
//! messages, which are kept in the outbox before anything is posted. Then every endpoint, all
//! at once, posts what its queue holds, oldest first (what earlier runs could not deliver goes
//! before this run's), each message retried until the deadline or the endpoint's
//! `retry_for_s`; the first message that does not go out stops its endpoint's queue, and it and
//! those behind it wait for the next run. While anything waits, the run says so as a problem
//! (an OK run exits 2). Every word this channel says passes the redactor, and an endpoint is
//! named by its name and host only.

use std::collections::BTreeMap;
use std::path::PathBuf;

use secrecy::ExposeSecret;
use tokio::time::Instant;

use super::notice::{self, Notice};
use super::outbox::{self, Outbox, Pending};
use super::post::Poster;
use super::render::render;
use crate::Report;
use crate::channel::{BoxFuture, Channel, Context, Deadline, Delivered};
use crate::redact::Redactor;
use premarket_config::Endpoint;

/// The notify channel.
pub struct NotifyChannel {
    pub endpoints: Vec<Endpoint>,
    /// The archive's root: the state file is there.
    pub archive: PathBuf,
    /// `<archive>/outbox`.
    pub outbox: PathBuf,
    pub redactor: Redactor,
}

/// One message on its way: its file in the outbox, when it could be kept there.
struct Item {
    file: Option<PathBuf>,
    message: Pending,
}

impl Channel for NotifyChannel {
    fn name(&self) -> &'static str {
        "notify"
    }

    fn deliver<'a>(&'a self, report: &'a mut Report, ctx: &'a Context) -> BoxFuture<'a, Delivered> {
        Box::pin(async move {
            let mut done = Delivered::default();
            self.deliver_all(report, ctx, &mut done).await;
            let clean = |lines: Vec<String>| -> Vec<String> {
                lines.iter().map(|l| self.redactor.literals(l)).collect()
            };
            Delivered {
                notes: clean(done.notes),
                problems: clean(done.problems),
            }
        })
    }
}

impl NotifyChannel {
    async fn deliver_all(&self, report: &Report, ctx: &Context, done: &mut Delivered) {
        let (before, unreadable) = outbox::read_state(&self.archive);
        done.problems.extend(unreadable);
        let event = notice::event(report, &before);
        let notice = Notice::new(report, event, &before, ctx.tz, &self.redactor);
        let box_ = Outbox::in_outbox(&self.outbox);
        let latest = self
            .endpoints
            .iter()
            .map(|e| send_until(ctx.deadline, e.timeout, e.retry_for))
            .max()
            .unwrap_or_else(Instant::now);
        let lock = box_.lock(latest).await;
        if let Err(why) = &lock {
            done.note(format!(
                "notifications: the outbox {} is not locked ({why}); delivering anyway",
                box_.dir().display()
            ));
        }
        // This run's messages are kept before anything is posted.
        let mut unkept: Vec<Item> = Vec::new();
        for endpoint in self.endpoints.iter().filter(|e| e.on.contains(&event)) {
            for body in render(endpoint.kind, &notice) {
                let message = Pending {
                    endpoint: endpoint.name.clone(),
                    kind: endpoint.kind,
                    event,
                    run_id: report.run_id.clone(),
                    body,
                    attempts: 0,
                    reason: None,
                };
                if let Err(e) = box_.keep(&message) {
                    tracing::warn!("a notification could not be kept before posting: {e}");
                    unkept.push(Item {
                        file: None,
                        message,
                    });
                }
            }
        }
        for (endpoint, runs) in box_.cap(outbox::KEPT_PER_ENDPOINT) {
            done.problem(format!(
                "notify {endpoint}: the outbox keeps at most {} messages per endpoint; dropped the oldest {} that never went out (runs {})",
                outbox::KEPT_PER_ENDPOINT,
                runs.len(),
                runs.join(", ")
            ));
        }
        let mut queues: BTreeMap<String, Vec<Item>> = BTreeMap::new();
        for path in box_.pending() {
            match Outbox::load(&path) {
                Ok(message) => queues
                    .entry(message.endpoint.clone())
                    .or_default()
                    .push(Item {
                        file: Some(path),
                        message,
                    }),
                Err(why) => done.problem(format!(
                    "a kept notification does not read ({why}); it stays in {}",
                    box_.dir().display()
                )),
            }
        }
        for item in unkept {
            queues
                .entry(item.message.endpoint.clone())
                .or_default()
                .push(item);
        }
        let mut lanes = tokio::task::JoinSet::new();
        for (name, items) in queues {
            let Some(endpoint) = self.endpoints.iter().find(|e| e.name == name) else {
                done.problem(format!(
                    "{} notification(s) kept for {name}, which is no longer in site.yaml's notify:, wait in {}; delete them to drop them",
                    items.len(),
                    box_.dir().display()
                ));
                continue;
            };
            let until = send_until(ctx.deadline, endpoint.timeout, endpoint.retry_for);
            lanes.spawn(lane(endpoint.clone(), items, until, box_.clone()));
        }
        while let Some(joined) = lanes.join_next().await {
            match joined {
                Ok(lane_done) => done.extend(lane_done),
                Err(e) => {
                    done.problem(format!("notifications: an endpoint's delivery failed: {e}"))
                }
            }
        }
        if let Err(e) = outbox::write_state(&self.archive, &notice::after(&before, report, event)) {
            done.problem(format!(
                "notifications: the state was not written ({e}): the next run may not say recovered"
            ));
        }
        drop(lock);
    }
}

/// Posts one endpoint's queue in order; stops at the first message that does not go out.
async fn lane(endpoint: Endpoint, items: Vec<Item>, until: Instant, box_: Outbox) -> Delivered {
    let mut done = Delivered::default();
    let target = match endpoint.target() {
        Ok(target) => target,
        Err(e) => {
            let reason = format!("notify {}: {e}", endpoint.name);
            let left = items.len();
            keep_rest(&box_, items, &reason, &mut done);
            done.problem(format!(
                "{reason}; {left} notification(s) not delivered, kept in {}",
                box_.dir().display()
            ));
            return done;
        }
    };
    let who = format!("notify {} ({})", endpoint.name, target.host);
    let poster = Poster::new(endpoint.timeout);
    let mut items = items.into_iter();
    while let Some(mut item) = items.next() {
        let mut body = item.message.body.clone();
        if let (Some(key), Some(object)) = (&target.routing_key, body.as_object_mut()) {
            object.insert("routing_key".into(), key.expose_secret().into());
        }
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        // Every message gets at least one whole attempt, even when the time is spent.
        let bound = until.max(Instant::now() + endpoint.timeout);
        let (attempts, error) = poster.post(target.url.expose_secret(), &bytes, bound).await;
        let what = describe(&item.message);
        let Some(error) = error else {
            if let Some(file) = &item.file {
                Outbox::remove(file);
            }
            done.note(format!("{who}: {what} sent ({attempts} attempt(s))"));
            continue;
        };
        item.message.attempts += attempts;
        item.message.reason = Some(error.to_string());
        let reason = format!("{error} after {attempts} attempt(s)");
        let rest: Vec<Item> = std::iter::once(item).chain(items).collect();
        let left = rest.len();
        keep_rest(&box_, rest, &reason, &mut done);
        done.problem(format!(
            "{who}: {what} was not delivered: {reason}. It{} kept in {} and will be sent first by the next run",
            if left > 1 {
                format!(" and {} message(s) behind it are", left - 1)
            } else {
                " is".to_string()
            },
            box_.dir().display()
        ));
        break;
    }
    done
}

/// Keeps what did not go out: kept files get the reason, the others are kept now.
fn keep_rest(box_: &Outbox, items: Vec<Item>, reason: &str, done: &mut Delivered) {
    for mut item in items {
        if item.message.reason.is_none() {
            item.message.reason = Some(reason.to_string());
        }
        let kept = match &item.file {
            Some(file) => box_.update(file, &item.message).map(|()| file.clone()),
            None => box_.keep(&item.message),
        };
        if let Err(e) = kept {
            done.problem(format!(
                "{} could not be kept for the next run ({e}): it is lost",
                describe(&item.message)
            ));
        }
    }
}

/// `the fail message of run 20261202T083100.123`.
fn describe(message: &Pending) -> String {
    format!(
        "the {} message of run {}",
        message.event.as_str(),
        message.run_id
    )
}

/// Retry until the deadline, or for `retry_for` when no deadline is closer; always allow one
/// full attempt (as the email does).
fn send_until(
    deadline: Option<Deadline>,
    timeout: std::time::Duration,
    retry_for: std::time::Duration,
) -> Instant {
    let now = Instant::now();
    let by_retry = now + retry_for.max(timeout);
    let until = match deadline {
        Some(d) => d.instant.min(by_retry),
        None => by_retry,
    };
    until.max(now + timeout)
}

//! SIGTERM and SIGINT during a run: systemd stopping the unit at a shutdown or a reboot, or
//! Ctrl-C. Killed outright, the run would leave no email and no archive, and on-call would not
//! know the morning's inspection never reported.
//!
//! The first signal stops collection at once ([`premarket_inspect::interrupt`]); what was
//! collected is judged (for at most [`JUDGING_GRACE`]), the rest is ERROR "interrupted", and
//! the report is archived and emailed, or queued in the outbox when the relay does not take it
//! within [`EMAIL_BY`]; all within [`GRACE`] of the signal, after which a watchdog exits
//! whatever is still running (exit 2). A second signal exits at once, without a report, with
//! the shell's code for it (128 + its number: 130 for SIGINT, 143 for SIGTERM). A systemd unit's
//! `TimeoutStopSec` must exceed [`GRACE`].

use std::io::Write as _;
use std::time::Duration;

use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::time::Instant;

use premarket_config::Email;
use premarket_core::Exit;
use premarket_inspect::Interrupt;
use premarket_inspect::interrupt::{JUDGING_GRACE, Signalled, Trigger};
use premarket_report::Report;
use premarket_report::channel::{Channel, Context, Delivered};

/// From the first signal to the exit, at the most.
pub const GRACE: Duration = Duration::from_secs(10);

/// How long after the signal the email may still be tried before it is queued: the judging
/// grace, the archive, and room to spare before [`GRACE`].
pub const EMAIL_BY: Duration = Duration::from_secs(7);

const _: () = assert!(JUDGING_GRACE.as_secs() < EMAIL_BY.as_secs());
const _: () = assert!(EMAIL_BY.as_secs() < GRACE.as_secs());

/// Catches SIGTERM and SIGINT from now on; the interrupt the inspection watches. When they
/// cannot be caught, the run goes on as before: a signal ends it.
///
/// The signals are awaited on a thread with a runtime of its own: the run's workers may all
/// be busy (compressing the archive, say), and a second signal must still exit at once.
pub fn listen() -> Interrupt {
    let (trigger, interrupt) = Interrupt::channel();
    let (ready, listening) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            let runtime = match runtime {
                Ok(runtime) => runtime,
                Err(e) => return drop(ready.send(Err(e))),
            };
            runtime.block_on(async move {
                match (
                    signal(SignalKind::terminate()),
                    signal(SignalKind::interrupt()),
                ) {
                    (Ok(term), Ok(int)) => {
                        let _ = ready.send(Ok(()));
                        stop_on_signals(term, int, trigger).await;
                    }
                    (Err(e), _) | (_, Err(e)) => drop(ready.send(Err(e))),
                }
            });
        });
    let outcome = match spawned {
        Ok(_) => listening
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the signal thread ended"))),
        Err(e) => Err(e),
    };
    match outcome {
        Ok(()) => interrupt,
        Err(e) => {
            tracing::warn!(
                "cannot catch SIGTERM and SIGINT ({e}): a stop signal ends the run without a report"
            );
            Interrupt::default()
        }
    }
}

async fn stop_on_signals(mut term: Signal, mut int: Signal, trigger: Trigger) {
    let Some((name, _)) = next(&mut term, &mut int).await else {
        return;
    };
    trigger.fire(name);
    say(&format!(
        "{name}: stopping; what was collected is judged and reported within {} s (a second \
         signal exits at once, without a report)",
        GRACE.as_secs()
    ));
    watchdog(name);
    if let Some((again, number)) = next(&mut term, &mut int).await {
        say(&format!("{again}: exiting at once, without a report"));
        std::process::exit(128 + number);
    }
}

/// The next SIGTERM or SIGINT, with its number.
async fn next(term: &mut Signal, int: &mut Signal) -> Option<(&'static str, i32)> {
    tokio::select! {
        Some(()) = term.recv() => Some(("SIGTERM", libc::SIGTERM)),
        Some(()) = int.recv() => Some(("SIGINT", libc::SIGINT)),
        else => None,
    }
}

/// Exits [`GRACE`] after the signal, whatever the run is doing (a write to a hung disk, a
/// step nothing else bounds). A thread: it must fire even if the runtime is stuck.
fn watchdog(signal: &'static str) {
    let spawned = std::thread::Builder::new()
        .name("grace".into())
        .spawn(move || {
            std::thread::sleep(GRACE);
            say(&format!(
                "{signal}: the report was not out {} s after the signal; exiting without it",
                GRACE.as_secs()
            ));
            std::process::exit(Exit::Error.code().into());
        });
    if let Err(e) = spawned {
        tracing::warn!("no watchdog for the grace after {signal}: {e}");
    }
}

/// A line on stderr that never panics (stderr may be closed).
fn say(message: &str) {
    let _ = writeln!(std::io::stderr(), "premarket: {message}");
}

/// `email` bounded by what is left until [`EMAIL_BY`] after `signalled`: each attempt and the
/// retries fit in it (at least one second each); what does not go out is queued.
pub fn email_within(mut email: Email, signalled: Signalled) -> Email {
    let left = (signalled.at + EMAIL_BY)
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1));
    email.timeout = email.timeout.min(left);
    email.retry_for = email.retry_for.min(left);
    email
}

/// Delivers through every channel in order, as [`premarket_report::channel::deliver_all`] does;
/// a signal that arrives while the email is being sent cuts that attempt, and the email is
/// delivered again by `email_after(signal)` (bounded by [`email_within`]: sent or queued).
pub async fn deliver(
    channels: &[Box<dyn Channel>],
    report: &mut Report,
    ctx: &Context,
    interrupt: &Interrupt,
    email_after: impl Fn(Signalled) -> Option<Box<dyn Channel>>,
) -> Delivered {
    let mut all = Delivered::default();
    for channel in channels {
        if channel.name() != "email" || interrupt.get().is_some() {
            all.extend(channel.deliver(report, ctx).await);
            continue;
        }
        let cut = tokio::select! {
            biased;
            done = channel.deliver(report, ctx) => {
                all.extend(done);
                None
            }
            signalled = interrupt.wait() => Some(signalled),
        };
        if let Some(signalled) = cut
            && let Some(again) = email_after(signalled)
        {
            all.note(format!(
                "{} cut the email's delivery; it was tried again within the grace",
                signalled.name
            ));
            all.extend(again.deliver(report, ctx).await);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_email_fits_in_what_is_left_of_the_grace() {
        let email = Email {
            enabled: true,
            relay: premarket_config::Relay {
                host: "127.0.0.1".into(),
                port: 25,
                tls: premarket_config::TlsMode::None,
                auth: None,
                ca_file: None,
                environment: Default::default(),
            },
            from: "a@b.test".parse().unwrap(),
            to: vec![],
            fail_to: vec![],
            timeout: Duration::from_secs(30),
            retry_for: Duration::from_secs(120),
        };
        let now = Signalled {
            name: "SIGTERM",
            at: Instant::now(),
        };
        let bounded = email_within(email.clone(), now);
        assert!(bounded.timeout <= EMAIL_BY && bounded.timeout > EMAIL_BY - Duration::from_secs(1));
        assert_eq!(bounded.retry_for, bounded.timeout);
        let long_ago = Signalled {
            name: "SIGTERM",
            at: Instant::now() - GRACE,
        };
        let late = email_within(email, long_ago);
        assert_eq!(
            late.timeout,
            Duration::from_secs(1),
            "one short attempt, then the outbox"
        );
    }
}

//! The run told to stop (SIGTERM from systemd at a shutdown, Ctrl-C): what the inspection
//! listens to. Collection stops at once; what was collected is still judged, for a short
//! while ([`JUDGING_GRACE`]); the rest is ERROR "interrupted", and the report goes out. The
//! signals themselves are caught by the run's driver (`run::stop`), which fires the
//! [`Trigger`].

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// How long after the signal evaluations of what was collected may still run.
pub const JUDGING_GRACE: Duration = Duration::from_secs(2);

/// When and by what the run was told to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signalled {
    /// `SIGTERM`, `SIGINT`.
    pub name: &'static str,
    pub at: Instant,
}

/// The inspection's side: whether, and when, the run was told to stop.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Option<watch::Receiver<Option<Signalled>>>);

/// The driver's side: tells the run to stop.
#[derive(Debug)]
pub struct Trigger(watch::Sender<Option<Signalled>>);

impl Interrupt {
    /// A pair: the trigger fires this interrupt (and its clones).
    pub fn channel() -> (Trigger, Interrupt) {
        let (tx, rx) = watch::channel(None);
        (Trigger(tx), Interrupt(Some(rx)))
    }

    /// The signal, once there was one.
    pub fn get(&self) -> Option<Signalled> {
        self.0.as_ref().and_then(|rx| *rx.borrow())
    }

    /// Waits for the signal (for ever, when there is no trigger).
    pub async fn wait(&self) -> Signalled {
        if let Some(rx) = &self.0 {
            let mut rx = rx.clone();
            if let Ok(signalled) = rx.wait_for(Option::is_some).await
                && let Some(signalled) = *signalled
            {
                return signalled;
            }
        }
        std::future::pending().await
    }
}

impl Trigger {
    /// Tells the run to stop, now; a second call changes nothing.
    pub fn fire(&self, name: &'static str) -> Signalled {
        let now = Signalled {
            name,
            at: Instant::now(),
        };
        let mut first = now;
        self.0.send_modify(|slot| first = *slot.get_or_insert(now));
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fired_once_seen_by_every_clone() {
        let (trigger, interrupt) = Interrupt::channel();
        let other = interrupt.clone();
        assert_eq!(interrupt.get(), None);
        let waiting = tokio::spawn(async move { other.wait().await });
        let first = trigger.fire("SIGTERM");
        assert_eq!(trigger.fire("SIGINT"), first, "the first signal stands");
        assert_eq!(waiting.await.unwrap().name, "SIGTERM");
        assert_eq!(interrupt.get(), Some(first));
        let never = Interrupt::default();
        let waited = tokio::time::timeout(Duration::from_millis(20), never.wait()).await;
        assert!(waited.is_err(), "no trigger, no signal");
    }
}

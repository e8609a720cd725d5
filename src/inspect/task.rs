//! A device's inspection as a task of its own on the runtime's workers, so the devices'
//! sessions, parsers and redaction share both cores. The task ends with the run: dropping the
//! handle stops it, as dropping the future did before it was a task. A panic in it (a bug) is
//! caught here and said, so one device's bug is that device's ERROR, not the run's end.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::task::{JoinError, JoinHandle};

/// A spawned task, aborted when dropped.
pub(crate) struct Owned<T>(JoinHandle<T>);

impl<T: Send + 'static> Owned<T> {
    pub(crate) fn spawn(work: impl Future<Output = T> + Send + 'static) -> Self {
        Owned(tokio::spawn(work))
    }
}

/// What ended a task other than its own end.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Ended {
    #[error("panicked: {0}")]
    Panicked(String),
    #[error("its task was cancelled")]
    Cancelled,
}

impl<T> Future for Owned<T> {
    /// The task's value, or what ended it otherwise.
    type Output = Result<T, Ended>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map(|r| r.map_err(why))
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn why(e: JoinError) -> Ended {
    if !e.is_panic() {
        return Ended::Cancelled;
    }
    let payload = e.into_panic();
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    Ended::Panicked(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_value_a_panic_and_a_drop() {
        assert_eq!(Owned::spawn(async { 7 }).await, Ok(7));
        let panicked = Owned::spawn(async {
            if std::hint::black_box(true) {
                panic!("parser bug at line 3");
            }
            1
        })
        .await;
        assert_eq!(
            panicked,
            Err(Ended::Panicked("parser bug at line 3".into()))
        );
        // Dropped before it ends: the task is stopped, its value never set.
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let held = Owned::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
            let _ = tx.send(());
        });
        drop(held);
        assert!(rx.await.is_err(), "the dropped task ran on");
    }
}

//! The second sample of a command: the driver waits until its gap since the first sample's
//! answer has passed (usually nothing is left to wait: the plan sends the first sample early
//! and the second last), then sends it like any command. It is not sent, and is an error that
//! says why, when its first sample was not answered or when waiting would pass the run's
//! deadline: a wait that the deadline would cut short would cost every output of the device.

use std::time::Duration;

use tokio::time::Instant;

use super::super::script::Group;
use super::super::target::Captured;
use super::Driver;
use premarket_core::CollectError;

/// Kept free after the second sample is due, for sending it and reading its answer.
const SEND_MARGIN: Duration = Duration::from_secs(2);

impl Driver {
    /// Waits for the gap, then runs `group` (the one second sample). `Err` means the session is
    /// unusable, as for any group.
    pub(super) async fn sample(
        &mut self,
        first: Option<usize>,
        gap: Duration,
        group: &Group,
        results: &mut [Option<Result<Captured, CollectError>>],
    ) -> Result<(), CollectError> {
        let due = match first.and_then(|i| self.answered.get(&i)) {
            Some(answered) => *answered + gap,
            None => {
                let why = CollectError::Other(
                    "second sample not taken: its first sample was not answered".into(),
                );
                fail(group, results, why);
                return Ok(());
            }
        };
        if let Some(deadline) = self.deadline
            && due + SEND_MARGIN > deadline
        {
            let left = deadline.saturating_duration_since(Instant::now()).as_secs();
            let why = CollectError::Other(format!(
                "second sample not taken: it is due {} s after the first, and the run's deadline is {left} s away",
                gap.as_secs()
            ));
            fail(group, results, why);
            return Ok(());
        }
        tokio::time::sleep_until(due).await;
        self.group(group, results).await
    }
}

fn fail(group: &Group, results: &mut [Option<Result<Captured, CollectError>>], why: CollectError) {
    for (i, _) in &group.commands {
        results[*i] = Some(Err(why.clone()));
    }
}

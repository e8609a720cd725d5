//! A question the driver asks before each planned command: is it still to be sent? The answer
//! comes from outside this layer (the collector knows the platform and the plan): typically the
//! device's model, read from an identity command answered earlier in the same session, lacks
//! the command. A withheld command is never typed; its result says why.

use super::target::Captured;
use premarket_core::CollectError;

/// Decides from the session's answers so far whether a planned command is sent.
pub trait Gate: Send + Sync {
    /// `Some(why)` when command `index` (into the script's commands) is not to be sent, given
    /// `answered` (one slot per command, `None` until it ran); `None` to send it.
    fn withhold(
        &self,
        index: usize,
        answered: &[Option<Result<Captured, CollectError>>],
    ) -> Option<String>;
}

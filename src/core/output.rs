//! What a collector hands on: each command's raw output, or why there is none. The message of a
//! [`CollectError`] is shown to the operator as an ERROR reason, so it says what happened and,
//! where possible, what to do.

use super::Command;

/// Why a command's output is missing. The message is shown to the operator as an ERROR reason,
/// so it says what happened and, where possible, what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CollectError {
    #[error("saved output {path} is missing")]
    FileMissing { path: String },
    #[error("saved output {path} is empty")]
    FileEmpty { path: String },
    #[error("cannot read {path}: {reason}")]
    FileUnreadable { path: String, reason: String },
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("{0}")]
    HostKey(String),
    #[error("authentication failed: {0}")]
    Auth(String),
    #[error("the device answered with an error: {0}")]
    Device(String),
    #[error("refused by the read-only guard: {0}")]
    Refused(String),
    #[error(
        "{}the device is not answering for {seconds} s (frozen, or the network dropped it)",
        .command.as_ref().map(|c| format!("`{c}`: ")).unwrap_or_default()
    )]
    NotAnswering {
        /// The line that got no answer, when one was sent.
        command: Option<String>,
        seconds: u64,
    },
    #[error("timed out after {0} s")]
    Timeout(u64),
    #[error("not finished by the deadline")]
    Deadline,
    #[error("{0}")]
    Other(String),
}

/// The raw outputs of one device, in plan order.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    pub results: Vec<(Command, Result<String, CollectError>)>,
}

impl Outputs {
    /// Every command failed for the same reason (e.g. the device is unreachable).
    pub fn all_failed(commands: &[Command], error: CollectError) -> Self {
        Outputs {
            results: commands
                .iter()
                .map(|c| (c.clone(), Err(error.clone())))
                .collect(),
        }
    }
}

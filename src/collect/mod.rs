//! Stage 3 of the pipeline: get each planned command's raw output.
//!
//! A collector turns a [`DevicePlan`] into [`Outputs`]. The SSH collector talks to devices; the
//! offline collector reads saved outputs; the lab is SSH to emulated devices. Collectors never
//! judge: a device problem becomes a [`CollectError`] on the commands it affects, and the
//! checks that needed them report ERROR.

pub mod offline;
pub mod probe;
pub mod ssh;

use std::future::Future;
use std::pin::Pin;

use crate::plan::{Command, DevicePlan};

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

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Something that can fetch a device's outputs.
pub trait Collector: Send + Sync {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs>;
}

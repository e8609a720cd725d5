//! The ground floor: the words every stage of the pipeline shares, and nothing else.
//!
//! A command and the platform it is sent to, a verdict (and who accepted the reading it was
//! judged against), the names of checks and devices, the process exit code, a device's
//! collected outputs (in memory, or spooled to disk when large) and why one is missing;
//! [`in_halves`], the one way a run shares its work alone between the two cores; and
//! [`closest`], the one did-you-mean. Every module above may use these; this module uses none
//! of them, so no stage needs another stage just to name a thing. How files are read and
//! written is the `premarket-files` crate beside this one; how large outputs are spooled,
//! `premarket-spool`.

mod accepted;
mod command;
mod exit;
mod halves;
mod name;
mod output;
mod platform;
pub mod spool;
mod typo;
mod units;
mod verdict;

pub use accepted::Accepted;
pub use command::{Command, Resample, SECOND_SAMPLE_SUFFIX};
pub use exit::Exit;
pub use halves::in_halves;
pub use name::{CheckId, DeviceName, NameError};
pub use output::{CollectError, Output, Outputs};
pub use platform::Platform;
pub use typo::{closest, distance};
pub use units::{Bytes, Grouped, Megabytes, Percent, Seconds};
pub use verdict::{SUBJECTS_MAX, Status, Verdict, subjects_cut};

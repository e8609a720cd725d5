#![doc = include_str!("README.md")]

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

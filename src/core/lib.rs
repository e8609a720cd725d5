//! The ground floor: the words every stage of the pipeline shares, and nothing else.
//!
//! A command and the platform it is sent to, a verdict, the names of checks and devices, the
//! process exit code, a device's collected outputs (in memory, or spooled to disk when large)
//! and why one is missing. Every module above may use these; this module uses none of them, so
//! no stage needs another stage just to name a thing. The one way every stage opens, reads and
//! writes files ([`file`]) and the few system calls `std` lacks ([`os`]) live here for the same
//! reason.

mod command;
mod exit;
pub mod file;
mod name;
pub mod os;
mod output;
mod platform;
pub mod spool;
mod units;
mod verdict;

pub use command::Command;
pub use exit::Exit;
pub use name::{CheckId, DeviceName, NameError};
pub use output::{CollectError, Output, Outputs};
pub use platform::Platform;
pub use units::{Megabytes, Percent, Seconds};
pub use verdict::{Status, Verdict};

//! premarket: the pre-market inspection of a low-latency trading network.
//!
//! Before the open it logs into the FortiGate and the Arista switches on the market-data and
//! order path, runs read-only commands, parses them, judges them against YAML baselines and
//! reports OK/FAIL. The pipeline is visible in the modules:
//!
//! [`config`] -> [`plan`] -> [`collect`] -> [`parse`] (with [`platform`]) -> [`check`] -> [`report`],
//! judged end to end by [`inspect`]; [`run`] owns one run from the configuration to the exit
//! code (lock, calendar, deadline, history, the report's channels).

pub use premarket_check as check;
pub mod cli;
pub use premarket_collect as collect;
pub use premarket_config as config;
pub use premarket_core as core;
pub use premarket_files as files;
pub use premarket_inspect as inspect;
#[cfg(feature = "lab")]
pub use premarket_lab as lab;
pub use premarket_parse as parse;
pub use premarket_plan as plan;
pub use premarket_platform as platform;
pub use premarket_probe as probe;
pub use premarket_report as report;
pub use premarket_run as run;
pub use premarket_spool as spool;
pub use premarket_ssh as ssh;

pub use config::Config;
pub use core::{Command, Platform, Status, Verdict};
pub use plan::{Plan, Selection};
pub use report::Report;

//! premarket: the pre-market inspection of a low-latency trading network.
//!
//! Before the open it logs into the FortiGate and the Arista switches on the market-data and
//! order path, runs read-only commands, parses them, judges them against YAML baselines and
//! reports OK/FAIL. The pipeline is visible in the modules:
//!
//! [`config`] -> [`plan`] -> [`collect`] -> [`parse`] (with [`platform`]) -> [`check`] -> [`report`],
//! judged end to end by [`inspect`]; [`run`] owns one run from the configuration to the exit
//! code (lock, calendar, deadline, history, the report's channels).

pub mod check;
pub mod cli;
pub mod collect;
pub mod config;
pub mod core;
pub mod inspect;
pub mod lab;
pub mod parse;
pub mod plan;
pub mod platform;
pub mod probe;
pub mod report;
pub mod run;
pub mod ssh;

pub use config::Config;
pub use core::{Command, Platform, Status, Verdict};
pub use plan::{Plan, Selection};
pub use report::Report;

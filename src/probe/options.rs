//! How to analyse a capture: the sides, the calibration, where "slow" starts, the idle timer,
//! how many packets open a session, where the time stamps came from, and where the verdict's
//! lines are drawn.
//!
//! These are the analysis's inputs, named apart from the code that uses them so that the
//! classifier ([`super::session`]), the verdict ([`super::verdict`]), the site's baseline
//! ([`super::baseline`]) and the live capture ([`super::capture`]) share them without reaching
//! into one another.

use serde::{Deserialize, Serialize};

use super::calibration::Calibration;
use super::request::Sides;
use super::units::Nanos;

/// Where the time stamps came from. Only stamps of one kind on one port may be subtracted.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum TsSource {
    /// NIC hardware clock (production: ExaNIC port1).
    Hardware,
    /// Kernel software stamps: fine on veth, microseconds off on a real NIC.
    Software,
    /// A file from another tool: the file does not say.
    #[default]
    Unknown,
    /// Some pairs hardware, some software: not comparable.
    Mixed,
}

/// How to analyse.
#[derive(Clone, Debug)]
pub struct Options {
    pub sides: Sides,
    pub calibration: Calibration,
    /// Above this a packet is "slow" (default 6 us, the valley between the lab's two modes).
    pub threshold: Nanos,
    /// The firewall's UDP idle timer (`udp-idle-timer`, 180 s by default).
    pub idle_timer: Nanos,
    /// How many packets open a session on the CPU (2 on the lab's FortiGate).
    pub first_k: usize,
    pub timestamps: TsSource,
    pub rules: Rules,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sides: Sides::default(),
            calibration: Calibration::default(),
            threshold: Nanos(6_000),
            idle_timer: Nanos(180_000_000_000),
            first_k: 2,
            timestamps: TsSource::Unknown,
            rules: Rules::default(),
        }
    }
}

/// Where the verdict's lines are drawn.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Rules {
    pub min_pairs: usize,
    /// Lost over requests above this is "loss".
    pub max_loss_fraction: f64,
    /// Steady-state slow fraction at most this: offloaded.
    pub offloaded_max_slow_fraction: f64,
    /// Steady-state slow fraction at least this: CPU path.
    pub cpu_min_slow_fraction: f64,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            min_pairs: 100,
            max_loss_fraction: 0.001,
            offloaded_max_slow_fraction: 0.001,
            cpu_min_slow_fraction: 0.05,
        }
    }
}

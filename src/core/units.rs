//! Units a baseline and a verdict share, as types, so that a percentage is never read as seconds.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A share of a resource, 0-100.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Deserialize, Serialize)]
#[serde(transparent)]
pub struct Percent(pub f64);

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.0)
    }
}

/// A duration in whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(transparent)]
pub struct Seconds(pub u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} s", self.0)
    }
}

/// A size in mebibytes (2^20 bytes), as the site's size settings are written (`max_output_mb`,
/// `max_size_mb`) and as a message says it ("output exceeded 2048 MB").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
#[serde(transparent)]
pub struct Megabytes(pub u64);

impl Megabytes {
    pub fn bytes(self) -> u64 {
        self.0.saturating_mul(1 << 20)
    }
}

impl fmt::Display for Megabytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} MB", self.0)
    }
}

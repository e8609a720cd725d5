//! Units a baseline and a verdict share, as types, so that a percentage is never read as seconds.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A share of a resource, 0-100.
#[derive(
    Clone, Copy, Debug, PartialEq, PartialOrd, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct Percent(pub f64);

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%", self.0)
    }
}

/// A duration in whole seconds.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct Seconds(pub u64);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} s", self.0)
    }
}

/// A size in mebibytes (2^20 bytes), as the site's size settings are written (`max_output_mb`,
/// `max_size_mb`) and as a message says it ("output exceeded 2048 MB").
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, schemars::JsonSchema,
)]
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

/// A size in bytes, shown as a person reads it: `3.0 MiB`, `98 KiB`, `512 bytes`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KIB: u64 = 1 << 10;
        const MIB: u64 = 1 << 20;
        const GIB: u64 = 1 << 30;
        let n = self.0;
        match n {
            0..KIB => write!(f, "{n} bytes"),
            KIB..MIB => write!(f, "{:.0} KiB", n as f64 / KIB as f64),
            MIB..GIB => write!(f, "{:.1} MiB", n as f64 / MIB as f64),
            _ => write!(f, "{:.1} GiB", n as f64 / GIB as f64),
        }
    }
}

/// A count shown with thousands separators (`10,000 sessions`), as a person reads it on a phone.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct Grouped(pub u64);

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        let mut out = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts_read_as_people_write_them() {
        let cases = [
            (Bytes(512).to_string(), "512 bytes"),
            (Bytes(100_000).to_string(), "98 KiB"),
            (Bytes(3_145_728).to_string(), "3.0 MiB"),
            (Bytes(5 << 30).to_string(), "5.0 GiB"),
            (Grouped(7).to_string(), "7"),
            (Grouped(1000).to_string(), "1,000"),
            (Grouped(10_000).to_string(), "10,000"),
            (Grouped(1_234_567).to_string(), "1,234,567"),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}

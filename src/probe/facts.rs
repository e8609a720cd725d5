//! The probe's collected "output" (the analysis JSON) read back as a fact for the checks.
//!
//! The probe collector prints the analysis as JSON exactly like `premarket probe analyze
//! --format json`; parsing it here (rather than passing the struct along) keeps the probe on
//! the same collect -> parse -> evaluate path as every device, and lets `--offline` replay a
//! saved analysis.

use serde::{Deserialize, Serialize};

use super::units::Nanos;
use super::verdict::Kind;
use premarket_core::Command;
use premarket_parse::{ParseError, Query, QuerySpec, Raw, Shape};

/// The part of a percentile summary the checks read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryFact {
    pub n: usize,
    pub median_ns: Option<Nanos>,
    pub p99_ns: Option<Nanos>,
    pub max_ns: Option<Nanos>,
}

/// What the checks know about one probe measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub pairs: usize,
    pub lost: usize,
    pub requests: usize,
    pub median_ns: Option<Nanos>,
    pub p99_ns: Option<Nanos>,
    pub max_ns: Option<Nanos>,
    pub steady: SummaryFact,
    pub verdict: Kind,
    pub reason: String,
    #[serde(default)]
    pub indicative: bool,
    #[serde(default)]
    pub first_packets_total: usize,
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub files: Vec<String>,
    /// Where the chart was written, when the baseline asked for a file.
    #[serde(default)]
    pub chart_png: Option<String>,
    /// The least latency of all pairs.
    #[serde(default)]
    pub min_ns: Option<Nanos>,
    /// The capture's clock: its format (`pcapng (units of 10^-9 s)`) and coarsest unit.
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub tick_ns: Option<Nanos>,
}

/// The probe's one "command": measure (from the device's `source:`) and hand on the analysis as
/// JSON, exactly what `premarket probe analyze --format json` prints. A saved copy replays with
/// `run --offline`.
pub struct Measure;

impl Measure {
    pub const TEXT: &'static str = "probe measure";
}

impl Query for Measure {
    const KIND: &'static str = "probe.latency";
    type Fact = Latency;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Latency, ParseError> {
        let text = raw.text()?;
        serde_json::from_str::<Latency>(text).map_err(|e| {
            ParseError::new(format!("probe output is not the analysis JSON: {e}"), text)
        })
    }
}

/// What `premarket parse probe ...` reads.
pub static QUERIES: &[QuerySpec] = &[QuerySpec::of::<Measure>(Shape::Exact(Measure::TEXT))];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_contract_keys_and_refuses_other_text() {
        let raw = r#"{"pairs": 10, "lost": 0, "requests": 10, "median_ns": 4100, "p99_ns": 4200, "max_ns": 45000,
            "steady": {"n": 8, "median_ns": 4100, "p99_ns": 4150, "max_ns": 4160}, "verdict": "offloaded", "reason": "r"}"#;
        let l = Measure::parse(&mut Raw::new(raw)).unwrap();
        assert_eq!(
            (l.median_ns, l.verdict, l.steady.n),
            (Some(Nanos(4100)), Kind::Offloaded, 8)
        );
        let err = Measure::parse(&mut Raw::new("% error: permission denied")).unwrap_err();
        assert!(err.excerpt.contains("permission denied"));
    }
}

//! Calibration: what the measurement adds besides the firewall.
//!
//! The "after" copy crosses the switch once more and runs through extra cable. The lab measured
//! it by replacing the firewall with a 1 m DAC (412 ns) and added the firewall setup's 5 m of
//! extra cable at 4.96 ns/m (24.8 ns): firewall latency = difference - 436.8 ns. Either give the
//! total (`--calibration-ns`) or the DAC capture plus the cable term (`--calibrate-from`).

use serde::Serialize;

use super::units::{Meters, Nanos, NanosPerMeter};

/// How the calibration was obtained; kept in every report next to the raw differences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Calibration {
    /// The DAC run's median difference (or the whole given value).
    pub baseline_ns: f64,
    /// Extra cable of the firewall setup.
    pub cable_ns: f64,
    /// What is subtracted from every difference.
    pub total_ns: f64,
    /// Pairs of the DAC run, when the baseline was measured here.
    pub dac_pairs: Option<usize>,
}

impl Calibration {
    /// A fixed total, e.g. `--calibration-ns 436.8`.
    pub fn fixed(total_ns: f64) -> Self {
        Calibration {
            baseline_ns: total_ns,
            cable_ns: 0.0,
            total_ns,
            dac_pairs: None,
        }
    }

    /// From a DAC run's median difference plus the extra cable.
    pub fn from_dac(median: Nanos, pairs: usize, extra: Meters, per_m: NanosPerMeter) -> Self {
        let baseline_ns = median.0 as f64;
        let cable_ns = extra * per_m;
        Calibration {
            baseline_ns,
            cable_ns,
            total_ns: baseline_ns + cable_ns,
            dac_pairs: Some(pairs),
        }
    }

    /// The firewall's own latency for a raw difference (rounded to whole ns).
    pub fn apply(&self, delta: Nanos) -> Nanos {
        Nanos((delta.0 as f64 - self.total_ns).round() as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lab_calibration_is_436_8_ns() {
        let c = Calibration::from_dac(Nanos(412), 10_000, Meters(5.0), NanosPerMeter(4.96));
        assert!((c.total_ns - 436.8).abs() < 1e-9);
        assert_eq!(c.apply(Nanos(4_537)), Nanos(4_100));
        assert_eq!(Calibration::fixed(0.0).apply(Nanos(-3)), Nanos(-3));
    }
}

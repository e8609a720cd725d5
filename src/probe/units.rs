//! Units of the probe as newtypes, so a VLAN id is never added to a time stamp and a
//! microsecond value is never read as nanoseconds.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A time or a duration in nanoseconds. Signed: a difference of two stamps can be negative
/// (a reordered or mislabelled copy), and that must show rather than wrap.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Nanos(pub i64);

impl Nanos {
    pub const ZERO: Nanos = Nanos(0);

    pub fn from_micros(us: i64) -> Self {
        Nanos(us.saturating_mul(1_000))
    }

    pub fn from_secs_f64(s: f64) -> Self {
        Nanos((s * 1e9).round() as i64)
    }

    pub fn as_micros_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
}

impl std::ops::Sub for Nanos {
    type Output = Nanos;
    fn sub(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(rhs.0))
    }
}

impl std::ops::Add for Nanos {
    type Output = Nanos;
    fn add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(rhs.0))
    }
}

/// Human form: `4.100 us`, `412 ns`, `200.000 s`.
impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.abs() < 1_000 {
            write!(f, "{v} ns")
        } else if v.abs() < 1_000_000 {
            write!(f, "{:.3} us", v as f64 / 1e3)
        } else if v.abs() < 1_000_000_000 {
            write!(f, "{:.3} ms", v as f64 / 1e6)
        } else {
            write!(f, "{:.3} s", v as f64 / 1e9)
        }
    }
}

/// An 802.1Q VLAN id (12 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Vlan(pub u16);

impl Vlan {
    /// The id from a tag control field (PCP and DEI dropped).
    pub fn from_tci(tci: u16) -> Self {
        Vlan(tci & 0x0fff)
    }
}

impl fmt::Display for Vlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::str::FromStr for Vlan {
    type Err = NotAVlan;
    fn from_str(s: &str) -> Result<Self, NotAVlan> {
        match s.trim().parse::<u16>() {
            Ok(v) if (1..=4094).contains(&v) => Ok(Vlan(v)),
            _ => Err(NotAVlan(s.to_string())),
        }
    }
}

/// Text that is not a VLAN id (1-4094), as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a VLAN id (1-4094)")]
pub struct NotAVlan(pub String);

/// A UDP port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Port(pub u16);

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A length of cable, for the calibration's extra-cable term.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Meters(pub f64);

/// Propagation delay of a cable (the lab's DAC: 4.96 ns/m).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NanosPerMeter(pub f64);

impl std::ops::Mul<NanosPerMeter> for Meters {
    type Output = f64;
    fn mul(self, rhs: NanosPerMeter) -> f64 {
        self.0 * rhs.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_display_picks_a_readable_unit() {
        assert_eq!(Nanos(412).to_string(), "412 ns");
        assert_eq!(Nanos(4_100).to_string(), "4.100 us");
        assert_eq!(Nanos(-4_100).to_string(), "-4.100 us");
        assert_eq!(Nanos(200_000_000_000).to_string(), "200.000 s");
    }

    #[test]
    fn vlan_parses_only_valid_ids() {
        assert_eq!("10".parse::<Vlan>(), Ok(Vlan(10)));
        assert!("0".parse::<Vlan>().is_err());
        assert!("4095".parse::<Vlan>().is_err());
        assert_eq!(Vlan::from_tci(0xe00a), Vlan(10));
    }

    #[test]
    fn cable_term_is_length_times_delay() {
        assert!((Meters(5.0) * NanosPerMeter(4.96) - 24.8).abs() < 1e-9);
    }
}

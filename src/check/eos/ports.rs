//! The switch's trading ports as a baseline lists them, shared by the checks that judge ports
//! (errors, congestion, optics): `trading_ports: { Ethernet1: 10G, Ethernet4: 25G }`, each with
//! the speed it must run at.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer};

/// A link speed (`10G`, `25G`, `100G`, `1G`, `100M`), in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Speed(pub u64);

impl Speed {
    pub fn parse(text: &str) -> Result<Speed, String> {
        let bad = || format!("{text:?} is not a link speed (10G, 25G, 100G, 1G, 100M)");
        let (digits, unit) = text.split_at(text.len().saturating_sub(1));
        let n: u64 = digits.parse().map_err(|_| bad())?;
        let scale = match unit {
            "G" | "g" => 1_000_000_000,
            "M" | "m" => 1_000_000,
            _ => return Err(bad()),
        };
        n.checked_mul(scale)
            .filter(|s| *s > 0)
            .map(Speed)
            .ok_or_else(bad)
    }
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_multiple_of(1_000_000_000) {
            write!(f, "{}G", self.0 / 1_000_000_000)
        } else {
            write!(f, "{}M", self.0 / 1_000_000)
        }
    }
}

impl<'de> Deserialize<'de> for Speed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Speed::parse(&text).map_err(de::Error::custom)
    }
}

/// `trading_ports`: port name -> speed, in name order.
pub type TradingPorts = BTreeMap<String, Speed>;

/// For a check's `validate`.
pub fn require(ports: &TradingPorts) -> Result<(), String> {
    if ports.is_empty() {
        Err("`expect.trading_ports` lists no port".into())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds() {
        assert_eq!(Speed::parse("10G"), Ok(Speed(10_000_000_000)));
        assert_eq!(Speed::parse("100M"), Ok(Speed(100_000_000)));
        assert_eq!(Speed(25_000_000_000).to_string(), "25G");
        for bad in ["", "G", "10", "10T", "-1G", "0G", "99999999999999G"] {
            assert!(Speed::parse(bad).is_err(), "{bad}");
        }
    }
}

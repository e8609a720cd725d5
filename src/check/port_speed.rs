//! A link speed as baselines write it (`10G`, `25G`, `100M`) and the per-port form both
//! platforms' trading-port checks read: `trading_port_speed: 10G`, or per port
//! `{ Ethernet1: 10G, Ethernet4: 25G }` (`{ x1: 10G, port1: 1G }` on a FortiGate).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer};

use crate::Invalid;

/// A link speed (`10G`, `25G`, `100G`, `1G`, `100M`), in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Speed(pub u64);

impl Speed {
    pub fn parse(text: &str) -> Result<Speed, NotASpeed> {
        let bad = || NotASpeed(text.to_string());
        // By its last character, not its last byte: `10G€` is no speed, not a panic.
        let mut chars = text.chars();
        let scale = match chars.next_back() {
            Some('G' | 'g') => 1_000_000_000,
            Some('M' | 'm') => 1_000_000,
            _ => return Err(bad()),
        };
        let n: u64 = chars.as_str().parse().map_err(|_| bad())?;
        n.checked_mul(scale)
            .filter(|s| *s > 0)
            .map(Speed)
            .ok_or_else(bad)
    }
}

/// A baseline speed that is not a number with a `G` or `M` unit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a link speed (10G, 25G, 100G, 1G, 100M)")]
pub struct NotASpeed(pub String);

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_multiple_of(1_000_000_000) {
            write!(f, "{}G", self.0 / 1_000_000_000)
        } else {
            write!(f, "{}M", self.0 / 1_000_000)
        }
    }
}

/// Written as text: `10G`.
impl schemars::JsonSchema for Speed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Speed".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "a link speed: a number and G or M (10G, 25G, 100G, 1G, 100M)"
        })
    }
}

impl<'de> Deserialize<'de> for Speed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Speed::parse(&text).map_err(de::Error::custom)
    }
}

/// `trading_port_speed`: one speed for every trading port, or one per port.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PortSpeeds {
    All(Speed),
    Each(BTreeMap<String, Speed>),
}

impl PortSpeeds {
    pub fn of(&self, port: &str) -> Option<Speed> {
        match self {
            PortSpeeds::All(s) => Some(*s),
            PortSpeeds::Each(map) => map.get(port).copied(),
        }
    }

    /// For a check's `validate`: every trading port has a speed.
    pub fn cover(&self, ports: &[String]) -> Result<(), Invalid> {
        match ports.iter().find(|p| self.of(p).is_none()) {
            Some(p) => Err(Invalid(format!(
                "`expect.trading_port_speed` gives no speed for trading port {p}"
            ))),
            None => Ok(()),
        }
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
        for bad in [
            "",
            "G",
            "10",
            "10T",
            "-1G",
            "0G",
            "99999999999999G",
            "10G€",
            "1€",
        ] {
            assert!(Speed::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn one_speed_or_one_per_port() {
        let all: PortSpeeds = serde_json::from_str("\"10G\"").unwrap();
        assert_eq!(all.of("Ethernet9"), Some(Speed(10_000_000_000)));
        let each: PortSpeeds = serde_json::from_str(r#"{"Ethernet1": "25G"}"#).unwrap();
        assert_eq!(each.of("Ethernet1"), Some(Speed(25_000_000_000)));
        assert!(
            each.cover(&["Ethernet1".into(), "Ethernet2".into()])
                .is_err()
        );
        assert!(serde_json::from_str::<PortSpeeds>("\"fast\"").is_err());
    }
}

//! A FortiOS session lifetime: a number of seconds, or `never` (`set session-ttl never`, which
//! the session list prints as `expire=never timeout=never`). In a fact's JSON it is the number
//! of seconds or the string `"never"`, so `premarket parse` output reads as the box printed it.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ttl {
    Seconds(u64),
    Never,
}

impl Ttl {
    /// The number of seconds; `None` for `never`.
    pub fn seconds(self) -> Option<u64> {
        match self {
            Ttl::Seconds(s) => Some(s),
            Ttl::Never => None,
        }
    }

    /// `never` or digits (within `u64`); anything else is `Err` with what was printed.
    pub fn parse(text: &str) -> Result<Ttl, NotATtl> {
        if text == "never" {
            return Ok(Ttl::Never);
        }
        super::kv::counter(text)
            .map(Ttl::Seconds)
            .map_err(|_| NotATtl(text.to_string()))
    }
}

/// A lifetime that is neither seconds nor `never`, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} is neither seconds nor `never`", premarket_parse::text::quote(.0))]
pub struct NotATtl(pub String);

impl fmt::Display for Ttl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ttl::Seconds(s) => write!(f, "{s}"),
            Ttl::Never => f.write_str("never"),
        }
    }
}

impl Serialize for Ttl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Ttl::Seconds(s) => serializer.serialize_u64(*s),
            Ttl::Never => serializer.serialize_str("never"),
        }
    }
}

impl<'de> Deserialize<'de> for Ttl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TtlVisitor;
        impl Visitor<'_> for TtlVisitor {
            type Value = Ttl;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of seconds or \"never\"")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Ttl, E> {
                Ok(Ttl::Seconds(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Ttl, E> {
                match v {
                    "never" => Ok(Ttl::Never),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        deserializer.deserialize_any(TtlVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_seconds_or_never() {
        for (ttl, json) in [(Ttl::Seconds(178), "178"), (Ttl::Never, "\"never\"")] {
            assert_eq!(serde_json::to_string(&ttl).unwrap(), json);
            assert_eq!(serde_json::from_str::<Ttl>(json).unwrap(), ttl);
        }
        assert!(serde_json::from_str::<Ttl>("\"forever\"").is_err());
        assert!(serde_json::from_str::<Ttl>("-1").is_err());
        assert_eq!(Ttl::parse("never"), Ok(Ttl::Never));
        assert_eq!(Ttl::parse("3600"), Ok(Ttl::Seconds(3600)));
        for bad in ["-1", "Never", "", "1e3", "99999999999999999999"] {
            assert!(Ttl::parse(bad).is_err(), "{bad}");
        }
    }
}

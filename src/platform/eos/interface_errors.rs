//! `show interfaces counters errors | json`: the per-port error counters (what ANTA's
//! `VerifyInterfaceErrors` reads), all cumulative since boot or `clear counters`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::required;
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceErrors {
    /// Keyed by interface name.
    pub interfaces: BTreeMap<String, ErrorCounters>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCounters {
    pub fcs_errors: u64,
    pub alignment_errors: u64,
    pub symbol_errors: u64,
    pub in_errors: u64,
    pub out_errors: u64,
    pub frame_too_longs: u64,
    pub frame_too_shorts: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    interface_error_counters: BTreeMap<String, JsonCounters>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonCounters {
    fcs_errors: u64,
    alignment_errors: u64,
    symbol_errors: u64,
    in_errors: u64,
    out_errors: u64,
    frame_too_longs: u64,
    frame_too_shorts: u64,
}

/// `show interfaces counters errors | json`.
pub struct ShowInterfaceErrors;

impl Query for ShowInterfaceErrors {
    const KIND: &'static str = "eos.show-interfaces-counters-errors";
    type Fact = InterfaceErrors;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<InterfaceErrors, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowInterfaceErrors {
    pub const TEXT: &'static str = "show interfaces counters errors | json";
}

pub fn parse(raw: &str) -> Result<InterfaceErrors, ParseError> {
    let json: Json = required(raw, "show interfaces counters errors")?;
    if json.interface_error_counters.is_empty() {
        return Err(ParseError::new("the error counters list no interface", raw));
    }
    let interfaces = json
        .interface_error_counters
        .into_iter()
        .map(|(name, c)| {
            (
                name,
                ErrorCounters {
                    fcs_errors: c.fcs_errors,
                    alignment_errors: c.alignment_errors,
                    symbol_errors: c.symbol_errors,
                    in_errors: c.in_errors,
                    out_errors: c.out_errors,
                    frame_too_longs: c.frame_too_longs,
                    frame_too_shorts: c.frame_too_shorts,
                },
            )
        })
        .collect();
    Ok(InterfaceErrors { interfaces })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = "{\n    \"interfaceErrorCounters\": {\n        \"Ethernet1\": {\n            \"inErrors\": 42,\n            \"frameTooLongs\": 0,\n            \"outErrors\": 10,\n            \"frameTooShorts\": 0,\n            \"fcsErrors\": 0,\n            \"alignmentErrors\": 0,\n            \"symbolErrors\": 0\n        }\n    }\n}\n";

    #[test]
    fn counters_and_damage() {
        let e = parse(OK).unwrap();
        assert_eq!(
            (
                e.interfaces["Ethernet1"].in_errors,
                e.interfaces["Ethernet1"].out_errors
            ),
            (42, 10)
        );
        for (from, to) in [
            ("\"inErrors\": 42", "\"inErrors\": -42"),
            ("\"inErrors\": 42,", ""),
            ("\"outErrors\": 10", "\"outErrors\": 10, \"outErrors\": 11"),
        ] {
            assert!(parse(&OK.replacen(from, to, 1)).is_err(), "{to}");
        }
        assert!(parse("{\"interfaceErrorCounters\": {}}").is_err());
        assert!(parse("{\"interfaces\": {}}").is_err());
    }
}

//! `show mlag config-sanity | json`: the settings that differ between the two MLAG peers, which
//! `eos.mlag.healthy` names when `show mlag` says `configSanity: inconsistent`.
//!
//! Shapes read: the JSON (ANTA's data, trimmed to its keys): `mlagActive`, `mlagConnected`,
//! `globalConfiguration.<feature>.globalParameters.<param>.{localValue, peerValue}`
//! (`mlagActive` required, the rest optional),
//! `interfaceConfiguration."<param> mlagNN".interface.<port>.{localValue, peerValue}`, empty
//! objects when consistent; and the text of a consistent pair (`No global configuration
//! inconsistencies found.`) or of a switch without MLAG (`Command not applicable for inactive
//! MLAG state.`). A text listing inconsistencies is not public: it is an ERROR with its excerpt.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::json::json;
use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MlagSanity {
    /// `false`: MLAG is not active, nothing is compared.
    pub active: bool,
    pub inconsistencies: Vec<Inconsistency>,
}

/// One setting whose value differs between the peers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inconsistency {
    /// `global lacp`, or the interface (`Port-Channel30`).
    pub scope: String,
    pub parameter: String,
    pub local: String,
    pub peer: String,
}

/// `show mlag config-sanity | json`.
pub struct ShowMlagConfigSanity;

impl ShowMlagConfigSanity {
    pub const TEXT: &'static str = "show mlag config-sanity | json";
}

impl Query for ShowMlagConfigSanity {
    const KIND: &'static str = "eos.show-mlag-config-sanity";
    type Fact = MlagSanity;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<MlagSanity, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    /// Present in every reply (ANTA's data, the lab's): what tells this document from others.
    mlag_active: bool,
    #[serde(default)]
    global_configuration: BTreeMap<String, JsonFeature>,
    #[serde(default)]
    interface_configuration: BTreeMap<String, JsonInterfaces>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonFeature {
    #[serde(default)]
    global_parameters: BTreeMap<String, Values>,
}

#[derive(Deserialize)]
struct JsonInterfaces {
    #[serde(default)]
    interface: BTreeMap<String, Values>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Values {
    #[serde(default)]
    local_value: Value,
    #[serde(default)]
    peer_value: Value,
}

/// A value as the switch printed it (a string, a number, `null` as `-`).
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".to_string(),
        other => other.to_string(),
    }
}

pub fn parse(raw: &str) -> Result<MlagSanity, ParseError> {
    let Some(doc) = json::<Json>(raw, "show mlag config-sanity") else {
        return from_text(raw);
    };
    let j = doc?;
    let mut inconsistencies = Vec::new();
    for (feature, f) in j.global_configuration {
        for (parameter, v) in f.global_parameters {
            inconsistencies.push(Inconsistency {
                scope: format!("global {feature}"),
                parameter,
                local: shown(&v.local_value),
                peer: shown(&v.peer_value),
            });
        }
    }
    for (parameter, list) in j.interface_configuration {
        for (port, v) in list.interface {
            inconsistencies.push(Inconsistency {
                scope: port,
                parameter: parameter.clone(),
                local: shown(&v.local_value),
                peer: shown(&v.peer_value),
            });
        }
    }
    Ok(MlagSanity {
        active: j.mlag_active,
        inconsistencies,
    })
}

fn from_text(raw: &str) -> Result<MlagSanity, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let known = |l: &&str| {
        let l = l.trim();
        l.is_empty()
            || l == "No global configuration inconsistencies found."
            || l == "No per interface configuration inconsistencies found."
            || l == "Command not applicable for inactive MLAG state."
    };
    if let Some((i, other)) = lines.iter().enumerate().find(|(_, l)| !known(l)) {
        return Err(ParseError::at_line(
            format!(
                "a config-sanity line premarket does not read (only the JSON lists \
                 inconsistencies): {}",
                quote(other)
            ),
            &lines.join("\n"),
            i,
        ));
    }
    if lines.is_empty() {
        return Err(ParseError::new(
            "`show mlag config-sanity` printed nothing",
            raw,
        ));
    }
    let inactive = lines
        .iter()
        .any(|l| l.trim().starts_with("Command not applicable"));
    Ok(MlagSanity {
        active: !inactive,
        inconsistencies: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_each_difference() {
        let raw = r#"{"globalConfiguration": {"lacp": {"globalParameters": {"system-priority": {"localValue": 100, "peerValue": 200}}}},
            "interfaceConfiguration": {"trunk-native-vlan mlag30": {"interface": {"Port-Channel30": {"localValue": "123", "peerValue": "3700"}}}},
            "mlagActive": true, "mlagConnected": true}"#;
        let s = parse(raw).unwrap();
        assert_eq!(s.inconsistencies.len(), 2);
        assert_eq!(s.inconsistencies[0].scope, "global lacp");
        assert_eq!(s.inconsistencies[0].local, "100");
        assert_eq!(s.inconsistencies[1].scope, "Port-Channel30");
        assert_eq!(s.inconsistencies[1].peer, "3700");
        let clean = r#"{"globalConfiguration": {}, "interfaceConfiguration": {}, "mlagActive": true, "mlagConnected": true}"#;
        assert!(parse(clean).unwrap().inconsistencies.is_empty());
        assert!(parse(r#"{"mlagActive": "yes"}"#).is_err());
        assert!(parse(r#"{"globalConfiguration": {}}"#).is_err());
    }

    #[test]
    fn the_text_of_a_consistent_pair_and_of_no_mlag() {
        let ok = "No global configuration inconsistencies found.\n\nNo per interface configuration inconsistencies found.\n";
        assert!(parse(ok).unwrap().active);
        let none = "Command not applicable for inactive MLAG state.\n";
        assert!(!parse(none).unwrap().active);
        for bad in [
            "Global configuration inconsistencies:\n  lacp system-priority 100 200\n",
            "",
            "% Invalid input",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}

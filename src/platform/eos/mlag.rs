//! `show mlag | json`: whether MLAG is configured and, where it is, its state, the peer link,
//! the negotiation with the peer, config-sanity and the MLAG ports (`eos.mlag.healthy`).
//!
//! Shapes read: the JSON (vEOS 4.23 and switch captures; `show mlag detail` adds a `detail`
//! object, its `mlagState` read): `state` (`active`, `inactive`, `disabled`; a switch without
//! MLAG prints `disabled` and few other keys), `negStatus`, `peerLinkStatus`, `localIntfStatus`,
//! `configSanity`, `mlagPorts.{Disabled, Configured, Inactive, Active-partial, Active-full}`;
//! and the text (`state : Inactive`, `negotiation status : Connecting`, capitalised), whose
//! words are read in the JSON's case.

use serde::{Deserialize, Serialize};

use super::json::json;
use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mlag {
    /// `active`, `inactive`, `disabled`.
    pub state: String,
    pub neg_status: Option<String>,
    pub peer_link_status: Option<String>,
    pub local_intf_status: Option<String>,
    /// `consistent`, `inconsistent`.
    pub config_sanity: Option<String>,
    pub domain_id: Option<String>,
    pub peer_link: Option<String>,
    pub peer_address: Option<String>,
    /// `primary`, `secondary` (`show mlag detail`).
    pub role: Option<String>,
    pub ports: MlagPorts,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MlagPorts {
    pub configured: Option<u64>,
    pub inactive: Option<u64>,
    pub active_partial: Option<u64>,
    pub active_full: Option<u64>,
}

impl Mlag {
    pub fn configured(&self) -> bool {
        self.state != "disabled"
    }
}

/// `show mlag | json`.
pub struct ShowMlag;

impl ShowMlag {
    pub const TEXT: &'static str = "show mlag | json";
}

impl Query for ShowMlag {
    const KIND: &'static str = "eos.show-mlag";
    type Fact = Mlag;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Mlag, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    state: String,
    #[serde(default)]
    neg_status: Option<String>,
    #[serde(default)]
    peer_link_status: Option<String>,
    #[serde(default)]
    local_intf_status: Option<String>,
    #[serde(default)]
    config_sanity: Option<String>,
    #[serde(default)]
    domain_id: Option<String>,
    #[serde(default)]
    peer_link: Option<String>,
    #[serde(default)]
    peer_address: Option<String>,
    #[serde(default)]
    detail: Option<JsonDetail>,
    #[serde(default)]
    mlag_ports: Option<JsonPorts>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonDetail {
    #[serde(default)]
    mlag_state: Option<String>,
}

#[derive(Deserialize)]
struct JsonPorts {
    #[serde(rename = "Configured", default)]
    configured: Option<u64>,
    #[serde(rename = "Inactive", default)]
    inactive: Option<u64>,
    #[serde(rename = "Active-partial", default)]
    active_partial: Option<u64>,
    #[serde(rename = "Active-full", default)]
    active_full: Option<u64>,
}

pub fn parse(raw: &str) -> Result<Mlag, ParseError> {
    let Some(doc) = json::<Json>(raw, "show mlag") else {
        return from_text(raw);
    };
    let j = doc?;
    let ports = j.mlag_ports.map_or_else(MlagPorts::default, |p| MlagPorts {
        configured: p.configured,
        inactive: p.inactive,
        active_partial: p.active_partial,
        active_full: p.active_full,
    });
    let blank = |v: Option<String>| v.filter(|s| !s.is_empty());
    Ok(Mlag {
        state: j.state,
        neg_status: j.neg_status,
        peer_link_status: j.peer_link_status,
        local_intf_status: j.local_intf_status,
        config_sanity: j.config_sanity,
        domain_id: blank(j.domain_id),
        peer_link: blank(j.peer_link),
        peer_address: blank(j.peer_address),
        role: j.detail.and_then(|d| d.mlag_state),
        ports,
    })
}

/// `Inactive` -> `inactive`, `Lowerlayerdown` -> `lowerLayerDown`: the JSON's words.
fn json_word(text: &str) -> String {
    match text.to_ascii_lowercase().as_str() {
        "lowerlayerdown" => "lowerLayerDown".to_string(),
        other => other.to_string(),
    }
}

fn from_text(raw: &str) -> Result<Mlag, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let all = lines.join("\n");
    let mut m = Mlag::default();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.ends_with(':') {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(ParseError::at_line(
                format!(
                    "not a `key : value` line of `show mlag`: {}",
                    quote(trimmed)
                ),
                &all,
                i,
            ));
        };
        let value = value.trim().to_string();
        let count = || {
            value
                .parse::<u64>()
                .map(Some)
                .map_err(|_| ParseError::at_line(format!("{value:?} is not a port count"), &all, i))
        };
        match key.trim() {
            "state" => m.state = json_word(&value),
            "negotiation status" => m.neg_status = Some(json_word(&value)),
            "peer-link status" => m.peer_link_status = Some(json_word(&value)),
            "local-int status" => m.local_intf_status = Some(json_word(&value)),
            "config-sanity" => m.config_sanity = Some(json_word(&value)),
            "domain-id" => m.domain_id = Some(value),
            "peer-link" => m.peer_link = Some(value),
            "peer-address" => m.peer_address = Some(value),
            "Configured" => m.ports.configured = count()?,
            "Inactive" => m.ports.inactive = count()?,
            "Active-partial" => m.ports.active_partial = count()?,
            "Active-full" => m.ports.active_full = count()?,
            _ => {}
        }
    }
    if !lines.iter().any(|l| l.trim() == "MLAG Status:") || m.state.is_empty() {
        return Err(ParseError::new(
            "`show mlag` prints no `MLAG Status:` block with a `state :` line",
            raw,
        ));
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_active_partial_and_disabled() {
        let partial = r#"{"localInterface": "Vlan4094", "domainId": "SVC_LEAF", "peerLink": "Port-Channel1000",
            "peerAddress": "172.168.10.2", "peerLinkStatus": "up", "localIntfStatus": "up", "configSanity": "inconsistent",
            "state": "active", "negStatus": "connected",
            "mlagPorts": {"Disabled": 0, "Active-partial": 4, "Inactive": 3, "Configured": 0, "Active-full": 0}}"#;
        let m = parse(partial).unwrap();
        assert!(m.configured());
        assert_eq!(
            (m.ports.inactive, m.ports.active_partial),
            (Some(3), Some(4))
        );
        assert_eq!(m.config_sanity.as_deref(), Some("inconsistent"));
        let disabled = r#"{"localInterface": "", "state": "disabled", "reloadDelay": 300, "peerLink": "",
            "mlagPorts": {"Disabled": 0, "Active-partial": 0, "Inactive": 0, "Configured": 0, "Active-full": 0}}"#;
        let m = parse(disabled).unwrap();
        assert!(!m.configured() && m.peer_link.is_none());
        let detail = r#"{"state": "active", "negStatus": "connected", "detail": {"mlagState": "secondary"}}"#;
        assert_eq!(parse(detail).unwrap().role.as_deref(), Some("secondary"));
        for bad in [
            partial.replace("\"state\": \"active\", ", ""),
            partial.replace("\"Inactive\": 3", "\"Inactive\": \"3\""),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_text_in_the_json_s_words() {
        let raw = "MLAG Configuration:\ndomain-id           :          mlagDomain\n\
            local-interface     :            Vlan4094\npeer-address        :            10.0.0.2\n\
            peer-link           :      Port-Channel10\n\nMLAG Status:\n\
            state               :            Inactive\nnegotiation status  :          Connecting\n\
            peer-link status    :      Lowerlayerdown\nlocal-int status    :                  Up\n\
            system-id           :   00:00:00:00:00:00\n\nMLAG Ports:\nDisabled            :                   0\n\
            Configured          :                   0\nInactive            :                   0\n\
            Active-partial      :                   0\nActive-full         :                   0\n";
        let m = parse(raw).unwrap();
        assert_eq!(
            (
                m.state.as_str(),
                m.neg_status.as_deref(),
                m.peer_link_status.as_deref()
            ),
            ("inactive", Some("connecting"), Some("lowerLayerDown"))
        );
        assert_eq!(m.ports.active_full, Some(0));
        for bad in [
            raw.replace(
                "Inactive            :                   0",
                "Inactive : none",
            ),
            raw.replace("state               :            Inactive\n", ""),
            "% Invalid input".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}

//! `show ptp | json`: PTP mode, the clock's lock to its grandmaster, and each port's state.
//!
//! Revision 1 (eAPI's default, goeapi fixture) puts `portState` directly under each interface;
//! revision 2 (what ANTA pins) nests it in a `ptpIntfVlanSummaries` list. Both read into the
//! same fact. Offsets are nanoseconds, sync times epoch seconds. A switch without PTP prints
//! `ptpMode: ptpDisabled` (or, per ANTA, no `ptpMode` at all: then `mode` is `None`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::{MAX_EPOCH_S, required};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ptp {
    /// `ptpBoundaryClock`, `ptpDisabled` ...; `None` when PTP is not configured at all.
    pub mode: Option<String>,
    /// `ptpClockSummary`; absent when PTP is disabled.
    pub clock: Option<PtpClock>,
    /// Per interface, one state per VLAN (revision 1 prints one, without a VLAN).
    pub ports: BTreeMap<String, Vec<PtpPortState>>,
    /// The JSON revision the output had (1 or 2; 0 when it printed no port to tell).
    pub revision: u8,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtpClock {
    /// This switch's clock identity, lower case (`0x00:1c:73:ff:ff:14:00:01`).
    pub clock_identity: String,
    /// The grandmaster it follows, lower case; equal to `clock_identity` when it runs free.
    pub gm_clock_identity: String,
    pub number_of_slave_ports: u32,
    pub slave_port: Option<String>,
    pub steps_removed: Option<u32>,
    pub offset_from_master_ns: Option<i64>,
    pub mean_path_delay_ns: Option<i64>,
    /// When the clock last synchronised, epoch seconds (the switch's PTP time).
    pub last_sync_time_s: Option<u64>,
    /// The switch's PTP time when it printed this, epoch seconds.
    pub current_ptp_system_time_s: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtpPortState {
    pub vlan_id: Option<u16>,
    /// `psMaster`, `psSlave`, `psPassive`, `psDisabled` ...
    pub port_state: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    #[serde(default)]
    ptp_mode: Option<String>,
    #[serde(default)]
    ptp_clock_summary: Option<JsonClock>,
    #[serde(default)]
    ptp_intf_summaries: Option<BTreeMap<String, JsonPort>>,
    /// Everything else: a document with none of the PTP keys is another command's.
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonClock {
    clock_identity: String,
    gm_clock_identity: String,
    number_of_slave_ports: u32,
    #[serde(default)]
    slave_port: Option<String>,
    #[serde(default)]
    steps_removed: Option<u32>,
    #[serde(default)]
    offset_from_master: Option<i64>,
    #[serde(default)]
    mean_path_delay: Option<i64>,
    #[serde(default)]
    last_sync_time: Option<u64>,
    #[serde(default)]
    current_ptp_system_time: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPort {
    /// Revision 1.
    #[serde(default)]
    port_state: Option<String>,
    /// Revision 2.
    #[serde(default)]
    ptp_intf_vlan_summaries: Option<Vec<JsonVlan>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonVlan {
    #[serde(default)]
    vlan_id: Option<u16>,
    port_state: String,
}

/// `show ptp | json revision 2`: the revision is pinned because which one a bare `| json`
/// prints over SSH is unknown (research §8); revision 1 still reads, should a switch ignore it.
pub struct ShowPtp;

impl Query for ShowPtp {
    const KIND: &'static str = "eos.show-ptp";
    /// Not on every family: [`super::family::PTP`].
    const AVAILABILITY: Option<premarket_parse::Availability> = Some(super::family::PTP);
    type Fact = Ptp;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Ptp, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowPtp {
    pub const TEXT: &'static str = "show ptp | json revision 2";
}

pub fn parse(raw: &str) -> Result<Ptp, ParseError> {
    let json: Json = required(raw, "show ptp")?;
    let error = |e: String| ParseError::new(e, raw);
    if json.ptp_mode.is_none()
        && (json.ptp_clock_summary.is_some()
            || json.ptp_intf_summaries.is_some()
            || !json.rest.is_empty())
    {
        return Err(error(
            "no `ptpMode` beside other keys: not show ptp output".into(),
        ));
    }
    let clock = json.ptp_clock_summary.map(|c| {
        for (key, t) in [
            ("lastSyncTime", c.last_sync_time),
            ("currentPtpSystemTime", c.current_ptp_system_time),
        ] {
            if t.is_some_and(|t| t as f64 > MAX_EPOCH_S) {
                return Err(error(format!(
                    "`{key}` {} is not a time a switch reports",
                    t.unwrap_or(0)
                )));
            }
        }
        Ok(PtpClock {
            clock_identity: c.clock_identity.to_lowercase(),
            gm_clock_identity: c.gm_clock_identity.to_lowercase(),
            number_of_slave_ports: c.number_of_slave_ports,
            slave_port: c.slave_port,
            steps_removed: c.steps_removed,
            offset_from_master_ns: c.offset_from_master,
            mean_path_delay_ns: c.mean_path_delay,
            last_sync_time_s: c.last_sync_time,
            current_ptp_system_time_s: c.current_ptp_system_time,
        })
    });
    let clock = clock.transpose()?;
    let mut ptp = Ptp {
        mode: json.ptp_mode,
        clock,
        ..Ptp::default()
    };
    let mut revisions = Vec::new();
    for (name, port) in json.ptp_intf_summaries.unwrap_or_default() {
        let states = match (port.port_state, port.ptp_intf_vlan_summaries) {
            (Some(state), None) => {
                revisions.push(1);
                vec![PtpPortState {
                    vlan_id: None,
                    port_state: state,
                }]
            }
            (None, Some(vlans)) => {
                revisions.push(2);
                vlans
                    .into_iter()
                    .map(|v| PtpPortState {
                        vlan_id: v.vlan_id,
                        port_state: v.port_state,
                    })
                    .collect()
            }
            _ => {
                return Err(error(format!(
                    "port {} has neither `portState` (revision 1) nor `ptpIntfVlanSummaries` (revision 2), or both",
                    quote(&name)
                )));
            }
        };
        ptp.ports.insert(name, states);
    }
    revisions.dedup();
    ptp.revision = match revisions.as_slice() {
        [] => 0,
        [r] => *r,
        _ => {
            return Err(error(
                "ports in both revision 1 and revision 2 shapes".into(),
            ));
        }
    };
    Ok(ptp)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REV2: &str = r#"{
    "ptpMode": "ptpBoundaryClock",
    "ptpProfile": "ptpDefaultProfile",
    "ptpClockSummary": {
        "clockIdentity": "0x00:1c:73:ff:ff:0a:00:01",
        "gmClockIdentity": "0xEC:46:70:FF:FE:00:FF:A8",
        "numberOfSlavePorts": 1,
        "numberOfMasterPorts": 1,
        "slavePort": "Ethernet1",
        "slaveVlanId": 0,
        "offsetFromMaster": -11,
        "meanPathDelay": 412,
        "stepsRemoved": 2,
        "skew": 1.0000015265007687,
        "lastSyncTime": 1708599749,
        "currentPtpSystemTime": 1708599750
    },
    "ptpIntfSummaries": {
        "Ethernet1": {
            "interface": "Ethernet1",
            "ptpIntfVlanSummaries": [
                {"vlanId": 0, "portState": "psSlave", "delayMechanism": "e2e", "transportMode": "ipv4"}
            ]
        }
    }
}"#;

    const REV1: &str = r#"{"jsonrpc": "2.0", "id": "1", "result": [{}, {"ptpMode": "ptpBoundaryClock",
        "ptpClockSummary": {"clockIdentity": "0x00:1c:73:ff:ff:0a:00:01", "gmClockIdentity": "0xec:46:70:ff:fe:00:ff:a8",
        "numberOfSlavePorts": 1, "slavePort": "Ethernet1", "offsetFromMaster": -11, "meanPathDelay": 412, "stepsRemoved": 2,
        "lastSyncTime": 1708599749, "currentPtpSystemTime": 1708599750},
        "ptpIntfSummaries": {"Ethernet1": {"portState": "psSlave", "delayMechanism": "e2e", "transportMode": "ipv4"}}}]}"#;

    #[test]
    fn both_revisions_read_alike() {
        let two = parse(REV2).unwrap();
        let one = parse(REV1).unwrap();
        assert_eq!((two.revision, one.revision), (2, 1));
        let c = two.clock.as_ref().unwrap();
        assert_eq!(c.gm_clock_identity, "0xec:46:70:ff:fe:00:ff:a8");
        assert_eq!(
            (c.offset_from_master_ns, c.last_sync_time_s),
            (Some(-11), Some(1_708_599_749))
        );
        assert_eq!(one.clock, two.clock);
        assert_eq!(two.ports["Ethernet1"][0].port_state, "psSlave");
        assert_eq!(one.ports["Ethernet1"][0].port_state, "psSlave");
        let disabled = parse("{\"ptpMode\": \"ptpDisabled\", \"ptpIntfSummaries\": {}}").unwrap();
        assert_eq!(
            (disabled.mode.as_deref(), disabled.clock.is_none()),
            (Some("ptpDisabled"), true)
        );
        assert_eq!(parse("{}").unwrap().mode, None);
    }

    #[test]
    fn damage_is_an_error() {
        for (from, to) in [
            ("\"offsetFromMaster\": -11", "\"offsetFromMaster\": -11.5"),
            ("\"lastSyncTime\": 1708599749", "\"lastSyncTime\": -5"),
            (
                "\"lastSyncTime\": 1708599749",
                "\"lastSyncTime\": 99999999999",
            ),
            ("\"numberOfSlavePorts\": 1,", ""),
            ("\"ptpMode\": \"ptpBoundaryClock\",", ""),
            (
                "\"stepsRemoved\": 2",
                "\"stepsRemoved\": 2, \"stepsRemoved\": 0",
            ),
            (
                "\"ptpIntfVlanSummaries\"",
                "\"portState\": \"psSlave\", \"ptpIntfVlanSummaries\"",
            ),
        ] {
            assert!(REV2.contains(from), "{from}");
            assert!(parse(&REV2.replacen(from, to, 1)).is_err(), "{to}");
        }
        for bad in [
            "{\"version\": \"4.32.2F\"}",
            "PTP Mode: Boundary Clock",
            "% Invalid input",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}

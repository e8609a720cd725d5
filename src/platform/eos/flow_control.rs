//! `show interfaces flow-control | json`: each port's IEEE 802.3x flow control, configured
//! (`txAdminState`, `rxAdminState`: `on`, `off`, `desired` = negotiated) and in effect
//! (`txOperState`, `rxOperState`: `on`, `off`, `unknown` while the link is down), with the
//! PAUSE frames counted (`eos.hardware.drops` judges it on trading ports: off by design, as a
//! paused port holds market data back).
//!
//! The one public reply is a vEOS 2014 capture of the older spelling `show interfaces
//! flowcontrol`, whose object newer EOS prints under `show interfaces flow-control`:
//! `interfaceFlowControls.<port>.{txAdminState, rxAdminState, txOperState, rxOperState, txPause,
//! rxPause}`; all six are read. The text table is not public, so only the JSON is read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::json::required;
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowControl {
    pub ports: BTreeMap<String, PortFlowControl>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortFlowControl {
    pub tx_admin_state: String,
    pub rx_admin_state: String,
    pub tx_oper_state: String,
    pub rx_oper_state: String,
    pub tx_pause: u64,
    pub rx_pause: u64,
}

impl PortFlowControl {
    /// Whether flow control is, or may become, in effect in a direction: on now, or configured
    /// on or to negotiate (`desired`) while its state is not known (the link is down).
    pub fn sends(&self) -> bool {
        on(&self.tx_oper_state, &self.tx_admin_state)
    }

    pub fn honours(&self) -> bool {
        on(&self.rx_oper_state, &self.rx_admin_state)
    }
}

fn on(oper: &str, admin: &str) -> bool {
    match oper {
        "on" => true,
        "off" => false,
        _ => admin != "off",
    }
}

/// `show interfaces flow-control | json`.
pub struct ShowFlowControl;

impl ShowFlowControl {
    pub const TEXT: &'static str = "show interfaces flow-control | json";
}

impl Query for ShowFlowControl {
    const KIND: &'static str = "eos.show-interfaces-flow-control";
    type Fact = FlowControl;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<FlowControl, ParseError> {
        parse(raw.text()?)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    interface_flow_controls: BTreeMap<String, JsonPort>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonPort {
    tx_admin_state: String,
    rx_admin_state: String,
    tx_oper_state: String,
    rx_oper_state: String,
    tx_pause: u64,
    rx_pause: u64,
}

pub fn parse(raw: &str) -> Result<FlowControl, ParseError> {
    let j: Json = required(raw, "show interfaces flow-control")?;
    let ports = j
        .interface_flow_controls
        .into_iter()
        .map(|(port, p)| {
            let fc = PortFlowControl {
                tx_admin_state: p.tx_admin_state,
                rx_admin_state: p.rx_admin_state,
                tx_oper_state: p.tx_oper_state,
                rx_oper_state: p.rx_oper_state,
                tx_pause: p.tx_pause,
                rx_pause: p.rx_pause,
            };
            (port, fc)
        })
        .collect();
    Ok(FlowControl { ports })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_pause_counters() {
        let raw = r#"{"interfaceFlowControls": {
            "Management1": {"txAdminState": "desired", "rxAdminState": "desired", "rxPause": 0, "txOperState": "off", "txPause": 0, "rxOperState": "on"},
            "Ethernet2": {"txAdminState": "off", "rxAdminState": "off", "rxPause": 0, "txOperState": "unknown", "txPause": 0, "rxOperState": "unknown"},
            "Ethernet3": {"txAdminState": "desired", "rxAdminState": "off", "rxPause": 5, "txOperState": "unknown", "txPause": 0, "rxOperState": "off"}}}"#;
        let f = parse(raw).unwrap();
        let m = &f.ports["Management1"];
        assert!(!m.sends() && m.honours());
        let e2 = &f.ports["Ethernet2"];
        assert!(!e2.sends() && !e2.honours());
        let e3 = &f.ports["Ethernet3"];
        assert!(e3.sends() && !e3.honours());
        assert_eq!(e3.rx_pause, 5);
        for bad in [
            raw.replace(
                "\"txPause\": 0, \"rxOperState\": \"unknown\"",
                "\"rxOperState\": \"unknown\"",
            ),
            raw.replace("interfaceFlowControls", "flowControls"),
            "Port  Send FlowControl  Receive FlowControl".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}

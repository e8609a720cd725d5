//! The facts that define a box, read from whatever this run collected: software version,
//! model and serial, HA mode and members, Ethernet link state and speed, PTP grandmaster, NTP
//! servers, LANZ state, interface count. The run archives them beside the other facts and
//! lists those that differ from the previous run's in "Changed since the previous run" (email
//! and JSON `changed_facts`; the comparison is the report's `changed` module), and
//! `premarket diff` compares two archived runs the same way.
//! They carry no verdict: a change is for on-call to read, the checks judge.
//!
//! A fact whose command was not planned (or failed) is absent, not "changed": a run that
//! could not read the PTP state says nothing about the grandmaster.

use std::collections::BTreeMap;

use premarket_core::Command;
use premarket_parse::{Facts, QueryKey};
use premarket_platform::eos::{
    ShowInterfaces, ShowLanzStatus, ShowNtpAssociations, ShowPtp, ShowVersion,
};
use premarket_platform::fortigate::{
    DiagNtpStatus, GetHaStatus, GetSystemInterface, GetSystemStatus,
};

/// Fact name -> value as on-call reads it, in name order.
pub type BoxFacts = BTreeMap<String, String>;

/// Where the archive files a device's box facts among its query facts: no device command
/// has this text (it has a space in front), so no query's key can collide with it.
pub fn key() -> QueryKey {
    QueryKey {
        command: Command::new(" box facts"),
        kind: "premarket.box-facts".into(),
    }
}

/// The box facts this run's `facts` hold.
pub fn read(facts: &Facts) -> BoxFacts {
    let mut out = BoxFacts::new();
    let mut put = |name: &str, value: String| {
        out.insert(name.to_string(), value);
    };
    if let Ok(v) = facts.get(&ShowVersion) {
        put("software version", v.version.clone());
        put("model", v.model.clone());
        put("serial", v.serial.clone());
    }
    if let Ok(s) = facts.get(&GetSystemStatus) {
        let build = s.build.map(|b| format!(" build {b}")).unwrap_or_default();
        put("software version", format!("{}{build}", s.version));
        put("model", s.model.clone());
        if let Some(serial) = &s.serial {
            put("serial", serial.clone());
        }
    }
    if let Ok(ha) = facts.get(&GetHaStatus) {
        put("HA mode", ha.mode.clone());
        let members: Vec<String> = ha
            .members
            .iter()
            .map(|m| match &m.role {
                Some(role) => format!("{} ({role})", m.serial),
                None => m.serial.clone(),
            })
            .collect();
        put("HA members", list(members));
    }
    if let Ok(i) = facts.get(&ShowInterfaces) {
        put("interface count", i.interfaces.len().to_string());
        for (name, port) in i
            .interfaces
            .iter()
            .filter(|(n, _)| n.starts_with("Ethernet"))
        {
            let speed = port
                .bandwidth_bps
                .map(|b| format!(", {}", speed(b)))
                .unwrap_or_default();
            put(
                &format!("{name} link"),
                format!("{}{speed}", port.line_protocol_status),
            );
        }
    }
    if let Ok(i) = facts.get(&GetSystemInterface) {
        put("interface count", i.interfaces.len().to_string());
    }
    if let Ok(ptp) = facts.get(&ShowPtp) {
        let gm = ptp
            .clock
            .as_ref()
            .map_or_else(|| "none".to_string(), |c| c.gm_clock_identity.clone());
        put("PTP grandmaster", gm);
    }
    if let Ok(ntp) = facts.get(&ShowNtpAssociations) {
        put("NTP servers", list(ntp.peers.keys().cloned().collect()));
    }
    if let Ok(ntp) = facts.get(&DiagNtpStatus) {
        let servers = ntp.servers.iter().map(|s| s.address.to_string()).collect();
        put("NTP servers", list(servers));
    }
    if let Ok(lanz) = facts.get(&ShowLanzStatus) {
        let state = if lanz.lanz_enabled { "on" } else { "off" };
        put("LANZ", state.to_string());
    }
    out
}

fn list(mut items: Vec<String>) -> String {
    items.sort();
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// `10G`, `100M`, `25G`.
fn speed(bps: u64) -> String {
    match bps {
        b if b >= 1_000_000_000 && b % 1_000_000_000 == 0 => format!("{}G", b / 1_000_000_000),
        b if b >= 1_000_000 => format!("{}M", b / 1_000_000),
        b => format!("{b} bps"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_read_as_on_call_says_them() {
        assert_eq!(speed(10_000_000_000), "10G");
        assert_eq!(speed(100_000_000), "100M");
        assert_eq!(list(vec!["b".into(), "a".into()]), "a, b");
        assert_eq!(list(Vec::new()), "none");
    }
}

//! The probe's session on the FortiGate, over SSH, for `premarket probe run --firewall`: before
//! a round the probe's own session is cleared when asked (only after the filter reads back as
//! exactly the probe's 5-tuple), and after it the session's `npu_state` and CPU packet counter
//! are read and held against the slow packets the probe measured.
//!
//! The commands and their reading are the platform's (`fortigate::firewall`); this module opens
//! the shell through the site's SSH settings and names what one round's cross-check gave.

use premarket_config::Config;
use premarket_core::CollectError;
use premarket_platform::fortigate::SessionFilter;
use premarket_platform::fortigate::firewall::{self, FirewallError, ProbeFlow, SessionCheck};
use premarket_platform::fortigate::firewall_shell::FirewallShell;
use premarket_probe::Analysis;
use premarket_probe::frame::FiveTuple;
use premarket_probe::rounds::Round;

use super::ssh::{firewall_shell, settings};

/// Why the firewall could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum FirewallCheckError {
    #[error("--firewall {device}: the site has no such device")]
    NoSuchDevice { device: String },
    #[error("--firewall {device}: {source}")]
    Connect {
        device: String,
        source: CollectError,
    },
    #[error("firewall {device} before round {index} ({label}): {source}")]
    Clear {
        device: String,
        index: usize,
        label: String,
        source: FirewallError,
    },
}

/// The firewall's view of one round: the cross-check, or why it could not be made.
pub struct Checked {
    pub device: String,
    pub result: Result<SessionCheck, FirewallError>,
}

impl Checked {
    pub fn json(&self) -> serde_json::Value {
        match &self.result {
            Ok(c) => serde_json::json!({"device": self.device, "session": c}),
            Err(e) => serde_json::json!({"device": self.device, "error": e.to_string()}),
        }
    }

    pub fn text(&self) -> String {
        match &self.result {
            Ok(c) => format!(
                "firewall {}: npu_state {} ({}), CPU packets {}, probe slow packets {}: {}",
                self.device,
                c.npu_state,
                if c.offloaded_original {
                    "offloaded"
                } else {
                    "not offloaded"
                },
                c.cpu_packets,
                c.slow_packets,
                if c.agrees { "agree" } else { "DISAGREE" }
            ),
            Err(e) => format!("firewall {}: cross-check failed: {e}", self.device),
        }
    }
}

/// The probe's session on the firewall, over SSH.
pub struct Firewall {
    device: String,
    shell: FirewallShell,
    flow: ProbeFlow,
    clear: bool,
}

/// The probe's 5-tuple as the FortiGate's session filter selects it.
fn probe_flow(flow: &FiveTuple) -> ProbeFlow {
    ProbeFlow {
        filter: SessionFilter {
            proto: flow.proto,
            src: Some(flow.src.into()),
            dst: Some(flow.dst.into()),
            dport: Some(flow.dport.0),
        },
        sport: flow.sport.0,
    }
}

impl Firewall {
    /// Connects to the site's device `device`, which must be a FortiGate.
    pub fn connect(
        config: &Config,
        device: &str,
        flow: FiveTuple,
        clear: bool,
    ) -> Result<Self, FirewallCheckError> {
        let found = config
            .device(device)
            .ok_or_else(|| FirewallCheckError::NoSuchDevice {
                device: device.to_string(),
            })?;
        let shell = firewall_shell(found, &settings(config)).map_err(|source| {
            FirewallCheckError::Connect {
                device: device.to_string(),
                source,
            }
        })?;
        Ok(Firewall {
            device: device.to_string(),
            shell,
            flow: probe_flow(&flow),
            clear,
        })
    }

    /// Clears the probe's own session before a round, when --clear-session asked for it.
    pub fn before_round(&mut self, round: &Round) -> Result<(), FirewallCheckError> {
        if !self.clear {
            return Ok(());
        }
        firewall::clear_session(&mut self.shell, &self.flow, true).map_err(|source| {
            FirewallCheckError::Clear {
                device: self.device.clone(),
                index: round.index,
                label: round.label.clone(),
                source,
            }
        })
    }

    pub fn after_round(&mut self, analysis: &Analysis) -> Checked {
        Checked {
            device: self.device.clone(),
            result: firewall::cross_check(&mut self.shell, &self.flow, analysis.slow.total),
        }
    }

    /// Ends the SSH session.
    pub fn close(self) {
        self.shell.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cross_check_is_reported_in_text_and_json() {
        let check = SessionCheck {
            npu_state: "0x4000001 no_offload".into(),
            offloaded_original: false,
            cpu_packets: 1000,
            slow_packets: 998,
            agrees: false,
        };
        let ok = Checked {
            device: "fw1".into(),
            result: Ok(check),
        };
        assert_eq!(
            ok.text(),
            "firewall fw1: npu_state 0x4000001 no_offload (not offloaded), CPU packets 1000, probe slow packets 998: DISAGREE"
        );
        let json = ok.json();
        assert_eq!(json["device"], "fw1");
        assert_eq!(json["session"]["npu_state"], "0x4000001 no_offload");
        assert_eq!(json["session"]["cpu_packets"], 1000);
        assert_eq!(json["session"]["agrees"], false);
        let failed = Checked {
            device: "fw1".into(),
            result: Err(FirewallError::Unreadable("no npu_state line".into())),
        };
        assert!(failed.text().contains("cross-check failed"));
        assert!(
            failed.json()["error"]
                .as_str()
                .is_some_and(|e| e.contains("no npu_state line"))
        );
    }
}

//! `fortigate.ports.errors`: the firewall's own trading ports, as `diagnose hardware deviceinfo
//! nic <port>` prints them (both layouts: NP-attached ports and kernel drivers).

use serde::Deserialize;

use crate::outcome::{combine, part_error};
use crate::port_speed::PortSpeeds;
use crate::previous::{Earlier, earlier};
use crate::{Check, Invalid};
use premarket_core::{Platform, Status, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::topology::Topology;
use premarket_platform::fortigate::{
    DiagNic, Nic, NicLayout, ShowSystemInterface, ShowVirtualSwitch,
};

/// Every physical port of each trading interface (a VLAN's parent, an aggregate's members, a
/// hardware switch's ports) is up, at the baseline's speed and full duplex, and since the
/// previous run none of its receive or transmit error or drop counters grew. The counters are
/// cumulative since boot and a real box carries old errors for months (a 7.0 box printed
/// `Rx errors: 102307`), so only growth is judged; the first run records; a counter that went
/// down (a reboot) is said, not judged. A port that prints no link state or no error or drop
/// counter cannot be judged (ERROR), never OK.
///
/// The ports are read by name, so they are known when the run is planned: `trading_ports`
/// (default: the trading interfaces themselves). A physical port a trading interface resolves
/// to that the list leaves out is an ERROR naming it, so a new aggregate member is not missed.
///
/// ```yaml
/// - id: fortigate.ports.errors
///   platform: fortigate
/// ```
/// Baseline: `expect.trading_interfaces: [x1, x2]`, `expect.trading_ports: [x1, x3, x2]`
/// (optional), `expect.trading_port_speed: 10G` (optional; or `{ x1: 10G, port1: 1G }`).
pub struct PortsErrors;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    trading_interfaces: Vec<String>,
    #[serde(default)]
    trading_ports: Option<Vec<String>>,
    #[serde(default)]
    trading_port_speed: Option<PortSpeeds>,
}

impl Input {
    fn ports(&self) -> &[String] {
        self.trading_ports
            .as_deref()
            .unwrap_or(&self.trading_interfaces)
    }
}

impl Check for PortsErrors {
    const ID: &'static str = "fortigate.ports.errors";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;
    const COMPARES: bool = true;

    fn validate(input: &Input) -> Result<(), Invalid> {
        if input.ports().is_empty() {
            return Err("`expect.trading_ports` (or `trading_interfaces`) lists no port".into());
        }
        match &input.trading_port_speed {
            Some(speeds) => speeds.cover(input.ports()),
            None => Ok(()),
        }
    }

    fn queries(input: &Input) -> Vec<Box<dyn AnyQuery>> {
        let mut out: Vec<Box<dyn AnyQuery>> =
            vec![Box::new(ShowSystemInterface), Box::new(ShowVirtualSwitch)];
        for port in input.ports() {
            out.push(Box::new(DiagNic(port.clone())));
        }
        out
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let shown = facts.get(&ShowSystemInterface).ok();
        let switches = facts
            .get(&ShowVirtualSwitch)
            .map_err(|e| format!("`show system virtual-switch`: {e}"));
        let topology = shown.map(|interfaces| Topology {
            interfaces,
            switches: switches.clone(),
        });
        let mut parts: Vec<Verdict> = topology
            .as_ref()
            .map(|t| coverage(input, t))
            .unwrap_or_default();
        let mut notes = Vec::new();
        for port in input.ports() {
            // A logical name has no NIC: say what it is instead of the firewall's parse error.
            if let Some(resolved) = topology.as_ref().and_then(|t| t.resolve(port).ok())
                && resolved.ports != [port.clone()]
            {
                parts.push(
                    Verdict::error(format!(
                        "{port}: not a physical port ({}): list its ports ({}) under `trading_ports`",
                        resolved.describe(),
                        resolved.ports.join(", ")
                    ))
                    .remedy(LIST_PORTS),
                );
                continue;
            }
            let query = DiagNic(port.clone());
            let (verdict, note) = match facts.get(&query) {
                Err(e) => (part_error(port, &e), None),
                Ok(nic) => judge(port, nic, input, earlier(facts, &query)),
            };
            notes.extend(note);
            parts.push(verdict);
        }
        let mut verdict = combine(
            parts,
            "trading ports",
            "every trading port up at its speed; no error or drop growth since the previous run",
        );
        if verdict.status == Status::Ok && !notes.is_empty() {
            verdict.summary = format!("{} ({})", verdict.summary, notes.join("; "));
        }
        Ok(verdict)
    }
}

const LIST_PORTS: &str = "List every physical port of the trading interfaces (a VLAN's parent, an aggregate's members) under `trading_ports` in the baseline.";

/// An ERROR part for each physical port of a trading interface that `trading_ports` leaves
/// out (so its counters are not read), and for an interface that cannot be resolved. A
/// trading interface listed among the ports itself is said once, by the port's own part.
fn coverage(input: &Input, topology: &Topology<'_>) -> Vec<Verdict> {
    let mut out = Vec::new();
    for name in &input.trading_interfaces {
        if input.ports().contains(name) {
            continue;
        }
        match topology.resolve(name) {
            Ok(resolved) => {
                let missing: Vec<&str> = resolved
                    .ports
                    .iter()
                    .filter(|p| !input.ports().contains(p))
                    .map(String::as_str)
                    .collect();
                if !missing.is_empty() {
                    out.push(
                        Verdict::error(format!(
                            "{name}: its port(s) {} are not in `trading_ports`, so their counters are not read",
                            missing.join(", ")
                        ))
                        .evidence(resolved.describe())
                        .remedy(LIST_PORTS),
                    );
                }
            }
            Err(e) => out.push(Verdict::error(format!(
                "{name}: its physical ports are unknown ({e})"
            ))),
        }
    }
    out
}

/// One port: link, speed, duplex and counter growth. The second value says the counters
/// were recorded or restarted rather than judged.
fn judge(port: &str, nic: &Nic, input: &Input, before: Earlier<Nic>) -> (Verdict, Option<String>) {
    let evidence = describe(port, nic);
    let Some(link_up) = nic.link_up else {
        return (
            Verdict::error(format!(
                "{port}: prints no link state: cannot tell whether it is up"
            ))
            .evidence(evidence),
            None,
        );
    };
    let mut problems = Vec::new();
    if nic.admin_up == Some(false) {
        problems.push("administratively down".to_string());
    }
    if !link_up {
        problems.push("link down".to_string());
    }
    if link_up {
        if let Some(want) = input.trading_port_speed.as_ref().and_then(|s| s.of(port)) {
            let want_mbps = want.0 / 1_000_000;
            match nic.speed_mbps {
                Some(mbps) if mbps == want_mbps => {}
                Some(mbps) => problems.push(format!("up at {mbps} Mbps, the baseline says {want}")),
                None => {
                    return (
                        Verdict::error(format!(
                            "{port}: prints no speed, the baseline says {want}"
                        ))
                        .evidence(evidence),
                        None,
                    );
                }
            }
        }
        if nic.duplex.as_deref() == Some("half") {
            problems.push("half duplex (a duplex mismatch with the peer drops frames)".into());
        }
    }
    if nic.counters.is_empty() {
        return (
            Verdict::error(format!(
                "{port}: prints no error or drop counter: cannot tell whether it counts errors"
            ))
            .evidence(evidence),
            None,
        );
    }
    let mut note = None;
    match before {
        Earlier::FirstRun => note = Some(format!("{port}: first run, counters recorded")),
        Earlier::Unreadable(why) => note = Some(format!("{port}: {why}")),
        Earlier::Run { fact, run_id, .. } => {
            let went_down = nic
                .counters
                .iter()
                .any(|(k, v)| fact.counters.get(k).is_some_and(|was| v < was))
                || [
                    (nic.rx_packets, fact.rx_packets),
                    (nic.tx_packets, fact.tx_packets),
                ]
                .iter()
                .any(|(now, was)| matches!((now, was), (Some(n), Some(w)) if n < w));
            if went_down {
                note = Some(format!(
                    "{port}: counters restarted since the previous run ({run_id}: reboot or clear)"
                ));
            } else {
                let grew: Vec<String> = nic
                    .counters
                    .iter()
                    .filter_map(|(k, v)| {
                        let was = fact.counters.get(k)?;
                        (v > was).then(|| format!("+{} {k}", v - was))
                    })
                    .collect();
                if !grew.is_empty() {
                    problems.push(format!(
                        "{} since the previous run ({run_id})",
                        grew.join(", ")
                    ));
                }
            }
        }
    }
    let verdict = if problems.is_empty() {
        let speed = nic
            .speed_mbps
            .map_or(String::new(), |m| format!(" at {m} Mbps"));
        Verdict::ok(format!("{port}: up{speed}, no error or drop growth"))
    } else {
        Verdict::fail(format!("{port}: {}", problems.join("; ")))
    };
    (
        verdict.evidence(evidence),
        note.filter(|_| problems.is_empty()),
    )
}

/// `x1 (Linux layout, ixgbe): link up, admin up, 10000 Mbps full; Rx errors=3 (the other
/// error and drop counters 0)`.
fn describe(port: &str, nic: &Nic) -> String {
    let onoff = |v: Option<bool>| match v {
        Some(true) => "up",
        Some(false) => "down",
        None => "-",
    };
    let counted: Vec<String> = nic
        .counters
        .iter()
        .filter(|(_, v)| **v > 0)
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let counters = if counted.is_empty() {
        format!("{} error and drop counters, all 0", nic.counters.len())
    } else {
        format!(
            "{} (the other error and drop counters 0)",
            counted.join(", ")
        )
    };
    format!(
        "{port} ({} layout, {}): link {}, admin {}, {} Mbps {}; {}",
        match nic.layout {
            NicLayout::Np => "NP",
            NicLayout::Linux => "Linux",
        },
        nic.driver.as_deref().unwrap_or("-"),
        onoff(nic.link_up),
        onoff(nic.admin_up),
        nic.speed_mbps.map_or("-".to_string(), |m| m.to_string()),
        nic.duplex.as_deref().unwrap_or("-"),
        counters
    )
}

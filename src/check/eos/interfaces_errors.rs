use super::ports::{PortKind, PortSpeeds, Speed, TradingPorts, require};
use super::since::{Before, Change, Counter, before, change};
use crate::outcome::combine;
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{
    Interface, InterfaceCounters, Interfaces, ShowInterfaces, ShowVersion,
};

/// On the baseline's trading ports: each is connected, up, at its speed, and since the previous
/// run no FCS, input or output error, no discard and no pause frame (received or sent: flow
/// control is a latency event) was counted and the link did not flap (`linkStatusChanges`). Counters are cumulative, so an old error is history, not a fault: only
/// growth is judged. The first run on a switch records the counters; a reboot or a clear
/// (a counter that went down, or a new `lastClear`) restarts them and is said, not judged.
///
/// A port-channel is judged on its totals (it prints no error details); a dot1q subinterface
/// (`Ethernet7.100`) has no counters of its own, so its physical port's are judged. Interfaces
/// that are not trading ports are never read, whatever they print.
///
/// ```yaml
/// - id: eos.interfaces.errors
///   platform: eos
/// ```
/// Baseline: `expect.trading_ports: [Ethernet1, ...]`, `expect.trading_port_speed: 10G` (or
/// `{ Ethernet1: 10G, Ethernet4: 25G }`).
pub struct InterfacesErrors;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    trading_ports: TradingPorts,
    trading_port_speed: PortSpeeds,
}

impl Check for InterfacesErrors {
    const ID: &'static str = "eos.interfaces.errors";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;
    const COMPARES: bool = true;

    fn validate(input: &Input) -> Result<(), Invalid> {
        require(&input.trading_ports)?;
        input.trading_port_speed.cover(&input.trading_ports)
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowInterfaces), Box::new(ShowVersion)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let now = facts.get(&ShowInterfaces)?;
        let previous = before(facts, &ShowInterfaces)?;
        let mut restarted = Vec::new();
        let parts = input
            .trading_ports
            .iter()
            .map(|name| {
                let Some(speed) = input.trading_port_speed.of(name) else {
                    return Verdict::error(format!("{name}: no speed in the baseline"));
                };
                let Some(port) = now.interfaces.get(name) else {
                    return Verdict::fail(format!("{name}: not on the switch (`show interfaces` does not list it)"))
                        .remedy("Fix `trading_ports` in the baseline to the switch's port names (`Ethernet1`, not `Et1`).");
                };
                // A subinterface counts nothing itself: its physical port does.
                let counted = match PortKind::of(name) {
                    PortKind::Subinterface { parent } if port.counters.is_none() => parent,
                    _ => name.as_str(),
                };
                let (verdict, note) = match now.interfaces.get(counted) {
                    Some(counters) => judge(name, port, (counted, counters), speed.0, &previous),
                    None => (
                        Verdict::error(format!(
                            "{name}: a subinterface without counters, and `show interfaces` does not list {counted}"
                        )),
                        None,
                    ),
                };
                restarted.extend(note.map(|n| format!("{name}: {n}")));
                verdict
            })
            .collect();
        let mut verdict = combine(
            parts,
            "trading ports",
            "trading ports connected at their speed; no error, discard or flap since the previous run",
        );
        match &previous {
            Before::FirstRun if verdict.status == premarket_core::Status::Ok => {
                verdict.summary.push_str(
                    " (first run on this switch: counters recorded, growth is judged from the next run)",
                );
            }
            Before::NotComparable(why) if verdict.status == premarket_core::Status::Ok => {
                verdict.summary = format!(
                    "{}; {why}: growth is judged again from the next run",
                    verdict.summary
                );
            }
            _ if verdict.status == premarket_core::Status::Ok && !restarted.is_empty() => {
                verdict.summary = format!(
                    "{}; {}: growth is judged again from the next run",
                    verdict.summary,
                    restarted.join("; ")
                );
            }
            _ => {}
        }
        Ok(verdict)
    }
}

/// Reads one counter of a port.
type Read = fn(&InterfaceCounters) -> Option<u64>;

fn counters(now: &InterfaceCounters, before: Option<&InterfaceCounters>) -> Vec<Counter> {
    let pick = |f: Read| (f(now), before.and_then(f));
    // Pause frames: flow control held the port's traffic back (a latency event on a trading
    // port); printed by Ethernet ports only, so a port without them is not judged on them.
    let rows: [(&'static str, Read); 8] = [
        ("FCS errors", |c| c.fcs_errors),
        ("input errors", |c| c.total_in_errors),
        ("output errors", |c| c.total_out_errors),
        ("input discards", |c| c.in_discards),
        ("output discards", |c| c.out_discards),
        ("link status changes", |c| c.link_status_changes),
        ("pause frames received", |c| c.rx_pause),
        ("pause frames sent", |c| c.tx_pause),
    ];
    rows.iter()
        .map(|(label, f)| {
            let (now, before) = pick(*f);
            Counter { label, now, before }
        })
        .collect()
}

fn line(name: &str, port: &Interface) -> String {
    let c = port.counters.clone().unwrap_or_default();
    let n = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    format!(
        "{name}: {}/{} {} fcsErrors={} totalInErrors={} totalOutErrors={} inDiscards={} outDiscards={} linkStatusChanges={} rxPause={} txPause={}",
        port.interface_status,
        port.line_protocol_status,
        port.bandwidth_bps
            .map_or("speed ?".to_string(), |b| Speed(b).to_string()),
        n(c.fcs_errors),
        n(c.total_in_errors),
        n(c.total_out_errors),
        n(c.in_discards),
        n(c.out_discards),
        n(c.link_status_changes),
        n(c.rx_pause),
        n(c.tx_pause),
    )
}

/// The port's verdict, and why its counters could not be compared when they could not. The
/// counters are `counted`'s: the port itself, or a subinterface's physical port.
fn judge(
    name: &str,
    port: &Interface,
    (counted, counting): (&str, &Interface),
    speed: u64,
    previous: &Before<Interfaces>,
) -> (Verdict, Option<String>) {
    let mut evidence = line(name, port);
    let via = if counted == name {
        String::new()
    } else {
        evidence.push('\n');
        evidence.push_str(&line(counted, counting));
        format!(" (counters of {counted})")
    };
    let mut problems = Vec::new();
    if port.interface_status != "connected" || port.line_protocol_status != "up" {
        problems.push(format!(
            "{}/{}, not connected/up",
            port.interface_status, port.line_protocol_status
        ));
    }
    if port.bandwidth_bps.is_some_and(|b| b != speed) {
        problems.push(format!(
            "runs at {}, the baseline says {}",
            Speed(port.bandwidth_bps.unwrap_or(0)),
            Speed(speed)
        ));
    }
    let Some(now) = counting.counters.as_ref() else {
        let error = Verdict::error(format!(
            "{name}: `show interfaces` prints no counters for it{via}"
        ));
        return (error.evidence(evidence), None);
    };
    let missing = now.missing();
    if !missing.is_empty() {
        let error = Verdict::error(format!(
            "{name}: `show interfaces` prints no {} for it{via} (cut or garbled output)",
            missing.join(", ")
        ));
        return (error.evidence(evidence), None);
    }
    let mut restarted = None;
    if let Before::Run { fact, run_id } = previous {
        let old = fact.interfaces.get(counted);
        evidence.push_str(&match old {
            Some(old) => format!("\n{} ({run_id})", line(counted, old)),
            None => format!("\n{counted}: not in the previous run ({run_id})"),
        });
        let old = old.and_then(|o| o.counters.as_ref());
        let cleared = old.is_some_and(|o| o.last_clear_s != now.last_clear_s);
        match change(&counters(now, old)) {
            _ if cleared => {
                restarted = Some("its counters were cleared since the previous run".to_string())
            }
            Change::Restarted(which) => {
                restarted = Some(format!(
                    "{} went down since the previous run: counters restarted (reboot or clear)",
                    which.join(", ")
                ))
            }
            Change::Grew(grown) => {
                for (label, by) in grown {
                    problems.push(format!("+{by} {label} since the previous run ({run_id})"));
                }
            }
        }
    }
    if problems.is_empty() {
        let ok = Verdict::ok(format!("{name}: connected at {}{via}", Speed(speed)));
        return (ok.evidence(evidence), restarted);
    }
    let flapped = problems.iter().any(|p| p.contains("link status changes"));
    let errors = problems.iter().any(|p| p.contains("errors"));
    let mut remedy = Vec::new();
    if errors {
        remedy.push(format!(
            "Errors on {name}: clean or replace the optic and the fibre patch (`premarket check eos.transceivers.light` shows its light levels), check the far end's port, then watch the counters (`show interfaces {name} counters errors`)."
        ));
    }
    if flapped {
        remedy.push(format!(
            "{name} flapped: find when and why (`show logging | include {name}`); a flapping trading link drops packets at each transition."
        ));
    }
    if problems.iter().any(|p| p.contains("pause frames")) {
        remedy.push(format!(
            "Pause frames on {name}: flow control stops the sender for the pause time, a latency event. Find who pauses (`show flow-control interface {name}`, the far end's buffers) and turn flow control off on trading ports as designed (`flowcontrol receive off`, `flowcontrol send off`)."
        ));
    }
    if remedy.is_empty() {
        remedy.push(format!(
            "Check {name}'s cabling and configuration (`show interfaces {name}`); bring it up at the baseline's speed before the open."
        ));
    }
    let fail = Verdict::fail(format!("{name}: {}{via}", problems.join("; ")));
    (fail.evidence(evidence).remedy(remedy.join("\n")), restarted)
}

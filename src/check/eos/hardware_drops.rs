//! `eos.hardware.drops`: the forwarding chips' adverse drop counters do not grow, and flow
//! control on the trading ports is as the baseline says, from `show hardware counter drop`
//! (Sand platforms) and `show interfaces flow-control`.

use serde::Deserialize;

use super::ports::{PortKind, TradingPorts, require};
use super::since::{Before, before};
use crate::outcome::{combine, part_error};
use crate::{Check, Invalid};
use premarket_core::{Platform, Status, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{
    DropCounter, FlowControl, HardwareDrops, ShowFlowControl, ShowHardwareDrops, ShowVersion,
};

/// Two things that lose or delay packets below every counter a port prints:
/// - **Adverse drops** in the forwarding chips (`show hardware counter drop`: parity errors,
///   bad descriptors, memory faults; routine `PacketProcessor` drops and congestion are not
///   judged here) grew since the reference run, or, on a first run, the switch counted one in
///   the last ten minutes. The counters are cumulative, compared within one boot (a reboot
///   restarts them: said, not judged). The command exists on Sand platforms only (7280R,
///   7500R, 7800R, 7020R): elsewhere this part is SKIP, saying so, and the check is judged on
///   flow control alone.
/// - **Flow control** on the trading ports (`show interfaces flow-control`): off by design on
///   a low-latency path (a PAUSE frame stops the sender), so a port where it is on, or
///   configured to negotiate, FAILs. A port-channel or subinterface is judged through its
///   physical ports, which the baseline lists where it wants them judged.
///
/// ```yaml
/// - id: eos.hardware.drops
///   platform: eos
/// ```
/// Baseline: `expect.trading_ports`, `expect.flow_control: off` (optional; `on` where the design
/// wants it on).
pub struct HardwareDropsCheck;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    trading_ports: TradingPorts,
    #[serde(default)]
    flow_control: Setting,
}

/// What flow control should be on the trading ports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Setting {
    #[default]
    Off,
    On,
}

impl Check for HardwareDropsCheck {
    const ID: &'static str = "eos.hardware.drops";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;
    const COMPARES: bool = true;

    fn validate(input: &Input) -> Result<(), Invalid> {
        require(&input.trading_ports)
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![
            Box::new(ShowHardwareDrops),
            Box::new(ShowFlowControl),
            Box::new(ShowVersion),
        ]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let drops = match facts.get(&ShowHardwareDrops) {
            Ok(now) => drops(now, before(facts, &ShowHardwareDrops)?),
            Err(e) => part_error("hardware drop counters", &e),
        };
        let flow = match facts.get(&ShowFlowControl) {
            Ok(fc) => flow_control(fc, input),
            Err(e) => part_error("flow control", &e),
        };
        // Both parts said (a first run's note included); a model without the drop counters is
        // judged on flow control alone, and says so.
        let said = |status| matches!(status, Status::Ok | Status::Skip);
        if flow.status == Status::Ok && said(drops.status) {
            let mut verdict = flow;
            verdict.summary = format!("{}; {}", drops.summary, verdict.summary);
            verdict.evidence = format!("{}\n{}", drops.evidence, verdict.evidence);
            return Ok(verdict);
        }
        Ok(combine(
            vec![drops, flow],
            "parts",
            "no adverse hardware drop since the reference run; flow control as the baseline says on the trading ports",
        ))
    }
}

fn id(c: &DropCounter) -> String {
    format!("{} on {}", c.name, c.chip)
}

fn drops(now: &HardwareDrops, previous: Before<HardwareDrops>) -> Verdict {
    let adverse: Vec<&DropCounter> = now.counters.iter().filter(|c| c.adverse()).collect();
    let evidence = adverse
        .iter()
        .map(|c| {
            format!(
                "{}: {} dropped, {} in the last ten minutes, last {}",
                id(c),
                c.drops,
                c.last_ten_minutes
                    .map_or("-".to_string(), |n| n.to_string()),
                c.last_event.as_deref().unwrap_or("-")
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let evidence = format!("totalAdverseDrops {}\n{evidence}", now.total_adverse);
    // Each counter that grew: (the counter, what it did).
    let recent = || -> Vec<(String, String)> {
        adverse
            .iter()
            .filter_map(|c| {
                c.last_ten_minutes
                    .filter(|n| *n > 0)
                    .map(|n| (id(c), format!("+{n} {} in the last ten minutes", id(c))))
            })
            .collect()
    };
    let (grown, note) = match &previous {
        Before::Run { fact, run_id } => {
            let mut grown = Vec::new();
            let mut restarted = false;
            for c in &adverse {
                let was = fact
                    .counters
                    .iter()
                    .find(|o| o.chip == c.chip && o.name == c.name)
                    .map_or(0, |o| o.drops);
                match c.drops.checked_sub(was) {
                    Some(0) => {}
                    Some(by) => grown.push((
                        id(c),
                        format!("+{by} {} since the previous run ({run_id})", id(c)),
                    )),
                    None => restarted = true,
                }
            }
            let note = restarted.then(|| "an adverse counter went down since the previous run: counters restarted, growth is judged again from the next run".to_string());
            (grown, note)
        }
        Before::FirstRun => (
            recent(),
            Some("first run on this switch: the counters are recorded, growth is judged from the next run".to_string()),
        ),
        Before::NotComparable(why) => (recent(), Some(format!("{why}: growth is judged again from the next run"))),
    };
    if !grown.is_empty() {
        let (about, said): (Vec<String>, Vec<String>) = grown.into_iter().unzip();
        return Verdict::fail(format!("hardware drop counters: {}", said.join("; ")))
            .about(about)
            .evidence(evidence)
            .remedy("Adverse drops are a hardware fault, not load: note the counter and chip, check `show logging` for the chip's errors and `show hardware counter drop rates`, and open a case with Arista (with `show tech-support`); move the trading hand-offs off the affected chip's ports if it keeps counting. Rerun `premarket check eos.hardware.drops`.");
    }
    let mut summary = format!(
        "hardware drop counters: no adverse drop ({} adverse in total since boot)",
        now.total_adverse
    );
    if let Some(note) = note {
        summary = format!("{summary}; {note}");
    }
    Verdict::ok(summary).evidence(evidence)
}

fn flow_control(fc: &FlowControl, input: &Input) -> Verdict {
    let want_on = input.flow_control == Setting::On;
    // Each port not as the baseline says: (the port, what is wrong).
    let mut wrong: Vec<(&str, String)> = Vec::new();
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    let mut judged = 0;
    for port in input.trading_ports.iter() {
        let Some(p) = fc.ports.get(port) else {
            if PortKind::of(port) == PortKind::Physical {
                errors.push(format!("{port}: not in `show interfaces flow-control`"));
            }
            continue;
        };
        judged += 1;
        lines.push(format!(
            "{port}: send {} ({}), receive {} ({}), txPause {} rxPause {}",
            p.tx_oper_state,
            p.tx_admin_state,
            p.rx_oper_state,
            p.rx_admin_state,
            p.tx_pause,
            p.rx_pause
        ));
        let (sends, honours) = (p.sends(), p.honours());
        if want_on && !(sends && honours) {
            wrong.push((
                port,
                format!(
                    "{port}: flow control not on (send {}, receive {})",
                    p.tx_oper_state, p.rx_oper_state
                ),
            ));
        }
        if !want_on && (sends || honours) {
            let which: Vec<&str> = [(sends, "send"), (honours, "receive")]
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, w)| *w)
                .collect();
            wrong.push((
                port,
                format!(
                    "{port}: flow control {} on (send {}/{}, receive {}/{}), the baseline says off",
                    which.join(" and "),
                    p.tx_oper_state,
                    p.tx_admin_state,
                    p.rx_oper_state,
                    p.rx_admin_state
                ),
            ));
        }
    }
    let evidence = lines.join("\n");
    if !wrong.is_empty() {
        let (ports, said): (Vec<&str>, Vec<String>) = wrong.into_iter().unzip();
        return Verdict::fail(format!("flow control: {}", said.join("; ")))
            .about(ports)
            .evidence(evidence)
            .remedy(if want_on {
                "Turn flow control on as designed (`flowcontrol send on`, `flowcontrol receive on`) on the named ports. Rerun `premarket check eos.hardware.drops`."
            } else {
                "On each named port: `flowcontrol send off` and `flowcontrol receive off` (a PAUSE frame stops the sender: a latency event on a trading port; `eos.interfaces.errors` counts the pause frames). Rerun `premarket check eos.hardware.drops`."
            });
    }
    if !errors.is_empty() {
        return Verdict::error(format!("flow control: {}", errors.join("; "))).evidence(evidence);
    }
    let state = if want_on { "on" } else { "off" };
    Verdict::ok(format!("flow control {state} on {judged} trading port(s)")).evidence(evidence)
}

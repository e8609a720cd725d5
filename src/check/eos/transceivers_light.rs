use super::ports::{TradingPorts, require};
use crate::Check;
use crate::outcome::combine;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{OpticalPower, ShowTransceiverDom};

/// The optics of the trading ports receive and transmit inside their warning thresholds (the
/// module's own, from `show interfaces transceiver dom thresholds`). Light between the low
/// warning and the low alarm still passes frames, with CRC errors on the way: a dirty
/// connector or a failing optic to replace before the open, not after. About -30 dBm and
/// below is no light at all.
///
/// ```yaml
/// - id: eos.transceivers.light
///   platform: eos
/// ```
/// Baseline: `expect.trading_ports`.
pub struct TransceiversLight;

/// `expect:` keys read.
#[derive(serde::Deserialize)]
pub struct Input {
    trading_ports: TradingPorts,
}

/// At or below this there is no light (readings of -30.0, -30.08, -40.31 dBm are seen).
const NO_LIGHT_DBM: f64 = -29.9;

impl Check for TransceiversLight {
    const ID: &'static str = "eos.transceivers.light";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), String> {
        require(&input.trading_ports)
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowTransceiverDom)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let dom = facts.get(&ShowTransceiverDom)?;
        let parts = input
            .trading_ports
            .iter()
            .map(|name| {
                let Some(optic) = dom.interfaces.get(name) else {
                    return Verdict::error(format!(
                        "{name}: no DOM reading (not in the output: a DAC cable, an empty cage or a wrong port name)"
                    ));
                };
                let (Some(rx), Some(tx)) = (&optic.rx_power, &optic.tx_power) else {
                    return Verdict::error(format!(
                        "{name}: the module reports no receive/transmit power (a DAC or a module without DOM): cannot judge its light"
                    ));
                };
                let media = optic.media_type.as_deref().unwrap_or("optic");
                let mut problems = Vec::new();
                let mut unknown = Vec::new();
                for (what, power) in [("receive", rx), ("transmit", tx)] {
                    judge(what, power, &mut problems, &mut unknown);
                }
                let evidence = format!(
                    "{name} {media} (SN {}): rx {} / tx {}",
                    optic.vendor_sn.as_deref().unwrap_or("?"),
                    describe(rx),
                    describe(tx)
                );
                if !problems.is_empty() {
                    Verdict::fail(format!("{name}: {}", problems.join("; ")))
                        .evidence(evidence)
                        .remedy(format!(
                            "Before the open: clean both ends of {name}'s fibre and the optic, reseat or replace the {media} module (and check the far end's transmit power); errors follow low light (`premarket check eos.interfaces.errors`)."
                        ))
                } else if !unknown.is_empty() {
                    Verdict::error(format!("{name}: {}", unknown.join("; "))).evidence(evidence)
                } else {
                    Verdict::ok(format!(
                        "{name}: rx {:.1} dBm, tx {:.1} dBm inside the warning thresholds",
                        lowest(rx),
                        lowest(tx)
                    ))
                    .evidence(evidence)
                }
            })
            .collect();
        Ok(combine(
            parts,
            "trading ports",
            "receive and transmit power of every lane inside the module's warning thresholds",
        ))
    }
}

fn lowest(p: &OpticalPower) -> f64 {
    p.lanes_dbm.values().copied().fold(f64::INFINITY, f64::min)
}

fn judge(what: &str, p: &OpticalPower, problems: &mut Vec<String>, unknown: &mut Vec<String>) {
    let low = p.low_warn_dbm.or(p.low_alarm_dbm);
    let high = p.high_warn_dbm.or(p.high_alarm_dbm);
    if low.is_none() {
        unknown.push(format!("no low threshold for {what} power"));
    }
    for (lane, dbm) in &p.lanes_dbm {
        let lane = if p.lanes_dbm.len() > 1 {
            format!(" lane {lane}")
        } else {
            String::new()
        };
        if *dbm <= NO_LIGHT_DBM {
            problems.push(format!("no {what} light{lane} ({dbm} dBm)"));
        } else if let Some(l) = low
            && *dbm < l
        {
            let alarm = match p.low_alarm_dbm {
                Some(a) if *dbm < a => format!(", below the low alarm {a} dBm too"),
                Some(a) => format!(" (alarm at {a} dBm)"),
                None => String::new(),
            };
            problems.push(format!(
                "{what} power{lane} {dbm} dBm, below its low warning {l} dBm{alarm}"
            ));
        } else if let Some(h) = high
            && *dbm > h
        {
            problems.push(format!(
                "{what} power{lane} {dbm} dBm, above its high warning {h} dBm"
            ));
        }
    }
}

fn describe(p: &OpticalPower) -> String {
    let lanes: Vec<String> = p.lanes_dbm.values().map(|v| format!("{v} dBm")).collect();
    let t = |v: Option<f64>| v.map_or("-".to_string(), |v| v.to_string());
    format!(
        "{} (alarm {} / warn {} .. warn {} / alarm {})",
        lanes.join(", "),
        t(p.low_alarm_dbm),
        t(p.low_warn_dbm),
        t(p.high_warn_dbm),
        t(p.high_alarm_dbm)
    )
}

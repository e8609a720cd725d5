use super::ports::{PortKind, TradingPorts, require};
use crate::outcome::combine;
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{OpticalPower, ShowTransceiverDom, Transceiver, Transceivers};

/// The optics of the trading ports receive and transmit inside their warning thresholds (the
/// module's own, from `show interfaces transceiver dom thresholds`). Light between the low
/// warning and the low alarm still passes frames, with CRC errors on the way: a dirty
/// connector or a failing optic to replace before the open, not after. About -30 dBm and
/// below is no light at all.
///
/// Not every trading port has an optic with DOM: a DAC cable or a passive module prints only
/// its `displayName`, so that port is SKIP ("no DOM"), unless the baseline requires DOM on it
/// (`require_dom`), where it FAILs. A module that reports receive power only, or no
/// thresholds, is judged on what it reports (no light at all, at least) and says what it does
/// not report. A port-channel has no optic of its own (its members are judged where listed);
/// a subinterface is judged by its physical port's optic.
///
/// ```yaml
/// - id: eos.transceivers.light
///   platform: eos
/// ```
/// Baseline: `expect.trading_ports`; optionally `expect.require_dom: [Ethernet1, ...]`.
pub struct TransceiversLight;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    trading_ports: TradingPorts,
    /// Ports where the site wants an optic with DOM (not a DAC): no DOM there FAILs.
    #[serde(default)]
    require_dom: Vec<String>,
}

/// At or below this there is no light (readings of -30.0, -30.08, -40.31 dBm are seen).
const NO_LIGHT_DBM: f64 = -29.9;

impl Check for TransceiversLight {
    const ID: &'static str = "eos.transceivers.light";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        require(&input.trading_ports)?;
        match input
            .require_dom
            .iter()
            .find(|p| !input.trading_ports.contains(p))
        {
            Some(p) => Err(Invalid(format!(
                "`expect.require_dom` names {p}, which is not in `expect.trading_ports`"
            ))),
            None => Ok(()),
        }
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowTransceiverDom)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let dom = facts.get(&ShowTransceiverDom)?;
        let parts = input
            .trading_ports
            .iter()
            .map(|name| port(input, dom, name))
            .collect();
        Ok(combine(
            parts,
            "trading ports",
            "receive and transmit power of every lane inside the module's warning thresholds",
        ))
    }
}

/// One trading port's verdict.
fn port(input: &Input, dom: &Transceivers, name: &str) -> Verdict {
    let (physical, via) = match PortKind::of(name) {
        PortKind::PortChannel => {
            return Verdict::skip(format!(
                "{name}: a port-channel has no optic of its own (list its member ports in `trading_ports` to judge theirs)"
            ));
        }
        PortKind::Subinterface { parent } => (parent, format!(" (the optic of {parent})")),
        PortKind::Physical => (name, String::new()),
    };
    let Some(optic) = dom.interfaces.get(physical) else {
        return Verdict::error(format!(
            "{name}: not in the DOM output{via} (an empty cage, or a wrong port name in the baseline)"
        ));
    };
    let required = input.require_dom.iter().any(|p| p == name);
    let (rx, tx) = (&optic.rx_power, &optic.tx_power);
    if rx.is_none() && tx.is_none() {
        let seen = format!(
            "{physical}: {} prints no DOM reading",
            optic.media_type.as_deref().unwrap_or("the module")
        );
        return if required {
            Verdict::fail(format!(
                "{name}: no DOM{via}: a DAC or a module without DOM where the baseline requires an optic with DOM (`require_dom`)"
            ))
            .evidence(seen)
            .remedy(format!(
                "Fit an optic with digital optical monitoring in {physical} as designed, or remove {name} from `require_dom` if a DAC is intended there."
            ))
        } else {
            Verdict::skip(format!("{name}: no DOM: DAC or passive module{via}")).evidence(seen)
        };
    }
    judged(name, physical, &via, optic)
}

/// The verdict on an optic that reports at least one power.
fn judged(name: &str, physical: &str, via: &str, optic: &Transceiver) -> Verdict {
    let media = optic.media_type.as_deref().unwrap_or("optic");
    let mut problems = Vec::new();
    let mut unreported = Vec::new();
    for (what, power) in [("receive", &optic.rx_power), ("transmit", &optic.tx_power)] {
        match power {
            Some(p) => judge(what, p, &mut problems, &mut unreported),
            None => unreported.push(format!("{what} power not reported")),
        }
    }
    let show = |p: &Option<OpticalPower>| p.as_ref().map_or("-".to_string(), describe);
    let evidence = format!(
        "{physical} {media} (SN {}): rx {} / tx {}",
        optic.vendor_sn.as_deref().unwrap_or("?"),
        show(&optic.rx_power),
        show(&optic.tx_power)
    );
    let note = if unreported.is_empty() {
        String::new()
    } else {
        format!(" ({})", unreported.join("; "))
    };
    if !problems.is_empty() {
        return Verdict::fail(format!("{name}: {}{via}", problems.join("; ")))
            .evidence(evidence)
            .remedy(format!(
                "Before the open: clean both ends of {physical}'s fibre and the optic, reseat or replace the {media} module (and check the far end's transmit power); errors follow low light (`premarket check eos.transceivers.light`)."
            ));
    }
    let levels: Vec<String> = [("rx", &optic.rx_power), ("tx", &optic.tx_power)]
        .iter()
        .filter_map(|(w, p)| p.as_ref().map(|p| format!("{w} {:.1} dBm", lowest(p))))
        .collect();
    Verdict::ok(format!(
        "{name}: {} inside the warning thresholds{via}{note}",
        levels.join(", ")
    ))
    .evidence(evidence)
}

fn lowest(p: &OpticalPower) -> f64 {
    p.lanes_dbm.values().copied().fold(f64::INFINITY, f64::min)
}

/// Judges one power; what the module does not report goes to `unreported` (no light is
/// judged without thresholds, a level against thresholds only where the module has them).
fn judge(what: &str, p: &OpticalPower, problems: &mut Vec<String>, unreported: &mut Vec<String>) {
    let low = p.low_warn_dbm.or(p.low_alarm_dbm);
    let high = p.high_warn_dbm.or(p.high_alarm_dbm);
    if low.is_none() {
        unreported.push(format!(
            "no {what} thresholds reported: only a total loss of light is judged"
        ));
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

use serde::Deserialize;

use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{ShowPtp, ShowPtpMasters};

use super::ptp_quality::PtpExpect;

/// The switch's PTP clock is locked to a good grandmaster: a boundary clock with a slave port
/// (the baseline's, if named), following one of the allowed grandmasters (not itself: a switch
/// that lost its upstream runs free as its own grandmaster), with the offset from master, the
/// mean path delay and the steps removed within the baseline's limits and a recent sync
/// (`currentPtpSystemTime - lastSyncTime`, both the switch's clock); and the grandmaster itself
/// good: its clock class allowed (a GM in holdover keeps its identity, only the class drops
/// from 6 to 7) and its accuracy within the limit (`show ptp masters`). Order and market-data
/// timestamps drift otherwise. When the switch follows an allowed grandmaster correctly and
/// only that grandmaster's time is bad (holdover, free-running, its accuracy), the result leads
/// with the grandmaster (`grandmaster 0xec:...:a8 in holdover (clock class 7)`) and its remedy
/// starts there: the switch is not the box to fix. Only the holdover classes read as holdover
/// ([`premarket_platform::eos::ptp_masters::class_state`]); a locked class (6, 13) never does.
/// Defaults and their sources: `super::ptp_quality`.
///
/// ```yaml
/// - id: eos.ptp.synchronised
///   platform: eos
/// ```
/// Baseline: `expect.ptp: { grandmasters: ["0xec:46:70:ff:fe:00:ff:a8", ...], slave_port:
/// Ethernet1, max_offset_ns: 1000, max_mean_path_delay_ns: 2000, max_steps_removed: 4,
/// max_sync_age_s: 60, allowed_clock_classes: [6], max_clock_accuracy: 0x27 }` (all but the
/// grandmasters optional; `grandmaster:` one identity, as before).
pub struct PtpSynchronised;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    ptp: PtpExpect,
}

const REMEDY: &str = "Check the PTP path to the grandmaster: the slave port's link and VLAN, `show ptp` and `show ptp masters` on the switch, and the grandmaster itself (GPS lock). Timestamps of orders and market data are wrong until the clock locks again; rerun `premarket check eos.ptp.synchronised`.";

impl Check for PtpSynchronised {
    const ID: &'static str = "eos.ptp.synchronised";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        input.ptp.validate()
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowPtp), Box::new(ShowPtpMasters)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let want = &input.ptp;
        let allowed = want.allowed();
        let gm = allowed.join(" or ");
        let ptp = facts.get(&ShowPtp)?;
        let expected = format!(
            "locked to {gm}, |offset| <= {} ns, mean path delay <= {} ns, last sync <= {} s ago, GM clock class in {:?}, accuracy <= 0x{:02X}",
            want.max_offset_ns,
            want.max_mean_path_delay_ns,
            want.max_sync_age_s,
            want.allowed_clock_classes,
            want.max_clock_accuracy
        );
        let mode = ptp.mode.as_deref().unwrap_or("not configured");
        let Some(clock) = ptp.clock.as_ref().filter(|_| mode != "ptpDisabled") else {
            return Ok(Verdict::fail(format!("PTP is not running (ptpMode {mode})"))
                .expected(expected)
                .actual(format!("ptpMode {mode}"))
                .remedy("Configure PTP on the switch as designed (`ptp mode boundary`, `ptp enable` on the trading ports), then rerun."));
        };
        // Both times are the switch's own clock: one that reads before its own last sync (it
        // reads 1970, or was stepped back) cannot say how long ago it synchronised.
        let (age, contradiction) = match (clock.current_ptp_system_time_s, clock.last_sync_time_s) {
            (Some(now), Some(last)) if now < last => (None, Some(contradicts(now, last))),
            (Some(now), Some(last)) => (Some(now - last), None),
            _ => (None, None),
        };
        let evidence = format!(
            "ptpMode {mode}; clockIdentity {}; gmClockIdentity {}; stepsRemoved {}; numberOfSlavePorts {}; slavePort {}; offsetFromMaster {} ns; meanPathDelay {} ns; lastSyncTime {} / currentPtpSystemTime {}",
            clock.clock_identity,
            clock.gm_clock_identity,
            opt(clock.steps_removed),
            clock.number_of_slave_ports,
            clock.slave_port.as_deref().unwrap_or("-"),
            opt(clock.offset_from_master_ns),
            opt(clock.mean_path_delay_ns),
            opt(clock.last_sync_time_s),
            opt(clock.current_ptp_system_time_s),
        );
        let mut problems = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        if clock.gm_clock_identity == clock.clock_identity {
            problems.push(format!(
                "the switch is its own grandmaster ({}): it lost the upstream grandmaster and runs free",
                clock.clock_identity
            ));
        } else if !allowed.contains(&clock.gm_clock_identity) {
            problems.push(format!(
                "follows grandmaster {}, the baseline allows {gm}",
                clock.gm_clock_identity
            ));
        }
        if clock.number_of_slave_ports == 0 {
            problems.push("no slave port: nothing receives time from upstream".to_string());
        } else if let Some(port) = &want.slave_port
            && clock.slave_port.as_deref() != Some(port.as_str())
        {
            problems.push(format!(
                "slave port is {}, the baseline says {port}",
                clock.slave_port.as_deref().unwrap_or("none")
            ));
        }
        match clock.offset_from_master_ns {
            Some(o) if o.unsigned_abs() > want.max_offset_ns => problems.push(format!(
                "offset from master {o} ns, beyond ±{} ns",
                want.max_offset_ns
            )),
            Some(_) => {}
            None => unknown.push("`show ptp` printed no offsetFromMaster".into()),
        }
        match age {
            Some(a) if a > want.max_sync_age_s => problems.push(format!(
                "last sync {a} s ago, more than {} s",
                want.max_sync_age_s
            )),
            Some(_) => {}
            None => unknown.push(contradiction.unwrap_or_else(|| {
                "`show ptp` printed no lastSyncTime/currentPtpSystemTime".into()
            })),
        }
        want.judge_path(clock.mean_path_delay_ns, clock.steps_removed, &mut problems);
        // The switch follows an allowed grandmaster through its slave port and heard from it
        // recently: whatever is wrong with that grandmaster's time is the grandmaster's fault.
        let follows = clock.gm_clock_identity != clock.clock_identity
            && allowed.contains(&clock.gm_clock_identity)
            && clock.number_of_slave_ports > 0
            && age.is_some_and(|a| a <= want.max_sync_age_s);
        let via = format!(
            "through {}, offset {} ns",
            clock.slave_port.as_deref().unwrap_or("its slave port"),
            opt(clock.offset_from_master_ns)
        );
        let mut gm_fault = None;
        let mut evidence = evidence;
        let class = match facts.get(&ShowPtpMasters) {
            Ok(masters) => {
                // Only when both outputs name the same grandmaster is the class its.
                let same_gm = masters
                    .gm_clock_identity
                    .as_ref()
                    .is_none_or(|g| *g == clock.gm_clock_identity);
                if follows && same_gm {
                    gm_fault = want.grandmaster_fault(&clock.gm_clock_identity, masters, &via);
                }
                want.judge_quality(masters, &mut problems);
                evidence.push_str(&format!(
                    "; show ptp masters: clockClass {}, clockAccuracy {}",
                    masters.clock_class,
                    masters
                        .clock_accuracy
                        .map_or("-".to_string(), |a| format!("0x{a:02X}"))
                ));
                masters.clock_class.to_string()
            }
            Err(e) => {
                unknown.push("no grandmaster clock class from `show ptp masters`".into());
                evidence.push_str(&format!("; {e}"));
                "?".to_string()
            }
        };
        let actual = format!(
            "gm {} class {class}, offset {} ns, mean path delay {} ns, last sync {} s ago",
            clock.gm_clock_identity,
            opt(clock.offset_from_master_ns),
            opt(clock.mean_path_delay_ns),
            opt(age)
        );
        let verdict = if problems.is_empty() && !unknown.is_empty() {
            Verdict::error(format!(
                "cannot tell whether PTP is synchronised: {}",
                unknown.join(" and ")
            ))
        } else if problems.is_empty() {
            Verdict::ok(format!(
                "locked to grandmaster {} (class {class}) via {}, offset {} ns, mean path delay {} ns, last sync {} s ago",
                clock.gm_clock_identity,
                clock.slave_port.as_deref().unwrap_or("its slave port"),
                opt(clock.offset_from_master_ns),
                opt(clock.mean_path_delay_ns),
                opt(age)
            ))
        } else if let Some(fault) = gm_fault {
            Verdict::fail(format!(
                "the grandmaster's time is not good: {}; the switch follows it ({via}, last sync {} s ago)",
                problems.join("; "),
                opt(age)
            ))
            .lead(fault.lead)
            .finding(fault.finding)
            .remedy(fault.remedy)
        } else {
            Verdict::fail(format!("PTP not synchronised: {}", problems.join("; "))).remedy(REMEDY)
        };
        Ok(verdict.expected(expected).actual(actual).evidence(evidence))
    }
}

/// `the switch's PTP clock reads 1970-01-01T00:00:05Z, 1796025155 s before its own last sync
/// (2026-11-30T...)`.
fn contradicts(now: u64, last: u64) -> String {
    let at = |s: u64| {
        i64::try_from(s)
            .ok()
            .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
            .map_or_else(
                || format!("{s} s"),
                |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            )
    };
    format!(
        "the switch's PTP clock reads {}, {} s before its own last sync ({}): a clock that contradicts itself cannot say when it last synchronised",
        at(now),
        last - now,
        at(last)
    )
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("?".to_string(), |v| v.to_string())
}

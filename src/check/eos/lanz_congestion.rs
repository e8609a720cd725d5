use super::drops::{self, Found};
use super::ports::{TradingPorts, require};
use super::since::{Before, Change, Counter, change};
use crate::reboot::utc;
use crate::{Check, Invalid};
use premarket_core::{Bytes, Grouped, Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{LanzRecord, LanzRecords, ShowLanzRecords, ShowVersion};

/// No queue on a trading port congested above the baseline's depth, and no queue drops on
/// them, since the previous run. LANZ records (`show queue-monitor length`) are a bounded
/// history with the switch's own timestamps: records newer than the previous run (its
/// collection time moved onto the switch's clock by the skew between the two clocks now) are
/// judged; the first run judges the last hour. Drops come from the counter the switch's family
/// has (`drops`: VOQ drops, egress queue drops or discards); they are cumulative, so their
/// growth since the previous run is judged, within one boot; the first run records them. A
/// family with neither LANZ nor a drop counter is SKIP, saying why.
///
/// ```yaml
/// - id: eos.lanz.congestion
///   platform: eos
/// ```
/// Baseline: `expect.lanz_queue_max_bytes: 100000`, `expect.trading_ports`.
pub struct LanzCongestion;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    lanz_queue_max_bytes: u64,
    trading_ports: TradingPorts,
}

/// The window the first run judges, before the switch's report time.
const FIRST_RUN_WINDOW_US: u64 = 3600 * 1_000_000;

/// How much earlier than the previous run's collection the window starts: the skew between
/// the clocks is measured against this run's collection time, which precedes the LANZ command
/// by the session's first commands. A record in that margin may be reported twice, never
/// missed.
const SKEW_MARGIN_US: i64 = 30 * 1_000_000;

impl Check for LanzCongestion {
    const ID: &'static str = "eos.lanz.congestion";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;
    const COMPARES: bool = true;

    fn validate(input: &Input) -> Result<(), Invalid> {
        require(&input.trading_ports)
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        let mut queries: Vec<Box<dyn AnyQuery>> = vec![Box::new(ShowLanzRecords)];
        queries.extend(drops::queries());
        queries.push(Box::new(ShowVersion));
        queries
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let lanz = match facts.get(&ShowLanzRecords) {
            Ok(lanz) => Some(lanz),
            Err(e) if e.not_available() => None,
            Err(e) => return Err(e),
        };
        let drops = drops::read(facts, &input.trading_ports)?;
        let Some(lanz) = lanz else {
            let no_lanz = facts.get(&ShowLanzRecords).err().map(|e| e.to_string());
            return Ok(match drops {
                Ok(found) => {
                    let mut verdict = judge(input, facts, &LanzRecords::default(), &found);
                    verdict.summary = format!(
                        "{}; LANZ not judged: {}",
                        verdict.summary,
                        no_lanz.unwrap_or_default()
                    );
                    verdict
                }
                Err(why) => {
                    let mut reasons: Vec<String> = no_lanz.into_iter().collect();
                    reasons.push(why.to_string());
                    Verdict::skip(reasons.join("; "))
                }
            });
        };
        Ok(match drops {
            Ok(found) => judge(input, facts, lanz, &found),
            Err(why) => {
                let mut verdict = judge(input, facts, lanz, &Found::nothing());
                verdict.summary = format!("{}; drops not judged: {why}", verdict.summary);
                verdict
            }
        })
    }
}

/// The verdict on the LANZ records and the drops found.
fn judge(input: &Input, facts: &Facts, lanz: &LanzRecords, drops: &Found) -> Verdict {
    let previous = &drops.before;
    let now_us = facts
        .collected_at()
        .and_then(|t| u64::try_from(t.timestamp_micros()).ok());
    // The switch's clock against premarket's, to place the previous run on the switch's.
    let skew_us: i64 = match (lanz.report_time_us, now_us) {
        (Some(report), Some(now)) => report as i64 - now as i64,
        _ => 0,
    };
    let report_us = lanz.report_time_us.or(now_us).unwrap_or(0);
    let previous_at = drops
        .previous
        .as_ref()
        .or_else(|| facts.previous(&ShowVersion).map(|(_, r)| r))
        .and_then(|r| r.collected_at)
        .and_then(|t| u64::try_from(t.timestamp_micros()).ok());
    let (since_us, window) = match previous_at {
        Some(at) => (
            (at as i64 + skew_us - SKEW_MARGIN_US).max(0) as u64,
            "since the previous run".to_string(),
        ),
        None => (
            report_us.saturating_sub(FIRST_RUN_WINDOW_US),
            "in the last hour (first run on this switch)".to_string(),
        ),
    };
    let threshold = input.lanz_queue_max_bytes;
    let congested: Vec<&LanzRecord> = lanz
        .records
        .iter()
        .filter(|r| input.trading_ports.contains(&r.interface))
        .filter(|r| r.entry_time_us >= since_us && r.queue_length_bytes > threshold)
        .collect();
    let mut problems = Vec::new();
    let mut evidence = Vec::new();
    // The switch's time of a record on premarket's clock, in Unix seconds.
    let at = |r: &LanzRecord| (r.entry_time_us as i64 - skew_us).div_euclid(1_000_000);
    let mut when = None;
    if let Some(worst) = congested.iter().max_by_key(|r| r.queue_length_bytes) {
        problems.push(format!(
                "{} LANZ record(s) above {} {window}, the deepest {} on {} (queue TC{}) at {} ({} s before the report)",
                congested.len(),
                Bytes(threshold),
                Bytes(worst.queue_length_bytes),
                worst.interface,
                worst.traffic_class,
                utc(at(worst)),
                report_us.saturating_sub(worst.entry_time_us) / 1_000_000
            ));
        when = Some((*worst, at(worst)));
        for r in congested.iter().take(5) {
            evidence.push(format!(
                "{} {} TC{} queueLength {} bytes, duration {} us, {} s before the report",
                r.entry_type,
                r.interface,
                r.traffic_class,
                r.queue_length_bytes,
                r.duration_us.map_or("?".to_string(), |d| d.to_string()),
                report_us.saturating_sub(r.entry_time_us) / 1_000_000
            ));
        }
    } else {
        evidence.push(format!(
                "no LANZ record above {threshold} bytes on a trading port {window} ({} record(s) in the history)",
                lanz.records.len()
            ));
    }
    let mut note = String::new();
    let mut grown_drops: Vec<u64> = Vec::new();
    // What a FAIL is about: the ports that congested or dropped.
    let mut ports: Vec<&str> = congested.iter().map(|r| r.interface.as_str()).collect();
    let label = drops.label;
    match &previous {
        _ if drops.now.is_empty() => {}
        Before::FirstRun => {
            note = format!("; {label} recorded, their growth is judged from the next run")
        }
        Before::NotComparable(why) => {
            note = format!("; {why}: drop growth is judged again from the next run")
        }
        Before::Run { fact, run_id } => {
            for port in &input.trading_ports {
                let counter = Counter {
                    label,
                    now: drops.now.get(port).copied().flatten(),
                    before: fact.get(port).copied().flatten(),
                };
                evidence.push(format!(
                    "{port}: {label} {} now, {} in {run_id}",
                    counter.now.map_or("-".to_string(), |n| n.to_string()),
                    counter.before.map_or("-".to_string(), |n| n.to_string())
                ));
                match change(&[counter]) {
                    Change::Restarted(_) => {
                        note = format!(
                            "; {port}'s drop counters went down since {run_id}: counters restarted (reboot or clear)"
                        );
                    }
                    Change::Grew(grown) => {
                        for (_, by) in grown {
                            grown_drops.push(by);
                            ports.push(port);
                            problems.push(format!(
                                "+{by} {label} on {port} since the previous run ({run_id})"
                            ));
                        }
                    }
                }
            }
        }
    }
    if lanz.lanz_enabled == Some(false) && congested.is_empty() {
        note.push_str("; LANZ is off, so no congestion could be recorded (eos.lanz.running)");
    }
    let expected =
        format!("no LANZ record above {threshold} bytes and no drop growth on the trading ports");
    let verdict = if problems.is_empty() {
        Verdict::ok(format!(
            "no congestion above {threshold} bytes on the trading ports {window}{note}"
        ))
    } else {
        let dropped: u64 = grown_drops.iter().sum();
        let lead = match when {
            Some((worst, at)) => format!(
                "a {} microburst on {} (queue TC{}) at {}{}",
                Bytes(worst.queue_length_bytes),
                worst.interface,
                worst.traffic_class,
                utc(at),
                if dropped > 0 {
                    format!(", {} packets dropped", Grouped(dropped))
                } else {
                    String::new()
                }
            ),
            None => format!(
                "{} packets dropped in the trading ports' queues since the previous run",
                Grouped(dropped)
            ),
        };
        let verdict = Verdict::fail(format!(
            "{}: microbursts on the trading path drop or delay packets{note}",
            problems.join("; ")
        ))
        .lead(lead)
        .about(ports);
        let verdict = match when {
            Some((_, at)) => verdict.when(at),
            None => verdict,
        };
        verdict
                .remedy("Find the burst's source in the records' ingress ports (`show queue-monitor length` on the switch) and the time; move or pace the sender, spread the traffic over more egress capacity, or raise the queue's buffer as designed. Rerun `premarket check eos.lanz.congestion`; a run after a quiet period is OK again.")
    };
    verdict.expected(expected).evidence(evidence.join("\n"))
}

//! The probe's verdict: what the latencies say about the firewall, with the reason in words.
//!
//! Rules, in order (thresholds are [`Rules`], defaults from the lab):
//! 0. a clock that cannot have measured this: inconclusive, naming the capture's clock. Its
//!    unit too coarse for the slow threshold (fewer than [`TICKS_PER_THRESHOLD`] ticks in it),
//!    or a latency below the physical floor ([`FLOOR_NS`]): a firewall cannot forward a frame
//!    faster than the frame takes to arrive, so such a figure says the clock (or the
//!    calibration) is wrong, not that the firewall is fast;
//! 1. too few pairs, or time stamps of mixed kinds: inconclusive;
//! 2. more requests lost than allowed: loss;
//! 3. nearly every packet opens its own session (source port per packet) and they are slow:
//!    new session per packet;
//! 4. steady state slow (slow fraction at least 5 %, or median above the threshold): CPU path;
//! 5. steady state fast (slow fraction at most 0.1 %): idle expiry when packets after a pause
//!    longer than the idle timer were slow; "first packets not slow" when no session started
//!    on the slow path (the session was probably not new); offloaded otherwise;
//! 6. anything between: inconclusive.
//!
//! The slow threshold sits in the valley between the two modes, so the rules hold for the
//! lab's figures (4.1 us vs 8-49 us, threshold 6 us) and for the veth test's scaled delays
//! (50 us vs 500 us, threshold 200 us) alike.

use super::figures::Analysis;
use super::options::TsSource;

// The verdict's words live below it, beside the analysis that carries them; they stay
// reachable here.
pub use super::figures::Kind;
pub use super::options::Rules;

/// A decided verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Decided {
    pub kind: Kind,
    pub reason: String,
    pub indicative: bool,
    pub notes: Vec<String>,
}

/// The least latency a pair can show: the difference is first bit to first bit, so it holds
/// the probe's 64-byte frame's serialization at the firewall's ingress, 51.2 ns at 10 Gb/s.
/// (No firewall forwards in less at any speed.)
pub const FLOOR_NS: f64 = 51.2;

/// The slow threshold must span at least this many ticks of the capture's clock for a
/// latency to be told fast or slow.
pub const TICKS_PER_THRESHOLD: i64 = 4;

/// Why the capture's clock cannot have measured `a`, naming the clock; `None` when it can.
fn clock_cannot_tell(a: &Analysis) -> Option<String> {
    let clock = format!("the capture's clock ({}, unit {})", a.format, a.tick_ns);
    if a.tick_ns.0.saturating_mul(TICKS_PER_THRESHOLD) > a.slow.threshold_ns.0 {
        return Some(format!(
            "{clock} is too coarse to tell a latency against the {} threshold (at least {TICKS_PER_THRESHOLD} ticks in it are needed)",
            a.slow.threshold_ns
        ));
    }
    let below = a
        .samples
        .latencies()
        .take_while(|l| (l.0 as f64) < FLOOR_NS)
        .count();
    (below > 0).then(|| {
        format!(
            "{below} of {} latencies are below the physical floor of {FLOOR_NS} ns (min {}, median {}): {clock} or the calibration ({} ns subtracted) cannot be right",
            a.pairs,
            show(a.all.min_ns),
            show(a.all.median_ns),
            a.calibration.total_ns
        )
    })
}

fn pct(f: f64) -> String {
    format!("{:.1}%", f * 100.0)
}

fn show(v: Option<super::units::Nanos>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// Decides the verdict of an analysis.
pub fn decide(a: &Analysis, rules: &Rules) -> Decided {
    let mut notes = Vec::new();
    let mut indicative = false;
    match a.timestamps {
        TsSource::Software => {
            indicative = true;
            notes.push("software time stamps: indicative only (on a real NIC they carry microseconds of interrupt delay; exact on veth)".into());
        }
        TsSource::Unknown => {
            notes.push("time stamp source not recorded in the file: hardware stamps assumed".into())
        }
        _ => {}
    }
    if a.tick_ns.0 >= 100 {
        indicative = true;
        notes.push(format!(
            "time stamp unit {} is too coarse for a microsecond latency: indicative only",
            a.tick_ns
        ));
    }
    if a.orphans > 0 {
        notes.push(format!(
            "{} copies after the firewall had no copy before it (capture or switch drops)",
            a.orphans
        ));
    }
    if a.negative > 0 {
        notes.push(format!(
            "{} pairs had the after copy stamped first and were left out (wrong VLAN sides?)",
            a.negative
        ));
    }
    for p in &a.pauses {
        if !p.slow_after {
            notes.push(format!("pause of {} in {} (longer than the idle timer {}) but the packets after it were fast: the firewall's idle timer is longer", p.gap_ns, p.flow, a.idle_timer_ns));
        }
    }
    let d = |kind, reason: String| Decided {
        kind,
        reason,
        indicative,
        notes: notes.clone(),
    };
    if a.timestamps == TsSource::Mixed {
        return d(
            Kind::Inconclusive,
            "hardware and software time stamps are mixed: the differences are not comparable"
                .into(),
        );
    }
    if let Some(problem) = &a.problem {
        return d(Kind::Inconclusive, problem.clone());
    }
    if let Some(why) = clock_cannot_tell(a) {
        return d(Kind::Inconclusive, why);
    }
    if a.pairs < rules.min_pairs.max(1) {
        return d(
            Kind::Inconclusive,
            format!(
                "too few pairs: {} of at least {} needed",
                a.pairs,
                rules.min_pairs.max(1)
            ),
        );
    }
    let loss = a.lost as f64 / a.requests.max(1) as f64;
    if loss > rules.max_loss_fraction {
        return d(
            Kind::Loss,
            format!(
                "{} of {} requests ({}) never came back through the firewall (allowed {})",
                a.lost,
                a.requests,
                pct(loss),
                pct(rules.max_loss_fraction)
            ),
        );
    }
    let all_slow = a.slow.total as f64 / a.pairs as f64;
    if a.sessions * 2 >= a.pairs && all_slow >= 0.5 {
        return d(
            Kind::NewSessionPerPacket,
            format!(
                "{} sessions for {} packets ({} slow, median {}): every packet opens a new session and goes through the CPU; keep one socket (one source port) per flow",
                a.sessions,
                a.pairs,
                pct(all_slow),
                show(a.all.median_ns)
            ),
        );
    }
    if a.steady.n == 0 {
        return d(
            Kind::Inconclusive,
            format!(
                "no steady-state packets: every packet is among the first {} of its session",
                a.first_k
            ),
        );
    }
    let fraction = a.slow.steady_fraction;
    let median_slow = a.steady.median_ns.is_some_and(|m| m > a.slow.threshold_ns);
    if fraction >= rules.cpu_min_slow_fraction || median_slow {
        return d(
            Kind::CpuPath,
            format!(
                "steady state slow: median {}, p99 {}, {} of {} steady-state packets above {}: the session is not offloaded (check the policy's auto-asic-offload and the session's npu_state)",
                show(a.steady.median_ns),
                show(a.steady.p99_ns),
                pct(fraction),
                a.steady.n,
                a.slow.threshold_ns
            ),
        );
    }
    if fraction <= rules.offloaded_max_slow_fraction {
        let fast = format!(
            "steady state fast: median {}, p99 {}, {} of {} steady-state packets above {}",
            show(a.steady.median_ns),
            show(a.steady.p99_ns),
            a.slow.steady,
            a.steady.n,
            a.slow.threshold_ns
        );
        if let Some(p) = a.pauses.iter().find(|p| p.slow_after) {
            return d(
                Kind::IdleExpiry,
                format!(
                    "{fast}, but after a pause of {} (longer than the idle timer {}) the next packets were slow again: the session expired; set udp-idle-timer on the flow's service longer than the longest pause",
                    p.gap_ns, a.idle_timer_ns
                ),
            );
        }
        if a.first_packets_total > 0 && a.slow.first == 0 {
            return d(
                Kind::FirstPacketsNotSlow,
                format!(
                    "{fast}; first packets not slow: the session was probably not new (clear it before the round to see the setup cost)"
                ),
            );
        }
        return d(
            Kind::Offloaded,
            format!(
                "{fast}; only the first packets of each session ({} of {}) were slow: offloaded",
                a.slow.first, a.first_packets_total
            ),
        );
    }
    d(
        Kind::Inconclusive,
        format!(
            "mixed: {} of steady-state packets above {} (offloaded at most {}, CPU path at least {})",
            pct(fraction),
            a.slow.threshold_ns,
            pct(rules.offloaded_max_slow_fraction),
            pct(rules.cpu_min_slow_fraction)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Options, analyze};
    use crate::frame::FiveTuple;
    use crate::pair::{Pair, Pairing, Sides};
    use crate::units::{Nanos, Port, Vlan};

    /// A pairing of `latencies` (ns), one flow unless `flow_per_packet`, 1 ms apart.
    fn pairing(latencies: &[i64], flow_per_packet: bool, lost: usize) -> Pairing {
        let flows = if flow_per_packet { latencies.len() } else { 1 };
        Pairing {
            sides: Sides {
                before: Some(Vlan(10)),
                after: Some(Vlan(20)),
            },
            pairs: latencies
                .iter()
                .enumerate()
                .map(|(i, l)| Pair {
                    before: Nanos(i as i64 * 1_000_000),
                    after: Nanos(i as i64 * 1_000_000 + l),
                    flow: if flow_per_packet { i as u32 } else { 0 },
                    seq: Some(i as u64),
                })
                .collect(),
            lost,
            flows: (0..flows)
                .map(|i| FiveTuple {
                    src: "10.0.0.1".parse().unwrap(),
                    dst: "10.0.0.2".parse().unwrap(),
                    sport: Port(20_000 + i as u16),
                    dport: Port(31999),
                    proto: 17,
                })
                .collect(),
            ..Pairing::default()
        }
    }

    fn offloaded(n: usize) -> Vec<i64> {
        (0..n)
            .map(|i| {
                if i < 2 {
                    45_000
                } else {
                    4_100 + (i % 7) as i64
                }
            })
            .collect()
    }

    fn judge(latencies: &[i64], flow_per_packet: bool, lost: usize, ts: TsSource) -> Decided {
        let options = Options {
            timestamps: ts,
            ..Options::default()
        };
        let a = analyze(
            pairing(latencies, flow_per_packet, lost),
            vec![],
            "test".into(),
            Nanos(1),
            &options,
        );
        decide(&a, &Rules::default())
    }

    #[test]
    fn verdict_table() {
        let mut two_percent = offloaded(1_000);
        for v in two_percent.iter_mut().skip(100).step_by(50) {
            *v = 20_000;
        }
        let mut not_new = offloaded(1_000);
        not_new[0] = 4_100;
        not_new[1] = 4_100;
        let cpu: Vec<i64> = (0..1_000).map(|i| 8_000 + (i % 40) * 1_000).collect();
        let hw = TsSource::Hardware;
        // name, latencies, new flow per packet, lost, time stamps, expected verdict
        type Case = (&'static str, Vec<i64>, bool, usize, TsSource, Kind);
        let cases: Vec<Case> = vec![
            ("offloaded", offloaded(1_000), false, 0, hw, Kind::Offloaded),
            ("few pairs", offloaded(50), false, 0, hw, Kind::Inconclusive),
            (
                "mixed stamps",
                offloaded(1_000),
                false,
                0,
                TsSource::Mixed,
                Kind::Inconclusive,
            ),
            ("loss", offloaded(1_000), false, 5, hw, Kind::Loss),
            (
                "loss within limit",
                offloaded(1_000),
                false,
                1,
                hw,
                Kind::Offloaded,
            ),
            ("cpu", cpu.clone(), false, 0, hw, Kind::CpuPath),
            ("new session", cpu, true, 0, hw, Kind::NewSessionPerPacket),
            ("2% slow", two_percent, false, 0, hw, Kind::Inconclusive),
            ("not new", not_new, false, 0, hw, Kind::FirstPacketsNotSlow),
            (
                "software",
                offloaded(1_000),
                false,
                0,
                TsSource::Software,
                Kind::Offloaded,
            ),
        ];
        for (name, latencies, per_packet, lost, ts, want) in cases {
            let d = judge(&latencies, per_packet, lost, ts);
            assert_eq!(d.kind, want, "{name}: {}", d.reason);
            assert_eq!(d.indicative, ts == TsSource::Software, "{name}");
            assert!(!d.reason.is_empty());
        }
    }

    fn analysed(latencies: &[i64], format: &str, tick: Nanos, calibration_ns: f64) -> Decided {
        let options = Options {
            calibration: crate::calibration::Calibration::fixed(calibration_ns),
            ..Options::default()
        };
        let a = analyze(
            pairing(latencies, false, 0),
            vec![],
            format.into(),
            tick,
            &options,
        );
        decide(&a, &Rules::default())
    }

    #[test]
    fn a_clock_that_cannot_have_measured_this_is_named_and_decides_nothing() {
        // Both copies read the same time (a clock that claims 2^-63 s but counts
        // nanoseconds): after the calibration, every latency is -437 ns.
        let d = analysed(&[0; 1_000], "pcapng (units of 2^-63 s)", Nanos(1), 436.8);
        assert_eq!(d.kind, Kind::Inconclusive, "{}", d.reason);
        assert!(
            d.reason
                .contains("1000 of 1000 latencies are below the physical floor of 51.2 ns")
                && d.reason.contains("pcapng (units of 2^-63 s)"),
            "{}",
            d.reason
        );
        // One impossible pair is enough: the clock or the calibration is wrong.
        let mut one = offloaded(1_000);
        one[500] = 40;
        let d = analysed(&one, "pcap (nanosecond)", Nanos(1), 0.0);
        assert!(d.reason.contains("1 of 1000 latencies"), "{}", d.reason);
        // Whole seconds cannot tell 4 us from 40 us.
        let d = analysed(
            &offloaded(1_000),
            "pcapng (units of 1 s)",
            Nanos(1_000_000_000),
            0.0,
        );
        assert_eq!(d.kind, Kind::Inconclusive);
        assert!(
            d.reason.contains("too coarse") && d.reason.contains("units of 1 s"),
            "{}",
            d.reason
        );
        // A microsecond pcap still can (indicative only), and so can a nanosecond one.
        let d = analysed(&offloaded(1_000), "pcap (microsecond)", Nanos(1_000), 0.0);
        assert_eq!(
            (d.kind, d.indicative),
            (Kind::Offloaded, true),
            "{}",
            d.reason
        );
        let d = analysed(&offloaded(1_000), "pcap (nanosecond)", Nanos(1), 0.0);
        assert_eq!(
            (d.kind, d.indicative),
            (Kind::Offloaded, false),
            "{}",
            d.reason
        );
    }
}

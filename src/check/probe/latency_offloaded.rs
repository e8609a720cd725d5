use crate::Check;
use premarket_core::{Command, Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts, Query};
use premarket_probe::Nanos;
use premarket_probe::baseline::Expect;
use premarket_probe::facts::{Latency, Measure};
use premarket_probe::verdict::{FLOOR_NS, Kind, TICKS_PER_THRESHOLD};

/// The packets feel offload: the probe's steady state is fast, only session setup is slow,
/// nothing lost, and the figures are within the baseline's limits.
///
/// ```yaml
/// - id: probe.latency.offloaded
///   platform: probe
/// ```
/// Baseline: the device's `source:` plus optional `expect.median_max_ns`, `expect.p99_max_ns`
/// and the analysis settings (VLANs, calibration, threshold, idle timer).
pub struct LatencyOffloaded;

fn show(v: Option<Nanos>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn remedy(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::CpuPath => Some(
            "The flow is forwarded by the CPU. On the FortiGate check the policy's `set auto-asic-offload` (enable) and any proxy-mode inspection, then `diagnose sys session list` for the flow's npu_state; rerun `premarket check probe.latency.offloaded`.",
        ),
        Kind::NewSessionPerPacket => Some(
            "Every packet opens a new session (a new source port per send). Fix the sender to keep one socket per flow; sessions are offloaded only after their first packets.",
        ),
        Kind::IdleExpiry => Some(
            "The session expired during a pause longer than udp-idle-timer. Set `udp-idle-timer` on the flow's `firewall service custom` longer than the longest pause, then measure again.",
        ),
        Kind::Loss => Some(
            "Requests did not come back through the firewall. Check the policy, the firewall's drop counters and the capture port (PACKET_STATISTICS drops), then measure again.",
        ),
        _ => None,
    }
}

/// Why the measurement cannot be judged whatever its verdict says: a figure below the physical
/// floor, or a clock too coarse for the baseline's limits. A saved analysis replayed offline
/// (or one from an older premarket) is judged by the same physics as a fresh one.
fn clock_cannot_tell(l: &Latency, expect: &Expect) -> Option<String> {
    let clock = format!(
        "the capture's clock ({}, unit {})",
        l.format.as_deref().unwrap_or("format not recorded"),
        show(l.tick_ns)
    );
    let figures = [l.min_ns, l.median_ns, l.steady.median_ns, l.p99_ns];
    if let Some(low) = figures.into_iter().flatten().min()
        && (low.0 as f64) < FLOOR_NS
    {
        return Some(format!(
            "a latency of {low} is below the physical floor of {FLOOR_NS} ns (a 64-byte frame's serialization at 10 Gb/s): {clock} or the calibration cannot be right"
        ));
    }
    let tick = l.tick_ns?;
    let limits = [("median", expect.median_max_ns), ("p99", expect.p99_max_ns)];
    limits.into_iter().find_map(|(name, limit)| {
        let limit = limit?;
        (tick.0.saturating_mul(TICKS_PER_THRESHOLD) > limit).then(|| {
            format!(
                "{clock} is too coarse to judge the baseline's {name} limit {}",
                Nanos(limit)
            )
        })
    })
}

impl LatencyOffloaded {
    fn evidence(l: &Latency, command: &Command) -> String {
        let mut e = format!(
            "{}: {} pairs, {} lost; all: median {}, p99 {}, max {}; steady state (n={}): median {}, p99 {}; {} first packets listed apart\n{}",
            command.text,
            l.pairs,
            l.lost,
            show(l.median_ns),
            show(l.p99_ns),
            show(l.max_ns),
            l.steady.n,
            show(l.steady.median_ns),
            show(l.steady.p99_ns),
            l.first_packets_total,
            l.reason
        );
        for n in &l.notes {
            e.push_str("\nnote: ");
            e.push_str(n);
        }
        if let Some(chart) = &l.chart_png {
            e.push_str("\nchart: ");
            e.push_str(chart);
        }
        e
    }
}

impl Check for LatencyOffloaded {
    const ID: &'static str = "probe.latency.offloaded";
    const PLATFORM: Platform = Platform::Probe;
    /// The probe's `expect:`: its limits and the analysis settings the collector uses.
    type Input = Expect;

    fn queries(_: &Expect) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(Measure)]
    }

    fn evaluate(expect: &Expect, facts: &Facts) -> Result<Verdict, FactError> {
        let command = Measure.command();
        let l = facts.get(&Measure)?;
        let mut limits = vec!["steady state offloaded (only session setup slow)".to_string()];
        if let Some(m) = expect.median_max_ns {
            limits.push(format!("median <= {}", Nanos(m)));
        }
        if let Some(p) = expect.p99_max_ns {
            limits.push(format!("p99 <= {}", Nanos(p)));
        }
        let actual = format!(
            "{}: steady median {}, p99 {}; {} pairs, {} lost",
            l.verdict,
            show(l.steady.median_ns),
            show(l.steady.p99_ns),
            l.pairs,
            l.lost
        );
        let indicative = if l.indicative {
            " (indicative only)"
        } else {
            ""
        };
        let verdict = match (clock_cannot_tell(l, expect), l.verdict) {
            (Some(why), _) => Verdict::error(format!("the probe could not tell: {why}")),
            (None, Kind::Inconclusive) => {
                Verdict::error(format!("the probe could not tell: {}", l.reason))
            }
            (None, kind) if kind.is_offloaded() => {
                let over_median = expect
                    .median_max_ns
                    .zip(l.steady.median_ns)
                    .filter(|(max, got)| got.0 > *max);
                let over_p99 = expect
                    .p99_max_ns
                    .zip(l.steady.p99_ns)
                    .filter(|(max, got)| got.0 > *max);
                match (over_median, over_p99) {
                    (Some((max, got)), _) => Verdict::fail(format!(
                        "offloaded, but the steady-state median {got} is above the baseline's {}",
                        Nanos(max)
                    )),
                    (None, Some((max, got))) => Verdict::fail(format!(
                        "offloaded, but the steady-state p99 {got} is above the baseline's {}",
                        Nanos(max)
                    )),
                    (None, None) if kind == Kind::FirstPacketsNotSlow => Verdict::ok(format!(
                        "offloaded: steady median {}{indicative}; the first packets were not slow, so the session already existed",
                        show(l.steady.median_ns)
                    )),
                    (None, None) => Verdict::ok(format!(
                        "offloaded: steady median {}, p99 {}{indicative}",
                        show(l.steady.median_ns),
                        show(l.steady.p99_ns)
                    )),
                }
            }
            (None, kind) => {
                let v = Verdict::fail(format!("{kind}{indicative}: {}", l.reason));
                match remedy(kind) {
                    Some(r) => v.remedy(r),
                    None => v,
                }
            }
        };
        Ok(verdict
            .expected(limits.join(", "))
            .actual(actual)
            .evidence(Self::evidence(l, &command)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use premarket_core::{Output, Status};

    /// The check's verdict on a saved analysis whose figures are `figures` (JSON keys).
    fn judge(figures: &str, expect: &Expect) -> Verdict {
        let json = format!(
            r#"{{"pairs": 1000, "lost": 0, "requests": 1000, "verdict": "offloaded", "reason": "steady state fast",
                "steady": {{"n": 998, "median_ns": 4100, "p99_ns": 4200, "max_ns": 4300}}, {figures}}}"#
        );
        let mut facts = Facts::default();
        let output = Output::Text(json.into());
        facts.insert(&Measure.command(), Ok(&output), &[&Measure]);
        LatencyOffloaded::evaluate(expect, &facts).unwrap()
    }

    #[test]
    fn a_saved_analysis_the_clock_could_not_have_measured_is_an_error() {
        let limits = Expect {
            median_max_ns: Some(5_000),
            ..Expect::default()
        };
        // (the analysis's figures, the status, words of the summary)
        let rows = [
            (
                r#""median_ns": 4100, "p99_ns": 4200, "max_ns": 45000, "min_ns": 4050, "tick_ns": 1, "format": "pcap (nanosecond)""#,
                Status::Ok,
                "offloaded",
            ),
            // An older analysis without its clock: its median alone is impossible.
            (
                r#""median_ns": -437, "p99_ns": -437, "max_ns": -437"#,
                Status::Error,
                "-437 ns is below the physical floor of 51.2 ns",
            ),
            (
                r#""median_ns": 4100, "p99_ns": 4200, "max_ns": 45000, "min_ns": 12, "tick_ns": 1, "format": "pcapng (units of 2^-63 s)""#,
                Status::Error,
                "pcapng (units of 2^-63 s)",
            ),
            (
                r#""median_ns": 4100, "p99_ns": 4200, "max_ns": 45000, "min_ns": 4050, "tick_ns": 2000, "format": "pcapng (units of 2^-9 s)""#,
                Status::Error,
                "too coarse to judge the baseline's median limit 5.000 us",
            ),
        ];
        for (figures, status, words) in rows {
            let v = judge(figures, &limits);
            assert_eq!(v.status, status, "{figures}: {}", v.summary);
            assert!(v.summary.contains(words), "{figures}: {}", v.summary);
        }
    }
}

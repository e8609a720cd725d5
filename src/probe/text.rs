//! The analysis as text for a person: counts, percentiles with n, first packets, slow packets,
//! pauses, a histogram, the verdict and its reason.

use std::fmt::Write;

use super::analysis::Analysis;
use super::stats::Summary;
use super::units::Nanos;

fn show(v: Option<Nanos>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn summary_line(label: &str, s: &Summary) -> String {
    format!(
        "{label:<13} n={:<8} min {:>10}  median {:>10}  p90 {:>10}  p99 {:>10}  p99.9 {:>10}  max {:>10}",
        s.n,
        show(s.min_ns),
        show(s.median_ns),
        show(s.p90_ns),
        show(s.p99_ns),
        show(s.p999_ns),
        show(s.max_ns)
    )
}

/// Renders the analysis.
pub fn render(a: &Analysis) -> String {
    let mut o = String::new();
    let vlan = |v: Option<u16>| v.map_or_else(|| "?".to_string(), |v| v.to_string());
    let _ = writeln!(
        o,
        "probe analysis of {} ({}; time stamp unit {}, {:?} stamps)",
        a.files.join(", "),
        a.format,
        a.tick_ns,
        a.timestamps
    );
    let _ = writeln!(
        o,
        "VLAN before {} / after {}; calibration {:.1} ns subtracted (baseline {:.1} + cable {:.1}){}",
        vlan(a.vlan_before),
        vlan(a.vlan_after),
        a.calibration.total_ns,
        a.calibration.baseline_ns,
        a.calibration.cable_ns,
        a.calibration
            .dac_pairs
            .map_or(String::new(), |n| format!(", DAC run of {n} pairs"))
    );
    let _ = writeln!(
        o,
        "frames {}  requests {}  pairs {}  lost {}  duplicates {}  orphans {}  ignored {}",
        a.frames, a.requests, a.pairs, a.lost, a.duplicates, a.orphans, a.ignored
    );
    let _ = writeln!(
        o,
        "firewall latency (nearest-rank percentiles; first bit to first bit, so one serialization at the firewall ingress is included):"
    );
    let _ = writeln!(o, "  {}", summary_line("all", &a.all));
    let _ = writeln!(o, "  {}", summary_line("steady state", &a.steady));
    let _ = writeln!(o, "  raw difference median {}", show(a.raw_median_ns));
    let _ = writeln!(
        o,
        "sessions (5-tuples) {}; first {} packets of each: {} listed apart, {} slow",
        a.sessions, a.first_k, a.first_packets_total, a.slow.first
    );
    for p in a.first_packets.iter().take(10) {
        let _ = writeln!(
            o,
            "  #{:<7} seq {:<8} {:>10} {} {}",
            p.index,
            p.seq.map_or("-".into(), |s| s.to_string()),
            p.latency_ns.to_string(),
            if p.slow { "slow" } else { "fast" },
            p.flow
        );
    }
    if a.first_packets_total > 10 {
        let _ = writeln!(o, "  ... {} more", a.first_packets_total - 10);
    }
    let _ = writeln!(
        o,
        "slow (> {}): {} in all, {} first packets, {} after pauses, {} steady state ({:.3}%)",
        a.slow.threshold_ns,
        a.slow.total,
        a.slow.first,
        a.slow.after_pause,
        a.slow.steady,
        a.slow.steady_fraction * 100.0
    );
    for p in a.slow.steady_examples.iter().take(10) {
        let _ = writeln!(
            o,
            "  steady slow #{:<7} seq {:<8} {:>10}",
            p.index,
            p.seq.map_or("-".into(), |s| s.to_string()),
            p.latency_ns.to_string()
        );
    }
    let _ = writeln!(
        o,
        "pauses longer than the idle timer ({}): {}",
        a.idle_timer_ns,
        a.pauses.len()
    );
    for p in &a.pauses {
        let after: Vec<String> = p.after_ns.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            o,
            "  before #{}: {} in {}; next packets {} ({})",
            p.index,
            p.gap_ns,
            p.flow,
            after.join(", "),
            if p.slow_after { "slow again" } else { "fast" }
        );
    }
    if a.lost > 0 {
        let ex: Vec<String> = a
            .lost_examples
            .iter()
            .map(|l| {
                l.seq
                    .map_or_else(|| l.before_ns.to_string(), |s| format!("seq {s}"))
            })
            .collect();
        let _ = writeln!(o, "lost: {} (e.g. {})", a.lost, ex.join(", "));
    }
    let _ = writeln!(o, "histogram (4 bins per octave):");
    let peak = a
        .histogram
        .iter()
        .map(|b| b.count)
        .max()
        .unwrap_or(1)
        .max(1);
    for b in a.histogram.iter().filter(|b| b.count > 0) {
        let bar = "#".repeat((b.count * 50).div_ceil(peak));
        let _ = writeln!(
            o,
            "  {:>10} - {:>10} {:>8} {bar}",
            b.lo_ns.to_string(),
            b.hi_ns.to_string(),
            b.count
        );
    }
    for n in &a.notes {
        let _ = writeln!(o, "note: {n}");
    }
    let _ = writeln!(
        o,
        "verdict: {}{}: {}",
        a.verdict,
        if a.indicative {
            " (indicative only)"
        } else {
            ""
        },
        a.reason
    );
    o
}

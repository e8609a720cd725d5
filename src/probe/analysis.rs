//! From pairs to the figures the report shows: latencies after calibration, the first packets
//! of each session apart from the steady state, slow packets and where they fall, pauses
//! longer than the idle timer and the packets after them, a histogram, and the verdict.
//!
//! The classifying is done as pairs stream by ([`super::session`]); the figures are named in
//! [`super::figures`], the options in [`super::options`]; this module puts them together
//! ([`build`]). [`analyze`] does the same for pairs already in memory (tests, and any caller
//! that has a [`Pairing`]).

use super::figures::Kind;
use super::request::Pairing;
use super::session::{Classified, Classifier};
use super::stats::{MEDIAN, log_histogram_ascending};
use super::units::Nanos;
use super::verdict;

// The words of the analysis live below it; they stay reachable here, where they were named
// first.
pub use super::figures::{Analysis, Listed, Pause, Slow};
pub use super::options::{Options, TsSource};
pub use super::samples::Class;

/// Analyses pairs already in memory (sorted by their "before" copy, as pairing leaves them).
pub fn analyze(
    pairing: Pairing,
    files: Vec<String>,
    format: String,
    tick: Nanos,
    options: &Options,
) -> Analysis {
    let mut classifier = Classifier::new(options);
    for pair in &pairing.pairs {
        classifier.pair(*pair);
    }
    let classified = classifier.finish(&pairing.flows);
    build(classified, pairing, files, format, tick, options)
}

/// Puts the figures together and decides the verdict. `pairing` gives the sides and what did
/// not pair (its `pairs` are not read: `classified` has them).
pub fn build(
    classified: Classified,
    pairing: Pairing,
    files: Vec<String>,
    format: String,
    tick: Nanos,
    options: &Options,
) -> Analysis {
    let samples = classified.samples;
    let mut notes = Vec::new();
    if classified.out_of_order > 0 {
        notes.push(format!(
            "{} pairs came more than {} requests out of time order: the capture is not in time order, so which packets count as first in their session may be off",
            classified.out_of_order,
            super::session::WINDOW
        ));
    }
    if samples.clamped() > 0 {
        notes.push(format!(
            "{} pairs have copies more than 833 days apart (a damaged capture); their difference was cut to that",
            samples.clamped()
        ));
    }
    let mut analysis = Analysis {
        files,
        format,
        tick_ns: tick,
        timestamps: options.timestamps,
        vlan_before: pairing.sides.before.map(|v| v.0),
        vlan_after: pairing.sides.after.map(|v| v.0),
        calibration: options.calibration,
        frames: pairing.frames,
        requests: classified.pairs + pairing.lost,
        pairs: classified.pairs,
        lost: pairing.lost,
        lost_examples: pairing.lost_examples,
        duplicates: pairing.duplicates,
        orphans: pairing.orphans,
        negative: pairing.negative,
        ignored: pairing.ignored,
        all: samples.summary(),
        steady: samples.summary_of(Class::Steady),
        raw_median_ns: samples.raw_percentile(MEDIAN),
        sessions: classified.sessions,
        first_k: options.first_k,
        first_packets_total: classified.first_packets_total,
        first_packets: classified.first_packets,
        idle_timer_ns: options.idle_timer,
        pauses: classified.pauses,
        slow: classified.slow,
        histogram: log_histogram_ascending(samples.latencies(), 4),
        verdict: Kind::Inconclusive,
        reason: String::new(),
        indicative: false,
        notes: Vec::new(),
        problem: pairing.problem,
        live: None,
        samples,
    };
    let decided = verdict::decide(&analysis, &options.rules);
    analysis.verdict = decided.kind;
    analysis.reason = decided.reason;
    analysis.indicative = decided.indicative;
    analysis.notes = decided.notes;
    analysis.notes.extend(notes);
    analysis
}

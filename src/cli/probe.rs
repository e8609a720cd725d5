//! `premarket probe analyze|run`: the latency probe on its own, outside an inspection.
//!
//! Stop codes follow DESIGN §3: 0 offloaded, 1 a finding (CPU path, new session per packet,
//! idle expiry, loss), 2 inconclusive, 3 nothing ran (usage, unreadable file).
//!
//! The flags and what is printed are here; a live run's rounds and the firewall's cross-check
//! are the collect stage's (`collect::probe_run`, `collect::firewall_check`).

use std::path::{Path, PathBuf};

use super::Stop;
use crate::collect::firewall_check::{Checked, Firewall, FirewallCheckError};
use crate::collect::probe_run::{self, LiveRun, RoundError, Rounds};
use crate::probe::analysis::{Analysis, Options, TsSource};
use crate::probe::calibration::Calibration;
use crate::probe::frame::FrameSpec;
use crate::probe::pair::Sides;
use crate::probe::rounds::{self, Round};
use crate::probe::units::Port;
use crate::probe::units::{Meters, Nanos, NanosPerMeter, Vlan};
use crate::probe::verdict::Kind;
use crate::probe::{chart, offline, synth, text};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: ProbeCommand,
}

#[derive(Debug, clap::Subcommand)]
#[allow(
    clippy::large_enum_variant,
    reason = "parsed once per process; without the lab's `emulate` the run's arguments stand out"
)]
pub enum ProbeCommand {
    /// Analyse pcap/pcapng captures: pair the copies, report latency, verdict.
    Analyze(AnalyzeArgs),
    /// Send, capture on the trunk and analyse (Linux, root or CAP_NET_RAW).
    Run(RunArgs),
    /// Write a deterministic synthetic capture shaped on the lab figures (tests, benchmarks).
    #[command(hide = true)]
    Synth(SynthArgs),
    /// Play switch and firewall between two interfaces (the live test's emulator).
    #[cfg(feature = "lab")]
    #[command(hide = true)]
    Emulate(crate::lab::wire::Args),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// How to read and judge captures; shared by `analyze` and `run`.
#[derive(Clone, Debug, clap::Args)]
pub struct AnalysisArgs {
    /// VLAN of the copy that did not cross the firewall (default: the VLAN whose copy comes first).
    #[arg(long, value_name = "VID")]
    pub before_vlan: Option<Vlan>,
    /// VLAN of the copy that crossed the firewall.
    #[arg(long, value_name = "VID")]
    pub after_vlan: Option<Vlan>,
    /// Subtract this many ns from every difference (the lab: 436.8).
    #[arg(long, value_name = "NS", conflicts_with = "calibrate_from")]
    pub calibration_ns: Option<f64>,
    /// Measure the calibration from a capture with the firewall replaced by a DAC.
    #[arg(long, value_name = "DAC.pcap")]
    pub calibrate_from: Option<PathBuf>,
    /// Extra cable of the firewall setup over the DAC run, in metres (the lab: 5).
    #[arg(
        long,
        value_name = "M",
        default_value_t = 0.0,
        requires = "calibrate_from"
    )]
    pub extra_cable_m: f64,
    /// Propagation delay of that cable (the lab's DAC: 4.96).
    #[arg(long, value_name = "NS", default_value_t = 4.96)]
    pub ns_per_m: f64,
    /// Above this a packet is slow.
    #[arg(long, value_name = "NS", default_value_t = 6_000)]
    pub threshold_ns: i64,
    /// The firewall's UDP idle timer: a pause longer than this ends the session.
    #[arg(long, value_name = "S", default_value_t = 180.0)]
    pub idle_timer_s: f64,
    /// Packets that open a session on the CPU.
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub first_packets: usize,
    /// Fewer pairs than this is inconclusive.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub min_pairs: usize,
    /// Where the time stamps came from (files do not say).
    #[arg(long, value_enum, default_value_t = TsSource::Unknown)]
    pub timestamps: TsSource,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the chart (percentile plot over a histogram; ABBA rounds overlaid) as PNG.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
    /// Write the same chart as SVG.
    #[arg(long, value_name = "FILE")]
    pub chart_svg: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Capture files (pcap or pcapng), read together.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    #[arg(long, value_enum)]
    pub profile: synth::Profile,
    #[arg(long, default_value_t = 10_000)]
    pub count: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Calibration included in every difference (436.8 like the lab; the DAC run's own difference).
    #[arg(long, default_value_t = 436.8)]
    pub calibration_ns: f64,
    #[arg(long)]
    pub out: PathBuf,
}

impl AnalysisArgs {
    /// The analysis options (measuring the calibration from the DAC run when asked).
    pub fn options(&self) -> Result<Options, Stop> {
        let sides = Sides {
            before: self.before_vlan,
            after: self.after_vlan,
        };
        let calibration = match (&self.calibrate_from, self.calibration_ns) {
            (Some(dac), _) => offline::calibrate_from(
                dac,
                sides,
                Meters(self.extra_cable_m),
                NanosPerMeter(self.ns_per_m),
            )
            .map_err(|e| Stop::config(format!("calibration: {e}")))?,
            (None, Some(ns)) => Calibration::fixed(ns),
            (None, None) => Calibration::default(),
        };
        if !(self.idle_timer_s.is_finite() && self.idle_timer_s > 0.0) {
            return Err(Stop::config(
                "--idle-timer-s must be a positive number of seconds",
            ));
        }
        let mut options = Options {
            sides,
            calibration,
            threshold: Nanos(self.threshold_ns),
            idle_timer: Nanos::from_secs_f64(self.idle_timer_s),
            first_k: self.first_packets,
            timestamps: self.timestamps,
            ..Options::default()
        };
        options.rules.min_pairs = self.min_pairs;
        Ok(options)
    }

    /// Prints the analysis, writes the chart, returns the exit code.
    pub fn finish(&self, analysis: &Analysis) -> Result<u8, Stop> {
        self.finish_with(analysis, None)
    }

    /// [`Self::finish`] with the firewall cross-check of the run, when there was one.
    fn finish_with(&self, analysis: &Analysis, firewall: Option<&Checked>) -> Result<u8, Stop> {
        match self.format {
            Format::Json => {
                let mut value =
                    serde_json::to_value(analysis).map_err(|e| Stop::config(e.to_string()))?;
                if let (Some(checked), Some(map)) = (firewall, value.as_object_mut()) {
                    map.insert("firewall".into(), checked.json());
                }
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&value)
                        .map_err(|e| Stop::config(e.to_string()))?
                );
            }
            Format::Text => {
                out!("{}", text::render(analysis));
                if let Some(checked) = firewall {
                    outln!("{}", checked.text());
                }
            }
        }
        self.write_charts(|| chart::png(analysis), || chart::svg(analysis))?;
        Ok(exit_code(analysis.verdict))
    }

    /// Writes the PNG and SVG charts that were asked for.
    fn write_charts(
        &self,
        png: impl FnOnce() -> Result<Vec<u8>, chart::ChartError>,
        svg: impl FnOnce() -> Result<String, chart::ChartError>,
    ) -> Result<(), Stop> {
        if let Some(path) = &self.chart {
            write_chart(path, png())?;
        }
        if let Some(path) = &self.chart_svg {
            write_chart(path, svg().map(String::into_bytes))?;
        }
        Ok(())
    }
}

/// Writes a chart (also `history --chart`); a chart that cannot be drawn or written is exit 2.
pub(super) fn write_chart(
    path: &Path,
    bytes: Result<Vec<u8>, chart::ChartError>,
) -> Result<(), Stop> {
    let bytes = bytes.map_err(|e| Stop {
        code: crate::core::Exit::Error.code(),
        message: format!("chart: {e}"),
    })?;
    crate::files::write_atomic(path, &bytes).map_err(|e| Stop {
        code: crate::core::Exit::Error.code(),
        message: e.to_string(),
    })
}

/// The process exit code for a verdict (DESIGN §3).
pub fn exit_code(kind: Kind) -> u8 {
    use crate::core::Exit;
    match kind {
        Kind::Offloaded | Kind::FirstPacketsNotSlow => Exit::Ok,
        Kind::CpuPath | Kind::NewSessionPerPacket | Kind::IdleExpiry | Kind::Loss => Exit::Fail,
        Kind::Inconclusive => Exit::Error,
    }
    .code()
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    match args.command {
        ProbeCommand::Analyze(a) => {
            let options = a.analysis.options()?;
            let analysis = offline::analyze_files(&a.files, &options).map_err(|e| Stop {
                code: crate::core::Exit::NotRun.code(),
                message: e.to_string(),
            })?;
            a.analysis.finish(&analysis)
        }
        ProbeCommand::Run(a) => run_live(dir, a),
        ProbeCommand::Synth(s) => {
            let mut spec = synth::Spec::lab(s.profile, s.count, s.seed);
            spec.calibration_ns = s.calibration_ns;
            let mut file = crate::files::AtomicFile::create(&s.out)
                .map_err(|e| Stop::config(e.to_string()))?;
            let truth = synth::generate(&spec, &mut file)
                .map_err(|e| Stop::config(format!("cannot write {}: {e}", s.out.display())))?;
            file.commit().map_err(|e| Stop::config(e.to_string()))?;
            errln!(
                "wrote {} frames ({} requests, {} dropped) to {}",
                truth.frames,
                s.count,
                truth.dropped,
                s.out.display()
            );
            Ok(0)
        }
        #[cfg(feature = "lab")]
        ProbeCommand::Emulate(a) => crate::lab::wire::run(a).map(|()| 0).map_err(|e| Stop {
            code: crate::core::Exit::Error.code(),
            message: e.to_string(),
        }),
    }
}

/// `1ms`, `500us`, `250000ns`, `1s`.
fn parse_duration(s: &str) -> Result<Nanos, DurationError> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| DurationError::NotDuration(s.to_string()))?;
    let scale = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" | "" => 1e6,
        "s" => 1e9,
        _ => {
            return Err(DurationError::Unit {
                unit: unit.to_string(),
                text: s.to_string(),
            });
        }
    };
    let ns = value * scale;
    if !(ns.is_finite() && ns > 0.0) {
        return Err(DurationError::NotPositive(s.to_string()));
    }
    Ok(Nanos(ns.round() as i64))
}

/// A duration option that does not read (the text as given, trimmed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum DurationError {
    #[error("{0:?} is not a duration like 1ms or 500us")]
    NotDuration(String),
    #[error("unknown unit {unit:?} in {text:?} (use ns, us, ms or s)")]
    Unit { unit: String, text: String },
    #[error("{0:?} must be positive")]
    NotPositive(String),
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Interface that sends the requests (port0).
    #[arg(long, value_name = "IF")]
    pub tx: String,
    /// Interface on the trunk that receives both copies (port1).
    #[arg(long, value_name = "IF")]
    pub rx: String,
    /// Requests per round.
    #[arg(long, default_value_t = 10_000)]
    pub count: usize,
    /// Time between requests.
    #[arg(long, default_value = "1ms", value_parser = parse_duration)]
    pub interval: Nanos,
    /// Fixed source port: one session for the whole round.
    #[arg(long, value_name = "P", conflicts_with = "new_port_per_packet")]
    pub src_port: Option<u16>,
    /// A new source port per request: every packet a new session (the lab's third case).
    #[arg(long)]
    pub new_port_per_packet: bool,
    /// UDP destination port of the requests.
    #[arg(long, value_name = "P", default_value_t = 31999)]
    pub dst_port: u16,
    /// Source address of the requests (default 198.18.0.1); with --firewall it must be the
    /// address the firewall's session shows.
    #[arg(long, value_name = "IP", hide = true)]
    pub src_ip: Option<std::net::Ipv4Addr>,
    /// Destination address of the requests (default 198.18.0.2).
    #[arg(long, value_name = "IP", hide = true)]
    pub dst_ip: Option<std::net::Ipv4Addr>,
    /// ABBA rounds, e.g. on,off,off,on; reports the on/off effect and the drift.
    #[arg(long, value_name = "LABELS")]
    pub rounds: Option<String>,
    /// Command run (with sh -c) before each round; {round} and {mode} are replaced, and
    /// PREMARKET_ROUND / PREMARKET_MODE are set. It switches offload and clears the session.
    #[arg(long, value_name = "CMD", requires = "rounds")]
    pub between_rounds: Option<String>,
    /// Keep the capture (nanosecond pcap); with rounds, -roundN is added to the name.
    #[arg(long, value_name = "FILE.pcap")]
    pub out: Option<PathBuf>,
    /// Keep capturing this long after the last request.
    #[arg(long, default_value = "200ms", value_parser = parse_duration)]
    pub grace: Nanos,
    /// Spin instead of sleeping for this long before each deadline.
    #[arg(long, default_value = "200us", value_parser = parse_duration, hide = true)]
    pub spin: Nanos,
    /// SCHED_FIFO priority of the sender (0: normal scheduling).
    #[arg(long, default_value_t = 50)]
    pub priority: i32,
    /// Pause once after this many requests (shows idle expiry; tests).
    #[arg(long, value_name = "N", hide = true, requires = "pause")]
    pub pause_after: Option<usize>,
    #[arg(long, value_parser = parse_duration, hide = true)]
    pub pause: Option<Nanos>,
    /// Cross-check on this FortiGate of the site (npu_state, CPU packet counter) over SSH
    /// after each round. Needs one probe flow, so not with --new-port-per-packet.
    #[arg(long, value_name = "DEVICE", conflicts_with = "new_port_per_packet")]
    pub firewall: Option<String>,
    /// Clear the probe's own session before each round (only after the filter reads back as
    /// exactly the probe's 5-tuple).
    #[arg(long, requires = "firewall")]
    pub clear_session: bool,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

/// The exit code and message of a round that could not be measured: a flag, a file or a
/// device the run could not use is "nothing ran" (3); a command or a device that failed on the
/// way is an error (2).
fn stop(e: RoundError) -> Stop {
    use crate::core::Exit;
    let code = match &e {
        RoundError::Spawn(_)
        | RoundError::Measure(_)
        | RoundError::Firewall(FirewallCheckError::NoSuchDevice { .. }) => Exit::NotRun,
        RoundError::BetweenRounds { .. }
        | RoundError::Firewall(
            FirewallCheckError::Connect { .. } | FirewallCheckError::Clear { .. },
        ) => Exit::Error,
    };
    Stop {
        code: code.code(),
        message: e.to_string(),
    }
}

fn run_live(dir: &Path, a: RunArgs) -> Result<u8, Stop> {
    if a.count == 0 {
        return Err(Stop::config("--count must be at least 1"));
    }
    let options = a.analysis.options()?;
    let mut template = FrameSpec {
        dport: Port(a.dst_port),
        ..FrameSpec::default()
    };
    if let Some(p) = a.src_port {
        template.sport = Port(p);
    }
    if let Some(ip) = a.src_ip {
        template.src_ip = ip;
    }
    if let Some(ip) = a.dst_ip {
        template.dst_ip = ip;
    }
    let rounds = match &a.rounds {
        Some(spec) => rounds::parse(spec).map_err(Stop::config)?,
        None => vec![Round {
            index: 0,
            label: "run".into(),
        }],
    };
    let several = a.rounds.is_some();
    let live = LiveRun {
        tx: a.tx.clone(),
        rx: a.rx.clone(),
        count: a.count,
        interval: a.interval,
        template,
        new_port_per_packet: a.new_port_per_packet,
        spin: a.spin,
        priority: a.priority,
        pause: a.pause_after.zip(a.pause),
        grace: a.grace,
        out: a.out.clone(),
        rounds,
        several,
        between_rounds: a.between_rounds.clone(),
    };
    let firewall = match &a.firewall {
        Some(device) => {
            let config = super::load(dir)?;
            Some(
                Firewall::connect(&config, device, live.flow(), a.clear_session)
                    .map_err(|e| stop(e.into()))?,
            )
        }
        None => None,
    };
    let Rounds {
        mut results,
        mut checks,
    } = probe_run::measure_rounds(&live, &options, firewall).map_err(stop)?;
    // A cross-check that could not be made leaves the run at least inconclusive.
    let unchecked = checks.iter().flatten().any(|c| c.result.is_err());
    let at_least = |code: u8| if unchecked && code == 0 { 2 } else { code };
    if !several {
        let (Some((_, analysis)), Some(check)) = (results.pop(), checks.pop()) else {
            return Err(Stop::config("no round ran"));
        };
        return a
            .analysis
            .finish_with(&analysis, check.as_ref())
            .map(at_least);
    }
    let medians: Vec<(String, Option<Nanos>)> = results
        .iter()
        .map(|(r, an)| (r.label.clone(), an.steady.median_ns))
        .collect();
    let abba = rounds::abba(&medians);
    match a.analysis.format {
        Format::Json => {
            let rounds: Vec<serde_json::Value> = results
                .iter()
                .zip(&checks)
                .map(|((r, an), check)| {
                    let mut round =
                        serde_json::json!({"index": r.index, "label": r.label, "analysis": an});
                    if let (Some(check), Some(map)) = (check, round.as_object_mut()) {
                        map.insert("firewall".into(), check.json());
                    }
                    round
                })
                .collect();
            outln!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({"rounds": rounds, "abba": abba}))
                    .map_err(|e| Stop::config(e.to_string()))?
            );
        }
        Format::Text => {
            for ((r, an), check) in results.iter().zip(&checks) {
                outln!("== round {} ({})", r.index, r.label);
                out!("{}", text::render(an));
                if let Some(check) = check {
                    outln!("{}", check.text());
                }
            }
            let show = |v: Option<i64>| v.map_or("-".to_string(), |v| format!("{v} ns"));
            outln!(
                "ABBA: effect on-off {}, drift on {}, drift off {}{}",
                abba.effect_ns
                    .map_or("-".to_string(), |e| format!("{e:.0} ns")),
                show(abba.drift_on_ns),
                show(abba.drift_off_ns),
                abba.warning
                    .as_ref()
                    .map_or(String::new(), |w| format!("; WARNING: {w}"))
            );
        }
    }
    let labelled: Vec<(String, &Analysis)> = results
        .iter()
        .map(|(r, an)| (r.label.clone(), an))
        .collect();
    let refs = chart::References::default();
    a.analysis.write_charts(
        || chart::rounds_png(&labelled, &abba, &refs),
        || chart::rounds_svg(&labelled, &abba, &refs),
    )?;
    let inconclusive = results
        .iter()
        .any(|(_, an)| an.verdict == Kind::Inconclusive);
    Ok(at_least(if inconclusive || abba.warning.is_some() {
        2
    } else {
        0
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1ms"), Ok(Nanos(1_000_000)));
        assert_eq!(parse_duration("500us"), Ok(Nanos(500_000)));
        assert_eq!(parse_duration("0.5s"), Ok(Nanos(500_000_000)));
        assert_eq!(parse_duration("250ns"), Ok(Nanos(250)));
        assert!(parse_duration("0ms").is_err());
        assert!(parse_duration("1h").is_err());
        assert!(parse_duration("fast").is_err());
    }
}

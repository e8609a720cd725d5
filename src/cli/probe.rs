//! `premarket probe analyze|run`: the latency probe on its own, outside an inspection.
//!
//! Exit codes follow DESIGN §3: 0 offloaded, 1 a finding (CPU path, new session per packet,
//! idle expiry, loss), 2 inconclusive, 3 nothing ran (usage, unreadable file).

use std::path::{Path, PathBuf};

use super::Exit;
use crate::probe::analysis::{Analysis, Options, TsSource};
use crate::probe::calibration::Calibration;
use crate::probe::pair::Sides;
use crate::probe::units::{Meters, Nanos, NanosPerMeter, Vlan};
use crate::probe::verdict::Kind;
use crate::probe::{chart, offline, synth, text};
use crate::report::EXIT_CONFIG;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: ProbeCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ProbeCommand {
    /// Analyse pcap/pcapng captures: pair the copies, report latency, verdict.
    Analyze(AnalyzeArgs),
    /// Send, capture on the trunk and analyse (Linux, root or CAP_NET_RAW).
    Run(crate::probe::live::RunArgs),
    /// Write a deterministic synthetic capture shaped on the lab figures (tests, benchmarks).
    #[command(hide = true)]
    Synth(SynthArgs),
    /// Play switch and firewall between two interfaces (the live test's emulator).
    #[command(hide = true)]
    Emulate(crate::probe::emulator::Args),
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
    #[arg(long, value_name = "M", default_value_t = 0.0, requires = "calibrate_from")]
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
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the histogram and CDF chart as PNG.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<PathBuf>,
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
    pub fn options(&self) -> Result<Options, Exit> {
        let sides = Sides { before: self.before_vlan, after: self.after_vlan };
        let calibration = match (&self.calibrate_from, self.calibration_ns) {
            (Some(dac), _) => offline::calibrate_from(dac, sides, Meters(self.extra_cable_m), NanosPerMeter(self.ns_per_m))
                .map_err(|e| Exit::config(format!("calibration: {e}")))?,
            (None, Some(ns)) => Calibration::fixed(ns),
            (None, None) => Calibration::default(),
        };
        if !(self.idle_timer_s.is_finite() && self.idle_timer_s > 0.0) {
            return Err(Exit::config("--idle-timer-s must be a positive number of seconds"));
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
    pub fn finish(&self, analysis: &Analysis) -> Result<u8, Exit> {
        match self.format {
            Format::Json => println!("{}", serde_json::to_string_pretty(analysis).map_err(|e| Exit::config(e.to_string()))?),
            Format::Text => print!("{}", text::render(analysis)),
        }
        if let Some(path) = &self.chart {
            write_chart(analysis, path)?;
        }
        Ok(exit_code(analysis.verdict))
    }
}

fn write_chart(analysis: &Analysis, path: &Path) -> Result<(), Exit> {
    let bytes = chart::png(analysis).map_err(|e| Exit { code: 2, message: format!("chart: {e}") })?;
    std::fs::write(path, bytes).map_err(|e| Exit { code: 2, message: format!("cannot write {}: {e}", path.display()) })
}

/// The process exit code for a verdict (DESIGN §3).
pub fn exit_code(kind: Kind) -> u8 {
    match kind {
        Kind::Offloaded | Kind::FirstPacketsNotSlow => 0,
        Kind::CpuPath | Kind::NewSessionPerPacket | Kind::IdleExpiry | Kind::Loss => 1,
        Kind::Inconclusive => 2,
    }
}

pub fn run(args: Args) -> Result<u8, Exit> {
    match args.command {
        ProbeCommand::Analyze(a) => {
            let options = a.analysis.options()?;
            let analysis = offline::analyze_files(&a.files, &options).map_err(|e| Exit { code: EXIT_CONFIG, message: e.to_string() })?;
            a.analysis.finish(&analysis)
        }
        ProbeCommand::Run(a) => crate::probe::live::run(a),
        ProbeCommand::Synth(s) => {
            let mut spec = synth::Spec::lab(s.profile, s.count, s.seed);
            spec.calibration_ns = s.calibration_ns;
            let file = std::fs::File::create(&s.out).map_err(|e| Exit::config(format!("cannot create {}: {e}", s.out.display())))?;
            let truth = synth::generate(&spec, file).map_err(|e| Exit::config(format!("cannot write {}: {e}", s.out.display())))?;
            eprintln!("wrote {} frames ({} requests, {} dropped) to {}", truth.frames, s.count, truth.dropped, s.out.display());
            Ok(0)
        }
        ProbeCommand::Emulate(a) => crate::probe::emulator::run(a),
    }
}

//! `premarket probe run` outside an inspection: one or more live rounds (ABBA, say: offload on,
//! off, off, on), each sent, captured and analysed by the probe's live path, with an optional
//! command before each round (it switches offload and clears the session) and the firewall's
//! own view of the probe's session after it ([`super::firewall_check`]).
//!
//! The command line turns its flags into a [`LiveRun`] and prints what [`measure_rounds`]
//! returns; the measuring, the rounds' capture files and the firewall's cross-check are here.

use std::path::PathBuf;

use premarket_probe::frame::{FiveTuple, FrameSpec, IP_UDP};
use premarket_probe::live::{self, LiveError, LivePlan};
use premarket_probe::rounds::Round;
use premarket_probe::sender::Schedule;
use premarket_probe::units::Nanos;
use premarket_probe::{Analysis, Options};

use super::firewall_check::{Checked, Firewall, FirewallCheckError};

/// What each round sends and captures, and what runs around it.
#[derive(Clone, Debug)]
pub struct LiveRun {
    /// Interface that sends the requests (port0).
    pub tx: String,
    /// Interface on the trunk that receives both copies (port1).
    pub rx: String,
    /// Requests per round.
    pub count: usize,
    pub interval: Nanos,
    /// The request frame: addresses and ports.
    pub template: FrameSpec,
    /// A new source port per request: every packet a new session.
    pub new_port_per_packet: bool,
    pub spin: Nanos,
    /// SCHED_FIFO priority of the sender (0: normal scheduling).
    pub priority: i32,
    /// Pause once after this many requests, this long.
    pub pause: Option<(usize, Nanos)>,
    /// Keep capturing this long after the last request.
    pub grace: Nanos,
    /// Keep the capture (nanosecond pcap); with several rounds, -roundN is added to the name.
    pub out: Option<PathBuf>,
    pub rounds: Vec<Round>,
    /// Whether rounds were asked for (the capture name then carries the round).
    pub several: bool,
    /// Command run (with sh -c) before each round; {round} and {mode} are replaced, and
    /// PREMARKET_ROUND / PREMARKET_MODE are set.
    pub between_rounds: Option<String>,
}

impl LiveRun {
    /// The probe's 5-tuple (one flow: the firewall is asked about its session).
    pub fn flow(&self) -> FiveTuple {
        FiveTuple {
            src: self.template.src_ip,
            dst: self.template.dst_ip,
            sport: self.template.sport,
            dport: self.template.dport,
            proto: IP_UDP,
        }
    }
}

/// Why the rounds stopped.
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    #[error("cannot run --between-rounds: {0}")]
    Spawn(std::io::Error),
    #[error("--between-rounds failed before round {index} ({label}): {status}")]
    BetweenRounds {
        index: usize,
        label: String,
        status: std::process::ExitStatus,
    },
    #[error(transparent)]
    Firewall(#[from] FirewallCheckError),
    #[error(transparent)]
    Measure(#[from] LiveError),
}

/// Every round's analysis, in order, and the firewall's view of each (when it was asked).
pub struct Rounds {
    pub results: Vec<(Round, Analysis)>,
    pub checks: Vec<Option<Checked>>,
}

fn between_rounds(cmd: &str, round: &Round) -> Result<(), RoundError> {
    let line = cmd
        .replace("{round}", &round.index.to_string())
        .replace("{mode}", &round.label);
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(&line)
        .env("PREMARKET_ROUND", round.index.to_string())
        .env("PREMARKET_MODE", &round.label)
        .status()
        .map_err(RoundError::Spawn)?;
    if !status.success() {
        return Err(RoundError::BetweenRounds {
            index: round.index,
            label: round.label.clone(),
            status,
        });
    }
    Ok(())
}

fn round_path(out: &Option<PathBuf>, round: &Round, several: bool) -> Option<PathBuf> {
    let out = out.as_ref()?;
    if !several {
        return Some(out.clone());
    }
    let stem = out
        .file_stem()
        .map_or_else(|| "probe".into(), |s| s.to_string_lossy().into_owned());
    Some(out.with_file_name(format!("{stem}-round{}.pcap", round.index)))
}

/// Measures every round; the firewall, when given, is asked before and after each and closed
/// at the end.
pub fn measure_rounds(
    run: &LiveRun,
    options: &Options,
    mut firewall: Option<Firewall>,
) -> Result<Rounds, RoundError> {
    let id = live::run_id();
    let mut results: Vec<(Round, Analysis)> = Vec::new();
    let mut checks: Vec<Option<Checked>> = Vec::new();
    for round in &run.rounds {
        if let Some(cmd) = &run.between_rounds {
            between_rounds(cmd, round)?;
        }
        if let Some(fw) = &mut firewall {
            fw.before_round(round)?;
        }
        let plan = LivePlan {
            tx: run.tx.clone(),
            rx: run.rx.clone(),
            schedule: Schedule {
                count: run.count,
                interval: run.interval,
                template: run.template,
                new_port_per_packet: run.new_port_per_packet,
                run: id,
                round: round.index as u8,
                spin: run.spin,
                priority: run.priority,
                pause: run.pause,
            },
            grace: run.grace,
            out: round_path(&run.out, round, run.several),
        };
        let analysis = live::measure(&plan, options)?;
        checks.push(firewall.as_mut().map(|fw| fw.after_round(&analysis)));
        results.push((round.clone(), analysis));
    }
    if let Some(fw) = firewall {
        fw.close();
    }
    Ok(Rounds { results, checks })
}

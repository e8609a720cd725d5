//! `premarket lab serve`: run the emulated devices until Ctrl-C and print how to reach them.
//! The site it writes also has the latency probe, with a capture of what the packets feel
//! under the firewall's scenario (as `premarket demo` has).

use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

use super::Stop;
use crate::lab::{Fault, Fleet, Lab, LabOptions, Scenario};

#[derive(Debug, ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    pub command: LabCommand,
}

#[derive(Debug, Subcommand)]
pub enum LabCommand {
    /// Serve emulated FortiGates and Arista switches on 127.0.0.1 until interrupted.
    Serve(ServeArgs),
}

#[derive(Debug, ClapArgs)]
pub struct ServeArgs {
    /// Fault to switch on, `NAME` or `NAME@DEVICE`; repeatable. `--scenario list` shows them.
    #[arg(long = "scenario", value_name = "S")]
    pub scenarios: Vec<String>,
    /// Number of devices of the standard fleet, half FortiGate (fw1, fw2, ...) and half EOS
    /// (sw1, sw2, ...); the mixed fleet has its own.
    #[arg(long, default_value_t = 2)]
    pub devices: usize,
    /// `standard`: the lab notes' pair (times --devices); `mixed`: a trading floor's mix of
    /// models, releases and port kinds (7280R3 on EOS 4.31, 7050X on EOS 4.22 with a DAC, a
    /// port-channel and a subinterface, the FortiGate 201G).
    #[arg(long, default_value_t = Fleet::Standard, value_parser = parse_fleet)]
    pub fleet: Fleet,
    /// First TCP port (devices take consecutive ports); 0 picks free ports.
    #[arg(long, default_value_t = 0)]
    pub base_port: u16,
    /// Write the ready-to-use site directory here (kept on exit) instead of a temporary one.
    #[arg(long, value_name = "DIR")]
    pub site_dir: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8, Stop> {
    match args.command {
        LabCommand::Serve(serve) => run_serve(serve),
    }
}

fn run_serve(args: ServeArgs) -> Result<u8, Stop> {
    if args.scenarios.iter().any(|s| s == "list") {
        for fault in Fault::ALL {
            let target = match fault.default_target() {
                crate::lab::Target::All => "all devices".to_string(),
                crate::lab::Target::Device(d) => d,
            };
            outln!("{:<18} {:<12} {}", fault.name(), target, fault.describe());
        }
        return Ok(0);
    }
    let scenarios = Scenario::parse_all(&args.scenarios).map_err(Stop::config)?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Stop {
        code: crate::core::Exit::NotRun.code(),
        message: format!("cannot start: {e}"),
    })?;
    runtime.block_on(async {
        let options = LabOptions {
            scenarios,
            fleet: args.fleet,
            devices: args.devices,
            base_port: args.base_port,
            site_dir: args.site_dir,
            example: Default::default(),
        };
        // Listen before saying where the site is: a Ctrl-C that comes right after the site line
        // must still remove the temporary site.
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt =
            signal(SignalKind::interrupt()).map_err(|e| Stop::config(e.to_string()))?;
        let mut terminate =
            signal(SignalKind::terminate()).map_err(|e| Stop::config(e.to_string()))?;
        let lab = Lab::start_with(options)
            .await
            .map_err(|e| Stop::config(e.to_string()))?;
        // The probe's path crosses the first firewall (fw1) only.
        let faults: Vec<Fault> = lab
            .devices
            .iter()
            .find(|d| d.platform == crate::core::Platform::Fortigate)
            .map(|d| d.faults.clone())
            .unwrap_or_default();
        if let Err(e) = crate::lab::probe_capture::add_to_site(
            &lab.site_dir,
            &crate::lab::Example::Embedded,
            &faults,
        ) {
            errln!("premarket: the site has no probe: {e}");
        }
        print_lab(&lab);
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        let attempts = lab.config_attempts();
        if !attempts.is_empty() {
            errln!("config-changing commands attempted during this lab:");
            for a in attempts {
                errln!("  {}: {}", a.device, a.command);
            }
        }
        lab.shutdown().await;
        Ok(0)
    })
}

/// `--fleet standard|mixed`.
pub fn parse_fleet(text: &str) -> Result<Fleet, UnknownFleet> {
    text.parse().map_err(UnknownFleet)
}

/// `--fleet` names no fleet of the lab: the lab's own words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnknownFleet(String);

fn print_lab(lab: &Lab) {
    outln!(
        "{:<8} {:<22} {:<10} {:<18} {:<52} faults",
        "device",
        "address",
        "platform",
        "model",
        "host key"
    );
    for d in &lab.devices {
        let faults: Vec<&str> = d.faults.iter().map(|f| f.name()).collect();
        outln!(
            "{:<8} {:<22} {:<10} {:<18} {:<52} {}",
            d.name,
            d.addr.to_string(),
            d.platform.name(),
            d.model,
            d.fingerprint,
            if faults.is_empty() {
                "-".to_string()
            } else {
                faults.join(",")
            }
        );
    }
    outln!(
        "{:<8} {:<22} {:<10} {:<18} capture {}/baselines/captures/{}.pcap",
        crate::lab::probe_capture::DEVICE,
        "-",
        "probe",
        "-",
        lab.site_dir.display(),
        crate::lab::probe_capture::DEVICE
    );
    outln!();
    outln!(
        "login: user {} (passwords and the enable secret are in {}/secrets/)",
        crate::lab::topology::USER,
        lab.site_dir.display()
    );
    outln!("site:  {}", lab.site_dir.display());
    outln!("try:   premarket run --dir {}", lab.site_dir.display());
    if let Some(d) = lab.devices.first() {
        outln!(
            "       ssh -p {} {}@127.0.0.1",
            d.addr.port(),
            crate::lab::topology::USER
        );
    }
    outln!("Ctrl-C stops the lab.");
}

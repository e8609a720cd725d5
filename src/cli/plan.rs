//! `premarket plan`: per device, the exact lines that would be sent, in order, each once.

use std::path::Path;

use super::{SelectArgs, Stop, load};
use crate::config::Access;
use crate::plan::Plan;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub select: SelectArgs,
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    let plan = Plan::new(&config, &args.select.selection())?;
    for device in &plan.devices {
        let d = &device.device;
        match &d.access {
            Access::Ssh(ssh) => println!("{} ({}, {}:{})", d.name, d.platform, ssh.host, ssh.port),
            // A probe is not reached over SSH: it shows what it measures instead.
            Access::Probe(probe) => println!("{} ({}: {})", d.name, d.platform, probe.describe()),
        }
        for command in &device.commands {
            for line in command.lines() {
                println!("  {line}");
            }
        }
    }
    Ok(0)
}

//! `premarket plan`: per device, the exact lines that would be sent, in order, each once.

use std::path::Path;

use super::{Exit, SelectArgs, load};
use crate::core::Platform;
use crate::plan::Plan;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub select: SelectArgs,
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Exit> {
    let config = load(dir)?;
    let plan = Plan::new(&config, &args.select.selection())?;
    for device in &plan.devices {
        let d = &device.device;
        match d.platform {
            // A probe is not reached over SSH: it has no address to show.
            Platform::Probe => println!("{} ({})", d.name, d.platform),
            _ => println!("{} ({}, {}:{})", d.name, d.platform, d.ssh.host, d.ssh.port),
        }
        for command in &device.commands {
            for line in command.lines() {
                println!("  {line}");
            }
        }
    }
    Ok(0)
}

//! `premarket list`: the checks, the devices they run on, their commands and tags.

use std::path::Path;

use super::{Exit, SelectArgs, load};
use crate::plan::Plan;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub select: SelectArgs,
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Exit> {
    let config = load(dir)?;
    let plan = Plan::new(&config, &args.select.selection())?;
    for entry in &config.catalog {
        let on: Vec<_> = plan
            .devices
            .iter()
            .filter_map(|d| {
                d.checks
                    .iter()
                    .find(|c| c.entry.id == entry.id)
                    .map(|c| (d, c))
            })
            .collect();
        if on.is_empty() {
            continue;
        }
        println!("{}  {}", entry.id, entry.title);
        println!(
            "  tags: {}",
            if entry.tags.is_empty() {
                "-".to_string()
            } else {
                entry.tags.join(", ")
            }
        );
        for (device, check) in on {
            match &check.skip {
                Some(reason) => println!("  {}: skipped ({reason})", device.device.name),
                None => {
                    let commands: Vec<String> =
                        check.commands.iter().map(ToString::to_string).collect();
                    println!("  {}: {}", device.device.name, commands.join(" | "));
                }
            }
        }
    }
    Ok(0)
}

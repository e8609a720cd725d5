//! `premarket list`: the checks, the devices they run on, their commands and tags.

use std::path::Path;

use super::{SelectArgs, Stop, load};
use crate::config::Entry;
use crate::plan::Plan;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Print the whole catalog as a Markdown table (the README's check catalogue).
    #[arg(long)]
    pub markdown: bool,
    /// Print what each check runs on each model family, as a Markdown table (src/platform's
    /// README, "What runs on which model"): the commands, or SKIP and why.
    #[arg(long)]
    pub models: bool,
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    if args.markdown {
        out!("{}", markdown(&config.catalog));
        return Ok(0);
    }
    let plan = Plan::new(&config, &args.select.selection())?;
    if args.models {
        out!("{}", super::models::markdown(&plan));
        return Ok(0);
    }
    for entry in &config.catalog {
        if let Some(site) = plan
            .site
            .iter()
            .find(|s| s.entry.id == entry.id && s.judged())
        {
            outln!("{}  {}", entry.id, entry.title);
            outln!("  tags: {}", tags(entry));
            for (device, queries) in &site.needs {
                let commands: Vec<String> = queries
                    .iter()
                    .map(|q| q.key().command.to_string())
                    .collect();
                outln!(
                    "  {} (for site {}): {}",
                    device,
                    plan.site_name,
                    commands.join(" | ")
                );
            }
            continue;
        }
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
        outln!("{}  {}", entry.id, entry.title);
        outln!("  tags: {}", tags(entry));
        for (device, check) in on {
            match &check.skip {
                Some(reason) => outln!("  {}: skipped ({reason})", device.device.name),
                None => {
                    let commands: Vec<String> = check
                        .queries
                        .iter()
                        .map(|q| q.key().command.to_string())
                        .collect();
                    outln!("  {}: {}", device.device.name, commands.join(" | "));
                }
            }
        }
    }
    Ok(0)
}

fn tags(entry: &Entry) -> String {
    if entry.tags.is_empty() {
        "-".to_string()
    } else {
        entry.tags.join(", ")
    }
}

/// The catalog as a Markdown table, one line per check: its id, the condition its title states
/// and its platform (`premarket explain ID` says the rest, from the same entry).
pub fn markdown(catalog: &[Entry]) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = String::from("| check | what must hold | platform |\n|---|---|---|\n");
    for e in catalog {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            e.id,
            cell(&e.title),
            e.platform
        ));
    }
    out
}

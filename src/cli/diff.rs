//! `premarket diff [RUN_A] [RUN_B] [--device D] [--demo [--home DIR]]`: what changed between
//! two archived runs, per device: the unified diff of the normalised configurations (as the
//! `*.config.unchanged` checks compare them, without the baseline's `config_ignore`, so the
//! whole change shows) and the box facts that differ (version, model, serial, HA, links, PTP
//! grandmaster, NTP servers, LANZ, interface count). By default the previous run and the
//! latest; run ids as `premarket history` prints them. Exit 0 no change, 1 changed, 3 no such
//! run (or fewer than two). What the archive holds is shown escaped.

use std::path::{Path, PathBuf};

use super::{Stop, demo_home, load};
use crate::check::box_facts::{self, BoxFacts};
use crate::check::config_diff;
use crate::core::Exit;
use crate::parse::{Query, Recorded};
use crate::platform::config_lines::ConfigLines;
use crate::platform::eos::RunningConfigLines;
use crate::platform::fortigate::ShowConfig;
use crate::report::archive::Archive;
use crate::report::changed;
use crate::report::escape::{control, line};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The earlier run [default: the previous run].
    #[arg(value_name = "RUN_A")]
    pub from: Option<String>,
    /// The later run [default: the latest run].
    #[arg(value_name = "RUN_B")]
    pub to: Option<String>,
    /// Only this device.
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Read the demo's archive (`premarket demo`'s home) instead of the site's.
    #[arg(long)]
    pub demo: bool,
    /// The demo's home, with --demo [default: as `premarket demo`].
    #[arg(long, value_name = "DIR", requires = "demo")]
    pub home: Option<PathBuf>,
}

/// The query kinds whose fact is a device's normalised configuration, with what it is called.
const CONFIG_KINDS: [(&str, &str); 2] = [
    (RunningConfigLines::KIND, RunningConfigLines::NAME),
    (ShowConfig::KIND, ShowConfig::NAME),
];

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let root = if args.demo {
        demo_home::archive(args.home.clone())
    } else {
        load(dir)?.site.archive.dir
    };
    let archive = Archive::new(&root);
    let ids = archive.run_ids().map_err(|e| Stop::config(e.to_string()))?;
    let pick = |given: &Option<String>, back: usize| -> Result<String, Stop> {
        match given {
            Some(id) if ids.contains(id) => Ok(id.clone()),
            Some(id) => Err(Stop::config(format!(
                "no run {} in {} (`premarket history` lists them)",
                line(id),
                root.display()
            ))),
            None => ids
                .len()
                .checked_sub(back)
                .map(|i| ids[i].clone())
                .ok_or_else(|| {
                    Stop::config(format!(
                        "fewer than two runs in {}: nothing to compare",
                        root.display()
                    ))
                }),
        }
    };
    let (from, to) = (pick(&args.from, 2)?, pick(&args.to, 1)?);
    let mut devices = archive.fact_devices(&from);
    devices.extend(archive.fact_devices(&to));
    devices.sort();
    devices.dedup();
    if let Some(d) = &args.device {
        devices.retain(|x| x == d);
    }
    outln!("premarket diff {} -> {}", line(&from), line(&to));
    let mut changed_any = false;
    for device in &devices {
        let read = |run: &str| {
            archive
                .run_facts(run, device)
                .map_err(|e| Stop::config(e.to_string()))
        };
        let (before, after) = (read(&from)?, read(&to)?);
        let mut out = Vec::new();
        let facts = changed::compare(device, &box_of(&before), &box_of(&after));
        for c in &facts {
            out.push(c.line());
        }
        if let (Some((a, what)), Some((b, _))) = (config_of(&before), config_of(&after)) {
            let a: Vec<&str> = a.lines.iter().map(String::as_str).collect();
            let b: Vec<&str> = b.lines.iter().map(String::as_str).collect();
            let named = config_diff::Named {
                device: Some(device),
                what,
            };
            // The year only when the two runs are of different years.
            let with_year = from.get(..4) != to.get(..4);
            let (old, new) = (
                named.side(&config_diff::run_of(&from, with_year)),
                named.side(&config_diff::run_of(&to, with_year)),
            );
            if let Some(d) = config_diff::diff(&a, &b, &old, &new) {
                out.push(format!("configuration: {}", d.describe()));
                out.push(d.unified.trim_end().to_string());
            }
        }
        if out.is_empty() {
            continue;
        }
        changed_any = true;
        outln!("\n== {} ==", line(device));
        for text in out {
            outln!("{}", control(&text));
        }
    }
    if !changed_any {
        outln!("No change.");
        return Ok(Exit::Ok.code());
    }
    Ok(Exit::Fail.code())
}

fn box_of(records: &[Recorded]) -> BoxFacts {
    records
        .iter()
        .find(|r| r.key == box_facts::key())
        .and_then(|r| r.fact.read().ok())
        .unwrap_or_default()
}

/// The device's configuration in a run, and what it is called.
fn config_of(records: &[Recorded]) -> Option<(ConfigLines, &'static str)> {
    records.iter().find_map(|r| {
        let (_, what) = CONFIG_KINDS.iter().find(|(kind, _)| *kind == r.key.kind)?;
        Some((r.fact.read().ok()?, *what))
    })
}

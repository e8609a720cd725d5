//! `premarket plan`: per device, every line the session will send, in order and exactly as
//! the transport sends it: session settings, escalation, the VDOM steps and the commands with
//! their contexts. Lines that depend on the device's answers carry a note with their condition
//! (a command that exists on some models only says where, and what it resolves to when the model
//! is known before the run: the baseline's `model:`, else the previous run's archived identity);
//! a secret is shown by its reference, never its value. A line the guard would refuse is shown
//! as refused and makes the exit code 3 (`premarket validate` says where it comes from). The
//! checks over several devices come last, with the commands each needs on which device.

use std::path::Path;

use super::{SelectArgs, Stop, load};
use crate::collect::ssh::profile;
use crate::config::{Access, Connection};
use crate::core::Exit;
use crate::plan::{DevicePlan, Plan};
use crate::report::archive::Archive;
use crate::ssh::script::{self, Script, Shown};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub select: SelectArgs,
}

/// Notes start in this column, so the lines themselves read as a list.
const NOTE_COLUMN: usize = 44;

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    let mut plan = Plan::new(&config, &args.select.selection())?;
    let archive = Archive::new(&config.site.archive.dir);
    plan.attach_previous(|device| archive.previous(device));
    let mut refused = 0;
    for device in &plan.devices {
        let d = &device.device;
        match &d.access {
            Access::Ssh(ssh) => {
                let via = match ssh.hops() {
                    [] => String::new(),
                    hops => format!(" via {}", hops.join(" > ")),
                };
                outln!(
                    "{}{via} ({}, {}:{})",
                    d.name,
                    d.platform,
                    ssh.host,
                    ssh.port
                );
                refused += session(device, ssh);
            }
            // A probe is not reached over SSH: it shows what it measures instead.
            Access::Probe(probe) => {
                outln!("{} ({}: {})", d.name, d.platform, probe.describe());
                for command in &device.commands {
                    outln!("  {}", command.text);
                }
            }
        }
    }
    site(&plan);
    if refused > 0 {
        return Err(Stop::config(format!(
            "{refused} line(s) would be refused by the read-only guard; `premarket validate` shows where they come from"
        )));
    }
    Ok(Exit::Ok.code())
}

/// The site checks: judged once, after the devices, over the commands they add to each session.
fn site(plan: &Plan) {
    if plan.site.is_empty() {
        return;
    }
    outln!(
        "site {} (checks over several devices, judged after them)",
        plan.site_name
    );
    for check in &plan.site {
        let reads: Vec<String> = check
            .needs
            .iter()
            .map(|(device, queries)| {
                let commands: Vec<String> = queries
                    .iter()
                    .map(|q| q.key().command.to_string())
                    .collect();
                format!("{device}: {}", commands.join(" | "))
            })
            .collect();
        let reads = if reads.is_empty() {
            "no device takes part".to_string()
        } else {
            reads.join("; ")
        };
        let judged = if check.judged() {
            String::new()
        } else {
            format!(
                " (not judged: the selection leaves out {})",
                check.left_out.join(", ")
            )
        };
        outln!("  {}  reads {reads}{judged}", check.entry.id);
    }
}

/// Prints one SSH device's script; returns how many lines the guard would refuse.
fn session(device: &DevicePlan, ssh: &Connection) -> usize {
    let Some(profile) = profile(device.device.platform) else {
        outln!(
            "  ERROR: {} is not reached over SSH",
            device.device.platform
        );
        return 1;
    };
    let script = match Script::new(profile, &device.commands, ssh.vdom.as_deref()) {
        Ok(script) => script,
        Err(r) => {
            outln!("  ERROR: {r}");
            return 1;
        }
    };
    outln!("  (keys: {})", script::keys(profile).join("; "));
    if device.depends_on_model() {
        match &device.model {
            Some(known) => outln!("  (model: {}, per {})", known.model, known.source),
            None => outln!("  (model: not known before the run; the device's answer decides)"),
        }
    }
    let secret = ssh.enable_secret.as_ref().map(ToString::to_string);
    for Shown { text, mut note } in script.shown(profile, secret.as_deref()) {
        if note.is_none()
            && let Some(i) = device.commands.iter().position(|c| c.text == text)
        {
            note = device.condition(i);
        }
        match note {
            Some(note) => outln!("  {text:<NOTE_COLUMN$} # {note}"),
            None => outln!("  {text}"),
        }
    }
    script.refusals().len()
}

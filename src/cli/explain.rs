//! `premarket explain ID` (as `rustc --explain`): what a check proves and why it matters on a
//! trading path, the commands it sends on each model family, every baseline key it reads with
//! its type, default and meaning, what its OK, FAIL, ERROR and SKIP lines look like, and the
//! remedy. `premarket explain --baseline`: every key of `site.yaml` and of a device baseline.
//!
//! Nothing here is written for `explain`: the words are the catalog entry's (`checks/*.yaml`),
//! the commands the plan's (the platform's model-gated command tables, as `list --models`
//! prints them), the keys the types' that read them ([`crate::config::reference`]). The site is
//! the one in `--dir`; where none loads, the example site compiled into the binary (with the
//! lab), and the answer says so.

use std::fmt::Write as _;
use std::path::Path;

use clap_complete::ArgValueCandidates;

use super::{Stop, complete};
use crate::config::reference::Key;
use crate::config::{Config, Entry};
use crate::core::Platform;
use crate::plan::{Catalog, Plan, PlannedCheck, ResolvedSite, Selection};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The check id (`eos.lanz.persisted`); `premarket list` names them.
    #[arg(
        value_name = "ID",
        required_unless_present = "baseline",
        conflicts_with = "baseline",
        add = ArgValueCandidates::new(complete::check_ids)
    )]
    pub id: Option<String>,
    /// Instead: every key of `site.yaml` and of a device baseline (type, default, meaning).
    #[arg(long)]
    pub baseline: bool,
}

/// Text is wrapped to this width (a terminal's 100 columns, less the indent).
const WIDTH: usize = 92;

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let (config, whose) = site(dir)?;
    if args.baseline {
        out!("{}", baseline_text(&config, &whose));
        return Ok(0);
    }
    let id = args.id.unwrap_or_default();
    match check_text(&config, &whose, &id) {
        Some(text) => {
            out!("{text}");
            Ok(0)
        }
        None => {
            let ids: Vec<&str> = config.catalog.iter().map(|e| e.id.as_str()).collect();
            let hint = match crate::core::closest(&id, ids.iter().copied()) {
                Some(near) => format!(": did you mean {near}?"),
                None => format!(" (known: {})", ids.join(", ")),
            };
            Err(Stop::config(format!("no check {id} in the catalog{hint}")))
        }
    }
}

/// The site `explain` answers from, and how to call it: the one in `dir`, else the example
/// site compiled into the binary.
pub(super) fn site(dir: &Path) -> Result<(Config, String), Stop> {
    match Config::load(dir) {
        Ok(config) => Ok((config, format!("the site in {}", dir.display()))),
        Err(e) => example(e),
    }
}

#[cfg(feature = "lab")]
fn example(_: crate::config::ConfigErrors) -> Result<(Config, String), Stop> {
    let dir = tempfile::tempdir()
        .map_err(|e| Stop::config(format!("cannot make a temporary directory: {e}")))?;
    for (path, text) in crate::lab::example::FILES {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            crate::files::ensure_dir(parent)
                .map_err(|e| Stop::config(format!("cannot write {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, text)
            .map_err(|e| Stop::config(format!("cannot write {}: {e}", path.display())))?;
    }
    let config = Config::load(dir.path())?;
    Ok((
        config,
        "the example site (no site loads in --dir)".to_string(),
    ))
}

#[cfg(not(feature = "lab"))]
fn example(e: crate::config::ConfigErrors) -> Result<(Config, String), Stop> {
    Err(Stop::from(e))
}

/// The answer for the check `id` of `config`'s catalog, or `None` when it has none.
pub fn check_text(config: &Config, whose: &str, id: &str) -> Option<String> {
    let entry = config.catalog.iter().find(|e| e.id == id)?;
    let mut errors = Vec::new();
    let catalog = Catalog::resolve(config, &mut errors);
    let definition = catalog
        .checks
        .iter()
        .find(|r| r.entry.id == id)
        .map(|r| r.definition.clone());
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", entry.id, entry.title);
    let site = catalog.site.iter().find(|s| s.entry.id == id);
    let kind = match (&entry.declared, site) {
        (Some(_), _) => format!("declarative ({})", entry.position.file.display()),
        (None, Some(site)) => format!(
            "built-in, over the site's {} devices (src/check/site.rs)",
            platforms(site.definition.platforms())
        ),
        (None, None) => format!("built-in (src/check/{}/)", entry.platform),
    };
    let tags = if entry.tags.is_empty() {
        "-".to_string()
    } else {
        entry.tags.join(", ")
    };
    let severity = format!("{:?}", entry.severity).to_lowercase();
    let _ = writeln!(
        out,
        "  platform {}, severity {severity}, tags {tags}; {kind}",
        entry.platform
    );
    section(&mut out, "What it proves");
    paragraph(&mut out, entry.proves.as_deref().unwrap_or(&entry.title));
    if let Some(why) = &entry.why {
        section(&mut out, "Why it matters on a trading path");
        paragraph(&mut out, why);
    }
    section(&mut out, "Commands it sends");
    match site {
        Some(site) => site_commands(&mut out, config, site, whose),
        None => commands(&mut out, config, entry, whose),
    }
    match (&definition, site) {
        (_, Some(site)) => {
            section(
                &mut out,
                "Baseline keys it reads (under `expect:` in site.yaml)",
            );
            keys(&mut out, &site.definition.reference(), "    reads none");
            section(
                &mut out,
                &format!(
                    "Baseline keys it reads (under `expect:` in each {} device file)",
                    platforms(site.definition.platforms())
                ),
            );
            keys(
                &mut out,
                &site.definition.device_reference(),
                "    reads none",
            );
        }
        (Some(d), None) => {
            section(
                &mut out,
                "Baseline keys it reads (under `expect:` in the device file)",
            );
            keys(&mut out, &d.reference(), "    reads none");
        }
        (None, None) => {
            section(
                &mut out,
                "Baseline keys it reads (under `expect:` in the device file)",
            );
            paragraph(
                &mut out,
                "(the check does not resolve: `premarket validate` says why)",
            );
        }
    }
    section(&mut out, "What its verdicts look like");
    verdicts(&mut out, entry, &config.site.name);
    section(&mut out, "Remedy");
    paragraph(&mut out, &entry.remedy);
    // A site check's verdict stands under the site's name: it is rerun without a device.
    let device = if site.is_some() {
        ""
    } else {
        " --device DEVICE"
    };
    let _ = writeln!(out, "\n  After a fix: premarket check {}{device}", entry.id);
    Some(out)
}

fn platforms(platforms: &[Platform]) -> String {
    let names: Vec<String> = platforms.iter().map(|p| p.to_string()).collect();
    names.join(" and ")
}

/// What a check over several devices sends: as planned for the site, the queries each device
/// taking part is sent for it (in that device's one session, beside its own checks).
fn site_commands(out: &mut String, config: &Config, site: &ResolvedSite, whose: &str) {
    let selection = Selection {
        checks: vec![site.entry.id.clone()],
        ..Selection::default()
    };
    let planned = Plan::new(config, &selection)
        .ok()
        .and_then(|plan| plan.site.into_iter().find(|s| s.entry.id == site.entry.id));
    let needs = planned.map(|p| p.needs).unwrap_or_default();
    if needs.is_empty() {
        paragraph(
            out,
            &format!(
                "No device of {whose} takes part (its queries depend on the devices' \
                 baselines); `premarket plan --check {}` in a site with one shows them.",
                site.entry.id
            ),
        );
        return;
    }
    paragraph(
        out,
        &format!("As planned for {whose}, on each device taking part (its baseline says which):"),
    );
    for (device, queries) in needs {
        let mut lines: Vec<String> = queries
            .iter()
            .map(|q| q.key().command.to_string())
            .collect();
        lines.dedup();
        let _ = writeln!(out, "    {device}: {}", lines.join("; "));
    }
}

fn section(out: &mut String, title: &str) {
    let _ = writeln!(out, "\n{title}");
}

fn paragraph(out: &mut String, text: &str) {
    indented(out, text, "  ");
}

fn indented(out: &mut String, text: &str, indent: &str) {
    for line in crate::probe::chart::latency::wrap(text, WIDTH) {
        let _ = writeln!(out, "{indent}{line}");
    }
}

/// What the check sends, as planned for the first device of its platform in the site: the
/// commands every model gets, then per model family (the platform's model-gated tables).
fn commands(out: &mut String, config: &Config, entry: &Entry, whose: &str) {
    let selection = Selection {
        checks: vec![entry.id.clone()],
        ..Selection::default()
    };
    let planned: Option<(String, PlannedCheck)> =
        Plan::new(config, &selection).ok().and_then(|plan| {
            plan.devices.into_iter().find_map(|d| {
                let name = d.device.name.to_string();
                d.checks
                    .into_iter()
                    .find(|c| c.entry.id == entry.id && c.skip.is_none())
                    .map(|c| (name, c))
            })
        });
    let Some((device, check)) = planned else {
        paragraph(
            out,
            &format!(
                "No {} device of {whose} runs it, so its commands (which may depend on the \
                 baseline: ports, flows) are not planned here; `premarket plan --check {}` in a \
                 site with one shows them.",
                entry.platform, entry.id
            ),
        );
        return;
    };
    paragraph(
        out,
        &format!("As planned for {device} of {whose} (ports and flows come from its baseline):"),
    );
    let examples = crate::platform::model_examples(entry.platform);
    let release = super::models::release(entry.platform);
    let (common, families) = super::models::by_family(&check, examples, release);
    // The cells are the README table's (Markdown): a terminal reads `|` unescaped.
    let plain = |cell: &str| cell.replace("\\|", "|");
    let _ = writeln!(out, "    every model: {}", plain(&common));
    let release = if release.is_empty() {
        String::new()
    } else {
        format!(" ({release})")
    };
    for (family, cell) in families {
        let _ = writeln!(out, "    {family}{release}: {}", plain(&cell));
    }
    if entry.platform == Platform::Probe {
        paragraph(
            out,
            "The probe sends no command to a device: it sends and captures frames (or reads a \
             capture), as its baseline's `source:` says.",
        );
    }
}

/// One entry per key: the path, its type and whether it must be written or its default, then
/// what it means.
pub fn keys(out: &mut String, keys: &[Key], none: &str) {
    if keys.is_empty() {
        let _ = writeln!(out, "{none}");
        return;
    }
    for key in keys {
        let need = match (&key.default, key.required) {
            (Some(default), _) => format!("default {default} ({})", key.source),
            (None, true) => "required".to_string(),
            (None, false) => "optional".to_string(),
        };
        let _ = writeln!(out, "  {}: {}; {need}", key.path, key.ty);
        if !key.meaning.is_empty() {
            indented(out, &key.meaning, "      ");
        }
    }
}

/// The catalog's example line of each status, as the report prints it, and what a SKIP is.
/// A site check's verdict stands under the site's name.
fn verdicts(out: &mut String, entry: &Entry, site: &str) {
    let device = match entry.platform {
        Platform::Eos => "sw1",
        Platform::Fortigate => "fw1",
        Platform::Probe => "probe1",
        Platform::Site => site,
    };
    for (status, line) in entry.examples.all() {
        let _ = writeln!(out, "  {status:<5} {device} {} — {line}", entry.id);
    }
    if entry.examples.error.is_none() {
        let _ = writeln!(
            out,
            "  ERROR {device} {} — <why it could not tell: unreachable, timeout, output it \
             cannot read, quoted>",
            entry.id
        );
    }
    if entry.examples.skip.is_none() && entry.platform == Platform::Site {
        let _ = writeln!(
            out,
            "  SKIP  {device} {} — <the reason>: when the devices' baselines give it nothing \
             to judge",
            entry.id
        );
    } else if entry.examples.skip.is_none() {
        let _ = writeln!(
            out,
            "  SKIP  {device} {} — <the reason>: when the device's `skip:` names it, or its \
             model has none of its commands (above)",
            entry.id
        );
    }
    paragraph(
        out,
        "OK and SKIP exit 0; a FAIL exits 1, an ERROR (the inspection could not tell) 2.",
    );
}

/// The reference of `site.yaml` and of each platform's device file, `expect:` included (the
/// keys the catalog's checks of the platform read, and which checks read each).
pub fn baseline_text(config: &Config, whose: &str) -> String {
    let mut out = String::from("baselines/site.yaml\n");
    keys(&mut out, &crate::config::site_reference(), "");
    let mut errors = Vec::new();
    let catalog = Catalog::resolve(config, &mut errors);
    let _ = writeln!(
        out,
        "\n  expect: keys of site.yaml (read by the site checks of the catalog of {whose})"
    );
    let site_keys: Vec<Key> = catalog
        .site
        .iter()
        .flat_map(|s| {
            s.definition.reference().into_iter().map(|mut key| {
                key.path = format!("expect.{}", key.path);
                key.meaning = format!("{} (read by {})", key.meaning, s.entry.id)
                    .trim_start()
                    .to_string();
                key
            })
        })
        .collect();
    keys(&mut out, &site_keys, "  none");
    for platform in Platform::ALL {
        // Not a device: its keys are site.yaml's `expect:`, above.
        if platform == Platform::Site {
            continue;
        }
        let _ = writeln!(out, "\nbaselines/<device>.yaml, platform: {platform}");
        let file: Vec<Key> = crate::config::device_reference(platform);
        keys(&mut out, &file, "");
        if platform == Platform::Probe {
            continue;
        }
        let _ = writeln!(
            out,
            "\n  expect: keys of {platform} (read by the checks of the catalog of {whose})"
        );
        let mut seen: Vec<(Key, Vec<String>)> = Vec::new();
        // A built-in check's key carries its type; a declarative rule's only the operator's
        // kind of value: the first check to list a key describes it.
        let mut checks: Vec<_> = catalog.for_platform(platform).collect();
        checks.sort_by_key(|r| r.entry.declared.is_some());
        let site_checks = catalog
            .site
            .iter()
            .filter(|s| s.definition.platforms().contains(&platform))
            .map(|s| (s.entry.id.clone(), s.definition.device_reference()));
        let readers = checks
            .into_iter()
            .map(|r| (r.entry.id.clone(), r.definition.reference()))
            .chain(site_checks);
        for (id, reference) in readers {
            for key in reference {
                match seen.iter_mut().find(|(k, _)| k.path == key.path) {
                    Some((_, by)) => by.push(id.clone()),
                    None => seen.push((key, vec![id.clone()])),
                }
            }
        }
        seen.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        let listed: Vec<Key> = seen
            .into_iter()
            .map(|(mut key, by)| {
                key.path = format!("expect.{}", key.path);
                if !key.path.contains('.') || key.path.matches('.').count() == 1 {
                    key.meaning = format!("{} (read by {})", key.meaning, by.join(", "))
                        .trim_start()
                        .to_string();
                }
                key
            })
            .collect();
        keys(&mut out, &listed, "  none");
    }
    out
}

//! Stage 2 of the pipeline: decide what runs where.
//!
//! The catalog's entries are resolved to checks, each selected check's input is built from each
//! device's baseline (every mistake at once, at its `file:line:column`), and a plan lists, per
//! device, the checks and the de-duplicated queries they need, in the order they will be sent: a
//! command needed by five checks is sent once. A command that exists on some models only comes
//! after the identity command that tells the model ([`model`]).
//!
//! A check over several devices (a site check) is planned once per run: it names the queries it
//! needs on each device taking part, which join that device's session (a device that takes part
//! only for the site check is planned with no check of its own).
//!
//! A query may be the second sample of a command (the same read-only line again, some seconds
//! later, to see a counter move): its first sample goes first in the session after the identity
//! commands, and the second last, so the other commands fill the gap and the session waits only
//! for what is left.

mod catalog;
pub mod hint;
mod model;
mod select;

pub use catalog::{Catalog, Resolved, ResolvedSite};
pub use model::Known;
/// What a device says it is ([`premarket_parse::model`]): the collectors learn it from the
/// identity command.
pub use premarket_parse::Model;
pub use select::Selection;

use std::sync::Arc;

use premarket_check::Prepared;
use premarket_check::site::SitePrepared;
use premarket_config::{Config, ConfigError, ConfigErrors, Device, Entry};
use premarket_core::Command;
use premarket_parse::{AnyQuery, Previous};

/// One check planned on one device.
#[derive(Clone)]
pub struct PlannedCheck {
    /// The catalog's entry (shared by every device's plan).
    pub entry: Arc<Entry>,
    /// The check with its input built; `None` when the baseline skips it.
    pub prepared: Option<Arc<dyn Prepared>>,
    /// The baseline's reason for skipping it.
    pub skip: Option<String>,
    pub queries: Vec<Arc<dyn AnyQuery>>,
}

/// Everything to do on one device.
#[derive(Clone)]
pub struct DevicePlan {
    pub device: Arc<Device>,
    pub checks: Vec<PlannedCheck>,
    /// Every query, each once, in first-needed order.
    pub queries: Vec<Arc<dyn AnyQuery>>,
    /// Every command to send, each once, in first-needed order; except that first samples
    /// come first and second samples last ([`Command::resample`]).
    pub commands: Vec<Command>,
    /// What earlier runs recorded for this device (empty until [`Plan::attach_previous`]).
    pub previous: Previous,
    /// The device's model as known before the run (the baseline's `model:`, or the previous
    /// run's identity fact once [`Plan::attach_previous`] ran); the device's answer decides.
    pub model: Option<Known>,
}

/// A check over several devices, planned once per run.
#[derive(Clone)]
pub struct SitePlanned {
    /// The catalog's entry.
    pub entry: Arc<Entry>,
    pub prepared: Arc<dyn SitePrepared>,
    /// The devices that take part, each with the queries it is sent for this check.
    pub needs: Vec<(String, Vec<Arc<dyn AnyQuery>>)>,
    /// Devices taking part that the selection (`--device`) leaves out: the check is then not
    /// judged (its queries still go to the selected devices, so a capture holds them).
    pub left_out: Vec<String>,
}

impl SitePlanned {
    /// Judged in this run: every device taking part is inspected.
    pub fn judged(&self) -> bool {
        self.left_out.is_empty()
    }
}

/// The whole run.
#[derive(Clone)]
pub struct Plan {
    pub devices: Vec<DevicePlan>,
    /// The checks over several devices, judged after the devices.
    pub site: Vec<SitePlanned>,
    /// The site's name: the "device" its checks' verdicts stand under.
    pub site_name: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{0}")]
    Config(#[from] ConfigErrors),
    /// `why` says which part of the selection matched nothing and what was probably meant.
    #[error("the selection matches no check: {why}")]
    NothingSelected { why: String },
    #[error("{why}")]
    UnknownDevice { name: String, why: String },
}

impl Plan {
    /// Plans the selected checks. Every configuration mistake found on the way (an unknown
    /// check, a baseline key no check reads, a missing or mistyped value) is returned at once.
    pub fn new(config: &Config, selection: &Selection) -> Result<Plan, PlanError> {
        for name in &selection.devices {
            if config.device(name).is_none() {
                return Err(PlanError::UnknownDevice {
                    name: name.clone(),
                    why: hint::unknown_device(config, name),
                });
            }
        }
        let mut errors = Vec::new();
        let catalog = Catalog::resolve(config, &mut errors);
        for device in &config.devices {
            catalog.check_keys(device, &mut errors);
        }
        catalog.check_site_keys(config, &mut errors);
        let site = plan_site(&catalog, config, selection, &mut errors);
        let mut devices = Vec::new();
        for device in &config.devices {
            if !selection.wants_device(&device.name) {
                continue;
            }
            let checks = plan_checks(&catalog, device, selection, &mut errors);
            let extra = site_queries(&site, &device.name);
            if !checks.is_empty() || !extra.is_empty() {
                devices.push(DevicePlan::new(Arc::new(device.clone()), checks, extra));
            }
        }
        if !errors.is_empty() {
            return Err(ConfigErrors(errors).into());
        }
        if devices.is_empty() && !site.iter().any(SitePlanned::judged) {
            return Err(PlanError::NothingSelected {
                why: hint::nothing_selected(config, selection),
            });
        }
        Ok(Plan {
            devices,
            site,
            site_name: config.site.name.clone(),
        })
    }

    /// Keeps only the checks that `keep(device, check id)` accepts (`--last-failed` selects
    /// exact pairs), recomputing each device's queries; devices left with none are dropped.
    /// A site check is kept by `keep(site name, check id)`.
    pub fn retain(&mut self, keep: impl Fn(&str, &str) -> bool) {
        let site_name = self.site_name.clone();
        self.site.retain(|s| keep(&site_name, &s.entry.id));
        for device in &mut self.devices {
            let name = device.device.name.clone();
            let checks = std::mem::take(&mut device.checks)
                .into_iter()
                .filter(|c| keep(&name, &c.entry.id))
                .collect();
            let extra = site_queries(&self.site, &name);
            *device = DevicePlan::new(device.device.clone(), checks, extra);
        }
        self.devices
            .retain(|d| !d.checks.is_empty() || !d.queries.is_empty());
    }

    /// Whether a site check reads the facts of device `name` (they are kept until the site is
    /// judged).
    pub fn site_reads(&self, name: &str) -> bool {
        self.site
            .iter()
            .filter(|s| s.judged())
            .any(|s| s.needs.iter().any(|(device, _)| device == name))
    }

    /// Gives each device that needs it (a query the archive keeps) what earlier runs
    /// recorded: `lookup` reads the archive for a device name. The devices are shared between
    /// two threads (reading a thousand devices' records was a tenth of a second before the
    /// first device was reached).
    pub fn attach_previous(&mut self, lookup: impl Fn(&str) -> Previous + Sync) {
        let attach = |devices: Vec<&mut DevicePlan>| {
            for device in devices {
                if device.queries.iter().any(|q| q.archived()) {
                    device.previous = lookup(&device.device.name);
                    device.learn_model();
                }
            }
        };
        premarket_core::in_halves(self.devices.iter_mut().collect(), attach);
    }

    /// Every (check id, device) the run judges; a site check's device is the site's name.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let site = self
            .site
            .iter()
            .filter(|s| s.judged())
            .map(|s| (s.entry.id.clone(), self.site_name.clone()));
        self.devices
            .iter()
            .flat_map(|d| {
                let device = d.device.name.to_string();
                d.checks
                    .iter()
                    .map(move |c| (c.entry.id.clone(), device.clone()))
            })
            .chain(site)
            .collect()
    }

    pub fn check_count(&self) -> usize {
        let site = self.site.iter().filter(|s| s.judged()).count();
        self.devices.iter().map(|d| d.checks.len()).sum::<usize>() + site
    }
}

impl DevicePlan {
    /// The device's checks, and `extra` queries site checks need here.
    fn new(
        device: Arc<Device>,
        checks: Vec<PlannedCheck>,
        extra: Vec<Arc<dyn AnyQuery>>,
    ) -> DevicePlan {
        let needed: Vec<Arc<dyn AnyQuery>> = checks
            .iter()
            .flat_map(|c| c.queries.clone())
            .chain(extra)
            .collect();
        // The identity commands first: the model decides whether the others are sent.
        // Each query's key built once (it formats the command): the checks of a device name
        // the same few queries many times over.
        let mut queries: Vec<Arc<dyn AnyQuery>> = Vec::new();
        let mut keys: std::collections::HashSet<premarket_parse::QueryKey> = Default::default();
        let mut commands: Vec<Command> = Vec::new();
        for query in model::identities(&needed).iter().chain(&needed) {
            let key = query.key();
            if keys.contains(&key) {
                continue;
            }
            if !commands.contains(&key.command) {
                commands.push(key.command.clone());
            }
            keys.insert(key);
            queries.push(query.clone());
        }
        let identity: Vec<Command> = model::identities(&needed)
            .iter()
            .map(|q| q.key().command)
            .collect();
        let mut plan = DevicePlan {
            commands: sample_order(commands, &identity),
            device,
            checks,
            queries,
            previous: Previous::default(),
            model: None,
        };
        plan.learn_model();
        plan
    }

    /// The longest gap a second sample asks for: how much longer than its commands a session
    /// may take.
    pub fn longest_sample_gap(&self) -> Option<std::time::Duration> {
        self.commands
            .iter()
            .filter_map(|c| c.resample)
            .map(|r| std::time::Duration::from_secs(u64::from(r.gap_s)))
            .max()
    }
}

/// The identity commands first (the model decides what else is sent), then first samples (each
/// second sample's first is planned, even if no query reads it), then every other command in its
/// order, then the second samples.
fn sample_order(commands: Vec<Command>, identity: &[Command]) -> Vec<Command> {
    let (seconds, rest): (Vec<Command>, Vec<Command>) =
        commands.into_iter().partition(|c| c.resample.is_some());
    let (leading, rest): (Vec<Command>, Vec<Command>) =
        rest.into_iter().partition(|c| identity.contains(c));
    let mut firsts: Vec<Command> = Vec::new();
    for second in &seconds {
        let first = second.first_sample();
        if !firsts.contains(&first) && !leading.contains(&first) {
            firsts.push(first);
        }
    }
    let others: Vec<Command> = rest.into_iter().filter(|c| !firsts.contains(c)).collect();
    leading
        .into_iter()
        .chain(firsts)
        .chain(others)
        .chain(seconds)
        .collect()
}

/// The selected site checks, their inputs built from the site's and its devices' baselines.
/// One whose devices `--device` does not all select is not judged (the site as a whole is not
/// inspected), but still sends its queries to those selected; one whose devices it selects
/// none of is left out.
fn plan_site(
    catalog: &Catalog,
    config: &Config,
    selection: &Selection,
    errors: &mut Vec<ConfigError>,
) -> Vec<SitePlanned> {
    let mut planned = Vec::new();
    for ResolvedSite { entry, definition } in &catalog.site {
        if !selection.wants(entry) {
            continue;
        }
        let devices: Vec<(&str, &premarket_config::BaselineText)> = config
            .devices
            .iter()
            .filter(|d| definition.platforms().contains(&d.platform))
            .map(|d| (d.name.as_str(), &d.baseline))
            .collect();
        match definition.prepare(&config.site.baseline, &devices) {
            Ok(prepared) => {
                let needs: Vec<(String, Vec<Arc<dyn AnyQuery>>)> = prepared
                    .needs()
                    .into_iter()
                    .map(|(name, queries)| (name, queries.into_iter().map(Arc::from).collect()))
                    .collect();
                let left_out: Vec<String> = needs
                    .iter()
                    .map(|(name, _)| name.clone())
                    .filter(|name| !selection.wants_device(name))
                    .collect();
                // `--device` naming none of the devices taking part: nothing of it runs here.
                if !selection.devices.is_empty() && left_out.len() == needs.len() {
                    continue;
                }
                planned.push(SitePlanned {
                    entry: entry.clone(),
                    prepared,
                    needs,
                    left_out,
                });
            }
            Err(mistakes) => errors.extend(mistakes),
        }
    }
    planned
}

/// The queries the site checks need on device `name`.
fn site_queries(site: &[SitePlanned], name: &str) -> Vec<Arc<dyn AnyQuery>> {
    site.iter()
        .flat_map(|s| &s.needs)
        .filter(|(device, _)| device == name)
        .flat_map(|(_, queries)| queries.iter().cloned())
        .collect()
}

/// The selected checks of one device, their inputs built from its baseline.
fn plan_checks(
    catalog: &Catalog,
    device: &Device,
    selection: &Selection,
    errors: &mut Vec<ConfigError>,
) -> Vec<PlannedCheck> {
    let mut checks = Vec::new();
    for Resolved { entry, definition } in catalog.for_platform(device.platform) {
        if !selection.wants(entry) {
            continue;
        }
        if let Some(reason) = device.skip.get(&entry.id) {
            checks.push(PlannedCheck {
                entry: entry.clone(),
                prepared: None,
                skip: Some(reason.clone()),
                queries: Vec::new(),
            });
            continue;
        }
        match definition.prepare(&device.baseline) {
            Ok(prepared) => checks.push(PlannedCheck {
                entry: entry.clone(),
                queries: prepared.queries().into_iter().map(Arc::from).collect(),
                prepared: Some(prepared),
                skip: None,
            }),
            Err(e) => errors.push(e),
        }
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_samples_go_first_and_second_samples_last() {
        let c = Command::new;
        let first = c("show interfaces Ethernet1 | json");
        let planned = sample_order(
            vec![
                c("show version | json"),
                first.clone().resampled(10),
                c("show ptp | json"),
                first.clone(),
                c("show interfaces Ethernet4 | json").resampled(5),
            ],
            &[c("show version | json")],
        );
        assert_eq!(
            planned,
            vec![
                c("show version | json"),
                first.clone(),
                c("show interfaces Ethernet4 | json"),
                c("show ptp | json"),
                first.resampled(10),
                c("show interfaces Ethernet4 | json").resampled(5),
            ]
        );
        let plain = vec![c("a"), c("b")];
        assert_eq!(sample_order(plain.clone(), &[]), plain);
    }
}

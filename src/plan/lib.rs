#![doc = include_str!("README.md")]

mod catalog;
pub mod hint;
mod model;
mod select;
mod site;

pub use catalog::{Catalog, Resolved, ResolvedSite};
pub use model::Known;
/// What a device says it is ([`premarket_parse::model`]): the collectors learn it from the
/// identity command.
pub use premarket_parse::Model;
pub use select::Selection;
pub use site::SitePlanned;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use premarket_check::Prepared;
use premarket_config::{BaselineText, Config, ConfigError, ConfigErrors, Device, Entry, Skip};
use premarket_core::{Command, DeviceName, Platform};
use premarket_parse::{AnyQuery, BoxReference, Previous, Reference};

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
    /// What it judges against, when it compares with an earlier reading
    /// ([`premarket_check::Check::COMPARES`]): set from the archive by the run driver; the first
    /// reading until then.
    pub reference: Reference,
}

impl PlannedCheck {
    /// Whether it judges against a reference (an earlier reading of its own).
    pub fn compares(&self) -> bool {
        self.prepared.as_ref().is_some_and(|p| p.compares())
    }

    /// The queries whose facts the archive keeps: what its reference holds.
    pub fn archived_keys(&self) -> Vec<premarket_parse::QueryKey> {
        self.queries
            .iter()
            .filter(|q| q.archived())
            .map(|q| q.key())
            .collect()
    }
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
    /// The newest archived record of each of the device's queries (empty until
    /// [`Plan::attach_previous`]): the model the previous run saw. Checks judge against their
    /// own [`PlannedCheck::reference`], not this.
    pub previous: Previous,
    /// What the device's box facts are compared with, and whether this run's become the next
    /// reference (full runs only).
    pub box_facts: BoxReference,
    /// The device's model as known before the run (the baseline's `model:`, or the previous
    /// run's identity fact once [`Plan::attach_previous`] ran); the device's answer decides.
    pub model: Option<Known>,
}

/// The whole run.
#[derive(Clone)]
pub struct Plan {
    pub devices: Vec<DevicePlan>,
    /// Selected devices whose baseline has mistakes: not inspected ([`Plan::sparing`]).
    pub invalid: Vec<InvalidDevice>,
    /// The checks over several devices, judged after the devices.
    pub site: Vec<SitePlanned>,
    /// The site's name: the "device" its checks' verdicts stand under.
    pub site_name: String,
}

/// A selected device whose baseline has mistakes: every one found, and the selected checks it
/// would have run (none when its platform is not known).
#[derive(Clone, Debug)]
pub struct InvalidDevice {
    pub name: DeviceName,
    pub file: PathBuf,
    pub platform: Option<Platform>,
    pub checks: Vec<Arc<Entry>>,
    /// In file order.
    pub mistakes: Vec<ConfigError>,
}

/// What the plan reads of a device: a loaded one's, or what could be read of a rejected one.
pub struct Baseline<'a> {
    pub name: &'a DeviceName,
    pub platform: Platform,
    pub baseline: &'a BaselineText,
    pub skip: &'a BTreeMap<String, Skip>,
}

impl<'a> From<&'a Device> for Baseline<'a> {
    fn from(d: &'a Device) -> Self {
        Baseline {
            name: &d.name,
            platform: d.platform,
            baseline: &d.baseline,
            skip: &d.skip,
        }
    }
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
    /// check, a baseline key no check reads, a missing or mistyped value, a device's baseline
    /// that did not load) is returned at once.
    pub fn new(config: &Config, selection: &Selection) -> Result<Plan, PlanError> {
        let (plan, mut others) = Plan::build(config, selection)?;
        if plan.invalid.is_empty() && others.is_empty() {
            return Ok(plan);
        }
        let mut errors: Vec<ConfigError> =
            plan.invalid.into_iter().flat_map(|d| d.mistakes).collect();
        errors.append(&mut others);
        Err(ConfigErrors(errors).into())
    }

    /// Plans the selected checks on the devices whose baselines are right, and sets aside the
    /// selected devices whose baselines have mistakes ([`Plan::invalid`]). A mistake in the
    /// catalog is every device's: it is an error here (with every device's mistakes).
    pub fn sparing(config: &Config, selection: &Selection) -> Result<Plan, PlanError> {
        Plan::build(config, selection).map(|(plan, _)| plan)
    }

    /// The plan, and the mistakes of the devices not selected.
    fn build(
        config: &Config,
        selection: &Selection,
    ) -> Result<(Plan, Vec<ConfigError>), PlanError> {
        for name in &selection.devices {
            if !config.lists(name) {
                return Err(PlanError::UnknownDevice {
                    name: name.clone(),
                    why: hint::unknown_device(config, name),
                });
            }
        }
        let mut site_errors = Vec::new();
        let catalog = Catalog::resolve(config, &mut site_errors);
        catalog.check_site_keys(config, &mut site_errors);
        let mut selected = Vec::new();
        let mut loaded = Vec::new();
        let mut invalid = Vec::new();
        let mut others = Vec::new();
        for device in &config.devices {
            let view = Baseline::from(device);
            let wanted = selection.wants_device(&device.name);
            let (checks, mut mistakes) = read(config, &catalog, Some(&view), wanted, selection);
            loaded.push((device, mistakes.is_empty()));
            match (mistakes.is_empty(), wanted) {
                (true, true) => selected.push((device, checks)),
                (true, false) => {}
                (false, true) => {
                    invalid.push(InvalidDevice {
                        name: device.name.clone(),
                        file: device.file.clone(),
                        platform: Some(device.platform),
                        checks: blocked(&catalog, device.platform, &device.skip, selection),
                        mistakes: merged(Vec::new(), mistakes),
                    });
                }
                (false, false) => others.append(&mut mistakes),
            }
        }
        for rejected in &config.rejected {
            let view =
                rejected
                    .platform
                    .zip(rejected.baseline.as_ref())
                    .map(|(platform, baseline)| Baseline {
                        name: &rejected.name,
                        platform,
                        baseline,
                        skip: &rejected.skip,
                    });
            let wanted = selection.wants_device(&rejected.name);
            let (_, found) = read(config, &catalog, view.as_ref(), wanted, selection);
            let mut mistakes = merged(rejected.mistakes.clone(), found);
            if let Some(platform) = rejected.platform {
                mistakes.iter_mut().for_each(|e| catalog.place(platform, e));
            }
            let checks = rejected
                .platform
                .map(|p| blocked(&catalog, p, &rejected.skip, selection))
                .unwrap_or_default();
            if wanted && (rejected.platform.is_none() || !checks.is_empty()) {
                invalid.push(InvalidDevice {
                    name: rejected.name.clone(),
                    file: rejected.file.clone(),
                    platform: rejected.platform,
                    checks,
                    mistakes,
                });
            } else if !wanted {
                others.append(&mut mistakes);
            }
        }
        let site = site::plan(&catalog, config, selection, &loaded, &mut site_errors);
        let devices: Vec<DevicePlan> = selected
            .into_iter()
            .filter_map(|(device, checks)| {
                let extra = site::queries(&site, &device.name);
                (!checks.is_empty() || !extra.is_empty())
                    .then(|| DevicePlan::new(Arc::new(device.clone()), checks, extra))
            })
            .collect();
        if !site_errors.is_empty() {
            site_errors.extend(invalid.into_iter().flat_map(|d| d.mistakes));
            site_errors.append(&mut others);
            return Err(ConfigErrors(site_errors).into());
        }
        if devices.is_empty() && invalid.is_empty() && !site.iter().any(SitePlanned::judged) {
            return Err(PlanError::NothingSelected {
                why: hint::nothing_selected(config, selection),
            });
        }
        let plan = Plan {
            devices,
            invalid,
            site,
            site_name: config.site.name.clone(),
        };
        Ok((plan, others))
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
            let extra = site::queries(&self.site, &name);
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
            box_facts: BoxReference::default(),
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

/// What the plan reads of one device: its keys and its skips (every device), and its selected
/// checks with their inputs (a selected one); the mistakes found on the way.
fn read(
    config: &Config,
    catalog: &Catalog,
    device: Option<&Baseline<'_>>,
    wanted: bool,
    selection: &Selection,
) -> (Vec<PlannedCheck>, Vec<ConfigError>) {
    let mut mistakes = Vec::new();
    let Some(device) = device else {
        return (Vec::new(), mistakes);
    };
    catalog.check_keys(device, &mut mistakes);
    check_skips(config, device, &mut mistakes);
    let checks = if wanted {
        plan_checks(catalog, device, selection, &mut mistakes)
    } else {
        Vec::new()
    };
    (checks, mistakes)
}

/// A device's mistakes from loading and from planning, in file order, each once.
fn merged(mut loaded: Vec<ConfigError>, found: Vec<ConfigError>) -> Vec<ConfigError> {
    for e in found {
        if !loaded.contains(&e) {
            loaded.push(e);
        }
    }
    loaded.sort_by(|a, b| {
        (&a.position.file, a.position.line, a.position.column).cmp(&(
            &b.position.file,
            b.position.line,
            b.position.column,
        ))
    });
    loaded
}

/// The selected checks of `platform` a device does not skip: what an invalid device blocks.
fn blocked(
    catalog: &Catalog,
    platform: Platform,
    skip: &BTreeMap<String, Skip>,
    selection: &Selection,
) -> Vec<Arc<Entry>> {
    catalog
        .for_platform(platform)
        .filter(|r| selection.wants(&r.entry) && !skip.contains_key(&r.entry.id))
        .map(|r| r.entry.clone())
        .collect()
}

/// Every check `skip:` names must be in the catalog: a typo would leave the check running.
fn check_skips(config: &Config, device: &Baseline<'_>, errors: &mut Vec<ConfigError>) {
    for (id, skip) in device.skip {
        if config.catalog.iter().any(|e| &e.id == id) {
            continue;
        }
        let ids = config.catalog.iter().map(|e| e.id.as_str());
        let meant = premarket_core::closest(id, ids)
            .map(|m| format!("; did you mean {m}?"))
            .unwrap_or_default();
        errors.push(ConfigError::new(
            skip.position.clone(),
            format!(
                "device {}: skip names check {id}, which is not in the catalog{meant}",
                device.name
            ),
        ));
    }
}

/// The selected checks of one device, their inputs built from its baseline.
fn plan_checks(
    catalog: &Catalog,
    device: &Baseline<'_>,
    selection: &Selection,
    errors: &mut Vec<ConfigError>,
) -> Vec<PlannedCheck> {
    let mut checks = Vec::new();
    for Resolved { entry, definition } in catalog.for_platform(device.platform) {
        if !selection.wants(entry) {
            continue;
        }
        if let Some(skip) = device.skip.get(&entry.id) {
            checks.push(PlannedCheck {
                entry: entry.clone(),
                prepared: None,
                skip: Some(skip.reason.clone()),
                queries: Vec::new(),
                reference: Reference::First,
            });
            continue;
        }
        match definition.prepare(device.baseline) {
            Ok(prepared) => checks.push(PlannedCheck {
                entry: entry.clone(),
                queries: prepared.queries().into_iter().map(Arc::from).collect(),
                prepared: Some(prepared),
                skip: None,
                reference: Reference::First,
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

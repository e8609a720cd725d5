#![doc = include_str!("README.md")]

mod catalog;
pub mod hint;
mod model;
mod select;

pub use catalog::{Catalog, Resolved};
pub use model::Known;
/// What a device says it is ([`premarket_parse::model`]): the collectors learn it from the
/// identity command.
pub use premarket_parse::Model;
pub use select::Selection;

use std::sync::Arc;

use premarket_check::Prepared;
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

/// The whole run.
#[derive(Clone)]
pub struct Plan {
    pub devices: Vec<DevicePlan>,
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
        let mut devices = Vec::new();
        for device in &config.devices {
            if !selection.wants_device(&device.name) {
                continue;
            }
            let checks = plan_checks(&catalog, device, selection, &mut errors);
            if !checks.is_empty() {
                devices.push(DevicePlan::new(Arc::new(device.clone()), checks));
            }
        }
        if !errors.is_empty() {
            return Err(ConfigErrors(errors).into());
        }
        if devices.is_empty() {
            return Err(PlanError::NothingSelected {
                why: hint::nothing_selected(config, selection),
            });
        }
        Ok(Plan { devices })
    }

    /// Keeps only the checks that `keep(device, check id)` accepts (`--last-failed` selects
    /// exact pairs), recomputing each device's queries; devices left with none are dropped.
    pub fn retain(&mut self, keep: impl Fn(&str, &str) -> bool) {
        for device in &mut self.devices {
            let name = device.device.name.clone();
            let checks = std::mem::take(&mut device.checks)
                .into_iter()
                .filter(|c| keep(&name, &c.entry.id))
                .collect();
            *device = DevicePlan::new(device.device.clone(), checks);
        }
        self.devices.retain(|d| !d.checks.is_empty());
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

    pub fn check_count(&self) -> usize {
        self.devices.iter().map(|d| d.checks.len()).sum()
    }
}

impl DevicePlan {
    fn new(device: Arc<Device>, checks: Vec<PlannedCheck>) -> DevicePlan {
        let needed: Vec<Arc<dyn AnyQuery>> =
            checks.iter().flat_map(|c| c.queries.clone()).collect();
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

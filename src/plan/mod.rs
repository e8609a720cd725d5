//! Stage 2 of the pipeline: decide what runs where.
//!
//! A plan lists, per device, the selected checks and the de-duplicated commands they need, in
//! the order they will be sent: a command needed by five checks is sent once.

mod select;

pub use select::Selection;

use std::sync::Arc;

use crate::check::registry::{self, Evaluator};
use crate::config::{Config, ConfigError, ConfigErrors, Device, Entry};
use crate::core::Command;

/// One check planned on one device.
#[derive(Clone)]
pub struct PlannedCheck {
    pub entry: Entry,
    pub evaluator: Evaluator,
    pub commands: Vec<Command>,
    /// Set when the device's baseline says to skip this check.
    pub skip: Option<String>,
}

/// Everything to do on one device.
#[derive(Clone)]
pub struct DevicePlan {
    pub device: Arc<Device>,
    pub checks: Vec<PlannedCheck>,
    /// Every command to send, each once, in first-needed order.
    pub commands: Vec<Command>,
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
    #[error("the selection matches no check. Valid ids: {}", .valid.join(", "))]
    NothingSelected { valid: Vec<String> },
    #[error("no device is named {name}. Devices: {}", .valid.join(", "))]
    UnknownDevice { name: String, valid: Vec<String> },
}

impl Plan {
    /// Plans the selected checks. A selected check whose baseline value is missing is a
    /// configuration error pointing at the device file's `expect:`.
    pub fn new(config: &Config, selection: &Selection) -> Result<Plan, PlanError> {
        for name in &selection.devices {
            if config.device(name).is_none() {
                return Err(PlanError::UnknownDevice {
                    name: name.clone(),
                    valid: config.devices.iter().map(|d| d.name.clone()).collect(),
                });
            }
        }
        let mut errors = Vec::new();
        let mut devices = Vec::new();
        for device in &config.devices {
            if !selection.wants_device(&device.name) {
                continue;
            }
            let mut checks = Vec::new();
            for entry in config
                .catalog
                .iter()
                .filter(|e| e.platform == device.platform && selection.wants(e))
            {
                let Some(evaluator) = registry::find(&entry.id) else {
                    continue;
                };
                let skip = device.skip.get(&entry.id).cloned();
                let commands = match (&skip, evaluator.commands(&device.expect)) {
                    (Some(_), _) => Vec::new(),
                    (None, Ok(commands)) => commands,
                    (None, Err(missing)) => {
                        errors.push(ConfigError::new(
                            device.expect_position.clone(),
                            format!(
                                "device {}: check {} needs `expect.{}` in this baseline, and it is missing \
                                 (add it, or list the check under `skip:` with a reason)",
                                device.name, entry.id, missing.0
                            ),
                        ));
                        continue;
                    }
                };
                checks.push(PlannedCheck {
                    entry: entry.clone(),
                    evaluator,
                    commands,
                    skip,
                });
            }
            if checks.is_empty() {
                continue;
            }
            let mut commands: Vec<Command> = Vec::new();
            for command in checks.iter().flat_map(|c| &c.commands) {
                if !commands.contains(command) {
                    commands.push(command.clone());
                }
            }
            devices.push(DevicePlan {
                device: Arc::new(device.clone()),
                checks,
                commands,
            });
        }
        if !errors.is_empty() {
            return Err(ConfigErrors(errors).into());
        }
        if devices.is_empty() {
            return Err(PlanError::NothingSelected {
                valid: config.catalog.iter().map(|e| e.id.clone()).collect(),
            });
        }
        Ok(Plan { devices })
    }

    /// Keeps only the checks that `keep(device, check id)` accepts (`--last-failed` selects
    /// exact pairs), recomputing each device's commands; devices left with none are dropped.
    pub fn retain(&mut self, keep: impl Fn(&str, &str) -> bool) {
        for device in &mut self.devices {
            device
                .checks
                .retain(|c| keep(&device.device.name, &c.entry.id));
            let mut commands: Vec<Command> = Vec::new();
            for command in device.checks.iter().flat_map(|c| &c.commands) {
                if !commands.contains(command) {
                    commands.push(command.clone());
                }
            }
            device.commands = commands;
        }
        self.devices.retain(|d| !d.checks.is_empty());
    }

    pub fn check_count(&self) -> usize {
        self.devices.iter().map(|d| d.checks.len()).sum()
    }
}

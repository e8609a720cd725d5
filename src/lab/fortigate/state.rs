//! What an emulated FortiGate *is*: identity, version, configuration, the session filter and
//! the sessions cleared so far. Shared by every SSH session to the device.

use std::collections::HashSet;
use std::sync::Arc;

use super::super::clock;
use super::super::scenario::{Fault, Faults};
use super::super::topology;
use super::config::Config;
use super::model::FirewallModel;
use super::session_filter::Filter;
use super::sessions::{self, Key, Table};

#[derive(Clone, Debug)]
pub struct FgState {
    pub hostname: String,
    pub model: String,
    pub version: String,
    pub build: String,
    pub build_date: String,
    pub serial: String,
    /// The model row: release, NP and trading path.
    pub spec: &'static FirewallModel,
    pub config: Config,
    pub faults: Faults,
    pub filter: Filter,
    /// Sessions removed by `diagnose sys session clear`.
    pub cleared: Arc<HashSet<Key>>,
    /// `flush=` of `diagnose sys session stat`: how often sessions were cleared.
    pub flush: u32,
    /// When the firewall booted (epoch s).
    pub booted: f64,
}

impl FgState {
    #[cfg(test)]
    pub fn new(name: &str, index: usize, faults: &Faults) -> Self {
        FgState::of_model(name, index, faults, &super::model::FG_201G)
    }

    /// A firewall of model `spec` (identity and release; the rest is the lab's one design).
    pub fn of_model(
        name: &str,
        index: usize,
        faults: &Faults,
        spec: &'static FirewallModel,
    ) -> Self {
        let drift = faults.has(Fault::VersionDrift);
        let pick = |now: &str, drifted: &str| if drift { drifted } else { now }.to_string();
        let started = clock::now();
        FgState {
            hostname: name.to_string(),
            model: spec.model.to_string(),
            version: pick(spec.version, spec.drift_version),
            build: pick(spec.build, spec.drift_build),
            build_date: pick(spec.build_date, spec.drift_build_date),
            serial: format!("{}{index:04}", spec.serial_prefix),
            spec,
            config: Config::of_model(name, faults, spec),
            faults: faults.clone(),
            filter: Filter::default(),
            cleared: Arc::default(),
            flush: 0,
            booted: clock::boot_time(
                started,
                topology::FORTIGATE_UPTIME_DAYS,
                faults
                    .has(Fault::Rebooted)
                    .then_some(topology::FORTIGATE_REBOOTED_UPTIME_S),
            ),
        }
    }

    /// The current session table (minus cleared sessions).
    pub fn sessions(&self) -> Table {
        let mut table = sessions::table(&self.config, &self.faults);
        table.cleared = self.cleared.clone();
        let up = self.uptime(clock::now());
        table.max_duration = u32::try_from(up.saturating_sub(20)).unwrap_or(u32::MAX);
        table
    }

    pub fn rebooted(&self) -> bool {
        self.faults.has(Fault::Rebooted)
    }

    /// Whether the box runs with VDOMs (the lab's FortiGates do not, but under `vdom-dropped`).
    pub fn multi_vdom(&self) -> bool {
        self.faults.has(Fault::VdomDropped)
    }

    /// Seconds since boot, now.
    pub fn uptime(&self, now: f64) -> u64 {
        (now - self.booted).max(0.0) as u64
    }

    pub fn ha_cluster(&self) -> bool {
        self.config
            .setting("system ha", "mode")
            .is_some_and(|m| m != "standalone")
    }

    /// `set output standard` in `config system console` turns the pager off.
    pub fn console_paging(&self) -> bool {
        self.config.setting("system console", "output") != Some("standard")
    }
}

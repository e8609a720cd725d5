//! The SSH collector: one session per device for all its commands (see [`crate::ssh`]).
//! Devices run concurrently under the run's bound; a device that fails
//! gives [`CollectError`]s on its own commands and never affects another device.

use super::{BoxFuture, Collector, Outputs};
use crate::config::Config;
use crate::plan::DevicePlan;
use crate::ssh::{self, Settings};

pub struct Ssh {
    settings: Settings,
}

impl Ssh {
    pub fn new(settings: Settings) -> Self {
        Ssh { settings }
    }

    /// Known_hosts and timeouts from the site's `ssh:` section.
    pub fn from_config(config: &Config) -> Self {
        Ssh::new(Settings::from_config(config))
    }
}

impl Collector for Ssh {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            let results = ssh::collect(&plan.device, &plan.commands, &self.settings).await;
            Outputs {
                results: results
                    .into_iter()
                    .map(|(c, r)| (c, r.map(|captured| captured.output)))
                    .collect(),
            }
        })
    }
}

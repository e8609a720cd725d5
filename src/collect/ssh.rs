//! The SSH collector: one session per device for all its commands (see [`premarket_ssh`]).
//! Devices run concurrently under the run's bound; a device that fails gives
//! [`CollectError`]s on its own commands and never affects another device.
//!
//! This is where a configured device meets the SSH layer: its platform's profile is chosen
//! here, and its secrets are read from their references here, at connect time (a secret
//! holding a line break is refused with its reference named, never its value). The site's
//! bastions are handed to the SSH layer's [`Jumps`], each read (its secrets) the first time a
//! device behind it connects, once for the run. A large output
//! is spooled into the run's directory ([`Ssh::spooling_in`]) and capped at the site's
//! `ssh.max_output_mb`.

use std::sync::{Arc, OnceLock};

use super::{BoxFuture, Collector, Outputs};
use premarket_config::{
    Bastion as SiteBastion, Config, Connection, Device, Environment, SecretRef,
};
use premarket_core::{CollectError, Command, Megabytes, Platform};
use premarket_plan::DevicePlan;
use premarket_platform::fortigate;
use premarket_spool::SpoolDir;
use premarket_ssh::jump::{Jumps, ReadBastion};
use premarket_ssh::profile::Profile;
use premarket_ssh::{self as ssh, Bastion, Captured, EnableSecret, Gate, Settings, Target};

pub struct Ssh {
    settings: Settings,
}

impl Ssh {
    pub fn new(settings: Settings) -> Self {
        Ssh { settings }
    }

    /// Known_hosts, timeouts and the output cap from the site's `ssh:` section.
    pub fn from_config(config: &Config) -> Self {
        Ssh::new(settings(config))
    }

    /// Large outputs go to `spool` (the run's directory) instead of the system's.
    pub fn spooling_in(mut self, spool: SpoolDir) -> Self {
        self.settings.spool = spool;
        self
    }

    /// The run's deadline: a second sample that would be due after it is not waited for (an
    /// ERROR saying so), so the wait never costs the device's other outputs.
    pub fn until(mut self, deadline: Option<tokio::time::Instant>) -> Self {
        self.settings.deadline = deadline;
        self
    }
}

impl Collector for Ssh {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            let gate = ModelGate::for_plan(plan);
            let results = collect_gated(&plan.device, &plan.commands, &self.settings, gate).await;
            Outputs {
                results: results
                    .into_iter()
                    .map(|(c, r)| (c, r.map(|captured| captured.output)))
                    .collect(),
            }
        })
    }
}

/// The site's `ssh:` settings.
pub fn settings(config: &Config) -> Settings {
    let ssh = &config.site.ssh;
    Settings {
        known_hosts: config.site.known_hosts.clone(),
        known_hosts_read: Default::default(),
        connect_timeout: std::time::Duration::from_secs(ssh.connect_timeout_s.max(1)),
        command_timeout: std::time::Duration::from_secs(ssh.command_timeout_s.max(1)),
        keepalive: ssh::transport::KEEPALIVE,
        spool: SpoolDir::temporary(),
        max_output: max_output(config),
        deadline: None,
        jumps: jumps(config),
    }
}

/// The site's bastions, each read when a device behind it first connects.
fn jumps(config: &Config) -> Jumps {
    Jumps::new(config.site.bastions.iter().map(|b| {
        let (site, env) = (b.clone(), config.site.environment.clone());
        let read: ReadBastion = Box::new(move || bastion(&site, &env));
        (b.name.clone(), read)
    }))
}

/// A bastion of site.yaml as the SSH layer needs it; its secrets are read now.
fn bastion(site: &SiteBastion, env: &Environment) -> Result<Bastion, CollectError> {
    Ok(Bastion {
        login: login(&site.name, &site.login, env, Vec::new())?,
        max_sessions: site.max_sessions,
        max_starts_per_s: site.max_starts_per_s,
    })
}

/// The login `conn` describes for the device (or bastion) `name`, reached through `via`; its
/// secrets are read now, `{ env: NAME }` ones from `env`.
fn login(
    name: &str,
    conn: &Connection,
    env: &Environment,
    via: Vec<Arc<Bastion>>,
) -> Result<Target, CollectError> {
    let read = |what: &str, secret: &SecretRef| {
        secret
            .resolve(env)
            .map_err(|e| CollectError::Secret(format!("{what} ({secret}): {e}")))
    };
    let optional =
        |what: &str, secret: &Option<SecretRef>| secret.as_ref().map(|r| read(what, r)).transpose();
    let enable_secret = match &conn.enable_secret {
        Some(r) => Some(EnableSecret {
            value: read("enable secret", r)?,
            reference: r.to_string(),
        }),
        None => None,
    };
    Ok(Target {
        name: name.to_string(),
        host: conn.host.clone(),
        port: conn.port,
        user: conn.user.clone(),
        password: optional("password", &conn.password)?,
        key_file: conn.key_file.clone(),
        key_passphrase: optional("key passphrase", &conn.key_passphrase)?,
        cert_file: conn.cert_file.clone(),
        agent: conn.agent,
        enable_secret,
        host_key: conn.host_key.clone(),
        legacy_algorithms: conn.legacy_algorithms,
        vdom: conn.vdom.clone(),
        via,
    })
}

/// The site's per-command output cap (`ssh.max_output_mb`), for live and saved outputs.
pub fn max_output(config: &Config) -> Megabytes {
    Megabytes(config.site.ssh.max_output_mb.max(1))
}

/// The CLI profile of a platform reached over SSH.
pub fn profile(platform: Platform) -> Option<&'static Profile> {
    premarket_platform::spec(platform).profile
}

/// `device` as the SSH layer needs it, with its profile; its secrets are read now, and its
/// bastions taken from `jumps` (read the first time).
pub fn target(device: &Device, jumps: &Jumps) -> Result<(Target, &'static Profile), CollectError> {
    let conn = device.ssh().ok_or_else(|| {
        CollectError::Other(format!(
            "device {} is a {}: it is not reached over SSH",
            device.name, device.platform
        ))
    })?;
    let profile = profile(device.platform).ok_or_else(|| {
        CollectError::Other(format!(
            "platform {} is not reached over SSH",
            device.platform
        ))
    })?;
    let via = conn
        .hops()
        .iter()
        .map(|name| jumps.bastion(name))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((
        login(device.name.as_str(), conn, &device.environment, via)?,
        profile,
    ))
}

/// Runs `commands` on `device` in one session; one result per command, in order.
pub async fn collect(
    device: &Device,
    commands: &[Command],
    settings: &Settings,
) -> Vec<(Command, Result<Captured, CollectError>)> {
    collect_gated(device, commands, settings, None).await
}

/// [`collect`], asking `gate` before each command whether the device's model has it.
async fn collect_gated(
    device: &Device,
    commands: &[Command],
    settings: &Settings,
    gate: Option<Arc<dyn Gate>>,
) -> Vec<(Command, Result<Captured, CollectError>)> {
    match target(device, &settings.jumps) {
        Ok((target, profile)) => {
            ssh::collect_gated(&target, profile, commands, settings, gate).await
        }
        Err(e) => commands
            .iter()
            .map(|c| (c.clone(), Err(e.clone())))
            .collect(),
    }
}

/// The probe's CLI on a FortiGate of the site.
pub fn firewall_shell(
    device: &Device,
    settings: &Settings,
) -> Result<fortigate::firewall_shell::FirewallShell, CollectError> {
    if device.platform != Platform::Fortigate {
        return Err(CollectError::Other(format!(
            "{} is a {} device, not a FortiGate",
            device.name, device.platform
        )));
    }
    let (target, _) = target(device, &settings.jumps)?;
    fortigate::firewall_shell::FirewallShell::connect(&target, settings)
}

/// Withholds the commands the device's model lacks, once its identity command has answered.
struct ModelGate {
    plan: DevicePlan,
    identities: Vec<usize>,
    /// What the model withholds, by command index: decided once every identity command has
    /// answered (the model read then, `None` when they gave none).
    withheld: OnceLock<Vec<Option<String>>>,
}

impl ModelGate {
    fn for_plan(plan: &DevicePlan) -> Option<Arc<dyn Gate>> {
        plan.depends_on_model().then(|| {
            Arc::new(ModelGate {
                identities: plan.identity_commands(),
                plan: plan.for_gate(),
                withheld: OnceLock::new(),
            }) as Arc<dyn Gate>
        })
    }
}

impl Gate for ModelGate {
    fn withhold(
        &self,
        index: usize,
        answered: &[Option<Result<Captured, CollectError>>],
    ) -> Option<String> {
        if self.identities.contains(&index) {
            return None;
        }
        let output = |i: usize| match answered.get(i) {
            Some(Some(Ok(captured))) => Some(&captured.output),
            _ => None,
        };
        let withheld = match self.withheld.get() {
            Some(withheld) => withheld,
            // Not answered yet (the plan puts identities first, so only a broken script): send.
            None if self
                .identities
                .iter()
                .any(|i| answered.get(*i).is_none_or(Option::is_none)) =>
            {
                return self.plan.withhold(index, None);
            }
            None => self.withheld.get_or_init(|| {
                let model = self.plan.model_from(output);
                self.plan.withhold_each(model.as_ref())
            }),
        };
        withheld.get(index).cloned().flatten()
    }
}

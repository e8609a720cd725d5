#![doc = include_str!("README.md")]

mod clock;
mod device;
mod diff;
mod eos;
pub mod example;
pub mod fleet;
mod fortigate;
mod grammar;
pub mod probe_capture;
mod scenario;
mod server;
mod shell;
pub mod site;
pub mod topology;
pub mod wire;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use russh::keys::{Algorithm, HashAlg, PrivateKey};
use tokio::net::TcpListener;

pub use device::{ConfigAttempt, Journal};
pub use scenario::{Fault, Faults, PAGER_LINES, SLOW_DELAY, Scenario, Target};

pub use example::Example;
pub use fleet::{Fleet, Model};
use premarket_core::Platform;
use server::{DeviceSpec, DeviceState, Running};

/// One running lab device.
#[derive(Clone, Debug)]
pub struct LabDevice {
    pub name: String,
    pub platform: Platform,
    /// The model it emulates (`DCS-7050SX-64-R`).
    pub model: &'static str,
    pub addr: SocketAddr,
    /// SHA256 fingerprint of the host key it serves (`SHA256:...`, as `ssh-keygen -lf` prints).
    pub fingerprint: String,
    /// The faults switched on for it.
    pub faults: Vec<Fault>,
    /// Its login password and, on a switch, its `enable` secret: its own, as on a real
    /// fleet ([`topology::fortigate_password`]).
    pub password: String,
    pub enable_secret: Option<String>,
}

/// How to start a lab.
#[derive(Clone, Debug, Default)]
pub struct LabOptions {
    pub scenarios: Vec<Scenario>,
    /// Which devices: the standard pair (repeated `devices` times) or the mixed fleet.
    pub fleet: Fleet,
    /// Number of devices of the standard fleet, half of each platform (at least one of each).
    /// 0 means 2.
    pub devices: usize,
    /// First port; devices take consecutive ports. 0 = free ports chosen by the system.
    pub base_port: u16,
    /// Where to write the site directory; `None` = a new directory under the system temp dir,
    /// removed by [`Lab::shutdown`].
    pub site_dir: Option<PathBuf>,
    /// The example site the lab's site is made from (default: the copy compiled in).
    pub example: Example,
}

#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error(
        "scenario {scenario} names device {device}, which this lab does not have (it has {have})"
    )]
    UnknownTarget {
        scenario: String,
        device: String,
        have: String,
    },
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: std::io::Error },
    #[error("cannot generate a host key: {0}")]
    Key(String),
    #[error("cannot write the lab's site directory: {0}")]
    Site(#[from] site::SiteError),
}

/// A running lab. Dropping it without [`Lab::shutdown`] leaves the servers running until the
/// tokio runtime ends.
pub struct Lab {
    pub devices: Vec<LabDevice>,
    /// A ready-to-use configuration directory: `premarket run --dir <site_dir>`.
    pub site_dir: PathBuf,
    journal: Journal,
    states: Vec<(String, DeviceState)>,
    running: Vec<Running>,
    remove_site: bool,
}

static LAB_COUNTER: AtomicUsize = AtomicUsize::new(0);

fn new_key() -> Result<PrivateKey, LabError> {
    PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519)
        .map_err(|e| LabError::Key(e.to_string()))
}

impl Lab {
    /// Starts `devices` devices (half FortiGate, half EOS) with `scenarios` on free ports.
    pub async fn start(scenarios: &[Scenario], devices: usize) -> Result<Lab, LabError> {
        Lab::start_with(LabOptions {
            scenarios: scenarios.to_vec(),
            devices,
            ..LabOptions::default()
        })
        .await
    }

    pub async fn start_with(options: LabOptions) -> Result<Lab, LabError> {
        let members = fleet::members(options.fleet, options.devices);
        for s in &options.scenarios {
            if let Target::Device(d) = &s.target
                && !members.iter().any(|m| &m.name == d)
            {
                let have = members
                    .iter()
                    .map(|m| m.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(LabError::UnknownTarget {
                    scenario: s.to_string(),
                    device: d.clone(),
                    have,
                });
            }
        }

        let journal = Journal::default();
        let mut devices = Vec::new();
        let mut states = Vec::new();
        let mut running = Vec::new();
        let mut site_devices = Vec::new();
        let switches = members
            .iter()
            .filter(|m| m.model.platform() == Platform::Eos)
            .count();
        // Everything that can fail (keys, ports) happens before any server starts, so an error
        // leaves nothing running.
        let mut prepared = Vec::new();
        for member in &members {
            let (name, index) = (&member.name, member.index);
            // Switches take the first ports, firewalls the next ones: with `--base-port 2201`
            // sw1 is 2201 and fw1 2202, as in the repository's example baselines.
            let offset = match member.model.platform() {
                Platform::Eos => index - 1,
                _ => switches + index - 1,
            };
            let faults = Faults::for_device(&options.scenarios, name);
            let trusted = new_key()?;
            let served = if faults.has(Fault::HostKeyChanged) {
                new_key()?
            } else {
                trusted.clone()
            };
            let port = if options.base_port == 0 {
                0
            } else {
                options.base_port.saturating_add(offset as u16)
            };
            let bind = |source| LabError::Bind { port, source };
            let listener = TcpListener::bind(("127.0.0.1", port)).await.map_err(bind)?;
            let addr = listener.local_addr().map_err(bind)?;
            let openssh = trusted
                .public_key()
                .to_openssh()
                .map_err(|e| LabError::Key(e.to_string()))?;
            let key_part = openssh
                .split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            let known_host = format!("[127.0.0.1]:{} {key_part}", addr.port());
            prepared.push((member, faults, served, listener, addr, known_host));
        }

        for (member, faults, served, listener, addr, known_host) in prepared {
            let (name, index, platform) = (&member.name, member.index, member.model.platform());
            let (state, password, enable) = match member.model {
                Model::Firewall(model) => (
                    DeviceState::Fortigate(Arc::new(Mutex::new(fortigate::FgState::of_model(
                        name, index, &faults, model,
                    )))),
                    topology::fortigate_password(index),
                    None,
                ),
                Model::Switch(model) => (
                    DeviceState::Eos(Arc::new(Mutex::new(eos::EosState::of_model(
                        name, index, &faults, model,
                    )))),
                    topology::eos_password(index),
                    Some(topology::eos_enable_secret(index)),
                ),
            };
            let spec = Arc::new(DeviceSpec {
                name: name.clone(),
                state: state.clone(),
                faults: faults.clone(),
                journal: journal.clone(),
                password: password.clone(),
                user: topology::USER.to_string(),
            });
            let fingerprint = served.public_key().fingerprint(HashAlg::Sha256).to_string();
            let config = Arc::new(server::ssh_config(served, platform));
            running.push(server::spawn(spec, config, listener));
            site_devices.push((
                name.clone(),
                platform,
                addr.port(),
                password.clone(),
                enable.clone(),
                known_host,
                // The model's keys, the fleet's for this device, then those of the scenarios
                // on this device.
                member
                    .model
                    .expect()
                    .iter()
                    .chain(member.expect)
                    .chain(faults.iter().flat_map(|f| f.expect()))
                    .copied()
                    .collect::<Vec<_>>(),
                faults
                    .iter()
                    .flat_map(|f| f.ssh())
                    .copied()
                    .collect::<Vec<_>>(),
            ));
            devices.push(LabDevice {
                name: name.clone(),
                platform,
                model: member.model.name(),
                addr,
                fingerprint,
                faults: faults.iter().collect(),
                password,
                enable_secret: enable,
            });
            states.push((name.clone(), state));
        }

        let (site_dir, remove_site) = match options.site_dir {
            Some(dir) => (dir, false),
            None => {
                let n = LAB_COUNTER.fetch_add(1, Ordering::Relaxed);
                (
                    std::env::temp_dir().join(format!("premarket-lab-{}-{n}", std::process::id())),
                    true,
                )
            }
        };
        let site_list: Vec<site::SiteDevice<'_>> = site_devices
            .iter()
            .map(
                |(name, platform, port, password, enable, known_host, expect, ssh)| {
                    site::SiteDevice {
                        name,
                        platform: *platform,
                        port: *port,
                        password,
                        enable_secret: enable.as_deref(),
                        known_host: known_host.clone(),
                        expect: expect.as_slice(),
                        ssh: ssh.as_slice(),
                    }
                },
            )
            .collect();
        let lab = Lab {
            devices,
            site_dir,
            journal,
            states,
            running,
            remove_site,
        };
        let site_expect = fleet::site_expect(options.fleet);
        if let Err(e) = site::write_site(&options.example, &lab.site_dir, &site_list, site_expect) {
            lab.shutdown().await;
            return Err(e.into());
        }
        Ok(lab)
    }

    /// Every command each device received, and the config-changing ones.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// Config-changing commands attempted on any device (premarket must never cause one).
    pub fn config_attempts(&self) -> Vec<ConfigAttempt> {
        self.journal.attempts()
    }

    pub fn device(&self, name: &str) -> Option<&LabDevice> {
        self.devices.iter().find(|d| d.name == name)
    }

    /// The site directory's `baselines/` folder.
    pub fn baselines(&self) -> PathBuf {
        self.site_dir.join("baselines")
    }

    /// Whether `name` is an EOS device whose LANZ setting is saved (handy for fix-and-rerun demos).
    pub fn eos_lanz_saved(&self, name: &str) -> Option<bool> {
        self.states
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, s)| match s {
                DeviceState::Eos(state) => state.lock().ok().map(|s| s.startup.lanz),
                DeviceState::Fortigate(_) => None,
            })
    }

    /// Switches `fault` on or off on device `name` while the lab runs, as a device's state
    /// changes between two inspections (an optic starts counting errors, then is replaced): the
    /// outputs that read the fault as they answer (counters, sessions) show it from the next
    /// command on; what is set when the device starts (its boot, its version) does not change.
    /// `false` when the lab has no such device.
    pub fn switch_fault(&self, name: &str, fault: Fault, on: bool) -> bool {
        let Some((_, state)) = self.states.iter().find(|(n, _)| n == name) else {
            return false;
        };
        match state {
            DeviceState::Eos(state) => state.lock().map(|mut s| s.faults.set(fault, on)).is_ok(),
            DeviceState::Fortigate(state) => {
                state.lock().map(|mut s| s.faults.set(fault, on)).is_ok()
            }
        }
    }

    /// Stops every device, cuts open connections and removes a temporary site directory.
    pub async fn shutdown(self) {
        for run in self.running {
            run.shutdown().await;
        }
        if self.remove_site {
            let _ = std::fs::remove_dir_all(&self.site_dir);
        }
    }
}

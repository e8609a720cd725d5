//! `baselines/<device>.yaml`: how to reach one device and what it should look like.
//!
//! Here the file is read for what is the device's own: its platform, how to reach it (`ssh:`,
//! or a probe's `source:`) and the checks it skips. `expect:` is kept as text with the
//! positions of its keys: each check reads its own keys from it when the run is planned
//! ([`BaselineText`]), and a key that no check reads is reported there as a typo.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::baseline::BaselineText;
use super::error::{ConfigError, Position};
use super::secret::SecretRef;
use super::yaml;
use premarket_core::{DeviceName, Platform};

/// How premarket logs in. Secrets are references, never values.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Connection {
    pub host: String,
    #[serde(default = "default_port")]
    pub port: u16,
    pub user: String,
    #[serde(default)]
    pub password: Option<SecretRef>,
    /// Private key file for public-key authentication.
    #[serde(default)]
    pub key_file: Option<PathBuf>,
    #[serde(default)]
    pub key_passphrase: Option<SecretRef>,
    /// Offer the keys held by ssh-agent (`SSH_AUTH_SOCK`).
    #[serde(default)]
    pub agent: bool,
    /// EOS: the `enable` secret, when the switch asks `Password:`.
    #[serde(default)]
    pub enable_secret: Option<SecretRef>,
    /// Pinned host key, `SHA256:<base64>` as `ssh-keygen -lf` prints it.
    #[serde(default)]
    pub host_key: Option<String>,
    /// Allow old algorithms (group14-sha1, ssh-rsa, aes-cbc, hmac-sha1) for old devices only.
    #[serde(default)]
    pub legacy_algorithms: bool,
    /// FortiGate: the VDOM whose sessions and policies are inspected.
    #[serde(default)]
    pub vdom: Option<String>,
}

fn default_port() -> u16 {
    22
}

/// How premarket reaches a device.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // a few per site; boxing buys nothing
pub enum Access {
    /// Over SSH (FortiGate, EOS).
    Ssh(Connection),
    /// The latency probe measures; its source and analysis settings, paths resolved.
    Probe(Box<premarket_probe::baseline::Expect>),
}

/// A device as validated: name, platform, how to reach it, and its baseline.
#[derive(Clone, Debug)]
pub struct Device {
    pub name: DeviceName,
    pub platform: Platform,
    pub file: PathBuf,
    pub access: Access,
    pub baseline: BaselineText,
    /// Checks deliberately not run on this device, with the reason shown as SKIP.
    pub skip: BTreeMap<String, String>,
    /// The model the site says this is (`model: DCS-7050SX-64`), so `plan` can resolve the
    /// commands that exist on some models only before the device has answered once. The
    /// device's own `show version` / `get system status` decides at run time.
    pub model: Option<String>,
}

impl Device {
    /// The SSH connection, for devices reached over SSH.
    pub fn ssh(&self) -> Option<&Connection> {
        match &self.access {
            Access::Ssh(c) => Some(c),
            Access::Probe(_) => None,
        }
    }

    pub fn ssh_mut(&mut self) -> Option<&mut Connection> {
        match &mut self.access {
            Access::Ssh(c) => Some(c),
            Access::Probe(_) => None,
        }
    }
}

#[derive(Deserialize)]
struct Header {
    platform: Spanned<Platform>,
}

/// An SSH device's file: everything but `expect:` strictly typed.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct SshFile {
    #[allow(dead_code)]
    platform: Platform,
    #[serde(default)]
    model: Option<String>,
    ssh: Connection,
    /// What the device should look like: the keys its checks read (`premarket explain
    /// --baseline` lists them per platform).
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    expect: Spanned<HashMap<Spanned<String>, serde::de::IgnoredAny>>,
    #[serde(default)]
    skip: BTreeMap<String, String>,
}

/// A probe device file: no `ssh:` (the probe is not reached over SSH), a `source:` instead.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProbeFile {
    #[allow(dead_code)]
    platform: Platform,
    source: premarket_probe::baseline::Source,
    #[schemars(with = "premarket_probe::baseline::Expect")]
    expect: Spanned<premarket_probe::baseline::Expect>,
    #[serde(default)]
    skip: BTreeMap<String, String>,
}

/// The keys of a probe's `expect:` with their positions (the typed read above checked them).
#[derive(Deserialize)]
struct ProbeKeys {
    expect: Spanned<HashMap<Spanned<String>, serde::de::IgnoredAny>>,
}

/// The keys of a device file of `platform` (`premarket explain --baseline`), from the types
/// `load` reads it with; `expect:` is the checks' (each lists its own keys).
pub fn reference(platform: Platform) -> Vec<super::reference::Key> {
    match platform {
        Platform::Eos | Platform::Fortigate => super::reference::keys_of::<SshFile>(),
        Platform::Probe => super::reference::keys_of::<ProbeFile>(),
    }
}

/// Reads a device file; `name` comes from `site.yaml`.
pub fn load(name: &DeviceName, path: &Path) -> Result<Device, ConfigError> {
    let text = yaml::read_text(path).map_err(|e| {
        ConfigError::new(
            e.position,
            format!("the baseline of device {name}: {}", e.message),
        )
    })?;
    let header: Header = yaml::parse(path, &text)?;
    let platform = header.platform.value;
    let (access, expect, skip, model) = match platform {
        Platform::Eos | Platform::Fortigate => {
            let file: SshFile = yaml::parse(path, &text)?;
            (Access::Ssh(file.ssh), file.expect, file.skip, file.model)
        }
        Platform::Probe => {
            let file: ProbeFile = yaml::parse(path, &text)?;
            let keys: ProbeKeys = yaml::parse(path, &text)?;
            let settings = file.expect.value.resolve(file.source, path);
            (
                Access::Probe(Box::new(settings)),
                keys.expect,
                file.skip,
                None,
            )
        }
    };
    let mut keys: Vec<(String, Position)> = expect
        .value
        .keys()
        .map(|k| (k.value.clone(), Position::from_location(path, k.defined)))
        .collect();
    keys.sort_by_key(|(_, at)| (at.line, at.column));
    let baseline = BaselineText::new(
        name.clone(),
        path,
        text.into(),
        Position::from_location(path, expect.defined),
        keys,
    );
    Ok(Device {
        name: name.clone(),
        platform,
        file: path.to_path_buf(),
        access,
        baseline,
        skip,
        model,
    })
}

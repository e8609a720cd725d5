//! `baselines/<device>.yaml`: how to reach one device and what it should look like.
//!
//! The file is read twice: once for `platform` alone, then strictly (unknown keys are errors)
//! with the expectations of that platform, so a FortiGate key in a switch's file is caught.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_saphyr::Spanned;

use super::error::{ConfigError, Position};
use super::secret::SecretRef;
use super::yaml;
use crate::core::Platform;
use crate::platform::{eos, fortigate};

/// How premarket logs in. Secrets are references, never values.
#[derive(Clone, Debug, Default, Deserialize)]
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

/// The expectations of one device, typed by platform.
#[derive(Clone, Debug)]
pub enum Expect {
    Eos(eos::Expect),
    Fortigate(fortigate::Expect),
    Probe(Box<crate::probe::baseline::Expect>),
}

/// A device as validated: name, platform, connection, expectations and where they were written.
#[derive(Clone, Debug)]
pub struct Device {
    pub name: String,
    pub platform: Platform,
    pub file: PathBuf,
    pub ssh: Connection,
    pub expect: Expect,
    /// Where `expect:` starts in the file, for "baseline value missing" errors.
    pub expect_position: Position,
    /// Checks deliberately not run on this device, with the reason shown as SKIP.
    pub skip: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Header {
    platform: Spanned<Platform>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, bound = "E: DeserializeOwned")]
struct DeviceFile<E> {
    #[allow(dead_code)]
    platform: Platform,
    ssh: Connection,
    expect: Spanned<E>,
    #[serde(default)]
    skip: BTreeMap<String, String>,
}

/// Reads a device file; `name` comes from `site.yaml`.
pub fn load(name: &str, path: &Path) -> Result<Device, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigError::new(
            Position::file_start(path),
            format!("cannot read the baseline of device {name}: {e}"),
        )
    })?;
    let header: Header = yaml::parse(path, &text)?;
    let platform = header.platform.value;
    let (ssh, expect, expect_position, skip) = match platform {
        Platform::Eos => typed(path, &text, Expect::Eos)?,
        Platform::Fortigate => typed(path, &text, Expect::Fortigate)?,
        Platform::Probe => probe(path, &text)?,
    };
    Ok(Device {
        name: name.to_string(),
        platform,
        file: path.to_path_buf(),
        ssh,
        expect,
        expect_position,
        skip,
    })
}

type Typed = (Connection, Expect, Position, BTreeMap<String, String>);

fn typed<E: DeserializeOwned>(
    path: &Path,
    text: &str,
    wrap: fn(E) -> Expect,
) -> Result<Typed, ConfigError> {
    let file: DeviceFile<E> = yaml::parse(path, text)?;
    let position = Position::from_location(path, file.expect.defined);
    Ok((file.ssh, wrap(file.expect.value), position, file.skip))
}

/// A probe device file: no `ssh:` (the probe is not reached over SSH), a `source:` instead.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProbeFile {
    #[allow(dead_code)]
    platform: Platform,
    source: crate::probe::baseline::Source,
    expect: Spanned<crate::probe::baseline::Expect>,
    #[serde(default)]
    skip: BTreeMap<String, String>,
}

fn probe(path: &Path, text: &str) -> Result<Typed, ConfigError> {
    let file: ProbeFile = yaml::parse(path, text)?;
    let position = Position::from_location(path, file.expect.defined);
    let expect = file.expect.value.resolve(file.source, path);
    // Not reached over SSH: the routing collector sends probe devices to the probe collector.
    Ok((
        Connection::default(),
        Expect::Probe(Box::new(expect)),
        position,
        file.skip,
    ))
}

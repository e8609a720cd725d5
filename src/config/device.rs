//! `baselines/<device>.yaml`: how to reach one device and what it should look like.
//!
//! Here the file is read for what is the device's own: its platform, how to reach it (`ssh:`,
//! or a probe's `source:`) and the checks it skips. `expect:` is kept as text with the
//! positions of its keys: each check reads its own keys from it when the run is planned
//! ([`BaselineText`]), and a key that no check reads is reported there as a typo.
//!
//! A file with mistakes is read past them ([`recover`]): every mistake is found in one read,
//! and the device is [`Rejected`] with what could be read of it (its platform, `expect:`,
//! `skip:`), so that the plan still finds the mistakes under `expect:` and the run reports the
//! device as one ERROR while it inspects the others.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::baseline::{BaselineText, Owner};
use super::bastion::Via;
use super::environment::Environment;
use super::error::{ConfigError, Position};
use super::extends;
use super::origins::Origins;
use super::recover;
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
    /// An OpenSSH user certificate for the key (of `key_file`, or held by ssh-agent).
    #[serde(default)]
    pub cert_file: Option<PathBuf>,
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
    /// The bastions of site.yaml it is reached through, outermost first.
    #[serde(default)]
    #[schemars(with = "Option<Via>")]
    pub via: Option<Spanned<Via>>,
}

impl Connection {
    /// The bastions' names, outermost first; empty when dialled directly.
    pub fn hops(&self) -> &[String] {
        self.via.as_ref().map_or(&[], |v| v.value.0.as_slice())
    }
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
    pub skip: BTreeMap<String, Skip>,
    /// The model the site says this is (`model: DCS-7050SX-64`), so `plan` can resolve the
    /// commands that exist on some models only before the device has answered once. The
    /// device's own `show version` / `get system status` decides at run time.
    pub model: Option<String>,
    /// Where its `{ env: NAME }` secrets are read (the site's).
    pub environment: Environment,
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
    /// Checks this device does not run: check id to the reason, shown as its SKIP.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, String>")]
    skip: HashMap<Spanned<String>, String>,
    #[serde(default)]
    draft: bool,
}

/// What stands for a block left out of an SSH device's file, so that the rest still reads.
const SSH_PLACEHOLDERS: &[(&str, &str)] = &[("ssh", "{ host: '', user: '' }"), ("expect", "{}")];

/// A probe device file: no `ssh:` (the probe is not reached over SSH), a `source:` instead.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ProbeFile {
    #[allow(dead_code)]
    platform: Platform,
    source: premarket_probe::baseline::Source,
    #[schemars(with = "premarket_probe::baseline::Expect")]
    expect: Spanned<premarket_probe::baseline::Expect>,
    /// Checks this device does not run: check id to the reason, shown as its SKIP.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, String>")]
    skip: HashMap<Spanned<String>, String>,
    #[serde(default)]
    draft: bool,
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
        // Not a device: a site check reads `site.yaml`'s `expect:` and its devices' files.
        Platform::Site => Vec::new(),
    }
}

/// A check a device does not run, and why (shown as its SKIP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip {
    pub reason: String,
    /// Where the check's id is written under `skip:`.
    pub position: Position,
}

/// A device of `site.yaml` whose baseline has mistakes: it is not inspected (the run shows it
/// as one ERROR and inspects the others). What could be read of it is kept, so that the plan
/// finds the mistakes of its `expect:` as well and the run names the checks it would have run.
#[derive(Clone, Debug)]
pub struct Rejected {
    pub name: DeviceName,
    pub file: PathBuf,
    /// `None` when the file does not say (or does not read far enough to).
    pub platform: Option<Platform>,
    /// `expect:` as read, when it could be.
    pub baseline: Option<BaselineText>,
    pub skip: BTreeMap<String, Skip>,
    /// Every mistake found in the file, in file order.
    pub mistakes: Vec<ConfigError>,
}

/// Reads a device file; `name` comes from `site.yaml`. A file with mistakes gives every
/// mistake found in one read ([`recover`]) and what could be read despite them. A device that
/// extends a role file is read from the merged text ([`extends`]), every position in it turned
/// back into the file it was written in.
pub fn load(
    name: &DeviceName,
    path: &Path,
    environment: &Environment,
) -> Result<Device, Box<Rejected>> {
    let mut mistakes = Vec::new();
    let mut rejected = Rejected {
        name: name.clone(),
        file: path.to_path_buf(),
        platform: None,
        baseline: None,
        skip: BTreeMap::new(),
        mistakes: Vec::new(),
    };
    let raw = match yaml::read_text(path) {
        Ok(text) => text,
        Err(e) => {
            let message = format!("the baseline of device {name}: {}", e.message);
            return Err(rejected.with(vec![ConfigError::new(e.position, message)]));
        }
    };
    let (raw, origins) = match extends::assemble(path, &raw) {
        Ok(Some(assembled)) => (assembled.text, assembled.origins),
        Ok(None) => (raw, Origins::own(path)),
        Err(errors) => return Err(rejected.with(errors)),
    };
    // The header reads the whole file, and the text as it read is what the rest reads.
    let (header, _, text) = recover::first::<Header>(path, raw, &[], &mut mistakes);
    let Some(header) = header else {
        return Err(rejected.with(origins.translate_all(mistakes)));
    };
    let platform = header.platform.value;
    // A device file that says `site` is not a device: no check of any device is planned on it.
    rejected.platform = (platform != Platform::Site).then_some(platform);
    let read = match platform {
        Platform::Site => {
            mistakes.push(ConfigError::new(
                Position::from_location(path, header.platform.defined),
                format!(
                    "device {name}: `platform: site` is the scope of the checks over several \
                     devices, not a kind of device (use eos, fortigate or probe)"
                ),
            ));
            None
        }
        Platform::Eos | Platform::Fortigate => {
            let (file, left_out) =
                recover::read::<SshFile>(path, &text, SSH_PLACEHOLDERS, &mut mistakes);
            file.map(|f| {
                let expect = (!left_out.iter().any(|k| k == "expect")).then_some(f.expect);
                (Access::Ssh(f.ssh), expect, f.skip, f.model, f.draft)
            })
        }
        Platform::Probe => {
            let (file, _) = recover::read::<ProbeFile>(path, &text, &[], &mut mistakes);
            let keys = file
                .as_ref()
                .and_then(|_| yaml::parse::<ProbeKeys>(path, &text).ok());
            file.zip(keys).map(|(file, keys)| {
                let settings = file.expect.value.resolve(file.source, path);
                (
                    Access::Probe(Box::new(settings)),
                    Some(keys.expect),
                    file.skip,
                    None,
                    file.draft,
                )
            })
        }
    };
    let mistakes = origins.translate_all(mistakes);
    let Some((access, expect, skip, model, draft)) = read else {
        return Err(rejected.with(mistakes));
    };
    let skip: BTreeMap<String, Skip> = skip
        .into_iter()
        .map(|(id, reason)| {
            let position = origins.location(id.referenced);
            (id.value, Skip { reason, position })
        })
        .collect();
    let baseline = expect.map(|expect| {
        let mut keys: Vec<(String, Position)> = expect
            .value
            .keys()
            .map(|k| (k.value.clone(), origins.location(k.defined)))
            .collect();
        keys.sort_by(|(_, a), (_, b)| {
            (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column))
        });
        BaselineText::new(
            Owner::Device(name.clone()),
            path,
            text.into(),
            origins.location(expect.defined),
            keys,
        )
        .with_origins(origins.clone())
        .drafted(draft)
    });
    match baseline {
        Some(baseline) if mistakes.is_empty() => Ok(Device {
            name: name.clone(),
            platform,
            file: path.to_path_buf(),
            access,
            baseline,
            skip,
            model,
            environment: environment.clone(),
        }),
        baseline => {
            rejected.baseline = baseline;
            rejected.skip = skip;
            Err(rejected.with(mistakes))
        }
    }
}

impl Rejected {
    fn with(mut self, mut mistakes: Vec<ConfigError>) -> Box<Rejected> {
        mistakes.sort_by(|a, b| {
            let (a, b) = (&a.position, &b.position);
            (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column))
        });
        mistakes.dedup();
        self.mistakes = mistakes;
        Box::new(self)
    }
}

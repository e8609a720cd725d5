//! `bastions:` in site.yaml: the jump hosts devices are reached through, and a device's
//! `ssh: { via: b1 }` (or a list of hops, outermost first). A bastion takes the same login and
//! host key keys as a device (the site's known_hosts applies to it too) and two limits of its
//! own. Checked here: names are unique, every `via` names a bastion, and no hop list passes
//! through a bastion twice (a loop).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::device::{Connection, Device};
use super::error::{ConfigError, Position};
use super::secret::SecretRef;

/// OpenSSH's `MaxSessions` default.
const MAX_SESSIONS: usize = 10;
/// Logins started per second through one bastion unless it says otherwise.
const MAX_STARTS_PER_S: u32 = 10;

/// One entry of `bastions:` as written.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BastionFile {
    /// How devices name it (`via: b1`).
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Its address, as this host reaches it.
    pub host: String,
    #[serde(default = "port_22")]
    pub port: u16,
    pub user: String,
    /// A secret reference, as a device's.
    #[serde(default)]
    pub password: Option<SecretRef>,
    #[serde(default)]
    pub key_file: Option<PathBuf>,
    #[serde(default)]
    pub key_passphrase: Option<SecretRef>,
    /// The OpenSSH user certificate of the key in `key_file` (or of a key the agent holds).
    #[serde(default)]
    pub cert_file: Option<PathBuf>,
    /// Log in with a key ssh-agent holds.
    #[serde(default)]
    pub agent: bool,
    /// Pinned host key, `SHA256:<base64>` (else the site's known_hosts vouches for it).
    #[serde(default)]
    pub host_key: Option<String>,
    /// Allow old algorithms, for an old bastion only.
    #[serde(default)]
    pub legacy_algorithms: bool,
    /// Device channels open through it at once (default 10).
    #[serde(default)]
    #[schemars(with = "Option<usize>")]
    pub max_sessions: Option<Spanned<usize>>,
    /// Device logins started through it per second (default 10).
    #[serde(default)]
    #[schemars(with = "Option<u32>")]
    pub max_starts_per_s: Option<Spanned<u32>>,
}

fn port_22() -> u16 {
    22
}

/// A jump host, validated. Secrets are references, read when a device behind it connects.
#[derive(Clone, Debug)]
pub struct Bastion {
    pub name: String,
    /// How premarket logs in to it, as to a device (no enable secret, VDOM or `via` of its
    /// own: a hop list belongs to the device).
    pub login: Connection,
    /// Device channels open through it at once.
    pub max_sessions: usize,
    /// Logins started through it per second.
    pub max_starts_per_s: u32,
    /// Its entry in site.yaml.
    pub position: Position,
}

/// `via: b1` or `via: [b1, b2]` (outermost first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Via(pub Vec<String>);

/// Written as a name or a list of names (hand-written, as its `Deserialize` is).
impl schemars::JsonSchema for Via {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Via".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "a bastion of site.yaml's `bastions:`, or a list of them (outermost first)"
        })
    }
}

impl<'de> Deserialize<'de> for Via {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ViaVisitor;
        impl<'de> Visitor<'de> for ViaVisitor {
            type Value = Via;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a bastion's name, or a list of them (outermost first)")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Via, E> {
                Ok(Via(vec![name.to_string()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Via, A::Error> {
                let mut hops = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    hops.push(name);
                }
                Ok(Via(hops))
            }
        }
        deserializer.deserialize_any(ViaVisitor)
    }
}

/// The bastions of `files`, each checked; a mistake is an error at its key in `site`.
pub fn validate(site: &Path, files: &[BastionFile], errors: &mut Vec<ConfigError>) -> Vec<Bastion> {
    let mut seen: HashMap<&str, Position> = HashMap::new();
    let mut bastions = Vec::new();
    for file in files {
        let position = Position::from_location(site, file.name.defined);
        let name = file.name.value.as_str();
        let plain = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if name.is_empty() || name.len() > 64 || !plain {
            errors.push(ConfigError::new(
                position,
                format!(
                    "bastion name {:?} is not allowed: use 1-64 of A-Z a-z 0-9 . _ -",
                    name.escape_debug().to_string()
                ),
            ));
            continue;
        }
        if let Some(first) = seen.insert(name, position.clone()) {
            errors.push(ConfigError::new(
                position,
                format!("bastion {name} is listed twice (first at {first})"),
            ));
            continue;
        }
        let zero = [
            (
                file.max_sessions
                    .as_ref()
                    .map(|l| (l.value == 0, l.defined)),
                "max_sessions",
            ),
            (
                file.max_starts_per_s
                    .as_ref()
                    .map(|l| (l.value == 0, l.defined)),
                "max_starts_per_s",
            ),
        ];
        let mut refused = false;
        for (limit, key) in zero {
            if let Some((true, at)) = limit {
                errors.push(ConfigError::new(
                    Position::from_location(site, at),
                    format!("bastion {name}: {key} must be at least 1"),
                ));
                refused = true;
            }
        }
        if refused {
            continue;
        }
        if file.password.is_none() && file.key_file.is_none() && !file.agent {
            errors.push(ConfigError::new(
                position,
                format!("bastion {name}: no login method: set password, key_file or agent: true"),
            ));
            continue;
        }
        let login = Connection {
            host: file.host.clone(),
            port: file.port,
            user: file.user.clone(),
            password: file.password.clone(),
            key_file: file.key_file.clone(),
            key_passphrase: file.key_passphrase.clone(),
            cert_file: file.cert_file.clone(),
            agent: file.agent,
            host_key: file.host_key.clone(),
            legacy_algorithms: file.legacy_algorithms,
            ..Connection::default()
        };
        bastions.push(Bastion {
            name: name.to_string(),
            login,
            max_sessions: file.max_sessions.as_ref().map_or(MAX_SESSIONS, |l| l.value),
            max_starts_per_s: file
                .max_starts_per_s
                .as_ref()
                .map_or(MAX_STARTS_PER_S, |l| l.value),
            position,
        });
    }
    bastions
}

/// Every device's `via` names bastions of the site, each at most once.
pub fn validate_via(devices: &[Device], bastions: &[Bastion], errors: &mut Vec<ConfigError>) {
    for device in devices {
        let Some(via) = device.ssh().and_then(|c| c.via.as_ref()) else {
            continue;
        };
        let at = Position::from_location(&device.file, via.defined);
        let hops = &via.value.0;
        if hops.is_empty() {
            errors.push(ConfigError::new(
                at,
                format!(
                    "device {}: ssh.via lists no bastion (leave it out to connect directly)",
                    device.name
                ),
            ));
            continue;
        }
        for (i, hop) in hops.iter().enumerate() {
            if !bastions.iter().any(|b| b.name == *hop) {
                let known: Vec<&str> = bastions.iter().map(|b| b.name.as_str()).collect();
                errors.push(ConfigError::new(
                    at.clone(),
                    format!(
                        "device {}: ssh.via names bastion {hop}, which site.yaml's bastions: does not list ({})",
                        device.name,
                        match known.is_empty() {
                            true => "it lists none".to_string(),
                            false => format!("it lists {}", known.join(", ")),
                        }
                    ),
                ));
            } else if hops.get(..i).is_some_and(|before| before.contains(hop)) {
                errors.push(ConfigError::new(
                    at.clone(),
                    format!(
                        "device {}: ssh.via passes through bastion {hop} twice ({}): a loop",
                        device.name,
                        hops.join(" > ")
                    ),
                ));
            }
        }
    }
}

#![doc = include_str!("README.md")]

pub mod acks;
pub mod acks_file;
mod archive;
mod baseline;
mod bastion;
mod calendar;
mod catalog;
mod device;
mod email;
mod env_file;
mod environment;
mod error;
mod extends;
mod indentation;
pub mod inventory;
mod metrics;
mod notify;
mod origins;
mod recover;
pub mod reference;
mod references;
mod secret;
mod secret_command;
mod site;
pub mod site_list;
mod tree;
pub mod yaml;
mod yaml_words;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use archive::ArchiveSettings;
pub use baseline::{BaselineText, Owner, Reading};
pub use bastion::{Bastion, Via};
pub use calendar::Calendar;
pub use catalog::{Declared, Entry, Examples, Severity};
pub use device::{Access, Connection, Device, Rejected, Skip, reference as device_reference};
pub use email::{Email, Relay, TlsMode};
pub use environment::Environment;
pub use error::{ConfigError, ConfigErrors, MisplacedKey, Position};
pub use metrics::Metrics;
pub use notify::{
    Endpoint, NotifyError, NotifyKind, NotifyOn, PAGERDUTY_EVENTS, SecretAt, Target,
    check_secrets as check_notify_secrets,
};
pub use origins::Origins;
pub use references::Reference;
pub use secret::{SecretError, SecretRef, mask_read_so_far as mask_secrets_read_so_far};
pub use secret_command::{CommandError, Found as ProgramFound, SecretCommand};
pub use site::{SshDefaults, reference as site_reference};
pub use tree::{Tree, TreeValue};

use premarket_core::{CheckId, DeviceName};

/// Everything loaded from a configuration directory, validated.
#[derive(Clone, Debug)]
pub struct Config {
    pub dir: PathBuf,
    pub site: Site,
    pub devices: Vec<Device>,
    /// The devices whose baseline has mistakes, in `site.yaml` order: not in `devices`.
    pub rejected: Vec<Rejected>,
    pub catalog: Vec<Entry>,
}

/// The validated site settings.
#[derive(Clone, Debug)]
pub struct Site {
    pub name: String,
    pub timezone: chrono_tz::Tz,
    pub market_open: Option<chrono::NaiveTime>,
    pub deadline: Option<chrono::NaiveTime>,
    pub ssh: SshDefaults,
    /// The known_hosts file, resolved against `baselines/`.
    pub known_hosts: Option<PathBuf>,
    /// `None` when `site.yaml` has no `email:` section.
    pub email: Option<Email>,
    pub archive: ArchiveSettings,
    /// `None` when `site.yaml` has no `metrics:` section.
    pub metrics: Option<Metrics>,
    /// `None`: every day is a trading day.
    pub calendar: Option<Calendar>,
    /// The endpoints of `notify:` (none without the section).
    pub notify: Vec<Endpoint>,
    /// The jump hosts of `bastions:` (none without the section).
    pub bastions: Vec<Bastion>,
    /// What a run whose deadline passed less than 12 hours ago still gets.
    pub deadline_grace: std::time::Duration,
    /// Where `{ env: NAME }` secrets are read: the process, then `environment_file:`.
    pub environment: Environment,
    /// `site.yaml`'s `expect:`, read by the checks over several devices.
    pub baseline: BaselineText,
}

impl Config {
    /// Loads `dir/baselines/site.yaml`, the device files it names, and `dir/checks/*.yaml`;
    /// any mistake, a device's too, is an error.
    pub fn load(dir: &Path) -> Result<Config, ConfigErrors> {
        match Config::load_partial(dir)? {
            (config, errors) if errors.is_empty() && config.rejected.is_empty() => Ok(config),
            (config, mut errors) => {
                errors.extend(config.rejected.into_iter().flat_map(|r| r.mistakes));
                Err(ConfigErrors(errors))
            }
        }
    }

    /// Like [`Config::load`], but keeps what did load next to the problems found, so that
    /// `validate` can go on to plan it and report every problem at once, and a run can inspect
    /// the devices whose baselines are right. The errors returned are the site's (`site.yaml`,
    /// the catalog); a device's are in [`Config::rejected`]. Errs only when the site file
    /// itself cannot be read.
    pub fn load_partial(dir: &Path) -> Result<(Config, Vec<ConfigError>), ConfigErrors> {
        let mut errors = Vec::new();
        let baselines = dir.join("baselines");
        let site_path = baselines.join("site.yaml");
        let (site_file, left_out, site_text) =
            recover::read_file::<site::SiteFile>(&site_path, SITE_PLACEHOLDERS, &mut errors);
        let Some(site_file) = site_file else {
            // The usual cause: premarket was started outside the configuration directory.
            if !site_path.exists() {
                for error in &mut errors {
                    error.message.push_str(
                        " (premarket reads DIR/baselines/site.yaml: give the configuration \
                         directory with --dir DIR or PREMARKET_DIR=DIR, or run it from there)",
                    );
                }
            }
            return Err(ConfigErrors(errors));
        };
        let environment = environment(&site_path, dir, &site_file, &mut errors);
        let devices_read = !left_out.iter().any(|k| k == "devices");
        let site = validate_site(
            &site_path,
            &baselines,
            &site_file,
            &site_text,
            devices_read,
            &mut errors,
        );
        let site = site.map(|mut site| {
            site.environment = environment.clone();
            site.email = site_file.email.as_ref().and_then(|e| {
                email::validate(&site_path, &baselines, e, &environment, &mut errors)
            });
            site.archive =
                archive::validate(&site_path, dir, site_file.archive.as_ref(), &mut errors);
            site.metrics = site_file
                .metrics
                .as_ref()
                .and_then(|m| metrics::validate(&site_path, dir, m, &mut errors));
            site.calendar = site_file
                .calendar
                .as_ref()
                .and_then(|c| calendar::validate(&site_path, c, &mut errors));
            site.notify =
                notify::validate(&site_path, &site_file.notify, &environment, &mut errors);
            site.bastions = bastion::validate(&site_path, &site_file.bastions, &mut errors);
            site
        });

        // Each listed device, in order: refused as listed, or its baseline to load.
        let mut listed: Vec<Result<(DeviceName, PathBuf), ConfigError>> = Vec::new();
        let mut seen: HashMap<String, Position> = HashMap::new();
        for entry in &site_file.devices {
            let position = Position::from_location(&site_path, entry.name.defined);
            if let Some(first) = seen.insert(entry.name.value.clone(), position.clone()) {
                listed.push(Err(ConfigError::new(
                    position,
                    format!(
                        "device {} is listed twice (first at {first})",
                        entry.name.value
                    ),
                )));
                continue;
            }
            let name = match DeviceName::new(&entry.name.value) {
                Ok(name) => name,
                Err(e) => {
                    listed.push(Err(ConfigError::new(position, e.to_string())));
                    continue;
                }
            };
            let path = baselines.join(&entry.baseline.value);
            // Whether it is a file premarket may read is the reader's to say (it names why not).
            if !path.exists() {
                listed.push(Err(ConfigError::new(
                    Position::from_location(&site_path, entry.baseline.defined),
                    format!(
                        "device {}: baseline file {} does not exist",
                        entry.name.value,
                        path.display()
                    ),
                )));
                continue;
            }
            listed.push(Ok((name, path)));
        }
        // Baselines are read and parsed on two threads: a thousand of them took a fifth of a
        // second before the first device was reached.
        let (mut devices, mut rejected) = (Vec::new(), Vec::new());
        let load = |half: Vec<Result<(DeviceName, PathBuf), ConfigError>>| -> Vec<_> {
            half.into_iter()
                .map(|listed| listed.map(|(name, path)| device::load(&name, &path, &environment)))
                .collect()
        };
        for loaded in premarket_core::in_halves(listed, load)
            .into_iter()
            .flatten()
        {
            match loaded {
                Ok(Ok(device)) => devices.push(device),
                Ok(Err(device)) => rejected.push(*device),
                Err(e) => errors.push(e),
            }
        }

        let catalog = load_catalog(&dir.join("checks"), &mut errors);
        if let Some(site) = &site {
            bastion::validate_via(&devices, &site.bastions, &mut errors);
        }
        validate_explains(&catalog, &mut errors);
        match site {
            Some(site) => Ok((
                Config {
                    dir: dir.to_path_buf(),
                    site,
                    devices,
                    rejected,
                    catalog,
                },
                errors,
            )),
            None => Err(ConfigErrors(errors)),
        }
    }

    pub fn device(&self, name: &str) -> Option<&Device> {
        self.devices.iter().find(|d| d.name == *name)
    }

    /// Whether `site.yaml` lists a device of that name (loaded or rejected).
    pub fn lists(&self, name: &str) -> bool {
        self.device(name).is_some() || self.rejected.iter().any(|r| r.name == *name)
    }

    pub fn bastion(&self, name: &str) -> Option<&Bastion> {
        self.site.bastions.iter().find(|b| b.name == name)
    }
}

/// What stands for a block of `site.yaml` left out for a mistake, so that the rest still reads.
const SITE_PLACEHOLDERS: &[(&str, &str)] =
    &[("site", "''"), ("timezone", "UTC"), ("devices", "[]")];

fn validate_site(
    path: &Path,
    baselines: &Path,
    file: &site::SiteFile,
    text: &str,
    devices_read: bool,
    errors: &mut Vec<ConfigError>,
) -> Option<Site> {
    let timezone = match file.timezone.value.parse::<chrono_tz::Tz>() {
        Ok(tz) => Some(tz),
        Err(_) => {
            errors.push(ConfigError::new(
                Position::from_location(path, file.timezone.defined),
                format!(
                    "unknown time zone {:?} (use an IANA name such as Asia/Taipei)",
                    file.timezone.value
                ),
            ));
            None
        }
    };
    let mut time = |field: &Option<serde_saphyr::Spanned<String>>, what: &str| match field {
        None => Some(None),
        Some(t) => match chrono::NaiveTime::parse_from_str(&t.value, "%H:%M") {
            Ok(time) => Some(Some(time)),
            Err(_) => {
                errors.push(ConfigError::new(
                    Position::from_location(path, t.defined),
                    format!("{what} {:?} is not a time of day HH:MM", t.value),
                ));
                None
            }
        },
    };
    let market_open = time(&file.market_open, "market_open");
    let deadline = time(&file.deadline, "deadline");
    if file.devices.is_empty() && devices_read {
        errors.push(ConfigError::new(
            Position::file_start(path),
            "the site lists no devices",
        ));
    }
    Some(Site {
        name: file.site.clone(),
        timezone: timezone?,
        market_open: market_open?,
        deadline: deadline?,
        ssh: file.ssh.clone(),
        known_hosts: file.ssh.known_hosts.as_ref().map(|p| baselines.join(p)),
        email: None,
        archive: ArchiveSettings::default_in(baselines.parent().unwrap_or(baselines)),
        metrics: None,
        calendar: None,
        notify: Vec::new(),
        bastions: Vec::new(),
        deadline_grace: std::time::Duration::from_secs(file.deadline_grace_s.unwrap_or(120)),
        environment: Environment::process(),
        baseline: site_baseline(path, file, text),
    })
}

/// The site's `expect:` as a baseline its checks read (a site without one: an empty block,
/// where a site check's optional keys take their defaults).
fn site_baseline(path: &Path, file: &site::SiteFile, text: &str) -> BaselineText {
    let (position, mut keys) = match &file.expect {
        Some(expect) => (
            Position::from_location(path, expect.defined),
            expect
                .value
                .keys()
                .map(|k| (k.value.clone(), Position::from_location(path, k.defined)))
                .collect(),
        ),
        None => (Position::file_start(path), Vec::new()),
    };
    keys.sort_by_key(|(_, at): &(String, Position)| (at.line, at.column));
    BaselineText::new(
        Owner::Site(file.site.clone()),
        path,
        text.into(),
        position,
        keys,
    )
}

/// The site's `environment_file:` (relative to the site directory `dir`), read now; without
/// one, or when it is refused (an error), the process environment alone.
fn environment(
    site_path: &Path,
    dir: &Path,
    file: &site::SiteFile,
    errors: &mut Vec<ConfigError>,
) -> Environment {
    let Some(named) = &file.environment_file else {
        return Environment::process();
    };
    let position = Position::from_location(site_path, named.referenced);
    Environment::load(&dir.join(&named.value), &position).unwrap_or_else(|e| {
        errors.push(e);
        Environment::process()
    })
}

fn load_catalog(dir: &Path, errors: &mut Vec<ConfigError>) -> Vec<Entry> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(read) => read
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect(),
        Err(e) => {
            errors.push(ConfigError::new(
                Position::file_start(dir),
                format!("cannot read the check catalog: {e}"),
            ));
            return Vec::new();
        }
    };
    files.sort();
    let mut entries = Vec::new();
    let mut seen: HashMap<String, Position> = HashMap::new();
    for file in files {
        let (list, _, _) = recover::read_file::<Vec<catalog::EntryFile>>(&file, &[], errors);
        let Some(list) = list else {
            continue;
        };
        for entry in list {
            let position = Position::from_location(&file, entry.id.defined);
            let id = entry.id.value.clone();
            if let Some(first) = seen.insert(id.clone(), position.clone()) {
                errors.push(ConfigError::new(
                    position,
                    format!("check id {id} is defined twice (first at {first})"),
                ));
                continue;
            }
            if let Err(e) = CheckId::new(&id) {
                errors.push(ConfigError::new(position, e.to_string()));
                continue;
            }
            entries.push(Entry::from_file(entry, position));
        }
    }
    entries
}

/// `explains:` names checks of the same platform (a cause and its symptom are on one device).
fn validate_explains(catalog: &[Entry], errors: &mut Vec<ConfigError>) {
    for entry in catalog {
        for (id, position) in &entry.explains {
            match catalog.iter().find(|e| &e.id == id) {
                None => errors.push(ConfigError::new(
                    position.clone(),
                    format!("{}: explains {id}, which is not in the catalog", entry.id),
                )),
                Some(other) if other.platform != entry.platform => errors.push(ConfigError::new(
                    position.clone(),
                    format!(
                        "{}: explains {id}, a {} check; a check explains only checks of its own platform ({})",
                        entry.id, other.platform, entry.platform
                    ),
                )),
                Some(other) if other.id == entry.id => errors.push(ConfigError::new(
                    position.clone(),
                    format!("{}: a check cannot explain itself", entry.id),
                )),
                Some(_) => {}
            }
        }
    }
}

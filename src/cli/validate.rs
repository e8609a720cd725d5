//! `premarket validate`: load everything, report every problem at once, contact nothing.
//!
//! Besides the files themselves it builds each SSH device's session script with the same guard
//! the transport uses, so a line that `validate` accepts is never refused later, and it reads
//! every secret whose variable or file is present (offline work needs none), the SMTP password
//! and the notify: endpoints' URLs and routing keys included, refusing one that is not a single
//! line or is shorter than 8 characters (or a URL that is not https), with the reference named
//! and never the value. A secret command is not run: its program is looked up. A device
//! secret that the device itself prints (a number, an interface name, a word of its outputs,
//! its own name) is a warning: premarket masks it in everything it writes (the report would
//! show `********` for that port) and cannot compare the archive's masked records with the next
//! run. `baselines/acks.yaml` is checked too: each mistake with its position, an
//! acknowledgement that has ended as a warning naming the entry to delete.

use std::path::Path;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

use super::Stop;
use crate::collect::ssh::profile;
use crate::config::{
    Config, ConfigError, ConfigErrors, Connection, Device, Environment, Position, ProgramFound,
    SecretRef, yaml,
};
use crate::plan::{DevicePlan, Plan, PlanError, Selection};
use crate::ssh::script::Script;

pub fn run(dir: &Path) -> Result<u8, Stop> {
    let (config, mut errors) = Config::load_partial(dir)?;
    let mut warnings = Vec::new();
    // Planning every check also finds checks whose baseline values are missing; the devices
    // whose baselines are right are planned (and their commands guarded) all the same.
    let planned = match Plan::sparing(&config, &Selection::default()) {
        Ok(plan) => {
            for device in &plan.devices {
                guard(device, &mut errors);
                pending(device, &mut warnings);
            }
            errors.extend(plan.invalid.iter().flat_map(|d| d.mistakes.iter().cloned()));
            plan.check_count()
        }
        Err(PlanError::Config(ConfigErrors(more))) => {
            errors.extend(more);
            0
        }
        // With the site already broken, "nothing selected" is only a consequence of that.
        Err(_) if !errors.is_empty() => {
            errors.extend(
                config
                    .rejected
                    .iter()
                    .flat_map(|r| r.mistakes.iter().cloned()),
            );
            0
        }
        Err(other) => return Err(other.into()),
    };
    for device in &config.devices {
        secrets(device, &mut errors, &mut warnings);
    }
    bastion_secrets(&config, &mut errors, &mut warnings);
    smtp_secret(&config, &mut errors, &mut warnings);
    acknowledgements(&config, &mut errors, &mut warnings);
    // Not refused (they worked yesterday), but others may read them.
    warnings.extend(config.exposed_secret_files());
    // Not errors: offline work and `plan` need no secrets. A live run would miss them.
    for w in &warnings {
        errln!("warning: {w}");
    }
    errors.extend(crate::config::check_notify_secrets(&config.site.notify));
    if !errors.is_empty() {
        errors.sort_by(|a, b| {
            (&a.position.file, a.position.line).cmp(&(&b.position.file, b.position.line))
        });
        errors.dedup();
        return Err(ConfigErrors(errors).into());
    }
    outln!(
        "configuration OK: site {}, {} device(s), {} check(s) in the catalog, {planned} planned check(s)",
        config.site.name,
        config.devices.len(),
        config.catalog.len(),
    );
    Ok(0)
}

/// Builds the device's session script: a VDOM the guard refuses is an error at the device
/// file, a refused command one at each catalog entry that needs it.
fn guard(plan: &DevicePlan, errors: &mut Vec<ConfigError>) {
    let device = &plan.device;
    let (Some(conn), Some(profile)) = (device.ssh(), profile(device.platform)) else {
        return;
    };
    let script = match Script::new(profile, &plan.commands, conn.vdom.as_deref()) {
        Ok(script) => script,
        Err(refused) => {
            errors.push(ConfigError::new(
                at(device, "vdom").unwrap_or_else(|| Position::file_start(&device.file)),
                format!("device {}: ssh.vdom: {refused}", device.name),
            ));
            return;
        }
    };
    for (command, refused) in script.refusals() {
        let entries = plan
            .checks
            .iter()
            .filter(|c| c.queries.iter().any(|q| &q.key().command == command));
        for check in entries {
            errors.push(ConfigError::new(
                check.entry.position.clone(),
                format!(
                    "device {}: check {} needs a line the read-only guard refuses: {refused}",
                    device.name, check.entry.id
                ),
            ));
        }
    }
}

/// A draft device's checks that wait for a value: warnings, since a run reports each as ERROR
/// (never OK) and an imported device is described a little at a time.
fn pending(plan: &DevicePlan, warnings: &mut Vec<String>) {
    let waiting = plan
        .checks
        .iter()
        .filter_map(|c| c.prepared.as_ref()?.pending());
    for waiting in waiting {
        let short = waiting.split(" (").next().unwrap_or(waiting);
        warnings.push(format!("{short} (ERROR in a run until it is written)"));
    }
}

/// Reads every secret of `device` that is present; one that cannot be read is an error at its
/// key in the device file.
fn secrets(device: &Device, errors: &mut Vec<ConfigError>, warnings: &mut Vec<String>) {
    let Some(conn) = device.ssh() else {
        return;
    };
    let Connection {
        password,
        key_file,
        key_passphrase,
        enable_secret,
        ..
    } = conn;
    // A key file is not a secret reference, but a missing one is as sure a failed login (an
    // imported device's path is the Ansible control node's, which may not be this host's).
    if let Some(path) = key_file.as_ref().filter(|p| !p.exists()) {
        warnings.push(format!(
            "the key file {} does not exist: a live run would not log in to {} (ssh.key_file)",
            path.display(),
            device.name
        ));
    }
    for (key, secret) in [
        ("password", password),
        ("key_passphrase", key_passphrase),
        ("enable_secret", enable_secret),
    ] {
        let Some(secret) = secret.as_ref() else {
            continue;
        };
        let consequence = format!("a live run would not log in to {} (ssh.{key})", device.name);
        match examine(secret, &device.environment, &consequence, warnings) {
            Err(e) => errors.push(ConfigError::new(
                at(device, key).unwrap_or_else(|| Position::file_start(&device.file)),
                format!("device {}: ssh.{key}: {e}", device.name),
            )),
            Ok(Some(value)) => {
                warnings.extend(printed(device, key, secret, value.expose_secret()));
            }
            Ok(None) => {}
        }
    }
}

/// A bastion's secrets, as a device's: one not there is a warning, one that cannot be read
/// an error at the bastion's entry in site.yaml.
fn bastion_secrets(config: &Config, errors: &mut Vec<ConfigError>, warnings: &mut Vec<String>) {
    for bastion in &config.site.bastions {
        let name = &bastion.name;
        for (key, secret) in [
            ("password", &bastion.login.password),
            ("key_passphrase", &bastion.login.key_passphrase),
        ] {
            let Some(secret) = secret.as_ref() else {
                continue;
            };
            let consequence = format!(
                "a live run would not log in to bastion {name} ({key}), nor reach a device behind it"
            );
            let env = &config.site.environment;
            if let Err(e) = examine(secret, env, &consequence, warnings) {
                errors.push(ConfigError::new(
                    bastion.position.clone(),
                    format!("bastion {name}: {key}: {e}"),
                ));
            }
        }
    }
}

/// The warning for a device secret that the device prints, named by its reference.
fn printed(
    device: &Device,
    key: &str,
    secret: &crate::config::SecretRef,
    value: &str,
) -> Option<String> {
    let value = value.trim();
    let own_name = [Some(device.name.as_str()), conn_vdom(device)]
        .into_iter()
        .flatten()
        .any(|name| name.eq_ignore_ascii_case(value));
    let kind = if own_name {
        "its own name"
    } else {
        crate::platform::printed(device.platform, value)?
    };
    Some(format!(
        "device {}: ssh.{key} ({secret}) is {kind}, a word the device prints: premarket masks it in \
         everything it writes, so the report shows `********` where the device printed it, and \
         a check that compares with the archive's masked records of those outputs is an ERROR; \
         give the device a secret it never prints",
        device.name
    ))
}

fn conn_vdom(device: &Device) -> Option<&str> {
    device.ssh().and_then(|c| c.vdom.as_deref())
}

/// Reads the SMTP password when it is present; one that cannot be read is an error at its key
/// in `site.yaml`.
fn smtp_secret(config: &Config, errors: &mut Vec<ConfigError>, warnings: &mut Vec<String>) {
    let Some((_, secret)) = config
        .site
        .email
        .as_ref()
        .and_then(|e| e.relay.auth.as_ref())
    else {
        return;
    };
    let consequence = "a live run could not send the email (email.password)";
    if let Err(e) = examine(secret, &config.site.environment, consequence, warnings) {
        let site = config.dir.join("baselines").join("site.yaml");
        #[derive(Deserialize)]
        struct File {
            email: std::collections::HashMap<Spanned<String>, IgnoredAny>,
        }
        let at = yaml::read::<File>(&site)
            .ok()
            .and_then(|f| f.email.into_keys().find(|k| k.value == "password"))
            .map(|k| Position::from_location(&site, k.defined))
            .unwrap_or_else(|| Position::file_start(&site));
        errors.push(ConfigError::new(at, format!("email.password: {e}")));
    }
}

/// Every mistake in `baselines/acks.yaml`; an acknowledgement whose day has come is a warning
/// naming the entry to delete.
fn acknowledgements(config: &Config, errors: &mut Vec<ConfigError>, warnings: &mut Vec<String>) {
    let acks = crate::config::acks::Acks::load(config);
    errors.extend(acks.errors.iter().cloned());
    for a in acks.expired(chrono::Utc::now(), config.site.timezone) {
        warnings.push(format!(
            "{}: the acknowledgement of {} on {} expired at the start of {}: it covers nothing; delete the entry (`premarket ack --remove {}`)",
            a.position, a.check, a.device, a.until, a.number
        ));
    }
}

/// Where `ssh.KEY` is written: in the device file, or the role file it came from.
fn at(device: &Device, key: &str) -> Option<Position> {
    #[derive(Deserialize)]
    struct File {
        ssh: std::collections::HashMap<Spanned<String>, IgnoredAny>,
    }
    let file: File = yaml::parse(&device.file, device.baseline.text()).ok()?;
    file.ssh
        .keys()
        .find(|k| k.value == key)
        .map(|k| device.baseline.position_of(k.defined))
}

/// Reads `secret` when it is present: its value, or what is wrong with it; one that is not present
/// is a warning (offline work and `plan` need no secrets). A command is never run here: its
/// program is looked up, and one that is there but cannot be run is a mistake.
fn examine(
    secret: &SecretRef,
    env: &Environment,
    consequence: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<SecretString>, String> {
    if !secret.is_present(env) {
        warnings.push(missing(secret, env, consequence));
        return Ok(None);
    }
    match secret {
        SecretRef::Command(command) => match command.find() {
            ProgramFound::NotExecutable(path) => Err(format!(
                "the secret command's program {} is not an executable file ({secret})",
                path.display()
            )),
            ProgramFound::Executable(_) | ProgramFound::Missing(_) => Ok(None),
        },
        _ => secret.resolve(env).map(Some).map_err(|e| e.to_string()),
    }
}

/// A secret a live run would miss, named by its reference (its value is never read here):
/// `PREMARKET_SW1_PASSWORD is not set: a live run would not log in to sw1 (ssh.password)`.
fn missing(secret: &SecretRef, env: &Environment, consequence: &str) -> String {
    match secret {
        SecretRef::Env(name) => match env.file() {
            Some(file) => format!(
                "{name} is not set, neither here nor in the environment file {}: {consequence}",
                file.display()
            ),
            None => format!("{name} is not set: {consequence}"),
        },
        SecretRef::File(path) => {
            format!(
                "the secret file {} does not exist: {consequence}",
                path.display()
            )
        }
        SecretRef::Command(command) => {
            let place = match command.program().starts_with('/') {
                true => "",
                false => " on PATH",
            };
            format!(
                "the secret command's program {} is not found{place}: {consequence}",
                command.program()
            )
        }
    }
}

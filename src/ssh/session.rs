//! One device, start to finish: connect, verify the host key, log in, open the shell, run the
//! commands, close. Everything that leaves this module has had the device's secrets removed.

use std::path::PathBuf;
use std::time::Duration;

use super::driver::{Captured, Driver, EnableSecret};
use super::hostkey::Expected;
use super::profile;
use super::redact::Redactor;
use super::shell::Shell;
use super::transport::Client;
use super::{auth, transport};
use crate::config::{Config, Device};
use crate::core::CollectError;
use crate::core::Command;
use russh::client::Handle;

/// Site-wide SSH settings (site.yaml `ssh:`).
#[derive(Clone, Debug)]
pub struct Settings {
    /// The site's known_hosts file, already resolved against `baselines/`.
    pub known_hosts: Option<PathBuf>,
    /// TCP connect + handshake + login.
    pub connect_timeout: Duration,
    /// Each command, from sending it to its prompt.
    pub command_timeout: Duration,
}

impl Settings {
    pub fn from_config(config: &Config) -> Settings {
        let ssh = &config.site.ssh;
        Settings {
            known_hosts: config.site.known_hosts.clone(),
            connect_timeout: Duration::from_secs(ssh.connect_timeout_s.max(1)),
            command_timeout: Duration::from_secs(ssh.command_timeout_s.max(1)),
        }
    }
}

/// Runs `commands` on `device` in one session; one result per command, in order.
pub async fn collect(
    device: &Device,
    commands: &[Command],
    settings: &Settings,
) -> Vec<(Command, Result<Captured, CollectError>)> {
    let mut redactor = Redactor::default();
    let results = match run(device, commands, settings, &mut redactor).await {
        Ok(results) => results,
        Err(e) => commands
            .iter()
            .map(|c| (c.clone(), Err(e.clone())))
            .collect(),
    };
    results
        .into_iter()
        .map(|(command, result)| {
            let result = match result {
                Ok(c) => Ok(Captured {
                    prompt: redactor.clean(c.prompt),
                    output: redactor.clean(c.output),
                }),
                Err(e) => Err(redact_error(&redactor, e)),
            };
            (command, result)
        })
        .collect()
}

async fn run(
    device: &Device,
    commands: &[Command],
    settings: &Settings,
    redactor: &mut Redactor,
) -> Result<Vec<(Command, Result<Captured, CollectError>)>, CollectError> {
    let (handle, mut driver) = open(device, settings, redactor).await?;
    let results = driver.run(commands).await;
    close(handle, driver).await;
    Ok(results)
}

/// The connection and the driver, logged in, at the first command prompt (privileged and in
/// the VDOM when the baseline says so). `redactor` learns the device's secrets.
pub(crate) async fn open(
    device: &Device,
    settings: &Settings,
    redactor: &mut Redactor,
) -> Result<(Handle<Client>, Driver), CollectError> {
    let conn = device.ssh().ok_or_else(|| {
        CollectError::Other(format!(
            "device {} is a {}: it is not reached over SSH",
            device.name, device.platform
        ))
    })?;
    let profile = profile::for_platform(device.platform).ok_or_else(|| {
        CollectError::Other(format!(
            "platform {} is not reached over SSH",
            device.platform
        ))
    })?;
    for secret in [&conn.password, &conn.key_passphrase, &conn.enable_secret]
        .into_iter()
        .flatten()
    {
        if let Ok(value) = secret.resolve() {
            redactor.add(&value);
        }
    }
    let enable_secret = match &conn.enable_secret {
        Some(r) => Some(EnableSecret {
            value: auth::resolve("enable secret", r)?,
            reference: r.to_string(),
        }),
        None => None,
    };
    let expected = Expected {
        device: &device.name,
        host: &conn.host,
        port: conn.port,
        pin: conn.host_key.as_deref(),
        known_hosts: settings.known_hosts.as_deref(),
    };
    let handler = transport::verifying(expected);
    let mut handle = transport::connect(
        &conn.host,
        conn.port,
        conn.legacy_algorithms,
        settings.connect_timeout,
        handler,
    )
    .await?;
    let login = auth::login(&mut handle, conn);
    match tokio::time::timeout(settings.connect_timeout, login).await {
        Ok(result) => result?,
        Err(_) => {
            return Err(CollectError::Auth(format!(
                "no answer within {} s",
                settings.connect_timeout.as_secs()
            )));
        }
    }
    let shell = tokio::time::timeout(settings.connect_timeout, Shell::open(&handle, profile))
        .await
        .map_err(|_| CollectError::Connect("the device did not open a shell in time".into()))?
        .map_err(|e| CollectError::Connect(format!("cannot open a shell: {e}")))?;
    let driver = Driver::start(
        shell,
        profile,
        settings.command_timeout,
        enable_secret,
        conn.vdom.as_deref(),
    )
    .await?;
    Ok((handle, driver))
}

/// Leaves the VDOM, closes the shell and disconnects.
pub(crate) async fn close(handle: Handle<Client>, driver: Driver) {
    driver.finish().await;
    let _ = handle
        .disconnect(russh::Disconnect::ByApplication, "", "en")
        .await;
}

pub(crate) fn redact_error(redactor: &Redactor, e: CollectError) -> CollectError {
    let text = redactor.clean(e.to_string());
    if text == e.to_string() {
        e
    } else {
        CollectError::Other(text)
    }
}

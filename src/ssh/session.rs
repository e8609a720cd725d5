//! One device, start to finish: connect (directly, or through its bastions: [`super::jump`]),
//! verify the host key, log in, open the shell, run the
//! script, close. The outputs leave as the device printed them (a large one spooled to the
//! run's private directory), to be judged as read; prompts and errors, which are shown as they
//! are, have the device's secrets removed here. Whatever shows or stores an output masks it
//! (the report, the archive, `capture`).
//!
//! The caller (the collector) says who the device is ([`Target`], secrets already read from
//! their references) and which platform profile it speaks; this layer knows neither the
//! configuration files nor any platform by name.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use russh::client::Handle;

use super::driver::Driver;
use super::gate::Gate;
use super::hostkey::{Expected, ReadOnce, Role};
use super::jump::{Jumps, Reach};
use super::profile::Profile;
use super::redact::Redactor;
use super::script::Script;
use super::shell::{Shell, Spooling};
use super::target::{Captured, EnableSecret, Target};
use super::transport::Client;
use super::{auth, transport};
use premarket_core::{CollectError, Command, Megabytes};
use premarket_spool::SpoolDir;

/// The per-command output cap unless the site says otherwise (`ssh.max_output_mb`).
pub const MAX_OUTPUT: Megabytes = Megabytes(2048);

/// Site-wide SSH settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The site's known_hosts file, already resolved against `baselines/`.
    pub known_hosts: Option<PathBuf>,
    /// That file as the run read it, once for every device.
    pub known_hosts_read: ReadOnce,
    /// TCP connect + handshake + login.
    pub connect_timeout: Duration,
    /// Each command, from sending it to its prompt; also bounds every write.
    pub command_timeout: Duration,
    /// Silence after which a keepalive is sent; after four unanswered the device is given up
    /// as not answering.
    pub keepalive: Duration,
    /// Where large outputs are spooled (the run's directory).
    pub spool: SpoolDir,
    /// Past this a command's output is an error and the session is closed.
    pub max_output: Megabytes,
    /// The run's deadline: a second sample ([`Command::resample`]) is not waited for past it.
    pub deadline: Option<tokio::time::Instant>,
    /// The run's bastion connections, shared by every device behind each.
    pub jumps: Jumps,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            known_hosts: None,
            known_hosts_read: ReadOnce::default(),
            connect_timeout: Duration::from_secs(10),
            command_timeout: Duration::from_secs(60),
            keepalive: transport::KEEPALIVE,
            spool: SpoolDir::temporary(),
            max_output: MAX_OUTPUT,
            deadline: None,
            jumps: Jumps::default(),
        }
    }
}

/// Runs `commands` on `target` in one session; one result per command, in order.
pub async fn collect(
    target: &Target,
    profile: &'static Profile,
    commands: &[Command],
    settings: &Settings,
) -> Vec<(Command, Result<Captured, CollectError>)> {
    collect_gated(target, profile, commands, settings, None).await
}

/// [`collect`], asking `gate` before each command whether it is still to be sent.
pub async fn collect_gated(
    target: &Target,
    profile: &'static Profile,
    commands: &[Command],
    settings: &Settings,
    gate: Option<Arc<dyn Gate>>,
) -> Vec<(Command, Result<Captured, CollectError>)> {
    let redactor = Arc::new(Redactor::for_target(target));
    let results = match run(target, profile, commands, settings, gate).await {
        Ok(results) => results,
        Err(e) => commands.iter().map(|_| Err(e.clone())).collect(),
    };
    commands
        .iter()
        .cloned()
        .zip(results)
        .map(|(command, result)| {
            let result = match result {
                // The output is judged as read; its readers mask it.
                Ok(c) => Ok(Captured {
                    prompt: redactor.literals(&c.prompt),
                    output: c.output,
                }),
                Err(e) => Err(redactor.clean_error(e)),
            };
            (command, result)
        })
        .collect()
}

async fn run(
    target: &Target,
    profile: &'static Profile,
    commands: &[Command],
    settings: &Settings,
    gate: Option<Arc<dyn Gate>>,
) -> Result<Vec<Result<Captured, CollectError>>, CollectError> {
    let script = Script::new(profile, commands, target.vdom.as_deref())
        .map_err(|r| CollectError::Refused(r.to_string()))?;
    let (handle, driver) = open(target, profile, settings).await?;
    let mut driver = driver.with_gate(gate);
    driver.until(settings.deadline);
    let results = driver.run(&script).await;
    close(handle, driver).await;
    Ok(results)
}

/// The connection and the driver, logged in, at the first prompt. The replies are kept as
/// the device printed them: whoever shows or stores them masks the target's secrets
/// ([`Redactor::for_target`]), as [`collect`] does with prompts and errors.
pub async fn open(
    target: &Target,
    profile: &'static Profile,
    settings: &Settings,
) -> Result<(Handle<Client>, Driver), CollectError> {
    // Read here, off the async threads: the key check inside the handshake reads no file.
    let known_hosts = match &settings.known_hosts {
        None => None,
        Some(path) => Some(
            settings
                .known_hosts_read
                .get(path)
                .await
                .map_err(|e| CollectError::Other(format!("cannot read known_hosts: {e}")))?,
        ),
    };
    let expected = Expected {
        device: &target.name,
        role: Role::Device,
        host: &target.host,
        port: target.port,
        pin: target.host_key.as_deref(),
        known_hosts: known_hosts.as_deref(),
    };
    let handler = transport::verifying(expected);
    let refusal = handler.refusal();
    let (legacy, timeout, keepalive) = (
        target.legacy_algorithms,
        settings.connect_timeout,
        settings.keepalive,
    );
    let mut handle = match target.via.is_empty() {
        true => {
            transport::connect_with(
                &target.host,
                target.port,
                legacy,
                timeout,
                keepalive,
                handler,
            )
            .await?
        }
        false => {
            let reach = Reach {
                known_hosts: known_hosts.as_deref(),
                connect_timeout: timeout,
                keepalive,
            };
            let tunnel = (settings.jumps)
                .tunnel(&target.via, &target.host, target.port, &reach)
                .await?;
            transport::connect_over(tunnel, &target.addr(), legacy, timeout, keepalive, handler)
                .await?
        }
    };
    let login = auth::login(&mut handle, target);
    match tokio::time::timeout(settings.connect_timeout, login).await {
        Ok(result) => result?,
        Err(_) => {
            return Err(CollectError::Auth(format!(
                "no answer within {} s",
                settings.connect_timeout.as_secs()
            )));
        }
    }
    let spooling = Spooling {
        dir: settings.spool.clone(),
        cap: settings.max_output,
    };
    let shell = Shell::open(&handle, profile, settings.keepalive, spooling, refusal);
    let shell = tokio::time::timeout(settings.connect_timeout, shell)
        .await
        .map_err(|_| CollectError::Connect("the device did not open a shell in time".into()))?
        .map_err(|e| CollectError::Connect(format!("cannot open a shell: {e}")))?;
    let enable_secret = target.enable_secret.as_ref().map(|s| EnableSecret {
        value: s.value.clone(),
        reference: s.reference.clone(),
    });
    let driver = Driver::start(shell, profile, settings.command_timeout, enable_secret).await?;
    Ok((handle, driver))
}

/// Closes the shell and disconnects, briefly: the device may already be gone. A session that
/// broke (a device that stopped answering or reading) is dropped without a goodbye.
pub async fn close(handle: Handle<Client>, driver: Driver) {
    let broken = driver.is_broken();
    driver.finish().await;
    if broken {
        return;
    }
    let _ = tokio::time::timeout(
        Duration::from_secs(2),
        handle.disconnect(russh::Disconnect::ByApplication, "", "en"),
    )
    .await;
}

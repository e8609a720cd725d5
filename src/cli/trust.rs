//! `premarket trust --device D`: show the host key a device offers so an operator can check it
//! out of band and pin it. It only prints: premarket never adds a key by itself (no trust on
//! first use), so a changed key can never be accepted silently. Its exit code says what it
//! found, for a script ([`EXIT_CODES`]): the known key, no known key yet, or another key.

use std::path::Path;
use std::time::Duration;

use super::{Stop, load};
use crate::core::Exit;
use crate::ssh::hostkey::{self, Expected, HostKeyError, KnownHosts};
use crate::ssh::transport;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The device whose host key to show.
    #[arg(long, value_name = "NAME", add = clap_complete::ArgValueCandidates::new(super::complete::device_names))]
    pub device: String,
}

/// `trust --help`'s exit codes.
pub const EXIT_CODES: &str = "Exit codes:
  0  the offered key is the known one (it matches the pin or the known_hosts entry)
  1  no key is known for the device yet: check the fingerprint, then pin it
  2  the device's key could not be read (unreachable, no SSH answer)
  3  the offered key is NOT the known one (HOST KEY CHANGED, or a revoked key), or a
     configuration error (unknown device, unreadable known_hosts)";

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    let device = config
        .device(&args.device)
        .ok_or_else(|| Stop::config(crate::plan::hint::unknown_device(&config, &args.device)))?;
    let conn = device.ssh().ok_or_else(|| {
        Stop::config(format!(
            "device {} is a {}: it is not reached over SSH and has no host key",
            device.name, device.platform
        ))
    })?;
    let timeout = Duration::from_secs(config.site.ssh.connect_timeout_s.max(1));
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Stop {
        code: Exit::Error.code(),
        message: format!("cannot start: {e}"),
    })?;
    let key = runtime
        .block_on(transport::offered_key(
            &conn.host,
            conn.port,
            conn.legacy_algorithms,
            timeout,
        ))
        .map_err(|e| Stop {
            code: Exit::Error.code(),
            message: format!("{}: {e}", device.name),
        })?;
    let fingerprint = hostkey::fingerprint(&key);
    let known_hosts = config.site.known_hosts.as_deref().map(KnownHosts::read);
    let expected = Expected {
        device: &device.name,
        host: &conn.host,
        port: conn.port,
        pin: conn.host_key.as_deref(),
        known_hosts: known_hosts.as_ref(),
    };
    let (status, code) = match hostkey::verify(&expected, &key) {
        Ok(()) => (
            "already trusted (it matches the pin or the known_hosts entry)".to_string(),
            Exit::Ok,
        ),
        Err(HostKeyError::Unknown { .. }) => ("not trusted yet".to_string(), Exit::Fail),
        // Another key than the known one (changed, revoked), or a known_hosts premarket
        // does not read: never a code a script could take for "fine".
        Err(e) => (e.to_string(), Exit::NotRun),
    };
    let known_hosts = config
        .site
        .known_hosts
        .as_ref()
        .map_or("the site's known_hosts file".into(), |p| {
            p.display().to_string()
        });
    outln!(
        "{} ({}:{}) offers a {} host key",
        device.name,
        conn.host,
        conn.port,
        key.algorithm()
    );
    outln!("  fingerprint: {fingerprint}");
    outln!("  status:      {status}");
    outln!();
    outln!("Compare this fingerprint with one taken on the device itself (its console, or its");
    outln!("administrator) before trusting it: over the network an attacker can offer any key.");
    outln!("Then either pin it in {} under ssh:", device.file.display());
    outln!("    host_key: \"{fingerprint}\"");
    outln!("or add this line to {known_hosts}:");
    outln!(
        "    {}",
        hostkey::known_hosts_line(&conn.host, conn.port, &key)
    );
    outln!("premarket does not write either for you.");
    Ok(code.code())
}

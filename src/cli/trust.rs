//! `premarket trust --device D` / `--bastion B`: show the host key a device (or a jump host of
//! site.yaml) offers so an operator can check it out of band and pin it. A device behind
//! bastions is reached through them (each checked as a run checks it), so its key is read
//! from where premarket meets it. It only prints: premarket never adds a key by itself (no
//! trust on first use), so a changed key can never be accepted silently. Its exit code says
//! what it found, for a script ([`EXIT_CODES`]): the known key, no known key yet, or another
//! key.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{Stop, load};
use crate::config::Config;
use crate::core::{CollectError, Exit};
use crate::ssh::hostkey::{self, Expected, HostKeyError, KnownHosts, Role};
use crate::ssh::jump::Reach;
use crate::ssh::transport::{self, Offered};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The device whose host key to show.
    #[arg(long, value_name = "NAME", add = clap_complete::ArgValueCandidates::new(super::complete::device_names),
          required_unless_present = "bastion", conflicts_with = "bastion")]
    pub device: Option<String>,
    /// The bastion (a jump host of site.yaml's `bastions:`) whose host key to show.
    #[arg(long, value_name = "NAME")]
    pub bastion: Option<String>,
}

/// `trust --help`'s exit codes.
pub const EXIT_CODES: &str = "Exit codes:
  0  the offered key is the known one (it matches the pin or the known_hosts entry, or its
     host certificate is signed by a @cert-authority of known_hosts)
  1  no key is known for the host yet: check the fingerprint, then pin it
  2  the host's key could not be read (unreachable, no SSH answer, a bastion on the way failed)
  3  the offered key is NOT the known one (HOST KEY CHANGED, a revoked key, a refused host
     certificate), or a configuration error (unknown device or bastion, unreadable known_hosts)";

/// The host whose key is shown, as the site describes it.
struct Host {
    name: String,
    role: Role,
    host: String,
    port: u16,
    legacy: bool,
    pin: Option<String>,
    /// The bastions on the way, outermost first.
    via: Vec<String>,
    /// Where its pin goes.
    pin_in: String,
}

impl Host {
    fn device(config: &Config, name: &str) -> Result<Host, Stop> {
        let device = config
            .device(name)
            .ok_or_else(|| Stop::config(crate::plan::hint::unknown_device(config, name)))?;
        let conn = device.ssh().ok_or_else(|| {
            Stop::config(format!(
                "device {} is a {}: it is not reached over SSH and has no host key",
                device.name, device.platform
            ))
        })?;
        Ok(Host {
            name: device.name.to_string(),
            role: Role::Device,
            host: conn.host.clone(),
            port: conn.port,
            legacy: conn.legacy_algorithms,
            pin: conn.host_key.clone(),
            via: conn.hops().to_vec(),
            pin_in: format!("{} under ssh:", device.file.display()),
        })
    }

    /// A bastion, reached through the hops that come before it in the first device (in the
    /// site's order) that goes through it; directly when none does.
    fn bastion(config: &Config, name: &str) -> Result<Host, Stop> {
        let bastion = config.bastion(name).ok_or_else(|| {
            let known: Vec<&str> = config
                .site
                .bastions
                .iter()
                .map(|b| b.name.as_str())
                .collect();
            Stop::config(format!(
                "no bastion named {name} in site.yaml (it lists {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        })?;
        let via = config
            .devices
            .iter()
            .filter_map(|d| d.ssh())
            .find_map(|c| {
                let hops = c.hops();
                let at = hops.iter().position(|h| h == name)?;
                hops.get(..at).map(<[String]>::to_vec)
            })
            .unwrap_or_default();
        let login = &bastion.login;
        Ok(Host {
            name: bastion.name.clone(),
            role: Role::Bastion,
            host: login.host.clone(),
            port: login.port,
            legacy: login.legacy_algorithms,
            pin: login.host_key.clone(),
            via,
            pin_in: format!(
                "{} under its bastions: entry ({})",
                bastion.position.file.display(),
                bastion.position
            ),
        })
    }

    /// `sw1`, `sw1 via b1`, `bastion b2 via b1`.
    fn named(&self) -> String {
        let named = self.role.named(&self.name);
        match self.via.is_empty() {
            true => named,
            false => format!("{named} via {}", self.via.join(" > ")),
        }
    }

    fn expected<'a>(&'a self, known_hosts: Option<&'a KnownHosts>) -> Expected<'a> {
        Expected {
            device: &self.name,
            role: self.role,
            host: &self.host,
            port: self.port,
            pin: self.pin.as_deref(),
            known_hosts,
        }
    }
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    let host = match (&args.device, &args.bastion) {
        (_, Some(bastion)) => Host::bastion(&config, bastion)?,
        (Some(device), None) => Host::device(&config, device)?,
        (None, None) => return Err(Stop::config("give --device NAME or --bastion NAME")),
    };
    let timeout = Duration::from_secs(config.site.ssh.connect_timeout_s.max(1));
    let known_hosts = config.site.known_hosts.as_deref().map(KnownHosts::read);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Stop {
        code: Exit::Error.code(),
        message: format!("cannot start: {e}"),
    })?;
    let expected = host.expected(known_hosts.as_ref());
    let certificates = hostkey::wants_certificate(&expected);
    let offered = runtime
        .block_on(offered(
            &config,
            &host,
            known_hosts.as_ref(),
            certificates,
            timeout,
        ))
        .map_err(|e| Stop {
            code: Exit::Error.code(),
            message: format!("{}: {e}", host.named()),
        })?;
    let (status, code) = match hostkey::verify_offered(&expected, &offered.as_offered()) {
        Ok(()) if offered.certificate.is_some() && host.pin.is_none() => (
            "already trusted (its host certificate is signed by a @cert-authority of known_hosts)"
                .to_string(),
            Exit::Ok,
        ),
        Ok(()) => (
            "already trusted (it matches the pin or the known_hosts entry)".to_string(),
            Exit::Ok,
        ),
        Err(HostKeyError::Unknown { .. }) => ("not trusted yet".to_string(), Exit::Fail),
        // Another key than the known one (changed, revoked, a refused certificate), or a
        // known_hosts premarket does not read: never a code a script could take for "fine".
        Err(e) => (e.to_string(), Exit::NotRun),
    };
    print(&config, &host, &offered, &status);
    Ok(code.code())
}

/// The key the host offers, read directly or through its bastions.
async fn offered(
    config: &Config,
    host: &Host,
    known_hosts: Option<&KnownHosts>,
    certificates: bool,
    timeout: Duration,
) -> Result<Offered, CollectError> {
    if host.via.is_empty() {
        return transport::offered_key(&host.host, host.port, host.legacy, certificates, timeout)
            .await;
    }
    let jumps = crate::collect::ssh::settings(config).jumps;
    let via: Vec<Arc<crate::ssh::Bastion>> = host
        .via
        .iter()
        .map(|name| jumps.bastion(name))
        .collect::<Result<_, _>>()?;
    let reach = Reach {
        known_hosts,
        connect_timeout: timeout,
        keepalive: transport::KEEPALIVE,
    };
    let tunnel = jumps.tunnel(&via, &host.host, host.port, &reach).await?;
    let addr = format!("{}:{} via {}", host.host, host.port, host.via.join(" > "));
    transport::offered_key_over(tunnel, &addr, host.legacy, certificates, timeout).await
}

fn print(config: &Config, host: &Host, offered: &Offered, status: &str) {
    let fingerprint = hostkey::fingerprint(&offered.key);
    let known_hosts = config
        .site
        .known_hosts
        .as_ref()
        .map_or(PathBuf::from("the site's known_hosts file"), PathBuf::clone);
    outln!(
        "{} ({}:{}) offers a {} host key",
        host.named(),
        host.host,
        host.port,
        offered.key.algorithm()
    );
    outln!("  fingerprint: {fingerprint}");
    if let Some(cert) = &offered.certificate {
        let authority = cert
            .signature_key()
            .fingerprint(russh::keys::HashAlg::Sha256);
        outln!(
            "  certificate: signed by {authority}, for {}",
            match cert.valid_principals() {
                [] => "any host".to_string(),
                names => names.join(", "),
            }
        );
    }
    outln!("  status:      {status}");
    outln!();
    outln!("Compare this fingerprint with one taken on the host itself (its console, or its");
    outln!("administrator) before trusting it: over the network an attacker can offer any key.");
    outln!("Then either pin it in {}", host.pin_in);
    outln!("    host_key: \"{fingerprint}\"");
    outln!("or add this line to {}:", known_hosts.display());
    outln!(
        "    {}",
        hostkey::known_hosts_line(&host.host, host.port, &offered.key)
    );
    outln!("premarket does not write either for you.");
}

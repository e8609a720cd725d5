//! The probe's side of the lab: a capture of what the trading path's packets would feel with
//! the firewall's scenario, so `premarket demo` shows the whole mission (the firewall's own
//! account and the probe's measurement side by side) without a measurement server.
//!
//! The capture comes from the probe's synthetic generator (the lab notes' figures): offloaded
//! when healthy, the CPU path for `offload-disabled`, a new session per packet for
//! `new-source-port`, slow again after a pause longer than the idle timer for `idle-expired`.
//! [`add_to_site`] writes it beside the site's baselines and lists the example site's probe
//! device (`baselines/probe1.yaml`) in the site.

use std::path::{Path, PathBuf};

use crate::Fault;
use crate::example::Example;
use premarket_probe::synth::{self, Profile, Spec};

/// The probe device of the demo site.
pub const DEVICE: &str = "probe1";
/// Requests in the capture: enough for stable percentiles, quick to analyse.
const REQUESTS: usize = 2_000;

#[derive(Debug, thiserror::Error)]
pub enum ProbeSiteError {
    #[error("cannot write the probe's capture {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Example(#[from] crate::example::ExampleError),
    #[error("{0} has no `devices:` list to add the probe to")]
    NoDevices(PathBuf),
}

/// What the packets feel with these firewall faults.
pub fn profile(firewall_faults: &[Fault]) -> Profile {
    // sFlow on the ingress interface stops offload for all its traffic, as a policy would.
    if firewall_faults.contains(&Fault::OffloadDisabled)
        || firewall_faults.contains(&Fault::SflowEnabled)
    {
        Profile::Cpu
    } else if firewall_faults.contains(&Fault::NewSourcePort) {
        Profile::NewSession
    } else if firewall_faults.contains(&Fault::IdleExpired) {
        Profile::Pause
    } else {
        Profile::Offloaded
    }
}

/// Writes the capture for `firewall_faults` into `site_dir/baselines/captures/`, copies the
/// example probe device from the `example` site, and lists it in the site.
pub fn add_to_site(
    site_dir: &Path,
    example: &Example,
    firewall_faults: &[Fault],
) -> Result<(), ProbeSiteError> {
    let baselines = site_dir.join("baselines");
    let captures = baselines.join("captures");
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ProbeSiteError::Write { path, source }
    };
    std::fs::create_dir_all(&captures).map_err(write_err(&captures))?;
    let capture = captures.join(format!("{DEVICE}.pcap"));
    let file = std::fs::File::create(&capture).map_err(write_err(&capture))?;
    synth::generate(&Spec::lab(profile(firewall_faults), REQUESTS, 1), file)
        .map_err(write_err(&capture))?;

    let text = example.read(&format!("baselines/{DEVICE}.yaml"))?;
    let device_file = baselines.join(format!("{DEVICE}.yaml"));
    std::fs::write(&device_file, text).map_err(write_err(&device_file))?;

    let site = baselines.join("site.yaml");
    let text = std::fs::read_to_string(&site).map_err(|source| ProbeSiteError::Read {
        path: site.clone(),
        source,
    })?;
    let listed =
        list_device(&text, DEVICE).ok_or_else(|| ProbeSiteError::NoDevices(site.clone()))?;
    std::fs::write(&site, listed).map_err(write_err(&site))
}

/// `site` with `name` appended to its `devices:` list (block style, as the lab writes it).
fn list_device(site: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = site.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("devices:"))?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| !(l.starts_with(' ') || l.starts_with('-')))
        .map_or(lines.len(), |i| start + 1 + i);
    let mut out: Vec<String> = lines[..end].iter().map(|l| l.to_string()).collect();
    out.push(format!("  - name: {name}"));
    out.push(format!("    baseline: {name}.yaml"));
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    Some(out.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_is_listed_after_the_lab_devices() {
        let site =
            "site: lab\ndevices:\n  - name: fw1\n    baseline: fw1.yaml\nssh:\n  concurrency: 2\n";
        assert_eq!(
            list_device(site, "probe1").as_deref(),
            Some(
                "site: lab\ndevices:\n  - name: fw1\n    baseline: fw1.yaml\n  - name: probe1\n    baseline: probe1.yaml\nssh:\n  concurrency: 2\n"
            )
        );
        assert_eq!(list_device("site: lab\n", "probe1"), None);
    }

    #[test]
    fn each_firewall_fault_has_the_packets_it_causes() {
        let cases = [
            (vec![], Profile::Offloaded),
            (vec![Fault::OffloadDisabled], Profile::Cpu),
            (vec![Fault::SflowEnabled], Profile::Cpu),
            (vec![Fault::NewSourcePort], Profile::NewSession),
            (vec![Fault::IdleExpired], Profile::Pause),
            (vec![Fault::Hang], Profile::Offloaded),
        ];
        for (faults, want) in cases {
            assert_eq!(profile(&faults), want, "{faults:?}");
        }
    }
}

//! A ready-to-use configuration directory for the running lab: the repository's example
//! `baselines/` and `checks/` with each device's host and port pointed at the lab, one baseline
//! per lab device, a `known_hosts` with the lab's host keys, and the passwords in files
//! (`password: { file: ... }`), so `premarket run --dir SITE` inspects the lab as is.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use regex::Regex;

use premarket_core::Platform;

use crate::example::{Example, ExampleError};

/// One lab device as the site sees it.
pub struct SiteDevice<'a> {
    pub name: &'a str,
    pub platform: Platform,
    pub port: u16,
    pub password: &'a str,
    pub enable_secret: Option<&'a str>,
    /// The `known_hosts` line: `[127.0.0.1]:PORT ssh-ed25519 AAAA...`.
    pub known_host: String,
    /// `expect:` keys written for this device's model instead of the example's.
    pub expect: &'a [(&'a str, &'a str)],
    /// `ssh:` keys added for this device's scenarios (a VDOM to enter).
    pub ssh: &'a [(&'a str, &'a str)],
}

#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error(transparent)]
    Example(#[from] ExampleError),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the example site has no device of platform {0} to copy")]
    NoTemplate(Platform),
}

fn write(path: &Path, text: &str) -> Result<(), SiteError> {
    std::fs::write(path, text).map_err(|source| SiteError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn mkdir(path: &Path) -> Result<(), SiteError> {
    std::fs::create_dir_all(path).map_err(|source| SiteError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes the site for `devices` into `out`, copying from the `example` site; `site_expect`
/// sets keys of `site.yaml`'s `expect:` (the site checks').
pub fn write_site(
    example: &Example,
    out: &Path,
    devices: &[SiteDevice<'_>],
    site_expect: &[(&str, &str)],
) -> Result<(), SiteError> {
    let baselines = out.join("baselines");
    let checks = out.join("checks");
    let secrets = out.join("secrets");
    for dir in [&baselines, &checks, &secrets] {
        mkdir(dir)?;
    }
    for (name, text) in example.checks()? {
        write(&checks.join(name), &text)?;
    }

    let site = example.read("baselines/site.yaml")?;
    let templates = templates(example, &site)?;
    let mut known_hosts = String::new();
    let mut entries = String::from("devices:\n");
    for device in devices {
        let template = templates
            .iter()
            .find(|(p, _)| *p == device.platform)
            .map(|(_, t)| t.as_str())
            .ok_or(SiteError::NoTemplate(device.platform))?;
        let password = secrets.join(format!("{}.password", device.name));
        write_secret(&password, device.password)?;
        let enable = match device.enable_secret {
            Some(secret) => {
                let path = secrets.join(format!("{}.enable", device.name));
                write_secret(&path, secret)?;
                Some(path)
            }
            None => None,
        };
        let baseline = rewrite_expect(
            &rewrite_baseline(template, device.port, &password, enable.as_deref()),
            device.expect,
        );
        let baseline = add_ssh(&baseline, device.ssh);
        write(&baselines.join(format!("{}.yaml", device.name)), &baseline)?;
        let _ = writeln!(
            entries,
            "  - name: {}\n    baseline: {}.yaml",
            device.name, device.name
        );
        known_hosts.push_str(&device.known_host);
        known_hosts.push('\n');
    }
    write(
        &baselines.join("site.yaml"),
        &rewrite_expect(&rewrite_site(&site, &entries, devices.len()), site_expect),
    )?;
    write(&baselines.join("known_hosts"), &known_hosts)?;
    Ok(())
}

/// The example baseline text per platform (the first device of each platform in site.yaml).
fn templates(example: &Example, site: &str) -> Result<Vec<(Platform, String)>, SiteError> {
    let file = Regex::new(r"(?m)^\s*baseline:\s*(\S+)\s*$").expect("static regex");
    let platform = Regex::new(r"(?m)^platform:\s*(\w+)").expect("static regex");
    let mut out: Vec<(Platform, String)> = Vec::new();
    for caps in file.captures_iter(site) {
        let text = example.read(&format!("baselines/{}", caps[1].trim_matches('"')))?;
        let Some(p) = platform
            .captures(&text)
            .and_then(|c| c[1].parse::<Platform>().ok())
        else {
            continue;
        };
        if !out.iter().any(|(q, _)| *q == p) {
            out.push((p, text));
        }
    }
    Ok(out)
}

fn write_secret(path: &Path, secret: &str) -> Result<(), SiteError> {
    write(path, &format!("{secret}\n"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
    Ok(())
}

/// Points a baseline at the lab: host, port, secrets from files; a pinned host key is dropped
/// (the lab's keys are new each start; known_hosts carries them).
pub fn rewrite_baseline(text: &str, port: u16, password: &Path, enable: Option<&Path>) -> String {
    let key =
        Regex::new(r"^(\s+)(host|port|password|enable_secret|host_key):").expect("static regex");
    let mut out = String::with_capacity(text.len() + 128);
    for line in text.lines() {
        let Some(caps) = key.captures(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let indent = &caps[1];
        match &caps[2] {
            "host" => out.push_str(&format!("{indent}host: 127.0.0.1")),
            "port" => out.push_str(&format!("{indent}port: {port}")),
            "password" => out.push_str(&format!(
                "{indent}password: {{ file: {:?} }}",
                password.display().to_string()
            )),
            "enable_secret" => match enable {
                Some(path) => out.push_str(&format!(
                    "{indent}enable_secret: {{ file: {:?} }}",
                    path.display().to_string()
                )),
                None => continue,
            },
            _ => out.push_str(&format!(
                "{indent}# host_key pin removed by the lab: see known_hosts"
            )),
        }
        out.push('\n');
    }
    out
}

/// Adds `ssh:` keys (one line each, `  KEY: VALUE`) at the top of the `ssh:` block.
fn add_ssh(text: &str, keys: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if line == "ssh:" {
            for (key, value) in keys {
                let _ = writeln!(out, "  {key}: {value}");
            }
        }
    }
    out
}

/// Sets `expect:` keys (one line each, `  KEY: VALUE`) to a model's values (or the site's, in
/// `site.yaml`): an existing key is replaced with its value's lines (a block under it) and the
/// comment lines right above it, which described the old value; a missing key is added at the
/// top of `expect:`.
pub fn rewrite_expect(text: &str, keys: &[(&str, &str)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (key, value) in keys {
        let line = format!("  {key}: {value}");
        let prefix = format!("  {key}:");
        match lines.iter().position(|l| l.starts_with(&prefix)) {
            Some(i) => {
                let mut start = i;
                while start > 0 && lines[start - 1].trim_start().starts_with('#') {
                    start -= 1;
                }
                // The old value's own lines (a block list or map under the key) go too.
                let mut end = i;
                while lines
                    .get(end + 1)
                    .is_some_and(|l| l.starts_with("   ") || l.starts_with("  - "))
                {
                    end += 1;
                }
                lines.splice(start..=end, [line]);
            }
            None => match lines.iter().position(|l| l.starts_with("expect:")) {
                Some(i) => lines.insert(i + 1, line),
                None => lines.extend(["expect:".to_string(), line]),
            },
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Replaces the `devices:` block of site.yaml, points `known_hosts` at the lab's file and
/// raises `concurrency` to the number of devices (the lab is inspected all at once).
pub fn rewrite_site(text: &str, devices_block: &str, devices: usize) -> String {
    let mut out = String::with_capacity(text.len() + devices_block.len());
    let mut skipping = false;
    for line in text.lines() {
        if skipping {
            if line.starts_with(' ') || line.starts_with('-') || line.trim().is_empty() {
                continue;
            }
            skipping = false;
        }
        if line.starts_with("devices:") {
            out.push_str(devices_block);
            skipping = true;
            continue;
        }
        if let Some((indent, value)) = line.split_once("concurrency:")
            && indent.trim().is_empty()
        {
            let n = value.trim().parse::<usize>().unwrap_or(0).max(devices);
            out.push_str(&format!("{indent}concurrency: {n}\n"));
            continue;
        }
        if let Some(indent) = line
            .strip_suffix(line.trim_start())
            .filter(|_| line.trim_start().starts_with("known_hosts:"))
        {
            out.push_str(&format!("{indent}known_hosts: known_hosts\n"));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_rewrite() {
        let text = "platform: eos\nssh:\n  host: sw1.example\n  port: 22\n  user: premarket\n  password: { env: X }\n  enable_secret: { env: Y }\n  host_key: SHA256:abc\nexpect:\n  lanz: true\n";
        let out = rewrite_baseline(
            text,
            4242,
            Path::new("/s/sw1.password"),
            Some(Path::new("/s/sw1.enable")),
        );
        assert!(
            out.contains("  host: 127.0.0.1\n  port: 4242\n  user: premarket\n"),
            "{out}"
        );
        assert!(out.contains("  password: { file: \"/s/sw1.password\" }\n"));
        assert!(out.contains("  enable_secret: { file: \"/s/sw1.enable\" }\n"));
        assert!(!out.contains("SHA256:abc") && out.ends_with("expect:\n  lanz: true\n"));
    }

    #[test]
    fn a_model_s_expect_keys_replace_the_example_s() {
        let text = "platform: eos\nexpect:\n  # old pin\n  version: { allowed: [4.31.6M] }\n  lanz: true\n";
        let out = rewrite_expect(
            text,
            &[("version", "{ allowed: [4.22.4M] }"), ("model_note", "x")],
        );
        assert_eq!(
            out,
            "platform: eos\nexpect:\n  model_note: x\n  version: { allowed: [4.22.4M] }\n  lanz: true\n"
        );
        assert_eq!(rewrite_expect(text, &[]), text);
        let block = "expect:\n  feeds:\n    - name: a\n      b: 1\n  lanz: true\n";
        assert_eq!(
            rewrite_expect(block, &[("feeds", "[]")]),
            "expect:\n  feeds: []\n  lanz: true\n"
        );
    }

    #[test]
    fn site_rewrite() {
        let text = "site: lab\ndevices:\n  - name: fw1\n    baseline: fw1.yaml\n\n  - name: sw1\n    baseline: sw1.yaml\nssh:\n  known_hosts: /etc/x\n  concurrency: 16\n";
        let out = rewrite_site(
            text,
            "devices:\n  - name: fw9\n    baseline: fw9.yaml\n",
            200,
        );
        assert_eq!(
            out,
            "site: lab\ndevices:\n  - name: fw9\n    baseline: fw9.yaml\nssh:\n  known_hosts: known_hosts\n  concurrency: 200\n"
        );
    }
}

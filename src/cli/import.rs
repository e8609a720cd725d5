//! `premarket import ansible FILE`: the devices of an Ansible inventory (the JSON that
//! `ansible-inventory --list` prints; `-` reads it from stdin) as baselines to fill in.
//!
//! Each host whose `ansible_network_os` names a platform premarket inspects gets
//! `baselines/<host>.yaml` from the platform's starter ([`crate::platform::starter`]): its
//! address, port and user from the inventory, `extends:` the role file named after its first
//! group (written once, empty, for what the role's devices share), secret references to fill
//! in, and `draft: true`, so that it validates before its expectations are written and a run
//! reports each check still without its values as ERROR. The devices are added to `site.yaml`.
//! No secret value is ever written or printed: the inventory's passwords are noted by name only.
//! Existing files are left as they are unless `--force` (role files always are: they hold what
//! the operator wrote for the role).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::Stop;
use crate::config::inventory::{self, InventoryHost};
use crate::config::site_list;
use crate::core::{DeviceName, Platform};
use crate::files::{self, Kind};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub source: Source,
}

#[derive(Debug, clap::Subcommand)]
pub enum Source {
    /// Devices from the JSON `ansible-inventory -i INVENTORY --list` prints (FILE `-`: stdin).
    Ansible(AnsibleArgs),
}

#[derive(Debug, clap::Args)]
pub struct AnsibleArgs {
    /// The inventory as `ansible-inventory --list` prints it; `-` reads it from stdin.
    #[arg(value_hint = clap::ValueHint::FilePath)]
    pub file: PathBuf,
    /// Overwrite device baselines that exist (role files are never overwritten).
    #[arg(long)]
    pub force: bool,
}

/// Most bytes of inventory read: the JSON of thousands of hosts is a few megabytes.
const INVENTORY: Kind = Kind::new("inventory", 64 << 20);

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let Source::Ansible(args) = args.source;
    let baselines = dir.join("baselines");
    let site_path = baselines.join("site.yaml");
    if !site_path.exists() {
        return Err(Stop::config(format!(
            "no site at {} (it has no baselines/site.yaml): `premarket init {}` writes one, then \
             import into it",
            dir.display(),
            dir.display()
        )));
    }
    let hosts = inventory::read(&read_inventory(&args.file)?)
        .map_err(|e| Stop::config(format!("{}: {e}", shown(&args.file))))?;
    let site_text =
        files::read_text(&site_path, Kind::CONFIG).map_err(|e| Stop::config(e.to_string()))?;
    let listed = site_list::listed(&site_text);

    let mut report = Report::default();
    let mut to_list: Vec<(String, String)> = Vec::new();
    for host in &hosts {
        let Some((name, platform)) = importable(host, &mut report.skipped) else {
            continue;
        };
        let file = format!("{name}.yaml");
        let path = baselines.join(&file);
        let mut instead = String::new();
        if !path.exists() || args.force {
            let role = role_file(host, &name, &mut report.notes);
            if let Some(role) = &role {
                write_role(&baselines, role, &mut report)?;
            }
            let (text, references) = baseline(host, &name, platform, role.as_deref());
            write(&path, &text)?;
            let line = describe(host, &name, platform, role.as_deref());
            report.devices.push(line);
            instead = format!(
                "; its baseline refers to {} instead",
                references.join(" and ")
            );
        } else {
            report.kept.push(file.clone());
        }
        if !host.secrets.is_empty() {
            let names = host.secrets.join(", ");
            report.secrets.push(format!("{name}: {names}{instead}"));
        }
        if !listed.contains(&name.to_string()) && !to_list.iter().any(|(n, _)| *n == *name) {
            to_list.push((name.to_string(), file));
        }
    }
    let added = match site_list::add(&site_text, &to_list) {
        Ok(text) if !to_list.is_empty() => {
            write(&site_path, &text)?;
            Ok(to_list.len())
        }
        Ok(_) => Ok(0),
        Err(why) => Err(why),
    };
    report.print(dir, &args.file, &hosts, added, &to_list);
    Ok(0)
}

/// What the import did and did not do, for the summary.
#[derive(Default)]
struct Report {
    devices: Vec<String>,
    roles: Vec<String>,
    kept: Vec<String>,
    skipped: Vec<String>,
    secrets: Vec<String>,
    notes: Vec<String>,
}

impl Report {
    fn print(
        &self,
        dir: &Path,
        from: &Path,
        hosts: &[InventoryHost],
        added: Result<usize, site_list::ListError>,
        to_list: &[(String, String)],
    ) {
        let baselines = dir.join("baselines");
        outln!(
            "{} of {} host(s) of {} written to {}:",
            self.devices.len(),
            hosts.len(),
            shown(from),
            baselines.display()
        );
        for line in &self.devices {
            outln!("  {line}");
        }
        if !self.roles.is_empty() {
            outln!(
                "role files written (empty: put there what the role's devices share): {}",
                self.roles.join(", ")
            );
        }
        if !self.kept.is_empty() {
            outln!(
                "left as they are (they exist; --force overwrites them): {}",
                self.kept.join(", ")
            );
        }
        for line in self.notes.iter().chain(&self.skipped) {
            outln!("{line}");
        }
        if !self.secrets.is_empty() {
            outln!("secrets in the inventory, not copied (premarket never writes a secret value):");
            for line in &self.secrets {
                outln!("  {line}");
            }
        }
        match added {
            Ok(0) => {}
            Ok(n) => outln!("site.yaml: {n} device(s) added to its `devices:` list"),
            Err(why) => {
                outln!("site.yaml was not changed: {why}; add these entries to devices: yourself:");
                for (name, file) in to_list {
                    outln!("  - name: {name}\n    baseline: {file}");
                }
            }
        }
        outln!(
            "next: fill in each device's secret references and expectations (or its role file's), \
             then `premarket --dir {} validate`: it names every secret still unset and every \
             check without its values (a run reports those as ERROR until they are written)",
            super::absolute(dir).display()
        );
    }
}

/// The inventory's text: the file, or stdin for `-`, bounded either way.
fn read_inventory(path: &Path) -> Result<String, Stop> {
    if path != Path::new("-") {
        return files::read_text(path, INVENTORY).map_err(|e| Stop::config(e.to_string()));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(INVENTORY.cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Stop::config(format!("cannot read the inventory from stdin: {e}")))?;
    if bytes.len() as u64 > INVENTORY.cap {
        return Err(Stop::config(format!(
            "the inventory on stdin is larger than {}",
            files::Size(INVENTORY.cap)
        )));
    }
    String::from_utf8(bytes).map_err(|_| Stop::config("the inventory on stdin is not UTF-8 text"))
}

fn shown(path: &Path) -> String {
    match path == Path::new("-") {
        true => "stdin".into(),
        false => path.display().to_string(),
    }
}

/// The host's device name and platform, or why it is not imported (added to `skipped`).
fn importable(host: &InventoryHost, skipped: &mut Vec<String>) -> Option<(DeviceName, Platform)> {
    let platform = match host.network_os.as_deref() {
        None => {
            skipped.push(format!(
                "{}: not imported: no ansible_network_os",
                host.name
            ));
            return None;
        }
        Some(os) => match crate::platform::from_ansible(os) {
            Some(p) => p,
            None => {
                skipped.push(format!(
                    "{}: not imported: ansible_network_os {os} is not a platform premarket inspects",
                    host.name
                ));
                return None;
            }
        },
    };
    match DeviceName::new(&host.name) {
        Ok(name) => Some((name, platform)),
        Err(e) => {
            skipped.push(format!("{}: not imported: {e}", host.name));
            None
        }
    }
}

/// The role file a host extends: its first group's, when that names a file premarket can write
/// beside the device's (and not the device's own).
fn role_file(host: &InventoryHost, name: &DeviceName, notes: &mut Vec<String>) -> Option<String> {
    let group = host.role.as_deref()?;
    match DeviceName::new(group) {
        Ok(_) if group != name.as_str() => Some(format!("{group}.yaml")),
        _ => {
            notes.push(format!(
                "{name}: its group {group:?} does not name a role file premarket can write; it \
                 extends nothing"
            ));
            None
        }
    }
}

/// Writes the role file once (never over one that exists: it holds the role's own values).
fn write_role(baselines: &Path, role: &str, report: &mut Report) -> Result<(), Stop> {
    let path = baselines.join(role);
    if path.exists() {
        return Ok(());
    }
    let group = role.trim_end_matches(".yaml");
    let text = format!(
        "# Role {group}: what every device of the Ansible group {group} shares. A device that\n\
         # says `extends: {role}` is judged on these keys merged under its own: its own keys\n\
         # win, maps merge key by key, lists are replaced whole. `premarket show-baseline\n\
         # --device NAME` prints the result with each line's origin. For example:\n\
         # ssh:\n\
         #   user: premarket\n\
         #   password: {{ command: [vault, kv, get, -field=password, secret/net/{group}] }}\n\
         # expect:\n\
         #   version: {{ allowed: [...] }}\n"
    );
    write(&path, &text)?;
    report.roles.push(role.to_string());
    Ok(())
}

/// The device's starting baseline, and the secret references it holds (to say what stands for
/// the inventory's own secrets).
fn baseline(
    host: &InventoryHost,
    name: &DeviceName,
    platform: Platform,
    role: Option<&str>,
) -> (String, Vec<String>) {
    let var = variable(name);
    let mut references = match &host.key_file {
        Some(key) => vec![format!("the key file {key}")],
        None => vec![format!("PREMARKET_{var}_PASSWORD")],
    };
    if host.becomes {
        references.push(format!("PREMARKET_{var}_ENABLE"));
    }
    let auth = match &host.key_file {
        Some(key) => format!(
            "  key_file: {}\n  # key_passphrase: {{ env: PREMARKET_{var}_KEY_PASSPHRASE }}   if the key has one\n",
            yaml_scalar(key)
        ),
        None => format!(
            "  # Where the password is, never the value: {{ env: NAME }}, {{ file: /path }}, or a\n  \
             # command that prints it: {{ command: [vault, kv, get, -field=password, secret/net/{name}] }}\n  \
             password: {{ env: PREMARKET_{var}_PASSWORD }}\n"
        ),
    };
    let enable = match host.becomes {
        true => format!(
            "  enable_secret: {{ env: PREMARKET_{var}_ENABLE }}   # it becomes (ansible_become)\n"
        ),
        false => format!(
            "  # enable_secret: {{ env: PREMARKET_{var}_ENABLE }}   if `enable` asks Password:\n"
        ),
    };
    let port = host.port.unwrap_or(22).to_string();
    let user = host.user.clone().unwrap_or_else(|| "premarket".into());
    let extends = role.map(|r| format!("extends: {r}\n")).unwrap_or_default();
    let header = format!(
        "# Imported from the Ansible inventory (host {}).\n",
        host.name
    );
    let text = crate::platform::starter(
        platform,
        &[
            ("name", name.as_str()),
            ("extends", &extends),
            ("host", &yaml_scalar(&host.host)),
            ("port", &port),
            ("user", &yaml_scalar(&user)),
            ("auth", &auth),
            ("enable", &enable),
        ],
    )
    .unwrap_or_default();
    (format!("{header}{text}"), references)
}

/// One line of the summary for an imported device.
fn describe(
    host: &InventoryHost,
    name: &DeviceName,
    platform: Platform,
    role: Option<&str>,
) -> String {
    let port = host.port.unwrap_or(22);
    let user = host
        .user
        .as_deref()
        .unwrap_or("premarket (ansible_user not set)");
    let mut line = format!(
        "{name}.yaml: {platform} at {}:{port}, user {user}",
        host.host
    );
    if let Some(role) = role {
        line.push_str(&format!(", extends {role}"));
    }
    for unreadable in &host.unreadable {
        line.push_str(&format!("; {unreadable} not used"));
    }
    line
}

/// The part of an environment variable's name that is the device's: `sw-7.dc1` -> `SW_7_DC1`.
fn variable(name: &DeviceName) -> String {
    name.as_str()
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c.to_ascii_uppercase(),
            false => '_',
        })
        .collect()
}

/// `value` as a YAML scalar that reads back as the same string (quoted unless it is plainly
/// one: an address or a name, not a number, `yes` or `null`).
fn yaml_scalar(value: &str) -> String {
    let word = value.to_ascii_lowercase();
    let plain = value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        && value.chars().any(|c| c.is_ascii_alphabetic() || c == '.')
        && value.parse::<f64>().is_err()
        && !["true", "false", "yes", "no", "on", "off", "null"].contains(&word.as_str());
    match plain {
        true => value.to_string(),
        false => serde_json::to_string(value).unwrap_or_default(),
    }
}

fn write(path: &Path, text: &str) -> Result<(), Stop> {
    files::write_atomic(path, text.as_bytes()).map_err(|e| Stop::config(e.to_string()))
}

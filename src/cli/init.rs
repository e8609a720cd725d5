//! `premarket init DIR`: a commented starting site for a real network, so that an operator
//! begins from the shape premarket expects rather than from the lab's example: one FortiGate and
//! one switch to rename (`example-fw`, `example-sw`), addresses and secrets to fill in, email on with the relay to name, no
//! probe until one is described, and the catalog of checks. The devices are drafts (`draft:
//! true`): `validate` passes on the new site, warning about each secret not set and each check
//! still without its values, and a run reports those checks as ERROR, never OK.
//!
//! It never writes into a site that has files (`--force` writes its own files over theirs and
//! leaves any other file alone), and prints the next steps: trust, validate, plan, run, cron.

use std::path::{Path, PathBuf};

use super::Stop;
use crate::core::Platform;
use crate::files;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory of the new site (created if missing; it must be empty).
    #[arg(value_hint = clap::ValueHint::DirPath)]
    pub dir: PathBuf,
    /// The site's short name, in every report and email subject [default: a placeholder].
    #[arg(long, value_name = "NAME")]
    pub site: Option<String>,
    /// Write into a directory that is not empty (init's own files are overwritten).
    #[arg(long)]
    pub force: bool,
}

const SITE: &str = include_str!("init_site.yaml");

/// The devices of a new site: named to be renamed (and never the name of a real device an
/// inventory import would then find already there).
const EXAMPLES: [(&str, Platform); 2] = [
    ("example-fw", Platform::Fortigate),
    ("example-sw", Platform::Eos),
];

/// The catalog of checks, as shipped (a test keeps this list equal to `checks/`).
pub const CATALOG: &[(&str, &str)] = &[
    ("eos.yaml", include_str!("../../checks/eos.yaml")),
    (
        "fortigate.yaml",
        include_str!("../../checks/fortigate.yaml"),
    ),
    ("probe.yaml", include_str!("../../checks/probe.yaml")),
    ("site.yaml", include_str!("../../checks/site.yaml")),
];

pub fn run(args: Args) -> Result<u8, Stop> {
    let dir = super::absolute(&args.dir);
    let site = args.site.as_deref().unwrap_or("my-site");
    if !plain_name(site) {
        return Err(Stop::config(format!(
            "--site {site:?}: a short name of letters, digits, `-`, `_`, `.` and inner spaces, \
             starting with a letter or digit (e.g. tokyo-colo)"
        )));
    }
    if !args.force && has_files(&dir) {
        return Err(Stop::config(format!(
            "{} is not empty: premarket init writes a new site only into an empty directory \
             (--force writes its files over those of the same name, and leaves the others)",
            dir.display()
        )));
    }
    let fail = |e: files::FileError| Stop::config(e.to_string());
    let baselines = dir.join("baselines");
    let checks = dir.join("checks");
    for d in [&dir, &baselines, &checks] {
        files::ensure_dir(d).map_err(fail)?;
    }
    let mut written: Vec<(PathBuf, String)> = vec![
        (
            baselines.join("site.yaml"),
            fill(&fill(SITE, "site", site), "timezone", &local_timezone()),
        ),
        (
            baselines.join("known_hosts"),
            "# The devices' host keys, as OpenSSH writes them: `premarket trust --device NAME`\n\
             # prints the line to add once you have checked the key with the device's owner.\n"
                .into(),
        ),
    ];
    for (name, platform) in EXAMPLES {
        written.push((
            baselines.join(format!("{name}.yaml")),
            starter(name, platform),
        ));
    }
    for (file, text) in CATALOG {
        written.push((checks.join(file), text.to_string()));
    }
    for (path, text) in &written {
        files::write_atomic(path, text.as_bytes()).map_err(fail)?;
    }
    let shown = dir.display();
    let premarket = std::env::current_exe()
        .ok()
        .filter(|p| p.is_absolute())
        .map_or_else(|| "premarket".to_string(), |p| p.display().to_string());
    outln!("A starting site is in {shown} (site {site}). Next:");
    outln!(
        "  1. Fill in baselines/site.yaml (time zone, the SMTP relay and the addresses: each FILL \
         IN), and example-fw.yaml and example-sw.yaml (rename them to your devices: address, \
         user, where the secrets are, what each must look like); or add your devices from \
         Ansible, then remove the examples from site.yaml: \
         premarket --dir {shown} import ansible INVENTORY.json"
    );
    outln!(
        "  2. premarket --dir {shown} trust --device NAME     check each device's host key with \
         its owner, then pin it"
    );
    outln!(
        "  3. premarket --dir {shown} validate                every mistake at once, every \
         secret a run would miss, every check without its values yet"
    );
    outln!(
        "  4. premarket --dir {shown} plan                    the exact read-only lines each \
         device will be sent"
    );
    outln!("  5. premarket --dir {shown} run                     inspect, report and email");
    outln!(
        "  6. Every trading morning, from the crontab of the user that runs it (the time is the \
         system's zone; before the open, leaving the run time to finish), the secrets in the \
         site's environment_file (the crontab need not load it):"
    );
    outln!("     15 8 * * *  {premarket} --dir {shown} run >>{shown}/run.log 2>&1");
    Ok(0)
}

/// Whether `name` is written into site.yaml as a plain YAML scalar that reads back as itself:
/// a first character that YAML takes for an alias, a tag, a list item or a directive, or a
/// `#`, `:` or quote inside, would make the new site fail to load (or load another name).
fn plain_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_alphanumeric())
        && !name.ends_with(' ')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "-_. ".contains(c))
}

/// `template` with its first `{key}` replaced by `value`, the spaces after the placeholder shortened or
/// lengthened so that a comment after it stays in its column (at least one space before it).
fn fill(template: &str, key: &str, value: &str) -> String {
    let placeholder = format!("{{{key}}}");
    let Some(start) = template.find(&placeholder) else {
        return template.to_string();
    };
    let after = &template[start + placeholder.len()..];
    let spaces = after.len() - after.trim_start_matches(' ').len();
    let width = placeholder.len() + spaces;
    let padding = match after[spaces..].starts_with('#') {
        true => width.saturating_sub(value.chars().count()).max(1),
        false => spaces,
    };
    format!(
        "{}{value}{}{}",
        &template[..start],
        " ".repeat(padding),
        &after[spaces..]
    )
}

/// Whether `dir` holds anything (a missing directory holds nothing).
fn has_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// A device's starting baseline, with its name and placeholders to fill in.
fn starter(name: &str, platform: Platform) -> String {
    let var = name.to_ascii_uppercase().replace('-', "_");
    let auth = format!(
        "  # Where the password is, never the value: {{ env: NAME }}, {{ file: /path }}, or a\n  \
         # command that prints it: {{ command: [vault, kv, get, -field=password, secret/net/{name}] }}\n  \
         password: {{ env: PREMARKET_{var}_PASSWORD }}\n"
    );
    let enable = format!(
        "  # enable_secret: {{ env: PREMARKET_{var}_ENABLE }}   if `enable` asks Password:\n"
    );
    let host = format!("{name}.example.net   # FILL IN: its management address");
    crate::platform::starter(
        platform,
        &[
            ("name", name),
            ("extends", ""),
            ("host", &host),
            ("port", "22"),
            (
                "user",
                "premarket            # an account with read-only rights",
            ),
            ("auth", &auth),
            ("enable", &enable),
        ],
    )
    .unwrap_or_default()
}

/// This host's IANA time zone (`TZ`, `/etc/timezone`, `/etc/localtime`'s link), else UTC: the
/// operator checks it against the market's.
fn local_timezone() -> String {
    let valid = |name: &str| {
        let name = name.trim().trim_start_matches(':');
        name.parse::<chrono_tz::Tz>().ok().map(|_| name.to_string())
    };
    std::env::var("TZ")
        .ok()
        .and_then(|tz| valid(&tz))
        .or_else(|| {
            std::fs::read_to_string("/etc/timezone")
                .ok()
                .and_then(|tz| valid(&tz))
        })
        .or_else(|| {
            let link = std::fs::read_link("/etc/localtime").ok()?;
            let link = link.to_string_lossy();
            valid(link.split("zoneinfo/").nth(1)?)
        })
        .unwrap_or_else(|| "UTC".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filled_in_value_keeps_the_comment_in_its_column() {
        let template = "site: {site}          # the name\nx: {site}\n";
        assert_eq!(
            fill(template, "site", "tokyo"),
            "site: tokyo           # the name\nx: {site}\n"
        );
        assert_eq!(
            fill(template, "site", "a-very-long-site-name"),
            "site: a-very-long-site-name # the name\nx: {site}\n"
        );
        assert_eq!(fill("a: {b}\n", "b", "c"), "a: c\n");
        assert_eq!(fill("a: {b}\n", "z", "c"), "a: {b}\n");
    }

    #[test]
    fn a_site_name_is_one_yaml_reads_back_as_itself() {
        for name in ["tokyo-colo", "NY4_colo.2", "Tokyo colo", "東京"] {
            assert!(plain_name(name), "{name}");
        }
        for name in [
            "", "*x", "&x", "!x", "- x", "%x", "@x", "x ", "x: y", "x #y", "'x'",
        ] {
            assert!(!plain_name(name), "{name:?}");
        }
    }

    #[test]
    fn the_catalog_written_is_the_one_shipped() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checks");
        let mut shipped: Vec<(String, String)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        shipped.sort();
        let written: Vec<(String, String)> = CATALOG
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        assert_eq!(written, shipped, "CATALOG must list every file of checks/");
    }
}

//! Shell completion that knows the site: `premarket check <TAB>` offers the catalog's check ids,
//! `--device <TAB>` the site's devices, `demo --scenario <TAB>` the lab's scenarios.
//!
//! It is clap's dynamic completion (`clap_complete`'s `CompleteEnv`): the shell calls
//! `premarket` itself with `COMPLETE=<shell>` for every completion, so the candidates come
//! from the site as it is now. The site is the `--dir` on the line being completed, else
//! `PREMARKET_DIR`, else the current directory; without one there (and for `demo`, whose site
//! is built in) the example site compiled into the binary answers. Loading is quiet: a site
//! that does not load offers nothing rather than an error in the middle of a prompt.

use std::ffi::OsString;
use std::path::PathBuf;

use clap_complete::CompletionCandidate;
use clap_complete::env::Shells;

use super::Stop;
use crate::config::Config;

/// The check ids of the site's catalog.
pub fn check_ids() -> Vec<CompletionCandidate> {
    let (ids, _) = site_words();
    ids.into_iter().map(CompletionCandidate::new).collect()
}

/// The names of the site's devices.
pub fn device_names() -> Vec<CompletionCandidate> {
    let (_, devices) = site_words();
    devices.into_iter().map(CompletionCandidate::new).collect()
}

/// The lab's scenarios, each with what it switches on.
#[cfg(feature = "lab")]
pub fn scenarios() -> Vec<CompletionCandidate> {
    crate::lab::Fault::ALL
        .iter()
        .map(|f| CompletionCandidate::new(f.name()).help(Some(f.describe().into())))
        .chain(std::iter::once(
            CompletionCandidate::new("list").help(Some("print every scenario".into())),
        ))
        .collect()
}

/// The script that registers the completion with `shell` (what `COMPLETE=<shell> premarket`
/// prints).
pub fn registration(shell: clap_complete::Shell) -> Result<String, Stop> {
    let name = shell.to_string();
    let shells = Shells::builtins();
    let completer = shells
        .completer(&name)
        .ok_or_else(|| Stop::config(format!("no dynamic completion for {name}")))?;
    let mut out = Vec::new();
    completer
        .write_registration("COMPLETE", "premarket", "premarket", "premarket", &mut out)
        .map_err(|e| Stop::config(format!("cannot write the completion script: {e}")))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// (check ids, device names) of the site being completed for.
fn site_words() -> (Vec<String>, Vec<String>) {
    let args: Vec<OsString> = std::env::args_os().collect();
    let demo = args.iter().any(|a| a == "demo");
    if !demo && let Ok((config, _)) = Config::load_partial(&site_dir(&args)) {
        return (
            config.catalog.iter().map(|e| e.id.clone()).collect(),
            config.devices.iter().map(|d| d.name.to_string()).collect(),
        );
    }
    example_words()
}

/// `--dir DIR` or `--dir=DIR` on the line being completed, else `PREMARKET_DIR`, else `.`.
fn site_dir(args: &[OsString]) -> PathBuf {
    let mut given = None;
    for (i, arg) in args.iter().enumerate() {
        let text = arg.to_string_lossy();
        if text == "--dir" {
            given = args.get(i + 1).map(PathBuf::from);
        } else if let Some(dir) = text.strip_prefix("--dir=") {
            given = Some(PathBuf::from(dir));
        }
    }
    given
        .or_else(|| std::env::var_os("PREMARKET_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The example site's ids and devices, read from the copy compiled into the binary.
#[cfg(feature = "lab")]
fn example_words() -> (Vec<String>, Vec<String>) {
    let example = crate::lab::Example::Embedded;
    let value = |line: &str, key: &str| {
        line.trim_start()
            .strip_prefix("- ")
            .and_then(|l| l.strip_prefix(key))
            .map(|v| v.trim().trim_matches('"').to_string())
    };
    let ids = example
        .checks()
        .unwrap_or_default()
        .iter()
        .flat_map(|(_, text)| {
            text.lines()
                .filter_map(|l| value(l, "id:"))
                .collect::<Vec<_>>()
        })
        .collect();
    let devices = example
        .read("baselines/site.yaml")
        .map(|text| text.lines().filter_map(|l| value(l, "name:")).collect())
        .unwrap_or_default();
    (ids, devices)
}

#[cfg(not(feature = "lab"))]
fn example_words() -> (Vec<String>, Vec<String>) {
    (Vec::new(), Vec::new())
}

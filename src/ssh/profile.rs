//! A platform's command-line behaviour described as data (the scrapli idea): prompts, pager,
//! error strings, privilege escalation and context steps. The values live in
//! `src/platform/<p>/cli.rs`; the SSH layer reads them and holds no device strings of its own.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use regex::Regex;

use crate::core::Platform;

/// A profile's pattern, compiled once per process. Compiling a Unicode `\w` class costs about
/// a millisecond of CPU; with one shell per device it dominated a 200-device run.
pub fn compiled(pattern: &'static str) -> Result<Regex, regex::Error> {
    static CACHE: LazyLock<Mutex<HashMap<&'static str, Regex>>> = LazyLock::new(Default::default);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(regex) = cache.get(pattern) {
        return Ok(regex.clone());
    }
    let regex = Regex::new(pattern)?;
    cache.insert(pattern, regex.clone());
    Ok(regex)
}

/// Everything the shell driver needs to know about one platform's CLI.
#[derive(Debug)]
pub struct Profile {
    pub platform: Platform,
    /// Regex for a prompt, matched against the whole last line of the output (trailing spaces
    /// included), e.g. `^[\w.-]+[>#] ?$`.
    pub prompt: &'static str,
    /// The pager's text; a line that is this text alone (spaces around allowed) is answered.
    pub pager: &'static str,
    /// What to send to the pager for the next page.
    pub pager_answer: &'static str,
    /// A post-login banner waiting for an answer: (text the last line ends with, answer).
    pub banner: Option<(&'static str, &'static str)>,
    /// Session settings sent once after login (never configuration writes).
    pub on_open: &'static [&'static str],
    pub enable: Option<Enable>,
    /// Output substrings that mean the device refused a command, most specific first.
    pub errors: &'static [DeviceError],
    /// Sent after a group of commands that shared a context, to undo it.
    pub context_reset: Option<&'static str>,
    pub vdom: Option<VdomSteps>,
    /// The read-only allowlist: `Err(reason)` for a line that must never be sent.
    pub allowlist: fn(&str) -> Result<(), String>,
}

/// Privilege escalation (EOS `enable`).
#[derive(Debug)]
pub struct Enable {
    pub command: &'static str,
    /// Regex for the password prompt (last line).
    pub password_prompt: &'static str,
    /// The last character of a privileged prompt (`#`); anything else is unprivileged.
    pub privileged_suffix: char,
    /// Output meaning the password was wrong.
    pub denied: &'static [&'static str],
}

/// A device answer that is an error, and what the operator should do about it.
#[derive(Debug)]
pub struct DeviceError {
    /// Matched at the start of an output line (leading spaces ignored).
    pub line_starts: &'static str,
    pub advice: &'static str,
}

/// Entering a virtual-domain context (FortiGate VDOMs). Steps contain `{vdom}`.
#[derive(Debug)]
pub struct VdomSteps {
    pub enter: &'static [&'static str],
    pub leave: &'static str,
    /// Output of the last enter step that proves the context exists, with `{vdom}`.
    pub entered: &'static str,
    /// The narrow rule for VDOM steps: they never pass the general allowlist.
    pub allows: fn(&str) -> bool,
}

impl Profile {
    /// The first known error found at the start of a line of `output`, with that line.
    pub fn error_in<'o>(&self, output: &'o str) -> Option<(&DeviceError, &'o str)> {
        self.errors.iter().find_map(|e| {
            output
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with(e.line_starts))
                .map(|l| (e, l))
        })
    }
}

/// The CLI profile of a platform reached over SSH.
pub fn for_platform(platform: Platform) -> Option<&'static Profile> {
    match platform {
        Platform::Eos => Some(&crate::platform::eos::cli::PROFILE),
        Platform::Fortigate => Some(&crate::platform::fortigate::cli::PROFILE),
        Platform::Probe => None,
    }
}

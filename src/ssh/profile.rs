//! A platform's command-line behaviour described as data (the scrapli idea): prompts, pager,
//! error strings, privilege escalation, VDOM contexts and the lines the session types itself.
//! The values live in `src/platform/<p>/cli.rs`; the SSH layer reads them, holds no device
//! strings of its own and never names a platform: the collector hands it the profile.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;

use premarket_core::Platform;

/// A profile's pattern, compiled once per process. Compiling a Unicode `\w` class costs about
/// a millisecond of CPU; with one shell per device it dominated a 200-device run. Shared, not
/// cloned: a cloned `Regex` gets a search cache of its own (tens of kilobytes), one per shell.
pub fn compiled(pattern: &'static str) -> Result<Arc<Regex>, regex::Error> {
    static CACHE: LazyLock<Mutex<HashMap<&'static str, Arc<Regex>>>> =
        LazyLock::new(Default::default);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(regex) = cache.get(pattern) {
        return Ok(regex.clone());
    }
    let regex = Arc::new(Regex::new(pattern)?);
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
    /// What to send to the pager for the next page (a key, no newline).
    pub pager_answer: &'static str,
    /// A post-login banner waiting for an answer: (text the last line ends with, key to press).
    pub banner: Option<(&'static str, &'static str)>,
    /// Session settings sent once after login (never configuration writes). These lines, and
    /// no others, pass the guard as setup lines.
    pub on_open: &'static [&'static str],
    pub enable: Option<Enable>,
    /// Output substrings that mean the device refused a command, most specific first.
    pub errors: &'static [DeviceError],
    /// Sent after a group of commands that shared a context, to undo it.
    pub context_reset: Option<&'static str>,
    pub vdoms: Option<Vdoms>,
    /// Lines that are not read-only, each sendable only with the one proof type named here.
    pub proven: &'static [Proven],
    /// The read-only allowlist: `Err(reason)` for a line that must never be sent.
    pub allowlist: fn(&str) -> Result<(), NotReadOnly>,
}

/// Why the platform's allowlist refuses a line (the guard puts it in a [`super::guard::Refused`]
/// with the line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotReadOnly(pub String);

impl From<&str> for NotReadOnly {
    fn from(reason: &str) -> Self {
        NotReadOnly(reason.to_string())
    }
}

impl From<String> for NotReadOnly {
    fn from(reason: String) -> Self {
        NotReadOnly(reason)
    }
}

/// Why a VDOM reader could not read its command's output (the driver names the command).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VdomsUnreadable {
    #[error("{0} has no VDOMs")]
    NoVdoms(premarket_core::Platform),
    /// The platform's reader said why, in its words.
    #[error("{0}")]
    Output(String),
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
    /// The device says the command or a keyword does not exist here (this hardware or
    /// release), rather than refusing the account or failing: the command's result is
    /// [`premarket_core::CollectError::Unsupported`], which the parse stage judges knowing the
    /// model (SKIP where the model is not known to have the command, ERROR where it is).
    pub unsupported: bool,
}

/// Virtual domains (FortiGate VDOMs): how to learn whether the box has them, which ones exist,
/// and how to reach the global context and one VDOM without ever creating one.
#[derive(Debug)]
pub struct Vdoms {
    /// Read first when a VDOM is configured (works in any context).
    pub mode_command: &'static str,
    /// Reads the mode command's output: `Ok(true)` when the box has VDOMs.
    pub mode: fn(&str) -> Result<bool, VdomsUnreadable>,
    /// Enters the global context; afterwards the prompt contains `global_prompt`.
    pub global: &'static str,
    pub global_prompt: &'static str,
    /// Lists the VDOMs, read-only, in the global context.
    pub list_command: &'static str,
    /// Reads the listing: the names of the VDOMs an operator can enter.
    pub list: fn(&str) -> Result<Vec<String>, VdomsUnreadable>,
    /// Opens the VDOM table (`config vdom`); only ever followed by `edit` of a listed name.
    pub table: &'static str,
    /// Enters one VDOM, with `{vdom}`; creates it when it does not exist, hence the listing.
    pub edit: &'static str,
    /// Output of `edit` that proves the VDOM was entered, with `{vdom}`.
    pub entered: &'static str,
    /// What the prompt holds once the VDOM is entered, with `{vdom}`.
    pub prompt: &'static str,
    /// Leaves the global context or the VDOM.
    pub leave: &'static str,
    pub is_name: fn(&str) -> bool,
    /// Commands that read box-wide state and so run in the global context on a box with VDOMs.
    pub global_scope: fn(&str) -> bool,
}

/// A line that changes the device, and the only type of proof that allows it (see
/// [`super::guard::Proof`]).
#[derive(Debug)]
pub struct Proven {
    pub line: &'static str,
    pub proof: fn() -> TypeId,
}

impl Profile {
    /// The first known error found at the start of a line of `output`, with that line.
    /// Errors earlier in the profile's list win over later ones, wherever they are printed.
    /// One pass over the output (each output of every command goes through here).
    pub fn error_in<'o>(&self, output: &'o str) -> Option<(&DeviceError, &'o str)> {
        let mut best: Option<(usize, &'o str)> = None;
        for line in output.lines() {
            let line = line.trim_start();
            // Most lines start with no error's first letter: one byte compared, not a string.
            let Some(first) = line.as_bytes().first() else {
                continue;
            };
            for (i, e) in self.errors.iter().enumerate() {
                if best.is_some_and(|(b, _)| b <= i) {
                    break;
                }
                if e.line_starts.as_bytes().first() == Some(first)
                    && line.starts_with(e.line_starts)
                {
                    best = Some((i, line.trim_end()));
                    break;
                }
            }
            if best.is_some_and(|(b, _)| b == 0) {
                break;
            }
        }
        best.map(|(i, line)| (&self.errors[i], line))
    }
}

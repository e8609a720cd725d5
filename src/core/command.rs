//! A command to send to a device, and the one rule that names its saved output file.
//!
//! A command may be a second sample of another ([`Resample`]): the same read-only line sent
//! again later in the same session, so a check can see a counter move between the two.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One read-only command. `context` holds commands that must be sent just before it, in order,
/// to set device state the command depends on (e.g. a FortiGate session filter). Two commands
/// with the same text but different contexts are different commands, and so are the two
/// samples of one command ([`Command::resample`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Command {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    pub text: String,
    /// This is the second sample of the same command (same context and text), to be sent at
    /// least this long after the first in the same session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resample: Option<Resample>,
}

/// A second sample: the same command read again, at least `gap_s` seconds after the first
/// (the plan sends the first early and the second last, so the wait is what is left).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Resample {
    pub gap_s: u32,
}

/// Appended to a second sample's saved-output file name (`show-interfaces-ethernet1-json
/// --sample-2.txt`); a slug never holds two dashes in a row, so it cannot collide.
pub const SECOND_SAMPLE_SUFFIX: &str = "--sample-2";

/// Longest file name we produce; longer slugs are cut and given a hash suffix.
const MAX_FILE_NAME: usize = 200;

impl Command {
    pub fn new(text: impl Into<String>) -> Self {
        Command {
            context: Vec::new(),
            text: text.into(),
            resample: None,
        }
    }

    pub fn in_context(context: Vec<String>, text: impl Into<String>) -> Self {
        Command {
            context,
            text: text.into(),
            resample: None,
        }
    }

    /// The second sample of this command, sent at least `gap_s` seconds after it.
    pub fn resampled(mut self, gap_s: u32) -> Self {
        self.resample = Some(Resample { gap_s });
        self
    }

    /// The first sample of a second sample (the command itself otherwise).
    pub fn first_sample(&self) -> Command {
        Command {
            resample: None,
            ..self.clone()
        }
    }

    /// Every line sent for this command: the context, then the command itself.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.context
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(self.text.as_str()))
    }

    /// The saved-output file name (offline layout `DIR/<device>/<file>`).
    ///
    /// Rule: join the context and the command with ` ; `, lower-case it, turn every run of
    /// characters other than `a-z` and `0-9` into one `-`, trim `-` at both ends, append
    /// `.txt`. Names longer than 200 characters keep their first 183 and end in `-` plus 16
    /// hex digits of an FNV-1a hash of the full slug. A second sample adds `--sample-2` before
    /// `.txt`. `show version | json` -> `show-version-json.txt`.
    pub fn file_name(&self) -> String {
        let joined = self.lines().collect::<Vec<_>>().join(" ; ");
        let mut slug = String::with_capacity(joined.len());
        for c in joined.chars().flat_map(char::to_lowercase) {
            if c.is_ascii_alphanumeric() {
                slug.push(c);
            } else if !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug = slug.trim_matches('-');
        let stem = if slug.len() > MAX_FILE_NAME {
            format!(
                "{}-{:016x}",
                &slug[..MAX_FILE_NAME - 17],
                fnv1a(slug.as_bytes())
            )
        } else {
            slug.to_string()
        };
        let sample = if self.resample.is_some() {
            SECOND_SAMPLE_SUFFIX
        } else {
            ""
        };
        format!("{stem}{sample}.txt")
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.context {
            write!(f, "{c} ; ")?;
        }
        f.write_str(&self.text)?;
        match self.resample {
            Some(r) => write!(f, " (second sample, {} s after the first)", r.gap_s),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_rule() {
        let cases = [
            (Command::new("show version | json"), "show-version-json.txt"),
            (Command::new("get system status"), "get-system-status.txt"),
            (
                Command::new("  Show Running-Config  diffs "),
                "show-running-config-diffs.txt",
            ),
            (
                Command::in_context(
                    vec!["diagnose sys session filter dport 5000".into()],
                    "diagnose sys session list",
                ),
                "diagnose-sys-session-filter-dport-5000-diagnose-sys-session-list.txt",
            ),
        ];
        for (command, name) in cases {
            assert_eq!(command.file_name(), name);
        }
    }

    #[test]
    fn a_second_sample_is_another_command_with_its_own_file() {
        let first = Command::new("show interfaces Ethernet1 | json");
        let second = first.clone().resampled(10);
        assert_ne!(first, second);
        assert_eq!(second.first_sample(), first);
        assert_eq!(
            second.file_name(),
            "show-interfaces-ethernet1-json--sample-2.txt"
        );
        assert_eq!(
            second.to_string(),
            "show interfaces Ethernet1 | json (second sample, 10 s after the first)"
        );
        // Records of older versions have no `resample`: they read as first samples.
        let old: Command = serde_json::from_str(r#"{"text": "show version | json"}"#).unwrap();
        assert_eq!(old, Command::new("show version | json"));
        assert!(!serde_json::to_string(&first).unwrap().contains("resample"));
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let a = Command::new("x ".repeat(300));
        let b = Command::new("x ".repeat(301));
        assert_eq!(a.file_name().len(), MAX_FILE_NAME + 4);
        assert_ne!(a.file_name(), b.file_name());
    }
}
